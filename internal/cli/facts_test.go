package cli

import (
	"math"
	"strings"
	"testing"
)

func TestFactsOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    factsOptions
		want string // substring of the error; "" means valid
	}{
		{"defaults", factsOptions{Facts: factsAuto}, ""},
		{"fact min", factsOptions{Facts: factsOffline, FactMin: 0.6}, ""},
		{"fact min above 1", factsOptions{Facts: factsAuto, FactMin: 1.5}, "--fact-min must be in [0, 1]"},
		{"fact min negative", factsOptions{Facts: factsAuto, FactMin: -0.1}, "--fact-min must be in [0, 1]"},
		{"fact min NaN", factsOptions{Facts: factsAuto, FactMin: math.NaN()}, "--fact-min"},
		{"unknown extractor", factsOptions{Facts: "magic"}, "--facts must be auto, offline, llm or off"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("validate() = %v, want %q", err, tt.want)
			}
		})
	}
}
