//! `manifest.json`: the contract an exported model folder states (see export/README.md). The engine reads it,
//! then checks the ONNX graph against it before running anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The manifest format this engine reads.
pub const FORMAT: &str = "specrt-model";
/// The manifest version this engine reads.
pub const FORMAT_VERSION: u32 = 1;

/// A parsed `manifest.json` plus the folder it came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `specrt-model`.
    pub format: String,
    /// Contract version; this engine reads version 1.
    pub format_version: u32,
    /// What the graph is: `decoder` for the language models of this contract.
    pub kind: String,
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
    /// The graph file and its inputs and outputs.
    pub graph: GraphSpec,
    /// How the KV cache is bound.
    pub kv_cache: KvCacheSpec,
    /// Whether the graph also outputs `hidden_states`.
    #[serde(default)]
    pub hidden_states: bool,
    /// Decoder layers kept (fewer than `dims.num_layers` for a layer-skip drafter).
    #[serde(default)]
    pub layers_kept: Option<usize>,
    /// Tokenizer file name inside the folder.
    #[serde(default = "default_tokenizer")]
    pub tokenizer: String,
    /// Where the weights came from.
    #[serde(default)]
    pub source: serde_json::Value,
    /// sha256 of each file of the folder.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The model folder (filled on load, not part of the file).
    #[serde(skip)]
    pub dir: PathBuf,
}

pub(crate) fn default_tokenizer() -> String {
    "tokenizer.json".into()
}

// -- shared by every model kind's manifest (decoders here, CTC NAT encoders in crate::nat::manifest) ------------

/// `dir/manifest.json`'s path and text.
pub(crate) fn read_text(dir: &Path) -> Result<(PathBuf, String)> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::model(&path, format!("cannot read: {e}")))?;
    Ok((path, text))
}

/// The format name and version this engine reads.
pub(crate) fn check_format(path: &Path, format: &str, version: u32) -> Result<()> {
    if format != FORMAT {
        return Err(Error::model(path, format!("format is `{format}`, expected `{FORMAT}`")));
    }
    if version != FORMAT_VERSION {
        return Err(Error::model(path, format!("format_version {version} is not supported (this engine reads {FORMAT_VERSION}); re-export the model")));
    }
    Ok(())
}

/// Every file the manifest names exists in the folder.
pub(crate) fn check_files(dir: &Path, files: &[&String]) -> Result<()> {
    for file in files {
        if !dir.join(file).is_file() {
            return Err(Error::model(dir, format!("missing file `{file}` named in manifest.json")));
        }
    }
    Ok(())
}

/// A short display name for a model folder: its last component.
pub(crate) fn folder_name(dir: &Path) -> String {
    dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string())
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

/// Weight precision.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Precision {
    /// `fp32`, `fp16`, `int8` or `int4`.
    pub weights: String,
    /// Quantization block size (`None` for float weights).
    #[serde(default)]
    pub block_size: Option<usize>,
    /// MatMulNBits accuracy level (0 = fp32 activations, 4 = int8 activations).
    #[serde(default)]
    pub accuracy_level: Option<u32>,
    /// KV cache element type (`float32` or `float16`).
    #[serde(default = "default_kv_dtype")]
    pub kv_dtype: String,
    /// The checkpoint's own quantization (e.g. `Q4_1`).
    #[serde(default)]
    pub source_quantization: Option<String>,
    /// Free-form notes (conversion error, ...).
    #[serde(default)]
    pub notes: serde_json::Value,
}

fn default_kv_dtype() -> String {
    "float32".into()
}

/// The graph file and its declared inputs and outputs.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GraphSpec {
    /// The ONNX file inside the folder.
    pub file: String,
    /// Declared inputs.
    pub inputs: Vec<TensorSpec>,
    /// Declared outputs.
    pub outputs: Vec<TensorSpec>,
}

/// One declared input or output.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TensorSpec {
    /// Tensor name.
    pub name: String,
    /// Element type (`float32`, `float16`, `int64`, `int32`).
    pub dtype: String,
    /// Dimensions: numbers are fixed, strings are symbolic (`batch`, `seq`, ...).
    pub shape: Vec<Dim>,
}

/// A dimension: fixed or symbolic.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Dim {
    /// A fixed size.
    Fixed(i64),
    /// A named dynamic size.
    Symbolic(String),
}

/// KV cache binding names; `{layer}` stands for the layer index.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KvCacheSpec {
    /// Only `shared_buffer` (past and present bound to one preallocated buffer).
    pub layout: String,
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
        if !dir.is_dir() {
            return Err(Error::model(dir, "not a folder (export one with `python -m export`, see export/README.md)"));
        }
        let (path, text) = read_text(dir)?;
        // A model of another kind gets a pointed message instead of "missing field kv_cache".
        if let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(&text) {
            if let Some(kind) = obj.get("kind").and_then(|k| k.as_str()).filter(|k| *k != "decoder") {
                let hint = if kind == "ctc_nat" { ": use it with `strategy: {kind: nat}`" } else { "" };
                return Err(Error::model(&path, format!("kind is `{kind}`, but a decoder model is needed here{hint}")));
            }
        }
        let mut m: Manifest = serde_json::from_str(&text).map_err(|e| Error::model(&path, format!("invalid manifest: {e}")))?;
        check_format(&path, &m.format, m.format_version)?;
        if m.kv_cache.layout != "shared_buffer" {
            return Err(Error::model(&path, format!("kv_cache.layout `{}` is not supported (expected shared_buffer)", m.kv_cache.layout)));
        }
        check_files(dir, &[&m.graph.file, &m.tokenizer])?;
        m.dir = dir.to_path_buf();
        Ok(m)
    }

    /// Decoder layers present in the graph.
    pub fn layers(&self) -> usize {
        self.layers_kept.unwrap_or(self.dims.num_layers)
    }

    /// The declared input called `name`, if any.
    pub fn input(&self, name: &str) -> Option<&TensorSpec> {
        self.graph.inputs.iter().find(|t| t.name == name)
    }

    /// The declared output called `name`, if any.
    pub fn output(&self, name: &str) -> Option<&TensorSpec> {
        self.graph.outputs.iter().find(|t| t.name == name)
    }

    /// A short display name: the folder name.
    pub fn display_name(&self) -> String {
        folder_name(&self.dir)
    }
}
