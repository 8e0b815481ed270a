package retrieval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassifyFailure(t *testing.T) {
	packet := func(query string, opt PacketOptions, rows ...string) Packet {
		return BuildPacket(query, ProfileQuery(query), seeds(rows...), opt)
	}
	// A second active home, coexisting with Lisbon, to rank ahead of it.
	porto := Candidate{ID: "c3", Content: "I also keep a flat in Porto.", Slot: "user.city", Status: StatusActive}
	withPorto := append(bank(), porto)
	portoFirst := BuildPacket("where do I live now?", currentSure, []Candidate{porto, byID("c2")}, PacketOptions{})

	tests := []struct {
		name   string
		fc     FailureCase
		class  FailureClass
		row    int
		bank   []string
		reason string
	}{
		{
			name:  "right answer",
			fc:    FailureCase{Gold: "Lisbon", Bank: bank(), Packet: packet("where do I live now?", PacketOptions{}, "c2"), Answer: "You live in Lisbon."},
			class: FailureNone, reason: "holds the gold",
		},
		{
			name:  "never stored",
			fc:    FailureCase{Gold: "Porto", Bank: bank(), Packet: packet("where do I live now?", PacketOptions{}, "c2"), Answer: "Lisbon"},
			class: FailureBank, reason: "no active record",
		},
		{
			name:  "never stored, any state",
			fc:    FailureCase{Gold: "Porto", Bank: bank(), Packet: packet("tell me about my home", PacketOptions{}, "c2"), Answer: "Lisbon"},
			class: FailureBank, reason: "no record in the bank holds",
		},
		{
			name:  "stored only as a past state",
			fc:    FailureCase{Gold: "Berlin", Bank: bank(), Packet: packet("where do I live now?", PacketOptions{}, "c1"), Answer: "Lisbon"},
			class: FailureBank, reason: "stored only as c1 (superseded), t1 (transition)",
		},
		{
			// The slot rule labels an active record without a slot "retrieved".
			name:  "stored without its state",
			fc:    FailureCase{Gold: "climbing", Mode: ModeCurrent, Bank: bank(), Packet: packet("what do I like now?", PacketOptions{Labels: LabelsSlot, KeepLabels: true}, "h1"), Answer: "I don't know."},
			class: FailureBank, row: 1, bank: []string{"h1"}, reason: "labelled retrieved memory",
		},
		{
			name:  "unmarked packets have no labels to blame",
			fc:    FailureCase{Gold: "climbing", Mode: ModeCurrent, Bank: bank(), Packet: packet("what do I like now?", PacketOptions{Unmarked: true}, "h1"), Answer: "I don't know."},
			class: FailureQA, row: 1, bank: []string{"h1"},
		},
		{
			name:  "in the bank, not in the packet",
			fc:    FailureCase{Gold: "pharmacist", Bank: bank(), Packet: packet("what is my job now?", PacketOptions{}, "c2"), Answer: "nurse"},
			class: FailureRetrieval, bank: []string{"j2"}, reason: "no active row",
		},
		{
			name:  "in the packet only in the wrong state",
			fc:    FailureCase{Gold: "Lisbon", Bank: bank(), Packet: packet("where do I live now?", PacketOptions{}, "t1", "c1"), Answer: "Berlin"},
			class: FailureRetrieval, bank: []string{"c2"}, reason: "row 1 holds it as transition",
		},
		{
			name:  "not first for its state",
			fc:    FailureCase{Gold: "Lisbon", Bank: withPorto, Packet: portoFirst, Answer: "Porto"},
			class: FailureRetrieval, row: 2, bank: []string{"c2"}, reason: "row 1 is the first active row of slot user.city",
		},
		{
			name:  "first for its state, answer wrong",
			fc:    FailureCase{Gold: "Lisbon", Bank: bank(), Packet: packet("where do I live now?", PacketOptions{}, "j2", "c1", "c2", "t1"), Answer: "Berlin"},
			class: FailureQA, row: 3, bank: []string{"c2"}, reason: "row 3 holds the gold answer as the first active row",
		},
		{
			name:  "historical",
			fc:    FailureCase{Gold: "a nurse", Bank: bank(), Packet: packet("what was my previous job?", PacketOptions{}, "j1", "j2"), Answer: "a pharmacist"},
			class: FailureQA, row: 1, bank: []string{"j1"},
		},
		{
			name:  "historical, current gold stored only as active",
			fc:    FailureCase{Gold: "pharmacist", Bank: bank(), Packet: packet("what was my previous job?", PacketOptions{}, "j1", "j2"), Answer: "nurse"},
			class: FailureBank, reason: "no superseded record",
		},
		{
			name:  "transition, the change in one record",
			fc:    FailureCase{Gold: "from Berlin to Lisbon", Bank: bank(), Packet: packet("how has my home changed?", PacketOptions{}, "c1", "c2"), Answer: "You live in Lisbon."},
			class: FailureQA, row: 1, bank: []string{"t1"},
		},
		{
			name:  "transition, half the change in the packet",
			fc:    FailureCase{Gold: "from Berlin to Lisbon", Bank: bank(), Packet: packet("how has my home changed?", PacketOptions{}, "c2"), Answer: "You live in Lisbon."},
			class: FailureRetrieval, bank: []string{"t1"}, reason: "the packet does not",
		},
		{
			name:  "transition, the change across a slot",
			fc:    FailureCase{Gold: "nurse to pharmacist", Bank: bank(), Packet: packet("how has my job changed?", PacketOptions{}, "j2"), Answer: "pharmacist"},
			class: FailureRetrieval, bank: []string{"j1", "j2"},
		},
		{
			name:  "neutral",
			fc:    FailureCase{Gold: "climbing", Bank: bank(), Packet: packet("tell me about my hobbies", PacketOptions{}, "h2", "h1"), Answer: "bouldering"},
			class: FailureQA, row: 2, bank: []string{"h1"},
		},
		{
			name:  "the requested mode overrides the packet's",
			fc:    FailureCase{Gold: "Berlin", Mode: ModeHistorical, Bank: bank(), Packet: packet("where do I live now?", PacketOptions{}, "c2", "c1"), Answer: "Lisbon"},
			class: FailureQA, row: 2, bank: []string{"c1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ClassifyFailure(tt.fc)
			if err != nil {
				t.Fatal(err)
			}
			if d.Class != tt.class || d.Row != tt.row {
				t.Errorf("class %s row %d, want %s %d (%s)", d.Class, d.Row, tt.class, tt.row, d.Reason)
			}
			if tt.bank != nil {
				if diff := cmp.Diff(tt.bank, d.BankIDs); diff != "" {
					t.Errorf("bank ids (-want +got):\n%s", diff)
				}
			}
			if !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("reason %q lacks %q", d.Reason, tt.reason)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestClassifyFailureErrors(t *testing.T) {
	pk := BuildPacket("q", currentSure, seeds("c2"), PacketOptions{})
	for _, fc := range []FailureCase{
		{Gold: "", Packet: pk},
		{Gold: " ?! ", Packet: pk},
		{Gold: "Lisbon", Mode: "someday", Packet: pk},
		{Gold: "Lisbon", Packet: Packet{Mode: "someday"}},
	} {
		if d, err := ClassifyFailure(fc); err == nil {
			t.Errorf("gold %q mode %q: no error, got %+v", fc.Gold, fc.Mode, d)
		}
	}
}

func TestGoldWords(t *testing.T) {
	tests := []struct {
		gold string
		want []string
	}{
		{"Lisbon", []string{"lisbon"}},
		{"in the city of Lisbon", []string{"city", "lisbon"}},
		{"7 May 2023", []string{"7", "may", "2023"}},
		{"the", []string{"the"}},
		{"São Paulo!", []string{"são", "paulo"}},
	}
	for _, tt := range tests {
		if got := goldWords(tt.gold); !cmp.Equal(got, tt.want) {
			t.Errorf("goldWords(%q) = %q, want %q", tt.gold, got, tt.want)
		}
	}
	if holds("I live in Lisbonia", goldWords("Lisbon")) {
		t.Error("a word prefix counts as the word")
	}
	if !holds("on 7 May, 2023 I moved", goldWords("7 May 2023")) {
		t.Error("punctuation breaks a match")
	}
}
