// Command atma is the atma umbrella CLI; see `atma --help`.
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
	code := cli.Main(ctx, "atma", os.Args[1:], cli.StdIO())
	stop()
	os.Exit(code)
}
