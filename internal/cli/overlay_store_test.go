package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/api"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/storetest"
)

// TestOverlayCommandsPostgres runs add, query, show, trace and check on a PostgreSQL
// bank named by $ATMA_DATABASE_URL, and check again through --store.
func TestOverlayCommandsPostgres(t *testing.T) {
	url := pgtest.URL(t)
	env := map[string]string{"ATMA_CACHE": testTinyCache(t), "ATMA_DATA": t.TempDir(), "ATMA_DATABASE_URL": url}
	common := []string{"-u", "alice", "--backbone", "test-tiny", "--gate-off"}
	for _, m := range []struct{ at, text string }{{"2024-01-01T00:00:00Z", "I live in Berlin."}, {"2025-01-01T00:00:00Z", "I moved to Lisbon last month."}} {
		if code, _, errOut := run(t, "atma", env, "", append([]string{"overlay", "add", "--at", m.at, m.text}, common...)...); code != 0 {
			t.Fatalf("add: exit %d: %s", code, errOut)
		}
	}
	code, out, errOut := run(t, "atma", env, "", append([]string{"overlay", "query", "Where do I live now?"}, common...)...)
	if code != 0 || !strings.Contains(out, "[1] current memory") || !strings.Contains(out, "Lisbon") || !strings.Contains(out, "trace: ") {
		t.Fatalf("query: exit %d: %s %s", code, out, errOut)
	}
	traceID := strings.TrimSpace(out[strings.LastIndex(out, "trace: ")+len("trace: "):])
	if code, out, errOut := run(t, "atma", env, "", "overlay", "trace", "-u", "alice", traceID); code != 0 || !strings.Contains(out, `"kind": "query"`) {
		t.Errorf("trace: exit %d: %s %s", code, out, errOut)
	}
	if code, out, _ := run(t, "atma", env, "", "overlay", "show", "-u", "alice", "--status", "superseded"); code != 0 || !strings.Contains(out, "Berlin") || strings.Contains(out, "Lisbon") {
		t.Errorf("show: exit %d: %s", code, out)
	}
	// --store names the same bank; the (empty) data directory's SQLite file is not used.
	flagEnv := map[string]string{"ATMA_DATA": t.TempDir()}
	if code, out, errOut := run(t, "atma", flagEnv, "", "overlay", "check", "--store", url); code != 0 || !strings.Contains(out, "alice: 0 violations") {
		t.Errorf("check --store: exit %d: %s %s", code, out, errOut)
	}
}

// A bank URL that is not PostgreSQL's is a usage error; a database that does not answer
// fails with exit 1 and an error that names the URL without its password.
func TestOverlayStoreErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		want     []string
		withheld string
	}{
		{"not a postgres URL", []string{"overlay", "show", "-u", "alice", "--store", "sqlite:/tmp/x.db"}, nil,
			ExitUsage, []string{"--store", "postgres://"}, ""},
		{"not a postgres URL in the environment", []string{"overlay", "check"}, map[string]string{"ATMA_DATABASE_URL": "mysql://db"},
			ExitUsage, []string{"$ATMA_DATABASE_URL", "postgres://"}, ""},
		{"unreachable", []string{"overlay", "show", "-u", "alice", "--store", "postgres://atma:s3cret@127.0.0.1:1/atma?connect_timeout=2"}, nil,
			ExitFailure, []string{"127.0.0.1:1", "unavailable", "xxxxx"}, "s3cret"},
		{"unreachable serve", []string{"overlay", "serve", "--store", "postgres://atma:s3cret@127.0.0.1:1/atma?connect_timeout=2"}, nil,
			ExitFailure, []string{"127.0.0.1:1", "unavailable"}, "s3cret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"ATMA_DATA": t.TempDir()}
			for k, v := range tt.env {
				env[k] = v
			}
			code, _, errOut := run(t, "atma", env, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("error %q does not say %q", errOut, w)
				}
			}
			if tt.withheld != "" && strings.Contains(errOut, tt.withheld) {
				t.Errorf("error %q shows the password", errOut)
			}
		})
	}
}

// `overlay migrate` copies an SQLite bank into an empty PostgreSQL database, verifies
// it, and refuses a second copy into the same database, or flags it cannot use.
func TestOverlayMigrate(t *testing.T) {
	dir := t.TempDir()
	bank, err := overlay.OpenBank(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	storetest.PutPlain(t, bank.Store, "alice", 30)
	if err := bank.Close(); err != nil {
		t.Fatal(err)
	}
	url := pgtest.URL(t)
	env := map[string]string{}
	code, out, errOut := run(t, "atma", env, "", "overlay", "migrate", "--from", "sqlite:"+filepath.Join(dir, overlay.DBFile), "--to", url)
	if code != 0 || !strings.Contains(out, "alice: 30 records") || !strings.Contains(out, "verified: 1 users, 30 records") {
		t.Fatalf("migrate: exit %d: %s %s", code, out, errOut)
	}
	if code, out, errOut := run(t, "atma", env, "", "overlay", "check", "--store", url); code != 0 || !strings.Contains(out, "alice: 0 violations") {
		t.Errorf("check of the copy: exit %d: %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "atma", env, "", "overlay", "migrate", "--from", "sqlite:"+dir, "--to", url); code != ExitFailure || !strings.Contains(errOut, "empty database") {
		t.Errorf("a second copy: exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{
		{"--from", dir, "--to", url},
		{"--from", "sqlite:" + dir, "--to", "mysql://x"},
		{"--from", "sqlite:" + t.TempDir(), "--to", url},
	} {
		if code, _, errOut := run(t, "atma", env, "", append([]string{"overlay", "migrate"}, args...)...); code != ExitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// TestOverlayServeReplicasPostgres serves one PostgreSQL bank from two servers (each
// with its own pool, as two `atma overlay serve` processes), adds memories of one user
// through both at once, and expects every memory kept once, the invariants to hold, and
// each server's query to find what was added through the other.
func TestOverlayServeReplicasPostgres(t *testing.T) {
	url := pgtest.URL(t)
	f, logs := testFactory(nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	const token = "tok-0123456789abcdef"
	var bases []string
	var dones []<-chan error
	for range 2 {
		opts := &overlayServeOptions{Addr: "127.0.0.1:0", Token: token}
		opts.Store = url
		base, done := startServe(t, ctx, f, opts, bagOverlay(f, &opts.overlayOptions), logs)
		bases = append(bases, base)
		dones = append(dones, done)
	}
	send := func(base, method, path, body string) (int, string, error) {
		r, _ := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	const perServer, clients = 6, 2
	var wg sync.WaitGroup
	errs := make(chan error, 2*clients*perServer)
	for s, base := range bases {
		for c := range clients {
			wg.Go(func() {
				for i := range perServer {
					body := fmt.Sprintf(`{"memories":[{"content":"Note s%dc%di%d: the garden gets watered on day %d."}]}`, s, c, i, i)
					if code, out, err := send(base, "POST", "/v1/users/alice/memories", body); err != nil || code != http.StatusOK {
						errs <- fmt.Errorf("server %d: %d %s %v", s, code, out, err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for s, base := range bases {
		code, body, err := send(base, "GET", "/v1/users/alice/records?limit=1000", "")
		var list api.ListResponse
		if err != nil || code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Records) != 2*clients*perServer {
			t.Errorf("server %d lists %d records (%d %v), want %d", s, len(list.Records), code, err, 2*clients*perServer)
		}
		other := fmt.Sprintf("s%dc1i%d", 1-s, perServer-1)
		code, body, err = send(base, "POST", "/v1/users/alice/query", `{"query":"`+other+`"}`)
		var qr api.QueryResponse
		if err != nil || code != http.StatusOK || json.Unmarshal([]byte(body), &qr) != nil {
			t.Fatalf("server %d: query: %d %v %.300s", s, code, err, body)
		}
		if !slices.ContainsFunc(qr.Packet.Rows, func(r retrieval.Row) bool { return strings.Contains(r.Content, other) }) {
			t.Errorf("server %d does not find %s, added through the other: %+v", s, other, qr.Packet.Rows)
		}
	}
	cancel()
	for _, done := range dones {
		if err := <-done; err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	}
	if code, out, errOut := run(t, "atma", map[string]string{"ATMA_DATA": t.TempDir()}, "", "overlay", "check", "--store", url); code != 0 || !strings.Contains(out, "alice: 0 violations") {
		t.Errorf("check: exit %d: %s %s", code, out, errOut)
	}
}
