#!/usr/bin/python3
"""Writes porter.golden: one word per line with NLTK's PorterStemmer (default mode) stem.

The words are those of the LoCoMo fixture, the benchmarks' vocabularies and a list of
words that exercise every rule of the algorithm. Regenerate from the repository root with
Debian's python3-nltk:

    /usr/bin/python3 bench/testdata/porter_golden.py > bench/testdata/porter.golden
"""
import json, re, sys
from nltk.stem import PorterStemmer
import nltk

here = sys.path[0]
words = set()
def add(text):
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        words.add(w)
fixture = json.load(open(here + "/locomo_fixture.json"))
add(json.dumps(fixture))
add(open(here + "/../vocab.go").read())
add(open(here + "/../tem.go").read())
add("""caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled
sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional
rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli
vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti
sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness
revival allowance inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption homologou communism activate angulariti homologous effective
bowdlerize probate rate cease controll roll skies dying lying tying news innings outings
cannings howe proceed exceed succeed generously generous enjoy enjoyment spied tried flies
fly spy try dies ties lies died tied lied fully fulli logically analogies archaeology
analogy apology biology enjoyed generalization generalizations oscillators national nationally
agreement agreements relativity sensibility abilities ability possibly possibility ness
running runs ran swimming swims eating cooked baked baking bakery woman women children childhood
""")
p = PorterStemmer()
print("# word<TAB>stem: NLTK %s PorterStemmer().stem(word); regenerate: /usr/bin/python3 bench/testdata/porter_golden.py > bench/testdata/porter.golden" % nltk.__version__)
for w in sorted(words):
    print("%s\t%s" % (w, p.stem(w)))
