package apikey_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

func openSQLite(t *testing.T) *apikey.Store {
	t.Helper()
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "bank.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := apikey.NewSQLite(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T) *apikey.Store {
	t.Helper()
	db, err := pgdb.Open(t.Context(), pgtest.URL(t), pgdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := apikey.NewPostgres(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestKeys(t *testing.T) {
	for _, impl := range []struct {
		name string
		open func(*testing.T) *apikey.Store
	}{{"SQLite", openSQLite}, {"Postgres", openPostgres}} {
		t.Run(impl.name, func(t *testing.T) { testKeys(t, impl.open(t)) })
	}
}

func testKeys(t *testing.T, s *apikey.Store) {
	ctx := t.Context()
	if active, err := s.Active(ctx); err != nil || active {
		t.Fatalf("a new table has active keys: %v %v", active, err)
	}
	k, tok, err := s.Create(ctx, "bot", "acme", []string{"alice"}, []apikey.Scope{apikey.ScopeRead})
	if err != nil || !strings.HasPrefix(tok, apikey.TokenPrefix+k.ID+"_") {
		t.Fatalf("create: %+v %q %v", k, tok, err)
	}
	got, err := s.Authenticate(ctx, tok)
	if err != nil || got.ID != k.ID || got.Tenant != "acme" || !got.Allows(apikey.ScopeRead) || got.Allows(apikey.ScopeWrite) {
		t.Errorf("authenticate: %+v %v", got, err)
	}
	for _, bad := range []string{"", "atma_", "atma_" + k.ID, tok + "x", strings.Replace(tok, k.ID, "000000000000", 1), "Bearer " + tok} {
		if _, err := s.Authenticate(ctx, bad); !errors.Is(err, apikey.ErrUnknownKey) {
			t.Errorf("token %q: %v, want ErrUnknownKey", bad, err)
		}
	}
	if id, err := got.UserID("alice"); err != nil || id != "acme/alice" {
		t.Errorf("UserID(alice) = %q, %v", id, err)
	}
	for _, u := range []string{"bob", "x/alice"} {
		if _, err := got.UserID(u); err == nil {
			t.Errorf("UserID(%q) allowed", u)
		}
	}
	if err := s.Revoke(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, tok); !errors.Is(err, apikey.ErrRevoked) {
		t.Errorf("revoked key: %v", err)
	}
	if err := s.Revoke(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoke unknown: %v", err)
	}
	keys, err := s.List(ctx)
	if err != nil || len(keys) != 1 || keys[0].Revoked.IsZero() {
		t.Errorf("list: %+v %v", keys, err)
	}
	// Bad input is refused whole, with every problem named.
	_, _, err = s.Create(ctx, "", "a/b", []string{"x y"}, []apikey.Scope{"root"})
	for _, w := range []string{"name is empty", `tenant "a/b"`, `user "x y"`, `scope "root"`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("create error %v lacks %q", err, w)
		}
	}
	if _, _, err := s.Create(ctx, "n", "t", nil, nil); err == nil || !strings.Contains(err.Error(), "no scope") {
		t.Errorf("no scopes: %v", err)
	}
}
