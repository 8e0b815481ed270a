package gpu

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		want Class
	}{
		{"NVIDIA H200", ClassH200},
		{"NVIDIA H200 NVL", ClassH200},
		{"NVIDIA H100 80GB HBM3", ClassH100},
		{"NVIDIA H100 PCIe", ClassH100},
		{"NVIDIA H100 NVL", ClassH100},
		{"nvidia h100 pcie", ClassH100},
		{"NVIDIA A100-SXM4-80GB", ClassA100},
		{"NVIDIA A100 80GB PCIe", ClassA100},
		{"NVIDIA A100-PCIE-40GB", ClassA100},
		{"Tesla V100-SXM2-16GB", ClassOther},
		{"NVIDIA GeForce RTX 4090", ClassOther},
		{"NVIDIA RTX A1000", ClassOther},
		{"NVIDIA GH200 480GB", ClassOther},
		{"NVIDIA H800", ClassOther},
		{"NVIDIA A800-SXM4-80GB", ClassOther},
		{"", ClassOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.name); got != tt.want {
				t.Errorf("Classify(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"NVIDIA H200", "NVIDIA A100-SXM4-80GB", "Tesla V100-SXM2-16GB", "H100/A100", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c := Classify(name)
		switch c {
		case ClassOther:
		case ClassH200, ClassH100, ClassA100:
			if !strings.Contains(strings.ToUpper(name), string(c)) {
				t.Errorf("Classify(%q) = %q, but the name does not contain it", name, c)
			}
		default:
			t.Errorf("Classify(%q) = %q, not a known class", name, c)
		}
	})
}
