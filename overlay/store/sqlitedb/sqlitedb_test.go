package sqlitedb_test

import (
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

func TestOpenSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir with space?#", "atma.db")
	db, err := sqlitedb.Open(t.Context(), path, sqlitedb.Config{BusyTimeout: 1234 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Several connections: every one of them must carry the settings.
	db.SetMaxIdleConns(4)
	for i := range 4 {
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var mode string
		var fk, busy int
		if err := conn.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(t.Context(), "PRAGMA foreign_keys").Scan(&fk); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if mode != "wal" || fk != 1 || busy != 1234 {
			t.Errorf("conn %d: journal_mode=%s foreign_keys=%d busy_timeout=%d, want wal 1 1234", i, mode, fk, busy)
		}
	}
	var pageSize int
	if err := db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil || pageSize != sqlitedb.PageSize {
		t.Errorf("page_size = %d (%v), want %d", pageSize, err, sqlitedb.PageSize)
	}
	var hasFTS5 int
	if err := db.QueryRow(`SELECT sqlite_compileoption_used('ENABLE_FTS5')`).Scan(&hasFTS5); err != nil || hasFTS5 != 1 {
		t.Errorf("FTS5 not compiled in: %d, %v", hasFTS5, err)
	}
}

func TestOpenRejects(t *testing.T) {
	tests := []struct {
		name string
		path string
		cfg  sqlitedb.Config
	}{
		{"empty path", "", sqlitedb.Config{}},
		{"memory", ":memory:", sqlitedb.Config{}},
		{"uri", "file:x.db", sqlitedb.Config{}},
		{"negative timeout", filepath.Join(t.TempDir(), "a.db"), sqlitedb.Config{BusyTimeout: -time.Second}},
		{"sub-millisecond timeout", filepath.Join(t.TempDir(), "b.db"), sqlitedb.Config{BusyTimeout: time.Microsecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := sqlitedb.Open(t.Context(), tt.path, tt.cfg)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

func TestLoadMigrations(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []int
		wantErr string
	}{
		{"sorted", fstest.MapFS{
			"0002_b.sql": {Data: []byte("B")}, "0001_a.sql": {Data: []byte("A")}, "README": {Data: []byte("x")},
		}, []int{1, 2}, ""},
		{"gap", fstest.MapFS{"0001_a.sql": {}, "0003_c.sql": {}}, nil, "contiguous"},
		{"bad name", fstest.MapFS{"init.sql": {}}, nil, "NNNN_name"},
		{"zero", fstest.MapFS{"0000_x.sql": {}}, nil, "NNNN_name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := sqlitedb.LoadMigrations(tt.files)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.Version)
			}
			if len(got) != len(tt.want) || got[0] != tt.want[0] || got[len(got)-1] != tt.want[len(tt.want)-1] {
				t.Errorf("versions %v, want %v", got, tt.want)
			}
			if ms[0].Name != "a" || ms[0].SQL != "A" {
				t.Errorf("first migration %+v", ms[0])
			}
		})
	}
}

func TestMigrate(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms := []sqlitedb.Migration{
		{Version: 1, Name: "init", SQL: "CREATE TABLE a (x INTEGER); CREATE TABLE b (y TEXT);"},
		{Version: 2, Name: "more", SQL: "ALTER TABLE a ADD COLUMN z TEXT;"},
	}
	v, err := sqlitedb.Migrate(t.Context(), db, "comp", ms[:1])
	if err != nil || v != 1 {
		t.Fatalf("first migrate: %d, %v", v, err)
	}
	// Again, and with one more: only the new one runs (re-running 1 would fail on CREATE).
	v, err = sqlitedb.Migrate(t.Context(), db, "comp", ms)
	if err != nil || v != 2 {
		t.Fatalf("second migrate: %d, %v", v, err)
	}
	if _, err := db.Exec("INSERT INTO a (x, z) VALUES (1, 'z')"); err != nil {
		t.Fatalf("migration 2 not applied: %v", err)
	}
	// Components are independent.
	if v, err := sqlitedb.Version(t.Context(), db, "other"); err != nil || v != 0 {
		t.Errorf("other component version %d, %v", v, err)
	}
	t.Run("newer database", func(t *testing.T) {
		if _, err := sqlitedb.Migrate(t.Context(), db, "comp", ms[:1]); err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("err = %v, want newer-schema error", err)
		}
	})
	t.Run("failed migration rolls back", func(t *testing.T) {
		bad := []sqlitedb.Migration{{Version: 1, Name: "half", SQL: "CREATE TABLE c (x INTEGER); CREATE TABLE broken (;"}}
		if _, err := sqlitedb.Migrate(t.Context(), db, "bad", bad); err == nil {
			t.Fatal("broken migration succeeded")
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'c'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("half-applied migration left table c: %d, %v", n, err)
		}
		if v, err := sqlitedb.Version(t.Context(), db, "bad"); err != nil || v != 0 {
			t.Errorf("failed migration recorded: %d, %v", v, err)
		}
	})
}

func TestVectorRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		v    []float32
	}{
		{"nil", nil},
		{"one", []float32{1}},
		{"specials", []float32{0, float32(math.Copysign(0, -1)), math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(-1))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := sqlitedb.EncodeVector(tt.v)
			if len(b) != 4*len(tt.v) {
				t.Fatalf("blob is %d bytes, want %d", len(b), 4*len(tt.v))
			}
			got, err := sqlitedb.DecodeVector(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.v) {
				t.Fatalf("decoded %d values, want %d", len(got), len(tt.v))
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(tt.v[i]) {
					t.Errorf("[%d] = %v, want %v", i, got[i], tt.v[i])
				}
			}
		})
	}
	if got := sqlitedb.EncodeVector([]float32{1}); got[3] != 0x3f || got[2] != 0x80 {
		t.Errorf("1.0 encodes as % x, want little-endian 00 00 80 3f", got)
	}
	if _, err := sqlitedb.DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Error("3-byte blob decoded")
	}
}

func FuzzDecodeVector(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0x80, 0x3f})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := sqlitedb.DecodeVector(b)
		if (err != nil) != (len(b)%4 != 0) {
			t.Fatalf("len %d: err %v", len(b), err)
		}
		if err == nil && string(sqlitedb.EncodeVector(v)) != string(b) {
			t.Fatalf("round trip changed % x", b)
		}
	})
}

func TestTimes(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.FixedZone("x", 3600))
	if got := sqlitedb.NullToTime(sqlitedb.TimeToNull(now)); !got.Equal(now) || got.Location() != time.UTC {
		t.Errorf("round trip %v → %v", now, got)
	}
	if n := sqlitedb.TimeToNull(time.Time{}); n.Valid {
		t.Error("zero time is not NULL")
	}
	if !sqlitedb.NullToTime(sqlitedb.TimeToNull(time.Time{})).IsZero() {
		t.Error("NULL does not give the zero time")
	}
	if sqlitedb.TimeInRange(time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)) || !sqlitedb.TimeInRange(now) || !sqlitedb.TimeInRange(time.Time{}) {
		t.Error("TimeInRange wrong")
	}
}

func TestStrings(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "s.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (s TEXT); INSERT INTO t VALUES ('b'), ('a'), ('b'), (NULL)`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		query   string
		args    []any
		want    []string
		wantErr bool
	}{
		{"ordered", `SELECT DISTINCT s FROM t WHERE s IS NOT NULL ORDER BY s`, nil, []string{"a", "b"}, false},
		{"with args", `SELECT s FROM t WHERE s = ?`, []any{"b"}, []string{"b", "b"}, false},
		{"none", `SELECT s FROM t WHERE s = ?`, []any{"c"}, nil, false},
		{"null", `SELECT s FROM t WHERE s IS NULL`, nil, nil, true},
		{"bad query", `SELECT s FROM missing`, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sqlitedb.Strings(t.Context(), db, tt.query, tt.args...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCollect(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (k TEXT, v INTEGER); INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3)`); err != nil {
		t.Fatal(err)
	}
	type kv struct {
		k string
		v int
	}
	scan := func(rows *sql.Rows) (p kv, err error) {
		err = rows.Scan(&p.k, &p.v)
		return p, err
	}
	got, err := sqlitedb.Collect(t.Context(), db, scan, `SELECT k, v FROM t WHERE v > ? ORDER BY v DESC`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []kv{{"c", 3}, {"b", 2}}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	t.Run("scan error comes back as is", func(t *testing.T) {
		stop := errors.New("stop")
		n := 0
		_, err := sqlitedb.Collect(t.Context(), db, func(rows *sql.Rows) (kv, error) {
			if n++; n == 2 {
				return kv{}, stop
			}
			return scan(rows)
		}, `SELECT k, v FROM t`)
		if !errors.Is(err, stop) {
			t.Errorf("err = %v, want %v", err, stop)
		}
	})
}

func TestPlaceholders(t *testing.T) {
	if got := sqlitedb.Placeholders(3); got != "?, ?, ?" {
		t.Errorf("Placeholders(3) = %q", got)
	}
	if got := sqlitedb.Values(2, 3); got != "(?, ?, ?), (?, ?, ?)" {
		t.Errorf("Values(2, 3) = %q", got)
	}
}
