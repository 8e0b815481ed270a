package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
)

func TestScoreProbe(t *testing.T) {
	u := Unit{ID: "u", Cue1: "c1", Cue2: "c2"}
	fact := Probe{Kind: ProbeFact, Target: StateOld, Gold: "Denver", Other: "Portland"}
	conflict := Probe{Kind: ProbeConflict, Target: StateCurrent, Gold: "Portland", Other: "Denver"}
	row := func(label retrieval.Label, content string) retrieval.Row {
		return retrieval.Row{Label: label, Content: content}
	}
	tests := []struct {
		name      string
		p         Probe
		marked    bool
		ids       []string
		trans     [][2]string
		rows      []retrieval.Row
		support   bool
		first     bool
		leak      bool
		intrusion bool
	}{
		{"current first", conflict, true, []string{"x", "c2", "c1"}, nil,
			[]retrieval.Row{row(retrieval.LabelRetrieved, "x"), row(retrieval.LabelCurrent, "moved"), row(retrieval.LabelHistorical, "lived")},
			true, true, false, false},
		{"old ranked above current", conflict, false, []string{"c1", "c2"}, nil,
			[]retrieval.Row{row(retrieval.LabelRetrieved, "lived"), row(retrieval.LabelRetrieved, "moved")},
			true, false, true, false},
		{"old labelled current below the current one", conflict, true, []string{"c2", "c1"}, nil,
			[]retrieval.Row{row(retrieval.LabelCurrent, "moved"), row(retrieval.LabelCurrent, "lived")},
			true, true, true, false},
		{"old alone", conflict, true, []string{"c1", "x"}, nil,
			[]retrieval.Row{row(retrieval.LabelHistorical, "lived"), row(retrieval.LabelRetrieved, "x")},
			false, false, true, false},
		{"nothing of the unit", conflict, true, []string{"x", "y"}, nil,
			[]retrieval.Row{row(retrieval.LabelRetrieved, "x"), row(retrieval.LabelRetrieved, "y")},
			false, false, false, false},
		{"future intrusion", fact, false, []string{"c2", "c1"}, nil,
			[]retrieval.Row{row(retrieval.LabelRetrieved, "moved"), row(retrieval.LabelRetrieved, "lived")},
			true, false, false, true},
		{"old first for history", fact, true, []string{"c1", "c2"}, nil,
			[]retrieval.Row{row(retrieval.LabelHistorical, "lived"), row(retrieval.LabelCurrent, "moved")},
			true, true, false, false},
		{"transition record supports", fact, true, []string{"", "c2"}, [][2]string{{"c1", "c2"}, {}},
			[]retrieval.Row{row(retrieval.LabelTransition, "home: Denver -> Portland"), row(retrieval.LabelCurrent, "moved")},
			true, false, false, true},
		{"another unit's transition does not", fact, true, []string{""}, [][2]string{{"c7", "c8"}},
			[]retrieval.Row{row(retrieval.LabelTransition, "home: Denver -> Austin")},
			false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trans := tt.trans
			if trans == nil {
				trans = make([][2]string, len(tt.ids))
			}
			out := queryOutput{Packet: packetOf(tt.marked, tt.rows...), MemIDs: tt.ids, Transition: trans}
			tr := scoreProbe(tt.p, u, out, map[string]bool{"c1": true, "c2": true})
			if tr.Support != tt.support || tr.StateFirst != tt.first || tr.StaleLeakage != tt.leak || tr.FutureIntrusion != tt.intrusion {
				t.Fatalf("support %v first %v leak %v intrusion %v; want %v %v %v %v",
					tr.Support, tr.StateFirst, tr.StaleLeakage, tr.FutureIntrusion, tt.support, tt.first, tt.leak, tt.intrusion)
			}
			if len(tr.Rows) != len(tt.rows) {
				t.Fatalf("%d trace rows", len(tr.Rows))
			}
		})
	}
}

// fakeMemory serves records for bankRole.
type fakeMemory struct{ recs map[string]store.Record }

func (f fakeMemory) ingest(context.Context, string, []memoryInput) (ingestCost, error) {
	return ingestCost{}, nil
}
func (f fakeMemory) query(context.Context, string, queryInput) (queryOutput, error) {
	return queryOutput{}, nil
}
func (f fakeMemory) record(_ context.Context, _, id string) (store.Record, bool, error) {
	r, ok := f.recs[id]
	return r, ok, nil
}

func TestBankRole(t *testing.T) {
	u := Unit{Profile: "p", Cue1: "c1", Cue2: "c2"}
	link := func(tp store.LinkType, to string) []store.Link { return []store.Link{{Type: tp, To: to}} }
	tests := []struct {
		name          string
		c1, c2        store.Record
		missing       bool
		coexist, role bool
	}{
		{"superseded by cue2", store.Record{Status: store.StatusSuperseded, Links: link(store.LinkSupersededBy, "c2")}, store.Record{Status: store.StatusActive}, false, true, true},
		{"one slot's versions", store.Record{Status: store.StatusSuperseded, Slot: "s"}, store.Record{Status: store.StatusActive, Slot: "s"}, false, true, true},
		{"scoped exception", store.Record{Status: store.StatusActive, Links: link(store.LinkScopedException, "c2")}, store.Record{Status: store.StatusActive}, false, true, true},
		{"superseded by another record", store.Record{Status: store.StatusSuperseded, Links: link(store.LinkSupersededBy, "x"), Slot: "s"}, store.Record{Status: store.StatusActive, Slot: "t"}, false, true, false},
		{"current superseded too", store.Record{Status: store.StatusSuperseded, Links: link(store.LinkSupersededBy, "c2")}, store.Record{Status: store.StatusSuperseded}, false, true, false},
		{"no statuses (time order only)", store.Record{}, store.Record{}, false, true, false},
		{"cue2 missing", store.Record{}, store.Record{}, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fakeMemory{recs: map[string]store.Record{"c1": tt.c1}}
			if !tt.missing {
				m.recs["c2"] = tt.c2
			}
			co, role, err := bankRole(t.Context(), m, u)
			if err != nil {
				t.Fatal(err)
			}
			if co != tt.coexist || role != tt.role {
				t.Fatalf("coexist %v role %v, want %v %v", co, role, tt.coexist, tt.role)
			}
		})
	}
}

func TestParseAblations(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"labels-off, gate-off", []string{"gate-off", "labels-off"}, true},
		{"all", Ablations(), true},
		{"gate-off,nope", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			vs, err := ParseAblations(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err %v", err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRateJSON(t *testing.T) {
	var r Rate
	r.Add(true)
	r.Add(false)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"hits":1,"n":2,"rate":0.5}` {
		t.Fatalf("got %s", b)
	}
	var back Rate
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatalf("round trip %+v, %v", back, err)
	}
	if b, _ := json.Marshal(Rate{}); string(b) != `{"hits":0,"n":0,"rate":null}` {
		t.Fatalf("empty rate %s", b)
	}
	if empty := (Rate{}); !math.IsNaN(empty.Value()) || empty.String() != "n/a" {
		t.Fatal("an empty rate is not n/a")
	}
}

// traceLines decodes the lines of a JSONL trace that have a field named field, as T.
func traceLines[T any](t *testing.T, b []byte, field string) []T {
	t.Helper()
	var out []T
	for line := range bytes.Lines(b) {
		if !bytes.Contains(line, []byte(`"`+field+`":`)) {
			continue
		}
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func countLines(t *testing.T, b []byte) int {
	t.Helper()
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("trace line %d: %v", n+1, err)
		}
		n++
	}
	return n
}

func TestRunLTPWithoutLLM(t *testing.T) {
	l, err := BuildLTP(loadFixture(t), LTPConfig{Profiles: 2, Units: 14})
	if err != nil {
		t.Fatal(err)
	}
	abl, err := ParseAblations("all")
	if err != nil {
		t.Fatal(err)
	}
	emb := &hashEmbedder{}
	var traces bytes.Buffer
	rep, err := RunLTP(t.Context(), l, Env{Logger: discard, Embedder: emb}, abl, &traces)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := rep.Result(HostOnly.Name)
	ov, _ := rep.Result(Overlay.Name)
	if host.Bank.Coexist.Value() != 1 || host.Bank.Role.Hits != 0 || host.Bank.Role.N != 28 {
		t.Errorf("host-only bank %+v", host.Bank)
	}
	if ov.Bank.Coexist.Value() != 1 || ov.Bank.Role.Hits == 0 {
		t.Errorf("the overlay credited no unit with a role: %+v", ov.Bank)
	}
	if ov.Bank.Commits != ov.Bank.UnitCommits+ov.Bank.CueCollateral+ov.Bank.TurnCommits || ov.Bank.UnitCommits == 0 {
		t.Errorf("commits do not add up: %+v", ov.Bank)
	}
	if host.QA != nil || ov.QA != nil {
		t.Error("QA metrics without an LLM")
	}
	if p := ov.Packet; p.Support.N != 56 || p.StaleLeakage.N != 28 || p.FutureIntrusion.N != 28 || p.StateFirstConflict.N+p.StateFirstFact.N != 56 {
		t.Errorf("packet counts %+v", p)
	}
	// The same bank queried without labels gives the same rows; only labels-based
	// leakage can differ.
	lo, _ := rep.Result(AblationLabelsOff)
	if lo.Packet.Support != ov.Packet.Support || lo.Packet.StateFirst != ov.Packet.StateFirst || lo.Bank != ov.Bank {
		t.Errorf("labels-off changed the rows: %+v vs %+v", lo.Packet, ov.Packet)
	}
	jo, _ := rep.Result(AblationJudgeOff)
	if jo.Bank.Role.Hits != 0 || jo.Bank.Commits != 0 || jo.Cost.Routed == 0 {
		t.Errorf("judge-off committed or routed nothing: %+v %+v", jo.Bank, jo.Cost)
	}
	if g, _ := rep.Result(AblationGateOff); g.Cost.RoutedShare != 1 {
		t.Errorf("gate-off routed share %v, want 1", g.Cost.RoutedShare)
	}
	for _, name := range []string{AblationControllerShadow, AblationControllerOnline} {
		if r, _ := rep.Result(name); r.Skipped == "" {
			t.Errorf("%s ran without an endpoint", name)
		}
	}
	ran := 0
	for _, r := range rep.Results {
		if r.Skipped == "" {
			ran++
		}
	}
	// One line a probe and variant, and one a unit for each overlay replay.
	uts := traceLines[LTPUnitTrace](t, traces.Bytes(), "cues")
	for _, ut := range uts {
		if len(ut.Cues) != 2 || ut.Unit == "" || ut.Cues[0].Text == "" || ut.Cues[1].Status == "" {
			t.Errorf("unit trace %+v", ut)
		}
	}
	units := len(uts)
	// And one a collateral commit of each overlay replay, with both memories: as many as
	// the replay with the most counted at least, and no more than all counted.
	cts := traceLines[LTPCommitTrace](t, traces.Bytes(), "class")
	for _, ct := range cts {
		if ct.Kind != "commit" || ct.Class != "cue" && ct.Class != "turn" || ct.Old.Memory == "" || ct.New.Text == "" {
			t.Errorf("commit trace %+v", ct)
		}
	}
	most, all := 0, 0
	for _, r := range rep.Results {
		c := r.Bank.CueCollateral + r.Bank.TurnCommits
		most, all = max(most, c), all+c
	}
	if len(cts) < most || len(cts) > all {
		t.Errorf("%d commit trace lines, want between %d and %d", len(cts), most, all)
	}
	if n := countLines(t, traces.Bytes()); n != ran*len(l.Probes)+units+len(cts) || units == 0 || units%len(l.Units) != 0 {
		t.Errorf("%d trace lines with %d unit and %d commit lines, want %d probe lines and whole replays of %d units", n, units, len(cts), ran*len(l.Probes), len(l.Units))
	}
	// Each text was embedded once although five replays and three bank variants read it.
	if distinct := rep.Events + len(l.Probes); emb.texts > distinct {
		t.Errorf("embedded %d texts for %d distinct ones", emb.texts, distinct)
	}
	var md bytes.Buffer
	WriteLTPTables(&md, rep)
	for _, want := range []string{"| host-only | 1.000 | 0.000 |", "Table 2 layout", "Ablations (Table 5 layout", "| gate-off |", "skipped: needs an LLM endpoint"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("tables lack %q:\n%s", want, md.String())
		}
	}
	png := filepath.Join(t.TempDir(), "ltp.png")
	if err := PlotLTP(png, rep); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(png); err != nil || st.Size() < 1000 {
		t.Fatalf("chart %v %v", st, err)
	}
}

func TestRunLTPWithLLM(t *testing.T) {
	l, err := BuildLTP(loadFixture(t), LTPConfig{Profiles: 1, Units: 7})
	if err != nil {
		t.Fatal(err)
	}
	fake := &echoLLM{}
	var traces bytes.Buffer
	rep, err := RunLTP(t.Context(), l, Env{Logger: discard, Embedder: &hashEmbedder{}, LLM: fake}, nil, &traces)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.QA == nil || r.QA.Accuracy.N != len(l.Probes) || r.QA.Judge.N != len(l.Probes) {
			t.Fatalf("%s: QA %+v", r.Variant.Name, r.QA)
		}
		if r.QA.Conflict.N+r.QA.Fact.N != r.QA.Accuracy.N {
			t.Errorf("%s: splits do not add up", r.Variant.Name)
		}
	}
	// The fake answers with the packet's first row: accuracy is the share of first rows
	// that hold the gold value.
	sc := bufio.NewScanner(&traces)
	sc.Buffer(nil, 1<<22)
	want := map[string]int{}
	for sc.Scan() {
		var tr ProbeTrace
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatal(err)
		}
		if len(tr.Rows) > 0 && holdsKey(tr.Rows[0].Content, tr.Gold) {
			want[tr.Variant]++
		}
	}
	for _, r := range rep.Results {
		if r.QA.Accuracy.Hits != want[r.Variant.Name] {
			t.Errorf("%s: accuracy hits %d, first rows with the gold %d", r.Variant.Name, r.QA.Accuracy.Hits, want[r.Variant.Name])
		}
	}
	if fake.answers != 2*len(l.Probes) || fake.grades != 2*len(l.Probes) {
		t.Errorf("%d answers and %d grades for %d probes × 2 systems", fake.answers, fake.grades, len(l.Probes))
	}
}

func TestRunLoCoMo(t *testing.T) {
	convs, probs, err := LoadLoCoMo("testdata/locomo_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	fake := &echoLLM{}
	var traces bytes.Buffer
	rep, err := RunLoCoMo(t.Context(), convs, probs, Env{Logger: discard, Embedder: &hashEmbedder{}, LLM: fake, TopK: 3}, &traces)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 18 || rep.Turns != 72 || len(rep.Problems) != 4 || len(rep.Results) != 2 {
		t.Fatalf("report %d questions, %d turns, %d problems, %d results", rep.Questions, rep.Turns, len(rep.Problems), len(rep.Results))
	}
	for _, r := range rep.Results {
		all := r.Categories[len(r.Categories)-1]
		if all.Name != "all" || all.Questions != 18 || all.NoEvidence != 3 || all.EvidenceHit.N != 15 {
			t.Errorf("%s all: %+v", r.Variant.Name, all)
		}
		if all.EvidenceHit.Hits == 0 {
			t.Errorf("%s: no evidence hit at all with a bag-of-words embedder", r.Variant.Name)
		}
		sum := 0
		for _, c := range r.Categories[:len(r.Categories)-1] {
			sum += c.Questions
		}
		if sum != all.Questions {
			t.Errorf("%s: categories hold %d questions, all %d", r.Variant.Name, sum, all.Questions)
		}
		adv := r.Categories[CategoryAdversarial-1]
		if adv.F1.N != 3 || adv.BLEU1.N != 0 {
			t.Errorf("%s adversarial: %+v", r.Variant.Name, adv)
		}
	}
	// One line a question and variant, then one a commit the overlay made.
	cs := traceLines[LoCoMoCommit](t, traces.Bytes(), "commit")
	for _, c := range cs {
		if c.Variant != Overlay.Name || c.Old == "" || c.New == "" || c.OldText == "" || c.NewText == "" {
			t.Errorf("commit trace %+v", c)
		}
	}
	commits := len(cs)
	ov := rep.Results[1]
	if n := countLines(t, traces.Bytes()); n != 36+commits || commits != ov.Commits {
		t.Errorf("%d trace lines with %d commits (the report says %d), want 36 questions and the commits", n, commits, ov.Commits)
	}
	var md bytes.Buffer
	WriteLoCoMoTables(&md, rep)
	if !strings.Contains(md.String(), "| adversarial |") || !strings.Contains(md.String(), "host+overlay hit") {
		t.Errorf("tables:\n%s", md.String())
	}
}

func TestGenerateTEM(t *testing.T) {
	a, err := GenerateTEM(TEMConfig{Personas: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateTEM(TEMConfig{Personas: 3, Seed: 1})
	if !bytesEqualJSON(t, a, b) {
		t.Fatal("same config, different benchmark")
	}
	if len(a.Questions) != 3*3*4 {
		t.Fatalf("%d questions", len(a.Questions))
	}
	for _, p := range a.Personas {
		for attr, ids := range p.StateEvents {
			if len(ids) != DefaultTEMMoves+1 || len(p.States[attr]) != len(ids) {
				t.Fatalf("%s %s: %d statements for %d states", p.ID, attr, len(ids), len(p.States[attr]))
			}
			for i := 1; i < len(ids); i++ {
				if ids[i] <= ids[i-1] {
					t.Fatalf("%s %s: statements out of order %v", p.ID, attr, ids)
				}
			}
		}
	}
	for _, q := range a.Questions {
		var p Persona
		for _, x := range a.Personas {
			if x.ID == q.Persona {
				p = x
			}
		}
		states := p.States[q.Attribute]
		if states[q.State] != q.Answer || containsPhrase(q.Question, q.Answer) {
			t.Fatalf("question %s: answer %q, states %v", q.Question, q.Answer, states)
		}
		if q.Type == TEMCurrent && q.State != len(states)-1 || q.Type == TEMBeforeLatest && q.State != len(states)-2 {
			t.Fatalf("question %s asks state %d of %d", q.ID, q.State, len(states))
		}
	}
	if _, err := GenerateTEM(TEMConfig{Moves: 1}); err == nil {
		t.Fatal("one move was accepted")
	}
}

func bytesEqualJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return bytes.Equal(x, y)
}

func TestRunTEM(t *testing.T) {
	tm, err := GenerateTEM(TEMConfig{Personas: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var traces bytes.Buffer
	rep, err := RunTEM(t.Context(), tm, Env{Logger: discard, Embedder: &hashEmbedder{}}, &traces)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Conditions) != 3 || rep.StateStatus.N != 2*3*(DefaultTEMMoves+1) {
		t.Fatalf("conditions %d, state statuses %+v", len(rep.Conditions), rep.StateStatus)
	}
	score := func(cond, typ string) TEMScores {
		for _, c := range rep.Conditions {
			for _, s := range c.Scores {
				if c.Name == cond && s.Type == typ {
					return s
				}
			}
		}
		t.Fatalf("no %s/%s", cond, typ)
		return TEMScores{}
	}
	// The overwrite memory keeps no statement of a state two or more changes back, so it
	// can hold a historical answer only by chance mention — never in this generator,
	// whose change statements name at most the state just before.
	if h := score(TEMOverwrite, TEMHistorical); h.Packet.N == 0 || h.Packet.Hits != 0 {
		t.Errorf("overwrite historical packet %+v", h.Packet)
	}
	// Unmarked packets are the overlay's rows.
	if score(TEMOverlay, "all").Packet != score(TEMUnmarked, "all").Packet {
		t.Error("unmarked rows differ from the overlay's")
	}
	if score(TEMOverlay, "all").Answer.N != 0 {
		t.Error("answers scored without an LLM")
	}
	if n := countLines(t, traces.Bytes()); n != 3*len(tm.Questions) {
		t.Errorf("%d trace lines", n)
	}
}
