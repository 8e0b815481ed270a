//go:build !unix

package sentry

import "os"

// lockFile does nothing where flock is unavailable: a Cache is then safe for concurrent use
// within one process, but processes must not share a cache file.
func lockFile(*os.File, bool) error { return nil }

func unlockFile(*os.File) {}
