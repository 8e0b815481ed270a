package cli

import (
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/atma-dev/atma/sentry"
)

// defaultSentry is where `make models` puts the default Sentry checkpoint of a backbone
// (scripts/default-sentry.sh): $ATMA_CACHE/models/sentry/<backbone id>/.
func (f *Factory) defaultSentry(backbone string) string {
	return filepath.Join(f.cacheDir(), "models", "sentry", backbone, sentry.BestFile)
}

// findSentry returns the Sentry checkpoint a command uses and why: the one given by
// flag, else <data-dir>/sentry/ (a checkpoint trained for this bank; dataDir "" skips
// it), else the default of the backbone from `make models`, else checkpoints/sentry/
// of the working directory. It returns "" when there is none. The choice is logged.
func (f *Factory) findSentry(flag, dataDir, backbone string) string {
	if flag != "" {
		f.Logger.Info("sentry checkpoint", "path", flag, "why", "given")
		return flag
	}
	type cand struct{ path, why string }
	var cands []cand
	if dataDir != "" {
		cands = append(cands, cand{filepath.Join(dataDir, "sentry", sentry.BestFile), "the data directory's"})
	}
	cands = append(cands, cand{f.defaultSentry(backbone), "the default for backbone " + backbone + " (make models)"},
		cand{filepath.Join("checkpoints", "sentry", sentry.BestFile), "the working directory's checkpoints/sentry"})
	for _, c := range cands {
		if fileExists(c.path) {
			f.Logger.Info("sentry checkpoint", "path", c.path, "why", c.why)
			return c.path
		}
	}
	return ""
}

const sentryFlagUsage = "Sentry checkpoint file `PATH` (default: <data-dir>/sentry/, else the backbone's default that make models trains into $ATMA_CACHE/models/sentry/<backbone>/, else checkpoints/sentry/)"

// addSentryFlag registers --sentry (-c), the Sentry checkpoint flag of every command, and
// keeps --checkpoint, its old name on the sentry commands, as an alias.
func addSentryFlag(fs *pflag.FlagSet, dst *string, usage string) {
	fs.StringVarP(dst, "sentry", "c", "", usage)
	prev := fs.GetNormalizeFunc()
	fs.SetNormalizeFunc(func(fs *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "checkpoint" {
			name = "sentry"
		}
		return prev(fs, name)
	})
}
