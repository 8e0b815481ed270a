package grpo

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/atma-dev/atma/grpo/reward"
)

// Plot file names under the run directory's plots/.
const (
	PlotReward     = "reward.png"
	PlotComponents = "components.png"
	PlotKL         = "kl.png"
	PlotLength     = "length.png"
	PlotZeroStd    = "zero_std.png"
	PlotEval       = "eval.png"
)

// series is one named line.
type series struct {
	name string
	xys  plotter.XYs
}

// writePlots draws the run's curves from its step and evaluation records: the mean reward
// (with its min–max band as two faint lines), each component's mean, KL (when measured),
// completion length and, when the run evaluates, held-out accuracy.
func writePlots(dir string, recs []StepRecord, evals []EvalRecord) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create plots directory: %w", err)
	}
	var mean, lo, hi, kl, tokens, words, zero series
	mean.name, lo.name, hi.name = "mean", "min", "max"
	kl.name, tokens.name, words.name, zero.name = "KL (k3)", "tokens", "words", "zero-std groups"
	comps := make([]series, reward.NumComponents)
	for i, n := range reward.ComponentNames() {
		comps[i].name = n
	}
	for _, r := range recs {
		if r.Completions == 0 {
			continue
		}
		x := float64(r.Step)
		mean.xys = append(mean.xys, plotter.XY{X: x, Y: r.Reward.Mean})
		lo.xys = append(lo.xys, plotter.XY{X: x, Y: r.Reward.Min})
		hi.xys = append(hi.xys, plotter.XY{X: x, Y: r.Reward.Max})
		for i, v := range r.Components.Values() {
			comps[i].xys = append(comps[i].xys, plotter.XY{X: x, Y: v})
		}
		if r.KL != nil {
			kl.xys = append(kl.xys, plotter.XY{X: x, Y: *r.KL})
		}
		if r.Length.MeanTokens > 0 {
			tokens.xys = append(tokens.xys, plotter.XY{X: x, Y: r.Length.MeanTokens})
		}
		words.xys = append(words.xys, plotter.XY{X: x, Y: r.Length.MeanWords})
		zero.xys = append(zero.xys, plotter.XY{X: x, Y: r.Advantage.ZeroStdFraction})
	}
	var acc, f1, implicit, format series
	acc.name, f1.name, implicit.name, format.name = "accuracy", "F1 (conflict)", "implicit violations", "format valid"
	for _, e := range evals {
		x := float64(e.Step)
		acc.xys = append(acc.xys, plotter.XY{X: x, Y: e.Report.Accuracy})
		f1.xys = append(f1.xys, plotter.XY{X: x, Y: e.Report.F1})
		implicit.xys = append(implicit.xys, plotter.XY{X: x, Y: e.Report.ImplicitViolationAccuracy})
		format.xys = append(format.xys, plotter.XY{X: x, Y: e.Report.FormatValid})
	}
	charts := []struct {
		file, title, y string
		lines          []series
	}{
		{PlotReward, "Reward per step", "reward", []series{mean, lo, hi}},
		{PlotComponents, "Reward components (means, before weights)", "value", comps},
		{PlotKL, "KL to the reference", "mean per-token k3", []series{kl}},
		{PlotLength, "Completion length", "mean per completion", []series{tokens, words}},
		{PlotZeroStd, "Groups with equal rewards", "share of groups", []series{zero}},
		{PlotEval, "Held-out evaluation", "rate", []series{acc, f1, implicit, format}},
	}
	for _, c := range charts {
		if err := drawChart(filepath.Join(dir, c.file), c.title, c.y, c.lines); err != nil {
			return err
		}
	}
	return nil
}

// drawChart draws lines into a PNG; lines without points are left out, and a chart with
// none says so in its title.
func drawChart(path, title, ylabel string, lines []series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "step"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	drawn := 0
	for i, s := range lines {
		if len(s.xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xys)
		if err != nil {
			return fmt.Errorf("plot %s: %w", filepath.Base(path), err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors)) // dashed once the colours repeat
		if len(lines) == 3 && i > 0 && lines[0].name == "mean" {
			l.Color = color.Gray{Y: 170} // the min–max band of the reward chart
		}
		p.Add(l)
		p.Legend.Add(s.name, l)
		drawn++
	}
	if drawn == 0 {
		p.Title.Text += " (no data)"
	}
	p.Legend.Top = true
	// Head room for the legend, which sits in the top right corner.
	p.Y.Max += (p.Y.Max - p.Y.Min) * 0.06 * float64(drawn+1)
	if err := p.Save(9*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("save %s: %w", filepath.Base(path), err)
	}
	return nil
}
