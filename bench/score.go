package bench

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// asciiPunct is Python's string.punctuation, which the official scorer strips.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// NormalizeAnswer is the official LoCoMo scorer's normalisation: commas removed, lower
// case, ASCII punctuation removed, the words "a", "an", "the" and "and" removed, white
// space folded.
func NormalizeAnswer(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, ",", ""))
	s = strings.Map(func(r rune) rune {
		if r < 128 && strings.ContainsRune(asciiPunct, r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(dropArticles(s)), " ")
}

// dropArticles replaces whole words a, an, the and and with a space; a word is a run of
// Unicode letters, digits and underscores, as Python's \b reads it.
func dropArticles(s string) string {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isWord(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isWord(rs[j]) {
			j++
		}
		switch w := string(rs[i:j]); w {
		case "a", "an", "the", "and":
			b.WriteByte(' ')
		default:
			b.WriteString(w)
		}
		i = j
	}
	return b.String()
}

func stems(s string) []string {
	ws := strings.Fields(NormalizeAnswer(s))
	for i, w := range ws {
		ws[i] = porterStem(w)
	}
	return ws
}

// TokenF1 is the official scorer's f1_score: the F1 of the Porter-stemmed words of the
// normalised prediction and gold answer (0 when they share none).
func TokenF1(prediction, gold string) float64 {
	p, g := stems(prediction), stems(gold)
	count := map[string]int{}
	for _, w := range g {
		count[w]++
	}
	same := 0
	for _, w := range p {
		if count[w] > 0 {
			count[w]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	prec, rec := float64(same)/float64(len(p)), float64(same)/float64(len(g))
	return 2 * prec * rec / (prec + rec)
}

// MultiAnswerF1 is the official scorer's f1 for multi-hop answers: prediction and gold
// split at commas, and for each gold part the best F1 of any predicted part, averaged.
func MultiAnswerF1(prediction, gold string) float64 {
	var preds []string
	for _, p := range strings.Split(prediction, ",") {
		preds = append(preds, strings.TrimSpace(p))
	}
	golds := strings.Split(gold, ",")
	var sum float64
	for _, g := range golds {
		best := 0.0
		for _, p := range preds {
			best = math.Max(best, TokenF1(p, strings.TrimSpace(g)))
		}
		sum += best
	}
	return sum / float64(len(golds))
}

// GoldAnswer is the answer the official scorer compares with: category 3 answers are
// trimmed at the first ';'.
func GoldAnswer(q QA) string {
	if q.Category == CategoryOpenDomain {
		a, _, _ := strings.Cut(q.Answer, ";")
		return strings.TrimSpace(a)
	}
	return q.Answer
}

// ScoreF1 scores an answer as the official scorer does: category 1 by MultiAnswerF1,
// categories 2–4 by TokenF1 against GoldAnswer, and category 5 (adversarial) 1 when the
// answer says the information is not available ("no information available", "not
// mentioned"), else 0.
func ScoreF1(q QA, answer string) float64 {
	switch q.Category {
	case CategoryMultiHop:
		return MultiAnswerF1(answer, GoldAnswer(q))
	case CategoryAdversarial:
		low := strings.ToLower(answer)
		if strings.Contains(low, "no information available") || strings.Contains(low, "not mentioned") {
			return 1
		}
		return 0
	}
	return TokenF1(answer, GoldAnswer(q))
}

// BLEU1 is unigram BLEU over the normalised words (not stemmed): the clipped unigram
// precision times the brevity penalty exp(1 − r/c) when the answer (c words) is shorter
// than the gold (r words); 0 for an empty answer.
func BLEU1(prediction, gold string) float64 {
	p, g := strings.Fields(NormalizeAnswer(prediction)), strings.Fields(NormalizeAnswer(gold))
	if len(p) == 0 || len(g) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, w := range g {
		count[w]++
	}
	clipped := 0
	for _, w := range p {
		if count[w] > 0 {
			count[w]--
			clipped++
		}
	}
	bp := 1.0
	if len(p) < len(g) {
		bp = math.Exp(1 - float64(len(g))/float64(len(p)))
	}
	return bp * float64(clipped) / float64(len(p))
}

// NotMentioned is the option the official QA prompt offers for adversarial questions.
const NotMentioned = "Not mentioned in the conversation"

// QuestionText is the question as the answer model gets it: adversarial questions
// become a choice between "Not mentioned in the conversation" and the adversarial
// answer, in an order fixed by the question's text, as the official evaluation asks
// them.
func QuestionText(q QA) string {
	if q.Category != CategoryAdversarial || q.Adversarial == "" {
		return q.Question
	}
	h := fnv.New32a()
	h.Write([]byte(q.Question))
	a, b := NotMentioned, q.Adversarial
	if h.Sum32()%2 == 1 {
		a, b = b, a
	}
	return q.Question + " Select the correct answer: (a) " + a + " (b) " + b + "."
}
