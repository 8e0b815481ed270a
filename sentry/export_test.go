package sentry

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/orttest"
)

// TestONNXExportParity runs the exported heads in ONNX Runtime and compares them with
// ProjectAll: at most 1e-5 apart, for several batch sizes through the symbolic batch axis.
func TestONNXExportParity(t *testing.T) {
	orttest.Require(t)
	const in, hidden, out = 24, 32, 16
	c := testCheckpoint()
	c.Heads = randomHeads(71, in, hidden, out)
	c.Meta.Backbone.Dim, c.Meta.Hidden, c.Meta.Out = in, hidden, out
	path := filepath.Join(t.TempDir(), "heads.onnx")
	if err := c.WriteONNX(path); err != nil {
		t.Fatal(err)
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.NewDynamicAdvancedSession(path, []string{ONNXInput}, []string{ONNXTopOutput, ONNXLogOutput}, opts)
	if err != nil {
		t.Fatalf("load exported model in ONNX Runtime: %v", err)
	}
	defer sess.Destroy()
	rng := rand.New(rand.NewPCG(72, 72))
	for _, batch := range []int{1, 7} {
		embs := make([][]float32, batch)
		flat := make([]float32, 0, batch*in)
		for i := range embs {
			embs[i] = randVec(rng, in)
			flat = append(flat, embs[i]...)
		}
		x, err := ort.NewTensor(ort.NewShape(int64(batch), in), flat)
		if err != nil {
			t.Fatal(err)
		}
		outs := []ort.Value{nil, nil}
		if err := sess.Run([]ort.Value{x}, outs); err != nil {
			t.Fatalf("run exported model: %v", err)
		}
		want := c.Heads.ProjectAll(embs)
		var worst float64
		for k, o := range outs {
			tt := o.(*ort.Tensor[float32])
			if s := tt.GetShape(); len(s) != 2 || s[0] != int64(batch) || s[1] != out {
				t.Fatalf("output %d shape %v", k, s)
			}
			got := tt.GetData()
			for i := range batch {
				w := want[i].Top
				if k == 1 {
					w = want[i].Log
				}
				for j := range w {
					worst = math.Max(worst, math.Abs(float64(got[i*out+j]-w[j])))
				}
			}
			o.Destroy()
		}
		x.Destroy()
		if !(worst <= 1e-5) {
			t.Errorf("batch %d: max |ONNX − Go| = %.3g > 1e-5", batch, worst)
		}
		t.Logf("batch %d: max |ONNX − Go| = %.3g", batch, worst)
	}
	md, err := ort.GetModelMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	defer md.Destroy()
	for k, want := range map[string]string{"backbone_id": c.Meta.Backbone.ID, "tau_gap": "0.18", "input_dim": "24"} {
		if got, ok, err := md.LookupCustomMetadataMap(k); err != nil || !ok || got != want {
			t.Errorf("model metadata %q = %q (present %v, err %v), want %q", k, got, ok, err, want)
		}
	}
}
