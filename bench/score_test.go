package bench

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// The golden stems are NLTK's (see testdata/porter_golden.py).
func TestPorterStemMatchesNLTK(t *testing.T) {
	f, err := os.Open("testdata/porter.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		word, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad golden line %q", line)
		}
		if got := porterStem(word); got != want {
			t.Errorf("porterStem(%q) = %q, NLTK says %q", word, got, want)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("only %d golden words", n)
	}
}

func TestNormalizeAnswer(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The cat's  toy, and A bone!", "cats toy bone"},
		{"Thé and the—end", "thé —end"},
		{"an Apple a day", "apple day"},
		{"Sweden; then Norway", "sweden then norway"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := NormalizeAnswer(tt.in); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Expected values come from the official scorer's code run with NLTK 3.8.
func TestTokenF1(t *testing.T) {
	tests := []struct {
		pred, gold string
		want       float64
	}{
		{"The Sunday before 19 April 2023", "The Sunday before 19 April 2023", 1},
		{"She ran on Sunday, April 16", "The Sunday before 19 April 2023", 0.36363636363636365},
		{"Running and painting", "She paints and runs", 0.8},
		{"", "anything", 0},
		{"Psychology", "Psychology, counseling certification", 0.5},
		{"A lopsided bowl.", "A lopsided bowl", 1},
		{"caresses the ponies", "caress a pony", 1},
	}
	for _, tt := range tests {
		t.Run(tt.pred, func(t *testing.T) {
			if got := TokenF1(tt.pred, tt.gold); !near(got, tt.want) {
				t.Fatalf("TokenF1 = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMultiAnswerF1(t *testing.T) {
	if got := MultiAnswerF1("sourdough, walks every evening", "sourdough, every evening"); !near(got, 0.9) {
		t.Errorf("got %v, want 0.9", got)
	}
	if got := MultiAnswerF1("tomatoes and basil", "Tomatoes, basil and a pepper plant"); !near(got, 0.5333333333333333) {
		t.Errorf("got %v, want 0.5333", got)
	}
}

func TestScoreF1Categories(t *testing.T) {
	tests := []struct {
		name   string
		q      QA
		answer string
		want   float64
	}{
		{"open-domain trimmed at ;", QA{Category: CategoryOpenDomain, Answer: "Likely no; though she likes reading"}, "likely no", 1},
		{"adversarial not mentioned", QA{Category: CategoryAdversarial, Adversarial: "yes"}, "(a) Not mentioned in the conversation", 1},
		{"adversarial no information", QA{Category: CategoryAdversarial}, "No information available.", 1},
		{"adversarial taken in", QA{Category: CategoryAdversarial, Adversarial: "yes"}, "Yes, she did.", 0},
		{"multi-hop", QA{Category: CategoryMultiHop, Answer: "sourdough, every evening"}, "sourdough, walks every evening", 0.9},
		{"single-hop", QA{Category: CategorySingleHop, Answer: "Comet"}, "Her name is Comet", 0.4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScoreF1(tt.q, tt.answer); !near(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// Expected values: NLTK's sentence_bleu with weights (1, 0, 0, 0) on the normalised words.
func TestBLEU1(t *testing.T) {
	tests := []struct {
		pred, gold string
		want       float64
	}{
		{"a lopsided bowl", "A lopsided bowl", 1},
		{"bowl", "A lopsided bowl", 0.36787944117144233},
		{"lopsided bowl she made at the workshop", "A lopsided bowl", 0.3333333333333333},
		{"", "A lopsided bowl", 0},
	}
	for _, tt := range tests {
		t.Run(tt.pred, func(t *testing.T) {
			if got := BLEU1(tt.pred, tt.gold); !near(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQuestionText(t *testing.T) {
	q := QA{Question: "Did Dev adopt a greyhound?", Category: CategoryAdversarial, Adversarial: "Yes"}
	got := QuestionText(q)
	if !strings.HasPrefix(got, q.Question+" Select the correct answer: (a) ") || !strings.Contains(got, NotMentioned) || !strings.Contains(got, "Yes") {
		t.Fatalf("got %q", got)
	}
	if QuestionText(q) != got {
		t.Fatal("the option order changed between calls")
	}
	plain := QA{Question: "What is the name of Cleo's greyhound?", Category: CategorySingleHop}
	if QuestionText(plain) != plain.Question {
		t.Fatal("a plain question was changed")
	}
}

func TestParseGrade(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"CORRECT", 1, true},
		{"correct.", 1, true},
		{"INCORRECT", 0, true},
		{"WRONG", 0, true},
		{"It is wrong, not correct", 0, true},
		{"maybe", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseGrade(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("parseGrade(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

func TestHoldsKey(t *testing.T) {
	tests := []struct {
		s, key string
		want   bool
	}{
		{"She moved to Portland last month.", "Portland", true},
		{"My aunt's rent is $2,000 a month now.", "$2,000", true},
		{"My aunt's rent is $2,800 a month.", "$2,000", false},
		{"He only plays chess once a month now.", "once a month", true},
		{"He is a lab technician.", "lab technician", true},
		{"He works in a lab.", "lab technician", false},
		{"anything", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.s+"/"+tt.key, func(t *testing.T) {
			if got := holdsKey(tt.s, tt.key); got != tt.want {
				t.Fatalf("holdsKey = %v", got)
			}
		})
	}
}
