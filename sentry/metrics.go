package sentry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"

	"github.com/atma-dev/atma/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// EpochMetrics is one line of the metrics log (JSON lines, one per epoch). Losses are mean
// squared errors per head; Loss values are α·top + β·log.
type EpochMetrics struct {
	Epoch        int     `json:"epoch"` // 1-based
	Step         int     `json:"step"`  // optimizer updates so far
	TrainLossTop float64 `json:"train_loss_top"`
	TrainLossLog float64 `json:"train_loss_log"`
	TrainLoss    float64 `json:"train_loss"`
	ValLossTop   float64 `json:"val_loss_top"`
	ValLossLog   float64 `json:"val_loss_log"`
	ValLoss      float64 `json:"val_loss"`
	LR           float64 `json:"lr"`      // learning rate of the epoch's last update
	Seconds      float64 `json:"seconds"` // wall time of the epoch (training and validation)
	Best         bool    `json:"best"`    // this epoch's weights became sentry_best
}

// writeMetricsLine appends m to w as one JSON line.
func writeMetricsLine(w io.Writer, m EpochMetrics) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode metrics: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write metrics: %w", err)
	}
	return nil
}

// lossPlotPNG draws the train and validation loss of each head per epoch.
func lossPlotPNG(history []EpochMetrics) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "Sentry heads: loss per epoch"
	p.X.Label.Text = "epoch"
	p.Y.Label.Text = "mean squared error"
	p.Legend.Top = true
	series := []struct {
		name  string
		get   func(EpochMetrics) float64
		color color.Color
		dash  bool
	}{
		{"train topic", func(m EpochMetrics) float64 { return m.TrainLossTop }, color.RGBA{R: 31, G: 119, B: 180, A: 255}, false},
		{"val topic", func(m EpochMetrics) float64 { return m.ValLossTop }, color.RGBA{R: 31, G: 119, B: 180, A: 255}, true},
		{"train logic", func(m EpochMetrics) float64 { return m.TrainLossLog }, color.RGBA{R: 214, G: 39, B: 40, A: 255}, false},
		{"val logic", func(m EpochMetrics) float64 { return m.ValLossLog }, color.RGBA{R: 214, G: 39, B: 40, A: 255}, true},
	}
	for _, s := range series {
		pts := make(plotter.XYs, len(history))
		for i, m := range history {
			pts[i] = plotter.XY{X: float64(m.Epoch), Y: s.get(m)}
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", s.name, err)
		}
		line.Color, points.Color = s.color, s.color
		points.Shape = draw.CircleGlyph{}
		if s.dash {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			points.Shape = draw.RingGlyph{}
		}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	wt, err := p.WriterTo(8*vg.Inch, 5*vg.Inch, "png")
	if err != nil {
		return nil, fmt.Errorf("render loss plot: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("render loss plot: %w", err)
	}
	return buf.Bytes(), nil
}

// writeLossPlot renders the plot to path atomically.
func writeLossPlot(path string, history []EpochMetrics) error {
	b, err := lossPlotPNG(history)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("write loss plot: %w", err)
	}
	return nil
}
