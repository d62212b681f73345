//! CPU kernels the engine ships itself, where ONNX Runtime's own are slow or not batch-invariant.
//!
//! - [`argmax`]: each row's argmax (first maximum, NaN never chosen), 8 values per compare.
//! - [`attention`]: causal attention for one query row and head (rope, bias, softmax), batch-invariant.
//! - [`block_format`]: the GGML block formats (Q4_0, Q4_1, Q8_0, Q4_K, Q6_K) read verbatim from a GGUF file.
//! - [`eagle_head`]: the EAGLE-style draft head (fc over token and hidden state, one decoder layer for the newest
//!   pair, the output matrix) in one call, remembering the pairs of recent calls.
//! - [`encoder_layer`]: one pre-norm encoder layer (norms, block-matmul projections, bidirectional attention,
//!   SwiGLU) in one call, the CTC NAT's.
//! - [`low_rank`]: `y[r] += (x[r] @ A^T) @ B^T` on the rows a gate selects (SPACE's mask-only adapter).
//! - [`half`]: fp16 conversions (exact widening, round-to-nearest-even narrowing) and the KV element types.
//! - [`q8_rows`]: activation rows quantized to 8-bit blocks of 32, the other operand of the integer dot products.
//! - [`block_matrix`]: a weight matrix as GGML blocks, its shape checked once.
//! - [`panel_matrix`]: the same matrix re-laid once as 16-column panels for the AVX-512 VNNI kernel.
//! - `weight_lines`: the panels' storage, packed into memory advised to transparent huge pages.
//! - [`parallel`]: the task-splitting interface the kernels run on (the caller's thread pool).
//! - [`block_matmul`]: `y = x @ W^T` for block-quantized `W`, batch-invariant by construction and fast for the
//!   1..25-row passes speculative decoding runs (docs/KERNELS.md has the measurements).
//!
//! Pure compute: no `ort`, no I/O. The ONNX Runtime backend wraps [`block_matmul`] as the custom operator
//! `ai.specrt::MatMulGgml` (engine/backend/onnxruntime/block_matmul_op.rs).

/// The kernels' revision, part of the key of cached verification cost curves
/// (engine/strategy/speculative/cost.rs): bumped whenever a change moves the cost of an n-token pass relative to a
/// one-token pass (a cached curve is otherwise trusted while its one-token point still matches the machine, so a
/// new multi-row kernel would keep being priced as the old one). 2: verify passes take a panel's both halves in
/// one walk (2026-12-05); 3: Q6_K's two-row passes too; 4: AVX-512 tiles of up to 12 rows and attention with
/// heads in pairs; 5: passes of 4+ rows over large matrices prefetch on every CPU; 6: a verify pass's rows attend
/// each KV head's cache in one sweep (2026-12-07).
pub const REVISION: u32 = 6;

pub mod argmax;
pub mod attention;
pub mod block_format;
pub mod block_matmul;
#[cfg(target_arch = "x86_64")]
mod block_matmul_avx2;
#[cfg(target_arch = "x86_64")]
mod block_matmul_avx2_panels;
#[cfg(target_arch = "x86_64")]
mod block_matmul_avx512;
pub mod block_matrix;
pub mod eagle_head;
pub mod encoder_layer;
pub mod half;
pub mod low_rank;
pub mod panel_matrix;
mod panel_operands;
pub mod parallel;
pub mod q8_rows;
#[cfg(test)]
mod test_weights;
mod weight_lines;

pub use block_format::BlockFormat;
pub use block_matmul::Isa;
pub use block_matrix::{BlockMatrix, BlockMatrixError};
pub use panel_matrix::PanelMatrix;
pub use q8_rows::Q8Rows;
