package storetest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store"
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

// PutPlain writes n plain records of user into s ("r000", "r001", …), one transaction
// each, long enough that a few hundred fill dozens of pages: a bank to damage.
func PutPlain(t testing.TB, s store.Writer, user string, n int) {
	t.Helper()
	for i := range n {
		id := fmt.Sprintf("r%03d", i)
		if err := s.Tx(t.Context(), user, func(tx store.Tx) error {
			return tx.Put(t.Context(), store.Record{ID: id, Content: strings.Repeat("the flat by the river in Lisbon has a view. ", 4) + id})
		}); err != nil {
			t.Fatal(err)
		}
	}
}
