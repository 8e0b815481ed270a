package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/onnx"
)

// Backbone ids the CLI knows by name.
const (
	backboneNomic    = "nomic"
	backboneUSELite  = "use-lite"
	backboneTestTiny = "test-tiny"
	nomicID          = "nomic-embed-text-v1.5"
)

// runtimeOptions are the flags every command that runs a backbone shares.
type runtimeOptions struct {
	Backbone    string
	BackboneDir string
	ORTLib      string
	Provider    string
	DeviceID    int
	Threads     int
}

func (o *runtimeOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Backbone, "backbone", "", "backbone: nomic, use-lite, test-tiny, or a manifest path (default: nomic when its files are present, else use-lite; env ATMA_BACKBONE)")
	fs.StringVar(&o.BackboneDir, "backbone-dir", "", "directory holding the backbone's files (default: $ATMA_CACHE/backbones/<id>)")
	fs.StringVar(&o.ORTLib, "ort-lib", "", "ONNX Runtime shared library (default: $ATMA_ORT_LIB, else the cached CPU build)")
	fs.StringVar(&o.Provider, "provider", "auto", "execution provider: auto, cpu or cuda")
	fs.IntVar(&o.DeviceID, "device", 0, "CUDA device id with --provider cuda")
	fs.IntVar(&o.Threads, "threads", 0, "ONNX Runtime intra-op threads (0: one per core; for overlay commands 1, since they embed beside commits and other requests)")
}

// cacheDir is $ATMA_CACHE, else ~/.cache/atma.
func (f *Factory) cacheDir() string {
	if d := f.env("ATMA_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "atma")
	}
	return filepath.Join(os.TempDir(), "atma-cache")
}

// resolveBackbone turns --backbone into a manifest, and says how it chose.
func (f *Factory) resolveBackbone(o *runtimeOptions) (*onnx.Manifest, error) {
	name := o.Backbone
	if name == "" {
		name = f.env("ATMA_BACKBONE")
	}
	cache := filepath.Join(f.cacheDir(), "backbones")
	dirFor := func(id string) string {
		if o.BackboneDir != "" {
			return o.BackboneDir
		}
		return filepath.Join(cache, id)
	}
	if name == "" {
		var tried []string
		for _, cand := range []string{backboneNomic, backboneUSELite} {
			m, err := f.namedBackbone(cand, dirFor)
			if err == nil {
				if _, statErr := os.Stat(m.Path(m.Model.Path)); statErr == nil {
					f.Logger.Info("backbone chosen", "backbone", m.ID, "dir", m.Dir, "why", "default: first of nomic, use-lite whose files are present")
					return m, nil
				}
				tried = append(tried, fmt.Sprintf("%s (no %s)", cand, m.Path(m.Model.Path)))
				continue
			}
			tried = append(tried, fmt.Sprintf("%s (%v)", cand, err))
		}
		return nil, fmt.Errorf("no backbone available: tried %s; fetch nomic with scripts/fetch-nomic.sh, or pass --backbone test-tiny after `make test-backbone`", strings.Join(tried, "; "))
	}
	m, err := f.namedBackbone(name, dirFor)
	if err != nil {
		return nil, err
	}
	f.Logger.Debug("backbone chosen", "backbone", m.ID, "dir", m.Dir)
	return m, nil
}

func (f *Factory) namedBackbone(name string, dirFor func(string) string) (*onnx.Manifest, error) {
	switch name {
	case backboneNomic, nomicID:
		dir := dirFor(nomicID)
		// scripts/fetch-nomic.sh writes a manifest with the fetched files' sha256.
		if m, err := onnx.LoadManifest(filepath.Join(dir, "manifest.json")); err == nil {
			return m, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return onnx.Builtin(nomicID, dir)
	case backboneUSELite, backboneTestTiny:
		p := filepath.Join(dirFor(name), "manifest.json")
		m, err := onnx.LoadManifest(p)
		if errors.Is(err, os.ErrNotExist) {
			fix := "make test-backbone"
			if name == backboneUSELite {
				fix = "make models"
			}
			return nil, fmt.Errorf("backbone %s is not installed (no %s); run: %s", name, p, fix)
		}
		return m, err
	}
	p := name
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, "manifest.json")
	} else if err != nil {
		return nil, fmt.Errorf("unknown backbone %q: not nomic, use-lite or test-tiny, and no manifest at that path (%v)", name, err)
	}
	return onnx.LoadManifest(p)
}

// openEncoder loads ONNX Runtime and the backbone; cfg.Session.IntraOpThreads is the
// command's default for --threads 0.
func (f *Factory) openEncoder(ctx context.Context, o *runtimeOptions, cfg onnx.EncoderConfig) (*onnx.Encoder, error) {
	prov, err := onnx.ParseProvider(o.Provider)
	if err != nil {
		return nil, usageError{err}
	}
	m, err := f.resolveBackbone(o)
	if err != nil {
		return nil, err
	}
	lib, err := onnx.ResolveLibrary(o.ORTLib, f.env("ATMA_ORT_LIB"), f.cacheDir())
	if err != nil {
		return nil, err
	}
	if err := onnx.Init(lib); err != nil {
		return nil, err
	}
	cfg.Session.Provider = prov
	cfg.Session.DeviceID = o.DeviceID
	if o.Threads != 0 {
		cfg.Session.IntraOpThreads = o.Threads
	}
	cfg.Logger = f.Logger
	return onnx.NewEncoder(ctx, m, cfg)
}
