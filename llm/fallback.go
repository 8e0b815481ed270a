package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// NeedsFix reports errors that a caller with a fallback (the LLM Judge, the LLM fact
// extractor) must return rather than hide behind the fallback: the model does not exist,
// or the credentials or the request are wrong (4xx other than rate limits, timeouts and a
// context too long). Everything else is a reason to fall back.
func NeedsFix(err error) bool {
	if errors.Is(err, ErrModelNotFound) {
		return true
	}
	if errors.Is(err, ErrContextLength) {
		return false
	}
	var api *APIError
	if errors.As(err, &api) {
		s := api.StatusCode
		return s >= 400 && s < 500 && s != http.StatusTooManyRequests && s != http.StatusRequestTimeout
	}
	return false
}

// Describe names a failure in one short line, for the reason of a fallback.
func Describe(err error) string {
	var api *APIError
	switch {
	case errors.Is(err, ErrContextLength):
		return "prompt exceeds the model's context length"
	case errors.Is(err, ErrUnreachable):
		return "endpoint unreachable"
	case errors.Is(err, ErrTimeout):
		return "endpoint timed out"
	case errors.Is(err, ErrBadResponse):
		return "malformed response: " + FirstLine(err.Error())
	case errors.As(err, &api):
		return fmt.Sprintf("server error %d: %s", api.StatusCode, FirstLine(err.Error()))
	}
	return FirstLine(err.Error())
}

// FirstLine is the first line of s, at most 200 runes.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
