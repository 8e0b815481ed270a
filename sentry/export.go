package sentry

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/atma-dev/atma/internal/atomicfile"

	"github.com/atma-dev/atma/internal/onnx/graph"
	"github.com/atma-dev/atma/sentry/gate"
)

// ErrPairExport: the heads have a pair logic head (gate.LogicPair), which the per-text ONNX
// export cannot hold; gate with the checkpoint in Go, or export a cosine-head checkpoint.
var ErrPairExport = errors.New("the pair logic head scores pairs of texts and is not exported; export a checkpoint trained with the cosine logic head")

// ONNX input and output names of the exported heads.
const (
	ONNXInput     = "embedding" // [batch, d] backbone embeddings
	ONNXTopOutput = "topic"     // [batch, out] normalised topic vectors
	ONNXLogOutput = "logic"     // [batch, out] normalised logic vectors
)

// ONNX returns heads h as an ONNX model (opset 17): input ONNXInput [batch, d], outputs
// ONNXTopOutput and ONNXLogOutput [batch, out], each Gemm, Relu or Tanh, Gemm, then
// x / sqrt(ReduceSumSquare(x) + gate.NormEps), the same computation as gate.Heads.Project.
// Initializers carry the PyTorch parameter names and layout; metadata is written as the
// model's metadata_props. Heads with a pair head are refused with an error wrapping ErrPairExport: the model's
// outputs are per text, and the pair head's score needs both texts of a pair.
func ONNX(h *gate.Heads, metadata map[string]string) ([]byte, error) {
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("export heads to ONNX: %w", err)
	}
	if h.Pair != nil {
		return nil, fmt.Errorf("export heads to ONNX: %w", ErrPairExport)
	}
	d := gate.LayoutOf(h)
	in, out := d.In, d.Out
	g := graph.New("sentry_heads")
	g.Producer = "atma sentry"
	g.Doc = "Sentry projection heads: backbone embedding → L2-normalised topic and logic vectors"
	x := g.Input(ONNXInput, graph.Float32, graph.Sym("batch"), graph.Fixed(int64(in)))
	eps := g.ScalarFloat32(gate.NormEps)
	shapes := d.TorchShapes()
	params, names := gate.Params(h), d.Names()
	for k, head := range []struct {
		output string
		act    string
	}{{ONNXTopOutput, "Relu"}, {ONNXLogOutput, "Tanh"}} {
		init := func(i int) string {
			i += 4 * k
			return g.InitFloat32(names[i], shapes[i], d.ToTorch(i, *params[i]))
		}
		w1, b1, w2, b2 := init(0), init(1), init(2), init(3)
		hid := g.Op(head.act, g.OpWith("Gemm", []string{x, w1, b1}, graph.AttrInt("transB", 1)))
		o := g.OpWith("Gemm", []string{hid, w2, b2}, graph.AttrInt("transB", 1))
		ss := g.OpWith("ReduceSumSquare", []string{o}, graph.AttrInts("axes", 1), graph.AttrInt("keepdims", 1))
		norm := g.Op("Sqrt", g.Op("Add", ss, eps))
		g.Node(graph.Node{Op: "Div", Inputs: []string{o, norm}, Outputs: []string{head.output}})
		g.Output(head.output, graph.Float32, graph.Sym("batch"), graph.Fixed(int64(out)))
	}
	for _, k := range slices.Sorted(maps.Keys(metadata)) {
		g.Metadata(k, metadata[k])
	}
	b, err := g.Marshal()
	if err != nil {
		return nil, fmt.Errorf("export heads to ONNX: %w", err)
	}
	return b, nil
}

// WriteONNX exports the checkpoint's heads to path atomically, with the backbone, sizes and
// gate thresholds as model metadata.
func (c *Checkpoint) WriteONNX(path string) error {
	m := c.Meta
	b, err := ONNX(c.Heads, map[string]string{
		"format":          "atma-sentry-heads-onnx",
		"backbone_id":     m.Backbone.ID,
		"backbone_sha256": m.Backbone.SHA256,
		"input_dim":       strconv.Itoa(c.Heads.Dim()),
		"out_dim":         strconv.Itoa(c.Heads.Topic.Out),
		"tau_top":         fmtFloat(m.Thresholds.Top),
		"tau_log":         fmtFloat(m.Thresholds.Log),
		"tau_gap":         fmtFloat(m.Thresholds.Gap),
		"calibrated":      strconv.FormatBool(m.Calibrated),
		"data_hash":       m.DataHash,
		"epoch":           strconv.Itoa(m.Epoch),
	})
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("export heads to ONNX: %w", err)
	}
	return nil
}
