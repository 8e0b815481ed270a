package storetest

import (
	"os"
	"testing"

	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

// DamageFile overwrites pages of the SQLite file at path (closed, its WAL checkpointed)
// with junk, as a failing disk would: page 1, the header, is left whole, so that SQLite
// still opens the file and its integrity check finds the damage.
func DamageFile(t testing.TB, path string, pages ...int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := make([]byte, sqlitedb.PageSize)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	for _, p := range pages {
		if p < 2 {
			t.Fatalf("damage page %d: page 1 is the header", p)
		}
		if _, err := f.WriteAt(junk, (p-1)*sqlitedb.PageSize); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
