package grpo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/atma-dev/atma/grpo/reward"
	"github.com/atma-dev/atma/internal/atomicfile"
)

// The run directory's files.
const (
	fileConfig   = "config.json"
	fileState    = "state.json"
	fileSteps    = "steps.jsonl"
	fileSamples  = "samples.jsonl"
	fileRollouts = "rollouts.jsonl"
	fileEval     = "eval.jsonl"
	fileSummary  = "summary.json"
	dirPlots     = "plots"
)

// appendFiles are the JSON-lines files a commit appends to, whose sizes the state records.
var appendFiles = []string{fileSteps, fileSamples, fileRollouts, fileEval}

// runState is state.json: what a resumed run needs to go on exactly where the last
// complete step left off.
type runState struct {
	// Step is the number of completed steps; EvalStep the step of the last evaluation.
	Step     int `json:"step"`
	EvalStep int `json:"eval_step"`
	// RNG is the PCG state (math/rand/v2 binary form) after the last complete step.
	RNG []byte `json:"rng"`
	// Order is the current epoch's permutation of the training items, Pos how far into it
	// the run has got.
	Order []int `json:"order"`
	Pos   int   `json:"pos"`
	// FailedSteps counts consecutive steps without a completion.
	FailedSteps int `json:"failed_steps"`
	// Sizes are the byte sizes of the JSON-lines files after the last commit; a resumed
	// run cuts them back to these, dropping what an interrupted step had written.
	Sizes map[string]int64 `json:"sizes"`
}

func (s runState) clone() runState {
	c := s
	c.RNG = slices.Clone(s.RNG)
	c.Order = slices.Clone(s.Order)
	c.Sizes = map[string]int64{}
	for k, v := range s.Sizes {
		c.Sizes[k] = v
	}
	return c
}

// rng restores the generator.
func (s *runState) rng() *pcgRand {
	p := new(rand.PCG)
	if err := p.UnmarshalBinary(s.RNG); err != nil {
		// The state was validated when it was read; this is a programming error.
		panic(fmt.Sprintf("grpo: restore rng: %v", err))
	}
	return &pcgRand{Rand: rand.New(p), src: p}
}

// saveRNG stores the generator's state.
func (s *runState) saveRNG(r *pcgRand) {
	b, err := r.src.MarshalBinary()
	if err != nil {
		panic(fmt.Sprintf("grpo: save rng: %v", err)) // PCG's MarshalBinary cannot fail
	}
	s.RNG = b
}

// pcgRand is a generator whose state can be saved.
type pcgRand struct {
	*rand.Rand
	src *rand.PCG
}

// nextPrompts takes k item indices from the current epoch's permutation, drawing a new
// permutation whenever one runs out.
func (s *runState) nextPrompts(r *pcgRand, items, k int) []int {
	out := make([]int, k)
	for i := range out {
		if s.Pos >= len(s.Order) {
			s.Order = r.Perm(items)
			s.Pos = 0
		}
		out[i] = s.Order[s.Pos]
		s.Pos++
	}
	return out
}

// runDir is an open run directory.
type runDir struct {
	dir   string
	state runState
	files map[string]*os.File
}

func (d *runDir) path(name string) string { return filepath.Join(d.dir, name) }

// openRunDir opens cfg.Dir: it resumes the run the directory holds (same configuration
// apart from steps, concurrency and the failure limit) or starts a new one.
func openRunDir(cfg RunConfig, items int) (*runDir, error) {
	d := &runDir{dir: cfg.Dir, files: map[string]*os.File{}}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	raw, err := os.ReadFile(d.path(fileState))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p := rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)
		d.state = runState{Sizes: map[string]int64{}}
		d.state.saveRNG(&pcgRand{Rand: rand.New(p), src: p})
		for _, f := range appendFiles {
			if err := os.WriteFile(d.path(f), nil, 0o644); err != nil {
				return nil, fmt.Errorf("start run directory: %w", err)
			}
			d.state.Sizes[f] = 0
		}
	case err != nil:
		return nil, fmt.Errorf("read run state: %w", err)
	default:
		if err := d.resume(cfg, raw, items); err != nil {
			return nil, err
		}
	}
	if err := writeJSONFile(d.path(fileConfig), cfg); err != nil {
		return nil, err
	}
	for _, f := range appendFiles {
		fh, err := os.OpenFile(d.path(f), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			d.close()
			return nil, fmt.Errorf("open %s: %w", f, err)
		}
		d.files[f] = fh
	}
	if err := writeJSONFile(d.path(fileState), d.state); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

// resume checks the stored configuration and state and cuts the files back to the last
// commit.
func (d *runDir) resume(cfg RunConfig, rawState []byte, items int) error {
	var st runState
	if err := json.Unmarshal(rawState, &st); err != nil {
		return fmt.Errorf("read run state %s: %w", d.path(fileState), err)
	}
	if err := new(rand.PCG).UnmarshalBinary(st.RNG); err != nil {
		return fmt.Errorf("read run state %s: rng: %w", d.path(fileState), err)
	}
	if st.Step < 0 || st.Pos < 0 || st.Pos > len(st.Order) {
		return fmt.Errorf("read run state %s: step %d, position %d of %d", d.path(fileState), st.Step, st.Pos, len(st.Order))
	}
	for _, k := range st.Order {
		if k < 0 || k >= items {
			return fmt.Errorf("run directory %s was started with other training items (item %d of %d)", d.dir, k, items)
		}
	}
	rawCfg, err := os.ReadFile(d.path(fileConfig))
	if err != nil {
		return fmt.Errorf("read the run's configuration: %w", err)
	}
	var stored RunConfig
	if err := reward.DecodeStrict(bytes.NewReader(rawCfg), &stored); err != nil {
		return fmt.Errorf("read the run's configuration %s: %w", d.path(fileConfig), err)
	}
	if a, b := comparable(stored), comparable(cfg); !bytes.Equal(a, b) {
		return fmt.Errorf("run directory %s holds a run with another configuration (only steps, concurrency, max_failed_steps and eval.concurrency may change on resume): use a new directory or the stored %s", d.dir, fileConfig)
	}
	if st.Sizes == nil {
		st.Sizes = map[string]int64{}
	}
	for _, f := range appendFiles {
		size := st.Sizes[f]
		fi, err := os.Stat(d.path(f))
		switch {
		case errors.Is(err, fs.ErrNotExist) && size == 0:
			continue
		case err != nil:
			return fmt.Errorf("resume: %w", err)
		case fi.Size() < size:
			return fmt.Errorf("resume: %s is %d bytes, shorter than the %d the state records", f, fi.Size(), size)
		case fi.Size() > size:
			if err := os.Truncate(d.path(f), size); err != nil {
				return fmt.Errorf("resume: cut %s back to the last step: %w", f, err)
			}
		}
	}
	d.state = st
	return nil
}

// comparable is the configuration as it must match on resume.
func comparable(c RunConfig) []byte {
	c.Dir, c.Steps, c.Concurrency, c.MaxFailedSteps, c.Eval.Concurrency = "", 0, 0, 0, 0
	b, _ := json.Marshal(c) // a RunConfig always encodes
	return b
}

// commit appends a step's records and then records the new state: a run interrupted
// before the state is written resumes from the previous step. st is the commit's own
// copy.
func (d *runDir) commit(st runState, rec StepRecord, rollouts []Rollout, export bool) error {
	st = st.clone() // the caller goes on with its copy
	if err := d.appendLines(fileSteps, []any{rec}); err != nil {
		return err
	}
	samples := make([]any, len(rollouts))
	for i, ro := range rollouts {
		ro.Messages, ro.TokenTexts, ro.Logprobs, ro.RefLogprobs = nil, nil, nil, nil
		samples[i] = ro
	}
	if err := d.appendLines(fileSamples, samples); err != nil {
		return err
	}
	if export {
		full := make([]any, len(rollouts))
		for i, ro := range rollouts {
			full[i] = ro
		}
		if err := d.appendLines(fileRollouts, full); err != nil {
			return err
		}
	}
	return d.saveState(st)
}

// commitEval appends an evaluation record and records it in the state.
func (d *runDir) commitEval(rec EvalRecord) error {
	if err := d.appendLines(fileEval, []any{rec}); err != nil {
		return err
	}
	st := d.state.clone()
	st.EvalStep = rec.Step
	return d.saveState(st)
}

func (d *runDir) saveState(st runState) error {
	for _, f := range appendFiles {
		fi, err := d.files[f].Stat()
		if err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		st.Sizes[f] = fi.Size()
	}
	if err := writeJSONFile(d.path(fileState), st); err != nil {
		return err
	}
	d.state = st
	return nil
}

// appendLines writes values as JSON lines in one write, then syncs the file, so that the
// state written after it never points past data that is not on disk.
func (d *runDir) appendLines(name string, values []any) error {
	if len(values) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, v := range values {
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("encode %s line: %w", name, err)
		}
	}
	f := d.files[name]
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("append to %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", name, err)
	}
	return nil
}

func (d *runDir) close() {
	for _, f := range d.files {
		_ = f.Close() // every write was synced; nothing is lost on close
	}
	d.files = nil
}

// writeJSONFile writes v as indented JSON through a temporary file and a rename, so that
// readers never see half a file.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// readJSONL reads a JSON-lines file; a missing file is empty.
func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("read %s line %d: %w", filepath.Base(path), line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return out, nil
}
