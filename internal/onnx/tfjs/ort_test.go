package tfjs

import (
	"fmt"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/atma-dev/atma/internal/orttest"
)

// requireORT initialises ONNX Runtime once per test binary, failing the test with the fix
// when the library is missing.
func requireORT(tb testing.TB) {
	tb.Helper()
	orttest.Require(tb)
}

// feed is one named input: data is []float32, []int64, []int32 or []bool.
type feed struct {
	name  string
	shape []int64
	data  any
}

// result is one output with its data in the slice matching its type.
type result struct {
	shape []int64
	f32   []float32
	i64   []int64
	i32   []int32
	b     []bool
}

func newTensor(f feed) (ort.Value, error) {
	s := ort.NewShape(f.shape...)
	switch d := f.data.(type) {
	case []float32:
		return ort.NewTensor(s, d)
	case []int64:
		return ort.NewTensor(s, d)
	case []int32:
		return ort.NewTensor(s, d)
	case []bool:
		return ort.NewTensor(s, d)
	}
	return nil, fmt.Errorf("input %s: unsupported data type %T", f.name, f.data)
}

// session is a loaded ONNX model with fixed input and output names.
type session struct {
	s       *ort.DynamicAdvancedSession
	inputs  []string
	outputs []string
}

func newSession(tb testing.TB, model []byte, inputs, outputs []string) *session {
	tb.Helper()
	requireORT(tb)
	opts, err := ort.NewSessionOptions()
	if err != nil {
		tb.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		tb.Fatal(err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		tb.Fatal(err)
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, inputs, outputs, opts)
	if err != nil {
		tb.Fatalf("load converted model in ONNX Runtime: %v", err)
	}
	tb.Cleanup(func() { _ = s.Destroy() })
	return &session{s: s, inputs: inputs, outputs: outputs}
}

// run feeds the inputs (in the session's input order) and returns every output.
func (s *session) run(feeds ...feed) ([]result, error) {
	ins := make([]ort.Value, len(feeds))
	defer func() {
		for _, v := range ins {
			if v != nil {
				_ = v.Destroy()
			}
		}
	}()
	for i, f := range feeds {
		if f.name != s.inputs[i] {
			return nil, fmt.Errorf("feed %d is %q, the session expects %q", i, f.name, s.inputs[i])
		}
		v, err := newTensor(f)
		if err != nil {
			return nil, err
		}
		ins[i] = v
	}
	outs := make([]ort.Value, len(s.outputs))
	if err := s.s.Run(ins, outs); err != nil {
		return nil, err
	}
	res := make([]result, len(outs))
	for i, o := range outs {
		r := result{shape: o.GetShape()}
		switch t := o.(type) {
		case *ort.Tensor[float32]:
			r.f32 = append([]float32(nil), t.GetData()...)
		case *ort.Tensor[int64]:
			r.i64 = append([]int64(nil), t.GetData()...)
		case *ort.Tensor[int32]:
			r.i32 = append([]int32(nil), t.GetData()...)
		case *ort.Tensor[bool]:
			r.b = append([]bool(nil), t.GetData()...)
		default:
			_ = o.Destroy()
			return nil, fmt.Errorf("output %s has unsupported type %T", s.outputs[i], o)
		}
		_ = o.Destroy()
		res[i] = r
	}
	return res, nil
}

// convertAndRun converts m with opts and runs the result in ONNX Runtime on the inputs given
// by name, returning the single output. Feeds for inputs the output does not need are
// ignored.
func convertAndRun(tb testing.TB, m *Model, opts Options, feeds map[string]feed) (result, error) {
	tb.Helper()
	b, err := m.Convert(opts)
	if err != nil {
		return result{}, err
	}
	requireORT(tb)
	ins, outs, err := ort.GetInputOutputInfoWithONNXData(b)
	if err != nil {
		return result{}, fmt.Errorf("inspect converted model: %w", err)
	}
	if len(outs) != 1 {
		return result{}, fmt.Errorf("converted model has %d outputs", len(outs))
	}
	if len(ins) == 0 {
		return result{}, fmt.Errorf("converted model has no inputs; the Go binding cannot run it")
	}
	inNames := make([]string, len(ins))
	fs := make([]feed, len(ins))
	for i, in := range ins {
		inNames[i] = in.Name
		f, ok := feeds[in.Name]
		if !ok {
			return result{}, fmt.Errorf("no feed for input %q", in.Name)
		}
		f.name = in.Name
		fs[i] = f
	}
	s := newSession(tb, b, inNames, []string{outs[0].Name})
	res, err := s.run(fs...)
	if err != nil {
		return result{}, err
	}
	return res[0], nil
}

// ortInfo describes a model's inputs and outputs as ONNX Runtime sees them:
// "name TYPE [dims]" with -1 for dynamic dimensions.
func ortInfo(model []byte) (ins, outs []string, err error) {
	i, o, err := ort.GetInputOutputInfoWithONNXData(model)
	if err != nil {
		return nil, nil, err
	}
	desc := func(v []ort.InputOutputInfo) []string {
		out := make([]string, len(v))
		for k, x := range v {
			out[k] = fmt.Sprintf("%s %s %v", x.Name, strings.TrimPrefix(x.DataType.String(), "ONNX_TENSOR_ELEMENT_DATA_TYPE_"), []int64(x.Dimensions))
		}
		return out
	}
	return desc(i), desc(o), nil
}
