package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes shared by every binary.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// IO is where a command reads and writes. Tests give buffers.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// Getenv reads the environment; nil means os.Getenv. Tests inject a map.
	Getenv func(string) string
}

// StdIO is the process's standard streams and environment.
func StdIO() IO { return IO{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, Getenv: os.Getenv} }

// Factory carries what every command needs: its streams, the environment and a logger.
type Factory struct {
	IO     IO
	Logger *slog.Logger
}

func (f *Factory) env(key string) string {
	if f.IO.Getenv == nil {
		return os.Getenv(key)
	}
	return f.IO.Getenv(key)
}

// usageError marks an error as the caller's mistake (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Main runs the binary named bin with args and returns its exit code.
func Main(ctx context.Context, bin string, args []string, streams IO) int {
	f := &Factory{IO: streams}
	var level slog.LevelVar
	// Commands are read by people: no timestamps, info and up unless --verbose.
	f.Logger = slog.New(slog.NewTextHandler(streams.ErrOut, &slog.HandlerOptions{
		Level: &level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))

	root, err := newRoot(f, bin, &level)
	if err != nil {
		fmt.Fprintf(streams.ErrOut, "%s: %v\n", bin, err)
		return ExitFailure
	}
	root.SetArgs(args)
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	err = root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(streams.ErrOut, "%s: %v\n", bin, err)
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintf(streams.ErrOut, "Run '%s --help' for usage.\n", bin)
		return ExitUsage
	}
	return ExitFailure
}

// isCobraUsage recognises the errors cobra itself returns for a wrong command line.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most", "requires exactly", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// newRoot builds the tree for one binary: atma holds everything; sentry and judge expose
// their own sub-trees at the top.
func newRoot(f *Factory, bin string, level *slog.LevelVar) (*cobra.Command, error) {
	var root *cobra.Command
	switch bin {
	case "atma":
		root = &cobra.Command{
			Use:   "atma",
			Short: "State-correct long-term memory for LLM agents",
			Long: `atma keeps an agent's long-term memory state-correct: when a fact changes, the old
one stays available for history but never answers a question about the present.`,
			Example: "  atma gpu info\n  echo 'I moved to Lisbon.' | atma embed --backbone test-tiny",
		}
		sentryCmd := &cobra.Command{
			Use:     "sentry <command>",
			Short:   "Sentry: train, evaluate and run the gate (same as the sentry binary)",
			Example: "  atma sentry train --out checkpoints/sentry",
			Args:    cobra.NoArgs,
			RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		}
		sentryCmd.AddCommand(sentryCommands(f)...)
		judgeCmd := &cobra.Command{
			Use:     "judge <command>",
			Short:   "Judge: audit memory pairs, evaluate judges, build SFT data (same as the judge binary)",
			Example: "  atma judge eval",
			Args:    cobra.NoArgs,
			RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		}
		judgeCmd.AddCommand(judgeCommands(f)...)
		root.AddCommand(newCmdGPU(f), newCmdEmbed(f, nil), newCmdData(f), sentryCmd, judgeCmd, newCmdOverlay(f), newCmdBench(f))
	case "sentry":
		root = &cobra.Command{
			Use:     "sentry",
			Short:   "Sentry: the embedding gate that decides which memory pairs the Judge audits",
			Example: "  sentry train --out checkpoints/sentry\n  sentry eval\n  printf 'I live in Berlin.\\tI moved to Lisbon.\\n' | sentry gate",
		}
		root.AddCommand(sentryCommands(f)...)
	case "judge":
		root = &cobra.Command{
			Use:     "judge",
			Short:   "Judge: the LLM auditor of conflicting memories",
			Example: "  judge audit --old 'I live in Berlin.' --new 'I moved to Lisbon.'\n  judge eval\n  judge sft-data --out sft.jsonl",
		}
		root.AddCommand(judgeCommands(f)...)
	default:
		return nil, fmt.Errorf("unknown binary %q (want atma, sentry or judge)", bin)
	}
	root.AddCommand(newCmdVersion(f))
	root.SilenceUsage = true
	root.SilenceErrors = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	verbose := root.PersistentFlags().BoolP("verbose", "v", false, "log debug messages to stderr")
	root.PersistentPreRun = func(*cobra.Command, []string) {
		if *verbose {
			level.Set(slog.LevelDebug)
		}
	}
	return root, nil
}
