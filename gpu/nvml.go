package gpu

import "github.com/NVIDIA/go-nvml/pkg/nvml"

// realNVML is nvmlLib over go-nvml.
type realNVML struct {
	lib nvml.Interface
}

var _ nvmlLib = realNVML{}

// newNVML returns NVML loaded from path, or from libnvidia-ml.so.1 when path is empty. It
// loads nothing until Init.
func newNVML(path string) realNVML {
	var opts []nvml.LibraryOption
	if path != "" {
		opts = append(opts, nvml.WithLibraryPath(path))
	}
	return realNVML{lib: nvml.New(opts...)}
}

func (n realNVML) Init() nvml.Return     { return n.lib.Init() }
func (n realNVML) Shutdown() nvml.Return { return n.lib.Shutdown() }

func (n realNVML) SystemGetDriverVersion() (string, nvml.Return) {
	return n.lib.SystemGetDriverVersion()
}

func (n realNVML) SystemGetCudaDriverVersion() (int, nvml.Return) {
	return n.lib.SystemGetCudaDriverVersion()
}

func (n realNVML) DeviceGetCount() (int, nvml.Return) { return n.lib.DeviceGetCount() }

func (n realNVML) DeviceGetHandleByIndex(index int) (nvmlDevice, nvml.Return) {
	return n.lib.DeviceGetHandleByIndex(index)
}
