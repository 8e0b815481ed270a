package llm

import (
	"encoding/json"
	"testing"
)

func TestObjectKeepsOrder(t *testing.T) {
	o := Object{{"type", "object"}, {"properties", Object{{"z", Object{{"type", "string"}}}, {"a", Object{{"enum", []string{"x", "y"}}}}}}, {"required", []string{"z", "a"}}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"z":{"type":"string"},"a":{"enum":["x","y"]}},"required":["z","a"]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if !json.Valid(o.Indent()) {
		t.Error("Indent is not valid JSON")
	}
	if _, err := json.Marshal(Object{{1, "x"}}); err == nil {
		t.Error("a non-string key was accepted")
	}
}
