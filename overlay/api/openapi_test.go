package api

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

type openAPIOp struct {
	OperationID string                     `json:"operationId"`
	Parameters  []map[string]any           `json:"parameters"`
	Responses   map[string]json.RawMessage `json:"responses"`
	Security    *[]map[string]any          `json:"security"`
	RequestBody json.RawMessage            `json:"requestBody"`
}

// TestOpenAPIMatchesRoutes: every route is documented with its operationId, and the
// document describes no route the server lacks.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		OpenAPI    string                          `json:"openapi"`
		Paths      map[string]map[string]openAPIOp `json:"paths"`
		Components struct {
			Parameters map[string]map[string]any `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	served := map[string]route{}
	for _, rt := range routes {
		served[strings.ToLower(rt.Method)+" "+rt.Path] = rt
	}
	documented := map[string]bool{}
	pathParam := regexp.MustCompile(`\{(\w+)\}`)
	for path, ops := range doc.Paths {
		for method, op := range ops {
			key := method + " " + path
			documented[key] = true
			rt, ok := served[key]
			if !ok {
				t.Errorf("documented %s is not served", key)
				continue
			}
			if op.OperationID != rt.Name {
				t.Errorf("%s: operationId %q, route name %q", key, op.OperationID, rt.Name)
			}
			if rt.Open != (op.Security != nil && len(*op.Security) == 0) {
				t.Errorf("%s: open %v, but the document's security is %v", key, rt.Open, op.Security)
			}
			if len(op.Responses) == 0 {
				t.Errorf("%s has no responses", key)
			}
			if (rt.Method == "POST") != (op.RequestBody != nil) {
				t.Errorf("%s: request body documented %v", key, op.RequestBody != nil)
			}
			// Each path parameter is declared.
			var declared []string
			for _, p := range op.Parameters {
				if ref, ok := p["$ref"].(string); ok {
					p = doc.Components.Parameters[strings.TrimPrefix(ref, "#/components/parameters/")]
				}
				if p["in"] == "path" {
					declared = append(declared, p["name"].(string))
				}
			}
			var want []string
			for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
				want = append(want, m[1])
			}
			slices.Sort(declared)
			slices.Sort(want)
			if !slices.Equal(declared, want) {
				t.Errorf("%s: path parameters %v declared, %v in the path", key, declared, want)
			}
		}
	}
	for key := range served {
		if !documented[key] {
			t.Errorf("served %s is not documented", key)
		}
	}
}

// TestOpenAPIRefsResolve: every $ref points at a component that exists.
func TestOpenAPIRefsResolve(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				n++
				var cur any = doc
				for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
					m, _ := cur.(map[string]any)
					cur = m[part]
				}
				if cur == nil {
					t.Errorf("unresolved $ref %s", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if n < 20 {
		t.Errorf("only %d refs: the document lost its components?", n)
	}
}

// TestOpenAPIErrorCodes: the document lists every error code the API uses.
func TestOpenAPIErrorCodes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				ErrorDetail struct {
					Properties struct {
						Code struct {
							Enum []string `json:"enum"`
						} `json:"code"`
					} `json:"properties"`
				} `json:"ErrorDetail"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	codes := []string{CodeInvalidInput, CodeInvalidJSON, CodeUnknownField, CodeUnauthorized, CodeForbidden, CodeNotFound, CodeUnknownUser,
		CodeMethodNotAllowed, CodeConflict, CodeBodyTooLarge, CodeUnsupportedMediaType, CodeInternal, CodeNotImplemented, CodeUnavailable, CodeBankDamaged, CodeBankReadOnly, CodeDiskFull, CodeBodyTimeout}
	got := doc.Components.Schemas.ErrorDetail.Properties.Code.Enum
	slices.Sort(codes)
	slices.Sort(got)
	if !slices.Equal(got, codes) {
		t.Errorf("documented codes %v, used %v", got, codes)
	}
}
