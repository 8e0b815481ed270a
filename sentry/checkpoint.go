package sentry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// Checkpoint format identifiers, stored in the safetensors metadata.
const (
	CheckpointFormat  = "atma-sentry-heads"
	OptimizerFormat   = "atma-sentry-adamw"
	CheckpointVersion = 1
)

// Errors that checkpoint loading wraps; test them with errors.Is.
var (
	// ErrCorrupt: the file is truncated, malformed, fails its checksum or is not a sentry
	// checkpoint.
	ErrCorrupt = errors.New("corrupt sentry checkpoint")
	// ErrVersion: the checkpoint was written in a format version this code does not read.
	ErrVersion = errors.New("unsupported sentry checkpoint version")
	// ErrBackboneMismatch: the checkpoint was trained on another backbone (id or sha256).
	ErrBackboneMismatch = errors.New("sentry checkpoint is for another backbone")
	// ErrShapeMismatch: the checkpoint's heads have other sizes than expected.
	ErrShapeMismatch = errors.New("sentry checkpoint has other head sizes")
)

// Backbone identifies the frozen sentence encoder the heads were trained on.
type Backbone struct {
	ID     string // manifest id, e.g. "nomic-embed-text-v1.5"
	SHA256 string // hex sha256 of the ONNX model file
	Dim    int    // embedding size; 0 when unknown (then taken from the data)
}

// Meta is a checkpoint's metadata.
type Meta struct {
	Backbone   Backbone
	Hidden     int
	Out        int
	Alpha      float64
	Beta       float64
	Thresholds Thresholds
	Calibrated bool   // Thresholds were calibrated on the validation split
	Config     Config // the training hyper-parameters, defaults filled in
	DataHash   string // identifies the training and validation data
	Epoch      int    // completed epochs
	Step       int    // optimizer updates taken
	ValLoss    float64
	ValLossTop float64
	ValLossLog float64
	Progress   Progress // what a resumed run needs

	// WeightsSHA256 is the checksum of the weight tensors (metadata "data_sha256"), set by
	// DecodeCheckpoint; the optimizer state records it to prove it belongs to these weights.
	WeightsSHA256 string
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

// Checkpoint is trained heads with their metadata.
type Checkpoint struct {
	Heads *Heads
	Meta  Meta
}

// CheckBackbone reports whether the checkpoint fits backbone b: an id or sha256 mismatch
// wraps ErrBackboneMismatch, an embedding-size mismatch ErrShapeMismatch. Empty fields of b
// are not checked.
func (m Meta) CheckBackbone(b Backbone) error {
	if b.ID != "" && m.Backbone.ID != b.ID {
		return fmt.Errorf("%w: trained on backbone %q, loading for %q", ErrBackboneMismatch, m.Backbone.ID, b.ID)
	}
	if b.SHA256 != "" && !strings.EqualFold(m.Backbone.SHA256, b.SHA256) {
		got := m.Backbone.SHA256
		if got == "" {
			got = "(none recorded)"
		}
		return fmt.Errorf("%w: trained on backbone model sha256 %s, loading for %s", ErrBackboneMismatch, got, b.SHA256)
	}
	if b.Dim != 0 && m.Backbone.Dim != b.Dim {
		return fmt.Errorf("%w: heads take %d-d embeddings, backbone gives %d", ErrShapeMismatch, m.Backbone.Dim, b.Dim)
	}
	return nil
}

// CheckShape reports (wrapping ErrShapeMismatch) whether the heads have hidden and out sizes.
func (m Meta) CheckShape(hidden, out int) error {
	if m.Hidden != hidden || m.Out != out {
		return fmt.Errorf("%w: checkpoint heads are %d→%d→%d, want %d→%d→%d",
			ErrShapeMismatch, m.Backbone.Dim, m.Hidden, m.Out, m.Backbone.Dim, hidden, out)
	}
	return nil
}

// dims are the sizes of a set of heads; pairHidden is 0 without a pair head.
type dims struct{ in, hidden, out, pairHidden int }

func dimsOf(h *Heads) dims {
	d := dims{in: h.Dim(), hidden: h.Topic.Hidden, out: h.Topic.Out}
	if h.Pair != nil {
		d.pairHidden = h.Pair.Hidden
	}
	return d
}

// names are the PyTorch names of the parameters: paramNames, then pairParamNames with a
// pair head.
func (d dims) names() []string {
	n := paramNames[:]
	if d.pairHidden > 0 {
		n = append(n[:len(n):len(n)], pairParamNames[:]...)
	}
	return n
}

// matrix returns the input-major rows and columns of parameter i, or ok false for a bias.
func (d dims) matrix(i int) (rows, cols int, ok bool) {
	switch i {
	case 0, 4:
		return d.in, d.hidden, true
	case 2, 6:
		return d.hidden, d.out, true
	case 8:
		return 2 * d.out, d.pairHidden, true
	case 10:
		return d.pairHidden, 1, true
	}
	return 0, 0, false
}

// torchShapes are the PyTorch shapes of the parameters in names order.
func (d dims) torchShapes() [][]int64 {
	i, h, o := int64(d.in), int64(d.hidden), int64(d.out)
	s := [][]int64{{h, i}, {h}, {o, h}, {o}, {h, i}, {h}, {o, h}, {o}}
	if d.pairHidden > 0 {
		ph := int64(d.pairHidden)
		s = append(s, []int64{ph, 2 * o}, []int64{ph}, []int64{1, ph}, []int64{1})
	}
	return s
}

// headSlices are the parameter slices of h in names order.
func headSlices(h *Heads) []*[]float32 {
	s := []*[]float32{&h.Topic.W1, &h.Topic.B1, &h.Topic.W2, &h.Topic.B2, &h.Logic.W1, &h.Logic.B1, &h.Logic.W2, &h.Logic.B2}
	if p := h.Pair; p != nil {
		s = append(s, &p.W1, &p.B1, &p.W2, &p.B2)
	}
	return s
}

// toTorch converts parameter i (input-major, as Heads and the graph store it) to PyTorch
// layout; fromTorch undoes it. Biases are unchanged.
func (d dims) toTorch(i int, v []float32) []float32 {
	if r, c, ok := d.matrix(i); ok {
		return transpose(v, r, c)
	}
	return v
}

func (d dims) fromTorch(i int, v []float32) []float32 {
	if r, c, ok := d.matrix(i); ok {
		return transpose(v, c, r)
	}
	return v
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// encode serialises the checkpoint as safetensors.
func (c *Checkpoint) encode() ([]byte, error) {
	h := c.Heads
	if err := h.validate(); err != nil {
		return nil, fmt.Errorf("encode checkpoint: %w", err)
	}
	m := c.Meta
	if m.Backbone.Dim != h.Dim() || m.Hidden != h.Topic.Hidden || m.Out != h.Topic.Out {
		return nil, fmt.Errorf("encode checkpoint: metadata sizes %d→%d→%d differ from the heads' %d→%d→%d",
			m.Backbone.Dim, m.Hidden, m.Out, h.Dim(), h.Topic.Hidden, h.Topic.Out)
	}
	if got := h.LogicKind(); m.Config.Logic != "" && m.Config.Logic != got {
		return nil, fmt.Errorf("encode checkpoint: hyper-parameters say logic head %q, the heads are %q", m.Config.Logic, got)
	}
	d := dimsOf(h)
	in, hidden, out := d.in, d.hidden, d.out
	shapes, names := d.torchShapes(), d.names()
	tensors := make(map[string]stTensor, len(names))
	for i, p := range headSlices(h) {
		tensors[names[i]] = stTensor{DType: "F32", Shape: shapes[i], Data: f32Bytes(d.toTorch(i, *p))}
	}
	sum, err := tensorsSHA256(tensors)
	if err != nil {
		return nil, err
	}
	hyper, err := json.Marshal(m.Config)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint hyper-parameters: %w", err)
	}
	prog, err := json.Marshal(m.Progress)
	if err != nil {
		return nil, fmt.Errorf("encode checkpoint progress: %w", err)
	}
	meta := map[string]string{
		"format":           CheckpointFormat,
		"format_version":   strconv.Itoa(CheckpointVersion),
		"backbone_id":      m.Backbone.ID,
		"backbone_sha256":  strings.ToLower(m.Backbone.SHA256),
		"input_dim":        strconv.Itoa(in),
		"hidden_dim":       strconv.Itoa(hidden),
		"out_dim":          strconv.Itoa(out),
		"topic_activation": string(ReLU),
		"logic_activation": string(Tanh),
		"logic_head":       h.LogicKind(),
		"norm_eps":         fmtFloat(NormEps),
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
	if d.pairHidden > 0 {
		meta["pair_hidden_dim"] = strconv.Itoa(d.pairHidden)
	}
	return encodeSafetensors(tensors, meta)
}

// tensorsSHA256 hashes the tensors' names, dtypes, shapes and bytes in name order, so a
// checksum catches flipped bits anywhere in the weights.
func tensorsSHA256(tensors map[string]stTensor) (string, error) {
	hash := sha256.New()
	for _, name := range sortedKeys(tensors) {
		t := tensors[name]
		fmt.Fprintf(hash, "%s\x00%s\x00%v\x00%d\x00", name, t.DType, t.Shape, len(t.Data))
		hash.Write(t.Data)
	}
	return hex.EncodeToString(hash.Sum(nil)), nil
}

// WriteCheckpoint writes c to path atomically (a temporary file, then a rename).
func WriteCheckpoint(path string, c *Checkpoint) error {
	b, err := c.encode()
	if err != nil {
		return err
	}
	if err := graph.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	return nil
}

// ReadCheckpoint reads and verifies a checkpoint: safetensors structure, format and version,
// the weights' checksum, every metadata field, and that the eight tensors have the shapes the
// metadata promises. It does not check the backbone; LoadCheckpoint does.
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

// LoadCheckpoint reads a checkpoint and checks it against backbone b (see Meta.CheckBackbone).
func LoadCheckpoint(path string, b Backbone) (*Checkpoint, error) {
	c, err := ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if err := c.Meta.CheckBackbone(b); err != nil {
		return nil, fmt.Errorf("load checkpoint %s: %w", path, err)
	}
	return c, nil
}

// metaReader parses metadata fields, collecting every problem.
type metaReader struct {
	meta map[string]string
	errs []error
}

func (r *metaReader) str(key string) string {
	v, ok := r.meta[key]
	if !ok {
		r.errs = append(r.errs, fmt.Errorf("metadata %q is missing", key))
	}
	return v
}

func (r *metaReader) int(key string) int {
	s, ok := r.meta[key]
	if !ok {
		r.errs = append(r.errs, fmt.Errorf("metadata %q is missing", key))
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		r.errs = append(r.errs, fmt.Errorf("metadata %q = %q is not a non-negative integer", key, s))
	}
	return v
}

func (r *metaReader) float(key string, finite bool) float64 {
	s, ok := r.meta[key]
	if !ok {
		r.errs = append(r.errs, fmt.Errorf("metadata %q is missing", key))
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || (finite && (math.IsNaN(v) || math.IsInf(v, 0))) {
		r.errs = append(r.errs, fmt.Errorf("metadata %q = %q is not a finite number", key, s))
	}
	return v
}

func (r *metaReader) json(key string, into any) {
	s, ok := r.meta[key]
	if !ok {
		r.errs = append(r.errs, fmt.Errorf("metadata %q is missing", key))
		return
	}
	if err := json.Unmarshal([]byte(s), into); err != nil {
		r.errs = append(r.errs, fmt.Errorf("metadata %q: %v", key, err))
	}
}

// checkFormat verifies the format name and version of a file's metadata.
func checkFormat(meta map[string]string, format string) error {
	if got := meta["format"]; got != format {
		return fmt.Errorf("%w: format %q, want %q", ErrCorrupt, got, format)
	}
	if v := meta["format_version"]; v != strconv.Itoa(CheckpointVersion) {
		return fmt.Errorf("%w: format version %q, this build reads %d", ErrVersion, v, CheckpointVersion)
	}
	return nil
}

// verifySum checks the data_sha256 metadata against the tensors.
func verifySum(tensors map[string]stTensor, meta map[string]string) error {
	sum, err := tensorsSHA256(tensors)
	if err != nil {
		return err
	}
	if want, ok := meta["data_sha256"]; !ok || want != sum {
		return fmt.Errorf("%w: tensor checksum %s does not match the recorded %q", ErrCorrupt, sum, want)
	}
	return nil
}

// DecodeCheckpoint parses a checkpoint from its bytes; see ReadCheckpoint.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	tensors, meta, err := decodeSafetensors(b)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(meta, CheckpointFormat); err != nil {
		return nil, err
	}
	if err := verifySum(tensors, meta); err != nil {
		return nil, err
	}
	r := &metaReader{meta: meta}
	var m Meta
	m.Backbone.ID = r.str("backbone_id")
	m.Backbone.SHA256 = r.str("backbone_sha256")
	m.Backbone.Dim = r.int("input_dim")
	m.Hidden = r.int("hidden_dim")
	m.Out = r.int("out_dim")
	if a := r.str("topic_activation"); a != string(ReLU) {
		r.errs = append(r.errs, fmt.Errorf("topic_activation %q, want %q", a, ReLU))
	}
	if a := r.str("logic_activation"); a != string(Tanh) {
		r.errs = append(r.errs, fmt.Errorf("logic_activation %q, want %q", a, Tanh))
	}
	if e := r.float("norm_eps", true); e != NormEps {
		r.errs = append(r.errs, fmt.Errorf("norm_eps %v, want %v", e, NormEps))
	}
	m.Alpha = r.float("alpha", true)
	m.Beta = r.float("beta", true)
	m.Thresholds = Thresholds{Top: r.float("tau_top", true), Log: r.float("tau_log", true), Gap: r.float("tau_gap", true)}
	switch s := r.str("calibrated"); s {
	case "true", "false":
		m.Calibrated = s == "true"
	default:
		r.errs = append(r.errs, fmt.Errorf("metadata \"calibrated\" = %q is not a boolean", s))
	}
	r.json("hyperparameters", &m.Config)
	m.DataHash = r.str("data_hash")
	m.Epoch = r.int("epoch")
	m.Step = r.int("step")
	m.ValLoss = r.float("val_loss", false)
	m.ValLossTop = r.float("val_loss_top", false)
	m.ValLossLog = r.float("val_loss_log", false)
	r.json("progress", &m.Progress)
	m.WeightsSHA256 = meta["data_sha256"]
	// Checkpoints written before the pair head existed have no logic_head: the paper's.
	pairHidden := 0
	switch lh, ok := meta["logic_head"]; {
	case !ok || lh == LogicCosine:
		if _, ok := meta["pair_hidden_dim"]; ok {
			r.errs = append(r.errs, fmt.Errorf("metadata \"pair_hidden_dim\" is set for logic head %q", LogicCosine))
		}
	case lh == LogicPair:
		if pairHidden = r.int("pair_hidden_dim"); pairHidden == 0 && len(r.errs) == 0 {
			r.errs = append(r.errs, errors.New("metadata \"pair_hidden_dim\" is 0"))
		}
	default:
		r.errs = append(r.errs, fmt.Errorf("metadata \"logic_head\" = %q: this build reads %q and %q", lh, LogicCosine, LogicPair))
	}
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(r.errs...))
	}
	if m.Backbone.Dim == 0 || m.Hidden == 0 || m.Out == 0 {
		return nil, fmt.Errorf("%w: head sizes %d→%d→%d", ErrCorrupt, m.Backbone.Dim, m.Hidden, m.Out)
	}
	d := dims{in: m.Backbone.Dim, hidden: m.Hidden, out: m.Out, pairHidden: pairHidden}
	params, err := readParams(tensors, d, "")
	if err != nil {
		return nil, err
	}
	h := &Heads{
		Topic: Head{In: m.Backbone.Dim, Hidden: m.Hidden, Out: m.Out, Act: ReLU},
		Logic: Head{In: m.Backbone.Dim, Hidden: m.Hidden, Out: m.Out, Act: Tanh},
	}
	if pairHidden > 0 {
		h.Pair = &PairHead{In: m.Out, Hidden: pairHidden}
	}
	names := d.names()
	for i, p := range headSlices(h) {
		*p = params[i]
		if j, bad := firstNonFinite(params[i]); bad {
			return nil, fmt.Errorf("%w: %s[%d] is not finite", ErrCorrupt, names[i], j)
		}
	}
	if m.Config.Logic == "" { // written before the field existed
		m.Config.Logic = h.LogicKind()
	}
	if m.Config.Logic != h.LogicKind() {
		return nil, fmt.Errorf("%w: hyper-parameters say logic head %q, the metadata %q", ErrCorrupt, m.Config.Logic, h.LogicKind())
	}
	return &Checkpoint{Heads: h, Meta: m}, nil
}

// readParams checks that tensors holds exactly the parameters of heads of sizes d (each name
// with suffix appended) as F32 in PyTorch shapes, and returns them input-major.
func readParams(tensors map[string]stTensor, d dims, suffix string) ([][]float32, error) {
	names := d.names()
	params := make([][]float32, len(names))
	var errs []error
	shapes := d.torchShapes()
	want := make(map[string]bool, len(names))
	for i, base := range names {
		name := base + suffix
		want[name] = true
		t, ok := tensors[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("tensor %s is missing", name))
		case t.DType != "F32":
			errs = append(errs, fmt.Errorf("tensor %s has dtype %s, want F32", name, t.DType))
		case !equalShape(t.Shape, shapes[i]):
			errs = append(errs, fmt.Errorf("tensor %s has shape %v, want %v", name, t.Shape, shapes[i]))
		default:
			params[i] = d.fromTorch(i, bytesF32(t.Data))
		}
	}
	for name := range tensors {
		if !want[name] {
			errs = append(errs, fmt.Errorf("unexpected tensor %s", name))
		}
	}
	if len(errs) > 0 {
		return params, fmt.Errorf("%w: %w", ErrShapeMismatch, errors.Join(errs...))
	}
	return params, nil
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// OptimizerPath is where the optimizer state of the checkpoint at path is kept:
// "x.safetensors" → "x.optim.safetensors".
func OptimizerPath(path string) string {
	return strings.TrimSuffix(path, ".safetensors") + ".optim.safetensors"
}

// writeOptimizer writes the AdamW moments (PyTorch names with ".exp_avg" / ".exp_avg_sq" and
// layout) and step count, tied to the weights by their checksum.
func writeOptimizer(path string, o *adamW, d dims, weightsSum string) error {
	shapes, names := d.torchShapes(), d.names()
	if len(o.m) != len(names) {
		return fmt.Errorf("write optimizer state: %d moments for %d parameters", len(o.m), len(names))
	}
	tensors := make(map[string]stTensor, 2*len(names))
	for i, name := range names {
		m, ok1 := o.m[i].([]float32)
		v, ok2 := o.v[i].([]float32)
		if !ok1 || !ok2 {
			return fmt.Errorf("write optimizer state: only float32 state is stored")
		}
		tensors[name+".exp_avg"] = stTensor{DType: "F32", Shape: shapes[i], Data: f32Bytes(d.toTorch(i, m))}
		tensors[name+".exp_avg_sq"] = stTensor{DType: "F32", Shape: shapes[i], Data: f32Bytes(d.toTorch(i, v))}
	}
	sum, err := tensorsSHA256(tensors)
	if err != nil {
		return err
	}
	b, err := encodeSafetensors(tensors, map[string]string{
		"format":          OptimizerFormat,
		"format_version":  strconv.Itoa(CheckpointVersion),
		"step":            strconv.Itoa(o.t),
		"weights_sha256":  weightsSum,
		"data_sha256":     sum,
		"optimizer":       "AdamW",
		"decoupled_decay": "true",
	})
	if err != nil {
		return fmt.Errorf("write optimizer state: %w", err)
	}
	if err := graph.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("write optimizer state: %w", err)
	}
	return nil
}

// readOptimizer loads the moments and step count written by writeOptimizer into o, checking
// that they belong to the weights with checksum weightsSum.
func readOptimizer(path string, o *adamW, d dims, weightsSum string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read optimizer state: %w", err)
	}
	fail := func(err error) error { return fmt.Errorf("read optimizer state %s: %w", path, err) }
	tensors, meta, err := decodeSafetensors(b)
	if err != nil {
		return fail(err)
	}
	if err := checkFormat(meta, OptimizerFormat); err != nil {
		return fail(err)
	}
	if err := verifySum(tensors, meta); err != nil {
		return fail(err)
	}
	if meta["weights_sha256"] != weightsSum {
		return fail(fmt.Errorf("%w: optimizer state belongs to other weights", ErrCorrupt))
	}
	r := &metaReader{meta: meta}
	step := r.int("step")
	if len(r.errs) > 0 {
		return fail(fmt.Errorf("%w: %w", ErrCorrupt, errors.Join(r.errs...)))
	}
	ms := make(map[string]stTensor, 8)
	vs := make(map[string]stTensor, 8)
	for name, t := range tensors {
		switch {
		case strings.HasSuffix(name, ".exp_avg_sq"):
			vs[strings.TrimSuffix(name, ".exp_avg_sq")] = t
		case strings.HasSuffix(name, ".exp_avg"):
			ms[strings.TrimSuffix(name, ".exp_avg")] = t
		default:
			return fail(fmt.Errorf("%w: unexpected tensor %s", ErrShapeMismatch, name))
		}
	}
	m, err := readParams(ms, d, "")
	if err != nil {
		return fail(err)
	}
	v, err := readParams(vs, d, "")
	if err != nil {
		return fail(err)
	}
	if len(o.m) != len(m) {
		return fail(fmt.Errorf("%w: optimizer state does not fit the model", ErrShapeMismatch))
	}
	for i := range m {
		dm, ok1 := o.m[i].([]float32)
		dv, ok2 := o.v[i].([]float32)
		if !ok1 || !ok2 || len(dm) != len(m[i]) || len(dv) != len(v[i]) {
			return fail(fmt.Errorf("%w: optimizer state does not fit the model", ErrShapeMismatch))
		}
		copy(dm, m[i])
		copy(dv, v[i])
	}
	o.t = step
	return nil
}
