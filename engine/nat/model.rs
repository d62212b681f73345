//! The CTC NAT encoder on ONNX Runtime: one `Run` per batch of upsampled sentences, padded to the longest one
//! (`attention_mask` hides the padding from attention), logits copied out per sentence.

use std::path::Path;
use std::time::Instant;

use ort::value::Tensor;

use super::manifest::NatManifest;
use crate::backend::onnxruntime::{contract, OnnxRuntime};
use crate::error::{Error, Result};
use crate::model::manifest::Dim;

/// A loaded CTC NAT encoder.
pub struct NatModel {
    manifest: NatManifest,
    session: ort::session::Session,
    backend_seconds: f64,
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
    pub fn open(backend: &OnnxRuntime, dir: &Path) -> Result<Self> {
        let manifest = NatManifest::load(dir)?;
        let session = backend.session(&dir.join(&manifest.graph.file))?;
        contract::compare_io(dir, &manifest.graph.inputs, &manifest.graph.outputs, &session)?;
        let err = |message: String| Error::Contract { model: dir.to_path_buf(), message };
        for name in ["input_ids", "attention_mask"] {
            let spec = manifest.graph.inputs.iter().find(|t| t.name == name);
            match spec {
                Some(s) if s.dtype == "int64" && s.shape.len() == 2 => {}
                Some(s) => return Err(err(format!("input `{name}` must be int64 [batch, positions], manifest says {} {:?}", s.dtype, s.shape))),
                None => return Err(err(format!("manifest declares no input `{name}`, which the CTC NAT contract requires"))),
            }
        }
        match manifest.graph.outputs.iter().find(|t| t.name == "logits") {
            Some(s) if s.dtype == "float32" && s.shape.len() == 3 => {
                if let Some(Dim::Fixed(v)) = s.shape.last() {
                    if *v as usize != manifest.dims.vocab_size {
                        return Err(err(format!("output `logits`: last dimension is {v}, but dims.vocab_size is {}", manifest.dims.vocab_size)));
                    }
                }
            }
            Some(s) => return Err(err(format!("output `logits` must be float32 [batch, positions, vocab], manifest says {} {:?}", s.dtype, s.shape))),
            None => return Err(err("manifest declares no output `logits`, which the CTC NAT contract requires".into())),
        }
        Ok(NatModel { manifest, session, backend_seconds: 0.0 })
    }

    /// The manifest.
    pub fn manifest(&self) -> &NatManifest {
        &self.manifest
    }

    /// Seconds spent inside ONNX Runtime so far.
    pub fn backend_seconds(&self) -> f64 {
        self.backend_seconds
    }

    /// One forward pass over `batch` (already upsampled sentences), logits copied out per sentence.
    pub fn forward(&mut self, batch: &[Vec<u32>]) -> Result<BatchLogits> {
        let rows = self.forward_with(batch, |_, rows| Ok(rows.to_vec()))?;
        Ok(BatchLogits { rows, vocab: self.manifest.dims.vocab_size })
    }

    /// One forward pass over `batch` (already upsampled sentences, each within the position limit), calling
    /// `each(i, rows)` with sentence `i`'s real rows (`len * vocab` scores) straight from ONNX Runtime's output,
    /// so decoding never copies [batch, positions, vocab] logits first.
    pub fn forward_with<R>(&mut self, batch: &[Vec<u32>], mut each: impl FnMut(usize, &[f32]) -> Result<R>) -> Result<Vec<R>> {
        let limit = self.manifest.ctc.upsample.position_limit;
        let positions = batch.iter().map(Vec::len).max().unwrap_or(0);
        if batch.is_empty() || positions == 0 {
            return Err(Error::InvalidRequest("nothing to translate".into()));
        }
        if positions > limit {
            return Err(Error::PromptTooLong { prompt_tokens: positions, context: limit, model_max: limit });
        }
        let pad = self.manifest.ctc.pad_id as i64;
        let mut ids = vec![pad; batch.len() * positions];
        let mut mask = vec![0i64; batch.len() * positions];
        for (i, s) in batch.iter().enumerate() {
            for (j, &t) in s.iter().enumerate() {
                ids[i * positions + j] = t as i64;
                mask[i * positions + j] = 1;
            }
        }
        let shape = [batch.len(), positions];
        let backend = |e: ort::Error| Error::Backend(e.to_string());
        let ids = Tensor::from_array((shape, ids)).map_err(backend)?;
        let mask = Tensor::from_array((shape, mask)).map_err(backend)?;
        let t0 = Instant::now();
        let outputs = self.session.run(ort::inputs!["input_ids" => ids, "attention_mask" => mask]).map_err(backend)?;
        self.backend_seconds += t0.elapsed().as_secs_f64();
        let (out_shape, data) = outputs["logits"].try_extract_tensor::<f32>().map_err(backend)?;
        let vocab = self.manifest.dims.vocab_size;
        let want = [batch.len() as i64, positions as i64, vocab as i64];
        if out_shape.iter().copied().collect::<Vec<i64>>() != want {
            return Err(Error::Backend(format!("logits came back with shape {out_shape:?}, expected {want:?}")));
        }
        batch
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let start = i * positions * vocab;
                each(i, &data[start..start + s.len() * vocab])
            })
            .collect()
    }
}
