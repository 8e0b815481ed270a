//go:build cgo

package sentry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/onnx"
	"github.com/atma-dev/atma/sentry/gate"
)

// VerifyONNX runs the exported heads at path through ONNX Runtime (initialised with
// onnx.Init) on n seeded random unit embeddings and returns the largest absolute difference
// from Project. Export is trusted only below 1e-5.
func VerifyONNX(ctx context.Context, path string, h *gate.Heads, n int, seed uint64) (maxErr float64, err error) {
	sess, err := onnx.NewSession(ctx, onnx.SessionConfig{Provider: onnx.ProviderCPU}, path, []string{ONNXInput}, []string{ONNXTopOutput, ONNXLogOutput})
	if err != nil {
		return 0, fmt.Errorf("verify export: %w", err)
	}
	defer func() { err = errors.Join(err, sess.Destroy()) }()
	d := h.Dim()
	rng := rand.New(rand.NewPCG(seed, 0xe4b0))
	in := make([]float32, n*d)
	for i := range n {
		row := in[i*d : (i+1)*d]
		var norm float64
		for j := range row {
			row[j] = float32(rng.NormFloat64())
			norm += float64(row[j]) * float64(row[j])
		}
		for j := range row {
			row[j] /= float32(math.Sqrt(norm))
		}
	}
	x, err := ort.NewTensor(ort.NewShape(int64(n), int64(d)), in)
	if err != nil {
		return 0, err
	}
	defer func() { err = errors.Join(err, x.Destroy()) }()
	outs := []ort.Value{nil, nil}
	if err := sess.Run([]ort.Value{x}, outs); err != nil {
		return 0, fmt.Errorf("verify export: run: %w", err)
	}
	defer func() {
		for _, o := range outs {
			err = errors.Join(err, o.Destroy())
		}
	}()
	top, ok1 := outs[0].(*ort.Tensor[float32])
	log, ok2 := outs[1].(*ort.Tensor[float32])
	if !ok1 || !ok2 {
		return 0, errors.New("verify export: outputs are not float tensors")
	}
	tData, lData := top.GetData(), log.GetData()
	out := len(tData) / n
	for i := range n {
		wt, wl := h.Project(in[i*d : (i+1)*d])
		for j := range out {
			maxErr = max(maxErr, math.Abs(float64(tData[i*out+j]-wt[j])), math.Abs(float64(lData[i*out+j]-wl[j])))
		}
	}
	return maxErr, nil
}
