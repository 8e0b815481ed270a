package cli

import (
	"context"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/overlay/api"
)

func newCmdOverlayMCP(f *Factory, runF func(context.Context, *overlayOptions) error) *cobra.Command {
	opts := &overlayOptions{}
	cmd := &cobra.Command{
		Use:   "mcp --user U",
		Short: "Serve one user's memory to an agent over the Model Context Protocol (stdio)",
		Long: `Serve the overlay's agent tools — add, get (by id or slot key), list, search, state-aware
query, update, delete — to an MCP client over stdio (Claude Desktop, Claude Code, Cursor, …),
acting for --user alone: no tool argument names a user. The same tools are served over MCP's
streamable HTTP transport by ` + "`atma overlay serve`" + ` at POST /v1/users/{user}/mcp, behind its
token or API keys. Logs go to standard error; standard output carries the protocol.`,
		Example: `  atma overlay mcp --user alice
  # in an MCP client's configuration: {"command": "atma", "args": ["overlay", "mcp", "--user", "alice"]}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return overlayMCPRun(cmd.Context(), f, opts)
		},
	}
	opts.addFlags(cmd.Flags(), true)
	if err := cmd.Flags().MarkHidden("json"); err != nil {
		panic(err) // the flag was just added: a programming error
	}
	return cmd
}

func overlayMCPRun(ctx context.Context, f *Factory, opts *overlayOptions) error {
	env, err := f.openOverlay(ctx, opts, true)
	if err != nil {
		return err
	}
	defer env.Close()
	srv, err := api.NewMCP(env.ov, opts.User, f.Logger)
	if err != nil {
		return err
	}
	return srv.Run(ctx, &mcp.IOTransport{Reader: readCloser{f.IO.In}, Writer: writeCloser{f.IO.Out}})
}

// readCloser and writeCloser give the command's streams the Close that MCP's IO
// transport calls; the streams belong to the process, so closing them does nothing.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
