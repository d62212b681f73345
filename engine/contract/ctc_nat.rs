//! `manifest.json` of a CTC NAT export (`kind: ctc_nat`, export/graph_ctc_nat.py; contract in export/README.md):
//! the encoder's dimensions, the blank / mask / pad ids, and the upsampling policy the model was trained with.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::header::{self, Header, ModelKind};
use crate::error::{Error, Result};

/// A parsed CTC NAT manifest plus its folder.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NatManifest {
    /// Format, version, kind ([`ModelKind::CtcNat`] here), graph, source, file hashes and folder.
    #[serde(flatten)]
    pub header: Header,
    /// Encoder dimensions.
    pub dims: NatDims,
    /// CTC-specific ids and the upsampling policy.
    pub ctc: CtcSpec,
    /// Tokenizer file inside the folder (source and target share it).
    #[serde(default = "header::default_tokenizer")]
    pub tokenizer: String,
}

/// Encoder dimensions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NatDims {
    /// Output vocabulary (logits width; includes blank).
    pub vocab_size: usize,
    /// Model width.
    pub hidden_size: usize,
    /// Encoder layers.
    pub num_layers: usize,
    /// Attention heads.
    pub num_heads: usize,
    /// Size of the learned position table: the most positions one pass can have.
    pub max_position_embeddings: usize,
}

/// CTC ids and upsampling.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CtcSpec {
    /// The blank id CTC decoding drops.
    pub blank_id: u32,
    /// The id inserted between source tokens.
    pub mask_id: u32,
    /// The id padding shorter sentences of a batch (masked out by `attention_mask`).
    pub pad_id: u32,
    /// How the source is upsampled.
    pub upsample: UpsampleSpec,
    /// The output vocabulary when the head was restricted to it (`export ctc-nat --output-vocab`): column `j` of
    /// `logits` scores token `output_ids[j]`; absent, column `j` is token `j`. Sorted, unique, contains `blank_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_ids: Option<Vec<u32>>,
    /// The per-sentence lexical output shortlist, where the export has one (`export ctc-nat --shortlist`): its
    /// table file and the graph input (`output_columns`) that restricts the head to a list of logits columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shortlist: Option<ShortlistSpec>,
}

/// `ctc.shortlist` of the manifest: the table (engine/nat/shortlist.rs reads it) and how it was made.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShortlistSpec {
    /// The table file inside the model folder (`shortlist.json`).
    pub file: String,
    /// Its sha256 (hex): the table is checked against it when the model opens.
    pub sha256: String,
    /// The vocabulary the table's ids index (must be `dims.vocab_size`).
    pub vocab: usize,
    /// Target tokens kept per source token.
    pub top_k: usize,
    /// Most frequent target tokens always kept.
    pub frequent: usize,
    /// The graph input that takes the columns: `output_columns`, int64 `[columns]`.
    #[serde(default = "default_columns_input")]
    pub input: String,
}

fn default_columns_input() -> String {
    "output_columns".into()
}

impl CtcSpec {
    /// Columns of `logits`: the output vocabulary's size, or `vocab`.
    pub fn logits_width(&self, vocab: usize) -> usize {
        self.output_ids.as_ref().map_or(vocab, Vec::len)
    }

    /// The column of `logits` that scores `blank_id`.
    pub fn blank_column(&self) -> u32 {
        match &self.output_ids {
            // checked at load: the sorted list contains blank_id
            Some(ids) => ids.binary_search(&self.blank_id).map_or(self.blank_id, |j| j as u32),
            None => self.blank_id,
        }
    }

    /// The token id of column `column` of `logits`.
    pub fn token_of_column(&self, column: u32) -> u32 {
        match &self.output_ids {
            Some(ids) => ids.get(column as usize).copied().unwrap_or(column),
            None => column,
        }
    }
}

/// How source tokens are spread over the output positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpsamplePolicy {
    /// Source token i at position floor(i * L / n), `<mask>` elsewhere.
    MaskInsertion,
}

/// The upsampling policy.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UpsampleSpec {
    /// The placement rule (only [`UpsamplePolicy::MaskInsertion`]).
    pub policy: UpsamplePolicy,
    /// Output positions per source token the model was trained with.
    pub rate: f32,
    /// Most positions per pass (the position table).
    pub position_limit: usize,
}

impl NatManifest {
    /// Reads `dir/manifest.json` and checks the kind, version, ids and files.
    pub fn load(dir: &Path) -> Result<Self> {
        let (path, mut m): (_, NatManifest) = header::parse(dir, ModelKind::CtcNat, "CTC NAT manifest", |_, raw| {
            format!("kind is `{raw}`, but strategy `nat` needs a CTC NAT model (kind `ctc_nat`, `python -m export ctc-nat`)")
        })?;
        let c = &m.ctc;
        if !(c.upsample.rate >= 1.0) || c.upsample.position_limit == 0 || c.upsample.position_limit > m.dims.max_position_embeddings {
            return Err(Error::model(
                &path,
                format!(
                    "ctc.upsample: rate {} must be >= 1 and position_limit {} within 1..={} (dims.max_position_embeddings)",
                    c.upsample.rate, c.upsample.position_limit, m.dims.max_position_embeddings
                ),
            ));
        }
        for (name, id) in [("blank_id", c.blank_id), ("mask_id", c.mask_id), ("pad_id", c.pad_id)] {
            if id as usize >= m.dims.vocab_size {
                return Err(Error::model(&path, format!("ctc.{name} {id} is outside the vocabulary ({})", m.dims.vocab_size)));
            }
        }
        if let Some(ids) = &c.output_ids {
            let sorted = ids.windows(2).all(|w| w[0] < w[1]);
            if ids.is_empty() || !sorted || ids.last().is_some_and(|&t| t as usize >= m.dims.vocab_size) {
                return Err(Error::model(
                    &path,
                    format!("ctc.output_ids: must be sorted, unique token ids within the vocabulary (0..{})", m.dims.vocab_size),
                ));
            }
            if ids.binary_search(&c.blank_id).is_err() {
                return Err(Error::model(&path, format!("ctc.output_ids: must contain the blank id {}", c.blank_id)));
            }
        }
        if let Some(s) = &c.shortlist {
            if s.vocab != m.dims.vocab_size {
                return Err(Error::model(
                    &path,
                    format!("ctc.shortlist.vocab is {}, but dims.vocab_size is {}: the table belongs to another model", s.vocab, m.dims.vocab_size),
                ));
            }
            header::check_files(dir, &[&s.file])?;
        }
        header::check_files(dir, &[&m.header.graph.file, &m.tokenizer])?;
        m.header.dir = dir.to_path_buf();
        Ok(m)
    }

    /// A short display name: the folder name.
    pub(crate) fn display_name(&self) -> String {
        self.header.display_name()
    }
}
