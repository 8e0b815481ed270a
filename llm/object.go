package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Object is a JSON object that keeps its keys in order, for building JSON schemas
// (Schema.Schema): servers that constrain decoding to a schema generate the properties in
// the order the schema lists them, so the order is part of the prompt.
type Object []KV

// KV is one key of an Object and its value: KV{"type", "string"}. The key must be a
// string; the value is anything encoding/json encodes, including a nested Object. (A pair
// rather than a struct keeps schema literals short: Object{{"type", "object"}, …}.)
type KV [2]any

// MarshalJSON encodes the fields in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, ok := kv[0].(string)
		if !ok {
			return nil, fmt.Errorf("llm: object key %v is %T, not a string", kv[0], kv[0])
		}
		k, err := json.Marshal(key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv[1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Indent encodes o with two-space indentation. It panics on a value encoding/json cannot
// encode: schemas are built from literals, so that is a programmer error.
func (o Object) Indent() []byte {
	raw, err := json.Marshal(o)
	if err == nil {
		var buf bytes.Buffer
		if err = json.Indent(&buf, raw, "", "  "); err == nil {
			return buf.Bytes()
		}
	}
	panic("llm: encode schema object: " + err.Error())
}
