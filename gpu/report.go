package gpu

// MinComputeMajor is the lowest compute capability major version PreferCUDA accepts: ONNX
// Runtime's CUDA 12 builds support compute capability 6.0 and newer.
const MinComputeMajor = 6

// Device is one GPU as NVML reports it. When a query for the device failed, Error says which
// and the fields it would have filled keep their zero values.
type Device struct {
	// Index is NVML's index of the device (PCI bus order).
	Index int    `json:"index"`
	Name  string `json:"name"`
	UUID  string `json:"uuid"`
	// MemoryTotal and MemoryFree are in bytes.
	MemoryTotal  uint64 `json:"memory_total_bytes"`
	MemoryFree   uint64 `json:"memory_free_bytes"`
	ComputeMajor int    `json:"compute_major"`
	ComputeMinor int    `json:"compute_minor"`
	Class        Class  `json:"class"`
	// Error describes the queries that failed for this device; empty when all succeeded.
	Error string `json:"error,omitempty"`
}

// usable reports whether ONNX Runtime's CUDA execution provider can run on d.
func (d Device) usable() bool {
	return d.Error == "" && d.ComputeMajor >= MinComputeMajor
}

// Report is what Probe found.
type Report struct {
	// Driver is the NVIDIA driver version ("550.54.15"); empty when there is none.
	Driver string `json:"driver"`
	// CUDA is the highest CUDA version the driver supports, major.minor ("12.4").
	CUDA    string   `json:"cuda"`
	Devices []Device `json:"devices"`
	// Available is true when at least one device answered every query.
	Available bool `json:"available"`
	// Reason says why Available is false ("no NVIDIA driver (libnvidia-ml.so.1 not found)").
	Reason string `json:"reason,omitempty"`
}

// PreferCUDA returns the index of the device ONNX Runtime's CUDA execution provider should
// use, and false when no device is suitable (see the package documentation for the order).
func (r Report) PreferCUDA() (deviceID int, ok bool) {
	best := -1
	for i, d := range r.Devices {
		if !d.usable() {
			continue
		}
		if best < 0 || better(d, r.Devices[best]) {
			best = i
		}
	}
	if best < 0 {
		return 0, false
	}
	return r.Devices[best].Index, true
}

// better reports whether a should be preferred to b.
func better(a, b Device) bool {
	if ra, rb := a.Class.rank(), b.Class.rank(); ra != rb {
		return ra > rb
	}
	if a.MemoryFree != b.MemoryFree {
		return a.MemoryFree > b.MemoryFree
	}
	return a.Index < b.Index
}
