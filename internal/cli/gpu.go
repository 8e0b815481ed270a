package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/atma-dev/atma/gpu"
)

type gpuInfoOptions struct {
	IO IO
	// Probe reports the GPUs; gpu.Probe unless a test replaces it.
	Probe       func(ctx context.Context, opts ...gpu.Option) (gpu.Report, error)
	JSON        bool
	NVMLLibrary string
}

func newCmdGPU(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "gpu <command>",
		Short:   "Inspect the NVIDIA GPUs ONNX Runtime can use",
		Example: "  atma gpu info\n  atma gpu info --json",
		// Runnable so that cobra checks the arguments: "atma gpu bogus" is a usage error.
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCmdGPUInfo(f, nil))
	return cmd
}

func newCmdGPUInfo(f *Factory, runF func(context.Context, *gpuInfoOptions) error) *cobra.Command {
	opts := &gpuInfoOptions{IO: f.IO, Probe: gpu.Probe}
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Show the NVIDIA driver, the GPUs, and the one ONNX Runtime would use",
		Long: `Show the NVIDIA driver and CUDA versions and every GPU NVML reports: index, class,
name, memory, compute capability and UUID, and the device ONNX Runtime's CUDA execution
provider would run on (compute capability 6.0 or newer; H200 over H100 over A100 over others,
then the most free memory).

A machine without an NVIDIA driver or GPU is not an error: the command says so and exits 0.
It exits 1 when a query fails after NVML started, after printing what it could read.`,
		Example: "  atma gpu info\n  atma gpu info --json | jq '.devices[].name'\n  atma gpu info --nvml-lib /usr/lib64/libnvidia-ml.so.1",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return gpuInfoRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&opts.NVMLLibrary, "nvml-lib", "", "NVML library to load (default: libnvidia-ml.so.1 from the loader's search path)")
	return cmd
}

func gpuInfoRun(ctx context.Context, opts *gpuInfoOptions) error {
	var probeOpts []gpu.Option
	if opts.NVMLLibrary != "" {
		probeOpts = append(probeOpts, gpu.WithLibraryPath(opts.NVMLLibrary))
	}
	rep, probeErr := opts.Probe(ctx, probeOpts...)
	var err error
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = writeGPUReport(opts.IO.Out, rep)
	}
	if probeErr != nil {
		return fmt.Errorf("some GPU queries failed: %w", probeErr)
	}
	return err
}

// writeGPUReport prints rep for people.
func writeGPUReport(w io.Writer, rep gpu.Report) error {
	orDash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	// gib formats n bytes, or "-" when the device's memory query failed.
	gib := func(n, total uint64) string {
		if total == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if rep.Driver != "" {
		fmt.Fprintf(tw, "driver:\t%s\n", rep.Driver)
	}
	if rep.CUDA != "" {
		fmt.Fprintf(tw, "CUDA:\t%s\n", rep.CUDA)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Devices) > 0 {
		fmt.Fprintln(tw, "INDEX\tCLASS\tNAME\tMEMORY TOTAL\tMEMORY FREE\tCOMPUTE\tUUID")
		for _, d := range rep.Devices {
			compute := "-"
			if d.ComputeMajor > 0 {
				compute = fmt.Sprintf("%d.%d", d.ComputeMajor, d.ComputeMinor)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Index, d.Class, orDash(d.Name),
				gib(d.MemoryTotal, d.MemoryTotal), gib(d.MemoryFree, d.MemoryTotal), compute, orDash(d.UUID))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, d := range rep.Devices {
			if d.Error != "" {
				fmt.Fprintf(w, "GPU %d: %s\n", d.Index, d.Error)
			}
		}
	}
	var err error
	switch id, ok := rep.PreferCUDA(); {
	case ok:
		name := ""
		for _, d := range rep.Devices {
			if d.Index == id {
				name = d.Name
			}
		}
		_, err = fmt.Fprintf(w, "CUDA device for ONNX Runtime: %d (%s)\n", id, name)
	case !rep.Available:
		_, err = fmt.Fprintf(w, "no NVIDIA GPU: %s; ONNX Runtime will use the CPU\n", rep.Reason)
	default:
		_, err = fmt.Fprintf(w, "no GPU with compute capability %d.0 or newer; ONNX Runtime will use the CPU\n", gpu.MinComputeMajor)
	}
	return err
}
