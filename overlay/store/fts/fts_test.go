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

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"syntax only", `" ( ) * : ^`, nil},
		{"function words left out", "where do I live", []string{"live"}},
		{"plain words only", "Berlin Lisbon", []string{"berlin", "lisbon"}},
		{"only function words are kept", "who am I", []string{"who", "am", "i"}},
		{"dedup", "cat cat CAT", []string{"cat"}},
		{"operators are words", `title:foo NOT "bar`, []string{"title", "foo", "not", "bar"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fts.Terms(tt.in, fts.MaxQueryTerms); !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("term cap", func(t *testing.T) {
		var words []string
		for i := range 3 * fts.MaxQueryTerms {
			words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		if got := len(fts.Terms(strings.Join(words, " "), fts.MaxQueryTerms)); got != fts.MaxQueryTerms {
			t.Errorf("query has %d terms, want %d", got, fts.MaxQueryTerms)
		}
	})
}

// tokenizer is the FTS5 tokenizer declaration that Tokenize mirrors.
const tokenizer = "unicode61 remove_diacritics 2"

// matchQuery is text's Terms as an FTS5 MATCH expression, each term quoted, joined by
// OR: the query whose bm25() Index.Search must reproduce. "" when text has no terms.
func matchQuery(text string) string {
	terms := fts.Terms(text, fts.MaxQueryTerms)
	for i, t := range terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(terms, " OR ")
}

// ftsDB is a one-column FTS5 table declared with the tokenizer Tokenize mirrors.
func ftsDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sqlitedb.Open(context.Background(), filepath.Join(t.TempDir(), "fts.db"), sqlitedb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '` + tokenizer + `')`); err != nil {
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
			rows, err := db.Query(`SELECT rowid, -bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), rowid`, matchQuery(q))
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

// FuzzTermsMatchFTS5 checks that the tokenizer agrees with FTS5's unicode61 on any ASCII
// text: the text, indexed by FTS5, matches the query made of its own Terms, and Index
// finds it by the same query.
func FuzzTermsMatchFTS5(f *testing.F) {
	for _, s := range []string{
		"", `"`, `""`, `a"b`, "NEAR(a b, 2)", "a AND", "OR", "NOT x", "col:val", "pre*", "^start",
		"-neg", "+plus", "(unbalanced", "a) b", "\x00", "日本語のテキスト", "e\u0301", "'; DROP TABLE docs; --",
		"{a b}: c", "a:", "*", "\uFFFD", "\U0010FFFF", "the cat_sat 42",
	} {
		f.Add(s)
	}
	db := ftsDB(f)
	f.Fuzz(func(t *testing.T, s string) {
		terms := fts.Terms(s, fts.MaxQueryTerms)
		toks := fts.Tokenize(s)
		for _, term := range terms {
			if !slices.Contains(toks, term) {
				t.Fatalf("Terms(%q) has %q, which is not one of its tokens %q", s, term, toks)
			}
		}
		if len(terms) == 0 {
			if len(toks) != 0 {
				t.Fatalf("Terms(%q) is empty but the text has tokens %q", s, toks)
			}
			return
		}
		if !isASCII(s) {
			// Unicode versions of Go and SQLite may disagree on rarer letters.
			return
		}
		if _, err := db.Exec(`DELETE FROM docs`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO docs (body) VALUES (?)`, s); err != nil {
			t.Fatal(err)
		}
		var hit int
		if err := db.QueryRow(`SELECT count(*) FROM docs WHERE docs MATCH ?`, matchQuery(s)).Scan(&hit); err != nil || hit != 1 {
			t.Fatalf("text %q does not match its own query %q in FTS5: %d rows, %v", s, matchQuery(s), hit, err)
		}
		ix := fts.NewIndex()
		ix.Add("d", s)
		if got := ix.Search(s, 0); len(got) != 1 {
			t.Fatalf("Index does not find %q by its own text: %v", s, got)
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
