// Package sentry trains the Sentry gate: a frozen sentence-embedding backbone followed by two
// small projection heads that decide which memory pairs go to the LLM Judge. The gate itself
// (the heads' types and forward pass, the pair head, the routing rule, thresholds and reading
// a checkpoint for inference) is package sentry/gate, a leaf that imports none of the
// training stack; this package builds on it with Gorgonia, gonum/plot and the embedding
// cache, and writes the checkpoints gate reads.
//
// # Model
//
// Each text's backbone embedding (d values) passes through two heads,
//
//	topic: Linear(d, 512) → ReLU → Linear(512, 256) → L2 normalisation
//	logic: Linear(d, 512) → Tanh → Linear(512, 256) → L2 normalisation
//
// (sizes in Config; the types are gate.Heads, gate.Head and gate.PairHead). For a pair (u, p)
// the topic similarity is a = ⟨z_top(u), z_top(p)⟩ and the logic similarity
// b = ⟨z_log(u), z_log(p)⟩. Training minimises, per batch, the mean of
// α(a − y_top)² + β(b − y_log)². Normalisation is z = h / sqrt(Σh² + gate.NormEps) everywhere.
//
// That is the paper's model and the zero Config's (gate.LogicCosine). Config.Logic =
// gate.LogicPair adds a pair head (gate.PairHead, beyond the paper) that computes b from the
// two logic vectors instead of their dot product:
//
//	b = tanh(Linear(h, 1)(ReLU(Linear(2·out, h)([|z_log(u) − z_log(p)|, z_log(u) ⊙ z_log(p)]))))
//
// with h = Config.PairHidden (64), trained with the logic head under the same loss. A dot
// product of unit vectors cannot fit a relation that is not transitive (u agrees with v, v
// with w, u conflicts with w), and our backbones put "the same sentence with another value"
// closer than a restatement in other words, so a cosine sees many conflicts as agreement;
// the pair head can weigh which coordinates differ. Its figures against the paper's head are
// in docs/benchmarks.md.
//
// # Gate
//
// gate.Gate routes a pair to the Judge when a > τ_top ∧ (b < τ_log ∨ a − b > τ_gap); the
// defaults are 0.60, 0.45 and 0.15. The inference path is package sentry/gate, plain Go
// (gonum's BLAS kernels, no Gorgonia): gate.Heads.Project or ProjectAll once per text, then
// gate.Gate.Score per pair; see its documentation.
//
// # Labels
//
// Example holds the two embeddings and targets in [-1, 1]. The usual labels are YTop = 1 for
// the same slot (the same attribute of the same entity), else 0, and YLog = 1 for statements
// that agree, else 0. A pair is a conflict ("same slot and conflicting", what the gate should
// route) when YTop > 0.5 and YLog < 0.5; Evaluate and Calibrate use that rule.
//
// # Training
//
// Train builds a Gorgonia graph of both heads for a full batch and takes its gradients; the
// optimizer is AdamW with decoupled weight decay written here (Gorgonia's own AdamW does not
// apply its updates), updating the parameters' backing arrays in place. The last, smaller
// batch of an epoch runs in the same graph: its missing rows are padded and weigh zero, the
// real rows 1/n, so loss and gradients equal those of a graph built for n rows. Weights are
// initialised from Config.Seed (Kaiming-uniform for the ReLU layer, Xavier-uniform
// otherwise), and each epoch's shuffle is seeded by (Seed, epoch), so a run is reproducible
// and a resumed run continues exactly where it stopped. The pair head's graph normalises the
// logic outputs with 1/sqrt and reshapes before its tanh: Gorgonia's gradients of
// InverseSqrt and of a Reshape of a Tanh are wrong (TestPairGradientCheck compares every
// gradient with finite differences).
//
// Every epoch Train validates, writes sentry_last.safetensors (and sentry_best.safetensors
// when the validation loss improves), each with its optimizer state, appends a line to
// metrics.jsonl and redraws loss.png. Patience > 0 stops early. Cancelling the context saves
// sentry_last at the current batch and returns an error wrapping context.Canceled; pass that
// file as Options.Resume to continue. NaN or infinite embeddings, targets or losses stop
// training with an error naming the example or batch. After training, Calibrate chooses the
// thresholds on the validation split (or CalibrateSets on Options.CalibrationSets) and they
// are written into sentry_best.
//
// # Checkpoints
//
// Checkpoints are safetensors files (8-byte little-endian header length, JSON header, raw
// little-endian data; the codec is package sentry/safetensors), written by this package and
// read by package sentry/gate, whose Layout fixes the tensors' names, shapes and order.
// Tensors use PyTorch's names and layout, so
//
//	nn.ModuleDict({"topic_head": nn.Sequential(nn.Linear(d, 512), nn.ReLU(), nn.Linear(512, 256)),
//	               "logic_head": nn.Sequential(nn.Linear(d, 512), nn.Tanh(), nn.Linear(512, 256))})
//
// loads them with load_state_dict(safetensors.torch.load_file(path)); a pair head adds
// "pair_head": nn.Sequential(nn.Linear(2·out, h), nn.ReLU(), nn.Linear(h, 1)), with tanh
// applied to its output. The metadata holds the format and version, backbone id and model
// sha256, sizes, logic_head ("cosine" or "pair", with pair_hidden_dim; a file without it,
// written before the pair head existed, holds the paper's head), α and β, the thresholds (and
// whether they were calibrated), the hyper-parameters as JSON, the data hash, epoch, step,
// validation losses, the resume state, and data_sha256, a checksum of the tensors.
// ReadCheckpoint verifies all of it, reading the file through gate.DecodeCheckpointWith (one
// reader of the format; gate.ReadCheckpoint reads the inference part alone): a truncated or
// altered file wraps gate.ErrCorrupt (so does an unknown logic_head, or one the
// hyper-parameters contradict), a newer format gate.ErrVersion, tensors of other sizes or
// missing or extra pair tensors gate.ErrShapeMismatch; LoadCheckpoint also rejects another
// backbone with gate.ErrBackboneMismatch. Files are written to a temporary name and
// renamed. The optimizer state lives beside a checkpoint (OptimizerPath: x.optim.safetensors,
// tensors "<param>.exp_avg" and "<param>.exp_avg_sq") and records the checksum of the weights
// it belongs to.
//
// # Evaluation and calibration
//
// Evaluate reports each head's MSE, the ROC-AUC of conflict detection scored by gap = a − b
// (and, for comparison, by 1 − b), and the gate's precision, recall, F1 and routing rate.
// Calibrate searches τ_top and τ_log over [-1, 1] and τ_gap over [-2, 2] on a grid (step
// 0.02) for the thresholds that reach the target conflict recall (0.95) while routing the
// fewest pairs. CalibrateSets requires that recall of each of several sets: with phrasing
// families held out of training into the validation split (data.SplitConfig.ValFamilies),
// Splits.ValSeen and Splits.ValUnseen make the thresholds reach it on unseen wording too,
// not only in distribution.
//
// # Export
//
// ONNX and Checkpoint.WriteONNX export the heads as an ONNX model (input "embedding"
// [batch, d]; outputs "topic" and "logic" [batch, out]) built with package internal/onnx/graph; its
// outputs match gate.Heads.Project within 1e-5 in ONNX Runtime (VerifyONNX). Heads with a pair
// head are refused (ErrPairExport): the export's outputs are per text, and the pair head
// needs both texts.
//
// # cgo
//
// Only VerifyONNX runs ONNX Runtime, which is loaded through cgo; in a build without cgo
// (CGO_ENABLED=0) it is a stub that returns an error, and the rest of the package — training,
// evaluation, checkpoints, the export — builds and works.
//
// # Embedding cache
//
// Cache wraps an Embedder (such as *onnx.Encoder) and keeps each distinct text's embedding in
// an append-only file per backbone key, with a checksum per record; damaged records are
// recomputed, and a file lock lets processes share it. EmbedPairs turns labelled text pairs
// into Examples, embedding each distinct text once.
package sentry
