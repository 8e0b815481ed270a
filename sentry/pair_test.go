package sentry

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/atma-dev/atma/sentry/gate"
	"github.com/atma-dev/atma/sentry/safetensors"
	"gorgonia.org/tensor"
)

// TestPairGradientCheck compares the pair graph's gradients, the pair head's and the logic
// head's beneath it, with central finite differences of its loss, in float64, on a partial
// batch.
func TestPairGradientCheck(t *testing.T) {
	const alpha, beta = 0.7, 1.3
	h := randomPairHeads(1, 5, 4, 3, 6)
	exs := randomExamples(rand.New(rand.NewPCG(2, 2)), 3, 5)
	n := newGraphT(t, h, 4, alpha, beta, tensor.Float64)
	if want, checked := 2*(5*4+4+4*3+3)+(2*3*6+6+6+1), checkGradients(t, n, exs, alpha, beta); checked != want {
		t.Errorf("checked %d parameters, want %d", checked, want)
	}
}

// TestPairGraphMatchesScore checks that the loss the graph computes is the one of the Go
// inference path (ProjectAll, then PairHead.Score through Gate.Score).
func TestPairGraphMatchesScore(t *testing.T) {
	h := randomPairHeads(3, 7, 6, 5, 4)
	exs := randomExamples(rand.New(rand.NewPCG(4, 4)), 5, 7)
	n := newGraphT(t, h, 8, 1, 1, tensor.Float64)
	_, log, err := n.run(exs)
	if err != nil {
		t.Fatal(err)
	}
	a, b, _ := similarities(h, exs)
	var want float64
	for i, ex := range exs {
		d := b[i] - float64(ex.YLog)
		want += d * d
		if s := gate.NewGate(gate.DefaultThresholds()).Score(h.ProjectAll([][]float32{ex.U})[0], h.ProjectAll([][]float32{ex.P})[0]); math.Abs(s.B-b[i]) > 1e-12 || math.Abs(s.A-a[i]) > 1e-12 {
			t.Errorf("pair %d: Gate.Score a %v b %v, similarities a %v b %v", i, s.A, s.B, a[i], b[i])
		}
	}
	want /= float64(len(exs))
	if math.Abs(log-want) > 1e-5 {
		t.Errorf("graph logic loss %v, Go inference %v", log, want)
	}
}

// chainTask is a relation a dot product of unit vectors cannot fit: texts are points 0…n−1
// on a line (one-hot embeddings), every pair is on one slot, and two texts agree (YLog 1)
// exactly when they are neighbours. Agreement is not transitive — 0 agrees with 1 and 1 with
// 2, but 0 conflicts with 2 — while unit vectors with ⟨z0, z1⟩ = ⟨z1, z2⟩ = 1 are equal, so
// ⟨z0, z2⟩ = 1 too. For three unit vectors the least (1 − c01)² + (1 − c12)² + c02² is 0.139;
// six points hold four such triples, each pair in at most two, so no cosine head gets the
// mean squared error over the 15 pairs below 4 · 0.139 / 2 / 15 = 0.0186. The pair head can
// reach zero.
func chainTask(n, copies int) []Example {
	emb := make([][]float32, n)
	for i := range emb {
		emb[i] = make([]float32, n)
		emb[i][i] = 1
	}
	var exs []Example
	for range copies {
		for i := range n {
			for j := i + 1; j < n; j++ {
				ex := Example{U: emb[i], P: emb[j], YTop: 1}
				if j == i+1 {
					ex.YLog = 1
				}
				exs = append(exs, ex)
			}
		}
	}
	return exs
}

func TestPairHeadLearnsNonTransitiveRelation(t *testing.T) {
	exs := chainTask(6, 6)
	mse := map[string]float64{}
	for _, logic := range []string{gate.LogicCosine, gate.LogicPair} {
		cfg := Config{Hidden: 16, Out: 8, LR: 1e-2, BatchSize: 30, Epochs: 40, Seed: 5, Logic: logic,
			Calibration: CalibrationConfig{Skip: true}}
		res, err := Train(t.Context(), cfg, exs, exs, Options{Dir: t.TempDir(), Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Evaluate(res.Heads, gate.NewGate(gate.DefaultThresholds()), exs)
		if err != nil {
			t.Fatal(err)
		}
		mse[logic] = ev.MSELog
		t.Logf("%s: logic MSE %.4f, same-slot conflict AUC %v", logic, ev.MSELog, *ev.SlotAUC)
	}
	if mse[gate.LogicPair] > 0.01 {
		t.Errorf("pair head: logic MSE %.4f, want ≤ 0.01", mse[gate.LogicPair])
	}
	if mse[gate.LogicCosine] < 0.015 {
		t.Errorf("cosine head: logic MSE %.4f, below the bound 0.0186 for unit vectors: the cosine path is not what Train fitted", mse[gate.LogicCosine])
	}
}

func testPairCheckpoint() *Checkpoint {
	c := testCheckpoint()
	c.Heads = randomPairHeads(21, 6, 5, 4, 3)
	c.Meta.Config.Logic, c.Meta.Config.PairHidden = gate.LogicPair, 3
	return c
}

// TestPairCheckpointLayout checks how a pair head is stored (its file round trip is
// TestCheckpointRoundTrip's): the metadata, the PyTorch layout, and the same decisions after
// decoding.
func TestPairCheckpointLayout(t *testing.T) {
	c := testPairCheckpoint()
	b := encodeT(t, c)
	got, err := DecodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta.Config != c.Meta.Config {
		t.Errorf("config %+v, want %+v", got.Meta.Config, c.Meta.Config)
	}
	tensors, meta, err := safetensors.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if meta["logic_head"] != gate.LogicPair || meta["pair_hidden_dim"] != "3" {
		t.Errorf("metadata logic_head %q, pair_hidden_dim %q", meta["logic_head"], meta["pair_hidden_dim"])
	}
	// PyTorch layout: Linear(2·out, hidden) weight is [hidden, 2·out], Linear(hidden, 1) [1, hidden].
	if s := tensors["pair_head.0.weight"].Shape; !slices.Equal(s, []int64{3, 8}) {
		t.Errorf("pair_head.0.weight shape %v, want [3 8]", s)
	}
	w := safetensors.DecodeF32(tensors["pair_head.0.weight"].Data)
	if w[1*8+5] != c.Heads.Pair.W1[5*3+1] {
		t.Errorf("pair_head.0.weight[1][5] = %v, want W1[5][1] = %v", w[1*8+5], c.Heads.Pair.W1[5*3+1])
	}
	// The gate scores a pair the same with the loaded heads.
	x := [][]float32{{1, 0, 2, 0, -1, 0.5}, {0.3, 1, 0, 1, 0, -2}}
	p, q := c.Heads.ProjectAll(x), got.Heads.ProjectAll(x)
	g := gate.NewGate(gate.DefaultThresholds())
	if a, b := g.Score(p[0], p[1]), g.Score(q[0], q[1]); a != b {
		t.Errorf("decision %+v after the round trip, %+v before", b, a)
	}
}

// TestCheckpointWithoutLogicHeadLoadsAsCosine reads a checkpoint as written before the pair
// head existed: no logic_head metadata, no "logic" hyper-parameter.
func TestCheckpointWithoutLogicHeadLoadsAsCosine(t *testing.T) {
	c := testCheckpoint()
	old := reencode(t, encodeT(t, c), func(_ map[string]safetensors.Tensor, m map[string]string) {
		delete(m, "logic_head")
		m["hyperparameters"] = strings.Replace(m["hyperparameters"], `"logic":"cosine",`, "", 1)
	})
	_, meta, err := safetensors.Decode(old)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := meta["logic_head"]; ok || strings.Contains(meta["hyperparameters"], `"logic"`) {
		t.Fatalf("the old-style file still records its logic head: %v", meta["hyperparameters"])
	}
	got, err := DecodeCheckpoint(old)
	if err != nil {
		t.Fatal(err)
	}
	if got.Heads.Pair != nil || got.Heads.LogicKind() != gate.LogicCosine || got.Meta.Config.Logic != gate.LogicCosine {
		t.Errorf("old checkpoint read as %s (config %q)", got.Heads.LogicKind(), got.Meta.Config.Logic)
	}
	headsEqual(t, "old checkpoint", got.Heads, c.Heads)
}

func TestCheckpointLogicHeadRefused(t *testing.T) {
	cosine, pair := encodeT(t, testCheckpoint()), encodeT(t, testPairCheckpoint())
	tests := []struct {
		name string
		data []byte
		want error
		msg  string
	}{
		{"unknown logic head", reencode(t, pair, func(_ map[string]safetensors.Tensor, m map[string]string) { m["logic_head"] = "bilinear" }),
			gate.ErrCorrupt, `"logic_head" = "bilinear"`},
		{"pair without its size", reencode(t, pair, func(_ map[string]safetensors.Tensor, m map[string]string) { delete(m, "pair_hidden_dim") }),
			gate.ErrCorrupt, `"pair_hidden_dim" is missing`},
		{"pair size zero", reencode(t, pair, func(_ map[string]safetensors.Tensor, m map[string]string) { m["pair_hidden_dim"] = "0" }),
			gate.ErrCorrupt, `"pair_hidden_dim" is 0`},
		{"pair size for a cosine head", reencode(t, cosine, func(_ map[string]safetensors.Tensor, m map[string]string) { m["pair_hidden_dim"] = "3" }),
			gate.ErrCorrupt, "is set for logic head"},
		{"pair tensors in a cosine checkpoint", reencode(t, pair, func(_ map[string]safetensors.Tensor, m map[string]string) {
			delete(m, "pair_hidden_dim")
			m["logic_head"] = gate.LogicCosine
			m["hyperparameters"] = strings.Replace(m["hyperparameters"], `"logic":"pair","pair_hidden":3`, `"logic":"cosine"`, 1)
		}), gate.ErrShapeMismatch, "unexpected tensor pair_head.0.weight"},
		{"pair metadata without pair tensors", reencode(t, pair, func(ts map[string]safetensors.Tensor, _ map[string]string) {
			for _, n := range (gate.Layout{PairHidden: 1}).Names()[len(paramNames):] {
				delete(ts, n)
			}
		}), gate.ErrShapeMismatch, "tensor pair_head.0.weight is missing"},
		{"pair tensor of another size", reencode(t, pair, func(_ map[string]safetensors.Tensor, m map[string]string) { m["pair_hidden_dim"] = "4" }),
			gate.ErrShapeMismatch, "pair_head.0.weight has shape [3 8], want [4 8]"},
		{"hyper-parameters disagree", reencode(t, pair, func(_ map[string]safetensors.Tensor, m map[string]string) {
			m["hyperparameters"] = strings.Replace(m["hyperparameters"], `"logic":"pair","pair_hidden":3`, `"logic":"cosine"`, 1)
		}), gate.ErrCorrupt, `hyper-parameters say logic head "cosine"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeCheckpoint(tc.data)
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.msg) {
				t.Errorf("error %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestONNXExportRefusesPairHead(t *testing.T) {
	c := testPairCheckpoint()
	path := filepath.Join(t.TempDir(), "heads.onnx")
	if err := c.WriteONNX(path); !errors.Is(err, ErrPairExport) {
		t.Fatalf("export of a pair head: %v, want ErrPairExport", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export left %s behind (%v)", path, err)
	}
}

func TestConfigValidateLogic(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		msg  string
	}{
		{"unknown", Config{Logic: "bilinear"}, `unknown logic head "bilinear"`},
		{"pair size without pair", Config{PairHidden: 8}, "set without logic head"},
		{"negative pair size", Config{Logic: gate.LogicPair, PairHidden: -1}, "pair head hidden size -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %v, want one mentioning %q", err, tc.msg)
			}
		})
	}
	if d := (Config{Logic: gate.LogicPair}).withDefaults(); d.PairHidden != DefaultPairHidden {
		t.Errorf("pair head default hidden size %d, want %d", d.PairHidden, DefaultPairHidden)
	}
	if d := (Config{}).withDefaults(); d.Logic != gate.LogicCosine || d.PairHidden != 0 {
		t.Errorf("zero config: logic %q, pair hidden %d; want the paper's cosine head", d.Logic, d.PairHidden)
	}
}
