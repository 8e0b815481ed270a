package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/atma-dev/atma/gpu"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// gpuGolden compares got with testdata/name, or rewrites that file under -update.
func gpuGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestNewCmdGPUInfo(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    gpuInfoOptions
		wantErr bool
	}{
		{name: "defaults", args: []string{}, want: gpuInfoOptions{}},
		{name: "json", args: []string{"--json"}, want: gpuInfoOptions{JSON: true}},
		{name: "nvml library", args: []string{"--nvml-lib", "/opt/lib/libnvidia-ml.so.1"}, want: gpuInfoOptions{NVMLLibrary: "/opt/lib/libnvidia-ml.so.1"}},
		{name: "argument", args: []string{"extra"}, wantErr: true},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			f := &Factory{IO: IO{Out: &out, ErrOut: &out}}
			var got *gpuInfoOptions
			cmd := newCmdGPUInfo(f, func(_ context.Context, o *gpuInfoOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(tt.args)
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			err := cmd.ExecuteContext(t.Context())
			if tt.wantErr {
				if err == nil {
					t.Fatal("Execute() error = nil, want one")
				}
				if got != nil {
					t.Error("runF was called despite the error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute() error = %v", err)
			}
			if got == nil {
				t.Fatal("runF was not called")
			}
			if got.Probe == nil {
				t.Error("Probe is nil, want gpu.Probe")
			}
			if got.IO.Out != &out {
				t.Error("IO is not the factory's")
			}
			if got.JSON != tt.want.JSON || got.NVMLLibrary != tt.want.NVMLLibrary {
				t.Errorf("options = {JSON:%v NVMLLibrary:%q}, want {JSON:%v NVMLLibrary:%q}",
					got.JSON, got.NVMLLibrary, tt.want.JSON, tt.want.NVMLLibrary)
			}
		})
	}
}

const gpuGiB = 1 << 30

var (
	noDriverReport = gpu.Report{Devices: []gpu.Device{}, Reason: "no NVIDIA driver (libnvidia-ml.so.1 not found)"}
	twoGPUReport   = gpu.Report{Driver: "550.54.15", CUDA: "12.4", Available: true, Devices: []gpu.Device{
		{Index: 0, Name: "NVIDIA A100-SXM4-80GB", UUID: "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
			MemoryTotal: 80 * gpuGiB, MemoryFree: 79*gpuGiB + gpuGiB/2, ComputeMajor: 8, ComputeMinor: 0, Class: gpu.ClassA100},
		{Index: 1, Name: "NVIDIA H200", UUID: "GPU-11111111-2222-3333-4444-555555555555",
			MemoryTotal: 141 * gpuGiB, MemoryFree: 100 * gpuGiB, ComputeMajor: 9, ComputeMinor: 0, Class: gpu.ClassH200},
	}}
	partialReport = gpu.Report{Driver: "550.54.15", CUDA: "12.4", Available: true, Devices: []gpu.Device{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-33333333-2222-3333-4444-555555555555",
			ComputeMajor: 9, ComputeMinor: 0, Class: gpu.ClassH100, Error: "read memory info: ERROR_GPU_IS_LOST"},
		{Index: 1, Name: "NVIDIA A100 80GB PCIe", UUID: "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
			MemoryTotal: 80 * gpuGiB, MemoryFree: 80 * gpuGiB, ComputeMajor: 8, ComputeMinor: 0, Class: gpu.ClassA100},
	}}
	oldGPUReport = gpu.Report{Driver: "470.256.02", CUDA: "11.4", Available: true, Devices: []gpu.Device{
		{Index: 0, Name: "Tesla K80", UUID: "GPU-kkkkkkkk-bbbb-cccc-dddd-eeeeeeeeeeee",
			MemoryTotal: 12 * gpuGiB, MemoryFree: 12 * gpuGiB, ComputeMajor: 3, ComputeMinor: 7, Class: gpu.ClassOther},
	}}
)

func TestGPUInfoRun(t *testing.T) {
	errLost := errors.New("GPU 0: read memory info: ERROR_GPU_IS_LOST")
	tests := []struct {
		name     string
		report   gpu.Report
		probeErr error
		json     bool
		golden   string
	}{
		{name: "no driver", report: noDriverReport, golden: "gpu_info_nodriver.golden"},
		{name: "no driver json", report: noDriverReport, json: true, golden: "gpu_info_nodriver_json.golden"},
		{name: "two GPUs", report: twoGPUReport, golden: "gpu_info_two.golden"},
		{name: "two GPUs json", report: twoGPUReport, json: true, golden: "gpu_info_two_json.golden"},
		{name: "query failed", report: partialReport, probeErr: errLost, golden: "gpu_info_partial.golden"},
		{name: "query failed json", report: partialReport, probeErr: errLost, json: true, golden: "gpu_info_partial_json.golden"},
		{name: "no supported GPU", report: oldGPUReport, golden: "gpu_info_old.golden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			calls := 0
			opts := &gpuInfoOptions{
				IO:   IO{Out: &out},
				JSON: tt.json,
				Probe: func(context.Context, ...gpu.Option) (gpu.Report, error) {
					calls++
					return tt.report, tt.probeErr
				},
			}
			err := gpuInfoRun(t.Context(), opts)
			if tt.probeErr == nil && err != nil {
				t.Fatalf("gpuInfoRun() error = %v", err)
			}
			if tt.probeErr != nil && !errors.Is(err, tt.probeErr) {
				t.Fatalf("gpuInfoRun() error = %v, want it to wrap %v", err, tt.probeErr)
			}
			if calls != 1 {
				t.Errorf("probe called %d times, want 1", calls)
			}
			gpuGolden(t, tt.golden, out.Bytes())
		})
	}
}

// TestGPUInfoCommand runs the command tree with the real probe, pointed at a library that does
// not exist, so that the outcome is the same on every machine.
func TestGPUInfoCommand(t *testing.T) {
	const missing = "/nonexistent/libnvidia-ml.so.1"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{
			name:     "no driver",
			args:     []string{"gpu", "info", "--nvml-lib", missing},
			wantCode: ExitOK,
			wantOut:  "no NVIDIA GPU: no NVIDIA driver (" + missing + " not found); ONNX Runtime will use the CPU\n",
		},
		{
			name:     "no driver json",
			args:     []string{"gpu", "info", "--json", "--nvml-lib", missing},
			wantCode: ExitOK,
			wantOut: `{
  "driver": "",
  "cuda": "",
  "devices": [],
  "available": false,
  "reason": "no NVIDIA driver (` + missing + ` not found)"
}
`,
		},
		{name: "argument", args: []string{"gpu", "info", "extra"}, wantCode: ExitUsage, wantErr: "unknown command"},
		{name: "unknown subcommand", args: []string{"gpu", "bogus"}, wantCode: ExitUsage, wantErr: `unknown command "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Main(t.Context(), "atma", tt.args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, Getenv: func(string) string { return "" }})
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, errOut.String())
			}
			if tt.wantErr == "" {
				if diff := cmp.Diff(tt.wantOut, out.String()); diff != "" {
					t.Errorf("stdout mismatch (-want +got):\n%s", diff)
				}
				if errOut.Len() != 0 {
					t.Errorf("stderr = %q, want nothing", errOut.String())
				}
			} else if !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stderr = %q, want it to contain %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

func TestGPUHelp(t *testing.T) {
	for _, args := range [][]string{{"gpu"}, {"gpu", "--help"}, {"gpu", "info", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out bytes.Buffer
			code := Main(t.Context(), "atma", args, IO{In: strings.NewReader(""), Out: &out, ErrOut: &out})
			if code != ExitOK {
				t.Fatalf("exit code = %d, want 0; output %q", code, out.String())
			}
			for _, want := range []string{"Usage:", "Examples:", "atma gpu info"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("help lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
}
