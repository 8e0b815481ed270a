package fts_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/store/fts"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"punctuation only", `"()*:^-+`, nil},
		{"words and digits", "Café-au-lait 2024!", []string{"cafe", "au", "lait", "2024"}},
		{"decomposed accent", "e\u0301te\u0301", []string{"ete"}},
		{"quotes inside", `say "hello" world`, []string{"say", "hello", "world"}},
		{"fts operators are words", "NOT cats AND dogs OR NEAR(x)", []string{"not", "cats", "and", "dogs", "or", "near", "x"}},
		{"non latin", "Привет, мир", []string{"привет", "мир"}},
		{"underscore splits", "slot_key", []string{"slot", "key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fts.Tokenize(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMatchQuery(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"syntax only", `" ( ) * : ^`, ""},
		{"plain", "where do I live", `"live"`},
		{"plain words only", "Berlin Lisbon", `"berlin" OR "lisbon"`},
		{"only function words are kept", "who am I", `"who" OR "am" OR "i"`},
		{"dedup", "cat cat CAT", `"cat"`},
		{"operators quoted", `title:foo NOT "bar`, `"title" OR "foo" OR "not" OR "bar"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fts.MatchQuery(tt.in); got != tt.want {
				t.Errorf("MatchQuery(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("term cap", func(t *testing.T) {
		var words []string
		for i := range 3 * fts.MaxQueryTerms {
			words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		got := strings.Count(fts.MatchQuery(strings.Join(words, " ")), " OR ") + 1
		if got != fts.MaxQueryTerms {
			t.Errorf("query has %d terms, want %d", got, fts.MaxQueryTerms)
		}
	})
}

func TestQuote(t *testing.T) {
	if got, want := fts.Quote(`a"b`), `"a""b"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}

// ftsDB is a one-column FTS5 table declared with the tokenizer the overlay uses.
func ftsDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), filepath.Join(t.TempDir(), "fts.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '` + fts.Tokenizer + `')`); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestIndexMatchesFTS5 checks that Index scores exactly as SQLite's bm25().
func TestIndexMatchesFTS5(t *testing.T) {
	corpus := []string{
		"I live in Paris with my cat",
		"I moved to Berlin last spring",
		"my cat is called Mochi and my dog is called Rex",
		"Berlin is cold in winter, Paris is rainy",
		"the café near the office serves good coffee",
		"coffee coffee coffee every morning",
		"nothing to see here",
	}
	db := ftsDB(t)
	ix := fts.NewIndex()
	for i, d := range corpus {
		if _, err := db.Exec(`INSERT INTO docs (rowid, body) VALUES (?, ?)`, i+1, d); err != nil {
			t.Fatal(err)
		}
		ix.Add(string(rune('a'+i)), d)
	}
	queries := []string{"where do I live", "cat", "coffee at the CAFE", "Berlin Paris", "called Rex?", "zebra"}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			rows, err := db.Query(`SELECT rowid, -bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid`, fts.MatchQuery(q))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var want []fts.Scored
			for rows.Next() {
				var id int
				var s float64
				if err := rows.Scan(&id, &s); err != nil {
					t.Fatal(err)
				}
				want = append(want, fts.Scored{ID: string(rune('a' + id - 1)), Score: s})
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			got := ix.Search(q, 0)
			if len(got) != len(want) {
				t.Fatalf("Index found %d documents, FTS5 %d: %v vs %v", len(got), len(want), got, want)
			}
			for i := range want {
				if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-9 {
					t.Errorf("rank %d: Index %v, FTS5 %v", i, got[i], want[i])
				}
			}
		})
	}
}

func TestIndexAddRemove(t *testing.T) {
	ix := fts.NewIndex()
	ix.Add("a", "red apple")
	ix.Add("b", "green apple")
	ix.Add("a", "blue sky") // replaces
	if got := ix.Search("red", 0); len(got) != 0 {
		t.Errorf("replaced text still found: %v", got)
	}
	if got := ix.Search("apple", 0); len(got) != 1 || got[0].ID != "b" {
		t.Errorf("apple: %v, want [b]", got)
	}
	ix.Remove("b")
	ix.Remove("missing")
	if ix.Len() != 1 {
		t.Errorf("Len = %d, want 1", ix.Len())
	}
	if got := ix.Search("apple", 0); len(got) != 0 {
		t.Errorf("removed document found: %v", got)
	}
	if got := ix.Search("sky blue", 1); len(got) != 1 || got[0].ID != "a" || got[0].Score <= 0 {
		t.Errorf("sky: %v", got)
	}
}

// FuzzMatchQuery checks that no user text can break FTS5 MATCH syntax, and that the
// query keeps the text's terms.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{
		"", `"`, `""`, `a"b`, "NEAR(a b, 2)", "a AND", "OR", "NOT x", "col:val", "pre*", "^start",
		"-neg", "+plus", "(unbalanced", "a) b", "\x00", "日本語のテキスト", "e\u0301", "'; DROP TABLE docs; --",
		"{a b}: c", "a:", "*", "\uFFFD", "\U0010FFFF",
	} {
		f.Add(s)
	}
	db := ftsDB(f)
	if _, err := db.Exec(`INSERT INTO docs (body) VALUES ('alpha beta'), ('gamma "delta"'), ('near and or not')`); err != nil {
		f.Fatal(err)
	}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE probe USING fts5(body, tokenize = '` + fts.Tokenizer + `')`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := fts.MatchQuery(s)
		terms := fts.Terms(s, fts.MaxQueryTerms)
		if q == "" {
			if len(terms) != 0 {
				t.Fatalf("MatchQuery(%q) is empty but the text has terms %q", s, terms)
			}
			return
		}
		for _, term := range terms {
			if !strings.Contains(q, fts.Quote(term)) {
				t.Fatalf("MatchQuery(%q) = %q lacks term %q", s, q, term)
			}
		}
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM docs WHERE docs MATCH ?`, q).Scan(&n); err != nil {
			t.Fatalf("MatchQuery(%q) = %q: FTS5 rejects it: %v", s, q, err)
		}
		// For ASCII text the Go tokenizer and unicode61 agree, so the text, indexed,
		// must match its own query.
		if isASCII(s) {
			if _, err := db.Exec(`DELETE FROM probe`); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO probe (body) VALUES (?)`, s); err != nil {
				t.Fatal(err)
			}
			var hit int
			if err := db.QueryRow(`SELECT count(*) FROM probe WHERE probe MATCH ?`, q).Scan(&hit); err != nil || hit != 1 {
				t.Fatalf("text %q does not match its own query %q: %d rows, %v", s, q, hit, err)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestPrunable(t *testing.T) {
	tests := []struct {
		df, n int
		want  bool
	}{
		{0, 0, false},
		{3, 4, false}, // half the documents, but a small collection
		{fts.PruneMinDF - 1, fts.PruneMinDF, false},
		{fts.PruneMinDF, 2 * fts.PruneMinDF, true},
		{fts.PruneMinDF, 2*fts.PruneMinDF + 1, false}, // under half
		{5000, 6000, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d_of_%d", tt.df, tt.n), func(t *testing.T) {
			if got := fts.Prunable(tt.df, tt.n); got != tt.want {
				t.Errorf("Prunable(%d, %d) = %v, want %v", tt.df, tt.n, got, tt.want)
			}
		})
	}
	got := fts.Prune([]string{"the", "cat", "unseen"}, map[string]int{"the": 1500, "cat": 10}, 2000)
	if !slices.Equal(got, []string{"cat", "unseen"}) {
		t.Errorf("Prune = %v", got)
	}
}

func TestIndexPrunes(t *testing.T) {
	ix := fts.NewIndex()
	n := 2 * fts.PruneMinDF
	for i := range n {
		text := "the common words"
		if i%500 == 0 {
			text += " rare"
		}
		ix.Add(fmt.Sprint(i), text)
	}
	if got := ix.Search("the rare", 0); len(got) != n/500 {
		t.Errorf("the rare: %d hits, want the %d rare documents", len(got), n/500)
	}
	if got := ix.Search("common", 0); len(got) != 0 {
		t.Errorf("a term in every document still matches %d", len(got))
	}
	small := fts.NewIndex()
	small.Add("a", "the cat")
	small.Add("b", "the dog")
	if got := small.Search("the", 0); len(got) != 2 {
		t.Errorf("small collection: %v, want both documents", got)
	}
}
