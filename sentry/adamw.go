package sentry

import (
	"fmt"
	"math"

	"github.com/atma-dev/atma/sentry/gate"
)

// adamW is AdamW (Loshchilov & Hutter) with PyTorch's update order: decay the weights by
// (1 − lr·λ), then take the bias-corrected Adam step. It updates the parameters' backing
// slices in place; Gorgonia only supplies the gradients (its own AdamW never applies its
// updates, so it is not used).
type adamW struct {
	beta1, beta2, eps, wd float64
	t                     int      // updates taken so far
	m, v                  []any    // first and second moments, like the parameters: []float32 or []float64
	params                []any    // the parameters' backing slices
	names                 []string // for error messages
}

// newAdamW returns an optimizer with zero moments for params (each []float32 or []float64).
func newAdamW(cfg Config, params []any, names []string) *adamW {
	if len(names) != len(params) {
		panic(fmt.Sprintf("sentry: %d parameter names for %d parameters", len(names), len(params)))
	}
	o := &adamW{beta1: cfg.Beta1, beta2: cfg.Beta2, eps: cfg.Eps, wd: cfg.WeightDecay, params: params, names: names,
		m: make([]any, len(params)), v: make([]any, len(params))}
	for i, p := range params {
		switch p := p.(type) {
		case []float32:
			o.m[i], o.v[i] = make([]float32, len(p)), make([]float32, len(p))
		case []float64:
			o.m[i], o.v[i] = make([]float64, len(p)), make([]float64, len(p))
		default:
			panic(fmt.Sprintf("sentry: parameter of type %T", p))
		}
	}
	return o
}

// step applies one update with learning rate lr. It refuses a non-finite gradient and then
// leaves everything unchanged.
func (o *adamW) step(grads []any, lr float64) error {
	if len(grads) != len(o.params) {
		return fmt.Errorf("%d gradients for %d parameters", len(grads), len(o.params))
	}
	for i, g := range grads {
		if j, bad := firstNonFinite(g); bad {
			return fmt.Errorf("gradient of %s[%d] is not finite", o.names[i], j)
		}
	}
	o.t++
	bc1 := 1 - math.Pow(o.beta1, float64(o.t))
	bc2 := 1 - math.Pow(o.beta2, float64(o.t))
	for i, p := range o.params {
		switch p := p.(type) {
		case []float32:
			adamwUpdate(p, grads[i].([]float32), o.m[i].([]float32), o.v[i].([]float32), lr, o.beta1, o.beta2, o.eps, o.wd, bc1, bc2)
		case []float64:
			adamwUpdate(p, grads[i].([]float64), o.m[i].([]float64), o.v[i].([]float64), lr, o.beta1, o.beta2, o.eps, o.wd, bc1, bc2)
		}
	}
	return nil
}

func adamwUpdate[T float32 | float64](p, g, m, v []T, lr, b1, b2, eps, wd, bc1, bc2 float64) {
	decay := 1 - lr*wd
	for i := range p {
		gi := float64(g[i])
		mi := b1*float64(m[i]) + (1-b1)*gi
		vi := b2*float64(v[i]) + (1-b2)*gi*gi
		m[i], v[i] = T(mi), T(vi)
		p[i] = T(float64(p[i])*decay - lr*(mi/bc1)/(math.Sqrt(vi/bc2)+eps))
	}
}

func firstNonFinite(s any) (int, bool) {
	switch s := s.(type) {
	case []float32:
		return gate.FirstNonFinite(s)
	case []float64:
		return gate.FirstNonFinite(s)
	}
	return 0, false
}

// learningRate is the rate for update number step (1-based) of total: linear warm-up, then
// constant or cosine decay (PyTorch's CosineAnnealingLR over the steps after warm-up).
func learningRate(cfg Config, step, total int) float64 {
	if cfg.WarmupSteps > 0 && step <= cfg.WarmupSteps {
		return cfg.LR * float64(step) / float64(cfg.WarmupSteps)
	}
	if cfg.Schedule != ScheduleCosine {
		return cfg.LR
	}
	span := total - cfg.WarmupSteps
	if span <= 0 {
		return cfg.LR
	}
	progress := math.Min(1, float64(step-cfg.WarmupSteps-1)/float64(span))
	return cfg.LR * 0.5 * (1 + math.Cos(math.Pi*progress))
}
