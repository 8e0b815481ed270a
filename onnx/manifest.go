package onnx

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Input roles: what the Encoder feeds into a model input.
const (
	RoleInputIDs      = "input_ids"      // [batch, sequence] token ids, padded with the pad id
	RoleAttentionMask = "attention_mask" // [batch, sequence] 1 for tokens, 0 for padding
	RoleTokenTypeIDs  = "token_type_ids" // [batch, sequence] segment ids (zeros)
	RoleSparseIndices = "sparse_indices" // [tokens, 2] (row, position) pairs of a sparse batch
	RoleSparseValues  = "sparse_values"  // [tokens] token ids of a sparse batch
)

// Output kinds.
const (
	OutputTokens   = "token_embeddings"   // [batch, sequence, hidden]: needs pooling
	OutputSentence = "sentence_embedding" // [batch, hidden]: already pooled
)

// Pooling methods for token outputs.
const (
	PoolMean = "mean" // mean over tokens where the attention mask is 1
	PoolCLS  = "cls"  // the first token
	PoolNone = "none" // for sentence outputs
)

// Tokenizer kinds.
const (
	TokenizerWordPiece = "wordpiece" // Hugging Face tokenizer.json with a WordPiece model
	TokenizerSPM       = "spm"       // the Universal Sentence Encoder lite SentencePiece vocab.json
)

// File is a file of a backbone, relative to the manifest's directory, with its expected hash.
type File struct {
	Path string `json:"path"`
	// SHA256 is the hex digest the file must have; empty skips the check.
	SHA256 string `json:"sha256,omitempty"`
}

// Input maps a model input to what the Encoder puts in it.
type Input struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// Output names the model output the Encoder reads and its kind.
type Output struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// TokenizerSpec says which tokenizer a backbone uses.
type TokenizerSpec struct {
	Kind string `json:"kind"`
	File
}

// Manifest describes a sentence-embedding backbone: its files, how to feed the model and how
// to turn its output into one vector per text.
type Manifest struct {
	// ID names the backbone (e.g. "nomic-embed-text-v1.5"); checkpoints record it.
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	License     string `json:"license,omitempty"`
	Source      string `json:"source,omitempty"`

	Model     File          `json:"model"`
	Tokenizer TokenizerSpec `json:"tokenizer"`
	Inputs    []Input       `json:"inputs"`
	Output    Output        `json:"output"`

	Pooling string `json:"pooling"`
	// LayerNorm applies a layer norm without affine weights to the pooled vector before
	// Matryoshka truncation (nomic-embed-text-v1.5 does this).
	LayerNorm    bool    `json:"layer_norm,omitempty"`
	LayerNormEps float64 `json:"layer_norm_eps,omitempty"`
	// Dimension is the width of the model's output.
	Dimension int `json:"dimension"`
	// MatryoshkaDims lists the truncations the model was trained for (empty: none).
	MatryoshkaDims []int `json:"matryoshka_dims,omitempty"`
	// Normalize L2-normalises the final vector.
	Normalize bool `json:"normalize"`
	// Prefixes are task prefixes put before each text (nomic: "search_document: " …).
	Prefixes    map[string]string `json:"prefixes,omitempty"`
	DefaultTask string            `json:"default_task,omitempty"`
	// MaxTokens is the longest input, special tokens included; longer texts are truncated.
	MaxTokens int `json:"max_tokens"`
	PadID     int `json:"pad_id"`

	// Dir is the directory relative paths resolve against (the manifest's own directory).
	Dir string `json:"-"`
}

// Validate reports every problem with the manifest at once.
func (m *Manifest) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if m.ID == "" {
		add("id is empty")
	}
	if m.Model.Path == "" {
		add("model.path is empty")
	}
	switch m.Tokenizer.Kind {
	case TokenizerWordPiece, TokenizerSPM:
	default:
		add("tokenizer.kind %q is not one of %s, %s", m.Tokenizer.Kind, TokenizerWordPiece, TokenizerSPM)
	}
	if m.Tokenizer.Path == "" {
		add("tokenizer.path is empty")
	}
	for _, f := range []File{m.Model, m.Tokenizer.File} {
		if f.SHA256 != "" {
			if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != sha256.Size {
				add("sha256 of %s is not 64 hex digits", f.Path)
			}
		}
	}
	roles := map[string]bool{}
	for _, in := range m.Inputs {
		switch in.Role {
		case RoleInputIDs, RoleAttentionMask, RoleTokenTypeIDs, RoleSparseIndices, RoleSparseValues:
		default:
			add("input %q has unknown role %q", in.Name, in.Role)
		}
		if in.Name == "" {
			add("an input with role %q has no name", in.Role)
		}
		if roles[in.Role] {
			add("role %q is given to two inputs", in.Role)
		}
		roles[in.Role] = true
	}
	dense, sparse := roles[RoleInputIDs], roles[RoleSparseIndices] || roles[RoleSparseValues]
	switch {
	case dense && sparse:
		add("inputs mix dense (input_ids) and sparse (sparse_indices/sparse_values) roles")
	case sparse && !(roles[RoleSparseIndices] && roles[RoleSparseValues]):
		add("sparse inputs need both sparse_indices and sparse_values")
	case !dense && !sparse:
		add("no input has role input_ids or sparse_indices/sparse_values")
	}
	if m.Output.Name == "" {
		add("output.name is empty")
	}
	switch m.Output.Kind {
	case OutputTokens:
		if m.Pooling != PoolMean && m.Pooling != PoolCLS {
			add("pooling %q for a token output (want %s or %s)", m.Pooling, PoolMean, PoolCLS)
		}
		if m.Pooling == PoolMean && !roles[RoleAttentionMask] && !sparse {
			add("mean pooling needs an attention_mask input")
		}
	case OutputSentence:
		if m.Pooling != "" && m.Pooling != PoolNone {
			add("pooling %q for a sentence output (want none)", m.Pooling)
		}
	default:
		add("output.kind %q is not one of %s, %s", m.Output.Kind, OutputTokens, OutputSentence)
	}
	if m.Dimension <= 0 {
		add("dimension %d is not positive", m.Dimension)
	}
	for _, d := range m.MatryoshkaDims {
		if d <= 0 || d > m.Dimension {
			add("matryoshka dimension %d is outside 1..%d", d, m.Dimension)
		}
	}
	if m.LayerNormEps < 0 {
		add("layer_norm_eps %g is negative", m.LayerNormEps)
	}
	if m.MaxTokens <= 0 {
		add("max_tokens %d is not positive", m.MaxTokens)
	}
	if m.DefaultTask != "" {
		if _, ok := m.Prefixes[m.DefaultTask]; !ok {
			add("default_task %q has no prefix", m.DefaultTask)
		}
	}
	return errors.Join(errs...)
}

// Path resolves a manifest-relative path.
func (m *Manifest) Path(rel string) string {
	if filepath.IsAbs(rel) || m.Dir == "" {
		return rel
	}
	return filepath.Join(m.Dir, rel)
}

// Tasks lists the task prefixes in name order.
func (m *Manifest) Tasks() []string {
	ts := make([]string, 0, len(m.Prefixes))
	for t := range m.Prefixes {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	return ts
}

// OutputDim checks a requested output dimension (0 = full) against the manifest.
func (m *Manifest) OutputDim(dim int) (int, error) {
	if dim == 0 || dim == m.Dimension {
		return m.Dimension, nil
	}
	if slices.Contains(m.MatryoshkaDims, dim) {
		return dim, nil
	}
	return 0, fmt.Errorf("backbone %s has no %d-d output (full %d, Matryoshka %v)", m.ID, dim, m.Dimension, m.MatryoshkaDims)
}

// ParseManifest reads a manifest from JSON; unknown fields are errors. dir is where its
// relative paths resolve.
func ParseManifest(data []byte, dir string) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode backbone manifest: %w", err)
	}
	m.Dir = dir
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("backbone manifest %s: %w", m.ID, err)
	}
	return &m, nil
}

// LoadManifest reads a manifest file; its directory resolves relative paths.
func LoadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read backbone manifest: %w", err)
	}
	m, err := ParseManifest(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

//go:embed manifests/*.json
var builtinFS embed.FS

// Builtin returns the shipped manifest with the given id, its files resolved under dir.
func Builtin(id, dir string) (*Manifest, error) {
	data, err := builtinFS.ReadFile("manifests/" + id + ".json")
	if err != nil {
		return nil, fmt.Errorf("no built-in backbone %q (have %s)", id, strings.Join(BuiltinIDs(), ", "))
	}
	return ParseManifest(data, dir)
}

// BuiltinIDs lists the shipped manifests.
func BuiltinIDs() []string {
	entries, _ := builtinFS.ReadDir("manifests")
	ids := make([]string, 0, len(entries))
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".json"))
	}
	return ids
}

// VerifyFiles checks that the model and tokenizer exist and match their sha256 (when set).
// It returns the model's digest, which checkpoints record.
func (m *Manifest) VerifyFiles() (modelSHA256 string, err error) {
	var errs []error
	for _, f := range []File{m.Model, m.Tokenizer.File} {
		sum, err := fileSHA256(m.Path(f.Path))
		if err != nil {
			errs = append(errs, fmt.Errorf("backbone %s: %w", m.ID, err))
			continue
		}
		if f.SHA256 != "" && !strings.EqualFold(sum, f.SHA256) {
			errs = append(errs, fmt.Errorf("backbone %s: %s has sha256 %s, manifest wants %s; the file is corrupt or from another release — fetch it again", m.ID, m.Path(f.Path), sum, f.SHA256))
		}
		if f == m.Model {
			modelSHA256 = sum
		}
	}
	return modelSHA256, errors.Join(errs...)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
