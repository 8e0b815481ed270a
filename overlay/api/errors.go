package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/store"
)

// Error codes of ErrorDetail.Code.
const (
	CodeInvalidInput         = "invalid_input"          // 400: a field the API or the overlay refuses
	CodeInvalidJSON          = "invalid_json"           // 400: the body is not the JSON asked for
	CodeUnknownField         = "unknown_field"          // 400: the body has a field the API does not know
	CodeUnauthorized         = "unauthorized"           // 401: no or wrong bearer token
	CodeForbidden            = "forbidden"              // 403: the API key may not do this, or not for this user
	CodeNotFound             = "not_found"              // 404: no such record, trace or route
	CodeUnknownUser          = "unknown_user"           // 404: the user has no records
	CodeMethodNotAllowed     = "method_not_allowed"     // 405
	CodeConflict             = "conflict"               // 409: the commit would break a bank invariant
	CodeBodyTimeout          = "body_timeout"           // 408: the body did not arrive within Config.BodyTimeout
	CodeBodyTooLarge         = "body_too_large"         // 413
	CodeUnsupportedMediaType = "unsupported_media_type" // 415: the body is not application/json
	CodeInternal             = "internal"               // 500
	CodeNotImplemented       = "not_implemented"        // 501: a Mem0 endpoint atma does not serve
	CodeUnavailable          = "unavailable"            // 503: too many requests in flight, or a deadline passed
	CodeBankDamaged          = "bank_damaged"           // 503: the bank's file failed its integrity check; writes are refused
	CodeBankReadOnly         = "bank_read_only"         // 503: the bank's file or directory cannot be written
	CodeDiskFull             = "disk_full"              // 507: the disk under the bank is full
)

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Committed are the records an add request committed before it failed: a batch
	// is ingested in order and what was committed stays.
	Committed []string `json:"committed,omitempty"`
}

// httpError is an error with its status and code.
type httpError struct {
	status    int
	code      string
	err       error
	committed []string
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func badRequest(err error) error {
	return &httpError{status: http.StatusBadRequest, code: CodeInvalidInput, err: err}
}

// classify maps an error to its status and code; the message of a 500 is not shown.
func classify(err error) *httpError {
	var he *httpError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &mbe):
		return &httpError{status: http.StatusRequestEntityTooLarge, code: CodeBodyTooLarge, err: err}
	case errors.Is(err, overlay.ErrInvalidInput), errors.Is(err, store.ErrInvalid):
		return &httpError{status: http.StatusBadRequest, code: CodeInvalidInput, err: err}
	case errors.Is(err, store.ErrNotFound):
		return &httpError{status: http.StatusNotFound, code: CodeNotFound, err: err}
	case errors.Is(err, store.ErrConflict):
		return &httpError{status: http.StatusConflict, code: CodeConflict, err: err}
	case errors.Is(err, store.ErrDamaged):
		return &httpError{status: http.StatusServiceUnavailable, code: CodeBankDamaged, err: err}
	case errors.Is(err, store.ErrReadOnly):
		return &httpError{status: http.StatusServiceUnavailable, code: CodeBankReadOnly, err: err}
	case errors.Is(err, store.ErrBusy), errors.Is(err, store.ErrUnavailable):
		return &httpError{status: http.StatusServiceUnavailable, code: CodeUnavailable, err: err}
	case errors.Is(err, store.ErrDiskFull):
		return &httpError{status: http.StatusInsufficientStorage, code: CodeDiskFull, err: err}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return &httpError{status: http.StatusServiceUnavailable, code: CodeUnavailable, err: err}
	}
	return &httpError{status: http.StatusInternalServerError, code: CodeInternal, err: err}
}

// retryable reports a bank that did not answer this time — busy (its lock, or every
// connection of the pool, taken) or unreachable — and may answer soon: 503 with
// Retry-After, never a verdict on the request itself (such as 401 for an API key).
func retryable(err error) bool {
	return errors.Is(err, store.ErrBusy) || errors.Is(err, store.ErrUnavailable)
}

// writeError writes err as an ErrorResponse; server errors are logged, and their
// details stay in the log.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	he := classify(err)
	if retryable(err) {
		// Nothing was written and the bank may answer again soon: say when to retry.
		w.Header().Set("Retry-After", "1")
	}
	msg := he.Error()
	if he.status >= 500 {
		s.log.Error("api request failed", "method", r.Method, "path", r.URL.Path, "status", he.status, "err", err)
		if he.status == http.StatusInternalServerError {
			msg = "internal error; the server log has the details"
		}
	}
	if he.committed == nil {
		var ae *addError
		if errors.As(err, &ae) {
			he.committed = ae.committed
		}
	}
	writeJSON(w, he.status, ErrorResponse{Error: ErrorDetail{Code: he.code, Message: msg, Committed: he.committed}})
}

// addError is the error of an add request that committed part of its batch.
type addError struct {
	err       error
	committed []string
}

func (e *addError) Error() string { return e.err.Error() }
func (e *addError) Unwrap() error { return e.err }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// The API's own types always marshal; this is a programming error made visible.
		b, _ = json.Marshal(ErrorResponse{Error: ErrorDetail{Code: CodeInternal, Message: "encode response: " + err.Error()}})
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
