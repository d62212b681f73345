//! The decoder manifest (`kind: decoder`): dimensions, special tokens, precision, the graph's declared
//! inputs and outputs and the KV-cache binding of a language-model export (contract in export/README.md).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::header::{self, Header, ModelKind};
use super::tensor::TensorSpec;
use crate::error::Result;

/// A parsed decoder `manifest.json` plus the folder it came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Format, version, kind ([`ModelKind::Decoder`] here), graph, source, file hashes and folder.
    #[serde(flatten)]
    pub header: Header,
    /// Model family (`llama`, `qwen2`, `mistral`).
    pub architecture: String,
    /// Dimensions of the network.
    pub dims: Dims,
    /// Special token ids.
    pub tokens: TokenIds,
    /// Jinja chat template (Hugging Face convention), if the model has one.
    #[serde(default)]
    pub chat_template: Option<String>,
    /// Weight precision and quantization.
    pub precision: Precision,
    /// How the KV cache is bound.
    pub kv_cache: KvCacheSpec,
    /// Whether the graph also outputs `hidden_states`.
    #[serde(default)]
    pub hidden_states: bool,
    /// Decoder layers kept (fewer than `dims.num_layers` for a layer-skip drafter).
    #[serde(default)]
    pub layers_kept: Option<usize>,
    /// The float16 GPU form of the weights (`gpu.safetensors`, written by `python -m export gpu-weights`), which
    /// the native CUDA backend reads instead of the ONNX graph.
    #[serde(default)]
    pub gpu_weights: Option<String>,
    /// The SPACE mask token, present when the export was fine-tuned for SPACE decoding (docs/METHODS.md, SPACE).
    #[serde(default)]
    pub space: Option<SpaceSpec>,
    /// Tokenizer file name inside the folder.
    #[serde(default = "header::default_tokenizer")]
    pub tokenizer: String,
}

/// What a SPACE export adds (export/README.md, "SPACE exports"): one input-only mask token whose id is the
/// first past the logits, so no pipeline can ever emit it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpaceSpec {
    /// The mask token's input id; always `dims.vocab_size`.
    pub mask_token_id: u32,
    /// Mask tokens per group the model was trained with (1..=[`SpaceSpec::MAX_K`]).
    pub k: usize,
    /// Where the fine-tune's adapters act; absent in exports written before the key existed (those were merged).
    /// Decoding is the same either way; the key tells a reader which model SPACE is lossless against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<SpaceAdapter>,
}

/// The `space.adapter` key: how the SPACE fine-tune sits in the graph (docs/SPACE.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpaceAdapter {
    /// A low-rank path gated to mask-token rows: real tokens compute exactly the base model, so SPACE's greedy
    /// output is the base model's.
    MaskOnly,
    /// The low-rank deltas merged into every weight: SPACE's output is the fine-tuned model's own.
    Merged,
}

impl SpaceSpec {
    /// Largest group size a manifest may declare (a step holds up to (k + 1)^2 tokens).
    pub(crate) const MAX_K: usize = 16;

    /// Checks the entry against the model's vocabulary; the message names the manifest key.
    pub fn validate(&self, vocab_size: usize) -> std::result::Result<(), String> {
        if self.mask_token_id as usize != vocab_size {
            return Err(format!(
                "manifest.json: space.mask_token_id is {} but must be dims.vocab_size ({vocab_size}): the mask token is the first id past the logits",
                self.mask_token_id
            ));
        }
        if !(1..=Self::MAX_K).contains(&self.k) {
            return Err(format!("manifest.json: space.k is {} but must be in 1..={}", self.k, Self::MAX_K));
        }
        Ok(())
    }
}

/// Network dimensions.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Dims {
    /// Vocabulary size (logits width).
    pub vocab_size: usize,
    /// Model width.
    pub hidden_size: usize,
    /// MLP width.
    #[serde(default)]
    pub intermediate_size: usize,
    /// Decoder layers of the original model.
    pub num_layers: usize,
    /// Query heads.
    pub num_heads: usize,
    /// Key/value heads.
    pub num_kv_heads: usize,
    /// Per-head width.
    pub head_dim: usize,
    /// Longest position the rotary tables cover.
    pub max_position_embeddings: usize,
    /// Rotary base.
    #[serde(default)]
    pub rope_theta: f64,
    /// RMSNorm epsilon.
    #[serde(default)]
    pub rms_norm_eps: f64,
    /// Whether the LM head shares the embedding matrix.
    #[serde(default)]
    pub tie_word_embeddings: bool,
}

/// Special token ids.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TokenIds {
    /// Beginning-of-sequence id.
    #[serde(default)]
    pub bos_id: Option<u32>,
    /// End-of-sequence id.
    #[serde(default)]
    pub eos_id: Option<u32>,
    /// Padding id.
    #[serde(default)]
    pub pad_id: Option<u32>,
    /// Every id that ends a generation.
    #[serde(default)]
    pub stop_ids: Vec<u32>,
    /// Whether a BOS token is prepended to prompts.
    #[serde(default)]
    pub add_bos: bool,
}

/// Weight element types of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightPrecision {
    /// Float32 weights.
    Fp32,
    /// Float16 weights (GPU form).
    Fp16,
    /// 8-bit MatMulNBits.
    Int8,
    /// 4-bit MatMulNBits.
    Int4,
}

/// KV cache element types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum KvDType {
    /// IEEE single (the CPU exports).
    #[default]
    Float32,
    /// IEEE half (fp16 exports).
    Float16,
}

impl KvDType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            KvDType::Float32 => 4,
            KvDType::Float16 => 2,
        }
    }
}

/// How the KV cache is bound to the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KvLayout {
    /// One preallocated buffer per layer and tensor, bound as both past and present.
    SharedBuffer,
}

/// Weight precision.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Precision {
    /// Weight element type.
    pub weights: WeightPrecision,
    /// Quantization block size (`None` for float weights).
    #[serde(default)]
    pub block_size: Option<usize>,
    /// MatMulNBits accuracy level (0 = fp32 activations, 4 = int8 activations).
    #[serde(default)]
    pub accuracy_level: Option<u32>,
    /// KV cache element type.
    #[serde(default)]
    pub kv_dtype: KvDType,
    /// Operator of the int4/int8 linear layers (`matmulnbits`, `ggml`); absent for float weights.
    #[serde(default)]
    pub linear_kernel: Option<String>,
    /// Attention operator: `gqa` (ONNX Runtime's GroupQueryAttention), `specrt` (the engine's own) or `plain`
    /// (standard ONNX operators: the GPU form TensorRT parses). Absent in exports older than the key (= `gqa`).
    #[serde(default)]
    pub attention_kernel: Option<String>,
    /// The checkpoint's own quantization (e.g. `Q4_1`).
    #[serde(default)]
    pub source_quantization: Option<String>,
    /// Free-form notes (conversion error, ...).
    #[serde(default)]
    pub notes: serde_json::Value,
}

/// KV cache binding names; `{layer}` stands for the layer index.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KvCacheSpec {
    /// The binding (only [`KvLayout::SharedBuffer`]).
    pub layout: KvLayout,
    /// Past key input name pattern.
    pub key_input: String,
    /// Past value input name pattern.
    pub value_input: String,
    /// Present key output name pattern.
    pub key_output: String,
    /// Present value output name pattern.
    pub value_output: String,
}

impl KvCacheSpec {
    /// The four tensor names of `layer`: (key in, value in, key out, value out).
    pub fn names(&self, layer: usize) -> [String; 4] {
        let f = |p: &str| p.replace("{layer}", &layer.to_string());
        [f(&self.key_input), f(&self.value_input), f(&self.key_output), f(&self.value_output)]
    }
}

impl Manifest {
    /// Reads `dir/manifest.json` and checks the format, version and the files it names.
    pub fn load(dir: &Path) -> Result<Manifest> {
        // A model of another kind gets a pointed message instead of "missing field kv_cache".
        let (_, mut m): (_, Manifest) = header::parse(dir, ModelKind::Decoder, "manifest", |kind, raw| {
            let hint = match kind {
                Some(ModelKind::CtcNat) => ": use it with `strategy: {kind: nat}`",
                Some(ModelKind::DraftHead) => ": a draft head is named by a speculative strategy's drafter, not as `model`",
                _ => "",
            };
            format!("kind is `{raw}`, but a decoder model is needed here{hint}")
        })?;
        // A folder carries the ONNX graph, the GPU weights, or both; each backend reads the one it runs.
        let mut files = vec![&m.tokenizer];
        match &m.gpu_weights {
            Some(gpu) => files.push(gpu),
            None => files.push(&m.header.graph.file),
        }
        header::check_files(dir, &files)?;
        if let Some(space) = &m.space {
            space.validate(m.dims.vocab_size).map_err(|msg| crate::error::Error::model(dir, msg))?;
        }
        m.header.dir = dir.to_path_buf();
        Ok(m)
    }

    /// Decoder layers present in the graph.
    pub fn layers(&self) -> usize {
        self.layers_kept.unwrap_or(self.dims.num_layers)
    }

    /// One past the largest input id the graph embeds: the vocabulary, plus the mask token of a SPACE export
    /// (which has an embedding row but no logit).
    pub(crate) fn input_ids_end(&self) -> usize {
        self.dims.vocab_size + usize::from(self.space.is_some())
    }

    /// The declared input called `name`, if any.
    pub fn input(&self, name: &str) -> Option<&TensorSpec> {
        self.header.graph.input(name)
    }

    /// The declared output called `name`, if any.
    pub fn output(&self, name: &str) -> Option<&TensorSpec> {
        self.header.graph.output(name)
    }

    /// A short display name: the folder name.
    pub(crate) fn display_name(&self) -> String {
        self.header.display_name()
    }
}
