package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/internal/httpauth"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/api"
	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// overlayServeOptions are the flags of `atma overlay serve`.
type overlayServeOptions struct {
	overlayOptions
	Addr         string
	Token        string
	MaxBodyBytes int64
	MaxInFlight  int
}

// serveUser stands in for --user when the overlay is opened for serving: every request
// names its own user, and openOverlay wants one only to refuse commands that forget it.
const serveUser = "(each request names its user)"

func newCmdOverlayServe(f *Factory, runF func(context.Context, *overlayServeOptions) error) *cobra.Command {
	opts := &overlayServeOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the overlay over HTTP: JSON API, agent tools, metrics",
		Long: `Serve the overlay over HTTP. Each request names its user in the path; users never see
each other's records.
  POST   /v1/users/{user}/memories      add memories (a batch) through the commit path
  GET    /v1/users/{user}/records       list records (?status=&slot=&limit=&cursor=)
  GET    /v1/users/{user}/records/{id}  one record with its links and version history
  DELETE /v1/users/{user}/records/{id}  delete a record; DELETE /v1/users/{user}: all of a user's data
  POST   /v1/users/{user}/query         the labelled evidence packet (mode packet or answer)
  GET    /v1/users/{user}/traces/{id}   an ingest or query trace
  GET    /v1/tools                      the memory operations as OpenAI tool definitions
  POST   /v1/users/{user}/tools/call    execute a tool call
  GET    /healthz, /metrics (Prometheus), /openapi.json
Every route but /healthz and /openapi.json needs "Authorization: Bearer <token>" when a
token is set (--token or ATMA_TOKEN). Without a token the server listens only on a loopback
address. The backbone, Sentry checkpoint and Judge are opened as for 'atma overlay add'.
On PostgreSQL (--store) the URL sizes the pool: pool_max_conns (default 10), and
pool_acquire_timeout (default 5s), the longest a request waits for a free connection
before it gets 503 with Retry-After. Ctrl-C stops it gracefully.`,
		Example: `  atma overlay serve
  ATMA_TOKEN=$(openssl rand -hex 32) atma overlay serve --addr 0.0.0.0:8088
  curl -s -H "Authorization: Bearer $ATMA_TOKEN" -H 'Content-Type: application/json' \
    -d '{"memories":[{"content":"I moved to Lisbon."}]}' http://127.0.0.1:8088/v1/users/alice/memories`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Token == "" {
				opts.Token = f.env("ATMA_TOKEN")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayServeRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	// Serving has no user of its own and answers in JSON anyway.
	for _, name := range []string{"user", "json"} {
		if err := cmd.Flags().MarkHidden(name); err != nil {
			panic(err) // the flags were just added: a programming error
		}
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:8088", "address to listen on (a non-loopback one needs a token)")
	fl.StringVar(&opts.Token, "token", "", "bearer token every request must carry (default: $ATMA_TOKEN)")
	fl.Int64Var(&opts.MaxBodyBytes, "max-body-bytes", 0, fmt.Sprintf("largest request body (0: %d)", api.DefaultMaxBodyBytes))
	fl.IntVar(&opts.MaxInFlight, "max-in-flight", 0, fmt.Sprintf("requests served at once; more get 503 (0: %d)", api.DefaultMaxInFlight))
	return cmd
}

// overlayServeRun refuses, before any model loads, an address other machines reach
// without authentication, then opens the overlay with its models and serves it.
func overlayServeRun(ctx context.Context, f *Factory, opts *overlayServeOptions) error {
	if err := f.checkServeBind(ctx, opts); err != nil {
		return err
	}
	open := func(ctx context.Context) (*overlayEnv, error) {
		o := opts.overlayOptions
		o.User = serveUser
		return f.openOverlay(ctx, &o, true)
	}
	return serveOverlay(ctx, f, opts, open, nil)
}

// serveOverlay opens the overlay with open, listens on opts.Addr and serves until ctx
// ends. ready, when set, gets the address listened on.
func serveOverlay(ctx context.Context, f *Factory, opts *overlayServeOptions, open func(context.Context) (*overlayEnv, error), ready func(net.Addr)) error {
	env, err := open(ctx)
	if err != nil {
		return err
	}
	defer env.Close()
	bind, err := serveAuth(ctx, opts.Token, env.bank.Keys)
	if err != nil {
		return err
	}
	if err := api.CheckBind(opts.Addr, bind); err != nil {
		return usageError{err}
	}
	cfg := api.Config{Overlay: env.ov, Token: opts.Token, Keys: env.bank.Keys, MaxBodyBytes: opts.MaxBodyBytes, MaxInFlight: opts.MaxInFlight, Logger: f.Logger}
	if _, ok := pgdb.Stats(env.bank.DB); ok {
		// A PostgreSQL bank: /metrics shows its pool.
		cfg.Pool = func() pgdb.PoolStats { s, _ := pgdb.Stats(env.bank.DB); return s }
	}
	h, err := api.New(cfg)
	if err != nil {
		return usageError{err}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return err
	}
	// A host name that passed the check must still have bound to loopback.
	if err := httpauth.CheckBound(ln.Addr(), bind); err != nil {
		ln.Close()
		return usagef("%s: %v (--token or ATMA_TOKEN)", opts.Addr, err)
	}
	// Ingests through an LLM judge can take minutes for a large batch.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 2 * time.Minute, WriteTimeout: 15 * time.Minute, IdleTimeout: 2 * time.Minute}
	// Not a map keyed by opts.Token: without a token that key is "" and took the place of
	// the no-token entry.
	auth := "no token (loopback only)"
	switch {
	case bind == keysBind:
		auth = "API keys"
	case bind != "":
		auth = "bearer token"
		if active, _ := env.bank.Keys.Active(ctx); active {
			auth = "bearer token and API keys"
		}
	}
	f.Logger.Info("overlay API listening", "addr", ln.Addr().String(), "auth", auth, "bank", env.bank.Where)
	if ready != nil {
		ready(ln.Addr())
	}
	return serveUntilDone(ctx, srv, ln)
}

// keysBind stands for "authenticated by API keys" where the bind rule wants a token.
const keysBind = "(api keys)"

// serveAuth is what authenticates the server for the bind rule: the token, else the
// bank's active API keys (keysBind), else nothing ("").
func serveAuth(ctx context.Context, token string, keys *apikey.Store) (string, error) {
	if token != "" {
		return token, nil
	}
	active, err := keys.Active(ctx)
	if err != nil {
		return "", err
	}
	if active {
		return keysBind, nil
	}
	return "", nil
}

// checkServeBind refuses, before any model loads, to serve without authentication on an
// address other machines reach: the bank's API keys count (it opens the bank to look).
func (f *Factory) checkServeBind(ctx context.Context, opts *overlayServeOptions) error {
	if opts.Token != "" {
		return nil
	}
	u, err := f.storeURL(&opts.overlayOptions)
	if err != nil {
		return err
	}
	dir := f.dataDir(&opts.overlayOptions)
	if _, err := os.Stat(filepath.Join(dir, overlay.DBFile)); u == "" && err != nil {
		if err := api.CheckBind(opts.Addr, ""); err != nil {
			return usageError{err}
		}
		return nil
	}
	bank, err := f.openBank(ctx, &opts.overlayOptions)
	if err != nil {
		return err
	}
	defer bank.Close()
	bind, err := serveAuth(ctx, "", bank.Keys)
	if err != nil {
		return err
	}
	if err := api.CheckBind(opts.Addr, bind); err != nil {
		return usageError{fmt.Errorf("%w; or create API keys with `atma overlay keys create`", err)}
	}
	return nil
}
