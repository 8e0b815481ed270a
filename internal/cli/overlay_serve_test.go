package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/api"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
)

func testFactory(env map[string]string) (*Factory, *bytes.Buffer) {
	var errOut bytes.Buffer
	return &Factory{
		IO:     IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut, Getenv: func(k string) string { return env[k] }},
		Logger: slog.New(slog.NewTextHandler(&errOut, nil)),
	}, &errOut
}

// executeServe runs `overlay serve` with args, as its parent would.
func executeServe(t *testing.T, env map[string]string, args ...string) error {
	t.Helper()
	f, _ := testFactory(env)
	cmd := newCmdOverlayServe(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(t.Context())
}

func TestOverlayServeRefusesOpenNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:8088"} {
		t.Run(addr, func(t *testing.T) {
			err := executeServe(t, nil, "--addr", addr, "--data-dir", t.TempDir())
			var ue usageError
			if !errors.As(err, &ue) || !errors.Is(err, api.ErrOpenBind) || !strings.Contains(err.Error(), "token") {
				t.Fatalf("error %v: want a usage error (exit 2) asking for a token", err)
			}
		})
	}
	// With ATMA_TOKEN the address passes; the bogus provider then fails the model
	// loading, after the check.
	err := executeServe(t, map[string]string{"ATMA_TOKEN": "tok-0123456789abcdef"}, "--addr", "0.0.0.0:0", "--data-dir", t.TempDir(), "--provider", "abacus")
	if err == nil || errors.Is(err, api.ErrOpenBind) || !strings.Contains(err.Error(), "abacus") {
		t.Errorf("with a token from the environment: %v", err)
	}
}

// bagOverlay is serveOverlay's open for tests: the bank of o (Factory.openBank) and an
// overlay on it with the bag-of-words embedder, no models.
func bagOverlay(f *Factory, o *overlayOptions) func(context.Context) (*overlayEnv, error) {
	return func(ctx context.Context) (*overlayEnv, error) {
		bank, err := f.openBank(ctx, o)
		if err != nil {
			return nil, err
		}
		ov, err := overlay.New(overlay.Config{Store: bank.Store, Host: bank.Host, Traces: bank.Traces, Embedder: overlaytest.BagEmbedder{}, Logger: f.Logger})
		if err != nil {
			return nil, errors.Join(err, bank.Close())
		}
		return &overlayEnv{ov: ov, bank: bank}, nil
	}
}

// startServe runs serveOverlay with open in the background until ctx ends and returns
// the base URL it listens at and the channel its result comes on; it fails t, showing
// logs, when serving ends before it listens.
func startServe(t *testing.T, ctx context.Context, f *Factory, opts *overlayServeOptions, open func(context.Context) (*overlayEnv, error), logs *bytes.Buffer) (string, <-chan error) {
	t.Helper()
	addrc, done := make(chan net.Addr, 1), make(chan error, 1)
	go func() { done <- serveOverlay(ctx, f, opts, open, func(a net.Addr) { addrc <- a }) }()
	select {
	case a := <-addrc:
		return "http://" + a.String(), done
	case err := <-done:
		t.Fatalf("serve ended before listening: %v\n%s", err, logs)
		return "", nil
	}
}

// TestOverlayServe serves a bank in a temporary directory, adds a memory through the
// API, lists it back and stops on cancel.
func TestOverlayServe(t *testing.T) {
	f, logs := testFactory(nil)
	ctx, cancel := context.WithCancel(t.Context())
	opts := &overlayServeOptions{Addr: "127.0.0.1:0", Token: "tok-0123456789abcdef"}
	opts.DataDir = t.TempDir()
	base, done := startServe(t, ctx, f, opts, bagOverlay(f, &opts.overlayOptions), logs)
	send := func(method, path, token, body string) (int, string) {
		t.Helper()
		r, _ := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := send("GET", "/healthz", "", ""); code != http.StatusOK {
		t.Errorf("healthz: %d", code)
	}
	if code, _ := send("GET", "/v1/tools", "", ""); code != http.StatusUnauthorized {
		t.Errorf("tools without a token: %d", code)
	}
	if code, body := send("POST", "/v1/users/alice/memories", "tok-0123456789abcdef", `{"memories":[{"content":"I live in Berlin."}]}`); code != http.StatusOK {
		t.Fatalf("add: %d %s", code, body)
	}
	code, body := send("GET", "/v1/users/alice/records", "tok-0123456789abcdef", "")
	var list api.ListResponse
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Records) != 1 || list.Records[0].Content != "I live in Berlin." {
		t.Errorf("list: %d %s", code, body)
	}
	if code, body := send("GET", "/metrics", "tok-0123456789abcdef", ""); code != http.StatusOK || strings.Contains(body, "atma_db_pool") {
		t.Errorf("metrics of a SQLite bank: %d, with PostgreSQL pool metrics:\n%s", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after cancel: %v", err)
	}
	if !strings.Contains(logs.String(), "overlay API listening") {
		t.Errorf("no listening line in the log:\n%s", logs)
	}
}

// The listening line names how the server authenticates: the token, or none (the
// no-token entry is not taken over by an empty token).
func TestOverlayServeLogsAuth(t *testing.T) {
	for _, tt := range []struct{ token, want string }{
		{"tok-0123456789abcdef", `auth="bearer token"`},
		{"", `auth="no token (loopback only)"`},
	} {
		t.Run(tt.want, func(t *testing.T) {
			f, logs := testFactory(nil)
			ctx, cancel := context.WithCancel(t.Context())
			opts := &overlayServeOptions{Addr: "127.0.0.1:0", Token: tt.token}
			opts.DataDir = t.TempDir()
			_, done := startServe(t, ctx, f, opts, bagOverlay(f, &opts.overlayOptions), logs)
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve after cancel: %v", err)
			}
			if !strings.Contains(logs.String(), tt.want) {
				t.Errorf("the listening line does not say %s:\n%s", tt.want, logs)
			}
		})
	}
}

func TestOverlayServeHelp(t *testing.T) {
	f, _ := testFactory(nil)
	cmd := newCmdOverlayServe(f, nil)
	if cmd.Example == "" || cmd.Short == "" {
		t.Error("serve lacks a short description or an example")
	}
	for _, hidden := range []string{"user", "json"} {
		if fl := cmd.Flags().Lookup(hidden); fl == nil || !fl.Hidden {
			t.Errorf("--%s should be hidden", hidden)
		}
	}
	for _, name := range []string{"addr", "token", "max-body-bytes", "max-in-flight", "data-dir", "sentry", "gate-off"} {
		if cmd.Flags().Lookup(name) == nil {
			t.Errorf("no --%s flag", name)
		}
	}
}

// TestOverlayServePoolExhaustedPostgres serves a PostgreSQL bank with a pool of one
// connection and a short acquire timeout, both set in the --store URL. Another process
// (a store on its own pool) holds alice's write lock in a long transaction, so the
// server's add for alice holds the server's only connection while it waits for the
// lock: a read of bob's answers 503 with Retry-After after the acquire timeout, and
// /metrics shows the pool and counts the acquire given up. Once the other transaction
// ends, the add commits and the reads are served again.
func TestOverlayServePoolExhaustedPostgres(t *testing.T) {
	url := pgtest.URL(t)
	f, logs := testFactory(nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	const token = "tok-0123456789abcdef"
	opts := &overlayServeOptions{Addr: "127.0.0.1:0", Token: token}
	opts.Store = pgtest.WithParams(t, url, "pool_max_conns", "1", "pool_acquire_timeout", "200ms")
	base, done := startServe(t, ctx, f, opts, bagOverlay(f, &opts.overlayOptions), logs)
	// A request that still waits after a minute waits for the client, not the pool.
	send := func(method, path, body string) (int, http.Header, string) {
		rctx, stop := context.WithTimeout(t.Context(), time.Minute)
		defer stop()
		r, _ := http.NewRequestWithContext(rctx, method, base+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			return 0, nil, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	add := func(user, content string) (int, string) {
		code, _, body := send("POST", "/v1/users/"+user+"/memories", `{"memories":[{"content":"`+content+`"}]}`)
		return code, body
	}
	if code, body := add("bob", "I live in Oslo."); code != http.StatusOK {
		t.Fatalf("add for bob: %d %s", code, body)
	}

	other, err := store.OpenPostgres(ctx, url, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	admin, err := pgdb.Open(ctx, url, pgdb.Config{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- other.Tx(ctx, "alice", func(store.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	type answer struct {
		code int
		body string
	}
	added := make(chan answer, 1)
	go func() {
		code, body := add("alice", "I moved to Lisbon.")
		added <- answer{code, body}
	}()
	for { // until the server's add waits for alice's lock, in the server's one connection
		var n int
		if err := admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_locks
			WHERE locktype = 'advisory' AND NOT granted AND objid = hashtext(current_schema() || '/alice')::oid`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		select {
		case a := <-added:
			t.Fatalf("alice's add ended before waiting for her lock: %d %s", a.code, a.body)
		case <-time.After(5 * time.Millisecond):
		}
	}
	code, header, body := send("GET", "/v1/users/bob/records", "")
	var er api.ErrorResponse
	if code != http.StatusServiceUnavailable || header.Get("Retry-After") != "1" || json.Unmarshal([]byte(body), &er) != nil ||
		er.Error.Code != api.CodeUnavailable || !strings.Contains(er.Error.Message, "pool") {
		t.Errorf("a read with the pool exhausted: %d, Retry-After %q, %s; want 503 unavailable, Retry-After 1, naming the pool", code, header.Get("Retry-After"), body)
	}
	_, _, metrics := send("GET", "/metrics", "")
	for _, want := range []string{"atma_db_pool_max_connections 1", "atma_db_pool_in_use_connections 1", "atma_db_pool_exhausted_total 1"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}

	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if a := <-added; a.code != http.StatusOK {
		t.Errorf("alice's add once the other transaction ended: %d %s", a.code, a.body)
	}
	for _, user := range []string{"alice", "bob"} {
		if code, _, body := send("GET", "/v1/users/"+user+"/records", ""); code != http.StatusOK {
			t.Errorf("%s's records once the pool is free: %d %s", user, code, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve after cancel: %v", err)
	}
	if !strings.Contains(logs.String(), "every connection of the PostgreSQL pool is in use") {
		t.Errorf("the log does not name the exhausted pool:\n%s", logs)
	}
}
