package grpo

import (
	"math"
	"testing"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/judge"
	"github.com/atma-dev/atma/judge/eval"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func newTestRewarder(t testing.TB, mutate func(*reward.Config)) *reward.Rewarder {
	t.Helper()
	cfg := reward.DefaultConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	r, err := reward.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func promptOf(it eval.Item) string { return reward.PromptText(judge.Messages(it.Pair)) }
