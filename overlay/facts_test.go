package overlay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atma-dev/atma/facts"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay/overlaytest"
	"github.com/atma-dev/atma/overlay/store"
	"github.com/atma-dev/atma/sentry/gate"
)

// mapExtractor reads facts from a table by text; err fails every call.
type mapExtractor struct {
	facts  map[string][]facts.Fact
	err    error
	seen   [][]string            // the Slots each input was shown
	values []map[string][]string // the Values each input was shown
}

func (m *mapExtractor) Extract(_ context.Context, in []facts.Input) ([]facts.Result, error) {
	if m.err != nil {
		return nil, m.err
	}
	out := make([]facts.Result, len(in))
	for i, x := range in {
		m.seen, m.values = append(m.seen, x.Slots), append(m.values, x.Values)
		out[i] = facts.Result{Facts: m.facts[x.Text], Source: "fake"}
		if len(out[i].Facts) == 0 {
			out[i].Why = "no fact in the table"
		}
	}
	return out, nil
}

func fact(subject, attribute, value string) facts.Fact {
	return facts.Fact{Subject: subject, Attribute: attribute, Value: value}
}

// factsOverlay opens an overlay on open's store whose facts come from x, with the bag
// embedder.
func factsOverlay(t *testing.T, open func(t *testing.T) (store.Store, TxHost), x facts.Extractor) (*Overlay, store.Store) {
	t.Helper()
	st, h := open(t)
	o, err := New(Config{Store: st, Host: h, Embedder: overlaytest.BagEmbedder{}, Facts: x})
	if err != nil {
		t.Fatal(err)
	}
	return o, st
}

// wantStatuses reports each memory of want whose status in got (statuses) is another.
func wantStatuses(t *testing.T, got, want map[string]store.Status) {
	t.Helper()
	for text, st := range want {
		if got[text] != st {
			t.Errorf("%q is %s, want %s", text, got[text], st)
		}
	}
}

// statuses returns each memory's record status, by content.
func statuses(t *testing.T, o *Overlay, user string, trs []IngestTrace) map[string]store.Status {
	t.Helper()
	out := map[string]store.Status{}
	for _, tr := range trs {
		r, err := o.Store().Get(t.Context(), user, tr.RecordID)
		if err != nil {
			t.Fatal(err)
		}
		out[tr.Content] = r.Status
	}
	return out
}

func TestVersionGroupsByFact(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I moved to Lisbon last month.":               {fact("user", "home", "Lisbon")},
		"The movers came, first night in Porto!":      {fact("user", "home", "Porto")},
		"still loving Porto":                          {fact("user", "home", "Porto")},
		"My sister lives in Lisbon too.":              {fact("sister", "home", "Lisbon")},
		"we have a cat, Miso":                         {fact("user", "pet", "Miso")},
		"and now a puppy, Biscuit!":                   {fact("user", "pet", "Biscuit")},
		"we had to rehome Miso":                       {{Subject: "user", Attribute: "pet", Value: "Miso", Negated: true}},
		"forgot to say: back in 2024 I lived in Faro": {{Subject: "user", Attribute: "home", Value: "Faro", EventTime: at(2).AddDate(-1, 0, 0)}},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	trs, err := o.Add(t.Context(), "ana", []Input{
		{Content: "I moved to Lisbon last month.", EventTime: at(1)},
		{Content: "My sister lives in Lisbon too.", EventTime: at(2)},
		{Content: "Watched the football with friends tonight.", EventTime: at(3)},
		{Content: "we have a cat, Miso", EventTime: at(4)},
		{Content: "The movers came, first night in Porto!", EventTime: at(10)},
		{Content: "and now a puppy, Biscuit!", EventTime: at(11)},
		{Content: "still loving Porto", EventTime: at(12)},
		{Content: "we had to rehome Miso", EventTime: at(13)},
		{Content: "forgot to say: back in 2024 I lived in Faro", EventTime: at(14)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(t, o, "ana", trs)
	want := map[string]store.Status{
		"I moved to Lisbon last month.":               store.StatusSuperseded,
		"My sister lives in Lisbon too.":              store.StatusActive, // another subject: untouched
		"Watched the football with friends tonight.":  store.StatusActive, // no fact: never compared
		"we have a cat, Miso":                         store.StatusSuperseded,
		"The movers came, first night in Porto!":      store.StatusActive, // a restatement keeps it current
		"and now a puppy, Biscuit!":                   store.StatusActive, // pets are many
		"still loving Porto":                          store.StatusActive, // Porto again: the same state
		"we had to rehome Miso":                       store.StatusActive,
		"forgot to say: back in 2024 I lived in Faro": store.StatusSuperseded, // reported late: history
	}
	wantStatuses(t, got, want)
	porto := trs[4]
	if porto.Slot != "user/home" || len(porto.Commits) == 0 || porto.Commits[0].Action != judge.ActionTransition || porto.Commits[0].Slot != "user/home" {
		t.Errorf("the move: slot %q commits %+v", porto.Slot, porto.Commits)
	}
	if r, _ := o.Store().Get(t.Context(), "ana", porto.RecordID); r.Slot != "user/home" || !r.SingleValued || len(RecordFacts(r)) != 1 {
		t.Errorf("record %+v", r)
	}
	// Each pet has its own history: Miso's ends with the giving away, Biscuit's goes on.
	if r, _ := o.Store().Get(t.Context(), "ana", trs[5].RecordID); r.Slot != "user/pet/biscuit" || !r.SingleValued {
		t.Errorf("the puppy's slot: %q single %v", r.Slot, r.SingleValued)
	}
	football := trs[2]
	if len(football.Facts) != 0 || football.FactNote == "" || football.Slot != "" {
		t.Errorf("small talk trace %+v", football)
	}
	for _, c := range football.Candidates {
		if c.Routed || c.Skip != "the new memory states no fact" {
			t.Errorf("small talk compared with %q: %+v", c.Content, c)
		}
	}
	for _, c := range trs[1].Candidates {
		if c.Routed {
			t.Errorf("the sister's home compared with %q", c.Content)
		}
	}
	// The extractor is shown the user's slots, newest first, to reuse them.
	if _, err := o.Add(t.Context(), "ana", []Input{{Content: "still loving Porto", EventTime: at(20)}}); err != nil {
		t.Fatal(err)
	}
	if last := x.seen[len(x.seen)-1]; len(last) < 2 || !containsSlot(last, "user/home") || !containsSlot(last, "user/pet") {
		t.Errorf("slots shown: %v", last)
	}
	if v, err := store.Check(t.Context(), o.Store(), "ana"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
}

func containsSlot(slots []string, s string) bool {
	for _, x := range slots {
		if x == s {
			return true
		}
	}
	return false
}

// A memory whose slot the host does not find is still compared with its version
// group, read from the bank by its key.
func TestVersionGroupWithoutHostHit(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I work at Acme as a welder.":                  {fact("user", "employer", "Acme")},
		"Started at Globex on Monday, fingers crossed": {fact("user", "employer", "Globex")},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x; c.Candidates = 1 })
	trs, err := o.Add(t.Context(), "bo", []Input{
		{Content: "I work at Acme as a welder.", EventTime: at(1)},
		{Content: "Globex tour on Monday, fingers crossed it started well", EventTime: at(2)},
		{Content: "Started at Globex on Monday, fingers crossed", EventTime: at(3)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := statuses(t, o, "bo", trs); st["I work at Acme as a welder."] != store.StatusSuperseded {
		t.Errorf("statuses %v", st)
	}
	var fromSlot bool
	for _, c := range trs[2].Candidates {
		fromSlot = fromSlot || (c.From == "slot" && c.Routed && c.ID == trs[0].RecordID)
	}
	if !fromSlot {
		t.Errorf("the old employer did not come from its slot: %+v", trs[2].Candidates)
	}
}

// An extractor that fails stores the memory without facts and says why; nothing is lost.
func TestFactExtractorFails(t *testing.T) {
	x := &mapExtractor{err: errors.New("model unloaded")}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	trs, err := o.Add(t.Context(), "cy", []Input{{Content: "I live in Oslo.", EventTime: at(1)}, {Content: "I moved to Bergen.", EventTime: at(5)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 2 || !strings.Contains(trs[1].FactNote, "model unloaded") || len(trs[1].Facts) != 0 {
		t.Fatalf("traces %+v", trs)
	}
	for _, tr := range trs {
		if r, err := o.Store().Get(t.Context(), "cy", tr.RecordID); err != nil || r.Status != store.StatusActive {
			t.Errorf("%q: %+v %v", tr.Content, r.Status, err)
		}
	}
	// A cancelled context is an error, not a memory without facts.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	x.err = ctx.Err()
	if _, err := o.Add(ctx, "cy", []Input{{Content: "I moved to Tromsø.", EventTime: at(9)}}); err == nil {
		t.Error("cancelled ingest succeeded")
	}
}

// A fact read by meaning whose slot the user does not have takes a same-subject
// candidate's key when Sentry puts the two memories on one topic; below Config.AdoptTop
// it keeps its own, and so does a fact read from the clause's form (certain).
func TestAdoptSlot(t *testing.T) {
	heads := gate.NewHeads(overlaytest.BagDim, 16, 8, rand.New(rand.NewPCG(3, 4)))
	for _, tt := range []struct {
		name       string
		adopt      float64
		confidence float64
		slot       string
	}{{"adopted", -1, 0.7, "user/gym"}, {"kept", 1, 0.7, "user/gym-fee"}, {"certain", -1, 0, "user/gym-fee"}} {
		t.Run(tt.name, func(t *testing.T) {
			fee := fact("user", "gym-fee", "35")
			fee.Confidence = tt.confidence
			x := &mapExtractor{facts: map[string][]facts.Fact{
				"my gym costs 30 a month":          {fact("user", "gym", "30")},
				"the gym costs 35 a month now ugh": {fee},
				"my sister's gym costs 20":         {fact("sister", "gym-fee", "20")},
			}}
			o := newTestOverlay(t, func(c *Config) { c.Facts, c.Heads, c.AdoptTop = x, heads, tt.adopt })
			trs, err := o.Add(t.Context(), "dee", []Input{
				{Content: "my gym costs 30 a month", EventTime: at(1)},
				{Content: "my sister's gym costs 20", EventTime: at(2)},
				{Content: "the gym costs 35 a month now ugh", EventTime: at(3)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if trs[2].Slot != tt.slot || trs[1].Slot != "sister/gym-fee" {
				t.Errorf("slots %q, %q; want %q (another subject never adopts)", trs[2].Slot, trs[1].Slot, tt.slot)
			}
			st := statuses(t, o, "dee", trs)
			if old := st["my gym costs 30 a month"]; (tt.slot == "user/gym") != (old == store.StatusSuperseded) {
				t.Errorf("the old fee is %s with slot %s", old, tt.slot)
			}
		})
	}
}

// The price of a service the memory names keeps the service's price slot, however near
// the topic head puts it to the rent before it (facts.PricesService).
func TestAdoptSlotKeepsServicePrice(t *testing.T) {
	heads := gate.NewHeads(overlaytest.BagDim, 16, 8, rand.New(rand.NewPCG(3, 4)))
	price := fact("user", "broadband-price", "30")
	price.Confidence = 0.7
	rent := fact("user", "rent", "520")
	rent.Confidence = 0.8
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"rent is 520 a month":            {rent},
		"wifi is hyperoptic, 30 a month": {fact("user", "broadband", "Hyperoptic"), price},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts, c.Heads, c.AdoptTop = x, heads, -1 })
	trs, err := o.Add(t.Context(), "dee", []Input{{Content: "rent is 520 a month", EventTime: at(1)}, {Content: "wifi is hyperoptic, 30 a month", EventTime: at(2)}})
	if err != nil {
		t.Fatal(err)
	}
	if trs[1].Slot != "user/broadband" {
		t.Errorf("the wifi joined slot %q, want user/broadband", trs[1].Slot)
	}
	if st := statuses(t, o, "dee", trs); st["rent is 520 a month"] != store.StatusActive {
		t.Errorf("the rent is %s after the wifi's price", st["rent is 520 a month"])
	}
}

// A fact read by meaning never adopts a candidate's slot, however near the topic head
// puts the two memories, when the two attributes take values of different kinds (a
// running distance is no home; a ticket no passport's expiry date; a nurse no dose) or when its attribute
// names its owner (a medicine's dose is never another medicine's).
func TestAdoptSlotKeeps(t *testing.T) {
	heads := gate.NewHeads(overlaytest.BagDim, 16, 8, rand.New(rand.NewPCG(3, 4)))
	for _, tt := range []struct {
		name      string
		old, new  string
		oldFact   facts.Fact
		newFact   facts.Fact
		wantSlot  string
		certainty float64
	}{
		{"kinds", "my best friend Priya lives in Gdansk", "my best friend Priya runs 9 km every morning",
			fact("priya", "home", "Gdansk"), fact("priya", "running-distance", "9 km"), "priya/running-distance", 0.7},
		{"owners", "I take levothyroxine, 50mcg every morning", "the GP's added amlodipine, 5mg every night",
			fact("user", "levothyroxine-dose", "50mcg"), fact("user", "amlodipine-dose", "5mg"), "user/amlodipine-dose", 0.9},
		{"dates", "passport expires in June 2027, need to renew", "switched to the Deutschlandticket, 58 a month",
			fact("user", "passport-expiry", "June 2027"), fact("user", "ticket", "Deutschlandticket"), "user/ticket", 0.7},
		{"amounts", "started on atorvastatin, 20mg at night", "annual review with the practice nurse, all looks fine",
			fact("user", "atorvastatin-dose", "20mg"), fact("user", "checkup", "practice nurse"), "user/checkup", 0.7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			nf := tt.newFact
			nf.Confidence = tt.certainty
			x := &mapExtractor{facts: map[string][]facts.Fact{tt.old: {tt.oldFact}, tt.new: {nf}}}
			o := newTestOverlay(t, func(c *Config) { c.Facts, c.Heads, c.AdoptTop = x, heads, -1 })
			trs, err := o.Add(t.Context(), "dee", []Input{{Content: tt.old, EventTime: at(1)}, {Content: tt.new, EventTime: at(2)}})
			if err != nil {
				t.Fatal(err)
			}
			if trs[1].Slot != tt.wantSlot {
				t.Errorf("%q joined slot %q, want %s", tt.new, trs[1].Slot, tt.wantSlot)
			}
			if st := statuses(t, o, "dee", trs); st[tt.old] != store.StatusActive {
				t.Errorf("%q is %s after %q", tt.old, st[tt.old], tt.new)
			}
		})
	}
}

// adoptionCase is two memories with the facts the extractor reads from them, the slot
// the second must join and the first's status after it.
type adoptionCase struct {
	name     string
	old, new string
	oldFact  facts.Fact
	newFact  facts.Fact
	wantSlot string
	wantOld  store.Status
}

// runAdoption adds each case's two memories to an overlay (cfg sets it up around the
// case's extractor) and checks the second's slot and the first's status.
func runAdoption(t *testing.T, cases []adoptionCase, cfg func(c *Config, x facts.Extractor)) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			x := &mapExtractor{facts: map[string][]facts.Fact{tt.old: {tt.oldFact}, tt.new: {tt.newFact}}}
			o := newTestOverlay(t, func(c *Config) { cfg(c, x) })
			trs, err := o.Add(t.Context(), "dee", []Input{{Content: tt.old, EventTime: at(1)}, {Content: tt.new, EventTime: at(2)}})
			if err != nil {
				t.Fatal(err)
			}
			if trs[1].Slot != tt.wantSlot {
				t.Errorf("%q joined slot %q, want %s", tt.new, trs[1].Slot, tt.wantSlot)
			}
			if st := statuses(t, o, "dee", trs); st[tt.old] != tt.wantOld {
				t.Errorf("%q is %s after %q, want %s", tt.old, st[tt.old], tt.new, tt.wantOld)
			}
		})
	}
}

// An amount read by meaning joins the one earlier amount slot of its subject whose
// memory names the same thing in a word of its own, whatever near word named its
// attribute; a speaker's name or a currency in both is no such word (written for the
// purpose).
func TestAdoptSlotSameThingAmount(t *testing.T) {
	byMeaning := func(f facts.Fact) facts.Fact { f.Confidence = 0.6; return f }
	runAdoption(t, []adoptionCase{
		{"same thing", "hyperoptic finally came to our building, 500 meg for £28", "hyperoptic promo is over, £35 a month from this bill",
			fact("user", "price", "£28"), byMeaning(fact("user", "bill", "£35")), "user/price", store.StatusSuperseded},
		{"other thing", "hyperoptic finally came to our building, 500 meg for £28", "the window cleaner wants £35 a month now",
			fact("user", "price", "£28"), byMeaning(fact("user", "bill", "£35")), "user/bill", store.StatusActive},
		{"currency only", "new year goal: 200 euros a month into the emergency fund", "paid the insurance for the scooter, 180 euros, ouch",
			fact("user", "budget", "200 euros"), byMeaning(fact("user", "price", "180 euros")), "user/price", store.StatusActive},
		{"speaker only", "Nadia: the climbing wall membership is £40", "Nadia: my eating out budget is £200 a month",
			fact("nadia", "price", "£40"), byMeaning(fact("nadia", "budget", "£200")), "nadia/budget", store.StatusActive},
	}, func(c *Config, x facts.Extractor) { c.Facts = x })
}

// A fact read by form joins the subject's slot named in other words about the same
// thing, and only such a slot.
func TestAdoptSlotByName(t *testing.T) {
	heads := gate.NewHeads(overlaytest.BagDim, 16, 8, rand.New(rand.NewPCG(3, 4)))
	runAdoption(t, []adoptionCase{
		{"same thing", "annual travel insurance is with Staysure", "switched the insurance to Battleface",
			fact("user", "travel-insurance", "Staysure"), fact("user", "insurance-provider", "Battleface"), "user/travel-insurance", store.StatusSuperseded},
		{"other kind", "bins go out on thursday", "bin lorry comes at 7am",
			fact("user", "bin-day", "thursday"), fact("user", "bin-time", "7am"), "user/bin-time", store.StatusActive},
		{"other subject", "my sister's travel insurance is with Staysure", "switched the insurance to Battleface",
			fact("sister", "travel-insurance", "Staysure"), fact("user", "insurance-provider", "Battleface"), "user/insurance-provider", store.StatusActive},
	}, func(c *Config, x facts.Extractor) { c.Facts, c.Heads = x, heads })
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"travel-insurance", "insurance-provider", true}, {"bin-day", "bin-time", false}, {"bin-day", "brenda-day", false},
		{"favourite-band", "favourite-author", false}, {"pension-contribution", "pension-provider", false}, {"gym-fee", "gym", false}, {"home", "home", false}, {"seminars", "seminar-day", true},
	} {
		if got := facts.SharesTopic(tt.a, tt.b); got != tt.want {
			t.Errorf("SharesTopic(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// A memory that stated no fact is the state a later denial ends when the denial names
// its value: the oldest such memory gets the fact and is superseded; a later memory that
// only mentions the value, one that names another's value, and a question, stay as they were — on
// both stores, with the fact stored.
func TestNamedVersions(t *testing.T) {
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			gone := fact("user", "partner", "Tomás")
			gone.Negated = true
			ended := fact("user", "subscription", "spotify")
			ended.Negated = true
			quit := fact("niamh", "hobby", "pottery")
			quit.Negated = true
			// A candidate whose one fact the meaning read gives way to the denial that
			// names it; one whose fact the form read keeps its group.
			biscuits := fact("brings", "diet", "biscuits")
			biscuits.Confidence = 0.55
			bexLeft := fact("user", "manager", "bex")
			bexLeft.Negated = true
			kitGone := fact("user", "named", "Kit")
			kitGone.Negated = true
			x := &mapExtractor{facts: map[string][]facts.Fact{
				"so me and Tomás broke up":              {gone},
				"cancelled spotify":                     {ended},
				"niamh's quit pottery":                  {quit},
				"team lead is bex, brings biscuits":     {biscuits},
				"my running buddy is Kit":               {fact("user", "running-buddy", "Kit")},
				"bex left?? new manager is tariq":       {fact("user", "manager", "tariq"), bexLeft},
				"Kit is moving away, no more park runs": {kitGone},
			}}
			o, st := factsOverlay(t, open, x)
			trs, err := o.Add(t.Context(), "dee", []Input{
				{Content: "can you move spotify playlists over to apple music?", EventTime: at(1)},
				{Content: "been seeing someone called Tomás for a couple of months", EventTime: at(1)},
				{Content: "Tomás cooked me dinner tonight", EventTime: at(2)},
				{Content: "started a pottery class on wednesdays", EventTime: at(3)},
				{Content: "so me and Tomás broke up", EventTime: at(4)},
				{Content: "niamh's quit pottery", EventTime: at(5)},
				{Content: "cancelled spotify", EventTime: at(6)},
				{Content: "team lead is bex, brings biscuits", EventTime: at(7)},
				{Content: "my running buddy is Kit", EventTime: at(7)},
				{Content: "bex left?? new manager is tariq", EventTime: at(8)},
				{Content: "Kit is moving away, no more park runs", EventTime: at(8)},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]store.Status{
				"been seeing someone called Tomás for a couple of months": store.StatusSuperseded,
				"Tomás cooked me dinner tonight":                          store.StatusActive,
				"started a pottery class on wednesdays":                   store.StatusActive,
				"can you move spotify playlists over to apple music?":     store.StatusActive,
				"team lead is bex, brings biscuits":                       store.StatusSuperseded,
				"my running buddy is Kit":                                 store.StatusActive,
			}
			got := statuses(t, o, "dee", trs)
			wantStatuses(t, got, want)
			if v, err := store.Check(t.Context(), st, "dee"); err != nil || len(v) != 0 {
				t.Errorf("invariants %v %v", v, err)
			}
			r, err := o.Store().Get(t.Context(), "dee", trs[1].RecordID)
			if err != nil {
				t.Fatal(err)
			}
			if fs := RecordFacts(r); r.Slot != "user/partner" || len(fs) != 1 || fs[0].Value != "Tomás" || fs[0].Negated {
				t.Errorf("the named memory has slot %q and facts %+v, want user/partner=Tomás", r.Slot, fs)
			}
			if r, err = o.Store().Get(t.Context(), "dee", trs[7].RecordID); err != nil || r.Slot != "user/manager" {
				t.Errorf("bex's memory has slot %q (%v), want user/manager", r.Slot, err)
			}
			if r, err = o.Store().Get(t.Context(), "dee", trs[8].RecordID); err != nil || r.Slot != "user/running-buddy" {
				t.Errorf("Kit's memory has slot %q (%v), want its own user/running-buddy", r.Slot, err)
			}
		})
	}
}

// An amount read under another word joins the earlier memory that names its thing:
// "pension pot: 4% going in" holds a rate and names the pension, so "upped the pension
// to 6%" is its next version; a place named in an earlier memory joins nothing.
func TestAmountNamedIn(t *testing.T) {
	for name, open := range bothStores() {
		t.Run(name, func(t *testing.T) {
			x := &mapExtractor{facts: map[string][]facts.Fact{
				"checked the pension portal, I'm putting in 4%":   {fact("user", "rate", "4%")},
				"upped the pension to 6% today":                   {fact("user", "pension", "6%")},
				"moving to Leeds for a job at the University":     {fact("user", "home", "Leeds")},
				"flew out of Manchester, not the University city": {fact("user", "university", "Manchester")},
				"my exam is on 12 June":                           {fact("user", "supervisor", "12")},
				"the exam moved to 19 June":                       {fact("user", "exam", "19 June")},
			}}
			o, _ := factsOverlay(t, open, x)
			trs, err := o.Add(t.Context(), "dee", []Input{
				{Content: "checked the pension portal, I'm putting in 4%", EventTime: at(1)},
				{Content: "moving to Leeds for a job at the University", EventTime: at(1)},
				{Content: "upped the pension to 6% today", EventTime: at(2)},
				{Content: "flew out of Manchester, not the University city", EventTime: at(2)},
				{Content: "my exam is on 12 June", EventTime: at(3)},
				{Content: "the exam moved to 19 June", EventTime: at(4)},
			})
			if err != nil {
				t.Fatal(err)
			}
			wantStatuses(t, statuses(t, o, "dee", trs), map[string]store.Status{
				"checked the pension portal, I'm putting in 4%": store.StatusSuperseded,
				"moving to Leeds for a job at the University":   store.StatusActive,
				// A supervisor holding a number was read wrongly: no amount's slot.
				"my exam is on 12 June": store.StatusActive,
			})
			if r, err := o.Store().Get(t.Context(), "dee", trs[2].RecordID); err != nil || r.Slot != "user/rate" {
				t.Errorf("the new rate has slot %q (%v), want user/rate", r.Slot, err)
			}
		})
	}
}

// Version groups by fact do not depend on arrival order or on deletions: for random
// streams of moves, job changes, restatements, pets taken in and given away, reported in
// any order with some memories deleted on the way, the final statuses are those of the
// remaining memories reported in time order — on both stores.
func TestVersionGroupsArrivalOrder(t *testing.T) {
	stores := bothStores()
	cities := []string{"Lisbon", "Porto", "Faro", "Braga"}
	jobs := []string{"nurse", "baker", "welder"}
	pets := []string{"Miso", "Biscuit", "Pip"}
	for seed := range uint64(25) {
		rng := rand.New(rand.NewPCG(seed, 11))
		x := &mapExtractor{facts: map[string][]facts.Fact{}}
		var stream []Input
		for i := range 6 + rng.IntN(8) {
			var text string
			var f facts.Fact
			switch rng.IntN(3) {
			case 0:
				c := cities[rng.IntN(len(cities))]
				text, f = fmt.Sprintf("I live in %s (%d)", c, i), fact("user", "home", c)
			case 1:
				j := jobs[rng.IntN(len(jobs))]
				text, f = fmt.Sprintf("I work as a %s (%d)", j, i), fact("user", "job", j)
			default:
				p := pets[rng.IntN(len(pets))]
				text, f = fmt.Sprintf("we have %s (%d)", p, i), fact("user", "pet", p)
				if rng.IntN(3) == 0 {
					text, f.Negated = fmt.Sprintf("we gave %s away (%d)", p, i), true
				}
			}
			x.facts[text] = []facts.Fact{f}
			stream = append(stream, Input{Content: text, EventTime: at(1).Add(time.Duration(i) * time.Hour)})
		}
		shuffled := slices.Clone(stream)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		// Up to two memories are deleted, each at a random point after it arrived.
		deleteAfter := map[int][]string{} // arrival index → texts deleted after it
		deleted := map[string]bool{}
		for range rng.IntN(3) {
			k := rng.IntN(len(shuffled))
			if text := shuffled[k].Content; !deleted[text] {
				deleted[text] = true
				at := k + rng.IntN(len(shuffled)-k)
				deleteAfter[at] = append(deleteAfter[at], text)
			}
		}
		kept := slices.DeleteFunc(slices.Clone(stream), func(m Input) bool { return deleted[m.Content] })
		for name, open := range stores {
			final := func(in []Input, deletes map[int][]string) map[string]store.Status {
				st, h := open(t)
				o, err := New(Config{Store: st, Host: h, Embedder: overlaytest.BagEmbedder{}, Facts: x})
				if err != nil {
					t.Fatal(err)
				}
				// One memory an Add, as a user reports them.
				var trs []IngestTrace
				ids := map[string]string{}
				for i, m := range in {
					tr, err := o.Add(t.Context(), "eve", []Input{m})
					if err != nil {
						t.Fatalf("seed %d %s: %v", seed, name, err)
					}
					ids[m.Content] = tr[0].RecordID
					if r, err := st.Get(t.Context(), "eve", tr[0].RecordID); err != nil || r.Status != tr[0].Status {
						t.Errorf("seed %d %s: %q's trace says %s, the bank %s (%v)", seed, name, m.Content, tr[0].Status, r.Status, err)
					}
					trs = append(trs, tr...)
					for _, text := range deletes[i] {
						if err := o.Delete(t.Context(), "eve", ids[text]); err != nil {
							t.Fatalf("seed %d %s: delete %q: %v", seed, name, text, err)
						}
					}
				}
				if v, err := store.Check(t.Context(), st, "eve"); err != nil || len(v) != 0 {
					t.Errorf("seed %d %s: invariants %v %v", seed, name, v, err)
				}
				trs = slices.DeleteFunc(trs, func(tr IngestTrace) bool { return deleted[tr.Content] })
				return statuses(t, o, "eve", trs)
			}
			want, got := final(kept, nil), final(shuffled, deleteAfter)
			if len(got) != len(want) {
				t.Errorf("seed %d %s: %d memories left, want %d", seed, name, len(got), len(want))
			}
			for text, st := range want {
				if got[text] != st {
					t.Errorf("seed %d %s: %q is %s in arrival order with deletions %v, %s in time order without them", seed, name, text, got[text], deleteAfter, st)
				}
			}
		}
	}
}

// Two statements of one value of a multi-valued attribute share its history even when
// the extractor phrases the value differently.
func TestValueGroupJoined(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"Priya paints watercolors three times a week":      {fact("priya", "hobby", "paints watercolors")},
		"on holiday Priya paints watercolors only at dawn": {{Subject: "priya", Attribute: "hobby", Value: "watercolors", Scope: "on holiday"}},
		"Priya also does pottery":                          {fact("priya", "hobby", "pottery")},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	trs, err := o.Add(t.Context(), "fay", []Input{
		{Content: "Priya paints watercolors three times a week", EventTime: at(1)},
		{Content: "Priya also does pottery", EventTime: at(2)},
		{Content: "on holiday Priya paints watercolors only at dawn", EventTime: at(3)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if trs[2].Slot != "priya/hobby/paints-watercolors" || trs[1].Slot != "priya/hobby/pottery" {
		t.Errorf("slots %q, %q", trs[2].Slot, trs[1].Slot)
	}
	var scoped bool
	for _, c := range trs[2].Commits {
		scoped = scoped || (c.Action == judge.ActionScopedException && c.Old == trs[0].RecordID)
	}
	if !scoped {
		t.Errorf("commits %+v, want a scoped exception to the first statement", trs[2].Commits)
	}
}

// A fact read with less confidence than Config.FactMin leaves its memory out of version
// groups: chat that resembles a state neither supersedes nor is superseded.
func TestUncertainFactsMakeNoGroup(t *testing.T) {
	sure := fact("user", "home", "Lisbon")
	unsure := facts.Fact{Subject: "user", Attribute: "home", Value: "visit", Confidence: 0.4}
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I moved to Lisbon last month.":   {sure},
		"can't wait for your visit!":      {unsure},
		"I'm in Porto now, new flat!":     {{Subject: "user", Attribute: "home", Value: "Porto", Confidence: 0.9}},
		"the Porto flat has a big window": {{Subject: "user", Attribute: "home", Value: "window", Confidence: 0.3}},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts, c.FactMin = x, 0.5 })
	trs, err := o.Add(t.Context(), "ana", []Input{
		{Content: "I moved to Lisbon last month.", EventTime: at(1)},
		{Content: "can't wait for your visit!", EventTime: at(2)},
		{Content: "I'm in Porto now, new flat!", EventTime: at(3)},
		{Content: "the Porto flat has a big window", EventTime: at(4)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]store.Status{
		"I moved to Lisbon last month.":   store.StatusSuperseded,
		"can't wait for your visit!":      store.StatusActive,
		"I'm in Porto now, new flat!":     store.StatusActive,
		"the Porto flat has a big window": store.StatusActive,
	}
	got := statuses(t, o, "ana", trs)
	wantStatuses(t, got, want)
	for _, i := range []int{1, 3} {
		tr := trs[i]
		if tr.Slot != "" || len(tr.Facts) != 1 || !strings.Contains(tr.FactNote, "below confidence 0.50") {
			t.Errorf("%q: slot %q, facts %v, note %q: want no slot, the fact in the trace and why", tr.Content, tr.Slot, tr.Facts, tr.FactNote)
		}
	}
	if _, err := New(Config{FactMin: 1.5}); err == nil || !strings.Contains(err.Error(), "fact min 1.5") {
		t.Errorf("FactMin 1.5: err %v, want it named", err)
	}
}

// referentExtractor names each memory's text as its referent and records the referent
// each call's first input was given.
type referentExtractor struct{ given []string }

func (r *referentExtractor) Extract(_ context.Context, in []facts.Input) ([]facts.Result, error) {
	r.given = append(r.given, in[0].Referent)
	out := make([]facts.Result, len(in))
	for i, x := range in {
		out[i] = facts.Result{Source: "fake", Referent: x.Text}
	}
	return out, nil
}

// Whom the last memory referred to reaches the next extraction call (the next chunk, the
// next Add), so that "he" in a later memory still means the person named before.
func TestReferentAcrossChunks(t *testing.T) {
	x := &referentExtractor{}
	o := newTestOverlay(t, func(c *Config) { c.Facts, c.EmbedChunk = x, 2 })
	for _, batch := range [][]string{{"a", "b", "c"}, {"d"}} {
		var in []Input
		for _, s := range batch {
			in = append(in, Input{Content: s})
		}
		if _, err := o.Add(t.Context(), "ana", in); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"", "b", "c"}; !slices.Equal(x.given, want) {
		t.Errorf("first inputs' referents %q, want %q", x.given, want)
	}
}

// A memory with two values of one single-valued slot is stored, and the trace says so.
func TestTwoValuesInOneMemory(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I live in Porto. I live in Lisbon.": {fact("user", "home", "Porto"), fact("user", "home", "Lisbon")},
		"we have a cat and a dog":            {fact("user", "pet", "cat"), fact("user", "pet", "dog")},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	trs, err := o.Add(t.Context(), "ana", []Input{{Content: "I live in Porto. I live in Lisbon."}, {Content: "we have a cat and a dog"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(trs[0].FactNote, `two values of user/home in one memory ("Porto" and "Lisbon")`) || trs[0].Slot != "user/home" {
		t.Errorf("note %q, slot %q: want the two values named and the memory in user/home", trs[0].FactNote, trs[0].Slot)
	}
	if strings.Contains(trs[1].FactNote, "two values") {
		t.Errorf("pets are many-valued, yet the note says %q", trs[1].FactNote)
	}
}

// One activity named under two activity attributes is one history.
func TestActivityGroupJoined(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"my aunt plays chess every day":           {fact("aunt", "hobby", "chess")},
		"my aunt only plays chess at weekends":    {{Subject: "aunt", Attribute: "watches", Value: "chess", Scope: "at weekends"}},
		"my uncle watches chess on tv":            {fact("uncle", "watches", "chess")},
		"my aunt is allergic to cats, like chess": {fact("aunt", "allergy", "chess")},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	trs, err := o.Add(t.Context(), "fay", []Input{
		{Content: "my aunt plays chess every day", EventTime: at(1)},
		{Content: "my uncle watches chess on tv", EventTime: at(2)},
		{Content: "my aunt is allergic to cats, like chess", EventTime: at(3)},
		{Content: "my aunt only plays chess at weekends", EventTime: at(4)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if trs[3].Slot != "aunt/hobby/chess" {
		t.Errorf("the aunt's chess as watched: slot %q, want her hobby's group", trs[3].Slot)
	}
	if trs[1].Slot != "uncle/watches/chess" || trs[2].Slot != "aunt/allergy/chess" {
		t.Errorf("another subject or a non-activity attribute joined: %q, %q", trs[1].Slot, trs[2].Slot)
	}
}

// The extractor is shown each recent slot's latest values, newest first, each once.
func TestRecentSlotsValues(t *testing.T) {
	var r recentSlots
	for _, kv := range [][2]string{{"user/home", "Lisbon"}, {"user/home", "Porto"}, {"user/home", "lisbon"}, {"user/job", ""}, {"user/home", "Faro"}, {"user/home", "Braga"}, {"user/home", "Evora"}} {
		r.add(kv[0], kv[1])
	}
	got := r.values()
	if want := []string{"Evora", "Braga", "Faro", "lisbon"}; !slices.Equal(got["user/home"], want) || len(got) != 1 {
		t.Errorf("values %v, want user/home %v only", got, want)
	}
	if keys := r.list(); !slices.Equal(keys, []string{"user/home", "user/job"}) {
		t.Errorf("keys %v", keys)
	}
}

// A denied value is shown apart, as one the slot held and no longer holds ("back on
// YNAB" after "cancelled YNAB" names it), never as a value the slot holds.
func TestRecentSlotsEnded(t *testing.T) {
	o := newTestOverlay(t, func(c *Config) { c.Facts = &mapExtractor{} })
	gone := facts.Fact{Subject: "rosa", Attribute: "subscription", Value: "YNAB", Negated: true}
	o.noteFacts("ana", []facts.Fact{gone, fact("ana", "home", "Leeds")})
	r := o.recentSlots("ana")
	if got := r.endedValues(); !slices.Equal(got[gone.Slot()], []string{"YNAB"}) || len(got) != 1 {
		t.Errorf("ended %v, want %s: YNAB only", got, gone.Slot())
	}
	if got := r.values(); len(got[gone.Slot()]) != 0 || !slices.Equal(got["ana/home"], []string{"Leeds"}) {
		t.Errorf("values %v: the ended YNAB is no value held", got)
	}
}

// slowStore commits late: the next chunk is embedded well before this one is stored.
type slowStore struct{ store.Store }

func (s slowStore) Tx(ctx context.Context, user string, fn func(store.Tx) error) error {
	time.Sleep(20 * time.Millisecond)
	return s.Store.Tx(ctx, user, fn)
}

// Each chunk's facts are read after the chunk before it is committed, so the extractor
// is shown every slot committed before, however late the commits are: the same
// memories give the same bank.
func TestExtractorSeesCommittedSlots(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{}}
	var in []Input
	for i := range 6 {
		text := fmt.Sprintf("memory %d", i)
		x.facts[text] = []facts.Fact{fact("user", fmt.Sprintf("attr-%d", i), "x")}
		in = append(in, Input{Content: text})
	}
	o := newTestOverlay(t, func(c *Config) {
		c.Facts, c.EmbedChunk = x, 1
		c.Store = slowStore{c.Store}
	})
	if _, err := o.Add(t.Context(), "ana", in); err != nil {
		t.Fatal(err)
	}
	for i, seen := range x.seen {
		if len(seen) != i {
			t.Errorf("memory %d was shown slots %q, want the %d committed before it", i, seen, i)
		}
	}
}

// A new process over the same bank shows the extractor the user's slots and values as
// the one that stored them did; after a delete, what is left.
func TestExtractorSeesSlotsAfterRestart(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I live in Porto":         {fact("user", "home", "Porto")},
		"my dog is called Rex":    {fact("user", "pet", "Rex")},
		"sorry, Lisbon not Porto": nil,
	}}
	first := newTestOverlay(t, func(c *Config) { c.Facts = x })
	if _, err := first.Add(t.Context(), "ana", []Input{{Content: "I live in Porto"}, {Content: "my dog is called Rex"}}); err != nil {
		t.Fatal(err)
	}
	again := func() *Overlay {
		o, err := New(Config{Store: first.cfg.Store, Host: first.cfg.Host, Embedder: first.cfg.Embedder, Facts: x})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	x.seen, x.values = nil, nil
	if _, err := again().Add(t.Context(), "ana", []Input{{Content: "sorry, Lisbon not Porto"}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"user/pet", "user/home"}; !slices.Equal(x.seen[0], want) {
		t.Errorf("after a restart the extractor was shown slots %q, want %q", x.seen[0], want)
	}
	if got := x.values[0]["user/home"]; !slices.Equal(got, []string{"Porto"}) {
		t.Errorf("after a restart the extractor was shown home values %q, want [Porto]", got)
	}
	o := again()
	if _, err := o.Add(t.Context(), "ana", []Input{{Content: "I live in Porto"}}); err != nil {
		t.Fatal(err)
	}
	if err := o.DeleteUser(t.Context(), "ana"); err != nil {
		t.Fatal(err)
	}
	x.seen, x.values = nil, nil
	if _, err := o.Add(t.Context(), "ana", []Input{{Content: "sorry, Lisbon not Porto"}}); err != nil {
		t.Fatal(err)
	}
	if len(x.seen[0]) != 0 || len(x.values[0]) != 0 {
		t.Errorf("after deleting the user the extractor was shown slots %q and values %v", x.seen[0], x.values[0])
	}
}

// listCounter counts the List calls that read a page of the newest records.
type listCounter struct {
	store.Store
	reads atomic.Int32
}

func (l *listCounter) List(ctx context.Context, user string, f store.Filter) ([]store.Record, string, error) {
	if f.Newest && f.Limit > 1 {
		l.reads.Add(1)
	}
	return l.Store.List(ctx, user, f)
}

// Two processes on one bank: each is shown what the other committed since it last
// looked, and reads the slots again only then.
func TestExtractorSeesOtherProcessSlots(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"my dog is called Rex":    {fact("user", "pet", "Rex")},
		"I live in Porto":         {fact("user", "home", "Porto")},
		"sorry, Lisbon not Porto": nil,
		"nice weather today":      nil,
	}}
	a := newTestOverlay(t, func(c *Config) { c.Facts = x })
	counted := &listCounter{Store: a.cfg.Store}
	a.cfg.Store = counted
	b, err := New(Config{Store: counted.Store, Host: a.cfg.Host, Embedder: a.cfg.Embedder, Facts: x})
	if err != nil {
		t.Fatal(err)
	}
	add := func(o *Overlay, text string) {
		t.Helper()
		if _, err := o.Add(t.Context(), "ana", []Input{{Content: text}}); err != nil {
			t.Fatal(err)
		}
	}
	add(a, "my dog is called Rex")
	add(a, "nice weather today")
	if n := counted.reads.Load(); n != 1 {
		t.Errorf("two Adds in one process read the slots %d times, want once (its own commits are known)", n)
	}
	add(b, "I live in Porto")
	x.seen, x.values = nil, nil
	add(a, "sorry, Lisbon not Porto")
	if want := []string{"user/home", "user/pet"}; !slices.Equal(x.seen[0], want) {
		t.Errorf("after another process's commit the extractor was shown slots %q, want %q", x.seen[0], want)
	}
	if got := x.values[0]["user/home"]; !slices.Equal(got, []string{"Porto"}) {
		t.Errorf("after another process's commit the extractor was shown home values %q, want [Porto]", got)
	}
	if n := counted.reads.Load(); n != 2 {
		t.Errorf("the slots were read %d times, want twice (the first Add, and after the other process wrote)", n)
	}
}

// TestLaterReportOfAStateThatHolds: a memory that dates its state before a version said
// earlier without a time is the newer information ("I live in Paris." then "we moved to
// Lyon last month"); one that tells its state as ended, or a version with a stated time
// of its own, keeps the order of the stated times.
func TestLaterReportOfAStateThatHolds(t *testing.T) {
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"I live in Paris.":                          {fact("user", "home", "Paris")},
		"We moved to Lyon last month.":              {{Subject: "user", Attribute: "home", Value: "Lyon", EventTime: at(1)}},
		"Back in 2020 I lived in Nantes.":           {{Subject: "user", Attribute: "home", Value: "Nantes", EventTime: at(1).AddDate(-5, 0, 0)}},
		"I work at Fennwick.":                       {fact("user", "employer", "Fennwick")},
		"since march I'm at Quillpoint":             {{Subject: "user", Attribute: "employer", Value: "Quillpoint", EventTime: at(5)}},
		"oh and I joined Harbour back in february!": {{Subject: "user", Attribute: "employer", Value: "Harbour", EventTime: at(3)}},
		"my pension's with Nest":                    {fact("user", "pension", "Nest")},
		// "was" tells no ended state here: it is not in the clause that names the value.
		"I was wrong the other day, I moved it to PensionBee back in January": {{Subject: "user", Attribute: "pension", Value: "PensionBee", EventTime: at(1)}},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	trs, err := o.Add(t.Context(), "ana", []Input{
		{Content: "I live in Paris.", EventTime: at(10)},
		{Content: "We moved to Lyon last month.", EventTime: at(11)},
		{Content: "Back in 2020 I lived in Nantes.", EventTime: at(12)},
		{Content: "I work at Fennwick.", EventTime: at(2)},
		{Content: "since march I'm at Quillpoint", EventTime: at(12)},
		{Content: "oh and I joined Harbour back in february!", EventTime: at(13)},
		{Content: "my pension's with Nest", EventTime: at(3)},
		{Content: "I was wrong the other day, I moved it to PensionBee back in January", EventTime: at(4)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(t, o, "ana", trs)
	want := map[string]store.Status{
		"I live in Paris.":                          store.StatusSuperseded,
		"We moved to Lyon last month.":              store.StatusActive,     // said later, still holds
		"Back in 2020 I lived in Nantes.":           store.StatusSuperseded, // an ended state: history
		"I work at Fennwick.":                       store.StatusSuperseded,
		"since march I'm at Quillpoint":             store.StatusActive,     // its start was said
		"oh and I joined Harbour back in february!": store.StatusSuperseded, // before Quillpoint's stated start
		"my pension's with Nest":                    store.StatusSuperseded,
		"I was wrong the other day, I moved it to PensionBee back in January": store.StatusActive,
	}
	wantStatuses(t, got, want)
	if note := trs[1].FactNote; !strings.Contains(note, `"I live in Paris."`) {
		t.Errorf("the trace does not say why Lyon was placed after Paris: %q", note)
	}
	if note := trs[5].FactNote; strings.Contains(note, "placed after") {
		t.Errorf("Harbour placed after a version with a stated time: %q", note)
	}
	if v, err := store.Check(t.Context(), o.Store(), "ana"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
}

// A denial of an earlier version's value ends that version only: the current one stays.
// A denial of the current value, or of a value no version states, ends the current one.
func TestDenialOfAnEarlierValue(t *testing.T) {
	neg := func(subject, attribute, value string) facts.Fact {
		return facts.Fact{Subject: subject, Attribute: attribute, Value: value, Negated: true}
	}
	x := &mapExtractor{facts: map[string][]facts.Fact{
		"my laptop is an old dell xps":   {fact("user", "laptop", "old dell xps")},
		"got a new macbook pro for work": {fact("user", "laptop", "macbook pro")},
		"sold the dell on ebay":          {neg("user", "laptop", "dell")},
		"I drive a golf":                 {fact("user", "car", "golf")},
		"sold the golf":                  {neg("user", "car", "golf")},
		"flat white every morning":       {fact("user", "drink", "flat white")},
		"I don't drink coffee anymore":   {neg("user", "drink", "coffee")},
	}}
	o := newTestOverlay(t, func(c *Config) { c.Facts = x })
	var in []Input
	for i, text := range []string{"my laptop is an old dell xps", "got a new macbook pro for work", "sold the dell on ebay",
		"I drive a golf", "sold the golf", "flat white every morning", "I don't drink coffee anymore"} {
		in = append(in, Input{Content: text, EventTime: at(i + 1)})
	}
	trs, err := o.Add(t.Context(), "ana", in)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(t, o, "ana", trs)
	want := map[string]store.Status{
		"my laptop is an old dell xps":   store.StatusSuperseded,
		"got a new macbook pro for work": store.StatusActive, // the dell was sold, not the macbook
		"sold the dell on ebay":          store.StatusActive,
		"I drive a golf":                 store.StatusSuperseded,
		"sold the golf":                  store.StatusActive,
		"flat white every morning":       store.StatusSuperseded, // no version says coffee: the time line
		"I don't drink coffee anymore":   store.StatusActive,
	}
	wantStatuses(t, got, want)
	if !slices.ContainsFunc(trs[2].Commits, func(c CommitTrace) bool { return strings.Contains(c.Note, "earlier version's value") }) {
		t.Errorf("the trace does not say why the macbook stays current: %+v", trs[2].Commits)
	}
	if v, err := store.Check(t.Context(), o.Store(), "ana"); err != nil || len(v) != 0 {
		t.Errorf("invariants: %v %v", v, err)
	}
}
