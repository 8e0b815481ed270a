package host

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestCacheTrim: past Config.CacheMemories the least recently searched user's index is
// dropped, and that user's next search loads it again and finds the same.
func TestCacheTrim(t *testing.T) {
	ctx := t.Context()
	h, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "atma.db"), Config{CacheMemories: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, u := range []string{"a", "b", "c"} {
		for i := range 3 {
			if err := h.Add(ctx, u, Memory{ID: fmt.Sprintf("%s%d", u, i), Content: fmt.Sprintf("%s note %d about Paris", u, i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	search := func(u string) []string {
		t.Helper()
		hits, err := h.Search(ctx, u, "Paris", nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, hit := range hits {
			ids = append(ids, hit.ID)
		}
		return ids
	}
	loaded := func(u string) bool {
		e := h.entry(u)
		e.mu.RLock()
		defer e.mu.RUnlock()
		return e.idx != nil
	}
	first := search("a")
	search("b") // 6 cached > 5: a, searched least recently, goes
	if loaded("a") || !loaded("b") {
		t.Errorf("after b's search: a loaded %v, b loaded %v; want only b", loaded("a"), loaded("b"))
	}
	search("c") // b goes
	if loaded("b") || !loaded("c") {
		t.Errorf("after c's search: b loaded %v, c loaded %v; want only c", loaded("b"), loaded("c"))
	}
	if again := search("a"); fmt.Sprint(again) != fmt.Sprint(first) || len(first) != 3 {
		t.Errorf("a's search after a reload: %v, before %v", again, first)
	}
	// A write keeps the count right: the index grows by one and trims on the next load.
	if err := h.Add(ctx, "a", Memory{ID: "a3", Content: "a note about Paris"}); err != nil {
		t.Fatal(err)
	}
	if got := search("a"); len(got) != 4 {
		t.Errorf("a's search after an add: %v", got)
	}
}

// TestCacheTrimANN: users searched through the HNSW graph are trimmed and loaded again
// like the others; the graph rebuilt on the reload answers as brute force does, without
// the memories deleted in between.
func TestCacheTrimANN(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "atma.db")
	h, err := OpenSQLite(ctx, path, Config{CacheMemories: 40, ANN: ANNConfig{Threshold: 10, M: 4, EfConstruction: 8}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	exact, err := OpenSQLite(ctx, path, Config{ANN: ANNConfig{Threshold: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer exact.Close()
	g := newLowRank(5, 16, 4)
	for _, u := range []string{"a", "b"} {
		for i := range 30 {
			if err := h.Add(ctx, u, Memory{ID: fmt.Sprintf("%s%02d", u, i), Content: "a note", Vector: g.vector()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	q := g.vector()
	check := func(u string) {
		t.Helper()
		got, err := h.Search(ctx, u, "", q, 10)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.Search(ctx, u, "", q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ids(got)) != fmt.Sprint(ids(want)) {
			t.Errorf("%s: graph %v, brute force %v", u, ids(got), ids(want))
		}
		e := h.entry(u)
		e.mu.RLock()
		defer e.mu.RUnlock()
		if e.idx == nil || e.idx.dense.ann == nil {
			t.Errorf("%s: searched without the graph", u)
		}
	}
	check("a")
	check("b") // 60 > 40: a goes
	for i := range 10 {
		if err := h.Delete(ctx, "a", fmt.Sprintf("a%02d", 2*i)); err != nil {
			t.Fatal(err)
		}
	}
	check("a") // loaded again, b goes
	check("b")
	if whole, _ := h.IndexReads(); whole != 4 {
		t.Errorf("indexes read whole %d times, want 4 (every search after a trim)", whole)
	}
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}
