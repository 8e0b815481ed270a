package bench

import (
	"fmt"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// table is a Markdown table under construction.
type table struct {
	head []string
	rows [][]string
}

func (t *table) row(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n|", strings.Join(t.head, " | "))
	for range t.head {
		fmt.Fprint(w, " --- |")
	}
	fmt.Fprintln(w)
	for _, r := range t.rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

func ms(x float64) string { return fmt.Sprintf("%.2f", x) }

// WriteLTPTables writes the LTP report as Markdown: the paper's Table 2 layout (bank,
// evidence and QA metrics per system), the LLM-free packet metrics, a per-category
// breakdown, the bank's commits and, with ablations, a Table 5 layout.
func WriteLTPTables(w io.Writer, r *LTPReport) {
	fmt.Fprintf(w, "LTP-style benchmark, seed %03d: %d profiles, %d units, %d probes, %d replayed memories, top-%d packets.\n\n",
		r.Config.Seed, r.Profiles, r.Units, r.Probes, r.Events, r.TopK)
	if !r.Validation.OK() {
		fmt.Fprintf(w, "VALIDATION FAILED: %v\n\n", r.Validation.Err())
	}
	main := []string{HostOnly.Name, Overlay.Name}

	t := table{head: []string{"System", "Bank coexist", "Bank role", "Evidence support", "QA acc", "Conflict", "Fact", "Judge"}}
	for _, name := range main {
		res, ok := r.Result(name)
		if !ok {
			continue
		}
		qa := []string{"n/a", "n/a", "n/a", "n/a"}
		if res.QA != nil {
			qa = []string{res.QA.Accuracy.String(), res.QA.Conflict.String(), res.QA.Fact.String(), res.QA.Judge.String()}
		}
		t.row(append([]string{name, res.Bank.Coexist.String(), res.Bank.Role.String(), res.Packet.Support.String()}, qa...)...)
	}
	fmt.Fprintln(w, "Table 2 layout (QA accuracy and judge score need an LLM endpoint):")
	fmt.Fprintln(w)
	t.write(w)

	t = table{head: []string{"System", "State first", "conflict", "fact", "Stale leakage ↓", "Future intrusion ↓", "Support conflict", "Support fact", "Mode match"}}
	for _, name := range main {
		if res, ok := r.Result(name); ok {
			p := res.Packet
			t.row(name, p.StateFirst.String(), p.StateFirstConflict.String(), p.StateFirstFact.String(), p.StaleLeakage.String(),
				p.FutureIntrusion.String(), p.SupportConflict.String(), p.SupportFact.String(), p.ModeMatch.String())
		}
	}
	fmt.Fprintln(w, "Packet metrics (LLM-free):")
	fmt.Fprintln(w)
	t.write(w)

	host, okH := r.Result(HostOnly.Name)
	ov, okO := r.Result(Overlay.Name)
	if okH && okO && len(host.Categories) == len(ov.Categories) {
		t = table{head: []string{"Category", "Bank role (overlay)", "State first (host / overlay)", "Stale leakage (host / overlay)", "Future intrusion (host / overlay)", "Support (host / overlay)"}}
		for i, h := range host.Categories {
			o := ov.Categories[i]
			t.row(string(h.Category), o.Role.String(), h.StateFirst.String()+" / "+o.StateFirst.String(),
				h.StaleLeakage.String()+" / "+o.StaleLeakage.String(), h.FutureIntrusion.String()+" / "+o.FutureIntrusion.String(),
				h.Support.String()+" / "+o.Support.String())
		}
		fmt.Fprintln(w, "By category:")
		fmt.Fprintln(w)
		t.write(w)
	}

	t = table{head: []string{"System", "Supersede/transition commits", "between a unit's cues", "other, touching a cue", "between original turns", "Routed share", "Refused memories"}}
	for _, res := range r.Results {
		if res.Skipped != "" || res.Variant.HostOnly {
			continue
		}
		b := res.Bank
		t.row(res.Variant.Name, fmt.Sprint(b.Commits), fmt.Sprint(b.UnitCommits), fmt.Sprint(b.CueCollateral), fmt.Sprint(b.TurnCommits),
			fmt.Sprintf("%.3f", res.Cost.RoutedShare), fmt.Sprint(res.Cost.IngestErrors))
	}
	fmt.Fprintln(w, "Bank commits (what the Judge changed, by whether it was intended):")
	fmt.Fprintln(w)
	t.write(w)

	if len(r.Results) > 2 {
		WriteAblationTable(w, r)
	}
	if r.LLM {
		fmt.Fprintf(w, "Answers and grades from the configured LLM endpoint.\n")
	}
	fmt.Fprintf(w, "Embedding (shared by all systems): %.1f s; whole run %.1f s.\n", r.EmbedSeconds, r.Seconds)
}

// WriteAblationTable writes the Table 5 layout: every overlay variant's main metrics with
// the share of candidate pairs routed to the Judge and ingest and query times.
func WriteAblationTable(w io.Writer, r *LTPReport) {
	t := table{head: []string{"Variant", "Bank role", "State first", "Stale leakage ↓", "Future intrusion ↓", "Support", "QA acc", "Judge", "Routed share", "Ingest ms/memory", "Query ms/probe"}}
	for _, res := range r.Results {
		if res.Variant.HostOnly {
			continue
		}
		name := res.Variant.Name
		if name == Overlay.Name {
			name += " (full)"
		}
		if res.Skipped != "" {
			t.row(name, "skipped: "+res.Skipped, "", "", "", "", "", "", "", "", "")
			continue
		}
		qa, jd := "n/a", "n/a"
		if res.QA != nil {
			qa, jd = res.QA.Accuracy.String(), res.QA.Judge.String()
		}
		p := res.Packet
		t.row(name, res.Bank.Role.String(), p.StateFirst.String(), p.StaleLeakage.String(), p.FutureIntrusion.String(), p.Support.String(),
			qa, jd, fmt.Sprintf("%.3f", res.Cost.RoutedShare), ms(res.Cost.IngestMS), ms(res.Cost.QueryMS))
	}
	fmt.Fprintln(w, "Ablations (Table 5 layout; ingest and query times exclude the shared embedding):")
	fmt.Fprintln(w)
	t.write(w)
}

// bars is one series of a grouped bar chart.
type bars struct {
	name   string
	values []float64
}

// barChart draws grouped bars (one group per label, one bar per series) to a PNG file.
// NaN values are drawn as zero.
func barChart(path, title, ylabel string, labels []string, series []bars) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Min, p.Y.Max = 0, 1.1 // room for the legend
	p.Legend.Top = true
	width := vg.Points(18)
	for i, s := range series {
		vals := make(plotter.Values, len(s.values))
		for j, v := range s.values {
			if !math.IsNaN(v) {
				vals[j] = v
			}
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("plot %s: %w", s.name, err)
		}
		b.LineStyle.Width = vg.Length(0)
		b.Color = plotutil.Color(i)
		b.Offset = vg.Length(float64(i)-float64(len(series)-1)/2) * width
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(labels...)
	if err := p.Save(vg.Length(max(6, 1.6*float64(len(labels))))*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("save chart: %w", err)
	}
	return nil
}

// PlotLTP draws the main metrics of host-only and host+overlay as a PNG bar chart.
func PlotLTP(path string, r *LTPReport) error {
	labels := []string{"bank role", "evidence support", "state first", "stale leakage", "future intrusion"}
	var series []bars
	for _, name := range []string{HostOnly.Name, Overlay.Name} {
		res, ok := r.Result(name)
		if !ok {
			continue
		}
		p := res.Packet
		series = append(series, bars{name, []float64{res.Bank.Role.Value(), p.Support.Value(), p.StateFirst.Value(), p.StaleLeakage.Value(), p.FutureIntrusion.Value()}})
	}
	return barChart(path, fmt.Sprintf("LTP seed %03d (%d probes; leakage and intrusion: lower is better)", r.Config.Seed, r.Probes), "rate", labels, series)
}
