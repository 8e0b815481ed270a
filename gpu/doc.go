// Package gpu finds the NVIDIA GPUs on this machine and picks the one ONNX Runtime's CUDA
// execution provider should run on.
//
// Probe asks the NVIDIA Management Library (NVML, libnvidia-ml.so.1, shipped with the driver)
// for the driver and CUDA versions and, per device, its name, UUID, memory and compute
// capability:
//
//	rep, err := gpu.Probe(ctx)
//	if err != nil {
//		// Some query failed after NVML started; rep still holds everything that was read.
//		logger.Warn("probe GPUs", "err", err)
//	}
//	if id, ok := rep.PreferCUDA(); ok {
//		// run ONNX Runtime's CUDA execution provider on device id
//	} else {
//		// rep.Reason says why not (no driver, no GPU, ...); use the CPU
//	}
//
// A machine without a GPU is not an error: Probe returns a Report with Available false and
// a Reason such as "no NVIDIA driver (libnvidia-ml.so.1 not found)". Probe returns an error
// only when the context ends or a query fails after NVML started, and even then the Report
// holds what was read, with each failed device's problem in Device.Error.
//
// # Safety
//
// The NVML binding resolves its C symbols only when the library loads; calling any NVML
// function other than Init after the library failed to load crashes the process. Probe
// therefore calls Init first and nothing else when it fails, and calls Shutdown after every
// successful Init. NVML state is process-wide, so Probe serialises its use of NVML: it is
// safe to call repeatedly and from many goroutines. It recovers a panic raised inside the
// binding and reports it as an error.
//
// # Choosing a device
//
// PreferCUDA considers the devices that answered every query and have compute capability
// 6.0 or newer (what ONNX Runtime's CUDA 12 builds support), then prefers H200 over H100
// over A100 over anything else (Classify maps a device name to its Class), then the most
// free memory, then the lowest index.
//
// Device indexes are NVML's, which enumerate GPUs by PCI bus ID. CUDA numbers them the same
// way only when CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES is unset; on a machine
// with one GPU both give 0.
package gpu
