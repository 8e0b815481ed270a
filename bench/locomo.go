package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Conversation is one LoCoMo sample: two speakers' sessions and the QA about them.
type Conversation struct {
	ID       string `json:"sample_id"`
	SpeakerA string `json:"speaker_a"`
	SpeakerB string `json:"speaker_b"`
	// Sessions are in time order (then by number); sessions without turns are left out.
	Sessions []Session `json:"sessions"`
	QA       []QA      `json:"qa"`
}

// Session is one dated session of a conversation.
type Session struct {
	Number int `json:"number"`
	// Time is when the session started; DateTime is how the file wrote it.
	Time     time.Time `json:"time"`
	DateTime string    `json:"date_time"`
	Turns    []Turn    `json:"turns"`
}

// Turn is one utterance.
type Turn struct {
	DiaID   string `json:"dia_id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	// Caption describes the image shared with the turn (LoCoMo's blip_caption), if any.
	Caption string `json:"caption,omitempty"`
}

// Content is the turn as a memory: "Speaker: text", with the shared image's caption.
func (t Turn) Content() string { return t.Speaker + ": " + t.Bare() }

// Bare is the turn's text with the shared image's caption, without the speaker.
func (t Turn) Bare() string {
	s := strings.TrimSpace(t.Text)
	if t.Caption != "" {
		s += " [shares an image: " + strings.TrimSpace(t.Caption) + "]"
	}
	return s
}

// QA categories as the official scorer numbers them.
const (
	CategoryMultiHop    = 1
	CategoryTemporal    = 2
	CategoryOpenDomain  = 3
	CategorySingleHop   = 4
	CategoryAdversarial = 5
)

// CategoryName names a LoCoMo QA category.
func CategoryName(c int) string {
	switch c {
	case CategoryMultiHop:
		return "multi-hop"
	case CategoryTemporal:
		return "temporal"
	case CategoryOpenDomain:
		return "open-domain"
	case CategorySingleHop:
		return "single-hop"
	case CategoryAdversarial:
		return "adversarial"
	}
	return "category " + strconv.Itoa(c)
}

// QA is one question with its gold answer and evidence turns.
type QA struct {
	Question string `json:"question"`
	// Answer is the gold answer (numbers in the file become text); adversarial items may
	// have none.
	Answer string `json:"answer,omitempty"`
	// Adversarial is the misleading answer of category 5 items.
	Adversarial string   `json:"adversarial_answer,omitempty"`
	Evidence    []string `json:"evidence"`
	Category    int      `json:"category"`
}

// Problem is something wrong in a LoCoMo file that loading reports and works around: a
// session date that does not parse, a malformed or dangling evidence reference.
type Problem struct {
	Sample string `json:"sample"`
	Where  string `json:"where"`
	Msg    string `json:"msg"`
}

func (p Problem) String() string { return p.Sample + ": " + p.Where + ": " + p.Msg }

// MaxLoCoMoBytes bounds a LoCoMo file (the real one is under 3 MB).
const MaxLoCoMoBytes = 256 << 20

// LoadLoCoMo reads a LoCoMo-format file (see ReadLoCoMo).
func LoadLoCoMo(path string) ([]Conversation, []Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load locomo: %w", err)
	}
	defer f.Close()
	convs, probs, err := ReadLoCoMo(f)
	if err != nil {
		return nil, nil, fmt.Errorf("load locomo %s: %w", path, err)
	}
	return convs, probs, nil
}

var (
	sessionKeyRE = regexp.MustCompile(`^session_(\d+)$`)
	diaIDRE      = regexp.MustCompile(`^D(\d+):(\d+)$`)
)

// ReadLoCoMo decodes a LoCoMo-format JSON list of samples. What breaks a sample's shape
// (no conversation, no speakers, a turn without text) is an error; what a benchmark
// can work around is returned as problems: sessions whose date does not parse (kept, in
// file order, with the previous session's time), malformed evidence references ("D",
// "D8:6; D9:17") and references to turns that do not exist. Unknown fields are ignored.
func ReadLoCoMo(r io.Reader) ([]Conversation, []Problem, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxLoCoMoBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(b) > MaxLoCoMoBytes {
		return nil, nil, fmt.Errorf("more than %d bytes", MaxLoCoMoBytes)
	}
	var raw []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []map[string]any           `json:"qa"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, nil, fmt.Errorf("decode samples: %w", err)
	}
	var convs []Conversation
	var probs []Problem
	var errs []error
	seen := map[string]bool{}
	for i, s := range raw {
		name := s.SampleID
		if name == "" {
			name = fmt.Sprintf("sample %d", i)
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("%s: sample_id repeated", name))
			continue
		}
		seen[name] = true
		c, p, err := decodeSample(name, s.Conversation, s.QA)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		convs = append(convs, c)
		probs = append(probs, p...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	if len(convs) == 0 {
		return nil, nil, errors.New("no samples")
	}
	return convs, probs, nil
}

func decodeSample(id string, conv map[string]json.RawMessage, qa []map[string]any) (Conversation, []Problem, error) {
	c := Conversation{ID: id}
	var probs []Problem
	if conv == nil {
		return c, nil, errors.New("no conversation")
	}
	str := func(key string) (string, error) {
		v, ok := conv[key]
		if !ok {
			return "", fmt.Errorf("conversation has no %s", key)
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil || strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("conversation.%s is not a non-empty string", key)
		}
		return s, nil
	}
	var err error
	if c.SpeakerA, err = str("speaker_a"); err != nil {
		return c, nil, err
	}
	if c.SpeakerB, err = str("speaker_b"); err != nil {
		return c, nil, err
	}
	var nums []int
	for k := range conv {
		if m := sessionKeyRE.FindStringSubmatch(k); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return c, nil, fmt.Errorf("session key %q: %w", k, err)
			}
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	var prev time.Time
	for _, n := range nums {
		key := fmt.Sprintf("session_%d", n)
		var turns []struct {
			Speaker string `json:"speaker"`
			DiaID   string `json:"dia_id"`
			Text    *string
			Caption string `json:"blip_caption"`
		}
		if err := json.Unmarshal(conv[key], &turns); err != nil {
			return c, nil, fmt.Errorf("%s: %w", key, err)
		}
		if len(turns) == 0 {
			continue
		}
		s := Session{Number: n}
		if dt, ok := conv[key+"_date_time"]; ok {
			_ = json.Unmarshal(dt, &s.DateTime)
		}
		t, err := ParseSessionTime(s.DateTime)
		if err != nil {
			probs = append(probs, Problem{id, key + "_date_time", err.Error() + "; the session keeps the previous session's time"})
			t = prev
		}
		s.Time, prev = t, t
		for j, tu := range turns {
			if tu.Text == nil || tu.Speaker == "" || tu.DiaID == "" {
				return c, nil, fmt.Errorf("%s[%d]: a turn needs speaker, dia_id and text", key, j)
			}
			s.Turns = append(s.Turns, Turn{DiaID: tu.DiaID, Speaker: tu.Speaker, Text: *tu.Text, Caption: tu.Caption})
		}
		c.Sessions = append(c.Sessions, s)
	}
	if len(c.Sessions) == 0 {
		return c, nil, errors.New("conversation has no turns")
	}
	slices.SortStableFunc(c.Sessions, func(a, b Session) int { return a.Time.Compare(b.Time) })
	ids := map[string]bool{}
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			ids[t.DiaID] = true
		}
	}
	for i, item := range qa {
		q := QA{Question: text(item["question"]), Answer: text(item["answer"]), Adversarial: text(item["adversarial_answer"])}
		if cat, ok := item["category"].(json.Number); ok {
			n, err := cat.Int64()
			if err == nil {
				q.Category = int(n)
			}
		}
		if q.Question == "" || q.Category < CategoryMultiHop || q.Category > CategoryAdversarial {
			probs = append(probs, Problem{id, fmt.Sprintf("qa[%d]", i), "no question or no category 1..5; item skipped"})
			continue
		}
		ev, _ := item["evidence"].([]any)
		for j, e := range ev {
			ref, _ := e.(string)
			where := fmt.Sprintf("qa[%d].evidence[%d]", i, j)
			if _, err := ParseDiaID(ref); err != nil {
				probs = append(probs, Problem{id, where, err.Error() + "; skipped"})
				continue
			}
			if !ids[ref] {
				probs = append(probs, Problem{id, where, fmt.Sprintf("no turn %s in the conversation; skipped", ref)})
				continue
			}
			q.Evidence = append(q.Evidence, ref)
		}
		c.QA = append(c.QA, q)
	}
	return c, probs, nil
}

// text turns a JSON scalar into its text; nil and objects give "".
func text(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// DiaRef is a parsed dialogue id: "D3:12" is turn 12 of session 3.
type DiaRef struct{ Session, Turn int }

// ParseDiaID parses a LoCoMo dialogue id ("D3:12").
func ParseDiaID(s string) (DiaRef, error) {
	m := diaIDRE.FindStringSubmatch(s)
	if m == nil {
		return DiaRef{}, fmt.Errorf("malformed evidence reference %q (want D<session>:<turn>)", s)
	}
	sess, err1 := strconv.Atoi(m[1])
	turn, err2 := strconv.Atoi(m[2])
	if err := errors.Join(err1, err2); err != nil {
		return DiaRef{}, fmt.Errorf("malformed evidence reference %q: %w", s, err)
	}
	return DiaRef{sess, turn}, nil
}

// sessionTimeLayouts are the forms LoCoMo writes session dates in ("1:56 pm on 8 May,
// 2023").
var sessionTimeLayouts = []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"}

// ParseSessionTime parses a LoCoMo session date ("1:56 pm on 8 May, 2023") as UTC.
func ParseSessionTime(s string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	for _, l := range sessionTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("session date %q does not parse (want e.g. \"1:56 pm on 8 May, 2023\")", s)
}

// TimedTurn is a turn on the conversation's time line.
type TimedTurn struct {
	Turn
	Session int       `json:"session"`
	Time    time.Time `json:"time"`
}

// turnGap spaces the turns of a session on the time line.
const turnGap = 30 * time.Second

// Timeline returns the conversation's turns in time order: sessions by date, turns in
// their order, each turnGap after the one before. Times strictly increase: a session
// that starts before the previous one's last turn (or shares its date) follows it.
func (c *Conversation) Timeline() []TimedTurn {
	var out []TimedTurn
	for _, s := range c.Sessions {
		for i, t := range s.Turns {
			at := s.Time.Add(time.Duration(i) * turnGap)
			if n := len(out); n > 0 && !at.After(out[n-1].Time) {
				at = out[n-1].Time.Add(turnGap)
			}
			out = append(out, TimedTurn{Turn: t, Session: s.Number, Time: at})
		}
	}
	return out
}
