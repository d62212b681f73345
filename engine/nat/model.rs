//! The CTC NAT encoder: one pass per batch of upsampled sentences, padded to the longest one (`attention_mask`
//! hides the padding from attention), run by whatever backend opened its [`EncoderGraph`].

use std::path::Path;

use super::shortlist::Shortlist;
use crate::backend::{Backend, ColumnSelection, EncoderGraph};
use crate::contract::{DType, Dim, NatManifest};
use crate::error::{Error, Result};

/// A loaded CTC NAT encoder.
pub struct NatModel {
    manifest: NatManifest,
    graph: Box<dyn EncoderGraph>,
    /// The output shortlist table, where the export has one (`ctc.shortlist`).
    shortlist: Option<Shortlist>,
    /// Reused input staging: ids and mask of the last batch.
    ids: Vec<i64>,
    mask: Vec<i64>,
}

/// The logits of one batch, copied out: the real rows of `vocab` scores of each sentence.
#[derive(Debug, Clone)]
pub struct BatchLogits {
    rows: Vec<Vec<f32>>,
    vocab: usize,
}

impl BatchLogits {
    /// Sentences in the batch.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Vocabulary size (row width).
    pub fn vocab(&self) -> usize {
        self.vocab
    }

    /// The real (unpadded) rows of sentence `i`, row-major.
    pub fn sentence(&self, i: usize) -> &[f32] {
        &self.rows[i]
    }
}

impl NatModel {
    /// Opens the model folder `dir`: manifest, session, and the graph checked against the manifest.
    pub fn open(backend: &dyn Backend, dir: &Path) -> Result<Self> {
        let manifest = NatManifest::load(dir)?;
        let err = |message: String| Error::Contract { model: dir.to_path_buf(), message };
        for name in ["input_ids", "attention_mask"] {
            let spec = manifest.header.graph.inputs.iter().find(|t| t.name == name);
            match spec {
                Some(s) if s.dtype == DType::Int64 && s.shape.len() == 2 => {}
                Some(s) => return Err(err(format!("input `{name}` must be int64 [batch, positions], manifest says {} {:?}", s.dtype, s.shape))),
                None => return Err(err(format!("manifest declares no input `{name}`, which the CTC NAT contract requires"))),
            }
        }
        let width = manifest.ctc.logits_width(manifest.dims.vocab_size);
        match manifest.header.graph.outputs.iter().find(|t| t.name == "logits") {
            Some(s) if s.dtype == DType::Float32 && s.shape.len() == 3 => {
                if let Some(Dim::Fixed(v)) = s.shape.last() {
                    if *v as usize != width {
                        let what = match &manifest.ctc.output_ids {
                            Some(ids) => format!("ctc.output_ids has {} ids", ids.len()),
                            None => format!("dims.vocab_size is {}", manifest.dims.vocab_size),
                        };
                        return Err(err(format!("output `logits`: last dimension is {v}, but {what}")));
                    }
                }
            }
            Some(s) => {
                return Err(err(format!("output `logits` must be float32 [batch, positions, vocab], manifest says {} {:?}", s.dtype, s.shape)))
            }
            None => return Err(err("manifest declares no output `logits`, which the CTC NAT contract requires".into())),
        }
        // `token_ids` is optional (exports before it have only `logits`); where declared it must be int64 [batch, positions].
        if let Some(s) = manifest.header.graph.outputs.iter().find(|t| t.name == "token_ids") {
            if s.dtype != DType::Int64 || s.shape.len() != 2 {
                return Err(err(format!("output `token_ids` must be int64 [batch, positions], manifest says {} {:?}", s.dtype, s.shape)));
            }
        }
        // `output_columns` (int64 [columns]) and `output_columns_mask` (uint8 [rows, columns]) come with
        // `ctc.shortlist` and only with it.
        let columns_input = manifest.header.graph.inputs.iter().find(|t| t.name == "output_columns");
        let mask_input = manifest.header.graph.inputs.iter().find(|t| t.name == "output_columns_mask");
        if manifest.ctc.shortlist.is_some() && columns_input.is_some() && !mask_input.is_some_and(|m| m.dtype == DType::Uint8 && m.shape.len() == 2) {
            return Err(err(
                "ctc.shortlist is set, but the graph declares no input `output_columns_mask` (uint8 [rows, columns]; re-export with `--shortlist`)"
                    .into(),
            ));
        }
        let shortlist = match (&manifest.ctc.shortlist, columns_input) {
            (Some(spec), Some(s)) if s.dtype == DType::Int64 && s.shape.len() == 1 && spec.input == "output_columns" => {
                Some(Shortlist::load(dir, spec, &manifest.ctc, manifest.dims.vocab_size)?)
            }
            (Some(spec), Some(s)) => {
                return Err(err(format!(
                "ctc.shortlist.input is `{}` and input `output_columns` is {} {:?}: the contract is an int64 [columns] input named `output_columns`",
                spec.input, s.dtype, s.shape
            )))
            }
            (Some(_), None) => {
                return Err(err("ctc.shortlist is set, but the graph declares no input `output_columns` (re-export with `--shortlist`)".into()))
            }
            (None, Some(_)) => return Err(err("input `output_columns` is declared, but ctc.shortlist (the table that fills it) is missing".into())),
            (None, None) => None,
        };
        // The manifest-side contract holds; now the graph must match the manifest (checked by the backend).
        let graph = backend.open_encoder(dir, &manifest.header.graph, width)?;
        Ok(NatModel { manifest, graph, shortlist, ids: Vec::new(), mask: Vec::new() })
    }

    /// The manifest.
    pub fn manifest(&self) -> &NatManifest {
        &self.manifest
    }

    /// Seconds spent inside the backend so far.
    pub fn backend_seconds(&self) -> f64 {
        self.graph.backend_seconds()
    }

    /// Run calls made so far.
    pub fn backend_calls(&self) -> u64 {
        self.graph.backend_calls()
    }

    /// Columns of the logits: the output vocabulary (`ctc.output_ids`) or the whole vocabulary.
    pub fn logits_width(&self) -> usize {
        self.manifest.ctc.logits_width(self.manifest.dims.vocab_size)
    }

    /// Whether the graph outputs `token_ids` (the argmax per position), which greedy decoding reads instead of
    /// the logits.
    pub fn has_token_ids(&self) -> bool {
        self.graph.has_token_ids()
    }

    /// One forward pass over `batch` (already upsampled sentences), logits copied out per sentence. With an
    /// output vocabulary, column `j` scores token `manifest().ctc.output_ids[j]`.
    pub fn forward(&mut self, batch: &[Vec<u32>]) -> Result<BatchLogits> {
        let rows = self.forward_with(batch, |_, rows| Ok(rows.to_vec()))?;
        Ok(BatchLogits { rows, vocab: self.logits_width() })
    }

    /// The output shortlist table, where the export has one.
    pub fn shortlist(&self) -> Option<&Shortlist> {
        self.shortlist.as_ref()
    }

    /// The shortlist's logits columns for `batch` into `out` (the union over its sentences' tokens; `<mask>` adds
    /// nothing) and each sentence's own among them into `allowed` ([`Shortlist::columns`]); `false` (and both
    /// untouched) where the export has no shortlist.
    pub fn shortlist_columns(&mut self, batch: &[Vec<u32>], out: &mut Vec<i64>, allowed: &mut Vec<u8>) -> bool {
        match &mut self.shortlist {
            Some(s) => {
                s.columns(batch, out, allowed);
                true
            }
            None => false,
        }
    }

    /// One forward pass over `batch` asking only for `token_ids`, calling `each(i, ids)` with sentence `i`'s real
    /// positions (token ids, already mapped through the output vocabulary by the graph). `columns`: the logits
    /// columns the head computes and each sentence's argmax chooses among (the output shortlist,
    /// [`NatModel::shortlist_columns`]), or `None` for all.
    pub fn forward_ids_with<R>(
        &mut self,
        batch: &[Vec<u32>],
        columns: Option<ColumnSelection>,
        mut each: impl FnMut(usize, &[i64]) -> Result<R>,
    ) -> Result<Vec<R>> {
        let positions = self.stage(batch)?;
        let data = self.graph.forward_token_ids(&self.ids, &self.mask, batch.len(), positions, columns)?;
        batch.iter().enumerate().map(|(i, s)| each(i, &data[i * positions..i * positions + s.len()])).collect()
    }

    /// One forward pass over `batch` (already upsampled sentences, each within the position limit), calling
    /// `each(i, rows)` with sentence `i`'s real rows (`len * vocab` scores) straight from ONNX Runtime's output,
    /// so decoding never copies [batch, positions, vocab] logits first.
    pub(crate) fn forward_with<R>(&mut self, batch: &[Vec<u32>], mut each: impl FnMut(usize, &[f32]) -> Result<R>) -> Result<Vec<R>> {
        let positions = self.stage(batch)?;
        let width = self.logits_width();
        let data = self.graph.forward(&self.ids, &self.mask, batch.len(), positions)?;
        batch
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let start = i * positions * width;
                each(i, &data[start..start + s.len() * width])
            })
            .collect()
    }

    /// Fills the reused `ids`/`mask` staging with `batch`, padded to its longest sentence; returns that length.
    fn stage(&mut self, batch: &[Vec<u32>]) -> Result<usize> {
        let limit = self.manifest.ctc.upsample.position_limit;
        let positions = batch.iter().map(Vec::len).max().unwrap_or(0);
        if batch.is_empty() || positions == 0 {
            return Err(Error::InvalidRequest("nothing to translate".into()));
        }
        if positions > limit {
            return Err(Error::PromptTooLong { prompt_tokens: positions, context: limit, model_max: limit });
        }
        let pad = self.manifest.ctc.pad_id as i64;
        let n = batch.len() * positions;
        self.ids.clear();
        self.ids.resize(n, pad);
        self.mask.clear();
        self.mask.resize(n, 0);
        for (i, s) in batch.iter().enumerate() {
            for (j, &t) in s.iter().enumerate() {
                self.ids[i * positions + j] = t as i64;
                self.mask[i * positions + j] = 1;
            }
        }
        Ok(positions)
    }
}
