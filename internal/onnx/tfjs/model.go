package tfjs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ModelFile is the name of the topology and manifest file inside a TF.js model directory.
const ModelFile = "model.json"

// Model is a parsed TF.js graph model: its nodes and its decoded weights. It is immutable
// after Load and safe for concurrent use.
type Model struct {
	path    string // model.json, for error messages
	nodes   []node
	byName  map[string]*node
	weights map[string]*tensor
	sigOuts []string
}

// node is a TF node with its inputs split into data inputs (name and output index) and
// control dependencies (which carry no data and are dropped).
type node struct {
	name   string
	op     string
	inputs []tensorRef
	attr   map[string]attrValue
}

// tensorRef names output index of node ("name:1"; "name" is output 0).
type tensorRef struct {
	node  string
	index int
}

func (r tensorRef) String() string {
	if r.index == 0 {
		return r.node
	}
	return r.node + ":" + strconv.Itoa(r.index)
}

func parseRef(s string) tensorRef {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if k, err := strconv.Atoi(s[i+1:]); err == nil && k >= 0 {
			return tensorRef{node: s[:i], index: k}
		}
	}
	return tensorRef{node: s}
}

// Load reads a TF.js graph model from dir: model.json and the weight shards its manifest
// lists. Shard sizes are checked against the manifest; a truncated or corrupt shard is an
// error (wrapping ErrShardSize) that names the file and the expected and actual sizes.
func Load(dir string) (*Model, error) {
	p := filepath.Join(dir, ModelFile)
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("load TF.js model: %w; expected a directory holding %s and its weight shards", err, ModelFile)
		}
		return nil, fmt.Errorf("load TF.js model: %w", err)
	}
	mj, err := parseModelJSON(data)
	if err != nil {
		return nil, fmt.Errorf("load TF.js model: parse %s: %w; the file is damaged or not a TF.js graph model: re-fetch it or re-run the TF.js converter", p, err)
	}
	weights, err := loadWeights(dir, mj.WeightsManifest)
	if err != nil {
		return nil, fmt.Errorf("load TF.js model %s: %w", p, err)
	}
	return newModel(p, mj, weights), nil
}

func newModel(path string, mj *modelJSON, weights map[string]*tensor) *Model {
	m := &Model{path: path, weights: weights, byName: map[string]*node{}}
	m.nodes = make([]node, len(mj.ModelTopology.Node))
	for i, nj := range mj.ModelTopology.Node {
		n := node{name: nj.Name, op: nj.Op, attr: nj.Attr}
		for _, in := range nj.Input {
			if strings.HasPrefix(in, "^") {
				continue // control dependency: ordering only, no data
			}
			n.inputs = append(n.inputs, parseRef(in))
		}
		m.nodes[i] = n
	}
	for i := range m.nodes {
		m.byName[m.nodes[i].name] = &m.nodes[i]
	}
	if mj.Signature != nil {
		keys := make([]string, 0, len(mj.Signature.Outputs))
		for k := range mj.Signature.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if name := mj.Signature.Outputs[k].Name; name != "" {
				m.sigOuts = append(m.sigOuts, parseRef(name).node)
			}
		}
	}
	return m
}

// Outputs lists the model's candidate outputs: the signature's outputs when model.json has
// one, else every node that no other node consumes (Const and Placeholder nodes excluded).
func (m *Model) Outputs() []string {
	if len(m.sigOuts) > 0 {
		return append([]string(nil), m.sigOuts...)
	}
	used := map[string]bool{}
	for _, n := range m.nodes {
		for _, in := range n.inputs {
			used[in.node] = true
		}
	}
	var out []string
	for _, n := range m.nodes {
		if !used[n.name] && n.op != "Const" && n.op != "Placeholder" && n.op != "NoOp" {
			out = append(out, n.name)
		}
	}
	return out
}

// attribute accessors. Each returns an error naming the attribute when it is present but of
// the wrong kind; def is used when it is absent.

func (n *node) attrInt(name string, def int64) (int64, error) {
	a, ok := n.attr[name]
	if !ok {
		return def, nil
	}
	if a.I == nil {
		return 0, fmt.Errorf("attribute %q is not an integer", name)
	}
	return int64(*a.I), nil
}

func (n *node) attrBool(name string, def bool) (bool, error) {
	a, ok := n.attr[name]
	if !ok {
		return def, nil
	}
	if a.B == nil {
		return false, fmt.Errorf("attribute %q is not a bool", name)
	}
	return *a.B, nil
}

func (n *node) attrString(name, def string) (string, error) {
	a, ok := n.attr[name]
	if !ok {
		return def, nil
	}
	if a.S == nil {
		return "", fmt.Errorf("attribute %q is not a string", name)
	}
	return string(*a.S), nil
}

func (n *node) attrInts(name string) ([]int64, bool, error) {
	a, ok := n.attr[name]
	if !ok {
		return nil, false, nil
	}
	if a.List == nil {
		return nil, false, fmt.Errorf("attribute %q is not a list", name)
	}
	out := make([]int64, len(a.List.I))
	for i, v := range a.List.I {
		out[i] = int64(v)
	}
	return out, true, nil
}

func (n *node) attrType(name string) (int32, bool, error) {
	a, ok := n.attr[name]
	if !ok {
		return 0, false, nil
	}
	if a.Type == nil {
		return 0, false, fmt.Errorf("attribute %q is not a type", name)
	}
	return int32(*a.Type), true, nil
}
