package sentry

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeEmbedder derives a deterministic vector from each text and records what it was asked.
type fakeEmbedder struct {
	dim   int
	mu    sync.Mutex
	calls [][]string
	bad   string // a text whose embedding is NaN
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls = append(f.calls, slices.Clone(texts))
	f.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakeVector(t, f.dim)
		if t == f.bad {
			out[i][1] = float32(math.NaN())
		}
	}
	return out, nil
}

func fakeVector(text string, dim int) []float32 {
	h := sha256.Sum256([]byte(text))
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(h[i%32]) - 128 + float32(i)/10
	}
	return v
}

func (f *fakeEmbedder) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []string
	for _, c := range f.calls {
		all = append(all, c...)
	}
	f.calls = nil
	return all
}

func openCacheT(t *testing.T, dir, key string, inner Embedder) *Cache {
	t.Helper()
	c, err := OpenCache(CacheConfig{Dir: dir, Key: key, Logger: quiet}, inner)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func embedT(t *testing.T, c *Cache, texts ...string) {
	t.Helper()
	got, err := c.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !slices.Equal(got[i], fakeVector(text, 5)) {
			t.Fatalf("embedding of %q = %v, want %v", text, got[i], fakeVector(text, 5))
		}
	}
}

func TestCacheComputesEachTextOnce(t *testing.T) {
	dir := t.TempDir()
	f := &fakeEmbedder{dim: 5}
	c := openCacheT(t, dir, "sha-a", f)
	embedT(t, c, "a", "b", "a")
	if got := f.asked(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("first call embedded %q, want [a b]", got)
	}
	embedT(t, c, "c", "b", "a", "c")
	if got := f.asked(); !slices.Equal(got, []string{"c"}) {
		t.Errorf("second call embedded %q, want [c]", got)
	}
	if s := c.Stats(); s.Hits != 2 || s.Misses != 3 || s.Appended != 3 || s.Corrupt != 0 {
		t.Errorf("stats %+v", s)
	}
	c.Close()

	// A new Cache on the same file finds everything; another key shares nothing.
	c2 := openCacheT(t, dir, "sha-a", f)
	embedT(t, c2, "a", "b", "c")
	if got := f.asked(); len(got) != 0 {
		t.Errorf("reopened cache embedded %q", got)
	}
	c3 := openCacheT(t, dir, "sha-b", f)
	embedT(t, c3, "a")
	if got := f.asked(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("other key embedded %q, want [a]", got)
	}
	if c2.Path() == c3.Path() {
		t.Error("two keys share a file")
	}
}

func TestCacheRecoversFromDamage(t *testing.T) {
	const dim = 5
	recLen := int64(32 + 4*dim + 4)
	tests := []struct {
		name      string
		damage    func(t *testing.T, path string)
		recompute []string
	}{
		{"flipped value", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			b[cacheHeaderLen+recLen+40] ^= 1 // inside the second record ("b")
			os.WriteFile(path, b, 0o644)
		}, []string{"b"}},
		{"partial last record", func(t *testing.T, path string) {
			st, _ := os.Stat(path)
			os.Truncate(path, st.Size()-3) // "c" loses its tail
		}, []string{"c"}},
		{"damaged header", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			copy(b, "GARBAGE!")
			os.WriteFile(path, b, 0o644)
		}, []string{"a", "b", "c"}},
		{"damaged dimension", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			b[8]++
			os.WriteFile(path, b, 0o644)
		}, []string{"a", "b", "c"}},
		{"header only partly", func(t *testing.T, path string) {
			os.Truncate(path, 10)
		}, []string{"a", "b", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f := &fakeEmbedder{dim: dim}
			c := openCacheT(t, dir, "k", f)
			embedT(t, c, "a", "b", "c")
			f.asked()
			c.Close()
			tc.damage(t, c.Path())

			c2 := openCacheT(t, dir, "k", f)
			embedT(t, c2, "a", "b", "c")
			if got := f.asked(); !slices.Equal(got, tc.recompute) {
				t.Errorf("after damage embedded %q, want %q", got, tc.recompute)
			}
			c2.Close()
			c3 := openCacheT(t, dir, "k", f)
			embedT(t, c3, "a", "b", "c")
			if got := f.asked(); len(got) != 0 {
				t.Errorf("after repair embedded %q again", got)
			}
		})
	}
}

// TestCacheDamageAfterOpen flips a stored value while the cache is open: the read-time
// checksum catches it.
func TestCacheDamageAfterOpen(t *testing.T) {
	f := &fakeEmbedder{dim: 5}
	c := openCacheT(t, t.TempDir(), "k", f)
	embedT(t, c, "a", "b")
	f.asked()
	b, _ := os.ReadFile(c.Path())
	b[cacheHeaderLen+35] ^= 0x80 // first record ("a")
	if err := os.WriteFile(c.Path(), b, 0o644); err != nil {
		t.Fatal(err)
	}
	embedT(t, c, "a", "b")
	if got := f.asked(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("embedded %q, want [a]", got)
	}
	if c.Stats().Corrupt != 1 {
		t.Errorf("stats %+v", c.Stats())
	}
}

func TestCacheRejectsBadEmbeddings(t *testing.T) {
	f := &fakeEmbedder{dim: 5, bad: "nan"}
	c := openCacheT(t, t.TempDir(), "k", f)
	_, err := c.Embed(t.Context(), []string{"ok", "nan"})
	if err == nil || !strings.Contains(err.Error(), "text 1: embedding value 1 is NaN") {
		t.Errorf("NaN embedding: %v", err)
	}
	embedT(t, c, "ok")
	f.dim = 6
	if _, err := c.Embed(t.Context(), []string{"new"}); err == nil || !strings.Contains(err.Error(), "6 values, the cache holds 5-d") {
		t.Errorf("size change: %v", err)
	}
}

// TestCacheConcurrent shares one file between two Caches (as two processes would) and many
// goroutines; every answer must be right and every text stored.
func TestCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	f := &fakeEmbedder{dim: 5}
	caches := []*Cache{openCacheT(t, dir, "k", f), openCacheT(t, dir, "k", f)}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			c := caches[g%2]
			texts := make([]string, 20)
			for i := range texts {
				texts[i] = fmt.Sprint("text ", (g*7+i)%40)
			}
			got, err := c.Embed(context.Background(), texts)
			if err != nil {
				errs <- err
				return
			}
			for i, text := range texts {
				if !slices.Equal(got[i], fakeVector(text, 5)) {
					errs <- fmt.Errorf("goroutine %d: wrong vector for %q", g, text)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, c := range caches {
		c.Close()
	}
	f.asked()
	c := openCacheT(t, dir, "k", f)
	all := make([]string, 40)
	for i := range all {
		all[i] = fmt.Sprint("text ", i)
	}
	embedT(t, c, all...)
	if got := f.asked(); len(got) != 0 {
		t.Errorf("%d texts missing after concurrent use: %q", len(got), got)
	}
	if s := c.Stats(); s.Corrupt != 0 {
		t.Errorf("concurrent appends left corrupt entries: %+v", s)
	}
}

func TestEmbedPairs(t *testing.T) {
	f := &fakeEmbedder{dim: 5}
	pairs := []TextPair{{U: "a", P: "b", YTop: 1}, {U: "b", P: "c", YLog: 1}, {U: "a", P: "a", YTop: 1, YLog: 1}}
	exs, err := EmbedPairs(t.Context(), f, pairs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if calls := f.calls; len(calls) != 2 || !slices.Equal(calls[0], []string{"a", "b"}) || !slices.Equal(calls[1], []string{"c"}) {
		t.Errorf("embedder calls %q, want [[a b] [c]]", calls)
	}
	if len(exs) != 3 || !slices.Equal(exs[1].P, fakeVector("c", 5)) || exs[1].YLog != 1 || exs[0].YTop != 1 || &exs[0].U[0] != &exs[2].P[0] {
		t.Errorf("examples %+v", exs)
	}
	f.bad = "d"
	if _, err := EmbedPairs(t.Context(), f, []TextPair{{U: "a", P: "d"}}, 0); err == nil || !strings.Contains(err.Error(), "pair example 0: P[1] is NaN") {
		t.Errorf("NaN embedding: %v", err)
	}
}

// FuzzCacheFile opens a cache whose file holds arbitrary bytes: whatever is there, every
// answer must be the embedder's.
func FuzzCacheFile(f *testing.F) {
	dir := f.TempDir()
	fe := &fakeEmbedder{dim: 5}
	c, err := OpenCache(CacheConfig{Dir: dir, Key: "k", Logger: quiet}, fe)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), []string{"a", "b"}); err != nil {
		f.Fatal(err)
	}
	c.Close()
	good, err := os.ReadFile(c.Path())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:60])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		probe, err := OpenCache(CacheConfig{Dir: dir, Key: "k", Logger: quiet}, fe)
		if err != nil {
			t.Fatal(err)
		}
		path := probe.Path()
		probe.Close()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := OpenCache(CacheConfig{Dir: dir, Key: "k", Logger: quiet}, fe)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for range 2 {
			got, err := c.Embed(context.Background(), []string{"a", "b", "c"})
			if err != nil {
				t.Fatal(err)
			}
			for i, text := range []string{"a", "b", "c"} {
				if !slices.Equal(got[i], fakeVector(text, 5)) {
					t.Fatalf("embedding of %q = %v", text, got[i])
				}
			}
		}
	})
}
