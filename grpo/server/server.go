package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/internal/httpauth"
)

// Server defaults.
const (
	DefaultMaxBodyBytes  = 64 << 20
	DefaultMaxItems      = 65536
	DefaultMaxConcurrent = 4
	DefaultBodyTimeout   = 60 * time.Second
)

// Config configures a Server. The zero value means the defaults.
type Config struct {
	// Reward is the reward configuration (nil: reward.DefaultConfig()).
	Reward *reward.Config
	// MaxBodyBytes bounds a request body (0: DefaultMaxBodyBytes); a larger one is a 413.
	MaxBodyBytes int64
	// MaxItems bounds the completions in one request (0: DefaultMaxItems).
	MaxItems int
	// MaxConcurrent bounds the requests scored at once (0: DefaultMaxConcurrent); others
	// wait their turn. Each request is scored on up to GOMAXPROCS goroutines.
	MaxConcurrent int
	// RequireLabels turns a completion without a label into a 400 for the whole request.
	// By default it is scored on the label-free terms, flagged no_label and counted.
	RequireLabels bool
	// BodyTimeout bounds the time a body may take to arrive once its request has a
	// scoring slot (0: DefaultBodyTimeout): a deadline a client trickling bytes cannot
	// stretch. A later body gets 408.
	BodyTimeout time.Duration
	// Token, when set, must come as "Authorization: Bearer <token>" with every request
	// but GET /healthz (at least httpauth.MinTokenBytes). A server without one should
	// listen on loopback only (httpauth.CheckBind; the reward-server command refuses
	// otherwise).
	Token string
	// Logger receives a line per refused request, at most one a minute per client
	// (nil: slog.Default()).
	Logger *slog.Logger
}

// Validate reports every problem with the configuration at once.
func (c Config) Validate() error {
	var errs []error
	if c.MaxBodyBytes < 0 {
		errs = append(errs, fmt.Errorf("max body bytes %d is negative", c.MaxBodyBytes))
	}
	if c.MaxItems < 0 {
		errs = append(errs, fmt.Errorf("max items %d is negative", c.MaxItems))
	}
	if c.BodyTimeout < 0 {
		errs = append(errs, fmt.Errorf("body timeout %v is negative", c.BodyTimeout))
	}
	if c.MaxConcurrent < 0 {
		errs = append(errs, fmt.Errorf("max concurrent %d is negative", c.MaxConcurrent))
	}
	if err := httpauth.ValidateToken(c.Token); err != nil {
		errs = append(errs, err)
	}
	if c.Reward != nil {
		if err := c.Reward.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Server serves the reward over HTTP to distributed trainers. It is an
// http.Handler, safe for concurrent use:
//
//	POST /reward       OpenRLHF's remote reward protocol (also at / and /get_reward)
//	POST /trl          TRL reward functions (scripts/grpo/trl_grpo.py)
//	POST /verl         verl custom reward functions (scripts/grpo/verl_reward.py)
//	GET  /healthz      {"status":"ok", ...}
//	GET  /metrics      Prometheus text format
//
// See the package documentation for the request and response shapes.
type Server struct {
	cfg      Config
	rewarder *reward.Rewarder
	log      *slog.Logger
	sem      chan struct{}
	metrics  *serverMetrics
	// metricsHandler serves metrics' registry in the format the scraper asks for.
	metricsHandler http.Handler
	mux            *http.ServeMux
	started        time.Time
	bearer         httpauth.Bearer
	// refusals rate-limits the log of refused requests: client → last line.
	refusalsMu sync.Mutex
	refusals   map[string]time.Time
}

// New returns a reward server.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid reward server config: %w", err)
	}
	rc := reward.DefaultConfig()
	if cfg.Reward != nil {
		rc = *cfg.Reward
	}
	rw, err := reward.New(rc)
	if err != nil {
		return nil, err
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxItems == 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	s := &Server{cfg: cfg, rewarder: rw, log: cfg.Logger, sem: make(chan struct{}, cfg.MaxConcurrent),
		metrics: newServerMetrics(), mux: http.NewServeMux(), started: time.Now(), bearer: httpauth.NewBearer(cfg.Token),
		refusals: make(map[string]time.Time)}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.metricsHandler = promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(s.log.With("component", "grpo reward server metrics").Handler(), slog.LevelWarn),
	})
	for _, p := range []string{"/reward", "/get_reward", "/{$}"} {
		s.mux.HandleFunc(p, s.scoreHandler("openrlhf", s.openRLHF))
	}
	s.mux.HandleFunc("/trl", s.scoreHandler("trl", s.trl))
	s.mux.HandleFunc("/verl", s.scoreHandler("verl", s.verl))
	s.mux.HandleFunc("/healthz", s.health)
	s.mux.HandleFunc("/metrics", s.serveMetrics)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, "unknown", http.StatusNotFound, fmt.Errorf("no route %s %s: POST /reward, /trl or /verl; GET /healthz or /metrics", r.Method, r.URL.Path))
	})
	return s, nil
}

// ServeHTTP implements http.Handler: every route but GET /healthz needs the token.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/healthz" {
		if err := s.bearer.Check(r); err != nil {
			s.fail(w, r, "auth", http.StatusUnauthorized, err)
			return
		}
	}
	s.mux.ServeHTTP(w, r)
}

// httpError is an error with the status to answer it with.
type httpError struct {
	code int
	err  error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func badRequest(err error) error { return &httpError{http.StatusBadRequest, err} }

// scoreHandler wraps an endpoint: method check, body limit, concurrency limit, metrics,
// errors as JSON {"error": "..."}.
func (s *Server) scoreHandler(name string, serve func(body []byte) (any, []reward.Score, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		s.metrics.begin()
		code := http.StatusOK
		defer func() { s.metrics.end(name, code, time.Since(t0)) }()
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			code = http.StatusMethodNotAllowed
			writeJSON(w, code, map[string]string{"error": "use POST with a JSON body"})
			return
		}
		if r.ContentLength > s.cfg.MaxBodyBytes {
			code = http.StatusRequestEntityTooLarge
			s.fail(w, r, name, code, fmt.Errorf("request body of %d bytes exceeds %d bytes", r.ContentLength, s.cfg.MaxBodyBytes))
			return
		}
		// The concurrency limit holds before the body is read: at most MaxConcurrent
		// bodies are in memory at once, however many clients send large ones.
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		case <-r.Context().Done():
			code = 499 // the client went away while waiting; nothing to answer
			return
		}
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)) // none on a test recorder
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			code = http.StatusBadRequest
			switch {
			case errors.As(err, &tooBig):
				code = http.StatusRequestEntityTooLarge
				err = fmt.Errorf("request body exceeds %d bytes", s.cfg.MaxBodyBytes)
			case errors.Is(err, os.ErrDeadlineExceeded):
				code = http.StatusRequestTimeout
				err = fmt.Errorf("the body did not arrive within %v; send it whole, at once", s.cfg.BodyTimeout)
			}
			s.fail(w, r, name, code, err)
			return
		}
		resp, scores, err := serve(body)
		if err != nil {
			code = http.StatusBadRequest
			var he *httpError
			if errors.As(err, &he) {
				code = he.code
			}
			s.fail(w, r, name, code, err)
			return
		}
		s.metrics.scoredAll(name, scores)
		writeJSON(w, code, resp)
	}
}

// refusalLogEvery is how often at most a client's refused requests are logged.
const refusalLogEvery = time.Minute

// fail answers a refused request with {"error": …} and logs it, once a minute at most
// per client (its remote host), so that a misbehaving client cannot flood the log.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, endpoint string, code int, err error) {
	client, _, splitErr := net.SplitHostPort(r.RemoteAddr)
	if splitErr != nil {
		client = r.RemoteAddr
	}
	now := time.Now()
	s.refusalsMu.Lock()
	last, seen := s.refusals[client]
	logIt := !seen || now.Sub(last) >= refusalLogEvery
	if logIt {
		s.refusals[client] = now
		if len(s.refusals) > 4096 {
			for c, t := range s.refusals {
				if now.Sub(t) >= refusalLogEvery {
					delete(s.refusals, c)
				}
			}
		}
	}
	s.refusalsMu.Unlock()
	if logIt {
		s.log.Warn("grpo reward server: request refused (further refusals of this client are not logged for a minute)",
			"client", client, "endpoint", endpoint, "status", code, "err", err)
	}
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client may have gone; nothing more to do
}

// score scores items, in parallel for large requests, after decoding their labels.
func (s *Server) score(items []scoreItem) ([]reward.Score, error) {
	labels := make([]reward.Label, len(items))
	for i, it := range items {
		l, err := reward.ParseLabel(it.label)
		switch {
		case errors.Is(err, reward.ErrNoLabel) && !s.cfg.RequireLabels:
		case errors.Is(err, reward.ErrNoLabel):
			return nil, badRequest(fmt.Errorf("labels[%d]: %w; every completion needs a gold label, a JSON object of eval.Gold such as {\"status\":\"conflict\",\"conflict_type\":\"temporal_update\",\"action\":\"transition\"}", i, err))
		case err != nil:
			return nil, badRequest(fmt.Errorf("labels[%d]: %w", i, err))
		}
		labels[i] = l
	}
	scores := make([]reward.Score, len(items))
	workers := min(runtime.GOMAXPROCS(0), (len(items)+63)/64)
	if workers <= 1 {
		for i, it := range items {
			scores[i] = s.rewarder.Score(it.prompt, it.completion, labels[i])
			scores[i].Flags |= it.flags
		}
		return scores, nil
	}
	var wg sync.WaitGroup
	chunk := (len(items) + workers - 1) / workers
	for lo := 0; lo < len(items); lo += chunk {
		hi := min(lo+chunk, len(items))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				scores[i] = s.rewarder.Score(items[i].prompt, items[i].completion, labels[i])
				scores[i].Flags |= items[i].flags
			}
		})
	}
	wg.Wait()
	return scores, nil
}

// openRLHFResponse is what OpenRLHF reads: rewards for the advantages, scores for dynamic
// filtering, extra_logs logged per sample (every value a list as long as the batch).
type openRLHFResponse struct {
	Rewards   []float64            `json:"rewards"`
	Scores    []float64            `json:"scores"`
	ExtraLogs map[string][]float64 `json:"extra_logs"`
}

// openRLHF answers OpenRLHF. scores is the verdict component rescaled to [0, 1] (the
// share of the verdict's credit earned), which OpenRLHF's dynamic filtering compares with
// its range; extra_logs carry every component, the flags as 0/1 and "failed".
func (s *Server) openRLHF(body []byte) (any, []reward.Score, error) {
	items, err := decodeOpenRLHF(body, s.cfg.MaxItems)
	if err != nil {
		return nil, nil, badRequest(err)
	}
	scores, err := s.score(items)
	if err != nil {
		return nil, nil, err
	}
	resp := openRLHFResponse{Rewards: make([]float64, len(scores)), Scores: make([]float64, len(scores)), ExtraLogs: extraLogs(scores)}
	full := s.rewarder.Config().Verdict.Status + s.rewarder.Config().Verdict.Type + s.rewarder.Config().Verdict.Action
	for i, sc := range scores {
		resp.Rewards[i] = sc.Total
		if full > 0 {
			resp.Scores[i] = min(max(sc.Components.Verdict/full, 0), 1)
		}
	}
	return resp, scores, nil
}

// extraLogs lists every component, flag and failure per completion.
func extraLogs(scores []reward.Score) map[string][]float64 {
	logs := map[string][]float64{}
	names := reward.ComponentNames()
	for _, n := range names {
		logs[n] = make([]float64, len(scores))
	}
	flags := reward.FlagNames()
	for _, f := range flags {
		logs[f] = make([]float64, len(scores))
	}
	logs["failed"] = make([]float64, len(scores))
	for i, sc := range scores {
		for k, v := range sc.Components.Values() {
			logs[names[k]][i] = v
		}
		for k, f := range flags {
			if sc.Flags&(1<<k) != 0 {
				logs[f][i] = 1
			}
		}
		if sc.Flags.Failed() {
			logs["failed"][i] = 1
		}
	}
	return logs
}

// trlResponse: rewards for TRL, every component and the flags for logs.
type trlResponse struct {
	Rewards    []float64            `json:"rewards"`
	Components map[string][]float64 `json:"components"`
	Flags      [][]string           `json:"flags"`
}

func (s *Server) trl(body []byte) (any, []reward.Score, error) {
	items, err := decodeTRL(body, s.cfg.MaxItems)
	if err != nil {
		return nil, nil, badRequest(err)
	}
	scores, err := s.score(items)
	if err != nil {
		return nil, nil, err
	}
	resp := trlResponse{Rewards: make([]float64, len(scores)), Components: extraLogs(scores), Flags: make([][]string, len(scores))}
	for i, sc := range scores {
		resp.Rewards[i] = sc.Total
		resp.Flags[i] = sc.Flags.Names()
		if resp.Flags[i] == nil {
			resp.Flags[i] = []string{}
		}
	}
	return resp, scores, nil
}

// verlResult is what verl's compute_score returns for one sample: a dict whose "score" is
// the reward and whose other keys verl logs as reward_extra_info.
func verlResult(sc reward.Score) map[string]float64 {
	out := map[string]float64{"score": sc.Total}
	vs := sc.Components.Values()
	for i, n := range reward.ComponentNames() {
		out[n] = vs[i]
	}
	out["failed"] = 0
	if sc.Flags.Failed() {
		out["failed"] = 1
	}
	return out
}

// verl answers one sample with its result, a batch with {"results": [...]}.
func (s *Server) verl(body []byte) (any, []reward.Score, error) {
	items, batch, err := decodeVerl(body, s.cfg.MaxItems)
	if err != nil {
		return nil, nil, badRequest(err)
	}
	scores, err := s.score(items)
	if err != nil {
		return nil, nil, err
	}
	if !batch {
		return verlResult(scores[0]), scores, nil
	}
	results := make([]map[string]float64, len(scores))
	for i, sc := range scores {
		results[i] = verlResult(sc)
	}
	return map[string]any{"results": results}, scores, nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"status":         "ok",
		"components":     reward.ComponentNames(),
		"uptime_seconds": time.Since(s.started).Seconds(),
	})
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET"})
		return
	}
	s.metricsHandler.ServeHTTP(w, r)
}
