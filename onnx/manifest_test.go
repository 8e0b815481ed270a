package onnx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinNomic(t *testing.T) {
	m, err := Builtin("nomic-embed-text-v1.5", "/models/nomic")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"dimension", m.Dimension, 768},
		{"pooling", m.Pooling, PoolMean},
		{"layer norm", m.LayerNorm, true},
		{"output", m.Output.Name, "last_hidden_state"},
		{"inputs", len(m.Inputs), 3},
		{"document prefix", m.Prefixes["document"], "search_document: "},
		{"query prefix", m.Prefixes["query"], "search_query: "},
		{"model path", m.Path(m.Model.Path), "/models/nomic/model.onnx"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if d, err := m.OutputDim(256); err != nil || d != 256 {
		t.Errorf("OutputDim(256) = %d, %v", d, err)
	}
	if _, err := m.OutputDim(300); err == nil {
		t.Error("OutputDim(300) succeeded; nomic has no 300-d output")
	}
	if _, err := Builtin("nope", ""); err == nil || !strings.Contains(err.Error(), "nomic-embed-text-v1.5") {
		t.Errorf("Builtin(nope) error %v should list the built-in ids", err)
	}
}

func TestParseManifestErrors(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []string // every one must appear in the error
	}{
		{"unknown field", `{"id":"x","bogus":1}`, []string{"bogus"}},
		{"not json", `{`, []string{"decode backbone manifest"}},
		{"everything wrong", `{"tokenizer":{"kind":"bpe"},"inputs":[{"name":"a","role":"pixels"}],"output":{"kind":"logits"},"dimension":0,"max_tokens":0}`,
			[]string{"id is empty", "model.path is empty", `tokenizer.kind "bpe"`, `unknown role "pixels"`, "output.name is empty", `output.kind "logits"`, "dimension 0", "max_tokens 0"}},
		{"mixed inputs", `{"id":"x","model":{"path":"m"},"tokenizer":{"kind":"spm","path":"v"},"inputs":[{"name":"a","role":"input_ids"},{"name":"b","role":"sparse_values"}],"output":{"name":"o","kind":"sentence_embedding"},"dimension":4,"max_tokens":8}`,
			[]string{"mix dense"}},
		{"mean without mask", `{"id":"x","model":{"path":"m"},"tokenizer":{"kind":"wordpiece","path":"t"},"inputs":[{"name":"a","role":"input_ids"}],"output":{"name":"o","kind":"token_embeddings"},"pooling":"mean","dimension":4,"max_tokens":8}`,
			[]string{"mean pooling needs an attention_mask"}},
		{"bad sha and matryoshka", `{"id":"x","model":{"path":"m","sha256":"abc"},"tokenizer":{"kind":"wordpiece","path":"t"},"inputs":[{"name":"a","role":"input_ids"},{"name":"m","role":"attention_mask"}],"output":{"name":"o","kind":"token_embeddings"},"pooling":"cls","dimension":4,"matryoshka_dims":[8],"max_tokens":8,"default_task":"query"}`,
			[]string{"64 hex digits", "matryoshka dimension 8", `default_task "query"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseManifest([]byte(tt.json), "")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestVerifyFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("model.onnx", "model")
	write("tok.json", "tok")
	const modelSHA = "1a4ac5c4f0b2a1a2c8a8b3b0b51ec10ee0a8d27e0f71ef6d0dc1e3c4e8d9a0a1" // wrong on purpose
	m := &Manifest{ID: "t", Dir: dir, Model: File{Path: "model.onnx"}, Tokenizer: TokenizerSpec{Kind: TokenizerWordPiece, File: File{Path: "tok.json"}}}
	sum, err := m.VerifyFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(sum) != 64 {
		t.Fatalf("digest %q", sum)
	}
	m.Model.SHA256 = modelSHA
	if _, err := m.VerifyFiles(); err == nil || !strings.Contains(err.Error(), "fetch it again") {
		t.Errorf("wrong sha256: error %v", err)
	}
	m.Model.SHA256 = sum
	m.Tokenizer.Path = "missing.json"
	if _, err := m.VerifyFiles(); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing tokenizer: error %v", err)
	}
}

func TestResolveLibrary(t *testing.T) {
	cache := t.TempDir()
	lib := filepath.Join(t.TempDir(), "libonnxruntime.so")
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cached := DefaultLibraryPath(cache)
	tests := []struct {
		name, flag, env string
		cached          bool
		want, wantErr   string
	}{
		{"flag wins", lib, "/nope", true, lib, ""},
		{"env next", "", lib, true, lib, ""},
		{"cache last", "", "", true, cached, ""},
		{"missing flag path", "/nope/lib.so", "", true, "", "--ort-lib=/nope/lib.so"},
		{"missing env path", "", "/nope/lib.so", true, "", "ATMA_ORT_LIB=/nope/lib.so"},
		{"nothing", "", "", false, "", "make onnxruntime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Dir(cached))
			if tt.cached {
				os.MkdirAll(filepath.Dir(cached), 0o755)
				os.WriteFile(cached, nil, 0o644)
			}
			got, err := ResolveLibrary(tt.flag, tt.env, cache)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
