// Package llamatest starts a real llama.cpp llama-server for integration tests, serving
// a tiny random-weight llama model that internal/gguf writes: every LLM path of atma runs
// through the server users run, with schema-constrained decoding making even a random
// model's output parse. The server binary comes from ATMA_LLAMA_SERVER, else from
// scripts/build-llama-server.sh's install under $ATMA_CACHE/llama-server/bin (`make
// llama-server`). All traffic stays on 127.0.0.1.
package llamatest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atma-dev/atma/internal/gguf"
)

const (
	// Slots is llama-server's -np: the most choices one request may carry.
	Slots = 4
	// CtxSize is llama-server's -c. The slots split it (no unified KV
	// cache by default), so one request gets ctxSize/slots tokens.
	CtxSize = 2048
	SlotCtx = CtxSize / Slots
	// ModelAlias is the name the server reports for the model.
	ModelAlias = "atma-tiny"
)

// Binary finds the llama-server to test against, or fails saying
// how to build it.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("ATMA_LLAMA_SERVER"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("ATMA_LLAMA_SERVER=%s: %v", p, err)
		}
		return p
	}
	cache := os.Getenv("ATMA_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatalf("no ATMA_CACHE and no home directory: %v", err)
		}
		cache = filepath.Join(home, ".cache", "atma")
	}
	p := filepath.Join(cache, "llama-server", "bin", "llama-server")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("llama-server not found at %s (%v); build it with `make llama-server` "+
			"(runs scripts/build-llama-server.sh, 10-20 minutes on two cores) or set ATMA_LLAMA_SERVER", p, err)
	}
	return p
}

// Server is one running llama-server.
type Server struct {
	URL     string // API root, http://127.0.0.1:port/v1
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{} // closed when the process has exited
	waitErr error
	once    sync.Once
}

// Start writes the tiny model into a temporary directory, starts
// llama-server on a free 127.0.0.1 port and waits until /health says it is
// ready. The process is killed when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return StartWith(t, Slots, CtxSize)
}

// StartWith is Start with np slots sharing a context of ctx tokens.
func StartWith(t testing.TB, np, ctx int) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	model := filepath.Join(dir, "model.gguf")
	f, err := gguf.TinyLlama(gguf.LlamaConfig{Seed: 1, ContextLength: max(ctx, 2048)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteTo(out); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}

	port := freePort(t)
	logFile, err := os.Create(filepath.Join(dir, "llama-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{
		URL:  fmt.Sprintf("http://127.0.0.1:%d/v1", port),
		log:  logFile,
		done: make(chan struct{}),
	}
	s.cmd = exec.Command(bin,
		"-m", model,
		"--alias", ModelAlias,
		"--host", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"-np", strconv.Itoa(np),
		"-c", strconv.Itoa(ctx),
		// One thread: the model is tiny, and spinning worker threads only
		// lose time on a machine shared with other processes.
		"-t", "1",
		"--jinja",
		"--slots",
		"--metrics", // Prometheus counters of tokens processed, read by PromptTokens
	)
	s.cmd.Stdout = logFile
	s.cmd.Stderr = logFile
	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			t.Logf("llama-server log (tail):\n%s", s.LogTail(4000))
		}
		logFile.Close()
	})

	health := strings.TrimSuffix(s.URL, "/v1") + "/health"
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case <-s.done:
			t.Fatalf("llama-server exited during start-up: %v\n%s", s.waitErr, s.LogTail(4000))
		default:
		}
		resp, err := http.Get(health)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server not healthy after 2m (last: %v)\n%s", err, s.LogTail(4000))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("llama-server ready on %s in %v (model %d bytes)", s.URL, time.Since(start).Round(time.Millisecond), fileSize(t, model))
	return s
}

// Kill stops the server and waits for it to exit; safe to call twice.
func (s *Server) Kill() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.done
	})
}

// LogTail is the last n bytes of the server's log.
func (s *Server) LogTail(n int) string {
	b, err := os.ReadFile(s.log.Name())
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func fileSize(t testing.TB, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// Endpoint is the OpenAI-compatible endpoint an end-to-end suite runs against: the one
// ATMA_LLM_URL names (with ATMA_LLM_MODEL; vLLM, Ollama, a hosted API), so that users with
// a real model run the suite unchanged, else a llama-server with the tiny random model
// started here (StartWith np slots of ctx tokens).
// The server is nil for an endpoint of ATMA_LLM_URL.
func Endpoint(t testing.TB, np, ctx int) (srv *Server, url, model string) {
	t.Helper()
	if u := os.Getenv("ATMA_LLM_URL"); u != "" {
		m := os.Getenv("ATMA_LLM_MODEL")
		t.Logf("running against ATMA_LLM_URL=%s (model %q)", u, m)
		return nil, u, m
	}
	srv = StartWith(t, np, ctx)
	return srv, srv.URL, ModelAlias
}

// PromptTokens is the server's count of prompt tokens processed so far
// (llamacpp:prompt_tokens_total on /metrics): the difference over an operation is the
// prompt it sent.
func (s *Server) PromptTokens(t testing.TB) float64 {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(s.URL, "/v1") + "/metrics")
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("metrics: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "llamacpp:prompt_tokens_total "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("no llamacpp:prompt_tokens_total in /metrics:\n%.400s", b)
	return 0
}
