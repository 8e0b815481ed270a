package gpu

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/google/go-cmp/cmp"
)

const gib = 1 << 30

// withNVML makes Probe use lib instead of the real NVML.
func withNVML(lib nvmlLib) Option {
	return func(o *options) { o.lib = lib }
}

// fakeNVML is an NVML whose answers are set field by field; it records the calls it gets.
type fakeNVML struct {
	initRet     nvml.Return
	shutdownRet nvml.Return
	driver      string
	driverRet   nvml.Return
	cuda        int
	cudaRet     nvml.Return
	countRet    nvml.Return
	devices     []*fakeDevice // DeviceGetCount returns len(devices)
	onInit      func()        // called inside Init, for the concurrency test
	onShutdown  func()        // called inside Shutdown

	mu    sync.Mutex
	calls []string
}

func (f *fakeNVML) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeNVML) Init() nvml.Return {
	f.record("Init")
	if f.onInit != nil {
		f.onInit()
	}
	return f.initRet
}

func (f *fakeNVML) Shutdown() nvml.Return {
	f.record("Shutdown")
	if f.onShutdown != nil {
		f.onShutdown()
	}
	return f.shutdownRet
}

func (f *fakeNVML) SystemGetDriverVersion() (string, nvml.Return) {
	f.record("SystemGetDriverVersion")
	return f.driver, f.driverRet
}

func (f *fakeNVML) SystemGetCudaDriverVersion() (int, nvml.Return) {
	f.record("SystemGetCudaDriverVersion")
	return f.cuda, f.cudaRet
}

func (f *fakeNVML) DeviceGetCount() (int, nvml.Return) {
	f.record("DeviceGetCount")
	return len(f.devices), f.countRet
}

func (f *fakeNVML) DeviceGetHandleByIndex(i int) (nvmlDevice, nvml.Return) {
	f.record(fmt.Sprintf("DeviceGetHandleByIndex(%d)", i))
	d := f.devices[i]
	if d.handleRet != nvml.SUCCESS {
		return nil, d.handleRet
	}
	return d, nvml.SUCCESS
}

// fakeDevice answers the device queries; a non-SUCCESS ret makes that query fail.
type fakeDevice struct {
	handleRet    nvml.Return
	name         string
	nameRet      nvml.Return
	onName       func() // called inside GetName
	uuid         string
	uuidRet      nvml.Return
	mem          nvml.Memory
	memRet       nvml.Return
	major, minor int
	ccRet        nvml.Return
}

func (d *fakeDevice) GetName() (string, nvml.Return) {
	if d.onName != nil {
		d.onName()
	}
	return d.name, d.nameRet
}
func (d *fakeDevice) GetUUID() (string, nvml.Return)            { return d.uuid, d.uuidRet }
func (d *fakeDevice) GetMemoryInfo() (nvml.Memory, nvml.Return) { return d.mem, d.memRet }
func (d *fakeDevice) GetCudaComputeCapability() (int, int, nvml.Return) {
	return d.major, d.minor, d.ccRet
}

func h200() *fakeDevice {
	return &fakeDevice{name: "NVIDIA H200", uuid: "GPU-11111111-2222-3333-4444-555555555555",
		mem: nvml.Memory{Total: 141 * gib, Free: 140 * gib, Used: 1 * gib}, major: 9, minor: 0}
}

func a100() *fakeDevice {
	return &fakeDevice{name: "NVIDIA A100-SXM4-80GB", uuid: "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
		mem: nvml.Memory{Total: 80 * gib, Free: 79 * gib, Used: 1 * gib}, major: 8, minor: 0}
}

func h200Device(index int) Device {
	return Device{Index: index, Name: "NVIDIA H200", UUID: "GPU-11111111-2222-3333-4444-555555555555",
		MemoryTotal: 141 * gib, MemoryFree: 140 * gib, ComputeMajor: 9, ComputeMinor: 0, Class: ClassH200}
}

func a100Device(index int) Device {
	return Device{Index: index, Name: "NVIDIA A100-SXM4-80GB", UUID: "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
		MemoryTotal: 80 * gib, MemoryFree: 79 * gib, ComputeMajor: 8, ComputeMinor: 0, Class: ClassA100}
}

// withDriver is a fake whose Init and system queries succeed.
func withDriver(devices ...*fakeDevice) *fakeNVML {
	return &fakeNVML{driver: "550.54.15", cuda: 12040, devices: devices}
}

func TestProbe(t *testing.T) {
	deviceQueries := func(i int) []string { return []string{fmt.Sprintf("DeviceGetHandleByIndex(%d)", i)} }
	okCalls := func(n int) []string {
		c := []string{"Init", "SystemGetDriverVersion", "SystemGetCudaDriverVersion", "DeviceGetCount"}
		for i := range n {
			c = append(c, deviceQueries(i)...)
		}
		return append(c, "Shutdown")
	}
	tests := []struct {
		name      string
		lib       func() *fakeNVML
		want      Report
		wantCalls []string
		wantErr   []error  // each must match with errors.Is; none means a nil error
		errSubstr []string // each must be in the error message
	}{
		{
			name:      "no driver",
			lib:       func() *fakeNVML { return &fakeNVML{initRet: nvml.ERROR_LIBRARY_NOT_FOUND} },
			want:      Report{Devices: []Device{}, Reason: "no NVIDIA driver (libnvidia-ml.so.1 not found)"},
			wantCalls: []string{"Init"},
		},
		{
			name:      "driver not loaded",
			lib:       func() *fakeNVML { return &fakeNVML{initRet: nvml.ERROR_DRIVER_NOT_LOADED} },
			want:      Report{Devices: []Device{}, Reason: "NVIDIA driver not loaded (start NVML: ERROR_DRIVER_NOT_LOADED)"},
			wantCalls: []string{"Init"},
		},
		{
			name:      "driver and library mismatch",
			lib:       func() *fakeNVML { return &fakeNVML{initRet: nvml.ERROR_LIB_RM_VERSION_MISMATCH} },
			want:      Report{Devices: []Device{}, Reason: "start NVML: ERROR_LIB_RM_VERSION_MISMATCH"},
			wantCalls: []string{"Init"},
		},
		{
			name: "device count fails",
			lib: func() *fakeNVML {
				f := withDriver(h200())
				f.countRet = nvml.ERROR_UNKNOWN
				return f
			},
			want: Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{},
				Reason: "count GPUs: ERROR_UNKNOWN"},
			wantCalls: []string{"Init", "SystemGetDriverVersion", "SystemGetCudaDriverVersion", "DeviceGetCount", "Shutdown"},
			wantErr:   []error{nvml.ERROR_UNKNOWN},
			errSubstr: []string{"count GPUs"},
		},
		{
			name: "no GPU",
			lib:  func() *fakeNVML { return withDriver() },
			want: Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{},
				Reason: "NVIDIA driver 550.54.15 found but no GPU is visible"},
			wantCalls: okCalls(0),
		},
		{
			name:      "H200 and A100",
			lib:       func() *fakeNVML { return withDriver(h200(), a100()) },
			want:      Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{h200Device(0), a100Device(1)}, Available: true},
			wantCalls: okCalls(2),
		},
		{
			name: "memory query fails on one device",
			lib: func() *fakeNVML {
				d := a100()
				d.memRet = nvml.ERROR_GPU_IS_LOST
				return withDriver(h200(), d)
			},
			want: Report{Driver: "550.54.15", CUDA: "12.4", Available: true, Devices: []Device{
				h200Device(0),
				func() Device {
					d := a100Device(1)
					d.MemoryTotal, d.MemoryFree = 0, 0
					d.Error = "read memory info: ERROR_GPU_IS_LOST"
					return d
				}(),
			}},
			wantCalls: okCalls(2),
			wantErr:   []error{nvml.ERROR_GPU_IS_LOST},
			errSubstr: []string{"GPU 1: read memory info"},
		},
		{
			name: "every query fails on the only device",
			lib: func() *fakeNVML {
				return withDriver(&fakeDevice{nameRet: nvml.ERROR_NO_PERMISSION, uuidRet: nvml.ERROR_NO_PERMISSION,
					memRet: nvml.ERROR_NO_PERMISSION, ccRet: nvml.ERROR_NOT_SUPPORTED})
			},
			want: Report{Driver: "550.54.15", CUDA: "12.4", Reason: "no GPU answered every query", Devices: []Device{{
				Index: 0, Class: ClassOther,
				Error: "read name: ERROR_NO_PERMISSION; read UUID: ERROR_NO_PERMISSION; read memory info: ERROR_NO_PERMISSION; read compute capability: ERROR_NOT_SUPPORTED",
			}}},
			wantCalls: okCalls(1),
			wantErr:   []error{nvml.ERROR_NO_PERMISSION, nvml.ERROR_NOT_SUPPORTED},
		},
		{
			name: "no handle for the first device",
			lib:  func() *fakeNVML { return withDriver(&fakeDevice{handleRet: nvml.ERROR_GPU_IS_LOST}, a100()) },
			want: Report{Driver: "550.54.15", CUDA: "12.4", Available: true, Devices: []Device{
				{Index: 0, Class: ClassOther, Error: "GPU 0: get handle: ERROR_GPU_IS_LOST"},
				a100Device(1),
			}},
			wantCalls: okCalls(2),
			wantErr:   []error{nvml.ERROR_GPU_IS_LOST},
		},
		{
			name: "system version queries fail",
			lib: func() *fakeNVML {
				f := withDriver(h200())
				f.driverRet, f.cudaRet = nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_FUNCTION_NOT_FOUND
				return f
			},
			want:      Report{Devices: []Device{h200Device(0)}, Available: true},
			wantCalls: okCalls(1),
			wantErr:   []error{nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_FUNCTION_NOT_FOUND},
			errSubstr: []string{"read driver version", "read CUDA driver version"},
		},
		{
			name: "shutdown fails",
			lib: func() *fakeNVML {
				f := withDriver(h200())
				f.shutdownRet = nvml.ERROR_UNKNOWN
				return f
			},
			want:      Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{h200Device(0)}, Available: true},
			wantCalls: okCalls(1),
			wantErr:   []error{nvml.ERROR_UNKNOWN},
			errSubstr: []string{"shut down NVML"},
		},
		{
			name: "binding panics",
			lib: func() *fakeNVML {
				d := a100()
				d.onName = func() { panic("boom") }
				return withDriver(h200(), d)
			},
			want:      Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{h200Device(0)}, Available: true},
			wantCalls: okCalls(2),
			errSubstr: []string{"nvml panicked: boom"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib := tt.lib()
			got, err := Probe(t.Context(), withNVML(lib))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Probe() report mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCalls, lib.calls); diff != "" {
				t.Errorf("NVML calls mismatch (-want +got):\n%s", diff)
			}
			wantNil := len(tt.wantErr) == 0 && len(tt.errSubstr) == 0
			if wantNil {
				if err != nil {
					t.Fatalf("Probe() error = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Probe() error = nil, want one")
			}
			for _, target := range tt.wantErr {
				if !errors.Is(err, target) {
					t.Errorf("Probe() error = %v, want it to match %v", err, target)
				}
			}
			for _, s := range tt.errSubstr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Probe() error = %q, want it to contain %q", err, s)
				}
			}
		})
	}
}

func TestProbeLibraryPathInReason(t *testing.T) {
	got, err := Probe(t.Context(), WithLibraryPath("/opt/nvidia/libnvidia-ml.so.1"),
		withNVML(&fakeNVML{initRet: nvml.ERROR_LIBRARY_NOT_FOUND}))
	if err != nil {
		t.Fatalf("Probe() error = %v", err)
	}
	if want := "no NVIDIA driver (/opt/nvidia/libnvidia-ml.so.1 not found)"; got.Reason != want {
		t.Errorf("Reason = %q, want %q", got.Reason, want)
	}
}

func TestProbeContext(t *testing.T) {
	t.Run("cancelled before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		lib := withDriver(h200())
		got, err := Probe(ctx, withNVML(lib))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Probe() error = %v, want context.Canceled", err)
		}
		if got.Available || got.Reason == "" {
			t.Errorf("Probe() = %+v, want unavailable with a reason", got)
		}
		if len(lib.calls) != 0 {
			t.Errorf("NVML calls = %v, want none", lib.calls)
		}
	})
	t.Run("cancelled while waiting for another probe", func(t *testing.T) {
		probeSlot <- struct{}{} // another Probe holds NVML
		defer func() { <-probeSlot }()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		lib := withDriver(h200())
		if _, err := Probe(ctx, withNVML(lib)); !errors.Is(err, context.Canceled) {
			t.Errorf("Probe() error = %v, want context.Canceled", err)
		}
		if len(lib.calls) != 0 {
			t.Errorf("NVML calls = %v, want none", lib.calls)
		}
	})
	t.Run("cancelled between devices", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		first := h200()
		first.onName = cancel
		lib := withDriver(first, a100())
		got, err := Probe(ctx, withNVML(lib))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Probe() error = %v, want context.Canceled", err)
		}
		want := Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{h200Device(0)}, Available: true}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Probe() report mismatch (-want +got):\n%s", diff)
		}
		if last := lib.calls[len(lib.calls)-1]; last != "Shutdown" {
			t.Errorf("last NVML call = %q, want Shutdown (calls %v)", last, lib.calls)
		}
	})
}

// TestProbeConcurrent checks that concurrent probes never use NVML at the same time: the first
// Init to arrive yields the processor many times, leaving the others every chance to enter
// NVML too if Probe did not serialise them.
func TestProbeConcurrent(t *testing.T) {
	var (
		mu             sync.Mutex
		active, maxAct int
		first          = true
	)
	lib := withDriver(h200(), a100())
	lib.onInit = func() {
		mu.Lock()
		active++
		maxAct = max(maxAct, active)
		wait := first
		first = false
		mu.Unlock()
		for i := 0; wait && i < 10000; i++ {
			runtime.Gosched()
			mu.Lock()
			wait = active == 1
			mu.Unlock()
		}
	}
	lib.onShutdown = func() {
		mu.Lock()
		defer mu.Unlock()
		active--
	}

	const n = 16
	var wg sync.WaitGroup
	reports := make([]Report, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { reports[i], errs[i] = Probe(t.Context(), withNVML(lib)) })
	}
	wg.Wait()
	want := Report{Driver: "550.54.15", CUDA: "12.4", Devices: []Device{h200Device(0), a100Device(1)}, Available: true}
	for i := range n {
		if errs[i] != nil {
			t.Errorf("probe %d: error %v", i, errs[i])
		}
		if diff := cmp.Diff(want, reports[i]); diff != "" {
			t.Errorf("probe %d: report mismatch (-want +got):\n%s", i, diff)
		}
	}
	if maxAct != 1 {
		t.Errorf("%d probes used NVML at once, want 1", maxAct)
	}
}

// TestProbeReal runs the real NVML binding. Without a driver (the usual CI machine) it must
// report that with a nil error and not crash; with one it must describe every GPU, and an
// error (an NVML query that failed) fails the test: on a working machine every query of
// Probe succeeds.
func TestProbeReal(t *testing.T) {
	t.Run("missing library", func(t *testing.T) {
		got, err := Probe(t.Context(), WithLibraryPath("/nonexistent/libnvidia-ml.so.1"))
		if err != nil {
			t.Fatalf("Probe() error = %v", err)
		}
		want := Report{Devices: []Device{}, Reason: "no NVIDIA driver (/nonexistent/libnvidia-ml.so.1 not found)"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Probe() report mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("this machine", func(t *testing.T) {
		// Twice in a row and then concurrently: NVML must be left in a state that allows another probe.
		first, err := Probe(t.Context())
		t.Logf("report: %+v", first)
		if err != nil {
			t.Errorf("Probe() error: %v", err)
		}
		checkRealReport(t, first)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				again, err := Probe(t.Context())
				if err != nil {
					t.Errorf("repeated Probe() error: %v", err)
				}
				if again.Available != first.Available || len(again.Devices) != len(first.Devices) || again.Driver != first.Driver {
					t.Errorf("repeated Probe() = %+v, first was %+v", again, first)
				}
			})
		}
		wg.Wait()
	})
}

var cudaVersion = regexp.MustCompile(`^\d+\.\d$`)

func checkRealReport(t *testing.T, r Report) {
	t.Helper()
	if !r.Available {
		if r.Reason == "" {
			t.Error("unavailable without a reason")
		}
		if r.Driver == "" && !strings.Contains(r.Reason, "driver") {
			t.Errorf("Reason = %q, want it to mention the driver", r.Reason)
		}
		return
	}
	if r.Reason != "" {
		t.Errorf("available with Reason %q", r.Reason)
	}
	if r.Driver == "" || !cudaVersion.MatchString(r.CUDA) {
		t.Errorf("Driver = %q, CUDA = %q; want both set", r.Driver, r.CUDA)
	}
	for _, d := range r.Devices {
		if d.Error != "" {
			continue
		}
		if d.Name == "" || !strings.HasPrefix(d.UUID, "GPU-") || d.MemoryTotal == 0 || d.MemoryFree > d.MemoryTotal || d.ComputeMajor == 0 {
			t.Errorf("implausible device %+v", d)
		}
		if d.Class != Classify(d.Name) {
			t.Errorf("device %d: Class = %q, want %q", d.Index, d.Class, Classify(d.Name))
		}
	}
}
