package onnx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/gpu"
)

// ORTVersion is the ONNX Runtime release that scripts/install-onnxruntime.sh installs.
const ORTVersion = "1.30.0"

// LibraryName is the file name of the ONNX Runtime shared library in the cache.
const LibraryName = "libonnxruntime.so.1"

// InstallCommand is the command that installs the CPU library into the default cache.
const InstallCommand = "make onnxruntime   (or: scripts/install-onnxruntime.sh)"

// ErrLibraryNotFound is returned when no ONNX Runtime library can be found.
var ErrLibraryNotFound = errors.New("ONNX Runtime library not found")

// DefaultLibraryPath is where scripts/install-onnxruntime.sh puts the library under cacheDir
// (the atma cache, e.g. ~/.cache/atma).
func DefaultLibraryPath(cacheDir string) string {
	return filepath.Join(cacheDir, "onnxruntime", ORTVersion, LibraryName)
}

// ResolveLibrary picks the ONNX Runtime library: the flag value, else the environment value
// (ATMA_ORT_LIB), else the cache. A path that was named but does not exist is an error; so is
// finding none.
func ResolveLibrary(flagPath, envPath, cacheDir string) (string, error) {
	for _, c := range []struct{ path, from string }{{flagPath, "--ort-lib"}, {envPath, "ATMA_ORT_LIB"}} {
		if c.path == "" {
			continue
		}
		if _, err := os.Stat(c.path); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v; point it at libonnxruntime.so (a CUDA build on GPU nodes) or unset it to use the cached CPU build", ErrLibraryNotFound, c.from, c.path, err)
		}
		return c.path, nil
	}
	p := DefaultLibraryPath(cacheDir)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w at %s; install it with: %s — or set ATMA_ORT_LIB / --ort-lib", ErrLibraryNotFound, p, InstallCommand)
	}
	return p, nil
}

// env is the process-wide ONNX Runtime environment. ONNX Runtime allows one per process, so
// the first Init wins and later calls must name the same library.
var env struct {
	mu      sync.Mutex
	library string
	err     error
}

// Init loads the ONNX Runtime shared library at path and creates the process-wide
// environment. It is safe to call from several goroutines and more than once with the same
// path; a different path after a successful Init is an error, because a process can hold only
// one ONNX Runtime.
func Init(path string) error {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.library != "" {
		if env.library != path {
			return fmt.Errorf("init ONNX Runtime: already loaded from %s; one process can use only one library (asked for %s)", env.library, path)
		}
		return nil
	}
	if path == "" {
		return fmt.Errorf("init ONNX Runtime: %w: empty library path", ErrLibraryNotFound)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("init ONNX Runtime: %w: %v; install it with: %s", ErrLibraryNotFound, err, InstallCommand)
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("init ONNX Runtime from %s (is it ONNX Runtime ≥ 1.22 for %s/%s?): %w", path, runtime.GOOS, runtime.GOARCH, err)
	}
	env.library = path
	return nil
}

// Version reports the loaded ONNX Runtime version, or "" before Init.
func Version() string {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.library == "" {
		return ""
	}
	return ort.GetVersion()
}

// Provider names an execution provider choice.
type Provider string

// Execution provider choices.
const (
	// ProviderAuto uses CUDA when the GPU probe finds a supported NVIDIA GPU and the library
	// has the CUDA provider; otherwise the CPU, with the reason logged.
	ProviderAuto Provider = "auto"
	// ProviderCPU always uses the CPU.
	ProviderCPU Provider = "cpu"
	// ProviderCUDA requires CUDA: a library without it is an error, not a fallback.
	ProviderCUDA Provider = "cuda"
)

// ParseProvider reads "auto", "cpu" or "cuda" ("" means auto).
func ParseProvider(s string) (Provider, error) {
	switch Provider(s) {
	case "", ProviderAuto:
		return ProviderAuto, nil
	case ProviderCPU, ProviderCUDA:
		return Provider(s), nil
	}
	return "", fmt.Errorf("unknown execution provider %q (want auto, cpu or cuda)", s)
}

// ErrNoCUDA is returned when CUDA was required but cannot be used.
var ErrNoCUDA = errors.New("CUDA execution provider unavailable")

// SessionConfig says how to create ONNX Runtime sessions. The zero value means: automatic
// provider choice, ONNX Runtime's default thread count, slog.Default().
type SessionConfig struct {
	// Provider is auto (default), cpu or cuda.
	Provider Provider
	// DeviceID is the CUDA device for ProviderCUDA; with ProviderAuto the probe picks it.
	DeviceID int
	// IntraOpThreads bounds ONNX Runtime's intra-op thread pool; 0 means its default (one per
	// core).
	IntraOpThreads int
	// NoSpin makes ONNX Runtime's intra-op threads sleep when a run ends instead of
	// spinning for more work. Spinning shortens back-to-back runs a little but keeps
	// every core busy after each run; turn it off where other work shares the cores.
	NoSpin bool
	// Probe reports the GPUs; nil means gpu.Probe. Only consulted for ProviderAuto.
	Probe  func(context.Context) (gpu.Report, error)
	Logger *slog.Logger
}

// Validate reports every problem with the configuration.
func (c SessionConfig) Validate() error {
	var errs []error
	if _, err := ParseProvider(string(c.Provider)); err != nil {
		errs = append(errs, err)
	}
	if c.DeviceID < 0 {
		errs = append(errs, fmt.Errorf("CUDA device id %d is negative", c.DeviceID))
	}
	if c.IntraOpThreads < 0 {
		errs = append(errs, fmt.Errorf("intra-op threads %d is negative (0 means the ONNX Runtime default)", c.IntraOpThreads))
	}
	return errors.Join(errs...)
}

func (c SessionConfig) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// Session is an ONNX Runtime inference session on one model with its inputs and outputs
// described. Run is safe for concurrent use (ONNX Runtime serialises what it must); Destroy
// is not.
type Session struct {
	s        *ort.DynamicAdvancedSession
	Inputs   []ort.InputOutputInfo
	Outputs  []ort.InputOutputInfo
	provider string
}

// Provider is the execution provider the session runs on: "cpu" or "cuda:N".
func (s *Session) Provider() string { return s.provider }

// NewSession opens the model at path (ONNX Runtime must be initialised with Init) on the
// provider the configuration asks for. inputNames and outputNames select what Run takes and
// returns; nil means all of the model's, in the model's order.
func NewSession(ctx context.Context, cfg SessionConfig, path string, inputNames, outputNames []string) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("session config: %w", err)
	}
	if Version() == "" {
		return nil, errors.New("open ONNX session: ONNX Runtime is not initialised; call onnx.Init first")
	}
	ins, outs, err := ort.GetInputOutputInfo(path)
	if err != nil {
		if _, serr := os.Stat(path); serr != nil {
			return nil, fmt.Errorf("open ONNX model: %w", serr)
		}
		return nil, fmt.Errorf("read ONNX model %s: %w", path, err)
	}
	if inputNames == nil {
		inputNames = ioNames(ins)
	}
	if outputNames == nil {
		outputNames = ioNames(outs)
	}
	log := cfg.logger()

	device, useCUDA, why := chooseCUDA(ctx, cfg)
	if useCUDA {
		s, err := newORTSession(cfg, path, inputNames, outputNames, &device)
		if err == nil {
			log.Info("onnx session on CUDA", "model", filepath.Base(path), "device", device)
			return &Session{s: s, Inputs: ins, Outputs: outs, provider: "cuda:" + strconv.Itoa(device)}, nil
		}
		if cfg.Provider == ProviderCUDA {
			return nil, fmt.Errorf("%w: %v; use a CUDA build of ONNX Runtime (ATMA_ORT_LIB / --ort-lib) or --provider auto|cpu", ErrNoCUDA, err)
		}
		why = fmt.Sprintf("CUDA provider failed (%v)", err)
	}
	if why != "" {
		log.Info("onnx session on CPU", "model", filepath.Base(path), "reason", why)
	}
	s, err := newORTSession(cfg, path, inputNames, outputNames, nil)
	if err != nil {
		return nil, fmt.Errorf("open ONNX session for %s: %w", path, err)
	}
	return &Session{s: s, Inputs: ins, Outputs: outs, provider: "cpu"}, nil
}

// chooseCUDA decides whether to try CUDA and on which device; why explains a CPU choice.
func chooseCUDA(ctx context.Context, cfg SessionConfig) (device int, try bool, why string) {
	switch cfg.Provider {
	case ProviderCPU:
		return 0, false, ""
	case ProviderCUDA:
		return cfg.DeviceID, true, ""
	}
	probe := cfg.Probe
	if probe == nil {
		probe = func(ctx context.Context) (gpu.Report, error) { return gpu.Probe(ctx) }
	}
	// A probe error can come with a usable report (one GPU of several failed a query), so
	// the report decides; the error only explains a CPU choice.
	rep, err := probe(ctx)
	id, ok := rep.PreferCUDA()
	if !ok {
		reason := rep.Reason
		if err != nil {
			reason = fmt.Sprintf("GPU probe failed: %v", err)
		} else if reason == "" {
			reason = "no supported NVIDIA GPU"
		}
		return 0, false, reason
	}
	if err != nil {
		cfg.logger().Warn("GPU probe reported a problem; using the best device it read", "device", id, "err", err)
	}
	return id, true, ""
}

// newORTSession builds fresh session options each time, so a failed CUDA attempt leaves
// nothing behind for the CPU one.
func newORTSession(cfg SessionConfig, path string, inputNames, outputNames []string, cudaDevice *int) (_ *ort.DynamicAdvancedSession, err error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("create session options: %w", err)
	}
	defer func() { err = errors.Join(err, opts.Destroy()) }()
	if cfg.IntraOpThreads > 0 {
		if err := opts.SetIntraOpNumThreads(cfg.IntraOpThreads); err != nil {
			return nil, fmt.Errorf("set intra-op threads: %w", err)
		}
	}
	if cfg.NoSpin {
		if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return nil, fmt.Errorf("turn off intra-op spinning: %w", err)
		}
	}
	if cudaDevice != nil {
		if err := appendCUDA(opts, *cudaDevice); err != nil {
			return nil, err
		}
	}
	return ort.NewDynamicAdvancedSession(path, inputNames, outputNames, opts)
}

func appendCUDA(opts *ort.SessionOptions, device int) (err error) {
	cuda, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return fmt.Errorf("create CUDA provider options: %w", err)
	}
	defer func() { err = errors.Join(err, cuda.Destroy()) }()
	if err := cuda.Update(map[string]string{"device_id": strconv.Itoa(device)}); err != nil {
		return fmt.Errorf("set CUDA device %d: %w", device, err)
	}
	if err := opts.AppendExecutionProviderCUDA(cuda); err != nil {
		return fmt.Errorf("append CUDA provider: %w", err)
	}
	return nil
}

// Run runs the session on inputs (in the order given to NewSession) and fills outputs;
// a nil output is allocated by ONNX Runtime and returned in place. The caller destroys every
// value.
func (s *Session) Run(inputs, outputs []ort.Value) error {
	return s.s.Run(inputs, outputs)
}

// Destroy frees the session.
func (s *Session) Destroy() error {
	if s == nil || s.s == nil {
		return nil
	}
	err := s.s.Destroy()
	s.s = nil
	return err
}

func ioNames(infos []ort.InputOutputInfo) []string {
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = in.Name
	}
	return names
}
