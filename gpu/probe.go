package gpu

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// defaultLibrary is the NVML library the driver installs.
const defaultLibrary = "libnvidia-ml.so.1"

// nvmlLib is the part of NVML that Probe uses. The real one wraps go-nvml; tests fake it.
type nvmlLib interface {
	Init() nvml.Return
	Shutdown() nvml.Return
	SystemGetDriverVersion() (string, nvml.Return)
	SystemGetCudaDriverVersion() (int, nvml.Return)
	DeviceGetCount() (int, nvml.Return)
	DeviceGetHandleByIndex(index int) (nvmlDevice, nvml.Return)
}

// nvmlDevice is the part of an NVML device handle that Probe uses.
type nvmlDevice interface {
	GetName() (string, nvml.Return)
	GetUUID() (string, nvml.Return)
	GetMemoryInfo() (nvml.Memory, nvml.Return)
	GetCudaComputeCapability() (int, int, nvml.Return)
}

// Option changes how Probe works.
type Option func(*options)

type options struct {
	libraryPath string
	lib         nvmlLib // tests only
}

// WithLibraryPath makes Probe load NVML from path instead of libnvidia-ml.so.1 found through
// the dynamic loader's search path.
func WithLibraryPath(path string) Option {
	return func(o *options) { o.libraryPath = path }
}

// probeSlot serialises the use of NVML, whose state is process-wide. A channel rather than a
// mutex so that a waiting Probe gives up when its context ends.
var probeSlot = make(chan struct{}, 1)

// Probe reports the NVIDIA driver and GPUs of this machine. A machine without a driver or
// GPU gives a Report with Available false and a Reason, and a nil error. The error is
// non-nil when ctx ends or an NVML query fails after NVML started; the Report then holds
// everything that was read, with each failed device's problem in Device.Error.
//
// Probe never panics and is safe for concurrent use; calls are serialised.
func Probe(ctx context.Context, opts ...Option) (Report, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	libName := o.libraryPath
	if libName == "" {
		libName = defaultLibrary
	}
	select {
	case probeSlot <- struct{}{}:
	case <-ctx.Done():
		err := fmt.Errorf("probe GPUs: %w", ctx.Err())
		return Report{Devices: []Device{}, Reason: err.Error()}, err
	}
	defer func() { <-probeSlot }()

	lib := o.lib
	if lib == nil {
		lib = newNVML(o.libraryPath)
	}
	return probe(ctx, lib, libName)
}

// probe does Probe's work; the caller holds probeSlot.
func probe(ctx context.Context, lib nvmlLib, libName string) (rep Report, err error) {
	rep.Devices = []Device{}
	var errs []error
	defer func() {
		if p := recover(); p != nil {
			errs = append(errs, fmt.Errorf("nvml panicked: %v", p))
		}
		err = errors.Join(errs...)
		finish(&rep)
	}()

	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("probe GPUs: %w", err))
		rep.Reason = errs[0].Error()
		return rep, nil
	}
	// After a failed Init nothing else may be called: with the library missing, any other
	// NVML function crashes the process.
	switch ret := lib.Init(); ret {
	case nvml.SUCCESS:
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		rep.Reason = fmt.Sprintf("no NVIDIA driver (%s not found)", libName)
		return rep, nil
	case nvml.ERROR_DRIVER_NOT_LOADED:
		rep.Reason = fmt.Sprintf("NVIDIA driver not loaded (start NVML: %s)", ret.Error())
		return rep, nil
	default:
		rep.Reason = fmt.Sprintf("start NVML: %s", ret.Error())
		return rep, nil
	}
	defer func() {
		if ret := lib.Shutdown(); ret != nvml.SUCCESS {
			errs = append(errs, fmt.Errorf("shut down NVML: %w", ret))
		}
	}()

	if v, ret := lib.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		rep.Driver = v
	} else {
		errs = append(errs, fmt.Errorf("read driver version: %w", ret))
	}
	if v, ret := lib.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		rep.CUDA = formatCUDAVersion(v)
	} else {
		errs = append(errs, fmt.Errorf("read CUDA driver version: %w", ret))
	}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		err := fmt.Errorf("count GPUs: %w", ret)
		errs = append(errs, err)
		rep.Reason = err.Error()
		return rep, nil
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("probe GPUs: %w", err))
			break
		}
		d, err := queryDevice(lib, i)
		rep.Devices = append(rep.Devices, d)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return rep, nil
}

// finish sets Available and, when nothing is available and no reason was given yet, Reason.
func finish(rep *Report) {
	rep.Available = false
	for _, d := range rep.Devices {
		if d.Error == "" {
			rep.Available = true
		}
	}
	switch {
	case rep.Available:
		rep.Reason = ""
	case rep.Reason != "":
	case len(rep.Devices) == 0 && rep.Driver != "":
		rep.Reason = fmt.Sprintf("NVIDIA driver %s found but no GPU is visible", rep.Driver)
	case len(rep.Devices) == 0:
		rep.Reason = "NVIDIA driver found but no GPU is visible"
	default:
		rep.Reason = "no GPU answered every query"
	}
}

// queryDevice reads device i. Every query is tried; the device holds what succeeded and
// its Error, like the returned error, lists what failed.
func queryDevice(lib nvmlLib, i int) (Device, error) {
	d := Device{Index: i, Class: ClassOther}
	h, ret := lib.DeviceGetHandleByIndex(i)
	if ret != nvml.SUCCESS {
		err := fmt.Errorf("GPU %d: get handle: %w", i, ret)
		d.Error = err.Error()
		return d, err
	}
	var errs []error
	if v, ret := h.GetName(); ret == nvml.SUCCESS {
		d.Name = v
		d.Class = Classify(v)
	} else {
		errs = append(errs, fmt.Errorf("read name: %w", ret))
	}
	if v, ret := h.GetUUID(); ret == nvml.SUCCESS {
		d.UUID = v
	} else {
		errs = append(errs, fmt.Errorf("read UUID: %w", ret))
	}
	if m, ret := h.GetMemoryInfo(); ret == nvml.SUCCESS {
		d.MemoryTotal, d.MemoryFree = m.Total, m.Free
	} else {
		errs = append(errs, fmt.Errorf("read memory info: %w", ret))
	}
	if major, minor, ret := h.GetCudaComputeCapability(); ret == nvml.SUCCESS {
		d.ComputeMajor, d.ComputeMinor = major, minor
	} else {
		errs = append(errs, fmt.Errorf("read compute capability: %w", ret))
	}
	if len(errs) == 0 {
		return d, nil
	}
	msgs := make([]string, len(errs))
	for j, e := range errs {
		msgs[j] = e.Error()
	}
	d.Error = strings.Join(msgs, "; ")
	return d, fmt.Errorf("GPU %d: %w", i, errors.Join(errs...))
}

// formatCUDAVersion turns NVML's CUDA driver version (1000*major + 10*minor, e.g. 12040)
// into "12.4".
func formatCUDAVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
