package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/atma-dev/atma/internal/httpauth"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// Defaults and limits.
const (
	// DefaultMaxBodyBytes bounds a request body: a full batch of memories near the
	// content limit fits.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxBatch is the most memories one add request may carry.
	DefaultMaxBatch = 200
	// DefaultMaxInFlight is the most API requests served at once; more are refused
	// with 503 and Retry-After.
	DefaultMaxInFlight = 64
	// DefaultBodyTimeout is Config.BodyTimeout's default.
	DefaultBodyTimeout = 15 * time.Second
)

// Config configures the API handler. Overlay is required; zero fields mean defaults.
type Config struct {
	Overlay *overlay.Overlay
	// Token, when set, must come with every request but GET /healthz and GET
	// /openapi.json as "Authorization: Bearer <token>". Without one (and without Keys)
	// the API is open: serve it on a loopback address only (see CheckBind). The token
	// reaches every user by the bank's own ids: it suits a single-user setup or a
	// trusted proxy.
	Token string
	// Keys, when set, authenticates "Authorization: Bearer atma_…" tokens: a key reaches
	// only its tenant's users (a request's {user} u is the bank's user "<tenant>/u"),
	// only the users it is bound to when it names some, and only what its scopes allow
	// (read, write, admin: route by route). Once the bank has an active key, a request
	// needs a key (or Token). See package apikey.
	Keys *apikey.Store
	// MaxBodyBytes bounds a request body (0: DefaultMaxBodyBytes); larger bodies get 413.
	MaxBodyBytes int64
	// MaxBatch bounds the memories of one add request (0: DefaultMaxBatch).
	MaxBatch int
	// MaxInFlight bounds the requests served at once (0: DefaultMaxInFlight).
	MaxInFlight int
	// BodyTimeout bounds the time a request's body may take to arrive, from when the
	// request is taken up (0: DefaultBodyTimeout): a deadline, so a client that sends a
	// byte now and then cannot stretch it and hold an in-flight slot. A body later than
	// that gets 408.
	BodyTimeout time.Duration
	// Pool, when set, reports the bank's PostgreSQL connection pool (pgdb.Stats), which
	// /metrics then shows as atma_db_pool_*.
	Pool func() pgdb.PoolStats
	// Logger receives server errors (nil: slog.Default()).
	Logger *slog.Logger
}

// Validate reports every problem with c at once.
func (c Config) Validate() error {
	var errs []error
	if c.Overlay == nil {
		errs = append(errs, errors.New("overlay is required"))
	}
	if c.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("max body bytes %d is negative", c.MaxBodyBytes))
	}
	if c.MaxBatch < 0 {
		errs = append(errs, fmt.Errorf("max batch %d is negative", c.MaxBatch))
	}
	if c.BodyTimeout < 0 {
		errs = append(errs, fmt.Errorf("body timeout %v is negative", c.BodyTimeout))
	}
	if c.MaxInFlight < 0 {
		errs = append(errs, fmt.Errorf("max in flight %d is negative", c.MaxInFlight))
	}
	if err := httpauth.ValidateToken(c.Token); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("api config: %w", err)
	}
	return nil
}

// server is the API: a ServeMux of routes, each wrapped with metrics, authentication
// and the in-flight limit. It is safe for concurrent use.
type server struct {
	ov       *overlay.Overlay
	cfg      Config
	bearer   httpauth.Bearer
	mcpHTTP  http.Handler
	mux      *http.ServeMux
	metrics  *metrics
	inflight chan struct{}
	log      *slog.Logger
	started  time.Time
}

// route is one endpoint. Name is its OpenAPI operationId and its metrics label.
type route struct {
	Method, Path, Name string
	// Open routes need no token and do not count against the in-flight limit.
	Open  bool
	serve func(s *server, w http.ResponseWriter, r *http.Request) error
	// Scope is what an API key needs for the route (Config.Keys); the tools call checks
	// each tool's own.
	Scope apikey.Scope
}

// routes lists every endpoint; the committed OpenAPI document must describe exactly
// these (a test checks).
var routes = []route{
	{"POST", "/v1/users/{user}/memories", "addMemories", false, (*server).addMemories, apikey.ScopeWrite},
	{"GET", "/v1/users/{user}/records", "listRecords", false, (*server).listRecords, apikey.ScopeRead},
	{"GET", "/v1/users/{user}/records/{id}", "getRecord", false, (*server).getRecord, apikey.ScopeRead},
	{"DELETE", "/v1/users/{user}/records/{id}", "deleteRecord", false, (*server).deleteRecord, apikey.ScopeWrite},
	{"DELETE", "/v1/users/{user}", "deleteUser", false, (*server).deleteUser, apikey.ScopeAdmin},
	{"POST", "/v1/users/{user}/query", "query", false, (*server).query, apikey.ScopeRead},
	{"GET", "/v1/users/{user}/traces/{id}", "getTrace", false, (*server).trace, apikey.ScopeRead},
	{"GET", "/v1/tools", "listTools", false, (*server).tools, apikey.ScopeRead},
	{"POST", "/v1/users/{user}/tools/call", "callTool", false, (*server).callTool, apikey.ScopeRead},
	{"POST", "/v1/users/{user}/mcp", "mcp", false, (*server).mcp, apikey.ScopeRead},
	{"POST", "/mcp", "mcpOwnUser", false, (*server).mcpOwnUser, apikey.ScopeRead},
	{"GET", "/healthz", "health", true, (*server).health, ""},
	{"GET", "/metrics", "metrics", false, (*server).serveMetrics, apikey.ScopeAdmin},
	{"GET", "/openapi.json", "openapi", true, (*server).openAPI, ""},
}

// New returns the API handler for cfg.
func New(cfg Config) (http.Handler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxBatch == 0 {
		cfg.MaxBatch = DefaultMaxBatch
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &server{
		ov: cfg.Overlay, cfg: cfg, mux: http.NewServeMux(), metrics: newMetrics(),
		inflight: make(chan struct{}, cfg.MaxInFlight), log: cfg.Logger, started: time.Now(),
	}
	if cfg.Pool != nil {
		s.metrics.pool(cfg.Pool)
	}
	s.bearer = httpauth.NewBearer(cfg.Token)
	s.mcpHTTP = s.mcpHandler()
	s.registerMem0()
	for _, rt := range routes {
		s.mux.Handle(rt.Method+" "+rt.Path, s.wrap(rt))
	}
	return s, nil
}

// ServeHTTP serves the routes; a request no route matches gets a JSON 404 or 405.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.unmatched(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// unmatched answers what the mux would (404, or 405 with Allow) as a JSON error.
func (s *server) unmatched(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	probe := &discardWriter{header: http.Header{}}
	s.mux.ServeHTTP(probe, r)
	err := &httpError{status: http.StatusNotFound, code: CodeNotFound, err: fmt.Errorf("no route for %s %s", r.Method, r.URL.Path)}
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		err = &httpError{status: http.StatusMethodNotAllowed, code: CodeMethodNotAllowed, err: fmt.Errorf("method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, probe.header.Get("Allow"))}
	}
	s.writeError(w, r, err)
	s.metrics.request("unmatched", err.status, time.Since(start))
}

// wrap adds metrics, authentication, the in-flight limit and error writing to a route.
func (s *server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() { s.metrics.request(rt.Name, sw.code(), time.Since(start)) }()
		if !rt.Open {
			p, err := s.authorize(r)
			if err != nil {
				sw.Header().Set("WWW-Authenticate", `Bearer realm="atma"`)
				s.writeError(sw, r, err)
				return
			}
			if err := p.allow(rt.Scope); err != nil {
				s.writeError(sw, r, err)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
			select {
			case s.inflight <- struct{}{}:
				defer func() { <-s.inflight }()
			default:
				sw.Header().Set("Retry-After", "1")
				s.writeError(sw, r, &httpError{status: http.StatusServiceUnavailable, code: CodeUnavailable,
					err: fmt.Errorf("the server is serving %d requests, its limit; retry shortly", s.cfg.MaxInFlight)})
				return
			}
			s.metrics.inflight(1)
			defer s.metrics.inflight(-1)
		}
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			// r.URL.Query() drops what it cannot decode; a parameter silently lost is
			// worse than a refusal.
			s.writeError(sw, r, badRequest(fmt.Errorf("malformed query string: %w", err)))
			return
		}
		if r.ContentLength != 0 {
			// Best effort: a recorder in tests has no connection to set it on.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout))
		}
		if err := rt.serve(s, sw, r); err != nil {
			s.writeError(sw, r, err)
		}
	})
}

// principal is who a request acts as: an API key, or (key nil) the single token's
// holder, or anyone on an API with neither.
type principal struct{ key *apikey.Key }

type principalKey struct{}

// principalOf is the request's principal (the zero one, full access, outside wrap).
func principalOf(r *http.Request) principal {
	p, _ := r.Context().Value(principalKey{}).(principal)
	return p
}

// allow refuses a scope the principal's key lacks.
func (p principal) allow(sc apikey.Scope) error {
	if p.key == nil || sc == "" || p.key.Allows(sc) {
		return nil
	}
	return &httpError{status: http.StatusForbidden, code: CodeForbidden, err: fmt.Errorf("API key %s has no %s scope (it has %v)", p.key.ID, sc, p.key.Scopes)}
}

// authorize finds the request's principal: an API key when the bearer token is one
// (Config.Keys), else the single token (httpauth.Bearer: constant time, of the token's
// hash, so its length does not leak either). With neither configured, and no active
// key in the bank, everyone is let in.
func (s *server) authorize(r *http.Request) (principal, error) {
	unauthorized := func(err error) (principal, error) {
		return principal{}, &httpError{status: http.StatusUnauthorized, code: CodeUnauthorized, err: err}
	}
	if s.cfg.Keys != nil {
		if _, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.HasPrefix(strings.TrimSpace(tok), apikey.TokenPrefix) {
			k, err := s.cfg.Keys.Authenticate(r.Context(), strings.TrimSpace(tok))
			if retryable(err) {
				return principal{}, err // 503: the key may be good, the bank did not answer
			}
			if err != nil {
				return unauthorized(err)
			}
			return principal{key: &k}, nil
		}
	}
	if s.cfg.Token != "" {
		if err := s.bearer.Check(r); err != nil {
			return unauthorized(err)
		}
		return principal{}, nil
	}
	if s.cfg.Keys != nil {
		active, err := s.cfg.Keys.Active(r.Context())
		if err != nil {
			return principal{}, err
		}
		if active {
			return unauthorized(errors.New(`this server needs an API key: send "Authorization: Bearer atma_…"`))
		}
	}
	return principal{}, nil
}

// statusWriter remembers the status written, for the metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// discardWriter records what the mux answers an unmatched request with.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header { return w.header }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}
