package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/data"
	"github.com/atma-dev/atma/internal/words"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry/gate"
)

const casesFixture = "testdata/cases_fixture.jsonl"

func loadCasesFixture(t testing.TB) *Corpus {
	t.Helper()
	c, err := LoadCorpus(casesFixture)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDefaultCorpus is the validator of the committed corpus (it runs in `make test`),
// and holds it to the sizes the corpus was written to.
func TestDefaultCorpus(t *testing.T) {
	c, err := DefaultCorpus()
	if err != nil {
		t.Fatalf("the committed corpus does not validate:\n%v", err)
	}
	st := c.Stats()
	if st.Scenarios < 80 {
		t.Errorf("%d scenarios, want at least 80", st.Scenarios)
	}
	if st.Probes < 300 {
		t.Errorf("%d probes, want at least 300", st.Probes)
	}
	if st.Pairs < 250 {
		t.Errorf("%d pairs, want at least 250", st.Pairs)
	}
	for _, d := range CaseDomains() {
		dev, test := 0, 0
		for _, s := range c.Scenarios {
			if s.Domain == d && s.Split == SplitDev {
				dev++
			}
			if s.Domain == d && s.Split == SplitTest {
				test++
			}
		}
		if dev == 0 || test == 0 {
			t.Errorf("domain %s: %d dev and %d test scenarios, want both", d, dev, test)
		}
	}
	if dev := float64(st.Splits[SplitDev]) / float64(st.Scenarios); dev < 0.4 || dev > 0.6 {
		t.Errorf("dev split holds %.2f of the scenarios, want about half", dev)
	}
	for _, k := range ProbeKinds() {
		if st.ProbeKinds[k] == 0 {
			t.Errorf("no %s probe", k)
		}
	}
	for _, ty := range judge.ConflictTypes() {
		if st.ConflictTypes[string(ty)] == 0 {
			t.Errorf("no relation of type %s", ty)
		}
	}
	// Texts are written one by one: no two memories of the corpus say the same thing.
	seen := map[string]string{}
	for _, s := range c.Scenarios {
		for _, m := range s.Memories {
			k := strings.Join(words.Split(m.Text), " ")
			if prev, dup := seen[k]; dup {
				t.Errorf("%s/%s repeats %s: %q", s.ID, m.ID, prev, m.Text)
			}
			seen[k] = s.ID + "/" + m.ID
		}
	}
}

func TestLoadCorpusFixture(t *testing.T) {
	c := loadCasesFixture(t)
	if len(c.Scenarios) != 2 {
		t.Fatalf("%d scenarios", len(c.Scenarios))
	}
	s := c.Scenarios[0]
	if s.ID != "fx-home" || len(s.Memories) != 4 || len(s.Probes) != 3 || s.File != casesFixture || s.Line != 1 {
		t.Errorf("scenario %+v", s)
	}
	if m := s.Memories[3]; m.ID != "m4" || m.Line != 5 || m.Relations[0].Action != judge.ActionTransition || m.Facts[0].Subject() != "user" || m.Facts[0].Attribute() != "home" {
		t.Errorf("memory %+v", m)
	}
	dev, err := c.Split(SplitDev)
	if err != nil || len(dev.Scenarios) != 1 || dev.Scenarios[0].ID != "fx-home" {
		t.Errorf("dev split: %v %+v", err, dev)
	}
	if _, err := c.Split("train"); err == nil {
		t.Error("split train accepted")
	}
}

// Every problem is reported at once, each with its file, line and field.
func TestReadCorpusProblems(t *testing.T) {
	bad := strings.Join([]string{
		`{"type":"scenario","id":"s1","domain":"sports","split":"train","title":""}`,
		`{"type":"memory","scenario":"s1","id":"m1","time":"2026-02-01T00:00:00Z","text":"I live in Oslo","kind":"state","facts":[{"slot":"User Home","value":"Oslo"}]}`,
		`{"type":"memory","scenario":"s1","id":"m2","time":"2026-01-01T00:00:00Z","text":"  ","kind":"chat"}`,
		`{"type":"memory","scenario":"s1","id":"m3","time":"2026-03-01T00:00:00Z","text":"moved to Bergen","kind":"state","facts":[{"slot":"user/home","value":"Bergen","event_time":"March"}],"relations":[{"to":"m9","status":"conflict","conflict_type":"none","action":"transition"}]}`,
		`{"type":"memory","scenario":"s1","id":"m4","time":"2026-04-01T00:00:00Z","text":"I'm in Tromso now","kind":"state","facts":[{"slot":"user/home","value":"Tromso"}]}`,
		`{"type":"memory","scenario":"nope","id":"m1","time":"2026-04-01T00:00:00Z","text":"x","kind":"event"}`,
		`{"type":"probe","scenario":"s1","id":"p1","kind":"current","question":"Do I live in Tromso?","gold":["Tromso","Paris"],"stale":["Tromso"],"gold_memories":["m4","m7"]}`,
		`{"type":"probe","scenario":"s1","id":"p2","kind":"change","question":"how?","gold":["Bergen"],"gold_memories":["m3"],"colour":"red"}`,
		`{"type":"probe","scenario":"s1","id":"p3","kind":"current","question":"where?","gold":"Bergen","gold_memories":["m3"]}`,
		`{"type":"memory","scenario":"s1","id":"m5","time":"yesterday","text":"x","kind":"event"}`,
		`not json`,
		`{"type":"fact"}`,
	}, "\n")
	_, err := ReadCorpus(map[string][]byte{"bad.jsonl": []byte(bad), "empty.jsonl": []byte("\n\n")})
	var le *data.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err %v, want a *data.LoadError", err)
	}
	want := []string{
		"bad.jsonl:1: domain: \"sports\" is not a domain",
		"bad.jsonl:1: split: \"train\": want dev or test",
		"bad.jsonl:1: title: missing",
		"bad.jsonl:2: facts[0].slot: \"User Home\" is not <subject>/<attribute>",
		"bad.jsonl:3: time: 2026-01-01T00:00:00Z is before the previous memory's",
		"bad.jsonl:3: text: missing or blank",
		"bad.jsonl:3: kind: \"chat\"",
		"bad.jsonl:4: facts[0].event_time: \"March\"",
		"bad.jsonl:4: relations[0].to: no earlier memory \"m9\"",
		"bad.jsonl:4: relations[0].conflict_type: \"none\": a conflict needs one of",
		"bad.jsonl:5: relations: no relation to m3, the latest earlier memory of slot user/home",
		"bad.jsonl:6: scenario: no scenario record has id \"nope\"",
		"bad.jsonl:7: gold[1]: \"Paris\" appears in no memory of scenario \"s1\"",
		"bad.jsonl:7: gold[0]: \"Tromso\" is in the question",
		"bad.jsonl:7: gold[0]: \"Tromso\" is stale too",
		"bad.jsonl:7: gold_memories[1]: no memory \"m7\"",
		"bad.jsonl:8: colour: unknown field",
		"bad.jsonl:9: gold: want []string, got JSON string",
		"bad.jsonl:10: time: not an RFC 3339 time: \"yesterday\"",
		"bad.jsonl:11: invalid JSON",
		"bad.jsonl:12: type: unknown record type \"fact\"",
		"empty.jsonl: no records",
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("missing problem %q", w)
		}
	}
	if t.Failed() {
		t.Logf("all problems:\n%s", msg)
	}
	// Problems come in file and line order.
	for i := 1; i < len(le.Problems); i++ {
		a, b := le.Problems[i-1], le.Problems[i]
		if a.File > b.File || (a.File == b.File && a.Line > b.Line) {
			t.Errorf("problem %d (%s) after %s", i, b, a)
		}
	}
}

func TestReadCorpusDuplicatesAndRules(t *testing.T) {
	lines := strings.Join([]string{
		`{"type":"scenario","id":"s1","domain":"work","split":"dev","title":"t"}`,
		`{"type":"scenario","id":"s1","domain":"work","split":"dev","title":"t"}`,
		`{"type":"memory","scenario":"s1","id":"m1","time":"2026-01-01T00:00:00Z","text":"my manager is Ana","kind":"event","facts":[{"slot":"user/manager","value":"Ana"}]}`,
		`{"type":"memory","scenario":"s1","id":"m1","time":"2026-01-02T00:00:00Z","text":"Ana left, Bo is my manager","kind":"state","facts":[{"slot":"user/manager","value":"Bo"}],"relations":[{"to":"m1","status":"consistent","conflict_type":"temporal_update","action":"transition"}]}`,
		`{"type":"memory","scenario":"s1","id":"m3","time":"2026-01-03T00:00:00Z","text":"I use Jira","kind":"state","facts":[{"slot":"user/tool","value":"Jira"}],"relations":[{"to":"m1","status":"unrelated","conflict_type":"none","action":"keep"}]}`,
		`{"type":"memory","scenario":"s1","id":"m4","time":"2026-01-04T00:00:00Z","text":"still Bo","kind":"state","facts":[{"slot":"user/manager","value":"Bo"}],"relations":[{"to":"m1","status":"conflict","conflict_type":"explicit_negation","action":"transition"}]}`,
		`{"type":"probe","scenario":"s1","id":"p1","kind":"change","question":"how did it change?","gold":["Ana","Bo"],"gold_memories":["m3"],"stale_memories":["m3"]}`,
		`{"type":"probe","scenario":"s1","id":"p1","kind":"current","question":"who?","gold":["Bo"],"gold_memories":["m3"]}`,
	}, "\n")
	_, err := ReadCorpus(map[string][]byte{"x.jsonl": []byte(lines)})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		"x.jsonl:2: id: scenario \"s1\" is declared twice (first at x.jsonl:1)",
		"x.jsonl:3: facts: a event memory states no fact",
		"x.jsonl:4: id: memory \"m1\" of scenario \"s1\" is on line 3 already",
		"x.jsonl:4: relations[0].to: a memory cannot relate to itself",
		"x.jsonl:4: relations[0].conflict_type: \"temporal_update\": a consistent pair has conflict type none",
		"x.jsonl:4: relations[0].action: \"transition\": a consistent pair is keep",
		"x.jsonl:5: relations[0].to: memory \"m1\" shares no slot with this one",
		"x.jsonl:5: relations[0].status: \"unrelated\": want conflict or consistent",
		"x.jsonl:6: relations[0].action: \"transition\" does not fit explicit_negation",
		"x.jsonl:7: gold_memories: a change probe names the memories of the old and the new state",
		"x.jsonl:7: stale_memories[0]: \"m3\" is a gold memory too",
		"x.jsonl:7: gold_memories[0]: memory m3 states none of the gold values",
		"x.jsonl:8: id: probe \"p1\" of scenario \"s1\" is on line 7 already",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing problem %q", w)
		}
	}
	if t.Failed() {
		t.Logf("all problems:\n%v", err)
	}
}

func TestCasePairs(t *testing.T) {
	c := loadCasesFixture(t)
	type row struct {
		ID, Kind string
		Status   judge.Status
		Action   judge.Action
		Same     bool
	}
	var got []row
	for _, p := range c.Pairs() {
		got = append(got, row{p.ID, p.Kind, p.Gold.Status, p.Gold.Action, p.SameSlot})
	}
	want := []row{
		// jules/home vs user/home: same attribute, another subject.
		{"fx-home/m2~m1", PairOtherSubject, judge.StatusUnrelated, judge.ActionKeep, false},
		{"fx-home/m4~m1", PairRelation, judge.StatusConflict, judge.ActionTransition, true},
		{"fx-home/m4~m2", PairOtherSubject, judge.StatusUnrelated, judge.ActionKeep, false},
		{"fx-home/m4~m3", PairNonState, judge.StatusUnrelated, judge.ActionKeep, false},
		// coexist is scored as keep: both stay current.
		{"fx-pets/m2~m1", PairRelation, judge.StatusConsistent, judge.ActionKeep, true},
		{"fx-pets/m3~m2", PairRelation, judge.StatusConsistent, judge.ActionKeep, true},
		{"fx-pets/m3~m1", PairRelation, judge.StatusConflict, judge.ActionSupersede, true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pairs (-want +got):\n%s", d)
	}
}

func TestScoreCaseProbe(t *testing.T) {
	cur := CaseProbe{ID: "p", Kind: ProbeCurrent, Gold: []string{"Nantes"}, Stale: []string{"Lyon"}}
	hist := CaseProbe{ID: "p", Kind: ProbeHistorical, Gold: []string{"Lyon"}, Stale: []string{"Nantes"}}
	change := CaseProbe{ID: "p", Kind: ProbeChange, Gold: []string{"Lyon", "Nantes"}}
	row := func(l retrieval.Label, content string) retrieval.Row {
		return retrieval.Row{Label: l, Content: content}
	}
	tests := []struct {
		name                  string
		p                     CaseProbe
		pk                    retrieval.Packet
		first, inPacket, leak bool
		noLeakCase            bool
	}{
		{"current first", cur, packetOf(true, row(retrieval.LabelHistorical, "I live in Lyon"), row(retrieval.LabelCurrent, "moved to Nantes")), true, true, true, false},
		{"current labelled stale", cur, packetOf(true, row(retrieval.LabelCurrent, "moved to Nantes"), row(retrieval.LabelCurrent, "I live in Lyon")), true, true, true, false},
		{"current clean", cur, packetOf(true, row(retrieval.LabelCurrent, "moved from Lyon to Nantes"), row(retrieval.LabelHistorical, "I live in Lyon")), true, true, false, false},
		{"current without a current row", cur, packetOf(true, row(retrieval.LabelRetrieved, "moved to Nantes")), false, true, false, false},
		{"current row about something else first", cur, packetOf(true, row(retrieval.LabelCurrent, "my rent is 900"), row(retrieval.LabelCurrent, "moved to Nantes")), true, true, false, false},
		{"unmarked first row", cur, packetOf(false, row(retrieval.LabelRetrieved, "moved to Nantes"), row(retrieval.LabelRetrieved, "I live in Lyon")), true, true, false, false},
		{"unmarked skips rows without values", cur, packetOf(false, row(retrieval.LabelRetrieved, "nice weather"), row(retrieval.LabelRetrieved, "moved to Nantes")), true, true, false, false},
		{"unmarked stale first", cur, packetOf(false, row(retrieval.LabelRetrieved, "I live in Lyon"), row(retrieval.LabelRetrieved, "moved to Nantes")), false, true, true, false},
		{"historical", hist, packetOf(true, row(retrieval.LabelCurrent, "moved to Nantes"), row(retrieval.LabelHistorical, "I live in Lyon")), true, true, true, false},
		{"historical missing", hist, packetOf(true, row(retrieval.LabelCurrent, "moved to Nantes")), false, false, true, false},
		{"change needs every value", change, packetOf(true, row(retrieval.LabelTransition, "home: Lyon -> Nantes")), true, true, false, true},
		{"change half", change, packetOf(true, row(retrieval.LabelCurrent, "moved to Nantes")), false, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := scoreCaseProbe(tt.p, tt.pk)
			if tr.StateFirst != tt.first || tr.GoldInPacket != tt.inPacket {
				t.Errorf("state first %v, gold in packet %v; want %v, %v", tr.StateFirst, tr.GoldInPacket, tt.first, tt.inPacket)
			}
			switch {
			case tt.noLeakCase && tr.StaleLeakage != nil:
				t.Errorf("leakage scored for a probe without stale values")
			case !tt.noLeakCase && (tr.StaleLeakage == nil || *tr.StaleLeakage != tt.leak):
				t.Errorf("leakage %v, want %v", tr.StaleLeakage, tt.leak)
			}
		})
	}
}

func TestRunCases(t *testing.T) {
	c := loadCasesFixture(t)
	emb := &hashEmbedder{}
	heads := randomHeads(t, hashDim)
	var traces bytes.Buffer
	rep, err := RunCases(t.Context(), c, SplitAll, Env{Embedder: emb, Heads: heads, Thresholds: gate.DefaultThresholds(), Logger: discard}, nil, &traces)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scenarios != 2 || rep.Memories != 7 || rep.Probes != 5 || rep.Pairs != 7 || len(rep.Systems) != 2 {
		t.Fatalf("report %+v", rep)
	}
	host, _ := rep.System(HostOnly.Name)
	ov, _ := rep.System(Overlay.Name)
	if host.Overall.Bank.N != 0 || ov.Overall.Bank.N != 5 {
		t.Errorf("bank scored on %d host and %d overlay probes, want 0 and 5", host.Overall.Bank.N, ov.Overall.Bank.N)
	}
	// Every probe's scenario has few memories: the host's packet holds them all.
	if host.Overall.GoldInPacket.Hits != 5 {
		t.Errorf("host gold in packet %s", host.Overall.GoldInPacket)
	}
	if len(ov.Domains) != 1 || ov.Domains[0].Group != "personal" || len(ov.Kinds) != 4 {
		t.Errorf("groups %+v %+v", ov.Domains, ov.Kinds)
	}
	if rep.Sentry == nil || rep.Sentry.SameSlotAUC == nil || rep.Sentry.ConflictAUC == nil || rep.Sentry.Routing.N != 7 || rep.Sentry.Recall.N != 2 {
		t.Errorf("sentry %+v", rep.Sentry)
	}
	if j := rep.Judge; j.Name != "rule" || j.Verdict.N != 7 || j.Action.N != 7 || j.ByKind[PairRelation].N != 4 {
		t.Errorf("judge %+v", j)
	}
	// Bank lines: one per memory of the overlay's replay; probe lines: one per probe and
	// system.
	mts := traceLines[CaseMemoryTrace](t, traces.Bytes(), "memory")
	for _, mt := range mts {
		if mt.System != Overlay.Name || mt.Status == "" || mt.Text == "" || (mt.Kind == KindState && len(mt.Want) == 0) {
			t.Errorf("bank trace %+v", mt)
		}
	}
	trs := traceLines[CaseTrace](t, traces.Bytes(), "probe")
	for _, tr := range trs {
		if (tr.System == Overlay.Name) != (tr.Bank != nil) || (tr.System == Overlay.Name && len(tr.Statuses) == 0) {
			t.Errorf("trace %+v", tr)
		}
	}
	if n, mems := len(trs), len(mts); n != 10 || mems != 7 || countLines(t, traces.Bytes()) != n+mems {
		t.Errorf("%d probe traces and %d bank traces, want 10 and 7", n, mems)
	}
	if rep.MemoryStatus.N == 0 {
		t.Errorf("memory status scored on no memory")
	}
	var tables bytes.Buffer
	WriteCasesTables(&tables, rep)
	for _, w := range []string{"split all: 2 scenarios", "bank accuracy", "Sentry on 7 pairs", "Judge (rule) on 7 pairs"} {
		if !strings.Contains(tables.String(), w) {
			t.Errorf("tables lack %q:\n%s", w, tables.String())
		}
	}
	png := t.TempDir() + "/chart.png"
	if err := PlotCases(png, rep); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("chart: %v", err)
	}
	if _, err := RunCases(t.Context(), &Corpus{}, SplitDev, Env{Embedder: emb}, nil, nil); err == nil {
		t.Error("an empty split ran")
	}
}

// The bank rule per probe kind, on statuses set by hand.
func TestCaseBank(t *testing.T) {
	tests := []struct {
		name     string
		p        CaseProbe
		statuses map[string]string
		want     bool
	}{
		{"current", CaseProbe{Kind: ProbeCurrent, GoldMemories: []string{"a"}, StaleMemories: []string{"b"}}, map[string]string{"a": "active", "b": "superseded"}, true},
		{"current with stale active", CaseProbe{Kind: ProbeCurrent, GoldMemories: []string{"a"}, StaleMemories: []string{"b"}}, map[string]string{"a": "active", "b": "active"}, false},
		{"current unknown", CaseProbe{Kind: ProbeCurrent, GoldMemories: []string{"a"}}, map[string]string{"a": "unknown"}, false},
		{"historical", CaseProbe{Kind: ProbeHistorical, GoldMemories: []string{"a", "b"}}, map[string]string{"a": "superseded", "b": "superseded"}, true},
		{"historical half", CaseProbe{Kind: ProbeHistorical, GoldMemories: []string{"a", "b"}}, map[string]string{"a": "superseded", "b": "active"}, false},
		{"change", CaseProbe{Kind: ProbeChange, GoldMemories: []string{"a", "b"}}, map[string]string{"a": "superseded", "b": "active"}, true},
		{"change reversed", CaseProbe{Kind: ProbeChange, GoldMemories: []string{"a", "b"}}, map[string]string{"a": "active", "b": "superseded"}, false},
		{"neutral", CaseProbe{Kind: ProbeNeutral, GoldMemories: []string{"a"}}, map[string]string{"a": "unknown"}, true},
		{"neutral superseded", CaseProbe{Kind: ProbeNeutral, GoldMemories: []string{"a"}}, map[string]string{"a": "superseded"}, false},
		{"neutral missing", CaseProbe{Kind: ProbeNeutral, GoldMemories: []string{"a"}}, map[string]string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mem := &statusMemory{statuses: tt.statuses}
			got, _, err := caseBank(t.Context(), mem, "u", tt.p)
			if err != nil || got != tt.want {
				t.Errorf("caseBank = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestCasesSchema keeps case.schema.json and the line types in step.
func TestCasesSchema(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	b, err := os.ReadFile("testdata/cases/case.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"scenario": scenarioLine{}, "memory": memoryLine{}, "probe": probeLine{}, "fact": CaseFact{}, "relation": CaseRelation{}} {
		def := doc.Defs[name]
		var all, required []string
		rt := reflect.TypeOf(v)
		for _, f := range reflect.VisibleFields(rt) {
			if f.Anonymous {
				continue
			}
			tag := f.Tag.Get("json")
			n, opts, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			all = append(all, n)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, n)
			}
		}
		var props []string
		for p := range def.Properties {
			props = append(props, p)
		}
		slices.Sort(all)
		slices.Sort(props)
		slices.Sort(required)
		req := slices.Sorted(slices.Values(def.Required))
		if d := cmp.Diff(all, props); d != "" {
			t.Errorf("%s properties (-go +schema):\n%s", name, d)
		}
		if d := cmp.Diff(required, req); d != "" {
			t.Errorf("%s required (-go +schema):\n%s", name, d)
		}
	}
}

func TestAUCEmptyClass(t *testing.T) {
	if v := auc([]float64{1, 2}, []bool{true, true}); v != nil {
		t.Errorf("auc with no negatives = %v", *v)
	}
	if v := auc([]float64{1, 2}, []bool{false, true}); v == nil || math.Abs(*v-1) > 1e-12 {
		t.Errorf("auc = %v", v)
	}
}

// statusMemory serves records whose statuses are set by memory id (the bench stores
// them as "<user>/<id>").
type statusMemory struct {
	fakeMemory
	statuses map[string]string
}

func (f *statusMemory) record(_ context.Context, user, id string) (store.Record, bool, error) {
	st, ok := f.statuses[strings.TrimPrefix(id, user+"/")]
	return store.Record{ID: id, Status: store.Status(st)}, ok, nil
}

func randomHeads(t testing.TB, dim int) *gate.Heads {
	t.Helper()
	return gate.NewHeads(dim, 16, 8, rand.New(rand.NewPCG(1, 2)))
}

// auditFunc is an auditor from a function.
type auditFunc func(judge.Pair) judge.Verdict

func (f auditFunc) Audit(_ context.Context, p judge.Pair) (judge.Result, error) {
	return judge.Result{Verdict: f(p), Source: "fake-model"}, nil
}

// With an auditor configured (an LLM Judge), the pairs are scored on its verdicts, and
// the gate's scores reach it.
func TestRunCasesAuditor(t *testing.T) {
	c := loadCasesFixture(t)
	scored := 0
	conflictAll := auditFunc(func(p judge.Pair) judge.Verdict {
		if p.Scores != nil {
			scored++
		}
		return judge.Verdict{Status: judge.StatusConflict, ConflictType: judge.TypeTemporalUpdate, Action: judge.ActionTransition, Links: []judge.Link{}}
	})
	rep, err := RunCases(t.Context(), c, SplitAll, Env{Embedder: &hashEmbedder{}, Heads: randomHeads(t, hashDim), Auditor: conflictAll, Logger: discard}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	j := rep.Judge
	// Two of the seven pairs conflict; one of them is a transition.
	if j.Name != "llm" || j.Verdict.Hits != 2 || j.Verdict.N != 7 || j.Action.Hits != 1 || j.ByType[judge.TypeTemporalUpdate].Hits != 1 {
		t.Errorf("judge %+v", j)
	}
	if scored < 7 {
		t.Errorf("%d audits saw the gate's scores, want every pair's", scored)
	}
}

func TestPairScores(t *testing.T) {
	if got := wordJaccard("I live in Porto", "i LIVE in Lisbon"); math.Abs(got-3.0/5) > 1e-12 {
		t.Errorf("wordJaccard = %v, want 0.6", got)
	}
	if got := wordJaccard("", ""); got != 0 {
		t.Errorf("wordJaccard of nothing = %v", got)
	}
	if got := cosine([]float32{1, 0}, []float32{1, 1}); math.Abs(got-1/math.Sqrt2) > 1e-9 {
		t.Errorf("cosine = %v", got)
	}
	if got := cosine([]float32{0, 0}, []float32{1, 1}); got != 0 {
		t.Errorf("cosine with a zero vector = %v", got)
	}
}
