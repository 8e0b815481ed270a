package tinybert_test

import (
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/orttest"

	"github.com/atma-dev/atma/internal/onnx/tinybert"
)

// requireORT fails the test (or benchmark) when ONNX Runtime cannot be loaded.
func requireORT(tb testing.TB) {
	tb.Helper()
	orttest.Require(tb)
}

// session is an ONNX Runtime session of a tinybert model.
type session struct {
	s      *ort.DynamicAdvancedSession
	hidden int
}

// newSession loads model (the bytes of Model.ONNX) with threads intra-op threads (0: ONNX
// Runtime's default); the session is destroyed when the test ends.
func newSession(tb testing.TB, model []byte, hidden, threads int) *session {
	tb.Helper()
	requireORT(tb)
	opts, err := ort.NewSessionOptions()
	if err != nil {
		tb.Fatal(err)
	}
	defer opts.Destroy()
	if threads > 0 {
		if err := opts.SetIntraOpNumThreads(threads); err != nil {
			tb.Fatal(err)
		}
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model,
		[]string{tinybert.InputIDs, tinybert.AttentionMask, tinybert.TokenTypeIDs}, []string{tinybert.LastHiddenState}, opts)
	if err != nil {
		tb.Fatalf("load tinybert in ONNX Runtime: %v", err)
	}
	tb.Cleanup(func() { s.Destroy() })
	return &session{s: s, hidden: hidden}
}

// run runs a batch of equal-length rows and returns last_hidden_state as [batch][seq][hidden].
func (s *session) run(tb testing.TB, ids, mask, types [][]int64) [][][]float32 {
	tb.Helper()
	batch, seq := len(ids), len(ids[0])
	var ins []ort.Value
	for _, rows := range [][][]int64{ids, mask, types} {
		flat := make([]int64, 0, batch*seq)
		for _, r := range rows {
			if len(r) != seq {
				tb.Fatalf("ragged batch: row of %d, want %d", len(r), seq)
			}
			flat = append(flat, r...)
		}
		v, err := ort.NewTensor(ort.NewShape(int64(batch), int64(seq)), flat)
		if err != nil {
			tb.Fatal(err)
		}
		defer v.Destroy()
		ins = append(ins, v)
	}
	outs := []ort.Value{nil}
	if err := s.s.Run(ins, outs); err != nil {
		tb.Fatalf("run tinybert in ONNX Runtime: %v", err)
	}
	defer outs[0].Destroy()
	out, ok := outs[0].(*ort.Tensor[float32])
	if !ok {
		tb.Fatalf("output is %T, want a float32 tensor", outs[0])
	}
	if shape := out.GetShape(); len(shape) != 3 || shape[0] != int64(batch) || shape[1] != int64(seq) || shape[2] != int64(s.hidden) {
		tb.Fatalf("output shape %v, want [%d %d %d]", shape, batch, seq, s.hidden)
	}
	data := out.GetData()
	res := make([][][]float32, batch)
	for b := range res {
		res[b] = make([][]float32, seq)
		for i := range res[b] {
			off := (b*seq + i) * s.hidden
			res[b][i] = append([]float32(nil), data[off:off+s.hidden]...)
		}
	}
	return res
}
