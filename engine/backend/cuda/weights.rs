//! The decoder's weights in device memory: read from the export's `gpu.safetensors` (layout in
//! export/CONTRACT.md, "GPU weights") or, for benchmarks, filled with deterministic pseudo-random values of a
//! named shape.
//!
//! safetensors is parsed here directly (an 8-byte little-endian header length, a JSON header of
//! `{name: {dtype, shape, data_offsets}}`, then the raw bytes): a few lines instead of one more dependency.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::driver::{launch, Arg, DeviceBuffer, Launch, Stream};
use super::kernels::Kernels;
use crate::contract::Manifest;
use crate::error::{Error, Result};

/// The network's dimensions as the kernels need them.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Vocabulary (logits width).
    pub vocab: usize,
    /// Model width.
    pub hidden: usize,
    /// MLP width.
    pub ffn: usize,
    /// Decoder layers run (a layer-skip drafter keeps a prefix).
    pub layers: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads.
    pub kv_heads: usize,
    /// Per-head width.
    pub head_dim: usize,
    /// Rotary base.
    pub rope_theta: f64,
    /// RMSNorm epsilon.
    pub eps: f32,
    /// Positions the rotary tables cover.
    pub max_positions: usize,
    /// Whether the LM head is the embedding.
    pub tied: bool,
}

impl Shape {
    /// The shape a decoder manifest describes.
    pub fn from_manifest(m: &Manifest) -> Shape {
        let d = &m.dims;
        Shape {
            vocab: d.vocab_size,
            hidden: d.hidden_size,
            ffn: d.intermediate_size,
            layers: m.layers(),
            heads: d.num_heads,
            kv_heads: d.num_kv_heads,
            head_dim: d.head_dim,
            rope_theta: d.rope_theta,
            eps: d.rms_norm_eps as f32,
            max_positions: d.max_position_embeddings,
            tied: d.tie_word_embeddings,
        }
    }

    /// Width of the fused q/k/v projection.
    pub(crate) fn qkv_width(&self) -> usize {
        (self.heads + 2 * self.kv_heads) * self.head_dim
    }

    /// Checks what the kernels assume; the message names the dimension.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(Error::Backend(format!("cuda: unsupported model shape: {what}")));
        for (name, v) in [("hidden_size", self.hidden), ("intermediate_size", self.ffn), ("num_heads*head_dim", self.heads * self.head_dim)] {
            if v == 0 || v % 8 != 0 {
                return bad(format!("{name} = {v} must be a positive multiple of 8 (16-byte weight loads)"));
            }
        }
        if self.kv_heads == 0 || !self.heads.is_multiple_of(self.kv_heads) {
            return bad(format!("num_heads {} is not a multiple of num_kv_heads {}", self.heads, self.kv_heads));
        }
        if self.head_dim == 0 || !self.head_dim.is_multiple_of(2) || self.head_dim > 256 {
            return bad(format!("head_dim {} must be even and at most 256", self.head_dim));
        }
        if self.layers == 0 || self.vocab == 0 {
            return bad("no layers or an empty vocabulary".into());
        }
        Ok(())
    }

    /// Bytes of weights one decode step streams from device memory (every matrix once, the LM head included).
    pub(crate) fn step_weight_bytes(&self) -> usize {
        let h = self.hidden;
        let per_layer = (self.qkv_width() * h + h * self.heads * self.head_dim + 3 * self.ffn * h) * 2 + 2 * h * 4;
        self.layers * per_layer + self.vocab * h * 2 + h * 4
    }

    /// A named synthetic shape for benchmarks (random weights, no file).
    pub(crate) fn synthetic(name: &str) -> Result<Shape> {
        // (vocab, hidden, ffn, layers, heads, kv_heads, head_dim, tied)
        let (vocab, hidden, ffn, layers, heads, kv_heads, head_dim, tied) = match name {
            "smollm2-135m" => (49152, 576, 1536, 30, 9, 3, 64, true),
            "qwen2.5-1.5b" => (151936, 1536, 8960, 28, 12, 2, 128, true),
            "llama-3.2-1b" => (128256, 2048, 8192, 16, 32, 8, 64, true),
            "llama-3.1-8b" => (128256, 4096, 14336, 32, 32, 8, 128, false),
            other => {
                return Err(Error::InvalidValue {
                    key: "synthetic".into(),
                    message: format!("unknown synthetic shape `{other}` (smollm2-135m, qwen2.5-1.5b, llama-3.2-1b, llama-3.1-8b)"),
                })
            }
        };
        Ok(Shape { vocab, hidden, ffn, layers, heads, kv_heads, head_dim, rope_theta: 10000.0, eps: 1e-5, max_positions: 8192, tied })
    }
}

/// One decoder layer's device weights.
#[derive(Debug)]
pub struct LayerWeights {
    /// RMSNorm before attention, f32 [hidden].
    pub attn_norm: DeviceBuffer,
    /// Fused q/k/v projection, f16 [qkv_width, hidden].
    pub qkv: DeviceBuffer,
    /// q/k/v bias, f32 [qkv_width] (Qwen2).
    pub qkv_bias: Option<DeviceBuffer>,
    /// Output projection, f16 [hidden, heads * head_dim].
    pub o: DeviceBuffer,
    /// RMSNorm before the MLP, f32 [hidden].
    pub ffn_norm: DeviceBuffer,
    /// Fused gate/up projection, f16 [2 * ffn, hidden].
    pub gate_up: DeviceBuffer,
    /// Down projection, f16 [hidden, ffn].
    pub down: DeviceBuffer,
}

/// All device weights of a decoder.
#[derive(Debug)]
pub struct Weights {
    /// Token embedding, f16 [vocab, hidden].
    pub embed: DeviceBuffer,
    /// Final RMSNorm, f32 [hidden].
    pub final_norm: DeviceBuffer,
    /// Untied LM head, f16 [vocab, hidden].
    pub lm_head: Option<DeviceBuffer>,
    /// The layers run.
    pub layers: Vec<LayerWeights>,
}

impl Weights {
    /// The LM head matrix (the embedding when tied).
    pub fn head(&self) -> &DeviceBuffer {
        self.lm_head.as_ref().unwrap_or(&self.embed)
    }
}

#[derive(Debug, Deserialize)]
struct TensorEntry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: [usize; 2],
}

/// A safetensors file's header and where its data starts.
struct SafeTensors {
    path: PathBuf,
    file: File,
    data_start: u64,
    tensors: BTreeMap<String, TensorEntry>,
}

impl SafeTensors {
    fn open(path: &Path) -> Result<SafeTensors> {
        let io = |e: std::io::Error| Error::Io { path: path.to_path_buf(), source: e };
        let mut file = File::open(path).map_err(io)?;
        let mut len = [0u8; 8];
        file.read_exact(&mut len).map_err(io)?;
        let len = u64::from_le_bytes(len);
        if len > 100 << 20 {
            return Err(Error::Model { path: path.to_path_buf(), message: format!("not a safetensors file (header length {len})") });
        }
        let mut header = vec![0u8; len as usize];
        file.read_exact(&mut header).map_err(io)?;
        let mut raw: BTreeMap<String, serde_json::Value> = serde_json::from_slice(&header)
            .map_err(|e| Error::Model { path: path.to_path_buf(), message: format!("bad safetensors header: {e}") })?;
        raw.remove("__metadata__");
        let mut tensors = BTreeMap::new();
        for (name, value) in raw {
            let entry: TensorEntry =
                serde_json::from_value(value).map_err(|e| Error::Model { path: path.to_path_buf(), message: format!("tensor {name}: {e}") })?;
            tensors.insert(name, entry);
        }
        Ok(SafeTensors { path: path.to_path_buf(), file, data_start: 8 + len, tensors })
    }

    /// Reads tensor `name`, checking its dtype and shape; uploads it.
    fn upload(&mut self, name: &str, dtype: &str, shape: &[usize]) -> Result<DeviceBuffer> {
        DeviceBuffer::from_host(&self.read(name, dtype, shape)?)
    }

    /// Reads tensor `name`'s bytes, checking its dtype and shape.
    fn read(&mut self, name: &str, dtype: &str, shape: &[usize]) -> Result<Vec<u8>> {
        let bytes = self.check(name, dtype, shape)?;
        let start = self.data_start + self.tensors[name].data_offsets[0] as u64;
        let io = |e: std::io::Error| Error::Io { path: self.path.clone(), source: e };
        self.file.seek(SeekFrom::Start(start)).map_err(io)?;
        let mut data = vec![0u8; bytes];
        self.file.read_exact(&mut data).map_err(io)?;
        Ok(data)
    }

    /// Checks tensor `name`'s entry (dtype, shape, byte size) without reading it.
    fn check(&self, name: &str, dtype: &str, shape: &[usize]) -> Result<usize> {
        let entry = self
            .tensors
            .get(name)
            .ok_or_else(|| Error::Model { path: self.path.clone(), message: format!("tensor `{name}` is missing (expected {dtype} {shape:?})") })?;
        let elem = if dtype == "F16" { 2 } else { 4 };
        let bytes = entry.data_offsets[1].saturating_sub(entry.data_offsets[0]);
        if entry.dtype != dtype || entry.shape != shape || bytes != shape.iter().product::<usize>() * elem {
            return Err(Error::Model {
                path: self.path.clone(),
                message: format!("tensor `{name}` is {} {:?}, the manifest's dims need {dtype} {shape:?}", entry.dtype, entry.shape),
            });
        }
        Ok(bytes)
    }
}

/// Every tensor the decoder of `shape` reads, with its dtype and shape (the contract in export/CONTRACT.md).
fn expected_tensors(shape: &Shape, has_bias: impl Fn(usize) -> bool) -> Vec<(String, &'static str, Vec<usize>)> {
    let (h, v) = (shape.hidden, shape.vocab);
    let mut out = vec![("embed".to_string(), "F16", vec![v, h]), ("final_norm".to_string(), "F32", vec![h])];
    if !shape.tied {
        out.push(("lm_head".into(), "F16", vec![v, h]));
    }
    for i in 0..shape.layers {
        let n = |t: &str| format!("layers.{i}.{t}");
        out.push((n("attn_norm"), "F32", vec![h]));
        out.push((n("qkv"), "F16", vec![shape.qkv_width(), h]));
        if has_bias(i) {
            out.push((n("qkv_bias"), "F32", vec![shape.qkv_width()]));
        }
        out.push((n("o"), "F16", vec![h, shape.heads * shape.head_dim]));
        out.push((n("ffn_norm"), "F32", vec![h]));
        out.push((n("gate_up"), "F16", vec![2 * shape.ffn, h]));
        out.push((n("down"), "F16", vec![h, shape.ffn]));
    }
    out
}

/// Checks `file` against `shape` without a GPU: every tensor present with the right dtype and shape. Returns the
/// bytes the decoder would upload. [`Weights::load`] runs it first, so a wrong file fails before any allocation.
pub fn check_file(file: &Path, shape: &Shape) -> Result<usize> {
    let st = SafeTensors::open(file)?;
    let expected = expected_tensors(shape, |i| st.tensors.contains_key(&format!("layers.{i}.qkv_bias")));
    let mut total = 0;
    for (name, dtype, dims) in &expected {
        total += st.check(name, dtype, dims)?;
    }
    // A tensor the decoder would ignore means the file and the manifest disagree (e.g. an untied LM head under a
    // manifest that says tied: the embedding would silently stand in for it). Layers past the ones run are fine:
    // a layer-skip drafter may read a prefix of the target's file.
    let layer_past_end = |name: &str| {
        name.strip_prefix("layers.").and_then(|r| r.split('.').next()).and_then(|i| i.parse::<usize>().ok()).is_some_and(|i| i >= shape.layers)
    };
    if let Some(extra) = st.tensors.keys().find(|k| !layer_past_end(k) && !expected.iter().any(|(n, _, _)| n == *k)) {
        return Err(Error::Model {
            path: file.to_path_buf(),
            message: format!("tensor `{extra}` is not part of the model the manifest describes (tie_word_embeddings {})", shape.tied),
        });
    }
    Ok(total)
}

impl Weights {
    /// Reads `file` (the export's gpu.safetensors) for `shape`; the first `shape.layers` layers only.
    pub fn load(file: &Path, shape: &Shape) -> Result<Weights> {
        check_file(file, shape)?;
        let mut st = SafeTensors::open(file)?;
        let (h, v) = (shape.hidden, shape.vocab);
        let embed = st.upload("embed", "F16", &[v, h])?;
        let final_norm = st.upload("final_norm", "F32", &[h])?;
        let lm_head = if shape.tied { None } else { Some(st.upload("lm_head", "F16", &[v, h])?) };
        let mut layers = Vec::with_capacity(shape.layers);
        for i in 0..shape.layers {
            let n = |t: &str| format!("layers.{i}.{t}");
            let qkv_bias = if st.tensors.contains_key(&n("qkv_bias")) { Some(st.upload(&n("qkv_bias"), "F32", &[shape.qkv_width()])?) } else { None };
            layers.push(LayerWeights {
                attn_norm: st.upload(&n("attn_norm"), "F32", &[h])?,
                qkv: st.upload(&n("qkv"), "F16", &[shape.qkv_width(), h])?,
                qkv_bias,
                o: st.upload(&n("o"), "F16", &[h, shape.heads * shape.head_dim])?,
                ffn_norm: st.upload(&n("ffn_norm"), "F32", &[h])?,
                gate_up: st.upload(&n("gate_up"), "F16", &[2 * shape.ffn, h])?,
                down: st.upload(&n("down"), "F16", &[h, shape.ffn])?,
            });
        }
        Ok(Weights { embed, final_norm, lm_head, layers })
    }

    /// Deterministic pseudo-random weights of `shape` (benchmarks: the bandwidth a step needs does not depend on
    /// the values). Matrices are scaled by 1/sqrt(in_features) so activations stay finite through the layers.
    pub(crate) fn synthetic(shape: &Shape, kernels: &Kernels, stream: &Stream, seed: u32) -> Result<Weights> {
        let mut next = seed;
        let mut matrix = |rows: usize, cols: usize| -> Result<DeviceBuffer> {
            let buf = DeviceBuffer::zeroed(rows * cols * 2)?;
            next = next.wrapping_add(1);
            let scale = 1.0 / (cols as f32).sqrt();
            launch(
                stream,
                kernels.fill_random_f16,
                Launch { grid: (1024, 1), block: 256, shared: 0, depth: 1 },
                &[Arg::Ptr(buf.ptr), Arg::Usize((rows * cols) as u64), Arg::U32(next), Arg::F32(scale)],
            )?;
            Ok(buf)
        };
        let ones = |n: usize| -> Result<DeviceBuffer> {
            let buf = DeviceBuffer::zeroed(n * 4)?;
            launch(
                stream,
                kernels.fill_f32,
                Launch { grid: (64, 1), block: 256, shared: 0, depth: 1 },
                &[Arg::Ptr(buf.ptr), Arg::Usize(n as u64), Arg::F32(1.0)],
            )?;
            Ok(buf)
        };
        let h = shape.hidden;
        let embed = matrix(shape.vocab, h)?;
        let lm_head = if shape.tied { None } else { Some(matrix(shape.vocab, h)?) };
        let mut layers = Vec::with_capacity(shape.layers);
        for _ in 0..shape.layers {
            layers.push(LayerWeights {
                attn_norm: ones(h)?,
                qkv: matrix(shape.qkv_width(), h)?,
                qkv_bias: None,
                o: matrix(h, shape.heads * shape.head_dim)?,
                ffn_norm: ones(h)?,
                gate_up: matrix(2 * shape.ffn, h)?,
                down: matrix(h, shape.ffn)?,
            });
        }
        let final_norm = ones(h)?;
        stream.synchronize()?;
        Ok(Weights { embed, final_norm, lm_head, layers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_shapes_are_valid_and_count_their_bytes() {
        for name in ["smollm2-135m", "qwen2.5-1.5b", "llama-3.2-1b", "llama-3.1-8b"] {
            let s = Shape::synthetic(name).unwrap();
            s.validate().unwrap();
            assert!(s.step_weight_bytes() > s.vocab * s.hidden * 2);
        }
        // SmolLM2-135M: 134.5M parameters (tied head counted once as the LM head) -> ~269 MB of fp16 per step.
        let s = Shape::synthetic("smollm2-135m").unwrap();
        let mb = s.step_weight_bytes() as f64 / 1e6;
        assert!((260.0..275.0).contains(&mb), "{mb} MB");
        assert!(Shape::synthetic("gpt-9").is_err());
    }

    #[test]
    fn shapes_the_kernels_cannot_run_are_refused_with_the_dimension() {
        let mut s = Shape::synthetic("smollm2-135m").unwrap();
        s.hidden = 570;
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains("hidden_size = 570"), "{e}");
        let mut s = Shape::synthetic("smollm2-135m").unwrap();
        s.kv_heads = 2;
        assert!(s.validate().unwrap_err().to_string().contains("num_kv_heads"));
    }
}
