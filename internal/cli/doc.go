// Package cli holds the cobra command trees of the atma, sentry and judge binaries. One file
// per verb; each command has an Options struct, a newCmdX(f, runF) constructor and an xRun
// function that does the work by calling one domain package. Flags and environment variables
// are read only here.
//
// Exit codes: 0 ok, 1 failure, 2 usage (unknown command, bad flag, wrong arguments).
package cli
