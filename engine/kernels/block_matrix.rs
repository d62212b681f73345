//! A weight matrix held as GGML blocks (the GGUF file's bytes), checked once: `n` output features, each a row of
//! `k / block_weights` consecutive blocks of one [`BlockFormat`] (32 weights per block, 256 for the K-quants).

use super::block_format::BlockFormat;

/// A weight matrix of `n` rows (output features) by `k` inputs, each row `k / block_weights` consecutive blocks.
#[derive(Debug, Clone, Copy)]
pub struct BlockMatrix<'a> {
    format: BlockFormat,
    n: usize,
    k: usize,
    data: &'a [u8],
}

/// Why a buffer cannot be read as a [`BlockMatrix`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlockMatrixError {
    /// `k` is not a positive multiple of the format's block.
    #[error("K = {k} is not a positive multiple of {block} ({format}'s block)")]
    BadK {
        /// Inputs.
        k: usize,
        /// Weights per block of the format.
        block: usize,
        /// The block format's name.
        format: &'static str,
    },
    /// The byte count does not match `n x k/block_weights` blocks.
    #[error("{format} weights for N = {n}, K = {k} need {expected} bytes, found {found}")]
    Size {
        /// The block format's name.
        format: &'static str,
        /// Output features.
        n: usize,
        /// Inputs.
        k: usize,
        /// `n * k / block_weights * block_bytes`.
        expected: usize,
        /// Bytes given.
        found: usize,
    },
}

impl<'a> BlockMatrix<'a> {
    /// Checks that `data` holds exactly `n * k / block_weights` blocks of `format`.
    pub fn new(format: BlockFormat, n: usize, k: usize, data: &'a [u8]) -> Result<Self, BlockMatrixError> {
        let block = format.block_weights();
        if k == 0 || !k.is_multiple_of(block) {
            return Err(BlockMatrixError::BadK { k, block, format: format.name() });
        }
        let expected = n * (k / block) * format.block_bytes();
        if data.len() != expected {
            return Err(BlockMatrixError::Size { format: format.name(), n, k, expected, found: data.len() });
        }
        Ok(BlockMatrix { format, n, k, data })
    }

    /// The block format.
    pub fn format(&self) -> BlockFormat {
        self.format
    }

    /// Output features (rows of `W`).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Inputs (columns of `W`).
    pub fn k(&self) -> usize {
        self.k
    }

    /// The bytes of output feature `n`'s blocks.
    pub fn row_bytes(&self, n: usize) -> &'a [u8] {
        let len = (self.k / self.format.block_weights()) * self.format.block_bytes();
        &self.data[n * len..(n + 1) * len]
    }

    /// Copies the rows `columns` (output features, in that order, repeats allowed) into `out` (cleared first), so
    /// `BlockMatrix::new(format, columns.len(), k, out)` is the column-restricted matrix: the CTC NAT's
    /// per-sentence output shortlist on the kernels that multiply the block layout as stored (AVX2, scalar).
    ///
    /// # Panics
    /// If a column is not below `n` (the caller checks the indices it was given).
    pub fn gather_rows(&self, columns: &[u32], out: &mut Vec<u8>) {
        out.clear();
        out.reserve(columns.len() * self.row_bytes(0).len());
        for &c in columns {
            assert!((c as usize) < self.n, "column {c} outside N = {}", self.n);
            out.extend_from_slice(self.row_bytes(c as usize));
        }
    }
}
