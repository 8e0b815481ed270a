package tinybert_test

import (
	"fmt"
	"log"

	"github.com/atma-dev/atma/internal/onnx/tinybert"
)

func Example() {
	m, err := tinybert.New(tinybert.Config{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	// Two sentences, the second right-padded to the length of the first.
	ids := [][]int64{{101, 7592, 2088, 102}, {101, 2748, 102, 0}}
	mask := [][]int64{{1, 1, 1, 1}, {1, 1, 1, 0}}
	hidden := m.Forward(ids, mask, nil)
	fmt.Println(len(hidden), "rows of", len(hidden[0]), "tokens of", len(hidden[0][0]), "values")

	model, err := m.ONNX() // the same function as an ONNX model, for ONNX Runtime
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(model) > 4*m.Config.VocabSize*m.Config.Hidden)
	// Output:
	// 2 rows of 4 tokens of 32 values
	// true
}
