package facts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/atma-dev/atma/llm"
)

// Chatter is what the LLM extractor needs of a model client; *llm.Client implements it.
type Chatter interface {
	Chat(ctx context.Context, req llm.Request) (*llm.Response, error)
}

var _ Chatter = (*llm.Client)(nil)

// Defaults of LLMConfig.
const (
	DefaultLLMMaxTokens = 512
	DefaultMaxSlots     = 40
)

// LLMConfig configures the LLM extractor. The zero value means the defaults.
type LLMConfig struct {
	// Name is Result.Source when the server names no model (default "llm").
	Name string
	// MaxTokens bounds an answer (0: DefaultLLMMaxTokens).
	MaxTokens int
	// Temperature is the sampling temperature (nil: 0, for repeatable extraction).
	Temperature *float64
	// Seed is sent to servers that take one (nil: none).
	Seed *int64
	// MaxSlots bounds the existing slot keys shown to the model, newest first (0:
	// DefaultMaxSlots).
	MaxSlots int
	// Logger receives a warning for every fallback (nil: slog.Default()).
	Logger *slog.Logger
}

// Validate reports every problem at once.
func (c LLMConfig) Validate() error {
	var errs []error
	errs = append(errs, llm.CheckSampling("max tokens", c.MaxTokens, c.Temperature)...)
	if c.MaxSlots < 0 {
		errs = append(errs, fmt.Errorf("max slots %d is negative", c.MaxSlots))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("llm extractor config: %w", err)
	}
	return nil
}

// LLM extracts facts with a language model behind an OpenAI-compatible endpoint, asking
// for JSON that follows Schema and showing the model the existing slot keys so that it
// reuses them. When the endpoint is unreachable or times out, answers with a server
// error, a rate limit or a malformed body, the prompt is too long, or the answer is not
// the JSON asked for, the fallback extractor (the offline one) answers and Result.Why
// says why. A wrong model name, bad credentials and other client errors are returned:
// they need fixing, not a fallback. An LLM is safe for concurrent use if its Chatter and
// fallback are.
type LLM struct {
	chat     Chatter
	fallback Extractor
	cfg      LLMConfig
	log      *slog.Logger
}

var _ Extractor = (*LLM)(nil)

// NewLLM returns an extractor that asks the model behind c and falls back to fallback.
func NewLLM(c Chatter, fallback Extractor, cfg LLMConfig) (*LLM, error) {
	var errs []error
	if c == nil {
		errs = append(errs, errors.New("nil chat client"))
	}
	if fallback == nil {
		errs = append(errs, errors.New("nil fallback extractor"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("llm extractor: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Name == "" {
		cfg.Name = "llm"
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultLLMMaxTokens
	}
	if cfg.MaxSlots == 0 {
		cfg.MaxSlots = DefaultMaxSlots
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &LLM{chat: c, fallback: fallback, cfg: cfg, log: log}, nil
}

// Extract asks the model about each input in turn; later inputs see the slots of
// earlier ones.
func (x *LLM) Extract(ctx context.Context, in []Input) ([]Result, error) {
	out := make([]Result, len(in))
	var made []string
	for i, input := range in {
		input.Slots = mergeSlots(input.Slots, made, x.cfg.MaxSlots)
		r, err := x.one(ctx, input)
		if err != nil {
			return nil, fmt.Errorf("extract facts: memory %d: %w", i, err)
		}
		out[i] = r
		for _, f := range r.Facts {
			if s := f.Slot(); !slices.Contains(made, s) {
				made = append(made, s)
			}
		}
	}
	return out, nil
}

// mergeSlots puts the call's own slots (newest first) before the given ones, without
// duplicates, at most limit.
func mergeSlots(given, made []string, limit int) []string {
	var out []string
	for i := len(made) - 1; i >= 0; i-- {
		if !slices.Contains(out, made[i]) {
			out = append(out, made[i])
		}
	}
	for _, s := range given {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (x *LLM) one(ctx context.Context, in Input) (Result, error) {
	if strings.TrimSpace(in.Text) == "" {
		return Result{Source: SourceOffline, Why: "no text"}, nil
	}
	temp := 0.0
	if x.cfg.Temperature != nil {
		temp = *x.cfg.Temperature
	}
	req := llm.Request{Messages: Messages(in), MaxTokens: x.cfg.MaxTokens, Temperature: &temp, Seed: x.cfg.Seed, JSONSchema: Schema()}
	resp, err := x.chat.Chat(ctx, req)
	if err == nil && len(resp.Choices) == 0 {
		err = fmt.Errorf("%w: no choices", llm.ErrBadResponse)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if llm.NeedsFix(err) {
			return Result{}, err
		}
		return x.fall(ctx, in, llm.Describe(err))
	}
	source := x.cfg.Name
	if resp.Model != "" {
		source = resp.Model
	}
	facts, err := ParseAnswer(resp.Choices[0].Content, selfKey(in))
	if err != nil {
		return x.fall(ctx, in, "unusable answer: "+llm.FirstLine(err.Error()))
	}
	r := Result{Facts: facts, Source: source}
	if len(facts) == 0 {
		r.Why = "the model found no fact"
	}
	return r, nil
}

// fall answers with the fallback extractor.
func (x *LLM) fall(ctx context.Context, in Input, why string) (Result, error) {
	x.log.Warn("fact extraction falls back", "model", x.cfg.Name, "reason", why)
	rs, err := x.fallback.Extract(ctx, []Input{in})
	if err != nil {
		return Result{}, fmt.Errorf("fallback after %s: %w", why, err)
	}
	if len(rs) != 1 {
		return Result{}, fmt.Errorf("fallback after %s: %d results for 1 input", why, len(rs))
	}
	r := rs[0]
	r.Why = strings.TrimSuffix("llm fallback ("+why+"); "+r.Why, "; ")
	return r, nil
}

// selfKey is the subject of first person in the input.
func selfKey(in Input) string {
	_, speaker := splitSpeaker(strings.TrimSpace(in.Text), strings.TrimSpace(in.Speaker))
	if speaker == "" {
		return "user"
	}
	return Kebab(speaker)
}

// Schema is the JSON Schema of an extraction answer, for llm.Request.JSONSchema.
func Schema() *llm.Schema {
	str := llm.Object{{"type", "string"}}
	fact := llm.Object{
		{"type", "object"},
		{"properties", llm.Object{
			{"subject", str},
			{"attribute", str},
			{"value", str},
			{"negated", llm.Object{{"type", "boolean"}}},
			{"scope", str},
			{"event_time", str},
		}},
		{"required", []string{"subject", "attribute", "value", "negated", "scope", "event_time"}},
		{"additionalProperties", false},
	}
	schema := llm.Object{
		{"type", "object"},
		{"properties", llm.Object{{"facts", llm.Object{{"type", "array"}, {"items", fact}}}}},
		{"required", []string{"facts"}},
		{"additionalProperties", false},
	}
	return &llm.Schema{Name: "memory_facts", Schema: schema.Indent(), Strict: true}
}

const systemPrompt = `You extract facts from one memory of a user's chat with an assistant, for a memory
that tracks how facts change. A fact is something that holds over time about one subject:
where someone lives, works, who their manager or partner is, pets, hobbies, diet,
allergies, prices, schedules, a team's project, a meeting's time.

Answer with JSON only: {"facts": [{"subject", "attribute", "value", "negated", "scope", "event_time"}]}.
- subject: whose fact it is, in kebab case. First person is SELF (given below). Others by
  name when the memory names them ("theo"), else by relation ("sister", "manager"), or a
  described group or thing ("mobile-team", "project"). Facts about different subjects
  never share a subject.
- attribute: what a question would ask about, plain kebab case ("home", "employer",
  "manager", "pet", "hobby", "rent", "standup-time"). REUSE an existing slot key's
  attribute when the fact is about the same thing, even in other words.
- value: the entity, number or short phrase, as the memory spells it ("Porto", "1,450").
- negated: true when the memory says the value no longer holds ("sold the bike").
- scope: the condition it holds under when stated ("on fridays"), else "".
- event_time: when it became true if the memory says so, YYYY-MM or YYYY-MM-DD resolved
  against the memory's date ("back in March"), else "".
Small talk, one-off events and questions state no fact: answer {"facts": []}.`

// Messages renders the extraction prompt for in.
func Messages(in Input) []llm.Message {
	var b strings.Builder
	when := in.Time
	if when.IsZero() {
		when = time.Now().UTC()
	}
	fmt.Fprintf(&b, "SELF: %s\n", selfKey(in))
	fmt.Fprintf(&b, "Memory date: %s\n", when.Format("2006-01-02"))
	if len(in.Slots) > 0 {
		fmt.Fprintf(&b, "Existing slot keys (subject/attribute): %s\n", strings.Join(in.Slots, ", "))
	} else {
		b.WriteString("Existing slot keys: none\n")
	}
	fmt.Fprintf(&b, "Memory: %s\n", strings.TrimSpace(in.Text))
	return []llm.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: b.String()}}
}

// wireFact is one fact as the model writes it.
type wireFact struct {
	Subject   string `json:"subject"`
	Attribute string `json:"attribute"`
	Value     string `json:"value"`
	Negated   bool   `json:"negated"`
	Scope     string `json:"scope"`
	EventTime string `json:"event_time"`
}

// ParseAnswer reads a model's answer: the JSON object of Schema, possibly in a code fence
// or after a think block. Subjects and attributes are put in kebab case, "self", "user",
// "i" and "me" subjects become self, facts without subject, attribute or value are
// dropped, and an event time that is not YYYY-MM or YYYY-MM-DD is ignored. An answer
// with no such object, or with fields of the wrong type, is an error.
func ParseAnswer(content, self string) ([]Fact, error) {
	s := content
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	start, end := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if start < 0 || end < start {
		return nil, fmt.Errorf("no JSON object in %q", clip(strings.TrimSpace(content), 80))
	}
	var ans struct {
		Facts *[]wireFact `json:"facts"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s[start : end+1])))
	if err := dec.Decode(&ans); err != nil {
		return nil, fmt.Errorf("decode facts: %w", err)
	}
	if ans.Facts == nil {
		return nil, errors.New("decode facts: no \"facts\" array")
	}
	var out []Fact
	for _, w := range *ans.Facts {
		f := Fact{Subject: Kebab(w.Subject), Attribute: Kebab(w.Attribute), Value: strings.TrimSpace(w.Value), Negated: w.Negated, Scope: strings.TrimSpace(w.Scope)}
		switch f.Subject {
		case "self", "user", "i", "me", "speaker":
			f.Subject = self
		}
		if f.Subject == "" || f.Attribute == "" || f.Value == "" {
			continue
		}
		for _, layout := range []string{"2006-01-02", "2006-01"} {
			if t, err := time.Parse(layout, strings.TrimSpace(w.EventTime)); err == nil {
				f.EventTime = t
				break
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
