package gate

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

	"github.com/atma-dev/atma/sentry/safetensors"
)

// Checkpoint format identifiers, stored in the safetensors metadata. CheckpointVersion is
// also the version of the optimizer state package sentry writes beside a checkpoint.
const (
	CheckpointFormat  = "atma-sentry-heads"
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

// Meta is the part of a checkpoint's metadata that inference reads: the backbone, the head
// sizes and the gate's thresholds. Package sentry's Meta embeds it and adds the training
// state.
type Meta struct {
	Backbone   Backbone
	Hidden     int
	Out        int
	Thresholds Thresholds
	Calibrated bool // Thresholds were calibrated on the validation split

	// WeightsSHA256 is the checksum of the weight tensors (metadata "data_sha256"), set by
	// DecodeCheckpoint; the optimizer state records it to prove it belongs to these weights.
	WeightsSHA256 string
}

// Checkpoint is trained heads with the metadata inference needs, as DecodeCheckpoint reads
// them from a checkpoint file.
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

// Layout is the sizes of a set of heads, which fix the checkpoint tensors' names, PyTorch
// shapes and order; PairHidden is 0 without a pair head. Package sentry writes checkpoints,
// optimizer state and its training graph's parameters in this order.
type Layout struct{ In, Hidden, Out, PairHidden int }

// LayoutOf returns the layout of h.
func LayoutOf(h *Heads) Layout {
	d := Layout{In: h.Dim(), Hidden: h.Topic.Hidden, Out: h.Topic.Out}
	if h.Pair != nil {
		d.PairHidden = h.Pair.Hidden
	}
	return d
}

// paramNames are the PyTorch names of the eight parameters of the two heads:
// nn.Sequential(Linear, act, Linear) numbers its layers 0, 1, 2.
var paramNames = [8]string{
	"topic_head.0.weight", "topic_head.0.bias", "topic_head.2.weight", "topic_head.2.bias",
	"logic_head.0.weight", "logic_head.0.bias", "logic_head.2.weight", "logic_head.2.bias",
}

// pairParamNames follow paramNames with a pair head, nn.Sequential(Linear(2·out, hidden),
// ReLU, Linear(hidden, 1)) with tanh applied to its output.
var pairParamNames = [4]string{"pair_head.0.weight", "pair_head.0.bias", "pair_head.2.weight", "pair_head.2.bias"}

// Names are the PyTorch names of the parameters: the eight of the topic and logic heads
// (topic_head.0.weight, topic_head.0.bias, topic_head.2.weight, …), then the four of the
// pair head if there is one. The slice is fresh.
func (d Layout) Names() []string {
	n := append([]string(nil), paramNames[:]...)
	if d.PairHidden > 0 {
		n = append(n, pairParamNames[:]...)
	}
	return n
}

// matrix returns the input-major rows and columns of parameter i, or ok false for a bias.
func (d Layout) matrix(i int) (rows, cols int, ok bool) {
	switch i {
	case 0, 4:
		return d.In, d.Hidden, true
	case 2, 6:
		return d.Hidden, d.Out, true
	case 8:
		return 2 * d.Out, d.PairHidden, true
	case 10:
		return d.PairHidden, 1, true
	}
	return 0, 0, false
}

// TorchShapes are the PyTorch shapes of the parameters in Names order.
func (d Layout) TorchShapes() [][]int64 {
	i, h, o := int64(d.In), int64(d.Hidden), int64(d.Out)
	s := [][]int64{{h, i}, {h}, {o, h}, {o}, {h, i}, {h}, {o, h}, {o}}
	if d.PairHidden > 0 {
		ph := int64(d.PairHidden)
		s = append(s, []int64{ph, 2 * o}, []int64{ph}, []int64{1, ph}, []int64{1})
	}
	return s
}

// Params are the parameter slices of h in Names order, input-major as Heads stores them.
func Params(h *Heads) []*[]float32 {
	s := []*[]float32{&h.Topic.W1, &h.Topic.B1, &h.Topic.W2, &h.Topic.B2, &h.Logic.W1, &h.Logic.B1, &h.Logic.W2, &h.Logic.B2}
	if p := h.Pair; p != nil {
		s = append(s, &p.W1, &p.B1, &p.W2, &p.B2)
	}
	return s
}

// Heads returns heads of layout d holding params, the parameter slices in Names order,
// input-major (the slices are taken, not copied). It panics if len(params) does not match
// Names (a programmer error); the slices' lengths are for Heads.Validate to check.
func (d Layout) Heads(params [][]float32) *Heads {
	h := &Heads{
		Topic: Head{In: d.In, Hidden: d.Hidden, Out: d.Out, Act: ReLU},
		Logic: Head{In: d.In, Hidden: d.Hidden, Out: d.Out, Act: Tanh},
	}
	if d.PairHidden > 0 {
		h.Pair = &PairHead{In: d.Out, Hidden: d.PairHidden}
	}
	dst := Params(h)
	if len(params) != len(dst) {
		panic(fmt.Sprintf("gate: %d parameters for a layout of %d", len(params), len(dst)))
	}
	for i, p := range dst {
		*p = params[i]
	}
	return h
}

// ToTorch converts parameter i (input-major, as Heads and the training graph store it) to
// PyTorch layout, a fresh slice for a matrix; fromTorch undoes it. Biases are returned as
// they are.
func (d Layout) ToTorch(i int, v []float32) []float32 {
	if r, c, ok := d.matrix(i); ok {
		return transpose(v, r, c)
	}
	return v
}

func (d Layout) fromTorch(i int, v []float32) []float32 {
	if r, c, ok := d.matrix(i); ok {
		return transpose(v, c, r)
	}
	return v
}

// transpose returns the rows×cols row-major matrix m as cols×rows.
func transpose(m []float32, rows, cols int) []float32 {
	t := make([]float32, len(m))
	for i := range rows {
		for j := range cols {
			t[j*rows+i] = m[i*cols+j]
		}
	}
	return t
}

// Checksum hashes the tensors' names, dtypes, shapes and bytes in name order (metadata
// "data_sha256"), so a checksum catches flipped bits anywhere in the weights.
func Checksum(tensors map[string]safetensors.Tensor) string {
	hash := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(tensors)) {
		t := tensors[name]
		fmt.Fprintf(hash, "%s\x00%s\x00%v\x00%d\x00", name, t.DType, t.Shape, len(t.Data))
		hash.Write(t.Data)
	}
	return hex.EncodeToString(hash.Sum(nil))
}

// ReadCheckpoint reads and verifies a checkpoint: safetensors structure, format and version,
// the weights' checksum, every metadata field inference reads, and that the tensors have the
// shapes the metadata promises. It does not check the backbone; LoadCheckpoint does.
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

// MetaReader parses safetensors metadata fields, collecting every problem; Err reports them.
// Package sentry reads its training fields with it (DecodeCheckpointWith).
type MetaReader struct {
	meta map[string]string
	errs []error
}

// NewMetaReader returns a reader of meta.
func NewMetaReader(meta map[string]string) *MetaReader { return &MetaReader{meta: meta} }

// Err joins the problems found so far, nil if none.
func (r *MetaReader) Err() error { return errors.Join(r.errs...) }

// Str returns the field key.
func (r *MetaReader) Str(key string) string {
	v, _ := r.get(key)
	return v
}

// get returns the field key, noting a problem if it is missing.
func (r *MetaReader) get(key string) (string, bool) {
	v, ok := r.meta[key]
	if !ok {
		r.errs = append(r.errs, fmt.Errorf("metadata %q is missing", key))
	}
	return v, ok
}

// Int returns the field key, which must be a non-negative integer.
func (r *MetaReader) Int(key string) int {
	s, ok := r.get(key)
	if !ok {
		return 0
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		r.errs = append(r.errs, fmt.Errorf("metadata %q = %q is not a non-negative integer", key, s))
	}
	return v
}

// Float returns the field key, which must be a number, and a finite one if finite is set.
func (r *MetaReader) Float(key string, finite bool) float64 {
	s, ok := r.get(key)
	if !ok {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || (finite && (math.IsNaN(v) || math.IsInf(v, 0))) {
		r.errs = append(r.errs, fmt.Errorf("metadata %q = %q is not a finite number", key, s))
	}
	return v
}

// JSON decodes the field key into into.
func (r *MetaReader) JSON(key string, into any) {
	s, ok := r.get(key)
	if !ok {
		return
	}
	if err := json.Unmarshal([]byte(s), into); err != nil {
		r.errs = append(r.errs, fmt.Errorf("metadata %q: %v", key, err))
	}
}

// DecodeVerified parses a safetensors file of format (CheckpointFormat, or package sentry's
// optimizer state) and verifies its format name, version (CheckpointVersion) and the
// tensors' checksum (data_sha256): a malformed file, another format or a checksum mismatch
// wraps ErrCorrupt, another version ErrVersion.
func DecodeVerified(b []byte, format string) (map[string]safetensors.Tensor, map[string]string, error) {
	tensors, meta, err := safetensors.Decode(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := checkFormat(meta, format); err != nil {
		return nil, nil, err
	}
	if err := verifyChecksum(tensors, meta); err != nil {
		return nil, nil, err
	}
	return tensors, meta, nil
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

// verifyChecksum checks the data_sha256 metadata against the tensors.
func verifyChecksum(tensors map[string]safetensors.Tensor, meta map[string]string) error {
	sum := Checksum(tensors)
	if want, ok := meta["data_sha256"]; !ok || want != sum {
		return fmt.Errorf("%w: tensor checksum %s does not match the recorded %q", ErrCorrupt, sum, want)
	}
	return nil
}

// DecodeCheckpoint parses a checkpoint from its bytes; see ReadCheckpoint.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	return DecodeCheckpointWith(b, nil)
}

// DecodeCheckpointWith is DecodeCheckpoint for a reader of more metadata (package sentry's
// training state): fields, if not nil, reads them with the same MetaReader before its
// problems are checked, so a file's every metadata problem is reported at once.
func DecodeCheckpointWith(b []byte, fields func(*MetaReader)) (*Checkpoint, error) {
	tensors, meta, err := DecodeVerified(b, CheckpointFormat)
	if err != nil {
		return nil, err
	}
	r := NewMetaReader(meta)
	var m Meta
	m.Backbone.ID = r.Str("backbone_id")
	m.Backbone.SHA256 = r.Str("backbone_sha256")
	m.Backbone.Dim = r.Int("input_dim")
	m.Hidden = r.Int("hidden_dim")
	m.Out = r.Int("out_dim")
	if a := r.Str("topic_activation"); a != string(ReLU) {
		r.errs = append(r.errs, fmt.Errorf("topic_activation %q, want %q", a, ReLU))
	}
	if a := r.Str("logic_activation"); a != string(Tanh) {
		r.errs = append(r.errs, fmt.Errorf("logic_activation %q, want %q", a, Tanh))
	}
	if e := r.Float("norm_eps", true); e != NormEps {
		r.errs = append(r.errs, fmt.Errorf("norm_eps %v, want %v", e, NormEps))
	}
	m.Thresholds = Thresholds{Top: r.Float("tau_top", true), Log: r.Float("tau_log", true), Gap: r.Float("tau_gap", true)}
	switch s := r.Str("calibrated"); s {
	case "true", "false":
		m.Calibrated = s == "true"
	default:
		r.errs = append(r.errs, fmt.Errorf("metadata \"calibrated\" = %q is not a boolean", s))
	}
	if fields != nil {
		fields(r)
	}
	m.WeightsSHA256 = meta["data_sha256"]
	// Checkpoints written before the pair head existed have no logic_head: the paper's.
	pairHidden := 0
	switch lh, ok := meta["logic_head"]; {
	case !ok || lh == LogicCosine:
		if _, ok := meta["pair_hidden_dim"]; ok {
			r.errs = append(r.errs, fmt.Errorf("metadata \"pair_hidden_dim\" is set for logic head %q", LogicCosine))
		}
	case lh == LogicPair:
		if pairHidden = r.Int("pair_hidden_dim"); pairHidden == 0 && len(r.errs) == 0 {
			r.errs = append(r.errs, errors.New("metadata \"pair_hidden_dim\" is 0"))
		}
	default:
		r.errs = append(r.errs, fmt.Errorf("metadata \"logic_head\" = %q: this build reads %q and %q", lh, LogicCosine, LogicPair))
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if m.Backbone.Dim == 0 || m.Hidden == 0 || m.Out == 0 {
		return nil, fmt.Errorf("%w: head sizes %d→%d→%d", ErrCorrupt, m.Backbone.Dim, m.Hidden, m.Out)
	}
	d := Layout{In: m.Backbone.Dim, Hidden: m.Hidden, Out: m.Out, PairHidden: pairHidden}
	params, err := d.ReadParams(tensors)
	if err != nil {
		return nil, err
	}
	for i, name := range d.Names() {
		if j, bad := FirstNonFinite(params[i]); bad {
			return nil, fmt.Errorf("%w: %s[%d] is not finite", ErrCorrupt, name, j)
		}
	}
	return &Checkpoint{Heads: d.Heads(params), Meta: m}, nil
}

// ReadParams checks that tensors holds exactly the parameters of heads of layout d (Names)
// as F32 in PyTorch shapes (TorchShapes), and returns them input-major in Names order.
// Problems wrap ErrShapeMismatch.
func (d Layout) ReadParams(tensors map[string]safetensors.Tensor) ([][]float32, error) {
	names := d.Names()
	params := make([][]float32, len(names))
	var errs []error
	shapes := d.TorchShapes()
	want := make(map[string]bool, len(names))
	for i, name := range names {
		want[name] = true
		t, ok := tensors[name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("tensor %s is missing", name))
		case t.DType != "F32":
			errs = append(errs, fmt.Errorf("tensor %s has dtype %s, want F32", name, t.DType))
		case !slices.Equal(t.Shape, shapes[i]):
			errs = append(errs, fmt.Errorf("tensor %s has shape %v, want %v", name, t.Shape, shapes[i]))
		default:
			params[i] = d.fromTorch(i, safetensors.DecodeF32(t.Data))
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
