// Command sentry is the atma sentry CLI (the same tree as `atma sentry`); see `sentry --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/atma-dev/atma/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, "sentry", os.Args[1:], cli.StdIO())
	stop()
	os.Exit(code)
}
