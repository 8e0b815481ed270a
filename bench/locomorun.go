package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/overlay"
)

// LoCoMoCategory are one category's scores (Category 0 is every question).
type LoCoMoCategory struct {
	Category  int    `json:"category"`
	Name      string `json:"name"`
	Questions int    `json:"questions"`
	// EvidenceHit: at least one gold evidence turn is in the packet; EvidenceRecall: the
	// share of gold evidence turns in the packet. Questions without a valid evidence
	// reference are left out of both (NoEvidence counts them).
	EvidenceHit    Rate `json:"evidence_hit"`
	EvidenceRecall Mean `json:"evidence_recall"`
	NoEvidence     int  `json:"no_evidence"`
	// F1 and BLEU1 score the answers (with an LLM endpoint only); BLEU-1 is not
	// defined for adversarial questions, which the official scorer scores by choice.
	F1    Mean `json:"f1"`
	BLEU1 Mean `json:"bleu1"`
}

// LoCoMoResult is one variant's outcome.
type LoCoMoResult struct {
	Variant    Variant          `json:"variant"`
	Categories []LoCoMoCategory `json:"categories"`
	// Commits are the supersede and transition commits the overlay made among turns.
	Commits      int  `json:"commits"`
	AnswerErrors int  `json:"answer_errors"`
	Cost         Cost `json:"cost"`
}

// LoCoMoReport is the outcome of RunLoCoMo.
type LoCoMoReport struct {
	Conversations int `json:"conversations"`
	Questions     int `json:"questions"`
	Turns         int `json:"turns"`
	// Problems are the file's malformed or dangling evidence references and dates,
	// reported and skipped.
	Problems     []Problem      `json:"problems"`
	TopK         int            `json:"top_k"`
	LLM          bool           `json:"llm"`
	EmbedSeconds float64        `json:"embed_seconds"`
	Seconds      float64        `json:"seconds"`
	Results      []LoCoMoResult `json:"results"`
}

// LoCoMoCommit is one supersede or transition commit the overlay made between two
// turns of a conversation: a line of the JSONL trace (LoCoMo has no annotated state
// changes, so every commit is one to read, and most are collateral).
type LoCoMoCommit struct {
	Variant string       `json:"variant"`
	Sample  string       `json:"sample"`
	Commit  judge.Action `json:"commit"`
	// Old and New are dialogue ids; the texts are the turns as stored, and the facts
	// (group=value) those the overlay read from them.
	Old      string   `json:"old"`
	New      string   `json:"new"`
	OldText  string   `json:"old_text"`
	NewText  string   `json:"new_text"`
	OldFacts []string `json:"old_facts,omitempty"`
	NewFacts []string `json:"new_facts,omitempty"`
}

// LoCoMoTrace is one question's outcome for one variant: a line of the JSONL trace.
type LoCoMoTrace struct {
	Variant  string   `json:"variant"`
	Sample   string   `json:"sample"`
	Category int      `json:"category"`
	Question string   `json:"question"`
	Gold     string   `json:"gold"`
	Evidence []string `json:"evidence"`
	// Packet are the dialogue ids of the packet's rows ("" for overlay records that are
	// no turn).
	Packet      []string `json:"packet"`
	Hit         *bool    `json:"hit,omitempty"`
	Recall      *float64 `json:"recall,omitempty"`
	Answer      string   `json:"answer,omitempty"`
	AnswerError string   `json:"answer_error,omitempty"`
	F1          *float64 `json:"f1,omitempty"`
	BLEU1       *float64 `json:"bleu1,omitempty"`
}

// RunLoCoMo ingests every conversation (turns in time order, one user per
// conversation) into the host alone and into the overlay, asks every QA item, and scores
// the packets' evidence hit rate against the gold evidence turns and — with an LLM
// endpoint — the answers' F1 and BLEU-1 per category as the official scorer does.
// problems are the loader's, carried into the report. Per-question traces go to traces
// as JSON lines when it is not nil.
func RunLoCoMo(ctx context.Context, convs []Conversation, problems []Problem, env Env, traces io.Writer) (*LoCoMoReport, error) {
	if err := env.Validate(); err != nil {
		return nil, fmt.Errorf("run locomo: %w", err)
	}
	env = env.withDefaults()
	start := time.Now()
	rep := &LoCoMoReport{Conversations: len(convs), Problems: problems, TopK: env.TopK, LLM: env.LLM != nil}
	for _, c := range convs {
		rep.Questions += len(c.QA)
		rep.Turns += len(c.Timeline())
	}
	var enc *json.Encoder
	if traces != nil {
		enc = json.NewEncoder(traces)
	}
	for _, v := range []Variant{HostOnly, Overlay} {
		mem, err := newMemory(env, v)
		if err != nil {
			return nil, fmt.Errorf("run locomo: %w", err)
		}
		res := LoCoMoResult{Variant: v}
		cats := map[int]*LoCoMoCategory{0: {Name: "all"}}
		for c := CategoryMultiHop; c <= CategoryAdversarial; c++ {
			cats[c] = &LoCoMoCategory{Category: c, Name: CategoryName(c)}
		}
		var ingest, spent time.Duration
		for _, c := range convs {
			user := c.ID
			tl := c.Timeline()
			in := make([]memoryInput, len(tl))
			dia := map[string]string{}
			for i, t := range tl {
				id := fmt.Sprintf("%s-e%04d", c.ID, i)
				in[i] = memoryInput{ID: id, Content: env.content(t.Turn), Time: t.Time, Pos: i}
				dia[id] = t.DiaID
			}
			t0 := time.Now()
			cost, err := mem.ingest(ctx, user, in)
			if err != nil {
				return nil, fmt.Errorf("run locomo: %s: ingest %s: %w", v.Name, c.ID, err)
			}
			env.Logger.Info("ingested", "variant", v.Name, "conversation", c.ID, "turns", len(in), "seconds", time.Since(t0).Seconds())
			ingest += cost.Overlay
			res.Cost.Memories += cost.Memories
			res.Cost.Candidates += cost.Candidates
			res.Cost.Routed += cost.Routed
			res.Cost.addErrors(cost.Errors)
			res.Commits += len(cost.Commits)
			if enc != nil {
				text := map[string]string{}
				for _, x := range in {
					text[x.ID] = x.Content
				}
				for _, cm := range cost.Commits {
					lc := LoCoMoCommit{Variant: v.Name, Sample: c.ID, Commit: cm.Action, Old: dia[cm.Old], New: dia[cm.New], OldText: text[cm.Old], NewText: text[cm.New]}
					for id, fs := range map[string]*[]string{cm.Old: &lc.OldFacts, cm.New: &lc.NewFacts} {
						r, ok, err := mem.record(ctx, user, id)
						if err != nil {
							return nil, fmt.Errorf("run locomo: %s: %w", c.ID, err)
						}
						if ok {
							*fs = factStrings(overlay.RecordFacts(r))
						}
					}
					if err := enc.Encode(lc); err != nil {
						return nil, fmt.Errorf("write locomo trace: %w", err)
					}
				}
			}
			for _, q := range c.QA {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				asked := QuestionText(q)
				out, err := mem.query(ctx, user, queryInput{Text: q.Question, Answer: env.LLM != nil && asked == q.Question})
				if err != nil {
					return nil, fmt.Errorf("run locomo: %s: %s: %w", v.Name, c.ID, err)
				}
				spent += out.Spent
				res.Cost.Queries++
				tr := LoCoMoTrace{Variant: v.Name, Sample: c.ID, Category: q.Category, Question: q.Question, Gold: q.Answer, Evidence: q.Evidence}
				if q.Category == CategoryAdversarial && q.Answer == "" {
					tr.Gold = NotMentioned
				}
				for _, id := range out.MemIDs {
					tr.Packet = append(tr.Packet, dia[id])
				}
				for _, k := range []int{0, q.Category} {
					cats[k].Questions++
				}
				if len(q.Evidence) == 0 {
					for _, k := range []int{0, q.Category} {
						cats[k].NoEvidence++
					}
				} else {
					found := 0
					for _, e := range q.Evidence {
						if slices.Contains(tr.Packet, e) {
							found++
						}
					}
					hit, recall := found > 0, float64(found)/float64(len(q.Evidence))
					tr.Hit, tr.Recall = &hit, &recall
					for _, k := range []int{0, q.Category} {
						cats[k].EvidenceHit.Add(hit)
						cats[k].EvidenceRecall.Add(recall)
					}
				}
				if env.LLM != nil {
					// Adversarial questions are answered as the official evaluation asks them,
					// with their two options; the evidence is scored on the plain question.
					ans := out
					if asked != q.Question {
						if ans, err = mem.query(ctx, user, queryInput{Text: asked, Answer: true}); err != nil {
							ans = queryOutput{AnswerErr: err.Error()}
						}
					}
					tr.Answer, tr.AnswerError = ans.Answer, ans.AnswerErr
					if tr.AnswerError != "" {
						res.AnswerErrors++
					} else {
						f1 := ScoreF1(q, tr.Answer)
						tr.F1 = &f1
						for _, k := range []int{0, q.Category} {
							cats[k].F1.Add(f1)
						}
						if q.Category != CategoryAdversarial {
							b := BLEU1(tr.Answer, GoldAnswer(q))
							tr.BLEU1 = &b
							for _, k := range []int{0, q.Category} {
								cats[k].BLEU1.Add(b)
							}
						}
					}
				}
				if enc != nil {
					if err := enc.Encode(tr); err != nil {
						return nil, fmt.Errorf("write question trace: %w", err)
					}
				}
			}
		}
		res.Cost.finish(ingest, spent)
		for c := CategoryMultiHop; c <= CategoryAdversarial; c++ {
			res.Categories = append(res.Categories, *cats[c])
		}
		res.Categories = append(res.Categories, *cats[0])
		rep.Results = append(rep.Results, res)
	}
	if c, ok := env.Embedder.(*embedCache); ok {
		rep.EmbedSeconds = c.spent.Seconds()
	}
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// WriteLoCoMoTables writes the LoCoMo report as Markdown.
func WriteLoCoMoTables(w io.Writer, r *LoCoMoReport) {
	fmt.Fprintf(w, "LoCoMo: %d conversations, %d turns, %d questions, top-%d packets; %d malformed or dangling references and dates reported and skipped.\n\n",
		r.Conversations, r.Turns, r.Questions, r.TopK, len(r.Problems))
	t := table{head: []string{"Category", "Questions"}}
	for _, res := range r.Results {
		t.head = append(t.head, res.Variant.Name+" hit", res.Variant.Name+" recall")
	}
	if len(r.Results) > 0 {
		for i, c := range r.Results[0].Categories {
			row := []string{c.Name, fmt.Sprint(c.Questions - c.NoEvidence)}
			for _, res := range r.Results {
				cc := res.Categories[i]
				row = append(row, cc.EvidenceHit.String(), cc.EvidenceRecall.String())
			}
			t.row(row...)
		}
	}
	fmt.Fprintln(w, "Evidence hit rate of the packet against the gold evidence turns (LLM-free; questions with a valid reference):")
	fmt.Fprintln(w)
	t.write(w)
	t = table{head: []string{"Category"}}
	for _, res := range r.Results {
		t.head = append(t.head, res.Variant.Name+" F1", res.Variant.Name+" BLEU-1")
	}
	if len(r.Results) > 0 {
		for i, c := range r.Results[0].Categories {
			row := []string{c.Name}
			for _, res := range r.Results {
				cc := res.Categories[i]
				b := cc.BLEU1.String()
				if cc.Category == CategoryAdversarial {
					b = "—"
				}
				row = append(row, cc.F1.String(), b)
			}
			t.row(row...)
		}
	}
	if r.LLM {
		fmt.Fprintln(w, "Answers (official normalisation; adversarial: 1 when the answer says it is not mentioned):")
	} else {
		fmt.Fprintln(w, "Answers: n/a — no LLM endpoint configured (--llm-url or ATMA_LLM_URL).")
	}
	fmt.Fprintln(w)
	t.write(w)
	t = table{head: []string{"System", "Supersede/transition commits", "Routed share", "Ingest ms/turn", "Query ms/question", "Refused turns"}}
	for _, res := range r.Results {
		t.row(res.Variant.Name, fmt.Sprint(res.Commits), fmt.Sprintf("%.3f", res.Cost.RoutedShare), ms(res.Cost.IngestMS), ms(res.Cost.QueryMS), fmt.Sprint(res.Cost.IngestErrors))
	}
	t.write(w)
	fmt.Fprintf(w, "Embedding (shared): %.1f s; whole run %.1f s.\n", r.EmbedSeconds, r.Seconds)
}

// PlotLoCoMo draws the evidence hit rate per category for each variant.
func PlotLoCoMo(path string, r *LoCoMoReport) error {
	if len(r.Results) == 0 {
		return nil
	}
	var labels []string
	for _, c := range r.Results[0].Categories {
		labels = append(labels, c.Name)
	}
	var series []bars
	for _, res := range r.Results {
		b := bars{name: res.Variant.Name}
		for _, c := range res.Categories {
			b.values = append(b.values, c.EvidenceHit.Value())
		}
		series = append(series, b)
	}
	return barChart(path, fmt.Sprintf("LoCoMo evidence hit rate (top-%d packet)", r.TopK), "hit rate", labels, series)
}
