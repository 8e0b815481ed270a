package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/retrieval"
)

// TestOverlayCommandOptions checks what each overlay command parses from its flags and
// arguments, through runF (nothing is opened), and that a usage error stops it first.
func TestOverlayCommandOptions(t *testing.T) {
	// got is what runF received; each case's cmd hands its runF the pointer to set.
	type tcase struct {
		name  string
		env   map[string]string
		cmd   func(f *Factory, got *any) *cobra.Command
		args  []string
		check func(t *testing.T, got any) // nil: a usage error, runF not called
	}
	capture := func(got *any) func(context.Context, any) error {
		return func(_ context.Context, o any) error { *got = o; return nil }
	}
	add := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayAdd(f, func(ctx context.Context, o *overlayAddOptions) error { return c(ctx, o) })
	}
	query := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayQuery(f, func(ctx context.Context, o *overlayQueryOptions) error { return c(ctx, o) })
	}
	show := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayShow(f, func(ctx context.Context, o *overlayShowOptions) error { return c(ctx, o) })
	}
	trace := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayTrace(f, func(ctx context.Context, o *overlayTraceOptions) error { return c(ctx, o) })
	}
	plain := func(build func(*Factory, func(context.Context, *overlayOptions) error) *cobra.Command) func(*Factory, *any) *cobra.Command {
		return func(f *Factory, got *any) *cobra.Command {
			c := capture(got)
			return build(f, func(ctx context.Context, o *overlayOptions) error { return c(ctx, o) })
		}
	}
	keysCreate := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayKeysCreate(f, func(ctx context.Context, o *overlayKeysCreateOptions) error { return c(ctx, o) })
	}
	keysRevoke := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayKeysRevoke(f, func(ctx context.Context, o *overlayKeysRevokeOptions) error { return c(ctx, o) })
	}
	serve := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayServe(f, func(ctx context.Context, o *overlayServeOptions) error { return c(ctx, o) })
	}
	migrate := func(f *Factory, got *any) *cobra.Command {
		c := capture(got)
		return newCmdOverlayMigrate(f, func(ctx context.Context, o *overlayMigrateOptions) error { return c(ctx, o) })
	}
	tests := []tcase{
		{"add", nil, add, []string{"-u", "alice", "--at", "2025-03-01T10:00:00Z", "I live in Berlin.", "I have a cat."}, func(t *testing.T, got any) {
			o := got.(*overlayAddOptions)
			if o.User != "alice" || !o.At.Equal(time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)) || !slices.Equal(o.Texts, []string{"I live in Berlin.", "I have a cat."}) {
				t.Errorf("options %+v", o)
			}
		}},
		{"add from a file", nil, add, []string{"-u", "alice", "--file", "notes.txt"}, func(t *testing.T, got any) {
			if o := got.(*overlayAddOptions); o.File != "notes.txt" || len(o.Texts) != 0 || !o.At.IsZero() {
				t.Errorf("options %+v", o)
			}
		}},
		{"add with a bad --at", nil, add, []string{"-u", "alice", "--at", "yesterday", "x"}, nil},
		{"query", nil, query, []string{"-u", "alice", "--top-k", "3", "--controller", "online", "--answer", "Where", "do I live?"}, func(t *testing.T, got any) {
			q := got.(*overlayQueryOptions).Request
			if q.Text != "Where do I live?" || q.TopK != 3 || q.Controller != retrieval.ControllerOnline || !q.Answer {
				t.Errorf("request %+v", q)
			}
		}},
		{"query with a bad controller", nil, query, []string{"-u", "alice", "--controller", "maybe", "Where?"}, nil},
		{"show one record", nil, show, []string{"-u", "alice", "--json", "r1"}, func(t *testing.T, got any) {
			if o := got.(*overlayShowOptions); o.ID != "r1" || !o.JSON {
				t.Errorf("options %+v", o)
			}
		}},
		{"show a list", nil, show, []string{"-u", "alice", "--status", "superseded", "--slot", "user/home", "--limit", "7"}, func(t *testing.T, got any) {
			if o := got.(*overlayShowOptions); o.ID != "" || o.Status != "superseded" || o.Slot != "user/home" || o.Limit != 7 {
				t.Errorf("options %+v", o)
			}
		}},
		{"show without --user", nil, show, []string{}, nil},
		{"trace", nil, trace, []string{"-u", "alice", "t1"}, func(t *testing.T, got any) {
			if o := got.(*overlayTraceOptions); o.ID != "t1" || o.User != "alice" {
				t.Errorf("options %+v", o)
			}
		}},
		{"trace without --user", nil, trace, []string{"t1"}, nil},
		{"reindex", nil, plain(newCmdOverlayReindex), []string{"-u", "alice", "--json"}, func(t *testing.T, got any) {
			if o := got.(*overlayOptions); o.User != "alice" || !o.JSON {
				t.Errorf("options %+v", o)
			}
		}},
		{"reindex with facts off", nil, plain(newCmdOverlayReindex), []string{"-u", "alice", "--facts", "off"}, nil},
		{"check", nil, plain(newCmdOverlayCheck), []string{"--data-dir", "/srv/atma"}, func(t *testing.T, got any) {
			if o := got.(*overlayOptions); o.User != "" || o.DataDir != "/srv/atma" {
				t.Errorf("options %+v", o)
			}
		}},
		{"mcp", nil, plain(newCmdOverlayMCP), []string{"-u", "alice"}, func(t *testing.T, got any) {
			if o := got.(*overlayOptions); o.User != "alice" {
				t.Errorf("options %+v", o)
			}
		}},
		{"keys create", nil, keysCreate, []string{"--tenant", "Acme", "--users", " bob ,alice", "--scopes", "read, admin"}, func(t *testing.T, got any) {
			o := got.(*overlayKeysCreateOptions)
			if o.Tenant != "Acme" || o.Name != "Acme" || !slices.Equal(o.Users, []string{"bob", "alice"}) || !slices.Equal(o.Scopes, []apikey.Scope{apikey.ScopeRead, apikey.ScopeAdmin}) {
				t.Errorf("options %+v", o)
			}
		}},
		{"keys create without --tenant", nil, keysCreate, []string{"--name", "bot"}, nil},
		{"keys list", nil, plain(newCmdOverlayKeysList), []string{"--json"}, func(t *testing.T, got any) {
			if o := got.(*overlayOptions); !o.JSON {
				t.Errorf("options %+v", o)
			}
		}},
		{"keys revoke", nil, keysRevoke, []string{"k1"}, func(t *testing.T, got any) {
			if o := got.(*overlayKeysRevokeOptions); o.ID != "k1" {
				t.Errorf("options %+v", o)
			}
		}},
		{"serve", map[string]string{"ATMA_TOKEN": "tok"}, serve, []string{"--addr", "0.0.0.0:9000"}, func(t *testing.T, got any) {
			if o := got.(*overlayServeOptions); o.Token != "tok" || o.Addr != "0.0.0.0:9000" {
				t.Errorf("options %+v", o)
			}
		}},
		{"migrate", nil, migrate, []string{"--from", "sqlite:/srv/atma/atma.db", "--to", "postgres://atma@db/atma"}, func(t *testing.T, got any) {
			if o := got.(*overlayMigrateOptions); o.Dir != "/srv/atma" || o.To != "postgres://atma@db/atma" {
				t.Errorf("options %+v", o)
			}
		}},
		{"migrate from a directory", nil, migrate, []string{"--from", "sqlite:./data", "--to", "postgres://atma@db/atma"}, func(t *testing.T, got any) {
			if o := got.(*overlayMigrateOptions); o.Dir != "./data" {
				t.Errorf("options %+v", o)
			}
		}},
		{"migrate without a URL", nil, migrate, []string{"--from", "sqlite:./data", "--to", "./other"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := testFactory(tt.env)
			var got any
			cmd := tt.cmd(f, &got)
			cmd.SetArgs(tt.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.ExecuteContext(t.Context())
			if tt.check == nil {
				var ue usageError
				if !errors.As(err, &ue) {
					t.Errorf("error %v, want a usage error", err)
				}
				if got != nil {
					t.Error("runF was called despite the usage error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("runF was not called")
			}
			tt.check(t, got)
		})
	}
}
