package overlay_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/atma-dev/atma/overlay/store/sqlitedb"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/internal/orttest"
	"github.com/atma-dev/atma/onnx"
	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/host"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry"
	"github.com/atma-dev/atma/sentry/gate"
)

// This file holds what the overlay benchmarks (bench_test.go) share: the use-lite backbone
// and the Sentry heads, realistic memories from package data's generator, and the query
// banks of 1k, 10k and 100k records, built directly and cached on disk.

// benchInteractions is the generator's interaction count per dataset: 60 interactions for
// each of the 50 profiles, so every slot hears several statements after its fact and
// conflicts pile up as they would in a long-lived user's memory.
const benchInteractions = 3000

// benchBase is the event time of a dataset's first memory; memories follow one minute apart.
var benchBase = time.Date(2024, 1, 1, 8, 0, 0, 0, time.UTC)

// benchEnv is the backbone and the gate the benchmarks share. Its encoders live as long as
// the test process: ONNX Runtime sessions are expensive to create and the benchmarks of one
// run all use them.
type benchEnv struct {
	cache string
	m     *onnx.Manifest
	// enc has the product's defaults (batches of 32 texts); bulk runs batches of 128 and
	// only builds the query banks.
	enc, bulk  *onnx.Encoder
	heads      *gate.Heads
	thresholds gate.Thresholds
	// gate says which heads were loaded, for the benchmark log.
	gate string
}

var (
	benchEnvOnce sync.Once
	benchEnvVal  *benchEnv
	benchEnvErr  error
)

// loadBenchEnv loads the use-lite backbone and the gate once per process, or fails b
// with the command that installs what is missing.
func loadBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	orttest.Require(b)
	benchEnvOnce.Do(func() {
		benchEnvVal, benchEnvErr = newBenchEnv(context.Background(), orttest.CacheDir())
		if benchEnvErr == nil {
			b.Logf("backbone %s (model sha256 %.12s…), gate: %s", benchEnvVal.m.ID, benchEnvVal.enc.ModelSHA256(), benchEnvVal.gate)
		}
	})
	if benchEnvErr != nil {
		b.Fatal(benchEnvErr)
	}
	return benchEnvVal
}

func newBenchEnv(ctx context.Context, cache string) (*benchEnv, error) {
	m, err := onnx.LoadManifest(filepath.Join(cache, "backbones", "use-lite", "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("the use-lite backbone is not installed (%w); run: make models", err)
	}
	env := &benchEnv{cache: cache, m: m}
	// As `atma overlay` runs it (internal/cli openOverlay): one ONNX Runtime thread a run,
	// not spinning, since Add embeds beside its commits.
	sc := onnx.SessionConfig{IntraOpThreads: 1, NoSpin: true}
	if env.enc, err = onnx.NewEncoder(ctx, m, onnx.EncoderConfig{Session: sc}); err != nil {
		return nil, fmt.Errorf("load the use-lite backbone (%w); run: make models", err)
	}
	if env.bulk, err = onnx.NewEncoder(ctx, m, onnx.EncoderConfig{BatchSize: 128}); err != nil {
		return nil, fmt.Errorf("load the use-lite backbone: %w", err)
	}
	// The default gate when `make models` left it in the model cache; else
	// random projection heads, which cost the same to run, so throughput does not change —
	// only which pairs get routed does.
	ck := filepath.Join(cache, "models", "sentry", "use-lite", sentry.BestFile)
	if _, err := os.Stat(ck); err == nil {
		c, err := gate.LoadCheckpoint(ck, gate.Backbone{ID: m.ID, SHA256: env.enc.ModelSHA256(), Dim: env.enc.Dimension()})
		if err != nil {
			return nil, fmt.Errorf("%w; run `make models` to retrain it, or remove %s to benchmark random heads", err, filepath.Dir(ck))
		}
		env.heads, env.thresholds = c.Heads, c.Meta.Thresholds
		env.gate = fmt.Sprintf("trained checkpoint %s (thresholds %+v)", ck, c.Meta.Thresholds)
	} else {
		env.heads = gate.NewHeads(env.enc.Dimension(), 512, 256, rand.New(rand.NewPCG(1, 2)))
		env.thresholds = gate.DefaultThresholds()
		env.gate = fmt.Sprintf("random projection heads 512→512→256 (no checkpoint at %s), default thresholds", ck)
	}
	return env, nil
}

// genMemory is one memory of a generated profile.
type genMemory struct {
	text     string
	slot     string // the profile's slot key it is about
	category data.Category
	fact     bool // a profile fact (else a later interaction)
	conflict bool // an interaction that contradicts the slot's fact
}

// genProfile is one profile's memories in the order a user would say them: the facts,
// then the interactions about them in the generator's order.
type genProfile struct {
	id   string
	mems []genMemory
}

// generateProfiles draws one dataset of 50 profiles × 70 memories.
func generateProfiles(seed uint64) ([]genProfile, error) {
	d, err := data.Generate(data.GenConfig{Seed: seed, Interactions: benchInteractions})
	if err != nil {
		return nil, err
	}
	out := make([]genProfile, len(d.Profiles))
	at := make(map[string]int, len(d.Profiles))
	for i, p := range d.Profiles {
		at[p.ID] = i
		out[i].id = p.ID
		for _, f := range p.Facts {
			out[i].mems = append(out[i].mems, genMemory{text: f.Text, slot: f.SlotKey, category: f.Category, fact: true})
		}
	}
	for _, in := range d.Interactions {
		i := at[in.ProfileID]
		f, ok := d.Profiles[i].Fact(in.SlotKey)
		if !ok {
			return nil, fmt.Errorf("interaction %s: profile %s has no slot %s", in.ID, in.ProfileID, in.SlotKey)
		}
		out[i].mems = append(out[i].mems, genMemory{text: in.Text, slot: in.SlotKey, category: f.Category, conflict: in.Conflicting()})
	}
	return out, nil
}

// memoryStream hands out realistic memories for ingest: each generated profile is one
// user (named by seed and profile), its facts first and then its interactions, one
// minute apart. When a dataset runs out the next seed's begins, so the stream never ends.
type memoryStream struct {
	base     time.Time // the event time of each profile's first memory
	seed     uint64
	profiles []genProfile
	p, i     int // the current profile and its next memory
	users    int // users handed memories so far
}

func newMemoryStream(seed uint64, base time.Time) *memoryStream {
	return &memoryStream{base: base, seed: seed - 1}
}

// next returns up to n memories of one user; fewer when that user's memories run out.
func (s *memoryStream) next(n int) (string, []overlay.Input, error) {
	if s.p >= len(s.profiles) {
		s.seed++
		ps, err := generateProfiles(s.seed)
		if err != nil {
			return "", nil, err
		}
		s.profiles, s.p, s.i = ps, 0, 0
	}
	p := s.profiles[s.p]
	if s.i == 0 {
		s.users++
	}
	user := fmt.Sprintf("s%d-%s", s.seed, p.id)
	end := min(s.i+n, len(p.mems))
	ins := make([]overlay.Input, 0, end-s.i)
	for j := s.i; j < end; j++ {
		ins = append(ins, overlay.Input{Content: p.mems[j].text, EventTime: s.base.Add(time.Duration(j) * time.Minute), Source: "bench"})
	}
	s.i = end
	if s.i == len(p.mems) {
		s.p, s.i = s.p+1, 0
	}
	return user, ins, nil
}

// --- query banks ---

// benchBankVersion changes with the bank builder, so banks cached by an older builder are
// built again.
const benchBankVersion = 1

// benchUser is the one user of a query bank: one user holding every record is the worst
// case for a query, whose dense search and BM25 cover that user's records.
const benchUser = "bench"

// bankStats describes a built bank (bank.json next to the database).
type bankStats struct {
	Records     int    `json:"records"`
	Memories    int    `json:"memories"`
	Transitions int    `json:"transitions"`
	Supersedes  int    `json:"supersedes"`
	Exceptions  int    `json:"scoped_exceptions"`
	Coexists    int    `json:"coexists"`
	Datasets    int    `json:"datasets"`
	Gate        string `json:"gate"`
	BuildTime   string `json:"build_time"`
	FileBytes   int64  `json:"file_bytes"`
}

// benchBank returns the data directory of a query bank of size records of one user,
// built from the generator's datasets seed, seed+1, …. Banks are cached under
// $ATMA_CACHE/bench/ (else ~/.cache/atma/bench/), one directory per size, seed, backbone
// and builder version (benchBankVersion), with bank.json saying what it holds. The first
// run builds a bank — half a minute for 10k records, about twenty minutes for 100k on a
// busy two-core machine — and later runs open it; delete the directory to rebuild. A
// bank is built in a temporary directory and renamed into place when complete, so an
// interrupted build leaves nothing that a later run would use. Queries do not write to
// it (the benchmark keeps no traces); Ingest/Batch32OnMed writes to a copy.
func benchBank(b *testing.B, env *benchEnv, size int, seed uint64) (string, bankStats) {
	b.Helper()
	name := fmt.Sprintf("overlay-query-%d-seed%d-%.12s-v%d", size, seed, env.enc.ModelSHA256(), benchBankVersion)
	dir := filepath.Join(env.cache, "bench", name)
	read := func() (bankStats, error) {
		var st bankStats
		raw, err := os.ReadFile(filepath.Join(dir, "bank.json"))
		if err == nil {
			err = json.Unmarshal(raw, &st)
		}
		return st, err
	}
	if st, err := read(); err == nil {
		return dir, st
	}
	b.Logf("building the %d-record query bank in %s (cached for later runs)", size, dir)
	tmp := fmt.Sprintf("%s.tmp-%d", dir, os.Getpid())
	if err := os.RemoveAll(tmp); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	st, err := buildBank(context.Background(), env, tmp, size, seed)
	if err != nil {
		os.RemoveAll(tmp)
		b.Fatalf("build the query bank: %v", err)
	}
	st.BuildTime = time.Since(start).Round(time.Second).String()
	raw, err := json.MarshalIndent(st, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, "bank.json"), raw, 0o600)
	}
	if err == nil {
		// Another process may have finished the same bank first; either copy will do.
		if err = os.Rename(tmp, dir); err != nil && dirExists(dir) {
			err = os.RemoveAll(tmp)
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("built %d records (%d transitions, %d supersessions, %d scoped exceptions, %d coexist links) in %s",
		st.Records, st.Transitions, st.Supersedes, st.Exceptions, st.Coexists, st.BuildTime)
	return dir, st
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// bankChunk is how many memories one build transaction writes.
const bankChunk = 1000

// linkOp is what the builder does with a memory, as the commit path would with the rule
// auditor's verdict on it and the slot's current record.
type linkOp int

const (
	opNone       linkOp = iota
	opTransition        // job, location: the old state superseded, a transition record between
	opSupersede         // pets, relationship, numbers: the old state superseded
	opException         // hobbies, likes: a scoped exception to the rule
	opCoexist           // a consistent restatement coexists with the current record
)

// planned is one memory of a build chunk with what to link it to.
type planned struct {
	rec  store.Record
	op   linkOp
	head string // the slot's current record
	slot string // the bank-wide slot name
}

// buildBank writes a bank of exactly size records for benchUser in dir: the memories of
// generated profiles, seeds seed, seed+1, … (every profile's slots are its own, named by
// seed and profile), with their backbone vectors and projections, in the host memory
// too; conflicts linked the way the commit path links them (transitions with their
// records, supersessions, scoped exceptions) and consistent restatements linked as
// coexisting. It bypasses the gate and the Judge, which is what makes 100k records
// affordable.
func buildBank(ctx context.Context, env *benchEnv, dir string, size int, seed uint64) (bankStats, error) {
	bank, err := overlay.OpenBank(ctx, dir)
	if err != nil {
		return bankStats{}, err
	}
	st := bankStats{Gate: env.gate}
	heads := map[string]string{} // bank-wide slot → its current record
	var chunk []planned
	records, n := 0, 0 // records planned; memories in all
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		err := writeChunk(ctx, env, bank, chunk, &st)
		chunk = chunk[:0]
		return err
	}
	for ds := seed; records < size; ds++ {
		profiles, err := generateProfiles(ds)
		if err != nil {
			return st, errors.Join(err, bank.Close())
		}
		st.Datasets++
		for _, p := range profiles {
			for _, m := range p.mems {
				if records == size {
					break
				}
				t := benchBase.Add(time.Duration(n) * time.Minute)
				n++
				slot := fmt.Sprintf("s%d.%s.%s", ds, p.id, m.slot)
				pl := planned{slot: slot, head: heads[slot], rec: store.Record{
					ID: store.NewID(t), Content: m.text, EventTime: t, Status: store.StatusActive, Confidence: 1,
					Source: fmt.Sprintf("s%d/%s", ds, p.id),
				}}
				switch {
				case m.fact:
				case !m.conflict:
					pl.op = opCoexist
				case m.category == data.CategoryJob || m.category == data.CategoryLocation:
					pl.op = opTransition
				case m.category == data.CategoryHobbies || m.category == data.CategoryLikes:
					pl.op = opException
				default:
					pl.op = opSupersede
				}
				if pl.op == opTransition && records+2 > size {
					pl.op = opSupersede // no room left for the transition record
				}
				records++
				if pl.op == opTransition {
					records++
				}
				if m.fact || pl.op == opTransition || pl.op == opSupersede {
					heads[slot] = pl.rec.ID
				}
				chunk = append(chunk, pl)
				if len(chunk) == bankChunk {
					if err := flush(); err != nil {
						return st, errors.Join(err, bank.Close())
					}
				}
			}
		}
	}
	if err := flush(); err != nil {
		return st, errors.Join(err, bank.Close())
	}
	if st.FileBytes, err = sqlitedb.DiskSize(ctx, bank.DB, filepath.Join(dir, overlay.DBFile)); err != nil {
		return st, errors.Join(err, bank.Close())
	}
	if err := bank.DB.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE user = ?`, benchUser).Scan(&st.Records); err != nil {
		return st, errors.Join(err, bank.Close())
	}
	if err := bank.Close(); err != nil {
		return st, err
	}
	if st.Records != size {
		return st, fmt.Errorf("built %d records, want %d", st.Records, size)
	}
	return st, nil
}

// writeChunk embeds and projects a chunk of memories and commits them, with their links,
// in one store transaction and one host batch.
func writeChunk(ctx context.Context, env *benchEnv, bank *overlay.Bank, chunk []planned, st *bankStats) error {
	texts := make([]string, len(chunk))
	for i, pl := range chunk {
		texts[i] = pl.rec.Content
	}
	vecs, err := env.bulk.Embed(ctx, texts)
	if err != nil {
		return err
	}
	projs := env.heads.ProjectAll(vecs)
	mems := make([]host.Memory, 0, len(chunk)+len(chunk)/4)
	err = bank.Store.Tx(ctx, benchUser, func(tx store.Tx) error {
		for i := range chunk {
			pl := &chunk[i]
			pl.rec.Embeddings = store.Embeddings{Backbone: vecs[i], Topic: projs[i].Top, Logic: projs[i].Log}
			if err := tx.Put(ctx, pl.rec); err != nil {
				return err
			}
			mems = append(mems, host.Memory{ID: pl.rec.ID, Content: pl.rec.Content, Vector: vecs[i], Time: pl.rec.EventTime})
			st.Memories++
			switch pl.op {
			case opCoexist:
				st.Coexists++
				if err := tx.Link(ctx, pl.rec.ID, store.LinkCoexistsWith, pl.head); err != nil {
					return err
				}
			case opException:
				st.Exceptions++
				if err := tx.Link(ctx, pl.rec.ID, store.LinkScopedException, pl.head); err != nil {
					return err
				}
			case opSupersede, opTransition:
				t, err := supersede(ctx, tx, pl)
				if err != nil {
					return err
				}
				st.Supersedes++
				if t != nil {
					st.Transitions++
					mems = append(mems, host.Memory{ID: t.ID, Content: t.Content, Time: t.EventTime})
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bank.Host.AddBatch(ctx, benchUser, mems)
}

// supersede makes pl's record the slot's current version, as the commit path does for a
// supersede or transition verdict: both records single-valued in one slot, the old one
// superseded, and for a transition a transition record evolving from the old state to
// the new one (returned).
func supersede(ctx context.Context, tx store.Tx, pl *planned) (*store.Record, error) {
	old, err := tx.Get(ctx, pl.head)
	if err != nil {
		return nil, err
	}
	nw, err := tx.Get(ctx, pl.rec.ID)
	if err != nil {
		return nil, err
	}
	for _, r := range []store.Record{old, nw} {
		if r.Slot != pl.slot || !r.SingleValued {
			r.Slot, r.SingleValued = pl.slot, true
			if err := tx.Put(ctx, r); err != nil {
				return nil, err
			}
		}
	}
	if err := store.Reconcile(ctx, tx, pl.slot); err != nil {
		return nil, err
	}
	if pl.op != opTransition {
		return nil, nil
	}
	t := store.Record{
		ID: store.NewID(nw.EventTime), Content: fmt.Sprintf("changed from %q to %q", old.Content, nw.Content),
		EventTime: nw.EventTime, Status: store.StatusTransition, Confidence: 0.9, Source: "overlay",
		Meta: map[string]string{"from": old.ID, "to": nw.ID},
	}
	if err := tx.Put(ctx, t); err != nil {
		return nil, err
	}
	if err := store.Evolve(ctx, tx, old.ID, t.ID, nw.ID); err != nil {
		return nil, err
	}
	return &t, nil
}

// copyBank copies the database of the bank in dir into a new data directory to.
func copyBank(dir, to string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	for _, suffix := range []string{"", "-wal"} {
		src, err := os.Open(filepath.Join(dir, overlay.DBFile+suffix))
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			return err
		}
		dst, err := os.Create(filepath.Join(to, overlay.DBFile+suffix))
		if err == nil {
			_, err = io.Copy(dst, src)
			err = errors.Join(err, dst.Close())
		}
		if err := errors.Join(err, src.Close()); err != nil {
			return err
		}
	}
	return nil
}

// tableSizes lists the n largest tables and indexes of db with their bytes on disk
// (SQLite's dbstat), to say where a bank's bytes go.
func tableSizes(ctx context.Context, db *sql.DB, n int) (string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT ?`, n)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%s %.1f MB", name, float64(size)/1e6))
	}
	return strings.Join(parts, ", "), rows.Err()
}

// benchQueries draws n questions about the bank's first dataset: general ones for each
// kind of state (current, past, change) and ones naming a profile's own values, so BM25
// finds them and relation hops lead from stale seeds to current states.
func benchQueries(seed uint64, n int) ([]string, error) {
	d, err := data.Generate(data.GenConfig{Seed: seed, Interactions: benchInteractions})
	if err != nil {
		return nil, err
	}
	general := []string{
		"Where do I live now?", "Where did I live before?", "How has where I live changed?",
		"What is my job?", "What did I do for work before?", "How has my job changed over time?",
		"Am I seeing anyone at the moment?", "Who was my partner before?", "What pets do I have?",
		"What hobbies do I have these days?", "What do I like to drink?", "Do I eat meat?",
		"How long is my commute?", "How many siblings do I have?",
	}
	byCategory := map[data.Category][]string{
		data.CategoryJob:          {"Am I still working as a %s?", "When did I stop being a %s?"},
		data.CategoryLocation:     {"Do I still live in %s?", "When did I move away from %s?"},
		data.CategoryRelationship: {"Am I still with %s?", "What happened with %s?"},
		data.CategoryPets:         {"Do I still have %s?", "What happened to %s?"},
		data.CategoryHobbies:      {"How often do I do %s now?", "Do I still enjoy %s?"},
		data.CategoryLikes:        {"Is this still true of me: %s?", "Have I changed my mind on this: %s?"},
		data.CategoryNumerical:    {"Is it still %s?", "How has %s changed?"},
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	qs := slices.Clone(general)
	for len(qs) < n {
		p := d.Profiles[rng.IntN(len(d.Profiles))]
		f := p.Facts[rng.IntN(len(p.Facts))]
		tpl := byCategory[f.Category]
		qs = append(qs, fmt.Sprintf(tpl[rng.IntN(len(tpl))], strings.TrimSpace(f.Value)))
	}
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs[:n], nil
}
