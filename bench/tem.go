package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/atma-dev/atma/overlay/retrieval"
	"github.com/atma-dev/atma/overlay/store"
)

// TEM defaults (seed 001).
const (
	DefaultTEMPersonas = 20
	DefaultTEMSessions = 8
	DefaultTEMMoves    = 3
	DefaultTEMSeed     = 1
	DefaultTEMFiller   = 4
)

// TEMConfig configures GenerateTEM. The zero value means the defaults, except Seed,
// whose zero is seed 000 (the benchmark's own is DefaultTEMSeed).
type TEMConfig struct {
	// Personas is the number of personas (0: 20).
	Personas int `json:"personas"`
	// Sessions is the number of sessions per persona (0: 8).
	Sessions int `json:"sessions"`
	// Moves is how many times each attribute changes (0: 3; at least 2, so that there is
	// a state before the one before the latest).
	Moves int `json:"moves"`
	// Filler is the number of small-talk turns per session (0: 4; negative: none).
	Filler int    `json:"filler"`
	Seed   uint64 `json:"seed"`
}

// Validate reports every problem with c.
func (c TEMConfig) Validate() error {
	var errs []error
	if c.Personas < 0 {
		errs = append(errs, fmt.Errorf("personas %d is negative", c.Personas))
	}
	if c.Sessions < 0 {
		errs = append(errs, fmt.Errorf("sessions %d is negative", c.Sessions))
	}
	if c.Moves < 0 || c.Moves == 1 || c.Moves > 8 {
		errs = append(errs, fmt.Errorf("moves %d is outside 2..8", c.Moves))
	}
	d := c.withDefaults()
	if d.Sessions < 2 {
		errs = append(errs, fmt.Errorf("sessions %d: at least 2, one to state the attributes and one to change them", d.Sessions))
	}
	return errors.Join(errs...)
}

func (c TEMConfig) withDefaults() TEMConfig {
	if c.Personas == 0 {
		c.Personas = DefaultTEMPersonas
	}
	if c.Sessions == 0 {
		c.Sessions = DefaultTEMSessions
	}
	if c.Moves == 0 {
		c.Moves = DefaultTEMMoves
	}
	if c.Filler == 0 {
		c.Filler = DefaultTEMFiller
	}
	return c
}

// TEM attributes.
const (
	AttrResidence  = "residence"
	AttrOccupation = "occupation"
	AttrDrink      = "drink"
)

// TEM question types.
const (
	TEMCurrent      = "current"       // the state that holds now
	TEMBeforeLatest = "before_latest" // the state immediately before the latest change
	TEMHistorical   = "historical"    // an earlier state
)

// Persona is one TEM persona: sessions of first-person turns in which three attributes
// change several times.
type Persona struct {
	ID     string  `json:"id"`
	Events []Event `json:"events"`
	// States are each attribute's values, oldest first; StateEvents the events that
	// state them.
	States      map[string][]string `json:"states"`
	StateEvents map[string][]string `json:"state_events"`
}

// TEMQuestion asks for one state of one attribute; the answer is its key entity.
type TEMQuestion struct {
	ID        string `json:"id"`
	Persona   string `json:"persona"`
	Attribute string `json:"attribute"`
	Type      string `json:"type"`
	Question  string `json:"question"`
	Answer    string `json:"answer"`
	// State is the answer's place in the attribute's states (0 = first).
	State int `json:"state"`
}

// TEM is a generated TEM-style benchmark.
type TEM struct {
	Config    TEMConfig     `json:"config"`
	Personas  []Persona     `json:"personas"`
	Questions []TEMQuestion `json:"questions"`
}

var drinks = []string{
	"oat flat white", "green tea", "black coffee", "matcha latte", "sparkling water", "chai latte",
	"hot chocolate", "iced americano", "rooibos tea", "kombucha", "cortado", "peppermint tea",
	"cold brew", "lemonade", "golden milk", "yerba mate",
}

var fillers = []string{
	"I watched a documentary about octopuses last night.", "The weather was lovely for a walk today.",
	"I finally finished the mystery novel I was reading.", "My phone screen cracked again, annoyingly.",
	"I tried a new recipe for lentil soup.", "The neighbours' cat visited my balcony.",
	"I spent the afternoon sorting old photos.", "There was a street festival near the park.",
	"I have been learning a few words of Portuguese.", "My bike needed a new chain.",
	"I went to a friend's birthday dinner.", "The train was delayed by twenty minutes.",
	"I planted basil on the windowsill.", "I binge-watched a cooking show.",
	"I bought a new pair of running shoes.", "The power went out for an hour.",
	"I called my grandmother for a long chat.", "I cleaned out the fridge, finally.",
	"I tried a pottery class with a friend.", "I found a great podcast about history.",
	"The library had a sale on old books.", "I fixed the squeaky door hinge.",
	"I went stargazing outside the city.", "My laptop got a software update that broke the printer.",
}

type temAttr struct {
	name            string
	initial, change []string
	now, beforeLast []string
	before, first   []string
	values          func(d *temDraw) string
}

type temDraw struct {
	cities, titles, employers, drinks *draw[string]
}

var temAttrs = []temAttr{
	{
		name:       AttrResidence,
		initial:    []string{"I live in {v}.", "Home for me is a flat in {v}."},
		change:     []string{"I moved from {prev} to {v} last week.", "I just moved to {v}; the boxes are everywhere.", "Big change: I relocated to {v}."},
		now:        []string{"Where do I live now?"},
		beforeLast: []string{"Where did I live right before I moved to {latest}?"},
		before:     []string{"Where did I live before I moved to {next}?"},
		first:      []string{"Where did I live first?"},
		values:     func(d *temDraw) string { return d.cities.next() },
	},
	{
		name:       AttrOccupation,
		initial:    []string{"I work as {av} at {employer}.", "My job: {v} at {employer}."},
		change:     []string{"I left {prevEmployer} and started as {av} at {employer}.", "New job! I'm now {av} at {employer}.", "I quit being {aprev}; now I work as {av} at {employer}."},
		now:        []string{"What is my job now?"},
		beforeLast: []string{"What was my job right before I became {alatest}?"},
		before:     []string{"What was my job before I became {anext}?"},
		first:      []string{"What was my first job?"},
		values:     func(d *temDraw) string { return d.titles.next() },
	},
	{
		name:       AttrDrink,
		initial:    []string{"My go-to drink is {v}.", "I always order {v}."},
		change:     []string{"I switched from {prev} to {v}; it's my drink now.", "These days my go-to drink is {v}.", "I stopped drinking {prev} and now order {v} instead."},
		now:        []string{"What is my go-to drink now?"},
		beforeLast: []string{"What did I drink right before I switched to {latest}?"},
		before:     []string{"What did I drink before I switched to {next}?"},
		first:      []string{"What was my first go-to drink?"},
		values:     func(d *temDraw) string { return d.drinks.next() },
	},
}

// temStream separates TEM's random stream.
const temStream = 0x74656d // "tem"

// GenerateTEM generates TEM-style personas: in the first session each states where they
// live, what they do and what they drink; each attribute then changes cfg.Moves times in
// later sessions (in time order, at random sessions), among small-talk turns. Per
// attribute there are four questions: the current state, the state immediately before
// the latest change, the one before that and the first. The same config gives the same
// benchmark.
func GenerateTEM(cfg TEMConfig) (*TEM, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("tem config: %w", err)
	}
	cfg = cfg.withDefaults()
	t := &TEM{Config: cfg}
	base := time.Date(2022, 1, 10, 9, 0, 0, 0, time.UTC)
	for i := range cfg.Personas {
		rng := rand.New(rand.NewPCG(cfg.Seed, temStream+uint64(i)))
		d := &temDraw{cities: newDraw(rng, cities), titles: newDraw(rng, jobTitles), employers: newDraw(rng, employers), drinks: newDraw(rng, drinks)}
		p := Persona{ID: fmt.Sprintf("t%02d", i+1), States: map[string][]string{}, StateEvents: map[string][]string{}}
		// sessions[s] are the texts said in session s, each with its attribute (or "").
		type said struct{ text, attr string }
		sessions := make([][]said, cfg.Sessions)
		for _, a := range temAttrs {
			// The attribute changes in Moves distinct later sessions when there are
			// enough, else in sessions that may repeat.
			later := make([]int, 0, cfg.Sessions-1)
			for s := 1; s < cfg.Sessions; s++ {
				later = append(later, s)
			}
			rng.Shuffle(len(later), func(i, j int) { later[i], later[j] = later[j], later[i] })
			var when []int
			for k := range cfg.Moves {
				if k < len(later) {
					when = append(when, later[k])
				} else {
					when = append(when, 1+rng.IntN(cfg.Sessions-1))
				}
			}
			slices.Sort(when)
			var vals, emps []string
			for k := 0; k <= cfg.Moves; k++ {
				vals = append(vals, a.values(d))
				if a.name == AttrOccupation {
					emps = append(emps, d.employers.next())
				} else {
					emps = append(emps, "")
				}
			}
			p.States[a.name] = vals
			for k, v := range vals {
				vars := map[string]string{"v": v, "av": withArticle(v), "employer": emps[k]}
				tpl := a.initial
				s := 0
				if k > 0 {
					tpl, s = a.change, when[k-1]
					vars["prev"], vars["aprev"], vars["prevEmployer"] = vals[k-1], withArticle(vals[k-1]), emps[k-1]
				}
				text := expandFor(tpl[rng.IntN(len(tpl))], people[0], "", vars)
				sessions[s] = append(sessions[s], said{text, a.name})
			}
		}
		for s := range sessions {
			for range max(0, cfg.Filler) {
				sessions[s] = append(sessions[s], said{fillers[rng.IntN(len(fillers))], ""})
			}
			// Keep each attribute's statements in order within the session; shuffle
			// the rest around them.
			order := rng.Perm(len(sessions[s]))
			byAttr := map[string][]said{}
			for _, x := range sessions[s] {
				byAttr[x.attr] = append(byAttr[x.attr], x)
			}
			shuffled := make([]said, len(sessions[s]))
			next := map[string]int{}
			slots := map[string][]int{}
			for i, o := range order {
				slots[sessions[s][o].attr] = append(slots[sessions[s][o].attr], i)
			}
			for attr, idx := range slots {
				slices.Sort(idx)
				for _, i := range idx {
					shuffled[i] = byAttr[attr][next[attr]]
					next[attr]++
				}
			}
			start := base.Add(time.Duration(i)*24*time.Hour + time.Duration(s)*61*24*time.Hour)
			for j, x := range shuffled {
				e := Event{Kind: EventTurn, Speaker: "user", Text: x.text, Time: start.Add(time.Duration(j) * turnGap), Pos: len(p.Events), Unit: x.attr}
				e.ID = fmt.Sprintf("%s-e%03d", p.ID, e.Pos)
				if x.attr != "" {
					e.Kind = EventState
					p.StateEvents[x.attr] = append(p.StateEvents[x.attr], e.ID)
				}
				p.Events = append(p.Events, e)
			}
		}
		t.Personas = append(t.Personas, p)
		for _, a := range temAttrs {
			vals := p.States[a.name]
			n := len(vals)
			q := func(typ string, tpl []string, state int) {
				vars := map[string]string{"latest": vals[n-1], "alatest": withArticle(vals[n-1])}
				if state+1 < n {
					vars["next"], vars["anext"] = vals[state+1], withArticle(vals[state+1])
				}
				t.Questions = append(t.Questions, TEMQuestion{
					ID: fmt.Sprintf("%s-%s-%s-%d", p.ID, a.name, typ, state), Persona: p.ID, Attribute: a.name, Type: typ,
					Question: expandFor(tpl[rng.IntN(len(tpl))], people[0], "", vars), Answer: vals[state], State: state,
				})
			}
			q(TEMCurrent, a.now, n-1)
			q(TEMBeforeLatest, a.beforeLast, n-2)
			q(TEMHistorical, a.before, n-3)
			if n-3 > 0 {
				q(TEMHistorical, a.first, 0)
			}
		}
	}
	return t, nil
}

// TEMScores are one condition's hit rates for one question type ("all" for every one).
type TEMScores struct {
	Type string `json:"type"`
	// Packet: the key entity is in the packet; Top1: in its first row; Presented: in the
	// row the packet presents as the answer — the first row whose label fits the
	// question (current memory for the present, historical memory for the past) in a
	// marked packet, the first row otherwise; Answer: in the LLM's answer.
	Packet    Rate `json:"packet"`
	Top1      Rate `json:"top1"`
	Presented Rate `json:"presented"`
	Answer    Rate `json:"answer"`
}

// TEMCondition is one memory condition.
type TEMCondition struct {
	Name   string      `json:"name"`
	Scores []TEMScores `json:"scores"`
}

// TEM conditions.
const (
	TEMOverlay   = "overlay"
	TEMUnmarked  = "unmarked"
	TEMOverwrite = "overwrite"
)

// TEMReport is the outcome of RunTEM.
type TEMReport struct {
	Config    TEMConfig `json:"config"`
	Personas  int       `json:"personas"`
	Questions int       `json:"questions"`
	Memories  int       `json:"memories"`
	TopK      int       `json:"top_k"`
	LLM       bool      `json:"llm"`
	// StateStatus: the overlay's status of each state statement is right (superseded
	// for every state but the latest, active for the latest).
	StateStatus  Rate           `json:"state_status"`
	Conditions   []TEMCondition `json:"conditions"`
	EmbedSeconds float64        `json:"embed_seconds"`
	Seconds      float64        `json:"seconds"`
}

// TEMTrace is one question under one condition: a line of the JSONL trace.
type TEMTrace struct {
	Condition string   `json:"condition"`
	Question  string   `json:"question_id"`
	Type      string   `json:"type"`
	Text      string   `json:"question"`
	Answer    string   `json:"gold"`
	Rows      []string `json:"rows"`
	Labels    []string `json:"labels,omitempty"`
	Packet    bool     `json:"packet"`
	Top1      bool     `json:"top1"`
	Presented bool     `json:"presented"`
	LLMAnswer string   `json:"answer,omitempty"`
	LLMError  string   `json:"answer_error,omitempty"`
}

var temTypes = []string{TEMCurrent, TEMBeforeLatest, TEMHistorical}

// RunTEM replays every persona into the overlay and into an overwrite memory (the host
// with only the latest version of each attribute: the oracle deletes every earlier
// state statement) and scores the key-entity hit rate of the packets for the overlay,
// the same packets unmarked, and the overwrite memory — and of the answers with an LLM
// endpoint.
func RunTEM(ctx context.Context, t *TEM, env Env, traces io.Writer) (*TEMReport, error) {
	if err := env.Validate(); err != nil {
		return nil, fmt.Errorf("run tem: %w", err)
	}
	env = env.withDefaults()
	start := time.Now()
	rep := &TEMReport{Config: t.Config, Personas: len(t.Personas), Questions: len(t.Questions), TopK: env.TopK, LLM: env.LLM != nil}
	ov, err := newMemory(env, Overlay)
	if err != nil {
		return nil, err
	}
	over, err := newMemory(env, HostOnly)
	if err != nil {
		return nil, err
	}
	for _, p := range t.Personas {
		var all, latest []memoryInput
		stale := map[string]bool{}
		for _, ids := range p.StateEvents {
			for _, id := range ids[:len(ids)-1] {
				stale[id] = true
			}
		}
		for _, e := range p.Events {
			m := memoryInput{ID: e.ID, Content: e.Text, Time: e.Time, Pos: e.Pos}
			all = append(all, m)
			if !stale[e.ID] {
				latest = append(latest, m)
			}
		}
		rep.Memories += len(all)
		if _, err := ov.ingest(ctx, p.ID, all); err != nil {
			return nil, fmt.Errorf("run tem: %s: %w", p.ID, err)
		}
		if _, err := over.ingest(ctx, p.ID, latest); err != nil {
			return nil, fmt.Errorf("run tem: %s: %w", p.ID, err)
		}
		for _, ids := range p.StateEvents {
			for k, id := range ids {
				r, ok, err := ov.record(ctx, p.ID, id)
				if err != nil {
					return nil, err
				}
				want := store.StatusSuperseded
				if k == len(ids)-1 {
					want = store.StatusActive
				}
				rep.StateStatus.Add(ok && r.Status == want)
			}
		}
	}
	var enc *json.Encoder
	if traces != nil {
		enc = json.NewEncoder(traces)
	}
	conds := map[string]map[string]*TEMScores{}
	for _, c := range []string{TEMOverlay, TEMUnmarked, TEMOverwrite} {
		conds[c] = map[string]*TEMScores{"all": {Type: "all"}}
		for _, ty := range temTypes {
			conds[c][ty] = &TEMScores{Type: ty}
		}
	}
	for _, q := range t.Questions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		marked, err := ov.query(ctx, q.Persona, queryInput{Text: q.Question, Answer: env.LLM != nil})
		if err != nil {
			return nil, err
		}
		outs := map[string]queryOutput{TEMOverlay: marked}
		// The unmarked condition reads the same rows without labels; only the answer
		// model's prompt differs, so the overlay is asked again only to answer.
		unmarked := marked
		unmarked.Packet.Marked = false
		if env.LLM != nil {
			if unmarked, err = ov.query(ctx, q.Persona, queryInput{Text: q.Question, Answer: true, queryOptions: queryOptions{Unmarked: true}}); err != nil {
				return nil, err
			}
		}
		outs[TEMUnmarked] = unmarked
		if outs[TEMOverwrite], err = over.query(ctx, q.Persona, queryInput{Text: q.Question, Answer: env.LLM != nil}); err != nil {
			return nil, err
		}
		for _, c := range []string{TEMOverlay, TEMUnmarked, TEMOverwrite} {
			out := outs[c]
			tr := TEMTrace{Condition: c, Question: q.ID, Type: q.Type, Text: q.Question, Answer: q.Answer}
			for _, r := range out.Packet.Rows {
				tr.Rows = append(tr.Rows, r.Content)
				if out.Packet.Marked {
					tr.Labels = append(tr.Labels, string(r.Label))
				}
				tr.Packet = tr.Packet || holdsKey(r.Content, q.Answer)
			}
			if len(out.Packet.Rows) > 0 {
				tr.Top1 = holdsKey(out.Packet.Rows[0].Content, q.Answer)
				tr.Presented = holdsKey(presented(out.Packet, q.Type).Content, q.Answer)
			}
			for _, k := range []string{"all", q.Type} {
				s := conds[c][k]
				s.Packet.Add(tr.Packet)
				s.Top1.Add(tr.Top1)
				s.Presented.Add(tr.Presented)
			}
			if env.LLM != nil {
				tr.LLMAnswer, tr.LLMError = out.Answer, out.AnswerErr
				if out.AnswerErr == "" {
					for _, k := range []string{"all", q.Type} {
						conds[c][k].Answer.Add(holdsKey(out.Answer, q.Answer))
					}
				}
			}
			if enc != nil {
				if err := enc.Encode(tr); err != nil {
					return nil, fmt.Errorf("write tem trace: %w", err)
				}
			}
		}
	}
	for _, c := range []string{TEMOverlay, TEMUnmarked, TEMOverwrite} {
		cond := TEMCondition{Name: c}
		for _, ty := range append(slices.Clone(temTypes), "all") {
			cond.Scores = append(cond.Scores, *conds[c][ty])
		}
		rep.Conditions = append(rep.Conditions, cond)
	}
	if c, ok := env.Embedder.(*embedCache); ok {
		rep.EmbedSeconds = c.spent.Seconds()
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// presented is the row a packet presents as the answer to a question of type typ: in a
// marked packet the first row labelled with the requested state, else the first row.
func presented(pk retrieval.Packet, typ string) retrieval.Row {
	if pk.Marked {
		want := retrieval.LabelHistorical
		if typ == TEMCurrent {
			want = retrieval.LabelCurrent
		}
		for _, r := range pk.Rows {
			if r.Label == want {
				return r
			}
		}
	}
	return pk.Rows[0]
}

// WriteTEMTables writes the TEM report as Markdown.
func WriteTEMTables(w io.Writer, r *TEMReport) {
	fmt.Fprintf(w, "TEM-style state updates, seed %03d: %d personas × %d sessions, %d changes per attribute, %d questions, %d memories, top-%d packets.\n\n",
		r.Config.Seed, r.Personas, r.Config.Sessions, r.Config.Moves, r.Questions, r.Memories, r.TopK)
	fmt.Fprintf(w, "Overlay bank: %s of the state statements carry the right status (superseded before the latest, active for the latest).\n\n", r.StateStatus)
	metrics := []struct {
		name string
		get  func(TEMScores) Rate
	}{
		{"Key entity in packet", func(s TEMScores) Rate { return s.Packet }},
		{"Key entity in the presented row", func(s TEMScores) Rate { return s.Presented }},
		{"Key entity in the first row", func(s TEMScores) Rate { return s.Top1 }},
		{"Key entity in the answer", func(s TEMScores) Rate { return s.Answer }},
	}
	for _, m := range metrics {
		t := table{head: []string{"Condition", "current", "before latest", "historical", "all"}}
		for _, c := range r.Conditions {
			row := []string{c.Name}
			for _, s := range c.Scores {
				row = append(row, m.get(s).String())
			}
			t.row(row...)
		}
		fmt.Fprintf(w, "%s:\n\n", m.name)
		t.write(w)
	}
	fmt.Fprintf(w, "Embedding: %.1f s; whole run %.1f s.\n", r.EmbedSeconds, r.Seconds)
}

// PlotTEM draws the presented-row hit rate per question type for each condition.
func PlotTEM(path string, r *TEMReport) error {
	labels := append(slices.Clone(temTypes), "all")
	var series []bars
	for _, c := range r.Conditions {
		b := bars{name: c.Name}
		for _, s := range c.Scores {
			b.values = append(b.values, s.Presented.Value())
		}
		series = append(series, b)
	}
	return barChart(path, "TEM key-entity hit rate of the presented row", "hit rate", labels, series)
}
