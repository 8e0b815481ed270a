// Package tfjs converts TensorFlow.js graph models to ONNX, in Go, so that models published
// for TF.js (notably the Universal Sentence Encoder lite, atma's embedded default encoder)
// run offline in ONNX Runtime.
//
//	m, err := tfjs.Load(dir)                        // model.json + weight shards
//	onnxBytes, err := m.Convert(tfjs.Options{Dense: true})
//
// A Model is immutable after Load; Load, Convert and the accessors are safe for concurrent
// use.
//
// # The TF.js graph-model format
//
// A graph model is a directory holding model.json and binary weight shards. model.json has:
//
//   - modelTopology.node[]: a TF GraphDef in protobuf JSON form. Each node has a name, an op,
//     inputs ("name" for output 0, "name:k" for output k, "^name" for a control dependency,
//     which carries no data and is dropped) and attr, a map of TF AttrValues: i (int64, as a
//     number or a string), f, b, s (bytes: base64 text, or an array of byte values as in the USE
//     lite model), type (a DataType number or name such as "DT_FLOAT"), shape, list and
//     tensor. A Const normally has only its dtype and shape inline; its values are in the
//     shards. Inline values (tensorContent, floatVal, intVal, int64Val, boolVal; a short list
//     repeats its last element, as in TF) are accepted too, up to 4M elements.
//   - weightsManifest[]: groups, each with paths (shard files, relative to the directory) and
//     weights (name, shape, dtype float32 | int32 | bool | string, and an optional
//     quantization: uint8 or uint16 with scale and min, dequantized as q·scale + min and, for
//     int32 weights, rounded as JavaScript's Math.round does; or float16). The shards of a
//     group are concatenated in order and the weights read from the result back to back.
//   - signature (optional): its outputs name the default output.
//
// Load checks every shard against the manifest. The manifest does not record shard sizes,
// but the TF.js writer cuts fixed-size shards with a shorter last one, so a truncated,
// padded or missing shard is reported by file name with the expected and actual byte counts
// (wrapping ErrShardSize). Paths that leave the model directory are refused.
//
// Types come from the graph, not the manifest: TF.js stores int64 tensors as int32 (JavaScript
// has no int64), so a Const declared DT_INT64 whose weight is int32 becomes an INT64
// initializer. The USE lite graph is int64 throughout its index arithmetic; its Placeholders
// indices and values are DT_INT64, although TF.js feeds them as int32.
//
// # Conversion
//
// Convert takes the nodes the chosen output depends on, in dependency order, and maps each
// to ONNX operators at the chosen opset (MinOpset to MaxOpset, default DefaultOpset).
// Placeholders become graph inputs with their declared type and shape; constants become
// initializers when a node reads them as data, or attributes and folded INT64 initializers
// when ONNX wants axes, shapes or permutations. ONNX requires INT64 for shapes, axes and
// GatherND/ScatterND indices, so INT32 tensors in those places are cast (constants are
// converted at conversion time). The converter tracks ranks and static dimensions where it
// can; the graph output is declared with them (the USE lite output is FLOAT [?, 512]).
// ONNX Runtime folds the remaining shape-only subgraphs (the Tensordot and split_heads shape
// arithmetic of the USE lite model depends on the batch and sequence sizes, so it is not
// folded here).
//
// Op mapping (TF → ONNX), with the points where the semantics differ and how they are kept:
//
//	Placeholder          graph input
//	Const                initializer (from the shards, or inline)
//	Identity             pass-through (control inputs dropped)
//	Add AddV2 Sub Mul    Add Sub Mul (NumPy broadcasting in both)
//	RealDiv              Div (float types only, as in TF)
//	Maximum Minimum Pow  Max Min Pow
//	Less LessEqual Greater GreaterEqual Equal
//	                     Less LessOrEqual Greater GreaterOrEqual Equal
//	LogicalAnd LogicalOr LogicalNot
//	                     And Or Not
//	Relu Tanh Sigmoid Sin Cos Sqrt Exp Log Neg Abs Floor Ceil Reciprocal
//	                     the ONNX op of the same name
//	Square               Mul(x, x)
//	Rsqrt                Reciprocal(Sqrt(x))
//	Relu6                Clip(x, 0, 6)
//	Softmax LogSoftmax   Softmax LogSoftmax over axis -1 (TF's last-axis rule)
//	Select SelectV2      Where (Select's rank-1 condition is reshaped to pick rows)
//	BiasAdd              Add; NCHW reshapes the bias to [C, 1, …]
//	Cast                 Cast (Truncate=true to a narrower float is rejected)
//	Shape                Shape, then Cast to out_type (TF's default is int32)
//	Reshape              Reshape with allowzero=1 (a 0 in a TF shape is a zero-sized dim,
//	                     while ONNX's default copies the input dim)
//	ExpandDims           Unsqueeze
//	Squeeze              Squeeze (no dims: every size-1 axis, in both)
//	Pack                 Unsqueeze each input + Concat
//	ConcatV2             Concat (axis from the last input)
//	Transpose            Transpose (constant perm)
//	StridedSlice         Slice + Squeeze (shrink_axis_mask) + Unsqueeze (new_axis_mask),
//	                     with begin_mask, end_mask and ellipsis_mask (explicit or TF's
//	                     implicit trailing one) resolved at conversion time; masked bounds
//	                     become ±2^63 so ONNX clamps them as TF does, and the one case where
//	                     the clamping rules differ (a negative stride whose begin lies before
//	                     the first element, which TF makes empty) is fixed statically or
//	                     with a run-time guard on the end
//	Slice                Slice (size -1 → to the end; a computed size uses a run-time Where)
//	SplitV Split         Split (a -1 size is resolved statically or at run time)
//	Range Fill           Range; Expand
//	GatherV2 Gather      Gather; batch_dims > 0 → GatherND(batch_dims) on indices[..., None],
//	                     with transposes when axis > batch_dims
//	GatherNd             GatherND
//	ScatterNd            ScatterND(reduction="add") into ConstantOfShape zeros: TF sums
//	                     duplicate indices
//	SparseToDense        ScatterND into Expand(default_value, output_shape); scalar values are
//	                     expanded, 0-D and 1-D indices reshaped
//	Where (one input)    NonZero + Transpose: the [count, rank] int64 coordinates in row-major
//	                     order
//	Sum Mean Max Min Prod
//	                     ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd with keep_dims;
//	                     axes as an input at opset 18+ (ReduceSum always), as an attribute
//	                     before. Empty constant axes are the identity (ONNX would reduce
//	                     everything); run-time axes set noop_with_empty_axes. An integer Mean
//	                     is ReduceSum / count, truncating like TF
//	MatMul               MatMul; transpose_a/b transpose a constant at conversion time, else
//	                     insert a Transpose
//	BatchMatMul BatchMatMulV2
//	                     MatMul with the last two axes transposed for adj_x/adj_y
//	Conv2D               NHWC (default) or NCHW; HWIO filter to OIHW; strides, dilations,
//	                     VALID/SAME/EXPLICIT padding, groups. A 1×1 unit-stride NHWC
//	                     convolution with a constant filter (the USE lite projections) is a
//	                     MatMul over the channel axis, without transposes. SAME padding is
//	                     written as explicit pads ((k−1)·d for unit strides, or from a static
//	                     size); only a strided SAME convolution of unknown size uses auto_pad
//
// Any other op is an error that wraps ErrUnsupportedOp and names every unsupported op with a
// node that uses it. SupportedOps lists the ops above. The USE lite model uses 42 op types,
// all of them covered.
//
// # Dense or sparse inputs
//
// The USE lite graph takes a sparse batch: indices [N, 2] (row, position) and values [N]
// (token ids). It drops positions >= 128 (ClipToMaxLength), scatters the ids into a dense
// [batch, max_len] matrix with SparseToDense (default -1) and derives its padding mask from
// that matrix (Greater than -1). Options.Dense gives the ONNX model the usual inputs instead,
// input_ids and attention_mask (INT64 [batch, sequence], token ids left-aligned, mask 1 on
// tokens and 0 on padding), and rebuilds the sparse pair inside the graph:
// indices = Transpose(NonZero(attention_mask)), values = GatherND(input_ids, indices). NonZero
// lists coordinates in row-major order, which is exactly the order TF.js's own encoder builds
// the sparse inputs in, so the rest of the graph sees identical tensors and the outputs are
// identical to the sparse path (the tests check this bit for bit, and check both paths
// against TF.js). That is why Dense is offered and recommended: it is exact, and the Encoder
// does not have to build coordinate lists. Ids may be padded to any width; positions past 127
// are dropped by the graph either way, so truncating ids to 128 first changes nothing.
//
// One property of the graph carries over unchanged: the batch size it returns is the last row
// that holds a token, plus one. A row without tokens (an empty text) inside the batch yields
// the graph's all-padding vector, but trailing rows without tokens are dropped, and a batch
// without any token returns [0, 512]. Callers must keep the last row of a batch non-empty
// (for example by placing texts without tokens first). Without Options.Dense, the model keeps
// the graph's own INT64 inputs indices [N, 2] and values [N].
//
// # Limits
//
//   - Control flow (Switch, Merge, loops) and functions are not supported; a cycle is an
//     error.
//   - StridedSlice begin/end/strides, Transpose perms, ExpandDims dims, Concat/Split axes and
//     reduction axes below opset 18 must be constants (they are in TF.js exports); an
//     ellipsis, adj_x/adj_y and NCHW BiasAdd need a known rank.
//   - Invalid inputs that TF rejects at run time are not all rejected by ONNX Runtime: ONNX
//     Gather accepts negative indices, SparseToDense's validate_indices (sorted, unique) is
//     not checked, and a duplicate SparseToDense index is undefined in ONNX.
//   - A grouped Conv2D needs the input's channel count statically.
//   - String tensors, complex types and resource variables are not supported.
//   - Models must fit ONNX's 2 GiB protobuf limit (no external data).
package tfjs
