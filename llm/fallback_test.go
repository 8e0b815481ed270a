package llm

import (
	"fmt"
	"strings"
	"testing"
)

func TestNeedsFixAndDescribe(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		fix   bool
		about string
	}{
		{"model not found", fmt.Errorf("chat: %w", ErrModelNotFound), true, ""},
		{"bad key", &APIError{StatusCode: 401}, true, "server error 401"},
		{"rate limit", &APIError{StatusCode: 429}, false, "server error 429"},
		{"server error", &APIError{StatusCode: 503}, false, "server error 503"},
		{"context too long", fmt.Errorf("chat: %w", ErrContextLength), false, "context length"},
		{"unreachable", fmt.Errorf("chat: %w", ErrUnreachable), false, "unreachable"},
		{"timeout", fmt.Errorf("chat: %w", ErrTimeout), false, "timed out"},
		{"garbage", fmt.Errorf("chat: %w: line one\nline two", ErrBadResponse), false, "malformed response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NeedsFix(tt.err); got != tt.fix {
				t.Errorf("NeedsFix = %v, want %v", got, tt.fix)
			}
			d := Describe(tt.err)
			if !strings.Contains(d, tt.about) || strings.Contains(d, "\n") {
				t.Errorf("Describe = %q, want one line about %q", d, tt.about)
			}
		})
	}
	if s := FirstLine(strings.Repeat("é", 300)); len([]rune(s)) != 201 || !strings.HasSuffix(s, "…") {
		t.Errorf("FirstLine of 300 runes: %d runes", len([]rune(s)))
	}
}
