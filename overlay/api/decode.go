package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

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

// decodeBody decodes exactly one JSON value from body into v, refusing unknown fields.
func decodeBody(body io.Reader, v any) error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return &httpError{status: http.StatusBadRequest, code: CodeInvalidJSON, err: errors.New("invalid JSON: the body has data after its first value")}
	}
	return nil
}

// decodeStrict decodes one JSON value from b into v, refusing unknown fields.
func decodeStrict(b []byte, v any) error { return decodeBody(strings.NewReader(string(b)), v) }

// jsonError turns a decoding error into a 400 (or leaves a size error for the 413).
func jsonError(err error) error {
	var (
		mbe  *http.MaxBytesError
		syn  *json.SyntaxError
		typ  *json.UnmarshalTypeError
		code = CodeInvalidJSON
		msg  string
	)
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.Is(err, io.EOF):
		msg = "the body is empty; send a JSON object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "the JSON ends too early"
	case errors.As(err, &syn):
		msg = fmt.Sprintf("at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the body"
		}
		msg = fmt.Sprintf("%s: want %s, got JSON %s", field, typ.Type, typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		code = CodeUnknownField
		msg = strings.TrimPrefix(err.Error(), "json: ")
	default:
		msg = err.Error()
	}
	return &httpError{status: http.StatusBadRequest, code: code, err: fmt.Errorf("invalid JSON: %s", msg)}
}

// userOf is the {user} of the path, validated.
func userOf(r *http.Request) (string, error) {
	u := r.PathValue("user")
	if err := store.ValidateUser(u); err != nil {
		return "", badRequest(fmt.Errorf("user in the path: %w", err))
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
