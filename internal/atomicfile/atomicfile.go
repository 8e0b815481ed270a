// Package atomicfile writes a file so that it holds either its old contents or all of the
// new: a synced temporary file in the same directory, renamed into place. It is the one
// implementation the module's writers of checkpoints, metrics, run directories, ONNX
// graphs and JSON-lines data share.
//
// It is hand-written rather than github.com/google/renameio/v2 because renameio builds on
// no Windows target, and the packages that write files here (sentry, data, grpo) build
// everywhere Go does; what renameio adds beyond this (a pending-file API, symlink swaps)
// nothing here needs.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Mode is the mode of every file written.
const Mode = 0o644

// Write writes data to path atomically.
func Write(path string, data []byte) error {
	return WriteFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc writes what write writes to path atomically; when write fails, path keeps its
// old contents and no temporary file is left. The error names path.
func WriteFunc(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(Mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
