package grpo

import (
	"context"
	"fmt"
)

// LearnerNone is the learner that changes nothing: a reward run scores, logs and exports.
const LearnerNone = "none"

// Learner updates the policy from one step's rollouts. Implementations receive their
// hyperparameters (LearnerConfig, the KL coefficient) when they are built. After Step
// returns, the policy endpoint must serve the updated policy: GRPO is on-policy.
type Learner interface {
	// Step applies one update and returns metrics to log with the step (loss, grad norm,
	// learning rate, …); an error stops the run, with the step not recorded.
	Step(ctx context.Context, b Batch) (map[string]float64, error)
}

// Batch is one step's training data.
type Batch struct {
	Step int
	// Rollouts hold every scored completion with its advantage (and its token logprobs
	// when the policy returned them).
	Rollouts []Rollout
	// KLCoef is RunConfig.KLCoef.
	KLCoef float64
}

// NewLearner returns the learner cfg names. Only LearnerNone exists; training itself
// happens in an external trainer (see the reward server and scripts/grpo) or offline from
// exported rollouts.
func NewLearner(cfg LearnerConfig) (Learner, error) {
	if cfg.Name != LearnerNone {
		return nil, fmt.Errorf("learner %q does not exist: use %q here and train with an external trainer through the reward server, or offline from --export-rollouts", cfg.Name, LearnerNone)
	}
	return noLearner{}, nil
}

type noLearner struct{}

func (noLearner) Step(context.Context, Batch) (map[string]float64, error) { return nil, nil }
