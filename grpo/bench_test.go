package grpo

import (
	"log/slog"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLoopUtilisation runs the GRPO loop (no evaluation) for 10 steps
// against a fake endpoint that serves at most `slots` requests at once, each taking a
// fixed latency, and reports the share of the endpoint's capacity the loop kept busy:
// busy slot-time over slots × wall time, for the whole run (setup, ten steps, plots and
// summary: %capacity) and for the steps alone (%capacity_steps, wall time from the step
// records, commits excluded). Each step sends one request per prompt (n = G choices), as
// many prompts as slots, all at once; what the loop loses is the step barrier and each
// step's bookkeeping (scoring, JSON lines, fsync). A real endpoint takes seconds per
// request of 400 tokens, not 100 ms, so the losses shrink accordingly.
func BenchmarkLoopUtilisation(b *testing.B) {
	for _, sz := range []struct {
		name    string
		slots   int
		latency time.Duration
	}{{"Small", 4, 100 * time.Millisecond}, {"Med", 8, 100 * time.Millisecond}, {"Large", 32, 100 * time.Millisecond}} {
		b.Run(sz.name, func(b *testing.B) {
			fake := newFakePolicy(b, trainItems).withCapacity(sz.slots, sz.latency)
			client := fake.client(b, sz.slots)
			var busy, wall, steps time.Duration
			completions := 0
			for b.Loop() {
				cfg := DefaultRunConfig()
				cfg.Dir = b.TempDir()
				cfg.Steps = 10
				cfg.GradAccum = sz.slots
				cfg.Concurrency = sz.slots
				cfg.Eval.Every = 0
				fake.mu.Lock()
				busy0 := fake.busy
				fake.mu.Unlock()
				t0 := time.Now()
				sum, err := Run(b.Context(), cfg, Deps{Policy: client, Items: trainItems, Logger: slog.New(slog.DiscardHandler)})
				if err != nil {
					b.Fatal(err)
				}
				wall += time.Since(t0)
				fake.mu.Lock()
				busy += fake.busy - busy0
				fake.mu.Unlock()
				completions += sum.Completions
				recs, err := readJSONL[StepRecord](filepath.Join(cfg.Dir, fileSteps))
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range recs {
					steps += time.Duration(r.Seconds * float64(time.Second))
				}
			}
			b.ReportMetric(100*busy.Seconds()/(float64(sz.slots)*wall.Seconds()), "%capacity")
			b.ReportMetric(100*busy.Seconds()/(float64(sz.slots)*steps.Seconds()), "%capacity_steps")
			b.ReportMetric(float64(completions)/wall.Seconds(), "completions/s")
		})
	}
}
