package gpu

import "testing"

func TestPreferCUDA(t *testing.T) {
	const gib = 1 << 30
	dev := func(index int, name string, free uint64, major, minor int) Device {
		return Device{Index: index, Name: name, MemoryTotal: 80 * gib, MemoryFree: free,
			ComputeMajor: major, ComputeMinor: minor, Class: Classify(name)}
	}
	broken := dev(0, "NVIDIA H200", 140*gib, 9, 0)
	broken.Error = "read memory info: ERROR_GPU_IS_LOST"

	tests := []struct {
		name    string
		devices []Device
		wantID  int
		wantOK  bool
	}{
		{"no devices", nil, 0, false},
		{"H200 beats A100 with more free memory", []Device{
			dev(0, "NVIDIA A100-SXM4-80GB", 79*gib, 8, 0),
			dev(1, "NVIDIA H200", 10*gib, 9, 0),
		}, 1, true},
		{"H100 beats A100", []Device{
			dev(0, "NVIDIA A100 80GB PCIe", 79*gib, 8, 0),
			dev(1, "NVIDIA H100 80GB HBM3", 1*gib, 9, 0),
		}, 1, true},
		{"A100 beats other", []Device{
			dev(0, "NVIDIA GeForce RTX 4090", 24*gib, 8, 9),
			dev(1, "NVIDIA A100-SXM4-80GB", 2*gib, 8, 0),
		}, 1, true},
		{"same class: most free memory", []Device{
			dev(0, "NVIDIA H100 80GB HBM3", 20*gib, 9, 0),
			dev(1, "NVIDIA H100 80GB HBM3", 60*gib, 9, 0),
			dev(2, "NVIDIA H100 80GB HBM3", 40*gib, 9, 0),
		}, 1, true},
		{"tie: lowest index", []Device{
			dev(3, "NVIDIA H200", 100*gib, 9, 0),
			dev(1, "NVIDIA H200", 100*gib, 9, 0),
			dev(2, "NVIDIA H200", 100*gib, 9, 0),
		}, 1, true},
		{"returns the NVML index, not the position", []Device{
			dev(7, "NVIDIA A100-SXM4-80GB", 79*gib, 8, 0),
			dev(4, "NVIDIA H200 NVL", 79*gib, 9, 0),
		}, 4, true},
		{"device with an error is skipped", []Device{
			broken,
			dev(1, "NVIDIA A100-SXM4-80GB", 79*gib, 8, 0),
		}, 1, true},
		{"compute capability 6.0 is enough", []Device{
			dev(0, "Tesla P100-PCIE-16GB", 16*gib, 6, 0),
		}, 0, true},
		{"compute capability below 6.0 is not", []Device{
			dev(0, "Tesla K80", 12*gib, 3, 7),
			dev(1, "Tesla M60", 8*gib, 5, 2),
		}, 0, false},
		{"only broken devices", []Device{broken}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := Report{Devices: tt.devices}.PreferCUDA()
			if id != tt.wantID || ok != tt.wantOK {
				t.Errorf("PreferCUDA() = %d, %v; want %d, %v", id, ok, tt.wantID, tt.wantOK)
			}
		})
	}
}

func TestFormatCUDAVersion(t *testing.T) {
	tests := []struct {
		in   int
		want string
	}{
		{12040, "12.4"},
		{12080, "12.8"},
		{12010, "12.1"},
		{11080, "11.8"},
		{13000, "13.0"},
		{0, "0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := formatCUDAVersion(tt.in); got != tt.want {
				t.Errorf("formatCUDAVersion(%d) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
