package onnx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitBadLibrary runs in a child process, because ONNX Runtime can be loaded only once
// per process: a file that is not a shared library must give an error, never a crash, and a
// later Init with the right library must still work.
func TestInitBadLibrary(t *testing.T) {
	if os.Getenv("ATMA_TEST_BAD_LIB_CHILD") == "1" {
		bad := filepath.Join(t.TempDir(), "libonnxruntime.so")
		if err := os.WriteFile(bad, []byte("not an ELF file"), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Init(bad)
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Fatalf("Init(garbage) = %v, want an error naming the file", err)
		}
		if err := Init(filepath.Join(t.TempDir(), "missing.so")); err == nil || !strings.Contains(err.Error(), "make onnxruntime") {
			t.Fatalf("Init(missing) = %v, want an error naming the fix", err)
		}
		if err := Init(testLibrary(t)); err != nil {
			t.Fatalf("Init after failures: %v", err)
		}
		if Version() == "" {
			t.Fatal("no version after Init")
		}
		if err := Init(bad); err == nil || !strings.Contains(err.Error(), "already loaded") {
			t.Fatalf("second library: %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitBadLibrary$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ATMA_TEST_BAD_LIB_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestParseProvider(t *testing.T) {
	for in, want := range map[string]Provider{"": ProviderAuto, "auto": ProviderAuto, "cpu": ProviderCPU, "cuda": ProviderCUDA} {
		if got, err := ParseProvider(in); err != nil || got != want {
			t.Errorf("ParseProvider(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseProvider("tpu"); err == nil {
		t.Error("tpu accepted")
	}
	err := SessionConfig{Provider: "tpu", DeviceID: -1, IntraOpThreads: -2}.Validate()
	for _, w := range []string{"tpu", "device id -1", "threads -2"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Validate error %v does not mention %q", err, w)
		}
	}
}
