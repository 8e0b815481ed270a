package sentry

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/atma-dev/atma/internal/atomicfile"

	"github.com/atma-dev/atma/sentry/gate"
	"github.com/atma-dev/atma/sentry/safetensors"
)

// OptimizerFormat identifies the optimizer state file in its safetensors metadata; its
// version is gate.CheckpointVersion. The heads file's format is gate.CheckpointFormat.
const OptimizerFormat = "atma-sentry-adamw"

// Meta is a checkpoint's metadata: what inference reads (gate.Meta: backbone, sizes,
// thresholds, the weights' checksum) and the training state.
type Meta struct {
	gate.Meta
	Alpha      float64
	Beta       float64
	Config     Config // the training hyper-parameters, defaults filled in
	DataHash   string // identifies the training and validation data
	Epoch      int    // completed epochs
	Step       int    // optimizer updates taken
	ValLoss    float64
	ValLossTop float64
	ValLossLog float64
	Progress   Progress // what a resumed run needs
}

// Progress is the training state a resumed run continues from.
type Progress struct {
	EpochBatches int            `json:"epoch_batches"` // batches done in epoch Epoch+1; 0 at an epoch boundary
	SumTop       float64        `json:"sum_top"`       // Σ batch MSE × batch size so far in that epoch, topic head
	SumLog       float64        `json:"sum_log"`       // the same for the logic head
	Count        int            `json:"count"`         // examples so far in that epoch
	BestValLoss  float64        `json:"best_val_loss"` // +Inf before the first validation
	BestEpoch    int            `json:"best_epoch"`
	BadEpochs    int            `json:"bad_epochs"` // epochs since the best one, for early stopping
	History      []EpochMetrics `json:"history"`
}

// MarshalJSON writes an infinite BestValLoss as null (JSON has no infinity).
func (p Progress) MarshalJSON() ([]byte, error) {
	type plain Progress
	aux := struct {
		plain
		BestValLoss *float64 `json:"best_val_loss"`
	}{plain: plain(p)}
	if !math.IsInf(p.BestValLoss, 0) && !math.IsNaN(p.BestValLoss) {
		aux.BestValLoss = &p.BestValLoss
	}
	return json.Marshal(aux)
}

// UnmarshalJSON reads null BestValLoss as +Inf.
func (p *Progress) UnmarshalJSON(b []byte) error {
	type plain Progress
	aux := struct {
		*plain
		BestValLoss *float64 `json:"best_val_loss"`
	}{plain: (*plain)(p)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	p.BestValLoss = math.Inf(1)
	if aux.BestValLoss != nil {
		p.BestValLoss = *aux.BestValLoss
	}
	return nil
}

// Checkpoint is trained heads with their metadata. gate.ReadCheckpoint reads the part of
// the same file that inference needs.
type Checkpoint struct {
	Heads *gate.Heads
	Meta  Meta
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// encode serialises the checkpoint as safetensors and returns the weights' checksum too
// (metadata "data_sha256", what DecodeCheckpoint reads as Meta.WeightsSHA256), which ties
// optimizer state to them.
func (c *Checkpoint) encode() ([]byte, string, error) {
	h := c.Heads
	if err := h.Validate(); err != nil {
		return nil, "", fmt.Errorf("encode checkpoint: %w", err)
	}
	m := c.Meta
	if m.Backbone.Dim != h.Dim() || m.Hidden != h.Topic.Hidden || m.Out != h.Topic.Out {
		return nil, "", fmt.Errorf("encode checkpoint: metadata sizes %d→%d→%d differ from the heads' %d→%d→%d",
			m.Backbone.Dim, m.Hidden, m.Out, h.Dim(), h.Topic.Hidden, h.Topic.Out)
	}
	if got := h.LogicKind(); m.Config.Logic != "" && m.Config.Logic != got {
		return nil, "", fmt.Errorf("encode checkpoint: hyper-parameters say logic head %q, the heads are %q", m.Config.Logic, got)
	}
	d := gate.LayoutOf(h)
	in, hidden, out := d.In, d.Hidden, d.Out
	shapes, names := d.TorchShapes(), d.Names()
	tensors := make(map[string]safetensors.Tensor, len(names))
	for i, p := range gate.Params(h) {
		tensors[names[i]] = safetensors.Tensor{DType: "F32", Shape: shapes[i], Data: safetensors.EncodeF32(d.ToTorch(i, *p))}
	}
	sum := gate.Checksum(tensors)
	hyper, err := json.Marshal(m.Config)
	if err != nil {
		return nil, "", fmt.Errorf("encode checkpoint hyper-parameters: %w", err)
	}
	prog, err := json.Marshal(m.Progress)
	if err != nil {
		return nil, "", fmt.Errorf("encode checkpoint progress: %w", err)
	}
	meta := map[string]string{
		"format":           gate.CheckpointFormat,
		"format_version":   strconv.Itoa(gate.CheckpointVersion),
		"backbone_id":      m.Backbone.ID,
		"backbone_sha256":  strings.ToLower(m.Backbone.SHA256),
		"input_dim":        strconv.Itoa(in),
		"hidden_dim":       strconv.Itoa(hidden),
		"out_dim":          strconv.Itoa(out),
		"topic_activation": string(gate.ReLU),
		"logic_activation": string(gate.Tanh),
		"logic_head":       h.LogicKind(),
		"norm_eps":         fmtFloat(gate.NormEps),
		"alpha":            fmtFloat(m.Alpha),
		"beta":             fmtFloat(m.Beta),
		"tau_top":          fmtFloat(m.Thresholds.Top),
		"tau_log":          fmtFloat(m.Thresholds.Log),
		"tau_gap":          fmtFloat(m.Thresholds.Gap),
		"calibrated":       strconv.FormatBool(m.Calibrated),
		"hyperparameters":  string(hyper),
		"data_hash":        m.DataHash,
		"epoch":            strconv.Itoa(m.Epoch),
		"step":             strconv.Itoa(m.Step),
		"val_loss":         fmtFloat(m.ValLoss),
		"val_loss_top":     fmtFloat(m.ValLossTop),
		"val_loss_log":     fmtFloat(m.ValLossLog),
		"progress":         string(prog),
		"data_sha256":      sum,
	}
	if d.PairHidden > 0 {
		meta["pair_hidden_dim"] = strconv.Itoa(d.PairHidden)
	}
	b, err := safetensors.Encode(tensors, meta)
	return b, sum, err
}

// WriteCheckpoint writes c to path atomically (a temporary file, then a rename).
func WriteCheckpoint(path string, c *Checkpoint) error {
	b, _, err := c.encode()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	return nil
}

// ReadCheckpoint reads and verifies a checkpoint: what gate.ReadCheckpoint verifies
// (safetensors structure, format and version, the weights' checksum, the tensors' shapes) and
// every training field of the metadata. It does not check the backbone; LoadCheckpoint does.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint: %w", err)
	}
	c, err := DecodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("read checkpoint %s: %w", path, err)
	}
	return c, nil
}

// LoadCheckpoint reads a checkpoint and checks it against backbone b (see
// gate.Meta.CheckBackbone).
func LoadCheckpoint(path string, b gate.Backbone) (*Checkpoint, error) {
	c, err := ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := c.Meta.CheckBackbone(b); err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return c, nil
}

// DecodeCheckpoint parses a checkpoint from its bytes; see ReadCheckpoint. Problems wrap
// gate's errors (gate.ErrCorrupt, gate.ErrVersion, gate.ErrShapeMismatch).
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	var m Meta
	gc, err := gate.DecodeCheckpointWith(b, func(r *gate.MetaReader) {
		m.Alpha = r.Float("alpha", true)
		m.Beta = r.Float("beta", true)
		r.JSON("hyperparameters", &m.Config)
		m.DataHash = r.Str("data_hash")
		m.Epoch = r.Int("epoch")
		m.Step = r.Int("step")
		m.ValLoss = r.Float("val_loss", false)
		m.ValLossTop = r.Float("val_loss_top", false)
		m.ValLossLog = r.Float("val_loss_log", false)
		r.JSON("progress", &m.Progress)
	})
	if err != nil {
		return nil, err
	}
	m.Meta = gc.Meta
	h := gc.Heads
	if m.Config.Logic == "" { // written before the field existed
		m.Config.Logic = h.LogicKind()
	}
	if m.Config.Logic != h.LogicKind() {
		return nil, fmt.Errorf("%w: hyper-parameters say logic head %q, the metadata %q", gate.ErrCorrupt, m.Config.Logic, h.LogicKind())
	}
	return &Checkpoint{Heads: h, Meta: m}, nil
}

// OptimizerPath is where the optimizer state of the checkpoint at path is kept:
// "x.safetensors" → "x.optim.safetensors".
func OptimizerPath(path string) string {
	return strings.TrimSuffix(path, ".safetensors") + ".optim.safetensors"
}

// writeOptimizer writes the AdamW moments (PyTorch names with ".exp_avg" / ".exp_avg_sq" and
// layout) and step count, tied to the weights by their checksum.
func writeOptimizer(path string, o *adamW, d gate.Layout, weightsSum string) error {
	shapes, names := d.TorchShapes(), d.Names()
	if len(o.m) != len(names) {
		return fmt.Errorf("write optimizer state: %d moments for %d parameters", len(o.m), len(names))
	}
	tensors := make(map[string]safetensors.Tensor, 2*len(names))
	for i, name := range names {
		m, ok1 := o.m[i].([]float32)
		v, ok2 := o.v[i].([]float32)
		if !ok1 || !ok2 {
			return fmt.Errorf("write optimizer state: only float32 state is stored")
		}
		tensors[name+".exp_avg"] = safetensors.Tensor{DType: "F32", Shape: shapes[i], Data: safetensors.EncodeF32(d.ToTorch(i, m))}
		tensors[name+".exp_avg_sq"] = safetensors.Tensor{DType: "F32", Shape: shapes[i], Data: safetensors.EncodeF32(d.ToTorch(i, v))}
	}
	b, err := safetensors.Encode(tensors, map[string]string{
		"format":          OptimizerFormat,
		"format_version":  strconv.Itoa(gate.CheckpointVersion),
		"step":            strconv.Itoa(o.t),
		"weights_sha256":  weightsSum,
		"data_sha256":     gate.Checksum(tensors),
		"optimizer":       "AdamW",
		"decoupled_decay": "true",
	})
	if err != nil {
		return fmt.Errorf("write optimizer state: %w", err)
	}
	if err := atomicfile.Write(path, b); err != nil {
		return fmt.Errorf("write optimizer state: %w", err)
	}
	return nil
}

// readOptimizer loads the moments and step count written by writeOptimizer into o, checking
// that they belong to the weights with checksum weightsSum.
func readOptimizer(path string, o *adamW, d gate.Layout, weightsSum string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read optimizer state: %w", err)
	}
	fail := func(err error) error { return fmt.Errorf("read optimizer state %s: %w", path, err) }
	tensors, meta, err := gate.DecodeVerified(b, OptimizerFormat)
	if err != nil {
		return fail(err)
	}
	if meta["weights_sha256"] != weightsSum {
		return fail(fmt.Errorf("%w: optimizer state belongs to other weights", gate.ErrCorrupt))
	}
	r := gate.NewMetaReader(meta)
	step := r.Int("step")
	if err := r.Err(); err != nil {
		return fail(fmt.Errorf("%w: %w", gate.ErrCorrupt, err))
	}
	ms := make(map[string]safetensors.Tensor, 8)
	vs := make(map[string]safetensors.Tensor, 8)
	for name, t := range tensors {
		switch {
		case strings.HasSuffix(name, ".exp_avg_sq"):
			vs[strings.TrimSuffix(name, ".exp_avg_sq")] = t
		case strings.HasSuffix(name, ".exp_avg"):
			ms[strings.TrimSuffix(name, ".exp_avg")] = t
		default:
			return fail(fmt.Errorf("%w: unexpected tensor %s", gate.ErrShapeMismatch, name))
		}
	}
	m, err := d.ReadParams(ms)
	if err != nil {
		return fail(err)
	}
	v, err := d.ReadParams(vs)
	if err != nil {
		return fail(err)
	}
	if len(o.m) != len(m) {
		return fail(fmt.Errorf("%w: optimizer state does not fit the model", gate.ErrShapeMismatch))
	}
	for i := range m {
		dm, ok1 := o.m[i].([]float32)
		dv, ok2 := o.v[i].([]float32)
		if !ok1 || !ok2 || len(dm) != len(m[i]) || len(dv) != len(v[i]) {
			return fail(fmt.Errorf("%w: optimizer state does not fit the model", gate.ErrShapeMismatch))
		}
		copy(dm, m[i])
		copy(dv, v[i])
	}
	o.t = step
	return nil
}
