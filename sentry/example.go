package sentry

import (
	"fmt"
	"math"
)

// Example is one training pair: the backbone embeddings of the two texts (u, the stored
// memory, and p, the new statement) and the target similarities of the two heads. Targets are
// in [-1, 1] (the range of a dot product of unit vectors); the usual labels are YTop = 1 for
// the same slot (the same attribute of the same entity) and 0 otherwise, and YLog = 1 when the
// two statements are consistent and 0 when they conflict.
type Example struct {
	U, P       []float32
	YTop, YLog float32
}

// Conflict reports whether the pair is "same slot and conflicting", the condition the gate
// should route to the Judge: YTop > 0.5 and YLog < 0.5.
func (e Example) Conflict() bool { return e.YTop > 0.5 && e.YLog < 0.5 }

// checkExamples verifies that every example has embeddings of length dim (the first
// example's when dim is 0) and finite values, and returns dim. what names the split in errors.
func checkExamples(what string, exs []Example, dim int) (int, error) {
	for i, ex := range exs {
		if dim == 0 {
			dim = len(ex.U)
			if dim == 0 {
				return 0, fmt.Errorf("%s example %d: empty embedding", what, i)
			}
		}
		for _, v := range []struct {
			name string
			e    []float32
		}{{"U", ex.U}, {"P", ex.P}} {
			if len(v.e) != dim {
				return 0, fmt.Errorf("%s example %d: %s has %d values, want %d", what, i, v.name, len(v.e), dim)
			}
			for j, x := range v.e {
				if !finite32(x) {
					return 0, fmt.Errorf("%s example %d: %s[%d] is %v", what, i, v.name, j, x)
				}
			}
		}
		for _, y := range []struct {
			name string
			v    float32
		}{{"YTop", ex.YTop}, {"YLog", ex.YLog}} {
			if !finite32(y.v) || y.v < -1 || y.v > 1 {
				return 0, fmt.Errorf("%s example %d: %s = %v is outside [-1, 1]", what, i, y.name, y.v)
			}
		}
	}
	return dim, nil
}

func finite32(x float32) bool {
	f := float64(x)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}
