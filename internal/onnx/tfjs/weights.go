package tfjs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// ErrShardSize reports a weight file whose size does not match the weights manifest: a
// truncated download, a corrupt file or a manifest from another version of the model.
var ErrShardSize = errors.New("weight shard size does not match the manifest")

// storedElemSize is the number of bytes one element of w occupies in the shard files (0 for
// strings, whose size varies).
func storedElemSize(w weightSpec) (int, error) {
	if q := w.Quantization; q != nil {
		switch q.DType {
		case "uint8":
			if q.Scale == nil || q.Min == nil {
				return 0, fmt.Errorf("uint8 quantization needs scale and min")
			}
			if w.DType != "float32" && w.DType != "int32" {
				return 0, fmt.Errorf("uint8 quantization of a %s weight is not supported", w.DType)
			}
			return 1, nil
		case "uint16":
			if q.Scale == nil || q.Min == nil {
				return 0, fmt.Errorf("uint16 quantization needs scale and min")
			}
			if w.DType != "float32" && w.DType != "int32" {
				return 0, fmt.Errorf("uint16 quantization of a %s weight is not supported", w.DType)
			}
			return 2, nil
		case "float16":
			if w.DType != "float32" {
				return 0, fmt.Errorf("float16 quantization of a %s weight is not supported", w.DType)
			}
			return 2, nil
		}
		return 0, fmt.Errorf("unknown quantization dtype %q", q.DType)
	}
	switch w.DType {
	case "float32", "int32":
		return 4, nil
	case "bool":
		return 1, nil
	case "string":
		return 0, nil
	}
	return 0, fmt.Errorf("unsupported weight dtype %q (want float32, int32, bool or string)", w.DType)
}

// weightPath resolves a manifest path against dir, refusing paths that leave it.
func weightPath(dir, p string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(p, "\\", "/"))
	if p == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("weight path %q is not inside the model directory", p)
	}
	return filepath.Join(dir, filepath.FromSlash(clean)), nil
}

// loadWeights reads every group of the manifest from dir and decodes its weights by name.
func loadWeights(dir string, groups []weightGroup) (map[string]*tensor, error) {
	out := map[string]*tensor{}
	for gi, g := range groups {
		if len(g.Paths) == 0 {
			continue
		}
		files := make([]string, len(g.Paths))
		sizes := make([]int64, len(g.Paths))
		for i, p := range g.Paths {
			f, err := weightPath(dir, p)
			if err != nil {
				return nil, fmt.Errorf("weights group %d: %w", gi+1, err)
			}
			st, err := os.Stat(f)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("weights group %d: shard %s is missing: %w; re-fetch the model files", gi+1, f, err)
				}
				return nil, fmt.Errorf("weights group %d: %w", gi+1, err)
			}
			files[i], sizes[i] = f, st.Size()
		}
		need, fixed, err := groupBytes(g)
		if err != nil {
			return nil, fmt.Errorf("weights group %d: %w", gi+1, err)
		}
		if fixed {
			if err := checkShardSizes(files, sizes, need); err != nil {
				return nil, fmt.Errorf("weights group %d: %w", gi+1, err)
			}
		}
		buf := make([]byte, 0, sum(sizes))
		for i, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("weights group %d: read shard: %w", gi+1, err)
			}
			if int64(len(b)) != sizes[i] {
				return nil, fmt.Errorf("weights group %d: shard %s changed size while it was read", gi+1, f)
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, w := range g.Weights {
			t, n, err := decodeWeight(w, buf[off:])
			if err != nil {
				return nil, fmt.Errorf("weights group %d (%s): weight %q: %w", gi+1, strings.Join(g.Paths, ", "), w.Name, err)
			}
			out[w.Name] = t
			off += n
		}
		if off != len(buf) {
			return nil, fmt.Errorf("weights group %d: %w: the shards hold %d bytes but the manifest uses %d; the files do not belong to this model.json", gi+1, ErrShardSize, len(buf), off)
		}
	}
	return out, nil
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

// groupBytes is the number of bytes the group's weights occupy; fixed is false when a string
// weight makes the size data-dependent.
func groupBytes(g weightGroup) (int64, bool, error) {
	var total int64
	for _, w := range g.Weights {
		sz, err := storedElemSize(w)
		if err != nil {
			return 0, false, fmt.Errorf("weight %q: %w", w.Name, err)
		}
		if sz == 0 {
			return 0, false, nil
		}
		n, err := numElements(w.Shape)
		if err != nil {
			return 0, false, fmt.Errorf("weight %q: %w", w.Name, err)
		}
		total += n * int64(sz)
	}
	return total, true, nil
}

// checkShardSizes compares the shard files with the size the manifest needs. The manifest
// does not record each shard's size, but the TF.js writer cuts shards of one fixed size with
// a shorter last one, so the expected size of every shard follows from the largest of the
// non-final shards (a damaged shard is shorter, not longer). When the files do not fit that
// layout at all, the error reports the group's totals instead of blaming one file.
func checkShardSizes(files []string, sizes []int64, need int64) error {
	n := len(files)
	have := sum(sizes)
	if n == 1 {
		if have != need {
			return fmt.Errorf("%w: %s has %d bytes, expected %d; the file is truncated or corrupt: re-fetch the model files", ErrShardSize, files[0], have, need)
		}
		return nil
	}
	var shard int64
	for _, s := range sizes[:n-1] {
		shard = max(shard, s)
	}
	last := need - int64(n-1)*shard
	if shard > 0 && last > 0 && last <= shard {
		for i, s := range sizes {
			want := shard
			if i == n-1 {
				want = last
			}
			if s != want {
				return fmt.Errorf("%w: %s has %d bytes, expected %d (the manifest needs %d bytes in %d shards); the file is truncated or corrupt: re-fetch the model files", ErrShardSize, files[i], s, want, need, n)
			}
		}
		return nil
	}
	if have != need {
		return fmt.Errorf("%w: the %d shards (%s … %s) hold %d bytes, the manifest needs %d; a file is truncated or corrupt: re-fetch the model files", ErrShardSize, n, files[0], files[n-1], have, need)
	}
	return nil
}

// decodeWeight decodes one weight from the start of b and returns it with the number of bytes
// it used.
func decodeWeight(w weightSpec, b []byte) (*tensor, int, error) {
	n64, err := numElements(w.Shape)
	if err != nil {
		return nil, 0, err
	}
	sz, err := storedElemSize(w)
	if err != nil {
		return nil, 0, err
	}
	if sz == 0 { // string: each element is a uint32 length and its bytes
		off := 0
		for range n64 {
			if len(b)-off < 4 {
				return nil, 0, fmt.Errorf("%w: string data runs past the end of the shards", ErrShardSize)
			}
			l := int(binary.LittleEndian.Uint32(b[off:]))
			if l > len(b)-off-4 {
				return nil, 0, fmt.Errorf("%w: string data runs past the end of the shards", ErrShardSize)
			}
			off += 4 + l
		}
		return &tensor{dtype: graph.String, shape: w.Shape}, off, nil
	}
	if n64*int64(sz) > int64(len(b)) {
		return nil, 0, fmt.Errorf("%w: needs %d bytes, only %d left in the shards", ErrShardSize, n64*int64(sz), len(b))
	}
	n := int(n64)
	data := b[:n*sz]
	shape := append([]int64{}, w.Shape...)
	if q := w.Quantization; q != nil {
		vals := make([]float64, n)
		for i := range vals {
			switch q.DType {
			case "uint8":
				vals[i] = float64(data[i])**q.Scale + *q.Min
			case "uint16":
				vals[i] = float64(binary.LittleEndian.Uint16(data[2*i:]))**q.Scale + *q.Min
			case "float16":
				vals[i] = float64(float16ToFloat32(binary.LittleEndian.Uint16(data[2*i:])))
			}
		}
		if w.DType == "int32" {
			iv := make([]int64, n)
			for i, v := range vals {
				iv[i] = int64(math.Floor(v + 0.5)) // JavaScript's Math.round: halves go up
			}
			return intTensor(graph.Int32, shape, iv), n * sz, nil
		}
		return floatTensor(graph.Float32, shape, vals), n * sz, nil
	}
	raw := append([]byte(nil), data...)
	switch w.DType {
	case "float32":
		return &tensor{dtype: graph.Float32, shape: shape, raw: raw}, n * sz, nil
	case "int32":
		return &tensor{dtype: graph.Int32, shape: shape, raw: raw}, n * sz, nil
	default: // bool
		for i := range raw {
			if raw[i] != 0 {
				raw[i] = 1
			}
		}
		return &tensor{dtype: graph.Bool, shape: shape, raw: raw}, n * sz, nil
	}
}
