package tinybert

import (
	"fmt"
	"math"
)

// Forward is the plain Go reference of the ONNX graph: it returns the last hidden state,
// [batch][sequence][hidden], computing in float64 from the float32 weights. Each row is
// computed on its own, so rows may differ in length. A nil attentionMask means every token is
// attended to; a nil tokenTypeIDs means type 0 everywhere.
//
// The attention mask works exactly as in the graph: maskValue is added (in float32) to the
// scores of keys whose mask is 0, so their attention weight is exactly zero and padded
// positions never affect the others. Position ids are 0…len-1, so padding belongs on the
// right. Mask values should be 0 or 1.
//
// Forward panics if a mask or token type row differs in length from its input id row, if an
// id or type is outside its vocabulary, or if a row is longer than MaxPositions.
func (m *Model) Forward(inputIDs, attentionMask, tokenTypeIDs [][]int64) [][][]float32 {
	if attentionMask != nil && len(attentionMask) != len(inputIDs) {
		panic(fmt.Sprintf("tinybert: %d attention mask rows for %d input rows", len(attentionMask), len(inputIDs)))
	}
	if tokenTypeIDs != nil && len(tokenTypeIDs) != len(inputIDs) {
		panic(fmt.Sprintf("tinybert: %d token type rows for %d input rows", len(tokenTypeIDs), len(inputIDs)))
	}
	out := make([][][]float32, len(inputIDs))
	for b, ids := range inputIDs {
		var mask, types []int64
		if attentionMask != nil {
			mask = attentionMask[b]
		}
		if tokenTypeIDs != nil {
			types = tokenTypeIDs[b]
		}
		out[b] = m.forwardRow(ids, mask, types)
	}
	return out
}

func (m *Model) forwardRow(ids, mask, types []int64) [][]float32 {
	c := m.Config
	n, h := len(ids), c.Hidden
	if mask != nil && len(mask) != n || types != nil && len(types) != n {
		panic(fmt.Sprintf("tinybert: row of %d ids has %d mask and %d type values", n, len(mask), len(types)))
	}
	if n > c.MaxPositions {
		panic(fmt.Sprintf("tinybert: row of %d tokens exceeds %d positions", n, c.MaxPositions))
	}
	x := make([][]float64, n)
	for i, id := range ids {
		var tt int64
		if types != nil {
			tt = types[i]
		}
		if id < 0 || id >= int64(c.VocabSize) || tt < 0 || tt >= int64(c.TypeVocab) {
			panic(fmt.Sprintf("tinybert: token %d: id %d or type %d out of range", i, id, tt))
		}
		row := make([]float64, h)
		for j := range row {
			row[j] = float64(m.WordEmbeddings[int(id)*h+j]) + float64(m.TypeEmbeddings[int(tt)*h+j]) + float64(m.PositionEmbeddings[i*h+j])
		}
		x[i] = row
	}
	x = layerNorm(x, m.EmbeddingNorm, c.LayerNormEps)

	// The additive mask, computed in float32 as the graph does.
	maskAdd := make([]float32, n)
	for j := range maskAdd {
		mj := float32(1)
		if mask != nil {
			mj = float32(mask[j])
		}
		maskAdd[j] = (1 - mj) * maskValue
	}

	heads, dh := c.Heads, h/c.Heads
	scale := math.Sqrt(float64(dh))
	for _, l := range m.Layers {
		q, k, v := linear(x, l.Query), linear(x, l.Key), linear(x, l.Value)
		ctx := make([][]float64, n)
		for i := range ctx {
			ctx[i] = make([]float64, h)
		}
		scores := make([]float64, n)
		for hd := range heads {
			off := hd * dh
			for i := range n {
				for j := range n {
					var s float64
					for d := range dh {
						s += q[i][off+d] * k[j][off+d]
					}
					s /= scale
					if maskAdd[j] != 0 {
						s = float64(float32(s) + maskAdd[j])
					}
					scores[j] = s
				}
				softmax(scores)
				for j, p := range scores {
					for d := range dh {
						ctx[i][off+d] += p * v[j][off+d]
					}
				}
			}
		}
		x1 := layerNorm(add(linear(ctx, l.AttentionOutput), x), l.AttentionNorm, c.LayerNormEps)
		inter := linear(x1, l.Intermediate)
		for _, row := range inter {
			for j, u := range row {
				row[j] = u * 0.5 * (1 + math.Erf(u/math.Sqrt2))
			}
		}
		x = layerNorm(add(linear(inter, l.Output), x1), l.OutputNorm, c.LayerNormEps)
	}
	out := make([][]float32, n)
	for i, row := range x {
		out[i] = make([]float32, h)
		for j, v := range row {
			out[i][j] = float32(v)
		}
	}
	return out
}

func linear(x [][]float64, l Linear) [][]float64 {
	out := make([][]float64, len(x))
	for r, row := range x {
		y := make([]float64, l.Out)
		for o := range y {
			y[o] = float64(l.Bias[o])
		}
		for i, xi := range row {
			w := l.Weight[i*l.Out : (i+1)*l.Out]
			for o, wo := range w {
				y[o] += xi * float64(wo)
			}
		}
		out[r] = y
	}
	return out
}

// add returns a + b element-wise, reusing a.
func add(a, b [][]float64) [][]float64 {
	for i := range a {
		for j := range a[i] {
			a[i][j] += b[i][j]
		}
	}
	return a
}

func layerNorm(x [][]float64, n LayerNorm, eps float32) [][]float64 {
	out := make([][]float64, len(x))
	for r, row := range x {
		var mean, variance float64
		for _, v := range row {
			mean += v
		}
		mean /= float64(len(row))
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(len(row))
		inv := 1 / math.Sqrt(variance+float64(eps))
		y := make([]float64, len(row))
		for j, v := range row {
			y[j] = (v-mean)*inv*float64(n.Gamma[j]) + float64(n.Beta[j])
		}
		out[r] = y
	}
	return out
}

// softmax replaces s by its softmax.
func softmax(s []float64) {
	mx := math.Inf(-1)
	for _, v := range s {
		mx = max(mx, v)
	}
	var sum float64
	for i, v := range s {
		s[i] = math.Exp(v - mx)
		sum += s[i]
	}
	for i := range s {
		s[i] /= sum
	}
}
