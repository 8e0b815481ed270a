package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/atma-dev/atma/overlay/store"
)

// healthProbeUser is the user whose records the health check lists, to reach the
// bank; whether it has any does not matter.
const healthProbeUser = "atma-health-probe"

func (s *server) health(w http.ResponseWriter, r *http.Request) error {
	if err := s.ov.Damaged(); err != nil {
		s.log.Error("health check: the bank is damaged", "err", err)
		return &httpError{status: http.StatusServiceUnavailable, code: CodeBankDamaged, err: err}
	}
	if _, _, err := s.ov.List(r.Context(), healthProbeUser, store.Filter{Limit: 1}); err != nil {
		s.log.Error("health check: the bank does not answer", "err", err)
		return &httpError{status: http.StatusServiceUnavailable, code: CodeUnavailable, err: errors.New("the bank does not answer")}
	}
	writeJSON(w, http.StatusOK, Health{Status: "ok", Uptime: time.Since(s.started).Round(time.Second).String()})
	return nil
}

// knownUser reports whether user has any record.
func (s *server) knownUser(ctx context.Context, user string) (bool, error) {
	recs, _, err := s.ov.List(ctx, user, store.Filter{Limit: 1})
	return len(recs) > 0, err
}

func unknownUser(user string) error {
	return &httpError{status: http.StatusNotFound, code: CodeUnknownUser, err: fmt.Errorf("user %q has no records", user)}
}

// requireUser answers 404 unknown_user for a user without records.
func (s *server) requireUser(ctx context.Context, user string) error {
	ok, err := s.knownUser(ctx, user)
	if err != nil {
		return err
	}
	if !ok {
		return unknownUser(user)
	}
	return nil
}

// notFound refines a not-found error: unknown_user when the user has no records.
func (s *server) notFound(ctx context.Context, user string, err error) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if ok, kerr := s.knownUser(ctx, user); kerr == nil && !ok {
		return unknownUser(user)
	}
	return err
}

func (s *server) addMemories(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var req AddRequest
	if err := s.decodeRequest(w, r, &req); err != nil {
		return err
	}
	ins, err := req.inputs(s.cfg.MaxBatch, r.Header.Get("Idempotency-Key"))
	if err != nil {
		return err
	}
	// A write the server accepted runs to its end even if the client goes away.
	traces, err := s.ov.Add(context.WithoutCancel(r.Context()), user, ins)
	s.metrics.ingested(traces)
	if err != nil {
		committed := make([]string, 0, len(traces))
		for _, tr := range traces {
			committed = append(committed, tr.RecordID)
		}
		return &addError{err: err, committed: committed}
	}
	writeJSON(w, http.StatusOK, AddResponse{Traces: traces})
	return nil
}

// listParams are the query parameters GET …/records takes.
var listParams = []string{"status", "slot", "limit", "cursor"}

// checkParams refuses query parameters outside allowed and repeated ones.
func checkParams(q url.Values, allowed []string) error {
	for k, v := range q {
		if !slices.Contains(allowed, k) {
			return badRequest(fmt.Errorf("unknown query parameter %q (known: %v)", k, allowed))
		}
		if len(v) > 1 {
			return badRequest(fmt.Errorf("query parameter %q is given %d times", k, len(v)))
		}
	}
	return nil
}

// listFilter parses the query of GET …/records.
func listFilter(q url.Values) (store.Filter, error) {
	if err := checkParams(q, listParams); err != nil {
		return store.Filter{}, err
	}
	f := store.Filter{Status: store.Status(q.Get("status")), Slot: q.Get("slot"), Cursor: q.Get("cursor")}
	var errs []error
	if f.Status != "" && !f.Status.Valid() {
		errs = append(errs, fmt.Errorf("status %q: want active, superseded, transition or unknown", f.Status))
	}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > store.MaxListLimit {
			errs = append(errs, fmt.Errorf("limit %q: want a whole number in 1..%d", l, store.MaxListLimit))
		}
		f.Limit = n
	}
	if err := errors.Join(errs...); err != nil {
		return store.Filter{}, badRequest(err)
	}
	return f, nil
}

func (s *server) listRecords(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	f, err := listFilter(r.URL.Query())
	if err != nil {
		return err
	}
	recs, next, err := s.ov.List(r.Context(), user, f)
	if err != nil {
		return err
	}
	if len(recs) == 0 && f.Cursor == "" {
		if err := s.requireUser(r.Context(), user); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, ListResponse{Records: recordsOf(recs), NextCursor: next})
	return nil
}

func (s *server) getRecord(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	id, err := idOf(r)
	if err != nil {
		return err
	}
	v, err := s.ov.Get(r.Context(), user, id)
	if err != nil {
		return s.notFound(r.Context(), user, err)
	}
	writeJSON(w, http.StatusOK, RecordView{Record: recordOf(v.Record), Linked: recordsOf(v.Linked), History: recordsOf(v.History)})
	return nil
}

func (s *server) deleteRecord(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	id, err := idOf(r)
	if err != nil {
		return err
	}
	if err := s.ov.Delete(context.WithoutCancel(r.Context()), user, id); err != nil {
		return s.notFound(r.Context(), user, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) deleteUser(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	if err := s.requireUser(r.Context(), user); err != nil {
		return err
	}
	if err := s.ov.DeleteUser(context.WithoutCancel(r.Context()), user); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *server) query(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	var req QueryRequest
	if err := s.decodeRequest(w, r, &req); err != nil {
		return err
	}
	q, err := req.request()
	if err != nil {
		return err
	}
	if err := s.requireUser(r.Context(), user); err != nil {
		return err
	}
	tr, err := s.ov.Query(r.Context(), user, q)
	if err != nil {
		return err
	}
	resp := queryResponse(tr, q.Answer)
	s.metrics.queried(resp.Mode)
	writeJSON(w, http.StatusOK, resp)
	return nil
}

func (s *server) trace(w http.ResponseWriter, r *http.Request) error {
	user, err := userOf(r)
	if err != nil {
		return err
	}
	id, err := idOf(r)
	if err != nil {
		return err
	}
	kind, raw, err := s.ov.Trace(r.Context(), user, id)
	if err != nil {
		return s.notFound(r.Context(), user, err)
	}
	writeJSON(w, http.StatusOK, TraceResponse{Kind: kind, Trace: raw})
	return nil
}

func (s *server) serveMetrics(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	if err := s.metrics.write(w); err != nil {
		s.log.Warn("write metrics", "err", err)
	}
	return nil
}
