package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/atma-dev/atma/overlay/store"
)

// decodeRequest reads r's JSON body into v: the content type must be JSON, the body at
// most the configured size, one value with no unknown fields and nothing after it.
func (s *server) decodeRequest(w http.ResponseWriter, r *http.Request, v any) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return &httpError{status: http.StatusUnsupportedMediaType, code: CodeUnsupportedMediaType,
			err: fmt.Errorf("content type %q: send the body as application/json", ct)}
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return &httpError{status: http.StatusRequestEntityTooLarge, code: CodeBodyTooLarge,
			err: fmt.Errorf("body is %d bytes, more than the limit of %d", r.ContentLength, s.cfg.MaxBodyBytes)}
	}
	return decodeBody(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), v)
}

// decodeBody decodes exactly one JSON value from body into v, strictly: unknown fields,
// a name given twice, a name in another case than the field's ("Content" for
// "content"), invalid UTF-8 and anything after the value are refused. It uses
// go-json-experiment/json (encoding/json/v2 as proposed), whose defaults are these
// rules; encoding/json matches names case-insensitively, keeps the last of a repeated
// name and replaces invalid UTF-8 with U+FFFD.
func decodeBody(body io.Reader, v any) error {
	b, err := readBody(body)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return &httpError{status: http.StatusBadRequest, code: CodeInvalidJSON, err: errors.New("invalid JSON: the body is empty; send a JSON object")}
	}
	if err := jsonv2.Unmarshal(b, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return jsonError(err)
	}
	return nil
}

// readBody reads a request's body whole: a body over the size limit stays a
// *http.MaxBytesError (413), one later than Config.BodyTimeout is a 408.
func readBody(body io.Reader) ([]byte, error) {
	b, err := io.ReadAll(body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, &httpError{status: http.StatusRequestTimeout, code: CodeBodyTimeout, err: errors.New("the body did not arrive in time; send it whole, at once")}
		}
		return nil, &httpError{status: http.StatusBadRequest, code: CodeInvalidJSON, err: fmt.Errorf("invalid JSON: read the body: %w", err)}
	}
	return b, nil
}

// decodeStrict decodes one JSON value from b into v as decodeBody does.
func decodeStrict(b []byte, v any) error { return decodeBody(bytes.NewReader(b), v) }

// jsonError turns a decoding error into a 400.
func jsonError(err error) error {
	var (
		sem  *jsonv2.SemanticError
		syn  *jsontext.SyntacticError
		code = CodeInvalidJSON
		msg  string
	)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "the JSON ends too early"
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "after top-level value"):
		msg = "the body has data after its first value"
	case errors.As(err, &sem) && errors.Is(sem.Err, jsonv2.ErrUnknownName):
		code = CodeUnknownField
		msg = fmt.Sprintf("unknown field %q (names are matched exactly, case included)", sem.JSONPointer.LastToken())
	case errors.As(err, &sem):
		field := string(sem.JSONPointer)
		if field == "" {
			field = "the body"
		}
		msg = fmt.Sprintf("%s: want %v, got JSON %s", field, sem.GoType, sem.JSONKind)
		if sem.Err != nil {
			msg += ": " + sem.Err.Error()
		}
	case errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName):
		msg = fmt.Sprintf("field %s is given twice", syn.JSONPointer)
	case errors.As(err, &syn):
		msg = fmt.Sprintf("at byte %d: %v", syn.ByteOffset, syn.Err)
	default:
		msg = err.Error()
	}
	return &httpError{status: http.StatusBadRequest, code: code, err: fmt.Errorf("invalid JSON: %s", msg)}
}

// userOf is the {user} of the path as the bank's user (bankUser).
func userOf(r *http.Request) (string, error) {
	return bankUser(r, r.PathValue("user"), "user in the path: ")
}

// bankUser is the bank's user for a user the request names: in Unicode NFC, valid
// (a 400, its message after prefix), and in the request's API key's tenant (a 403 for
// a user the key may not name).
func bankUser(r *http.Request, user, prefix string) (string, error) {
	u := store.NormalizeUser(user)
	if err := store.ValidateUser(u); err != nil {
		return "", badRequest(fmt.Errorf("%s%w", prefix, err))
	}
	if k := principalOf(r).key; k != nil {
		id, err := k.UserID(u)
		if err != nil {
			return "", &httpError{status: http.StatusForbidden, code: CodeForbidden, err: err}
		}
		return id, nil
	}
	return u, nil
}

// idOf is the {id} of the path, validated.
func idOf(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if id == "" || len(id) > store.MaxIDLen || strings.ContainsFunc(id, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", badRequest(fmt.Errorf("id %.40q in the path is empty, longer than %d bytes or has control characters", id, store.MaxIDLen))
	}
	return id, nil
}
