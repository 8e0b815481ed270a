package retrieval

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLabelRules(t *testing.T) {
	evolves := links("evolves_from", "t")
	tests := []struct {
		name              string
		c                 Candidate
		state, paper, slt Label
	}{
		{"transition record", Candidate{Status: StatusTransition, Slot: "s", TransitionLinked: true}, LabelTransition, LabelTransition, LabelTransition},
		{"active side of a change", Candidate{Status: StatusActive, Slot: "s", TransitionLinked: true, Links: evolves}, LabelCurrent, LabelTransitionLinked, LabelCurrent},
		{"old side of a change", Candidate{Status: StatusSuperseded, Slot: "s", TransitionLinked: true, Links: evolves}, LabelHistorical, LabelTransitionLinked, LabelHistorical},
		{"unknown, linked to a change", Candidate{Status: StatusUnknown, Slot: "s", TransitionLinked: true}, LabelTransitionLinked, LabelTransitionLinked, LabelTransitionLinked},
		{"evolves link to a record outside the pool", Candidate{Status: StatusUnknown, Links: evolves}, LabelTransitionLinked, LabelTransitionLinked, LabelRetrieved},
		{"superseded with a slot", Candidate{Status: StatusSuperseded, Slot: "s"}, LabelHistorical, LabelHistorical, LabelHistorical},
		{"superseded", Candidate{Status: StatusSuperseded}, LabelHistorical, LabelHistorical, LabelHistorical},
		{"active with a slot", Candidate{Status: StatusActive, Slot: "s"}, LabelCurrent, LabelCurrent, LabelCurrent},
		// The paper labels every active row current; the slot rule only those with a slot.
		{"active without a slot", Candidate{Status: StatusActive}, LabelCurrent, LabelCurrent, LabelRetrieved},
		{"unknown successor", Candidate{Status: StatusUnknown, Source: SourceSuccessor}, LabelCurrent, LabelCurrent, LabelRetrieved},
		{"unknown that supersedes another", Candidate{Status: StatusUnknown, Links: links("supersedes", "x")}, LabelCurrent, LabelCurrent, LabelRetrieved},
		{"unknown with a slot", Candidate{Status: StatusUnknown, Slot: "s"}, LabelRetrieved, LabelRetrieved, LabelRetrieved},
		{"nothing known", Candidate{}, LabelRetrieved, LabelRetrieved, LabelRetrieved},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for rule, want := range map[LabelRule]Label{"": tt.state, LabelsState: tt.state, LabelsPaper: tt.paper, LabelsSlot: tt.slt} {
				if got := rule.Label(tt.c); got != want {
					t.Errorf("rule %q: %q, want %q", rule, got, want)
				}
			}
		})
	}
	for _, r := range []LabelRule{"", LabelsState, LabelsPaper, LabelsSlot} {
		if !r.Valid() {
			t.Errorf("%q not valid", r)
		}
	}
	if LabelRule("strict").Valid() {
		t.Error("unknown rule valid")
	}
}

func TestBuildPacketLabels(t *testing.T) {
	// Straight from the bank: TransitionLinked is not set, BuildPacket finds t1 among
	// the rows.
	rows := seeds("c2", "t1", "c1", "j2", "j1", "h1", "u1")
	pk := BuildPacket("where do I live now?", currentSure, rows, PacketOptions{})
	want := map[string]Label{
		"c2": LabelCurrent, "t1": LabelTransition, "c1": LabelHistorical,
		"j2": LabelCurrent, "j1": LabelHistorical, "h1": LabelCurrent, "u1": LabelRetrieved,
	}
	for _, r := range pk.Rows {
		if r.Label != want[r.ID] {
			t.Errorf("%s: %q, want %q", r.ID, r.Label, want[r.ID])
		}
	}
	// Without the transition record among the rows, the pool's flag decides.
	pk = BuildPacket("q", currentSure, seeds("c2", "j2"), PacketOptions{})
	if pk.Rows[0].Label != LabelCurrent {
		t.Errorf("c2 without t1 and without the flag: %q, want %q", pk.Rows[0].Label, LabelCurrent)
	}
	// A flagged record of unknown state is labelled by its link to the change.
	flagged := seeds("u1")
	flagged[0].TransitionLinked = true
	if pk := BuildPacket("q", currentSure, flagged, PacketOptions{}); pk.Rows[0].Label != LabelTransitionLinked {
		t.Errorf("u1 flagged by the pool: %q, want %q", pk.Rows[0].Label, LabelTransitionLinked)
	}
	// The slot rule labels an active record without a slot "retrieved".
	if pk := BuildPacket("q", currentSure, seeds("h1"), PacketOptions{Labels: LabelsSlot}); pk.Rows[0].Label != LabelRetrieved {
		t.Errorf("h1 under the slot rule: %q", pk.Rows[0].Label)
	}
	if rows[0].TransitionLinked {
		t.Error("BuildPacket changed its input")
	}
	// A question about a change asks for both sides of it: they are transition linked.
	change := ProfileQuery("how has my home changed?")
	pk = BuildPacket("how has my home changed?", change, seeds("t1", "c2", "c1", "j2"), PacketOptions{})
	want = map[string]Label{"t1": LabelTransition, "c2": LabelTransitionLinked, "c1": LabelTransitionLinked, "j2": LabelCurrent}
	for _, r := range pk.Rows {
		if r.Label != want[r.ID] {
			t.Errorf("change query, %s: %q, want %q", r.ID, r.Label, want[r.ID])
		}
	}
}

func TestBuildPacketFields(t *testing.T) {
	pk := BuildPacket("Q", Profile{Mode: "bogus"}, seeds("j2"), PacketOptions{Unmarked: true})
	want := Packet{Query: "Q", Mode: ModeNeutral, Unsure: true, Marked: false, Rows: []Row{{
		ID: "j2", Label: LabelCurrent, Content: "I am a pharmacist at Crescent Pharmacy.", Time: day("2022-09-01"),
		Status: StatusActive, Slot: "user.job",
	}}}
	if diff := cmp.Diff(want, pk); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b, err := json.Marshal(pk)
	if err != nil {
		t.Fatal(err)
	}
	var back Packet
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pk, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

func TestPacketText(t *testing.T) {
	rows := seeds("c2", "u1")
	rows[0].Content = "I live\nin  Lisbon\tnow."
	marked := BuildPacket("q", currentSure, rows, PacketOptions{}).Text()
	want := "[1] current memory | 2023-05-12 | I live in Lisbon now.\n[2] retrieved memory | time unknown | Maybe I will adopt a cat.\n"
	if marked != want {
		t.Errorf("marked:\n%s\nwant:\n%s", marked, want)
	}
	unmarked := BuildPacket("q", currentSure, rows, PacketOptions{Unmarked: true}).Text()
	want = "[1] 2023-05-12 | I live in Lisbon now.\n[2] time unknown | Maybe I will adopt a cat.\n"
	if unmarked != want {
		t.Errorf("unmarked:\n%s\nwant:\n%s", unmarked, want)
	}
	if got := BuildPacket("q", currentSure, nil, PacketOptions{}).Text(); got != "(no memories found)\n" {
		t.Errorf("empty packet: %q", got)
	}
}

func TestAnswerPromptsGolden(t *testing.T) {
	tests := []struct {
		name  string
		query string
		rows  []string
		opt   PacketOptions
	}{
		{"current", "where do I live now?", []string{"c2", "t1", "c1", "j2"}, PacketOptions{}},
		{"current_unmarked", "where do I live now?", []string{"c2", "t1", "c1", "j2"}, PacketOptions{Unmarked: true}},
		{"current_unsure", "where do I live?", []string{"c2", "t1", "c1"}, PacketOptions{}},
		{"historical", "what was my previous job?", []string{"j1", "j2"}, PacketOptions{}},
		{"historical_no_change", "what did I like doing before?", []string{"h1", "h2"}, PacketOptions{}},
		{"transition", "when did I move to Lisbon?", []string{"t1", "c2", "c1"}, PacketOptions{}},
		{"neutral", "tell me about my hobbies", []string{"h1", "h2", "d1", "d2"}, PacketOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ProfileQuery(tt.query)
			pk := BuildPacket(tt.query, p, seeds(tt.rows...), tt.opt)
			msgs := pk.Messages()
			if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
				t.Fatalf("messages %+v", msgs)
			}
			if msgs[0].Content != pk.SystemPrompt() || msgs[1].Content != pk.UserPrompt() {
				t.Error("Messages disagrees with SystemPrompt and UserPrompt")
			}
			if strings.Contains(msgs[0].Content, "memory:") != pk.Marked || strings.Contains(msgs[1].Content, "memory |") != pk.Marked {
				t.Errorf("marked %t, but the prompts say otherwise", pk.Marked)
			}
			golden(t, "answer_"+tt.name+".golden", "=== system ===\n"+msgs[0].Content+"\n=== user ===\n"+msgs[1].Content+"\n")
		})
	}
}

// A question about a past state or a change whose first row is part of no recorded
// change, or about the present whose rows are all part of none, gets an unlabelled
// packet (NoState), as the host's own, and a historical one noChangeGuide; otherwise
// the labels and the mode's guide stay.
func TestPacketWithoutRecordedState(t *testing.T) {
	for _, tt := range []struct {
		query   string
		rows    []string
		noState bool
	}{
		{"what did I like doing before?", []string{"h1", "j1", "h2"}, true},
		{"what did I like doing before?", []string{"d1", "d2"}, true},
		{"what was my previous job?", []string{"j2", "j1"}, false},
		{"what was my previous job?", []string{"j1", "h1"}, false},
		{"where did I use to live?", []string{"t1", "h1"}, false},
		{"how has my home changed?", []string{"h1", "t1", "c2"}, true},
		{"how has my home changed?", []string{"c2", "h1"}, false},
		{"where do I live now?", []string{"h1", "c2"}, false},
		{"where do I live now?", []string{"h1", "d1", "j1"}, false},
		{"what do I like doing now?", []string{"h1", "h2", "d1"}, true},
		{"tell me about my hobbies", []string{"h1", "h2"}, false},
	} {
		p := ProfileQuery(tt.query)
		pk := BuildPacket(tt.query, p, seeds(tt.rows...), PacketOptions{})
		if pk.NoState != tt.noState || pk.Marked == tt.noState {
			t.Errorf("%q over %v: no state %t, marked %t; want no state %t", tt.query, tt.rows, pk.NoState, pk.Marked, tt.noState)
		}
		sys := pk.SystemPrompt()
		if got := strings.Contains(sys, noChangeGuide); got != (tt.noState && p.Mode == ModeHistorical) {
			t.Errorf("%q over %v: no-change guide %t", tt.query, tt.rows, got)
		}
	}
	// The unmarked ablation is no claim that the bank knows nothing.
	if pk := BuildPacket("what did I like doing before?", ProfileQuery("what did I like doing before?"), seeds("h1"), PacketOptions{Unmarked: true}); pk.NoState {
		t.Error("an unmarked packet says it knows no state")
	}
}

func TestAnswerPromptFollowsMode(t *testing.T) {
	for _, marked := range []bool{true, false} {
		seen := map[string]Mode{}
		for _, m := range Modes {
			for _, unsure := range []bool{false, true} {
				pk := Packet{Mode: m, Marked: marked, Unsure: unsure}
				pk.Rows = []Row{{ID: "j1", Label: LabelHistorical, Content: "I work as a nurse."}}
				sys := pk.SystemPrompt()
				if !strings.Contains(sys, modeGuide[marked][m]) {
					t.Errorf("marked %t mode %s: the mode's guide is missing", marked, m)
				}
				if got := strings.Contains(sys, unsureGuide); got != (unsure && m != ModeNeutral) {
					t.Errorf("marked %t mode %s unsure %t: unsure guide present %t", marked, m, unsure, got)
				}
			}
			g := modeGuide[marked][m]
			if g == noChangeGuide {
				t.Errorf("marked %t mode %s: the guide of a packet that knows no state", marked, m)
			}
			if other, dup := seen[g]; dup {
				t.Errorf("marked %t: modes %s and %s share a guide", marked, m, other)
			}
			seen[g] = m
		}
	}
}

// A packet for the present puts a later current record directly above an older one of
// the same thing (a change the bank missed) and moves nothing else; one
// for a past state that knows no state goes by date, from the anchor's row back when the
// query names a later state. KeepOrder keeps the rows as given.
func TestPacketOrder(t *testing.T) {
	at := func(id, content, date string, st Status) Candidate {
		return Candidate{ID: id, Content: content, Status: st, EventTime: day(date)}
	}
	rows := map[string]Candidate{
		"gym1":    at("gym1", "My new gym is the Leisure Centre on Mill Road.", "2024-01-10", StatusActive),
		"chat":    at("chat", "Bought new trainers, the new ones are orange.", "2024-06-02", StatusActive),
		"gym2":    at("gym2", "Cancelled the Leisure Centre, I train at Ironworks now.", "2024-05-20", StatusActive),
		"old":     at("old", "I used to swim at the lido.", "2023-07-01", StatusSuperseded),
		"nick1":   at("nick1", "My handle is frogspawn.", "2024-02-01", StatusActive),
		"nick2":   at("nick2", "Handle is now teapotking.", "2024-04-01", StatusActive),
		"nick3":   at("nick3", "Someone squatted teapotking so frogspawn again.", "2024-09-01", StatusActive),
		"q":       at("q", "Can you get a handle back once it is taken?", "2024-08-01", StatusActive),
		"undated": {ID: "undated", Content: "Handle ideas: moth, gecko.", Status: StatusActive},
	}
	pick := func(ids ...string) []Candidate {
		out := make([]Candidate, len(ids))
		for i, id := range ids {
			out[i] = rows[id]
		}
		return out
	}
	for _, tt := range []struct {
		query string
		rows  []string
		keep  bool
		want  []string
	}{
		// The old gym's record ranks first; the newer one names the same place. The
		// trainers share only "new" with it, which names no thing, and the superseded
		// row keeps its place.
		{"which gym do I go to now?", []string{"gym1", "old", "chat", "gym2"}, false, []string{"gym2", "gym1", "old", "chat"}},
		{"which gym do I go to now?", []string{"gym1", "old", "chat", "gym2"}, true, []string{"gym1", "old", "chat", "gym2"}},
		// Nothing recorded as changed: oldest first.
		{"what was my handle at first?", []string{"nick3", "undated", "nick2", "nick1"}, false, []string{"nick1", "nick2", "nick3", "undated"}},
		// "before someone squatted it": the rows before the anchor's, nearest first.
		{"what was my handle before someone squatted it?", []string{"nick3", "nick1", "q", "nick2"}, false, []string{"q", "nick2", "nick1", "nick3"}},
	} {
		pk := BuildPacket(tt.query, ProfileQuery(tt.query), pick(tt.rows...), PacketOptions{KeepOrder: tt.keep})
		var got []string
		for _, r := range pk.Rows {
			got = append(got, r.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q over %v (keep order %t): %v, want %v", tt.query, tt.rows, tt.keep, got, tt.want)
		}
	}
}
