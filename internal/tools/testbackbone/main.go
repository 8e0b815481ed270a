// Package main implements the testbackbone command, which writes the "test-tiny" backbone: a tiny BERT-like encoder with seeded
// random weights (package internal/onnx/tinybert), the real bert-base-uncased tokenizer.json, and a
// manifest, into a directory. Its vectors carry no meaning; it exists so the whole embedding
// path (tokenizer → ONNX Runtime → pooling) runs on any machine, offline. `make test-backbone`
// runs it.
//
// Usage: go run ./internal/tools/testbackbone -out DIR [-tokenizer PATH]
//
// Without -tokenizer it takes tokenizer.json from the Go module
// github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9 (fetched with `go mod download`).
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/atma-dev/atma/internal/atomicfile"

	"github.com/atma-dev/atma/internal/onnx/tinybert"
	"github.com/atma-dev/atma/onnx"
)

// TokenizerModule ships the bert-base-uncased tokenizer.json used by tests and this tool.
const TokenizerModule = "github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9"

func main() {
	out := flag.String("out", "", "directory to write the backbone into")
	tokPath := flag.String("tokenizer", "", "tokenizer.json to copy (default: from "+TokenizerModule+")")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "testbackbone: -out is required")
		os.Exit(2)
	}
	if err := run(*out, *tokPath); err != nil {
		fmt.Fprintln(os.Stderr, "testbackbone:", err)
		os.Exit(1)
	}
}

func run(out, tokPath string) error {
	if tokPath == "" {
		dir, err := moduleDir(TokenizerModule)
		if err != nil {
			return err
		}
		tokPath = filepath.Join(dir, "all_minilm_l6_v2", "tokenizer.json")
	}
	tok, err := os.ReadFile(tokPath)
	if err != nil {
		return fmt.Errorf("read tokenizer: %w", err)
	}
	cfg := tinybert.Config{Hidden: 64, Layers: 2, Heads: 4, Intermediate: 128, Seed: 7}
	model, err := tinybert.New(cfg)
	if err != nil {
		return err
	}
	data, err := model.ONNX()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	m := onnx.Manifest{
		ID:          "test-tiny",
		Description: "tiny BERT-like encoder with seeded random weights, for plumbing tests; its vectors mean nothing",
		License:     "Apache-2.0 (tokenizer: bert-base-uncased)",
		Model:       onnx.File{Path: "model.onnx", SHA256: digest(data)},
		Tokenizer:   onnx.TokenizerSpec{Kind: onnx.TokenizerWordPiece, File: onnx.File{Path: "tokenizer.json", SHA256: digest(tok)}},
		Inputs: []onnx.Input{
			{Name: "input_ids", Role: onnx.RoleInputIDs},
			{Name: "attention_mask", Role: onnx.RoleAttentionMask},
			{Name: "token_type_ids", Role: onnx.RoleTokenTypeIDs},
		},
		Output:    onnx.Output{Name: "last_hidden_state", Kind: onnx.OutputTokens},
		Pooling:   onnx.PoolMean,
		Dimension: model.Config.Hidden,
		Normalize: true,
		MaxTokens: model.Config.MaxPositions,
	}
	if err := m.Validate(); err != nil {
		return err
	}
	man, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"model.onnx": data, "tokenizer.json": tok} {
		if err := atomicfile.Write(filepath.Join(out, name), b); err != nil {
			return err
		}
	}
	// The manifest goes last: its presence means the backbone is complete.
	if err := atomicfile.Write(filepath.Join(out, "manifest.json"), append(man, '\n')); err != nil {
		return err
	}
	fmt.Println(filepath.Join(out, "manifest.json"))
	return nil
}

func moduleDir(mod string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s: %v: %s", mod, err, stderr.String())
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", mod, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	return info.Dir, nil
}

func digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
