package judge

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors of the parsers and of Verdict.Validate. Every parse error is a
// *ParseError that unwraps to one of them, so callers (rewards, metrics) can tell kinds of
// failure apart with errors.Is.
var (
	// ErrNoThink: the answer does not start with a <think> block.
	ErrNoThink = errors.New("no think block")
	// ErrUnclosedThink: <think> is never closed by </think>.
	ErrUnclosedThink = errors.New("unclosed think block")
	// ErrMissingStep: one of the four step labels is absent from the think block.
	ErrMissingStep = errors.New("missing think step")
	// ErrStepOrder: a step label is out of order or repeated, or text precedes the first.
	ErrStepOrder = errors.New("think steps out of order")
	// ErrEmptyStep: a step has a label and no text.
	ErrEmptyStep = errors.New("empty think step")
	// ErrNoJSON: no JSON object follows the think block.
	ErrNoJSON = errors.New("no verdict JSON")
	// ErrExtraText: text other than white space around the verdict object (a code fence,
	// a preamble, a trailing remark).
	ErrExtraText = errors.New("extra text around the verdict")
	// ErrMultipleJSON: more than one JSON value follows the think block.
	ErrMultipleJSON = errors.New("more than one JSON value")
	// ErrInvalidJSON: the verdict is not well-formed JSON, or not an object.
	ErrInvalidJSON = errors.New("invalid verdict JSON")
	// ErrMissingField: a required verdict field is absent.
	ErrMissingField = errors.New("missing verdict field")
	// ErrUnknownField: the verdict has a field the format does not define, or one twice.
	ErrUnknownField = errors.New("unknown or repeated verdict field")
	// ErrFieldType: a field has the wrong JSON type.
	ErrFieldType = errors.New("verdict field of the wrong type")
	// ErrInvalidEnum: a status, conflict type, action, link type or link end is not one of
	// the allowed values.
	ErrInvalidEnum = errors.New("invalid verdict value")
	// ErrOutOfRange: the confidence is outside [0, 1].
	ErrOutOfRange = errors.New("verdict value out of range")
	// ErrInconsistent: the fields contradict each other (a consistent pair with a conflict
	// type, a supersede without a supersedes link, …).
	ErrInconsistent = errors.New("inconsistent verdict")
)

// ParseError says what is wrong with an answer and where.
type ParseError struct {
	// Err is the sentinel for the kind of problem.
	Err error
	// Field is the verdict field ("links[1].type") or the step label ("Comparison:")
	// concerned; empty when neither applies.
	Field string
	// Offset is the byte offset in the answer where the problem was found; -1 when it
	// concerns the decoded verdict rather than a place in the text.
	Offset int
	// Detail says what was found.
	Detail string
}

func (e *ParseError) Error() string {
	msg := e.Err.Error()
	if e.Field != "" {
		msg += " " + strconv.Quote(e.Field)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Offset >= 0 {
		msg += fmt.Sprintf(" (at byte %d)", e.Offset)
	}
	return msg
}

// Unwrap returns the sentinel.
func (e *ParseError) Unwrap() error { return e.Err }

func parseErr(sentinel error, offset int, field, format string, args ...any) *ParseError {
	return &ParseError{Err: sentinel, Field: field, Offset: offset, Detail: fmt.Sprintf(format, args...)}
}
