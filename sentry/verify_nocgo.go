//go:build !cgo

package sentry

import (
	"context"
	"errors"

	"github.com/atma-dev/atma/sentry/gate"
)

// VerifyONNX runs an exported model through ONNX Runtime, which is loaded through cgo; this
// build has no cgo (CGO_ENABLED=0), so it always fails. The rest of the package — training,
// evaluation, checkpoints, the export itself — does not need cgo.
func VerifyONNX(ctx context.Context, path string, h *gate.Heads, n int, seed uint64) (float64, error) {
	return 0, errors.New("verify export: ONNX Runtime needs cgo, and this binary was built with CGO_ENABLED=0")
}
