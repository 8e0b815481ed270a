package overlay

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/atma-dev/atma/overlay/apikey"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/overlay/store/pgdb"
	"github.com/atma-dev/atma/overlay/store/pgdb/pgtest"
)

func openPostgresBank(t *testing.T, url string) *Bank {
	t.Helper()
	bank, err := OpenPostgresBank(t.Context(), url, pgdb.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := bank.Close(); err != nil {
			t.Errorf("close bank: %v", err)
		}
	})
	return bank
}

// TestPostgresBankIngestOneTransaction is TestBankIngestOneTransaction on a PostgreSQL
// bank: a fault after the record write, after the host write, or a cancel inside the
// transaction leaves nothing of the ingest. It also checks the ingest trace is kept.
func TestPostgresBankIngestOneTransaction(t *testing.T) {
	bank := openPostgresBank(t, pgtest.URL(t))
	testBankIngestOneTransaction(t, bank)
	o, err := New(Config{Store: bank.Store, Host: bank.Host, Embedder: overlaytest.BagEmbedder{}, Traces: bank.Traces})
	if err != nil {
		t.Fatal(err)
	}
	trs, err := o.Add(t.Context(), "v", []Input{{Content: "I live in Berlin."}})
	if err != nil {
		t.Fatal(err)
	}
	if kind, _, err := bank.Traces.Trace(t.Context(), "v", trs[0].ID); err != nil || kind != "ingest" {
		t.Errorf("the ingest trace: %q %v", kind, err)
	}
}

// TestPostgresReplicas runs two overlays on two banks (two pools: two `atma overlay
// serve` replicas) on one database, with concurrent writers of the same users through
// both. Every memory must be kept once, in the bank and in the host memory, the
// invariants must hold, and each replica's searches must see the other's writes — also
// after it cached the user's index, which the generation counter must invalidate.
func TestPostgresReplicas(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	banks := []*Bank{openPostgresBank(t, url), openPostgresBank(t, url)}
	var ovs []*Overlay
	for _, b := range banks {
		o, err := New(Config{Store: b.Store, Host: b.Host, Embedder: overlaytest.BagEmbedder{}, Traces: b.Traces})
		if err != nil {
			t.Fatal(err)
		}
		ovs = append(ovs, o)
	}
	users := []string{"alice", "bob"}
	const writers, rounds = 3, 4 // per replica and user
	// Each replica caches the users' indexes before the writes start.
	for _, b := range banks {
		for _, u := range users {
			if _, err := b.Host.Search(ctx, u, "anything", nil, 5); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(users)*writers*rounds)
	for r, o := range ovs {
		for _, u := range users {
			for w := range writers {
				wg.Go(func() {
					for i := range rounds {
						day := 1 + (i*writers+w)*2 + r
						in := []Input{
							{Content: fmt.Sprintf("I moved to city%d%d%d.", r, w, i), EventTime: at(day)},
							{Content: fmt.Sprintf("My note r%dw%di%d about the garden.", r, w, i), EventTime: at(day)},
						}
						if _, err := o.Add(ctx, u, in); err != nil {
							errs <- fmt.Errorf("replica %d, %s, writer %d: %w", r, u, w, err)
							return
						}
					}
				})
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, u := range users {
		recs, err := allRecords(ctx, banks[0].Store, u)
		if err != nil {
			t.Fatal(err)
		}
		notes := 0
		for _, r := range recs {
			if strings.Contains(r.Content, "about the garden") {
				notes++
			}
		}
		if want := 2 * writers * rounds; notes != want {
			t.Errorf("%s: %d notes in the bank, want %d (lost or doubled writes)", u, notes, want)
		}
		vs, err := store.Check(ctx, banks[1].Store, u)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			t.Errorf("%s: violation %s", u, v)
		}
		for i, b := range banks {
			n, err := b.Host.Len(ctx, u)
			if err != nil || n != len(recs) {
				t.Errorf("%s: replica %d's host holds %d memories (%v), the bank %d records", u, i, n, err, len(recs))
			}
			// A note written through the other replica is found by this one's search,
			// whose index of the user was cached before the writes.
			other := 1 - i
			q := fmt.Sprintf("r%dw0i%d", other, rounds-1)
			hits, err := b.Host.Search(ctx, u, q, nil, 5)
			if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Content, q) {
				t.Errorf("%s: replica %d does not find %q written through replica %d: %v %v", u, i, q, other, hits, err)
			}
		}
	}
}

// TestCopyBank copies an SQLite bank — records with supersessions and transitions, host
// memories, traces, an API key — into PostgreSQL: the counts match, the copy checks
// clean and serves the same records; a target that holds data is refused.
func TestCopyBank(t *testing.T) {
	ctx := t.Context()
	src, err := OpenBank(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	o, err := New(Config{Store: src.Store, Host: src.Host, Embedder: overlaytest.BagEmbedder{}, Traces: src.Traces})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"alice", "bob"} {
		if _, err := o.Add(ctx, u, []Input{{Content: "I live in Berlin.", EventTime: at(1)}, {Content: "I moved to Lisbon last month.", EventTime: at(20)},
			{Content: "My cat is called Miso.", EventTime: at(21)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := src.Keys.Create(ctx, "bot", "acme", nil, []apikey.Scope{apikey.ScopeRead}); err != nil {
		t.Fatal(err)
	}
	dst := openPostgresBank(t, pgtest.URL(t))
	rep, err := CopyBank(ctx, dst, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Per user: three memories and a transition record, which the host holds too.
	want := CopyReport{Users: 2, Records: 8, Links: rep.Links, Memories: 8, Traces: 6, Keys: 1}
	if rep != want || rep.Links == 0 {
		t.Errorf("report %+v, want %+v with links", rep, want)
	}
	for _, u := range []string{"alice", "bob"} {
		a, _ := allRecords(ctx, src.Store, u)
		b, _ := allRecords(ctx, dst.Store, u)
		if diff := cmp.Diff(a, b, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("%s: the copy differs (-sqlite +postgres):\n%s", u, diff)
		}
	}
	if _, err := CopyBank(ctx, dst, src, nil); err == nil || !strings.Contains(err.Error(), "empty database") {
		t.Errorf("a copy into a bank with data: %v", err)
	}
}
