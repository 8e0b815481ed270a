package rule

import (
	"strings"
	"testing"
)

func TestChangeCue(t *testing.T) {
	tests := []struct{ before, after, want string }{
		{"My commute to work is 25 minutes by bike.", "Actually my commute to work is 40 minutes now.", "number 40"},
		{"I love spicy food.", "I love spicy food, except at lunch on weekdays.", `scope "except"`},
		{"I have a dog named Rex.", "I don't have a dog anymore.", `negation "n't"`},
		{"I live in Berlin.", "I moved to Lisbon.", `change "moved"`},
		{"I live in Berlin now.", "I live in Berlin now.", ""},
		{"I like tea.", "I like green tea.", ""},
		{"I am 30 years old.", "I am 30 years old and happy.", ""},
		{"I don't eat meat.", "I still don't eat meat.", ""},
	}
	for _, tt := range tests {
		got := ChangeCue(tt.before, tt.after)
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("ChangeCue(%q, %q) = %q, want %q…", tt.before, tt.after, got, tt.want)
		}
	}
}
