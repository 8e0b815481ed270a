package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/overlay"
	"github.com/atma-dev/atma/overlay/store/pgdb"
)

// overlayMigrateOptions are the flags of `atma overlay migrate`.
type overlayMigrateOptions struct {
	From string
	To   string
	JSON bool
	// Dir is the SQLite bank's data directory, from From.
	Dir string
}

func newCmdOverlayMigrate(f *Factory, runF func(context.Context, *overlayMigrateOptions) error) *cobra.Command {
	opts := &overlayMigrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate --from sqlite:PATH --to postgres://…",
		Short: "Copy an SQLite bank into an empty PostgreSQL database, and verify the copy",
		Long: `Copy a bank from its SQLite file into a PostgreSQL database that holds no bank yet:
every user's records and links (one transaction a user, checked as every commit is), the
host memories, the traces and the API keys. Then the copy is verified: the same numbers of
records, links, memories, traces and keys, and no invariant violation in any user's bank.
PATH is a data directory or its atma.db. The SQLite bank is only read; stop the servers
that write to it first. Exits 1 when the copy fails or does not verify.`,
		Example: `  atma overlay migrate --from sqlite:$HOME/.local/share/atma --to postgres://atma:secret@db:5432/atma
  atma overlay migrate --from sqlite:./data/atma.db --to "$ATMA_DATABASE_URL" --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, ok := strings.CutPrefix(opts.From, "sqlite:")
			var errs []error
			if !ok || path == "" {
				errs = append(errs, fmt.Errorf("--from %q: want sqlite:PATH, PATH a data directory or its %s", opts.From, overlay.DBFile))
			}
			if !pgdb.IsURL(opts.To) {
				errs = append(errs, fmt.Errorf("--to %q: want a postgres:// URL (postgres://user:password@host:5432/db)", pgdb.Redact(opts.To)))
			}
			if err := errors.Join(errs...); err != nil {
				return usageError{err}
			}
			opts.Dir = path
			if filepath.Base(path) == overlay.DBFile {
				opts.Dir = filepath.Dir(path)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayMigrateRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.From, "from", "", "the SQLite bank: sqlite:PATH, PATH a data directory or its atma.db (required)")
	fl.StringVar(&opts.To, "to", "", "the PostgreSQL database: postgres://user:password@host:5432/db (required)")
	fl.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

func overlayMigrateRun(ctx context.Context, f *Factory, opts *overlayMigrateOptions) error {
	dir := opts.Dir
	if _, err := os.Stat(filepath.Join(dir, overlay.DBFile)); err != nil {
		return usagef("--from: no bank in %s (no %s)", dir, overlay.DBFile)
	}
	src, err := overlay.OpenBank(ctx, dir)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := overlay.OpenPostgresBank(ctx, opts.To, pgdb.Config{})
	if err != nil {
		return fmt.Errorf("%w; check --to and that the server is up", err)
	}
	defer dst.Close()
	progress := func(user string, records, memories int) {
		if !opts.JSON {
			fmt.Fprintf(f.IO.Out, "%s: %d records, %d host memories\n", user, records, memories)
		}
	}
	rep, err := overlay.CopyBank(ctx, dst, src, progress)
	if err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(f.IO.Out).Encode(rep)
	}
	_, err = fmt.Fprintf(f.IO.Out, "copied %s to %s and verified: %d users, %d records, %d links, %d host memories, %d traces, %d keys\n",
		dir, dst.Where, rep.Users, rep.Records, rep.Links, rep.Memories, rep.Traces, rep.Keys)
	return err
}
