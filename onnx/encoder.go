package onnx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"unicode/utf8"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/tokenizer"
)

// Tokenizer turns one text into token ids, special tokens included, truncated to at most
// maxTokens tokens (0: no limit).
type Tokenizer interface {
	Encode(text string, maxTokens int) (tokenizer.Encoding, error)
}

// ErrInvalidText is returned for a text that is not valid UTF-8.
var ErrInvalidText = errors.New("text is not valid UTF-8")

// EncoderConfig configures an Encoder. The zero value means: the manifest's default task,
// full dimension and token limit, batches of 32 texts and at most 16,384 padded tokens.
type EncoderConfig struct {
	Session SessionConfig
	// Task selects the prefix put before every text ("document", "query", …); "" is the
	// manifest's default task, "none" puts no prefix.
	Task string
	// Dimension truncates the output (Matryoshka); 0 keeps the full width.
	Dimension int
	// MaxTokens lowers the manifest's token limit; 0 keeps it.
	MaxTokens int
	// BatchSize is the most texts one ONNX Runtime call gets.
	BatchSize int
	// MaxBatchTokens bounds texts × padded length of one call, which bounds memory; a text
	// longer than that still runs, alone.
	MaxBatchTokens int
	Logger         *slog.Logger
}

func (c EncoderConfig) withDefaults() EncoderConfig {
	if c.BatchSize == 0 {
		c.BatchSize = 32
	}
	if c.MaxBatchTokens == 0 {
		c.MaxBatchTokens = 16384
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Session.Logger == nil {
		c.Session.Logger = c.Logger
	}
	return c
}

// Validate reports every problem with the configuration against the manifest.
func (c EncoderConfig) Validate(m *Manifest) error {
	var errs []error
	if err := c.Session.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Task != "" && c.Task != "none" {
		if _, ok := m.Prefixes[c.Task]; !ok {
			errs = append(errs, fmt.Errorf("backbone %s has no task %q (have %v, or none)", m.ID, c.Task, m.Tasks()))
		}
	}
	if _, err := m.OutputDim(c.Dimension); err != nil {
		errs = append(errs, err)
	}
	if c.MaxTokens < 0 || c.MaxTokens > m.MaxTokens {
		errs = append(errs, fmt.Errorf("max tokens %d is outside 0..%d (the backbone's limit)", c.MaxTokens, m.MaxTokens))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("batch size %d is negative", c.BatchSize))
	}
	if c.MaxBatchTokens < 0 {
		errs = append(errs, fmt.Errorf("max batch tokens %d is negative", c.MaxBatchTokens))
	}
	return errors.Join(errs...)
}

// Embedding is one text's vector with what tokenization did to the text.
type Embedding struct {
	Vector []float32
	// Tokens is the number of tokens the model saw, special tokens included.
	Tokens int
	// Truncated reports that the text was longer than the token limit and was cut.
	Truncated bool
}

// Encoder turns texts into sentence embeddings with a backbone run by ONNX Runtime:
// tokenize → pad → run → pool → (layer norm) → truncate → L2 normalise.
// It is safe for concurrent use; Destroy must not run concurrently with anything else.
type Encoder struct {
	m         *Manifest
	tok       Tokenizer
	sess      *Session
	cfg       EncoderConfig
	dim       int
	maxTokens int
	modelSHA  string
	feeds     []feed
	outIndex  int
}

// feed is one model input: its role and element type.
type feed struct {
	role  string
	int32 bool
}

// NewEncoder verifies the backbone's files, loads its tokenizer, opens an ONNX Runtime
// session and checks the model's real inputs and outputs against the manifest. ONNX Runtime
// must be initialised (Init).
func NewEncoder(ctx context.Context, m *Manifest, cfg EncoderConfig) (*Encoder, error) {
	if err := cfg.Validate(m); err != nil {
		return nil, fmt.Errorf("encoder config: %w", err)
	}
	sha, err := m.VerifyFiles()
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(m)
	if err != nil {
		return nil, err
	}
	e, err := NewEncoderWithTokenizer(ctx, m, tok, cfg)
	if err != nil {
		return nil, err
	}
	e.modelSHA = sha
	return e, nil
}

// NewEncoderWithTokenizer is NewEncoder with a tokenizer of the caller's and without the
// file hash check.
func NewEncoderWithTokenizer(ctx context.Context, m *Manifest, tok Tokenizer, cfg EncoderConfig) (*Encoder, error) {
	if err := cfg.Validate(m); err != nil {
		return nil, fmt.Errorf("encoder config: %w", err)
	}
	cfg = cfg.withDefaults()
	names := make([]string, len(m.Inputs))
	for i, in := range m.Inputs {
		names[i] = in.Name
	}
	sess, err := NewSession(ctx, cfg.Session, m.Path(m.Model.Path), names, []string{m.Output.Name})
	if err != nil {
		if ioErr := checkIO(m, sess, m.Path(m.Model.Path)); ioErr != nil {
			return nil, ioErr
		}
		return nil, fmt.Errorf("backbone %s: %w", m.ID, err)
	}
	if err := checkIO(m, sess, ""); err != nil {
		return nil, errors.Join(err, sess.Destroy())
	}
	e := &Encoder{m: m, tok: tok, sess: sess, cfg: cfg}
	e.dim, _ = m.OutputDim(cfg.Dimension)
	e.maxTokens = m.MaxTokens
	if cfg.MaxTokens > 0 {
		e.maxTokens = cfg.MaxTokens
	}
	for _, in := range m.Inputs {
		idx := slices.IndexFunc(sess.Inputs, func(i ort.InputOutputInfo) bool { return i.Name == in.Name })
		e.feeds = append(e.feeds, feed{role: in.Role, int32: sess.Inputs[idx].DataType == ort.TensorElementDataTypeInt32})
	}
	return e, nil
}

// checkIO compares the model's inputs and outputs with the manifest and lists both when
// they differ. With sess nil it reads the model's description from path.
func checkIO(m *Manifest, sess *Session, path string) error {
	var ins, outs []ort.InputOutputInfo
	if sess != nil {
		ins, outs = sess.Inputs, sess.Outputs
	} else {
		var err error
		if ins, outs, err = ort.GetInputOutputInfo(path); err != nil {
			return nil // the session error says more
		}
	}
	var problems []string
	for _, in := range m.Inputs {
		i := slices.IndexFunc(ins, func(x ort.InputOutputInfo) bool { return x.Name == in.Name })
		if i < 0 {
			problems = append(problems, fmt.Sprintf("input %q (%s) is missing", in.Name, in.Role))
			continue
		}
		if dt := ins[i].DataType; dt != ort.TensorElementDataTypeInt64 && dt != ort.TensorElementDataTypeInt32 {
			problems = append(problems, fmt.Sprintf("input %q has element type %s, want int64 or int32", in.Name, dt))
		}
	}
	for _, in := range ins {
		if !slices.ContainsFunc(m.Inputs, func(x Input) bool { return x.Name == in.Name }) {
			problems = append(problems, fmt.Sprintf("model input %q is not in the manifest", in.Name))
		}
	}
	o := slices.IndexFunc(outs, func(x ort.InputOutputInfo) bool { return x.Name == m.Output.Name })
	switch {
	case o < 0:
		problems = append(problems, fmt.Sprintf("output %q is missing", m.Output.Name))
	case outs[o].DataType != ort.TensorElementDataTypeFloat:
		problems = append(problems, fmt.Sprintf("output %q has element type %s, want float", m.Output.Name, outs[o].DataType))
	default:
		wantRank := 3
		if m.Output.Kind == OutputSentence {
			wantRank = 2
		}
		dims := outs[o].Dimensions
		if len(dims) != wantRank {
			problems = append(problems, fmt.Sprintf("output %q has shape %v, want rank %d for %s", m.Output.Name, dims, wantRank, m.Output.Kind))
		} else if last := dims[len(dims)-1]; last > 0 && int(last) != m.Dimension {
			problems = append(problems, fmt.Sprintf("output %q has width %d, manifest says %d", m.Output.Name, last, m.Dimension))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	var want []string
	for _, in := range m.Inputs {
		want = append(want, in.Name+" ("+in.Role+")")
	}
	return fmt.Errorf("backbone %s: model %s does not match its manifest: %v\n  manifest: inputs %v, output %s (%s)\n  model:    inputs %v, outputs %v",
		m.ID, m.Path(m.Model.Path), problems, want, m.Output.Name, m.Output.Kind, describe(ins), describe(outs))
}

func describe(infos []ort.InputOutputInfo) []string {
	s := make([]string, len(infos))
	for i := range infos {
		s[i] = infos[i].String()
	}
	return s
}

// Manifest is the backbone's manifest.
func (e *Encoder) Manifest() *Manifest { return e.m }

// Dimension is the length of the vectors Embed returns.
func (e *Encoder) Dimension() int { return e.dim }

// ModelSHA256 is the model file's digest ("" when the encoder was built without the check).
func (e *Encoder) ModelSHA256() string { return e.modelSHA }

// Provider is the execution provider the model runs on.
func (e *Encoder) Provider() string { return e.sess.Provider() }

// Destroy frees the ONNX Runtime session.
func (e *Encoder) Destroy() error { return e.sess.Destroy() }

// Embed returns one vector per text with the configured task prefix. Zero texts give zero
// vectors without running the model.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	embs, err := e.Encode(ctx, texts, e.cfg.Task)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(embs))
	for i := range embs {
		out[i] = embs[i].Vector
	}
	return out, nil
}

// Encode embeds texts with the prefix of task ("" = the configured task, "none" = no
// prefix) and reports token counts and truncation. Texts are batched by token length, so the
// result for a text does not depend on which other texts share its call (up to float
// rounding, within 1e-6).
func (e *Encoder) Encode(ctx context.Context, texts []string, task string) ([]Embedding, error) {
	if task == "" {
		task = e.cfg.Task
	}
	if task == "" {
		task = e.m.DefaultTask
	}
	prefix := ""
	if task != "" && task != "none" {
		p, ok := e.m.Prefixes[task]
		if !ok {
			return nil, fmt.Errorf("backbone %s has no task %q (have %v, or none)", e.m.ID, task, e.m.Tasks())
		}
		prefix = p
	}
	encs := make([]tokenizer.Encoding, len(texts))
	for i, t := range texts {
		if !utf8.ValidString(t) {
			return nil, fmt.Errorf("text %d: %w; decode it to UTF-8 first", i, ErrInvalidText)
		}
		enc, err := e.tok.Encode(prefix+t, e.maxTokens)
		if err != nil {
			return nil, fmt.Errorf("tokenize text %d: %w", i, err)
		}
		if enc.Len() == 0 && e.m.Output.Kind == OutputTokens && e.m.Pooling == PoolMean {
			return nil, fmt.Errorf("text %d gives no tokens; the backbone %s cannot pool an empty sequence", i, e.m.ID)
		}
		encs[i] = enc
	}
	out := make([]Embedding, len(texts))
	for _, batch := range planBatches(encs, e.cfg.BatchSize, e.cfg.MaxBatchTokens) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vecs, err := e.run(batch, encs)
		if err != nil {
			return nil, err
		}
		for j, i := range batch {
			out[i] = Embedding{Vector: vecs[j], Tokens: encs[i].Len(), Truncated: encs[i].Truncated}
		}
	}
	return out, nil
}

// batchCallTokens is what one backbone call costs beyond its padded tokens, in padded
// tokens: a small call runs its matrix products less efficiently, so a cut pays only when
// it saves this much padding. Chosen on use-lite (BenchmarkUseLiteMixed, 32 texts of 3–35
// words, 2 cores): 16 gave 640 sentences/s, 64–256 gave 710–730, and one call for all
// 32 texts 695.
const batchCallTokens = 128

// planBatches orders texts by token count and cuts the order into batches of at most
// size texts and maxTokens padded tokens (a text that alone exceeds maxTokens forms its
// own batch), choosing the cuts that minimise the padded tokens run plus
// batchCallTokens a call: texts of very different lengths go to different calls instead
// of all being padded to the longest.
func planBatches(encs []tokenizer.Encoding, size, maxTokens int) [][]int {
	n := len(encs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return encs[a].Len() - encs[b].Len() })
	// cost[j]: the least cost of batching order[:j]; cut[j]: where its last batch starts.
	cost := make([]int, n+1)
	cut := make([]int, n+1)
	for j := 1; j <= n; j++ {
		// order[j-1] is the longest of any batch ending with it.
		long := max(encs[order[j-1]].Len(), 1)
		cost[j] = -1
		for i := j - 1; i >= 0 && j-i <= size; i-- {
			if j-i > 1 && (j-i)*long > maxTokens {
				break
			}
			if c := cost[i] + (j-i)*long + batchCallTokens; cost[j] < 0 || c < cost[j] {
				cost[j], cut[j] = c, i
			}
		}
	}
	var batches [][]int
	for j := n; j > 0; j = cut[j] {
		batches = append(batches, order[cut[j]:j])
	}
	slices.Reverse(batches)
	return batches
}

// run feeds one batch to the model and returns its pooled, post-processed vectors.
func (e *Encoder) run(batch []int, encs []tokenizer.Encoding) (_ [][]float32, err error) {
	rows := make([]tokenizer.Encoding, len(batch), len(batch)+1)
	for r, i := range batch {
		rows[r] = encs[i]
	}
	if e.m.Output.Kind == OutputSentence && rows[len(rows)-1].Len() == 0 {
		// Graphs that size the batch from the last token's row (USE-lite) drop trailing empty
		// texts; a one-token filler row keeps them, and its output is discarded.
		rows = append(rows, tokenizer.Encoding{IDs: []int32{int32(e.m.PadID)}, TypeIDs: []int32{0}})
	}
	inputs, seq, err := e.pack(rows)
	defer func() { err = errors.Join(err, destroyAll(inputs)) }()
	if err != nil {
		return nil, err
	}
	outputs := []ort.Value{nil}
	if err := e.sess.Run(inputs, outputs); err != nil {
		return nil, fmt.Errorf("run backbone %s on a batch of %d × %d tokens: %w", e.m.ID, len(rows), seq, err)
	}
	defer func() { err = errors.Join(err, outputs[0].Destroy()) }()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("backbone %s: output %s is %T, want a float tensor", e.m.ID, e.m.Output.Name, outputs[0])
	}
	vecs, err := e.pool(t.GetData(), t.GetShape(), rows)
	if err != nil {
		return nil, err
	}
	return vecs[:len(batch)], nil
}

func destroyAll(vs []ort.Value) error {
	var err error
	for _, v := range vs {
		err = errors.Join(err, v.Destroy())
	}
	return err
}

// pack builds the model's input tensors for one batch, padded to its longest text.
func (e *Encoder) pack(rows []tokenizer.Encoding) ([]ort.Value, int, error) {
	seq, total := 1, 0
	for _, enc := range rows {
		seq = max(seq, enc.Len())
		total += enc.Len()
	}
	b := len(rows)
	inputs := make([]ort.Value, 0, len(e.feeds))
	for _, f := range e.feeds {
		var shape ort.Shape
		var data []int64
		switch f.role {
		case RoleInputIDs, RoleAttentionMask, RoleTokenTypeIDs:
			shape = ort.NewShape(int64(b), int64(seq))
			data = make([]int64, b*seq)
			for r, enc := range rows {
				row := data[r*seq : (r+1)*seq]
				switch f.role {
				case RoleInputIDs:
					for k := range row {
						if k < enc.Len() {
							row[k] = int64(enc.IDs[k])
						} else {
							row[k] = int64(e.m.PadID)
						}
					}
				case RoleAttentionMask:
					for k := range enc.Len() {
						row[k] = 1
					}
				case RoleTokenTypeIDs:
					for k := range min(enc.Len(), len(enc.TypeIDs)) {
						row[k] = int64(enc.TypeIDs[k])
					}
				}
			}
		case RoleSparseIndices:
			shape = ort.NewShape(int64(total), 2)
			data = make([]int64, 0, 2*total)
			for r, enc := range rows {
				for k := range enc.Len() {
					data = append(data, int64(r), int64(k))
				}
			}
		case RoleSparseValues:
			shape = ort.NewShape(int64(total))
			data = make([]int64, 0, total)
			for _, enc := range rows {
				for _, id := range enc.IDs {
					data = append(data, int64(id))
				}
			}
		}
		v, err := newIntTensor(shape, data, f.int32)
		if err != nil {
			return inputs, seq, fmt.Errorf("build %s tensor: %w", f.role, err)
		}
		inputs = append(inputs, v)
	}
	return inputs, seq, nil
}

func newIntTensor(shape ort.Shape, data []int64, as32 bool) (ort.Value, error) {
	if !as32 {
		return ort.NewTensor(shape, data)
	}
	d32 := make([]int32, len(data))
	for i, v := range data {
		d32[i] = int32(v)
	}
	return ort.NewTensor(shape, d32)
}

// pool turns the raw output into one finished vector per text.
func (e *Encoder) pool(data []float32, shape ort.Shape, rows []tokenizer.Encoding) ([][]float32, error) {
	h := e.m.Dimension
	b := len(rows)
	out := make([][]float32, b)
	switch e.m.Output.Kind {
	case OutputSentence:
		if len(shape) != 2 || int(shape[0]) != b || int(shape[1]) != h {
			return nil, fmt.Errorf("backbone %s: output shape %v, want [%d %d]", e.m.ID, shape, b, h)
		}
		for r := range b {
			out[r] = finish(data[r*h:(r+1)*h], e.m, e.dim)
		}
	case OutputTokens:
		if len(shape) != 3 || int(shape[0]) != b || int(shape[2]) != h {
			return nil, fmt.Errorf("backbone %s: output shape %v, want [%d seq %d]", e.m.ID, shape, b, h)
		}
		seq := int(shape[1])
		acc := make([]float64, h)
		for r, enc := range rows {
			n := min(enc.Len(), seq)
			if e.m.Pooling == PoolCLS {
				n = 1
			}
			clear(acc)
			for k := range n {
				row := data[(r*seq+k)*h : (r*seq+k+1)*h]
				for j, v := range row {
					acc[j] += float64(v)
				}
			}
			pooled := make([]float32, h)
			for j := range acc {
				pooled[j] = float32(acc[j] / float64(max(n, 1)))
			}
			out[r] = finish(pooled, e.m, e.dim)
		}
	}
	return out, nil
}

// finish applies the manifest's post-processing to a pooled vector: layer norm over the full
// width, Matryoshka truncation to dim, L2 normalisation. It returns a new slice.
func finish(v []float32, m *Manifest, dim int) []float32 {
	x := make([]float64, len(v))
	for i, f := range v {
		x[i] = float64(f)
	}
	if m.LayerNorm {
		var mean, variance float64
		for _, f := range x {
			mean += f
		}
		mean /= float64(len(x))
		for _, f := range x {
			variance += (f - mean) * (f - mean)
		}
		variance /= float64(len(x))
		inv := 1 / math.Sqrt(variance+m.LayerNormEps)
		for i := range x {
			x[i] = (x[i] - mean) * inv
		}
	}
	x = x[:dim]
	if m.Normalize {
		var n float64
		for _, f := range x {
			n += f * f
		}
		if n = math.Sqrt(n); n > 0 {
			for i := range x {
				x[i] /= n
			}
		}
	}
	out := make([]float32, dim)
	for i, f := range x {
		out[i] = float32(f)
	}
	return out
}
