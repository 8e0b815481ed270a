// Package cli holds the cobra command trees of the atma, sentry and judge binaries. One file
// per verb; each command that does work has an Options struct, a newCmdX(f, runF)
// constructor whose RunE parses and validates into the options and then calls runF (in
// tests) or an xRun function that does the work by calling one domain package. Tests check
// the parsed options through runF. The group commands (atma overlay, overlay keys, data,
// gpu, bench, the binaries' roots) only hold their children, and version only prints
// what the build knows, so they take no runF. Flags and environment variables are read
// only here.
//
// Exit codes: 0 ok, 1 failure, 2 usage (unknown command, bad flag, wrong arguments).
package cli
