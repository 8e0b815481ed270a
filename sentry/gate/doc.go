// Package gate runs the Sentry gate: the trained topic and logic projection heads over a
// frozen sentence-embedding backbone, the optional pair head, and the rule that decides which
// memory pairs go to the LLM Judge. It is the inference half of Sentry, the half the overlay
// runs on every ingest; package sentry trains, evaluates, calibrates and exports the heads
// and builds on this package.
//
// The package is a leaf: it imports the standard library, gonum's pure-Go BLAS kernels and
// package sentry/safetensors, and nothing of the training stack (no Gorgonia, gonum/plot,
// progress bars, ONNX Runtime or NVML), so a program that only gates pairs builds with
// CGO_ENABLED=0. The name says what it is: the gate and everything it needs to score a pair.
//
// # Model
//
// Each text's backbone embedding (d values) passes through two heads,
//
//	topic: Linear(d, 512) → ReLU → Linear(512, 256) → L2 normalisation
//	logic: Linear(d, 512) → Tanh → Linear(512, 256) → L2 normalisation
//
// (the sizes are package sentry's defaults). For a pair (u, p) the topic similarity is
// a = ⟨z_top(u), z_top(p)⟩ and the logic similarity b = ⟨z_log(u), z_log(p)⟩ (LogicCosine,
// the paper's head). Normalisation is z = h / sqrt(Σh² + NormEps) everywhere. With a pair head
// (PairHead, LogicPair) b is computed from the two logic vectors instead:
//
//	b = tanh(Linear(h, 1)(ReLU(Linear(2·out, h)([|z_log(u) − z_log(p)|, z_log(u) ⊙ z_log(p)]))))
//
// Weights are stored input-major (x·W), PyTorch's layout transposed.
//
// # Gate
//
// Gate routes a pair to the Judge when a > τ_top ∧ (b < τ_log ∨ a − b > τ_gap); the defaults
// (DefaultThresholds) are 0.60, 0.45 and 0.15. Heads.Project or Heads.ProjectAll runs once
// per text (gonum's Sgemv and Sgemm), then Gate.Score per pair, which is two dot products, or
// a dot product and the pair head's small MLP. Projections made by Heads.ProjectAll (or
// rebuilt from stored vectors with Heads.Projection) carry the heads' pair head, so
// Gate.Score needs no other wiring; a Projection literal carries none, and Score uses the
// pair head of whichever side has one. Heads, Gate and Projections are read-only and safe
// for concurrent use.
//
// # Checkpoints
//
// ReadCheckpoint and LoadCheckpoint read a checkpoint written by package sentry (a
// safetensors file, see package sentry's documentation for the format) and return the heads
// with the metadata inference needs (Meta: backbone, sizes, thresholds, the weights'
// checksum). They verify what inference relies on: the safetensors structure, format and
// version, the weights' checksum (data_sha256), the activations, NormEps, the logic head
// and the tensors' names, dtypes and shapes (Layout), and that every weight is finite. A
// truncated or altered file wraps ErrCorrupt, a newer format ErrVersion, tensors of other
// sizes ErrShapeMismatch; LoadCheckpoint also rejects another backbone with
// ErrBackboneMismatch. The training metadata (hyper-parameters, losses, resume state) is
// package sentry's: its ReadCheckpoint reads the same file through DecodeCheckpointWith, so
// there is one reader of the format.
//
// Layout, Params, Checksum, DecodeVerified and MetaReader are exported for
// package sentry, which writes checkpoints and optimizer state in the same layout.
//
// Package gatetest makes small seeded heads for tests.
package gate
