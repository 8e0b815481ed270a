package tfjs

import (
	"fmt"

	"github.com/atma-dev/atma/internal/onnx/graph"
)

// handler converts one TF op. inputs is the exact number of data inputs it takes, or -1 when
// the count varies and fn checks it.
type handler struct {
	inputs int
	fn     func(c *converter, n *node, in []*value) ([]*value, error)
}

// handlers maps each supported TF op to its conversion. Placeholder nodes are declared as
// graph inputs before conversion starts and never reach a handler.
var handlers = map[string]handler{
	"Const":    {0, convConst},
	"Identity": {1, passThrough},

	// element-wise, one input
	"Relu":       {1, unary("Relu")},
	"Tanh":       {1, unary("Tanh")},
	"Sigmoid":    {1, unary("Sigmoid")},
	"Sin":        {1, unary("Sin")},
	"Cos":        {1, unary("Cos")},
	"Sqrt":       {1, unary("Sqrt")},
	"Exp":        {1, unary("Exp")},
	"Log":        {1, unary("Log")},
	"Neg":        {1, unary("Neg")},
	"Abs":        {1, unary("Abs")},
	"Floor":      {1, unary("Floor")},
	"Ceil":       {1, unary("Ceil")},
	"Reciprocal": {1, unary("Reciprocal")},
	"LogicalNot": {1, unary("Not")},
	"Square":     {1, convSquare},
	"Rsqrt":      {1, convRsqrt},
	"Softmax":    {1, convSoftmax("Softmax")},
	"LogSoftmax": {1, convSoftmax("LogSoftmax")},
	"Relu6":      {1, convRelu6},

	// element-wise, two inputs, with broadcasting
	"Add":          {2, binop("Add", false)},
	"AddV2":        {2, binop("Add", false)},
	"Sub":          {2, binop("Sub", false)},
	"Mul":          {2, binop("Mul", false)},
	"RealDiv":      {2, convRealDiv},
	"Maximum":      {2, binop("Max", false)},
	"Minimum":      {2, binop("Min", false)},
	"Pow":          {2, binop("Pow", false)},
	"Less":         {2, binop("Less", true)},
	"LessEqual":    {2, binop("LessOrEqual", true)},
	"Greater":      {2, binop("Greater", true)},
	"GreaterEqual": {2, binop("GreaterOrEqual", true)},
	"Equal":        {2, binop("Equal", true)},
	"LogicalAnd":   {2, binop("And", true)},
	"LogicalOr":    {2, binop("Or", true)},
	"SelectV2":     {3, convSelect(true)},
	"Select":       {3, convSelect(false)},
	"BiasAdd":      {2, convBiasAdd},
	"Cast":         {1, convCast},

	// shapes and layout
	"Shape":        {1, convShape},
	"Reshape":      {2, convReshape},
	"ExpandDims":   {2, convExpandDims},
	"Squeeze":      {1, convSqueeze},
	"Pack":         {-1, convPack},
	"ConcatV2":     {-1, convConcatV2},
	"Transpose":    {2, convTranspose},
	"StridedSlice": {4, convStridedSlice},
	"Slice":        {3, convSlice},
	"SplitV":       {3, convSplitV},
	"Split":        {2, convSplit},
	"Range":        {3, convRange},
	"Fill":         {2, convFill},

	// gathers and scatters
	"GatherV2":      {3, convGatherV2},
	"Gather":        {2, convGather},
	"GatherNd":      {2, convGatherNd},
	"ScatterNd":     {3, convScatterNd},
	"SparseToDense": {4, convSparseToDense},
	"Where":         {1, convWhere},

	// reductions
	"Sum":  {2, reduce("ReduceSum")},
	"Mean": {2, reduce("ReduceMean")},
	"Max":  {2, reduce("ReduceMax")},
	"Min":  {2, reduce("ReduceMin")},
	"Prod": {2, reduce("ReduceProd")},

	// linear algebra
	"MatMul":        {2, convMatMul},
	"BatchMatMul":   {2, convBatchMatMul},
	"BatchMatMulV2": {2, convBatchMatMul},
	"Conv2D":        {2, convConv2D},
}

func passThrough(c *converter, n *node, in []*value) ([]*value, error) {
	return []*value{in[0]}, nil
}

// convConst turns a Const into a constant value: from the weights manifest (TF.js's place for
// every Const) or else from an inline tensor attribute. The node's declared dtype wins over
// the stored one: TF.js stores int64 constants as int32.
func convConst(c *converter, n *node, in []*value) ([]*value, error) {
	dtAttr, ok, err := n.attrType("dtype")
	if err != nil {
		return nil, err
	}
	a, hasValue := n.attr["value"]
	if !ok && hasValue && a.Tensor != nil {
		dtAttr, ok = int32(a.Tensor.DType), true
	}
	if !ok {
		return nil, fmt.Errorf("no dtype attribute")
	}
	dt, err := onnxType(dtAttr)
	if err != nil {
		return nil, err
	}
	t := c.m.weights[n.name]
	if t == nil {
		if !hasValue || a.Tensor == nil {
			return nil, fmt.Errorf("constant has no entry in the weights manifest and no inline value; the model files are incomplete")
		}
		t, err = inlineTensor(a.Tensor, dt)
		if err != nil {
			return nil, err
		}
	} else if hasValue && a.Tensor != nil {
		if want, known := a.Tensor.TensorShape.dims(); known && !sameShape(want, t.shape) {
			return nil, fmt.Errorf("weight shape %v differs from the node's declared shape %v", t.shape, want)
		}
	}
	if t.dtype == graph.String {
		return nil, fmt.Errorf("string constants are not supported")
	}
	t, err = t.castTo(dt)
	if err != nil {
		return nil, err
	}
	return []*value{{base: n.name, dtype: dt, shape: t.shape, ranked: true, konst: t}}, nil
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i] >= 0 {
			return false
		}
	}
	return true
}

// maxInlineElements bounds inline constants, which real models keep small (TF.js puts the
// values of every Const in the weight files).
const maxInlineElements = 1 << 22

// inlineTensor decodes a TensorProto attribute. As in TF, a list of values shorter than the
// shape repeats its last element (an empty list means zeros).
func inlineTensor(tj *tensorJSON, dt graph.DType) (*tensor, error) {
	shape, known := tj.TensorShape.dims()
	if !known {
		return nil, fmt.Errorf("inline tensor has no shape")
	}
	n, err := numElements(shape)
	if err != nil {
		return nil, err
	}
	if n > maxInlineElements {
		return nil, fmt.Errorf("inline tensor of shape %v is too large", shape)
	}
	if tj.TensorContent != nil && len(*tj.TensorContent) > 0 {
		raw := []byte(*tj.TensorContent)
		if sz := dt.Size(); sz == 0 || int64(len(raw)) != n*int64(sz) {
			return nil, fmt.Errorf("inline tensor content has %d bytes, shape %v of %v needs %d", len(raw), shape, dt, n*int64(dt.Size()))
		}
		return &tensor{dtype: dt, shape: shape, raw: append([]byte(nil), raw...)}, nil
	}
	if isFloat(dt) {
		src := tj.FloatVal
		if dt == graph.Float64 {
			src = tj.DoubleVal
		} else if dt != graph.Float32 {
			return nil, fmt.Errorf("inline %v values are not supported; use tensorContent", dt)
		}
		vals := make([]float64, n)
		for i := range vals {
			if len(src) > 0 {
				vals[i] = float64(src[min(i, len(src)-1)])
			}
		}
		return floatTensor(dt, shape, vals), nil
	}
	var src []int64
	switch {
	case dt == graph.Bool:
		for _, b := range tj.BoolVal {
			if b {
				src = append(src, 1)
			} else {
				src = append(src, 0)
			}
		}
	case dt == graph.Int64 || dt == graph.Uint64:
		for _, v := range tj.Int64Val {
			src = append(src, int64(v))
		}
	case isInt(dt):
		for _, v := range tj.IntVal {
			src = append(src, int64(v))
		}
	default:
		return nil, fmt.Errorf("inline %v values are not supported", dt)
	}
	vals := make([]int64, n)
	for i := range vals {
		if len(src) > 0 {
			vals[i] = src[min(int64(i), int64(len(src)-1))]
		}
	}
	return intTensor(dt, shape, vals), nil
}

func unary(op string) func(*converter, *node, []*value) ([]*value, error) {
	return func(c *converter, n *node, in []*value) ([]*value, error) {
		x := in[0]
		if op == "Not" && x.dtype != graph.Bool {
			return nil, fmt.Errorf("LogicalNot of %v; want BOOL", x.dtype)
		}
		return []*value{like(c.op(op, []string{c.ref(x)}), x)}, nil
	}
}

// convSquare is x*x, which is exactly TF's Square.
func convSquare(c *converter, n *node, in []*value) ([]*value, error) {
	x := c.ref(in[0])
	return []*value{like(c.op("Mul", []string{x, x}), in[0])}, nil
}

// convRsqrt is 1/sqrt(x); ONNX has no fused reciprocal square root.
func convRsqrt(c *converter, n *node, in []*value) ([]*value, error) {
	if !isFloat(in[0].dtype) {
		return nil, fmt.Errorf("Rsqrt of %v; want a float type", in[0].dtype)
	}
	s := c.op("Sqrt", []string{c.ref(in[0])})
	return []*value{like(c.op("Reciprocal", []string{s}), in[0])}, nil
}

// convSoftmax normalises over the last axis, as TF does for any rank (ONNX opset 13 and
// later take a single axis too).
func convSoftmax(op string) func(*converter, *node, []*value) ([]*value, error) {
	return func(c *converter, n *node, in []*value) ([]*value, error) {
		return []*value{like(c.op(op, []string{c.ref(in[0])}, graph.AttrInt("axis", -1)), in[0])}, nil
	}
}

func convRelu6(c *converter, n *node, in []*value) ([]*value, error) {
	x := in[0]
	if x.dtype != graph.Float32 && x.dtype != graph.Float64 {
		return nil, fmt.Errorf("Relu6 of %v; want FLOAT or DOUBLE", x.dtype)
	}
	return []*value{like(c.op("Clip", []string{c.ref(x), c.scalarOf(x.dtype, 0), c.scalarOf(x.dtype, 6)}), x)}, nil
}

// broadcast is the NumPy broadcast of two static shapes, with -1 for dims unknown here.
func broadcast(a, b *value) ([]int64, bool, error) {
	if !a.ranked || !b.ranked {
		return nil, false, nil
	}
	r := max(len(a.shape), len(b.shape))
	outShape := make([]int64, r)
	for i := range r {
		da, db := int64(1), int64(1)
		if j := i - (r - len(a.shape)); j >= 0 {
			da = a.shape[j]
		}
		if j := i - (r - len(b.shape)); j >= 0 {
			db = b.shape[j]
		}
		switch {
		case da == db:
			outShape[i] = da
		case da == 1:
			outShape[i] = db
		case db == 1:
			outShape[i] = da
		case da == -1:
			outShape[i] = db
		case db == -1:
			outShape[i] = da
		default:
			return nil, false, fmt.Errorf("shapes %v and %v do not broadcast", a.shape, b.shape)
		}
	}
	return outShape, true, nil
}

func binop(op string, boolOut bool) func(*converter, *node, []*value) ([]*value, error) {
	return func(c *converter, n *node, in []*value) ([]*value, error) {
		a, b := in[0], in[1]
		if a.dtype != b.dtype {
			return nil, fmt.Errorf("operands have types %v and %v; TF requires equal types", a.dtype, b.dtype)
		}
		if (op == "And" || op == "Or") && a.dtype != graph.Bool {
			return nil, fmt.Errorf("logical op on %v; want BOOL", a.dtype)
		}
		shape, ranked, err := broadcast(a, b)
		if err != nil {
			return nil, err
		}
		dt := a.dtype
		if boolOut {
			dt = graph.Bool
		}
		return []*value{out(c.op(op, []string{c.ref(a), c.ref(b)}), dt, shape, ranked)}, nil
	}
}

// convRealDiv is float division; TF defines RealDiv for float types only (integer division
// is a different op with different rounding).
func convRealDiv(c *converter, n *node, in []*value) ([]*value, error) {
	if !isFloat(in[0].dtype) {
		return nil, fmt.Errorf("RealDiv of %v; want a float type", in[0].dtype)
	}
	return binop("Div", false)(c, n, in)
}

// convSelect is SelectV2 (broadcasting, like ONNX Where) or Select, whose rank-1 condition
// picks whole rows of higher-rank operands.
func convSelect(v2 bool) func(*converter, *node, []*value) ([]*value, error) {
	return func(c *converter, n *node, in []*value) ([]*value, error) {
		cond, x, y := in[0], in[1], in[2]
		if cond.dtype != graph.Bool {
			return nil, fmt.Errorf("condition is %v; want BOOL", cond.dtype)
		}
		if x.dtype != y.dtype {
			return nil, fmt.Errorf("operands have types %v and %v", x.dtype, y.dtype)
		}
		cn := c.ref(cond)
		if !v2 {
			if cond.rank() < 0 || x.rank() < 0 {
				return nil, fmt.Errorf("Select needs known ranks")
			}
			if cond.rank() == 1 && x.rank() > 1 {
				shape := make([]int64, x.rank())
				shape[0] = -1
				for i := 1; i < len(shape); i++ {
					shape[i] = 1
				}
				cn = c.op("Reshape", []string{cn, c.g.Int64s(shape...)})
			}
		}
		shape, ranked, err := broadcast(x, y)
		if err == nil && v2 {
			shape, ranked, err = broadcast(cond, &value{shape: shape, ranked: ranked})
		}
		if err != nil {
			return nil, err
		}
		return []*value{out(c.op("Where", []string{cn, c.ref(x), c.ref(y)}), x.dtype, shape, ranked)}, nil
	}
}

// convBiasAdd adds a 1-D bias along the channel axis: the last one for NHWC (the default),
// axis 1 for NCHW.
func convBiasAdd(c *converter, n *node, in []*value) ([]*value, error) {
	x, b := in[0], in[1]
	format, err := n.attrString("data_format", "NHWC")
	if err != nil {
		return nil, err
	}
	if x.dtype != b.dtype {
		return nil, fmt.Errorf("value is %v but bias is %v", x.dtype, b.dtype)
	}
	if b.ranked && len(b.shape) != 1 {
		return nil, fmt.Errorf("bias must be 1-D, has shape %v", b.shape)
	}
	bias := c.ref(b)
	switch format {
	case "NHWC", "":
	case "NCHW":
		r := x.rank()
		if r < 0 {
			return nil, fmt.Errorf("NCHW BiasAdd needs the input's rank")
		}
		if r < 2 {
			return nil, fmt.Errorf("NCHW BiasAdd needs rank >= 2, have %d", r)
		}
		shape := make([]int64, r-1)
		shape[0] = -1
		for i := 1; i < len(shape); i++ {
			shape[i] = 1
		}
		bias = c.op("Reshape", []string{bias, c.g.Int64s(shape...)})
	default:
		return nil, fmt.Errorf("data_format %q is not supported", format)
	}
	return []*value{like(c.op("Add", []string{c.ref(x), bias}), x)}, nil
}

func convCast(c *converter, n *node, in []*value) ([]*value, error) {
	t, ok, err := n.attrType("DstT")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no DstT attribute")
	}
	dt, err := onnxType(t)
	if err != nil {
		return nil, err
	}
	x := in[0]
	if dt == x.dtype {
		return []*value{x}, nil
	}
	trunc, err := n.attrBool("Truncate", false)
	if err != nil {
		return nil, err
	}
	if trunc && isFloat(x.dtype) && (dt == graph.Float16 || dt == graph.BFloat16 || (dt == graph.Float32 && x.dtype == graph.Float64)) {
		return nil, fmt.Errorf("Cast with Truncate=true (round toward zero) to %v has no ONNX equivalent", dt)
	}
	return []*value{out(c.op("Cast", []string{c.ref(x)}, graph.AttrInt("to", int64(dt))), dt, append([]int64(nil), x.shape...), x.ranked)}, nil
}
