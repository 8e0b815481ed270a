package wordpiece

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The bert-base-uncased tokenizer.json (the vocabulary of nomic-embed-text-v1.5 too) ships
// inside this Go module; it is found through the module cache rather than copied here.
const bertModule = "github.com/clems4ever/all-minilm-l6-v2-go@v0.0.9"

var bert struct {
	once sync.Once
	path string
	tok  *Tokenizer
	err  error
}

// bertPath is the path of the bert-base-uncased tokenizer.json.
func bertPath(tb testing.TB) string {
	tb.Helper()
	loadBERT(tb)
	return bert.path
}

// loadBERT loads the bert-base-uncased tokenizer once per test binary.
func loadBERT(tb testing.TB) *Tokenizer {
	tb.Helper()
	bert.once.Do(func() {
		out, err := exec.Command("go", "mod", "download", "-json", bertModule).Output()
		if err != nil {
			bert.err = err
			if ee, ok := err.(*exec.ExitError); ok {
				bert.err = &moduleError{err: err, stderr: string(ee.Stderr), stdout: string(out)}
			}
			return
		}
		var info struct{ Dir, Error string }
		if err := json.Unmarshal(out, &info); err != nil {
			bert.err = err
			return
		}
		if info.Dir == "" {
			bert.err = &moduleError{stdout: string(out)}
			return
		}
		bert.path = filepath.Join(info.Dir, "all_minilm_l6_v2", "tokenizer.json")
		bert.tok, bert.err = Load(bert.path)
	})
	if bert.err != nil {
		tb.Fatalf("cannot load the bert-base-uncased tokenizer.json from Go module %s "+
			"(`go mod download -json %s` must work: it needs the module proxy or a filled module cache): %v",
			bertModule, bertModule, bert.err)
	}
	return bert.tok
}

type moduleError struct {
	err            error
	stderr, stdout string
}

func (e *moduleError) Error() string {
	msg := "go mod download failed"
	if e.err != nil {
		msg += ": " + e.err.Error()
	}
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	if e.stdout != "" {
		msg += ": " + e.stdout
	}
	return msg
}
