package tfjs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The types below mirror the JSON that the TF.js converter writes for a graph model: a
// GraphDef in protobuf JSON form (modelTopology) plus the weights manifest. The protobuf JSON
// mapping allows several spellings of the same value (an int64 as a number or a string, an
// enum as a number or a name, bytes as base64 or, in some writers, as an array of numbers);
// the custom decoders accept all of them.

// modelJSON is the top level of model.json.
type modelJSON struct {
	Format          string        `json:"format"`
	GeneratedBy     string        `json:"generatedBy"`
	ConvertedBy     string        `json:"convertedBy"`
	ModelTopology   *topologyJSON `json:"modelTopology"`
	WeightsManifest []weightGroup `json:"weightsManifest"`
	Signature       *signature    `json:"signature"`
}

type topologyJSON struct {
	Node []nodeJSON `json:"node"`
}

type nodeJSON struct {
	Name  string               `json:"name"`
	Op    string               `json:"op"`
	Input []string             `json:"input"`
	Attr  map[string]attrValue `json:"attr"`
}

// signature is the optional SignatureDef of newer converters; only the output tensor names
// are used (to pick the default output).
type signature struct {
	Outputs map[string]struct {
		Name string `json:"name"`
	} `json:"outputs"`
}

type weightGroup struct {
	Paths   []string     `json:"paths"`
	Weights []weightSpec `json:"weights"`
}

type weightSpec struct {
	Name         string        `json:"name"`
	Shape        []int64       `json:"shape"`
	DType        string        `json:"dtype"`
	Quantization *quantization `json:"quantization"`
}

type quantization struct {
	DType string   `json:"dtype"`
	Scale *float64 `json:"scale"`
	Min   *float64 `json:"min"`
}

// attrValue is a TF AttrValue: exactly one of its fields is normally set.
type attrValue struct {
	I      *jsonInt    `json:"i"`
	F      *jsonFloat  `json:"f"`
	B      *bool       `json:"b"`
	S      *jsonBytes  `json:"s"`
	Type   *jsonDType  `json:"type"`
	Shape  *shapeJSON  `json:"shape"`
	List   *attrList   `json:"list"`
	Tensor *tensorJSON `json:"tensor"`
}

type attrList struct {
	I     []jsonInt   `json:"i"`
	F     []jsonFloat `json:"f"`
	B     []bool      `json:"b"`
	S     []jsonBytes `json:"s"`
	Type  []jsonDType `json:"type"`
	Shape []shapeJSON `json:"shape"`
}

type shapeJSON struct {
	Dim []struct {
		Size jsonInt `json:"size"`
	} `json:"dim"`
	UnknownRank bool `json:"unknownRank"`
}

// dims returns the shape's dimensions (-1 for unknown) and whether the rank is known.
func (s *shapeJSON) dims() ([]int64, bool) {
	if s == nil || s.UnknownRank {
		return nil, false
	}
	d := make([]int64, len(s.Dim))
	for i, x := range s.Dim {
		d[i] = int64(x.Size)
		if d[i] < -1 {
			d[i] = -1
		}
	}
	return d, true
}

// tensorJSON is a TensorProto: an inline constant. TF.js puts Const values in the weights
// files, so for those only dtype and shape are filled; hand-written graphs may carry values.
type tensorJSON struct {
	DType         jsonDType   `json:"dtype"`
	TensorShape   *shapeJSON  `json:"tensorShape"`
	TensorContent *jsonBytes  `json:"tensorContent"`
	FloatVal      []jsonFloat `json:"floatVal"`
	DoubleVal     []jsonFloat `json:"doubleVal"`
	IntVal        []jsonInt   `json:"intVal"`
	Int64Val      []jsonInt   `json:"int64Val"`
	BoolVal       []bool      `json:"boolVal"`
}

// jsonInt is an int64 written as a JSON number or a decimal string.
type jsonInt int64

func (v *jsonInt) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Some writers emit 1e3 or 3.0 for integers; accept exact integral floats.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
			return fmt.Errorf("invalid integer %s", truncate(string(b)))
		}
		n = int64(f)
	}
	*v = jsonInt(n)
	return nil
}

// jsonFloat is a float written as a JSON number or as "NaN", "Infinity", "-Infinity".
type jsonFloat float64

func (v *jsonFloat) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	switch s {
	case "NaN":
		*v = jsonFloat(math.NaN())
		return nil
	case "Infinity":
		*v = jsonFloat(math.Inf(1))
		return nil
	case "-Infinity":
		*v = jsonFloat(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("invalid number %s", truncate(string(b)))
	}
	*v = jsonFloat(f)
	return nil
}

// jsonBytes is a bytes field: base64 text (the protobuf JSON mapping) or an array of byte
// values (what some TF.js writers emit, as in the USE lite model).
type jsonBytes []byte

func (v *jsonBytes) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var nums []int
		if err := json.Unmarshal(b, &nums); err != nil {
			return fmt.Errorf("invalid byte array: %w", err)
		}
		out := make([]byte, len(nums))
		for i, n := range nums {
			if n < 0 || n > 255 {
				return fmt.Errorf("byte value %d out of range", n)
			}
			out[i] = byte(n)
		}
		*v = out
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("invalid bytes: %w", err)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(s); err == nil {
			*v = d
			return nil
		}
	}
	return fmt.Errorf("invalid base64 %s", truncate(s))
}

// jsonDType is a TF DataType enum: a number or a name such as "DT_FLOAT".
type jsonDType int32

func (v *jsonDType) UnmarshalJSON(b []byte) error {
	s := string(bytes.TrimSpace(b))
	if s == "null" {
		return nil
	}
	if uq, err := strconv.Unquote(s); err == nil {
		n, ok := tfDTypeByName[uq]
		if !ok {
			if i, err := strconv.Atoi(uq); err == nil {
				*v = jsonDType(i)
				return nil
			}
			return fmt.Errorf("unknown TF data type %q", uq)
		}
		*v = jsonDType(n)
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return fmt.Errorf("invalid TF data type %s", truncate(s))
	}
	*v = jsonDType(n)
	return nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "…"
	}
	return strconv.Quote(s)
}

// parseModelJSON decodes and checks the structure of model.json: a topology with named nodes
// (unique names, an op each) and a weights manifest whose entries have valid shapes and
// dtypes. It does not read weight files.
func parseModelJSON(data []byte) (*modelJSON, error) {
	var m modelJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	if m.ModelTopology == nil {
		if strings.Contains(m.Format, "layers") {
			return nil, fmt.Errorf("format %q is a TF.js layers model; only graph models (converted from a SavedModel or frozen graph) are supported", m.Format)
		}
		return nil, fmt.Errorf("no modelTopology: not a TF.js graph model")
	}
	if len(m.ModelTopology.Node) == 0 {
		return nil, fmt.Errorf("modelTopology has no nodes")
	}
	seen := make(map[string]bool, len(m.ModelTopology.Node))
	for i, n := range m.ModelTopology.Node {
		if n.Name == "" {
			return nil, fmt.Errorf("node %d has no name", i)
		}
		if n.Op == "" {
			return nil, fmt.Errorf("node %q has no op", n.Name)
		}
		if seen[n.Name] {
			return nil, fmt.Errorf("node name %q is used twice", n.Name)
		}
		seen[n.Name] = true
		for _, in := range n.Input {
			if strings.TrimPrefix(in, "^") == "" {
				return nil, fmt.Errorf("node %q has an empty input name", n.Name)
			}
		}
	}
	weightSeen := map[string]bool{}
	for gi, g := range m.WeightsManifest {
		if len(g.Weights) > 0 && len(g.Paths) == 0 {
			return nil, fmt.Errorf("weightsManifest group %d lists weights but no paths", gi)
		}
		for _, w := range g.Weights {
			if w.Name == "" {
				return nil, fmt.Errorf("weightsManifest group %d has a weight without a name", gi)
			}
			if weightSeen[w.Name] {
				return nil, fmt.Errorf("weight %q is listed twice in weightsManifest", w.Name)
			}
			weightSeen[w.Name] = true
			if _, err := numElements(w.Shape); err != nil {
				return nil, fmt.Errorf("weight %q: %w", w.Name, err)
			}
			if _, err := storedElemSize(w); err != nil {
				return nil, fmt.Errorf("weight %q: %w", w.Name, err)
			}
		}
	}
	return &m, nil
}

// numElements is the product of shape, checked for negative dimensions and overflow.
func numElements(shape []int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt64/4/d {
			return 0, fmt.Errorf("shape %v is too large", shape)
		}
		n *= d
	}
	return n, nil
}
