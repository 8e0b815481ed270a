package reward

import (
	"strings"
	"testing"

	"github.com/atma-dev/atma/grpo/grpotest"
)

// rewardSizes are completions of a few lengths: the paper's answers are Small to Med
// (up to 400 tokens); Large is a rambling answer near the length term's zero.
var rewardSizes = []struct {
	name       string
	completion string
}{
	{"Small", grpotest.JobSupersede},
	{"Med", grpotest.JobGood},
	{"Large", strings.Replace(grpotest.JobGood, "Comparison: ", "Comparison: "+strings.Repeat("The user describes the new job at length and the old one too. ", 25), 1)},
}

// BenchmarkReward measures the reward on one goroutine; completions/s is the throughput.
func BenchmarkReward(b *testing.B) {
	r := newTestRewarder(b, nil)
	prompt, label := promptOf(grpotest.ItemJob), LabelFor(grpotest.ItemJob)
	for _, sz := range rewardSizes {
		b.Run(sz.name, func(b *testing.B) {
			b.SetBytes(int64(len(sz.completion)))
			b.ReportAllocs()
			for b.Loop() {
				r.Score(prompt, sz.completion, label)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "completions/s")
		})
	}
}

// BenchmarkRewardParallel measures the reward on GOMAXPROCS goroutines, as the reward
// server scores a large request.
func BenchmarkRewardParallel(b *testing.B) {
	r := newTestRewarder(b, nil)
	prompt, label := promptOf(grpotest.ItemJob), LabelFor(grpotest.ItemJob)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Score(prompt, grpotest.JobGood, label)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "completions/s")
}
