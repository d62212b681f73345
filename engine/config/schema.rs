//! The pipeline schema. Every struct rejects unknown keys, so a typo is an error, never a silently ignored
//! setting.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Invalid;

/// One pipeline: a target model, the backend that runs it, a decoding strategy and generation defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    /// A display name (defaults to the config file's stem).
    #[serde(default)]
    pub name: Option<String>,
    /// The exported model folder of the target (the model whose output the pipeline promises).
    pub model: PathBuf,
    /// KV cache capacity in tokens (prompt + output). Default: min(2048, the model's maximum positions).
    #[serde(default)]
    pub context_length: Option<usize>,
    /// How the graphs are executed.
    #[serde(default)]
    pub backend: BackendConfig,
    /// The decoding strategy.
    #[serde(default)]
    pub strategy: StrategyConfig,
    /// Defaults for requests that do not say otherwise.
    #[serde(default)]
    pub generation: GenerationDefaults,
}

/// Backend settings (ONNX Runtime).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendConfig {
    /// Which backend runs the graphs.
    #[serde(default)]
    pub kind: BackendKind,
    /// Path to libonnxruntime.so. Default: `$ORT_DYLIB_PATH`, then the copy `make` puts under `.cache/`.
    #[serde(default)]
    pub library: Option<PathBuf>,
    /// Intra-op threads. Default: the number of available cores. Pipelines asking for the size of the process's
    /// shared ONNX Runtime pool (set by the first pipeline loaded) share it; another count gets its own pool.
    #[serde(default)]
    pub threads: Option<usize>,
    /// Graph optimization level.
    #[serde(default)]
    pub optimization: OptimizationLevel,
    /// Execution providers in priority order. A provider that cannot be registered is an error.
    #[serde(default = "default_providers")]
    pub providers: Vec<ProviderConfig>,
    /// Options of the native CUDA backend (`kind: cuda`).
    #[serde(default)]
    pub cuda: CudaOptions,
}

/// Options of the native CUDA backend (`backend: {kind: cuda, cuda: {device_id: 0, graphs: true}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudaOptions {
    /// GPU index.
    #[serde(default)]
    pub device_id: usize,
    /// Capture decode/verify passes as CUDA graphs and replay them (off: launch kernels one by one).
    #[serde(default = "default_true")]
    pub graphs: bool,
}

impl Default for CudaOptions {
    fn default() -> Self {
        CudaOptions { device_id: 0, graphs: true }
    }
}

fn default_true() -> bool {
    true
}

impl Default for BackendConfig {
    fn default() -> Self {
        BackendConfig {
            kind: BackendKind::default(),
            library: None,
            threads: None,
            optimization: OptimizationLevel::default(),
            providers: default_providers(),
            cuda: CudaOptions::default(),
        }
    }
}

/// The backends a config may name (`backend.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// ONNX Runtime (CPU provider by default; CUDA/TensorRT providers behind cargo features).
    #[default]
    Onnxruntime,
    /// The native CUDA backend (cargo feature `cuda`; the float16 GPU form of the contract, docs/GPU.md).
    Cuda,
}

fn default_providers() -> Vec<ProviderConfig> {
    vec![ProviderConfig::Cpu]
}

/// ONNX Runtime graph optimization levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizationLevel {
    /// No graph rewrites.
    Disable,
    /// Constant folding and redundant node removal.
    Basic,
    /// Basic plus operator fusions.
    Extended,
    /// Everything, including layout optimizations (the default).
    #[default]
    All,
}

/// An execution provider entry: `cpu`, `cuda`, `{cuda: {device_id: 1}}`, `tensorrt`, ... A bare name takes the
/// provider's default options.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderConfig {
    /// The CPU provider (always available).
    Cpu,
    /// NVIDIA CUDA (needs a CUDA build of libonnxruntime and the `cuda` cargo feature).
    Cuda {
        /// GPU index.
        device_id: i32,
    },
    /// NVIDIA TensorRT through ONNX Runtime (needs the `tensorrt` cargo feature and a TensorRT build).
    Tensorrt {
        /// GPU index.
        device_id: i32,
        /// Build fp16 engines.
        fp16: bool,
        /// Folder for the engine cache (relative to the config file).
        engine_cache: Option<PathBuf>,
    },
}

/// The map form of a provider entry, as serde derives it.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum ProviderMap {
    Cpu {},
    Cuda {
        #[serde(default)]
        device_id: i32,
    },
    Tensorrt {
        #[serde(default)]
        device_id: i32,
        #[serde(default)]
        fp16: bool,
        #[serde(default)]
        engine_cache: Option<PathBuf>,
    },
}

impl From<ProviderMap> for ProviderConfig {
    fn from(m: ProviderMap) -> Self {
        match m {
            ProviderMap::Cpu {} => ProviderConfig::Cpu,
            ProviderMap::Cuda { device_id } => ProviderConfig::Cuda { device_id },
            ProviderMap::Tensorrt { device_id, fp16, engine_cache } => ProviderConfig::Tensorrt { device_id, fp16, engine_cache },
        }
    }
}

impl<'de> Deserialize<'de> for ProviderConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = ProviderConfig;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a provider name (cpu, cuda, tensorrt) or a map like {cuda: {device_id: 0}}")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ProviderConfig, E> {
                match v {
                    "cpu" => Ok(ProviderConfig::Cpu),
                    "cuda" => Ok(ProviderConfig::Cuda { device_id: 0 }),
                    "tensorrt" => Ok(ProviderConfig::Tensorrt { device_id: 0, fp16: false, engine_cache: None }),
                    other => Err(E::unknown_variant(other, &["cpu", "cuda", "tensorrt"])),
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<ProviderConfig, A::Error> {
                ProviderMap::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Into::into)
            }
        }
        d.deserialize_any(V)
    }
}

impl ProviderConfig {
    /// The provider's name as written in YAML.
    pub fn name(&self) -> &'static str {
        match self {
            ProviderConfig::Cpu => "cpu",
            ProviderConfig::Cuda { .. } => "cuda",
            ProviderConfig::Tensorrt { .. } => "tensorrt",
        }
    }
}

/// The decoding strategy, selected by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StrategyConfig {
    /// Plain autoregressive decoding: one target step per token.
    Ar {},
    /// Speculative decoding: a drafter proposes tokens, the target verifies them in one pass.
    Speculative {
        /// Who proposes the draft tokens.
        drafter: DrafterConfig,
        /// How many tokens to draft per step.
        #[serde(default)]
        window: WindowConfig,
        /// Allow sampling settings under which this strategy is not exactly lossless (refused otherwise).
        #[serde(default)]
        allow_lossy: bool,
    },
    /// HSDDW: hierarchical speculative decoding with self-verifying dynamic windows (docs/METHODS.md section 2).
    Hsddw {
        /// Drafting levels, cheapest first; the pipeline's `model` is the top level that verifies.
        levels: Vec<LevelConfig>,
        /// Most tokens the lowest level drafts per round (the paper's gamma1).
        #[serde(default = "default_gamma")]
        gamma: usize,
        /// Most unverified tokens a level buffers before the level above must verify (the paper's 50).
        #[serde(default = "default_buffer_cap")]
        buffer_cap: usize,
        /// Starting entropy threshold (nats) of every level (the paper's 10).
        #[serde(default = "default_tau_init")]
        tau_init: f32,
        /// `adaptive` (the paper's rule) or `fixed` (keep tau_init).
        #[serde(default)]
        thresholds: ThresholdRule,
        /// Allow sampling settings under which this strategy is not exactly lossless (refused otherwise).
        #[serde(default)]
        allow_lossy: bool,
    },
    /// SPACE (docs/METHODS.md section 6): the target itself, fine-tuned to fill mask tokens, verifies the last
    /// step's candidates and drafts the next ones in the same call. Needs an export with a `space` manifest entry.
    Space {
        /// Mask tokens per group (default: the k the model was trained with; at most that).
        #[serde(default)]
        k: Option<usize>,
        /// Which real tokens get a mask group: `all` (every candidate, the paper's form: drafts survive a
        /// rejection) or `last` (only the last candidate: a smaller pass, no drafts after a rejection).
        #[serde(default)]
        candidates: SpaceCandidates,
        /// Stop drafting while it does not pay (the payoff guard of the speculative strategies).
        #[serde(default = "default_fallback")]
        fallback: bool,
        /// Prompt lookup as a second source of candidates (free: no model call): `off`, `fill` (only when the
        /// masks left none: the first step, after a rejection with `candidates: last`, after a plain step) or
        /// `prefer` (whenever it finds a match). Verified like the masks' candidates: still lossless.
        #[serde(default)]
        lookup: SpaceLookup,
    },
    /// CTC non-autoregressive generation (docs/METHODS.md section 5): an encoder-only CTC model (`kind: ctc_nat`
    /// export) writes the whole output in one forward pass over the upsampled source. Not lossless with respect
    /// to any AR model: it is its own model, compared with an AR baseline on quality and latency.
    Nat {
        /// How the per-position distributions become text: `greedy` (argmax, merge repeats, drop blanks) or
        /// `beam` (CTC prefix beam search).
        #[serde(default)]
        decode: CtcDecodeKind,
        /// Prefixes kept per position by `beam`.
        #[serde(default = "default_beam_width")]
        beam_width: usize,
        /// Tokens per position that may extend a prefix in `beam` (besides blank and the prefix's last token).
        #[serde(default = "default_beam_width")]
        beam_top_k: usize,
        /// Most sentences per forward pass when many are translated at once.
        #[serde(default = "default_nat_batch")]
        batch_size: usize,
        /// Upsampling rate override (default: the rate the model was trained with, from its manifest).
        #[serde(default)]
        rate: Option<f32>,
        /// The AR baseline pipeline (a YAML file, relative to this one) that `specrt bench` compares against and
        /// `specrt generate --strategy ar` runs.
        #[serde(default)]
        baseline: Option<PathBuf>,
        /// Restrict greedy decoding's output head to the model's per-sentence lexical shortlist where its export
        /// has one (`ctc.shortlist` in the manifest; docs/BENCHMARKS.md section 5): default on; `false` runs the
        /// whole head (for comparisons). Beam decoding always scores the whole head.
        #[serde(default = "default_true")]
        shortlist: bool,
    },
}

/// Which real tokens of a SPACE step carry a mask group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpaceCandidates {
    /// The pending token and every candidate: (k + 1)^2 tokens per step.
    #[default]
    All,
    /// Only the last real token: 2k + 1 tokens per step.
    Last,
}

/// When a SPACE step takes its candidates from prompt lookup instead of the previous step's mask group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpaceLookup {
    /// Never: candidates come from the masks only (the paper's SPACE).
    #[default]
    Off,
    /// Only when the masks gave none.
    Fill,
    /// Whenever lookup finds a continuation (the masks' candidates otherwise).
    Prefer,
}

/// CTC decoding rule of the `nat` strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CtcDecodeKind {
    /// Argmax per position, merge repeats, drop blanks.
    #[default]
    Greedy,
    /// CTC prefix beam search (sums the probability of every alignment of a prefix).
    Beam,
}

fn default_beam_width() -> usize {
    10
}
fn default_nat_batch() -> usize {
    32
}

/// One HSDDW drafting level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LevelConfig {
    /// Prompt lookup (no model, no entropy: it only drafts, as the lowest level).
    Ngram {
        /// Longest n-gram to match.
        #[serde(default = "default_ngram_max")]
        n_max: usize,
        /// Shortest n-gram to match.
        #[serde(default = "default_ngram_min")]
        n_min: usize,
        /// Tokens of context searched (0 = all).
        #[serde(default = "default_ngram_window")]
        window: usize,
    },
    /// An exported model sharing the target's tokenizer (a smaller sibling or a layer-skip export).
    Model {
        /// The model folder (relative to the config file).
        model: PathBuf,
    },
}

/// How HSDDW thresholds evolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThresholdRule {
    /// tau_init, then the minimum entropy of the first round, then the mean entropy at positions the level above
    /// rejected.
    #[default]
    Adaptive,
    /// Always tau_init.
    Fixed,
}

fn default_gamma() -> usize {
    10
}
fn default_buffer_cap() -> usize {
    50
}
fn default_tau_init() -> f32 {
    10.0
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig::Ar {}
    }
}

impl StrategyConfig {
    /// The strategy's name as written in YAML and reported in statistics.
    pub fn name(&self) -> &'static str {
        match self {
            StrategyConfig::Ar {} => "ar",
            StrategyConfig::Speculative { .. } => "speculative",
            StrategyConfig::Hsddw { .. } => "hsddw",
            StrategyConfig::Space { .. } => "space",
            StrategyConfig::Nat { .. } => "nat",
        }
    }
}

/// A drafter, selected by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DrafterConfig {
    /// A smaller exported LM with the target's tokenizer (e.g. Qwen2.5-Coder-0.5B for the 1.5B).
    DraftModel {
        /// The draft model folder (relative to the config file).
        model: PathBuf,
    },
    /// The first N layers of the target plus its final norm and LM head, exported from the same weights
    /// (`python -m export ... --layers N`): self-speculation without training.
    LayerSkip {
        /// The layer-skip model folder.
        model: PathBuf,
    },
    /// Prompt lookup: propose the tokens that followed the most recent earlier occurrence of the last n tokens.
    Ngram {
        /// Longest n-gram to match (tried first).
        #[serde(default = "default_ngram_max")]
        n_max: usize,
        /// Shortest n-gram to match.
        #[serde(default = "default_ngram_min")]
        n_min: usize,
        /// How many recent tokens to search (0 = the whole context).
        #[serde(default = "default_ngram_window")]
        window: usize,
        /// Draft at most `match_ratio` x (the matched n-gram's length) tokens, so a long match drafts long and a
        /// one-token match drafts one (0 = off: the window policy's k alone; docs/METHODS.md section 1.4).
        #[serde(default)]
        match_ratio: f32,
        /// A lookup corpus searched when the context has no match (`python -m export lookup-corpus`).
        #[serde(default)]
        corpus: Option<CorpusConfig>,
    },
    /// A draft head on the target's hidden states (`python -m export draft-head`; kinds ctc, medusa, eagle):
    /// candidates merged into a token tree, verified in one target pass (docs/METHODS.md section 4). The target
    /// must be exported with `--hidden-states`.
    Head {
        /// The head folder.
        model: PathBuf,
        /// Candidate sequences kept (CTC prefix beam width, Medusa beam).
        #[serde(default = "default_head_beam")]
        beam: usize,
        /// Tokens considered per position.
        #[serde(default = "default_head_top_k")]
        top_k: usize,
        /// Most nodes in one verification pass, the pending token included (small on CPUs: docs/METHODS.md).
        #[serde(default = "default_head_nodes")]
        max_nodes: usize,
        /// Most draft tokens below the pending token.
        #[serde(default = "default_head_depth")]
        max_depth: usize,
        /// Also add prompt lookup's continuation to the tree (hybrid drafting): `true` (n 3..1 over the last
        /// 1,024 tokens), `false`, or a mapping of the `kind: ngram` drafter's own keys (n_max, n_min, window,
        /// match_ratio, corpus).
        #[serde(default)]
        ngram: HybridLookup,
        /// Whether the walk may accept side nodes of the tree: `main_chain` (the default: never; a side child
        /// holding the target's token ends the round as its bonus) or `exact` (where the load-time probe finds
        /// every tree node bitwise equal to the chain over its path, as on the engine's attention kernel; else
        /// the main chain). Not the default because it pays only where a verify row is cheap: on a Zen 3 the
        /// SmolLM2 EAGLE hybrid gained (+0.06x the fastest AR over six runs; configs/smollm2-eagle-lookup.yaml opts
        /// in), the heads alone did not, and the Qwen2.5-Coder-1.5B hybrid lost or tied (1.14x vs 1.21x, 1.10x vs
        /// 1.10x: its rows cost more) (docs/HEADS.md "Side branches, exact").
        #[serde(default)]
        side_branches: SideBranchPolicy,
    },
}

/// How a head drafter's tree walk treats side branches (see `DrafterConfig::Head::side_branches`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideBranchPolicy {
    /// Keep to the main chain (no probe).
    #[default]
    MainChain,
    /// Follow side branches when the load-time probe finds them exact.
    Exact,
}

/// Prompt lookup inside a head drafter's tree (hybrid drafting). YAML: `ngram: true | false` or
/// `ngram: {n_max: 8, n_min: 2, match_ratio: 1, corpus: {path: ...}}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HybridLookup {
    /// On with [`LookupSettings::default`] (n 3..1 over the last 1,024 tokens, the settings the hybrids were
    /// first measured with), or off.
    Switch(bool),
    /// On with these settings.
    Settings(LookupSettings),
}

impl Default for HybridLookup {
    fn default() -> Self {
        HybridLookup::Switch(false)
    }
}

impl HybridLookup {
    /// The lookup settings when lookup is on.
    pub fn settings(&self) -> Option<LookupSettings> {
        match self {
            HybridLookup::Switch(false) => None,
            HybridLookup::Switch(true) => Some(LookupSettings::default()),
            HybridLookup::Settings(s) => Some(s.clone()),
        }
    }
}

// By hand rather than `#[serde(untagged)]`: an untagged enum reports any mistake inside the mapping as "data did not
// match any variant", where this passes the mapping to `LookupSettings` and keeps its own error (the unknown key).
impl<'de> Deserialize<'de> for HybridLookup {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = HybridLookup;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false, or a mapping of prompt-lookup settings (n_max, n_min, window, match_ratio, corpus)")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<HybridLookup, E> {
                Ok(HybridLookup::Switch(v))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<HybridLookup, A::Error> {
                LookupSettings::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(HybridLookup::Settings)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Prompt-lookup settings of a hybrid head drafter: the keys and defaults of `drafter: {kind: ngram}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupSettings {
    /// Longest n-gram to match (tried first).
    #[serde(default = "default_ngram_max")]
    pub n_max: usize,
    /// Shortest n-gram to match.
    #[serde(default = "default_ngram_min")]
    pub n_min: usize,
    /// How many recent tokens to search (0 = the whole context).
    #[serde(default = "default_ngram_window")]
    pub window: usize,
    /// Draft at most `match_ratio` x the matched n-gram's length (0 = off).
    #[serde(default)]
    pub match_ratio: f32,
    /// A lookup corpus searched when the context has no match.
    #[serde(default)]
    pub corpus: Option<CorpusConfig>,
}

impl Default for LookupSettings {
    fn default() -> Self {
        LookupSettings { n_max: default_ngram_max(), n_min: default_ngram_min(), window: default_ngram_window(), match_ratio: 0.0, corpus: None }
    }
}

/// A lookup corpus for the n-gram drafter (engine/strategy/speculative/corpus.rs): the folder, and when its
/// continuation is trusted enough to draft.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusConfig {
    /// The corpus folder (corpus.json + tokens.bin), relative to the config file.
    pub path: PathBuf,
    /// Most tokens drafted from the corpus per step.
    #[serde(default = "default_corpus_max_tokens")]
    pub max_tokens: usize,
    /// Longest context suffix looked up (tried first).
    #[serde(default = "default_corpus_n_max")]
    pub n_max: usize,
    /// Shortest context suffix looked up.
    #[serde(default = "default_corpus_n_min")]
    pub n_min: usize,
    /// Times the n-gram must have been seen.
    #[serde(default = "default_corpus_min_count")]
    pub min_count: u32,
    /// Share (count / (seen + 1)) the most frequent continuation must have.
    #[serde(default = "default_corpus_min_share")]
    pub min_share: f32,
}

fn default_corpus_max_tokens() -> usize {
    2
}
fn default_corpus_n_max() -> usize {
    4
}
fn default_corpus_n_min() -> usize {
    2
}
fn default_corpus_min_count() -> u32 {
    2
}
fn default_corpus_min_share() -> f32 {
    0.5
}

fn default_head_beam() -> usize {
    4
}
fn default_head_top_k() -> usize {
    4
}
fn default_head_nodes() -> usize {
    6
}
fn default_head_depth() -> usize {
    3
}

fn default_ngram_max() -> usize {
    3
}
fn default_ngram_min() -> usize {
    1
}
fn default_ngram_window() -> usize {
    1024
}

impl DrafterConfig {
    /// The drafter's name.
    pub fn name(&self) -> &'static str {
        match self {
            DrafterConfig::DraftModel { .. } => "draft_model",
            DrafterConfig::LayerSkip { .. } => "layer_skip",
            DrafterConfig::Ngram { .. } => "ngram",
            DrafterConfig::Head { .. } => "head",
        }
    }
}

/// The window policy: how many tokens to draft each step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindowConfig {
    /// `static`, `heuristic` (+2 if all accepted, else -1), `ewma` (probe k-1/k+1 on measured throughput),
    /// `entropy` (SVIP: stop drafting when the drafter's entropy exceeds `entropy_threshold`) or `cost_model`
    /// (maximise expected tokens/s from the measured verify-cost curve and running acceptance).
    #[serde(default)]
    pub policy: WindowPolicyKind,
    /// Starting (and, for `static`, fixed) draft length.
    #[serde(default = "default_k")]
    pub k: usize,
    /// Smallest draft length a dynamic policy may choose (>= 1: k never reaches 0).
    #[serde(default = "default_k_min")]
    pub k_min: usize,
    /// Largest draft length a dynamic policy may choose.
    #[serde(default = "default_k_max")]
    pub k_max: usize,
    /// Entropy threshold in nats for `entropy` (SVIP's sqrt(0.15 H) > 0.3 is H > 0.6).
    #[serde(default = "default_entropy_threshold")]
    pub entropy_threshold: f32,
    /// Smoothing factor of the running averages (`ewma`, `cost_model`).
    #[serde(default = "default_ewma_alpha")]
    pub ewma_alpha: f32,
    /// Steps between probes of k-1 / k+1 (`ewma`).
    #[serde(default = "default_probe_every")]
    pub probe_every: usize,
    /// Stop drafting while it does not pay (measured tokens/s of drafting rounds below plain steps), probing again
    /// with growing back-off; keeps a pipeline within a few percent of AR where drafts fail (free-form chat).
    #[serde(default = "default_fallback")]
    pub fallback: bool,
    /// `cost_model`: correct the verify-cost curve measured at load with the passes decoding actually runs (each
    /// pass size by its own running average, others by the running per-row excess; see
    /// engine/strategy/speculative/cost.rs `LiveCurve`). `false` keeps the load-time curve (for comparisons).
    #[serde(default = "default_learn_costs")]
    pub learn_costs: bool,
}

/// The window policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowPolicyKind {
    /// Always k.
    #[default]
    Static,
    /// Hugging Face's rule: +2 if all accepted, else -1.
    Heuristic,
    /// Running throughput per k, probing neighbours.
    Ewma,
    /// Draft until the drafter is unsure (SVIP), up to k_max.
    Entropy,
    /// Hardware-aware: measured verify cost x acceptance.
    CostModel,
}

impl Default for WindowConfig {
    fn default() -> Self {
        WindowConfig {
            policy: WindowPolicyKind::Static,
            k: default_k(),
            k_min: default_k_min(),
            k_max: default_k_max(),
            entropy_threshold: default_entropy_threshold(),
            ewma_alpha: default_ewma_alpha(),
            probe_every: default_probe_every(),
            fallback: default_fallback(),
            learn_costs: default_learn_costs(),
        }
    }
}

fn default_learn_costs() -> bool {
    true
}

fn default_fallback() -> bool {
    true
}

fn default_k() -> usize {
    4
}
fn default_k_min() -> usize {
    1
}
fn default_k_max() -> usize {
    16
}
fn default_entropy_threshold() -> f32 {
    0.6
}
fn default_ewma_alpha() -> f32 {
    0.3
}
fn default_probe_every() -> usize {
    8
}

/// Generation defaults; a request may override each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationDefaults {
    /// Maximum new tokens.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    /// Softmax temperature; 0 (or anything below `sampling::MIN_SAMPLING_TEMPERATURE`, 1e-5) means greedy.
    #[serde(default)]
    pub temperature: f32,
    /// Keep only the k most likely tokens (0 = off).
    #[serde(default)]
    pub top_k: usize,
    /// Nucleus sampling mass (1 = off).
    #[serde(default = "one")]
    pub top_p: f32,
    /// Drop tokens whose probability is below min_p times the top probability (0 = off).
    #[serde(default)]
    pub min_p: f32,
    /// CTRL-style repetition penalty over prompt and output (1 = off).
    #[serde(default = "one")]
    pub repetition_penalty: f32,
    /// RNG seed for sampling.
    #[serde(default)]
    pub seed: u64,
    /// Stop strings (not included in the output).
    #[serde(default)]
    pub stop: Vec<String>,
    /// Apply the model's chat template to a plain prompt.
    #[serde(default)]
    pub chat: bool,
}

impl Default for GenerationDefaults {
    fn default() -> Self {
        GenerationDefaults {
            max_tokens: default_max_tokens(),
            temperature: 0.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            repetition_penalty: 1.0,
            seed: 0,
            stop: Vec::new(),
            chat: false,
        }
    }
}

fn default_max_tokens() -> usize {
    256
}

fn one() -> f32 {
    1.0
}

impl PipelineConfig {
    /// Makes every relative path absolute against `base`.
    pub(crate) fn resolve_paths(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        fix(&mut self.model);
        if let StrategyConfig::Speculative {
            drafter: DrafterConfig::DraftModel { model } | DrafterConfig::LayerSkip { model } | DrafterConfig::Head { model, .. },
            ..
        } = &mut self.strategy
        {
            fix(model);
        }
        if let StrategyConfig::Speculative {
            drafter:
                DrafterConfig::Ngram { corpus: Some(c), .. }
                | DrafterConfig::Head { ngram: HybridLookup::Settings(LookupSettings { corpus: Some(c), .. }), .. },
            ..
        } = &mut self.strategy
        {
            fix(&mut c.path);
        }
        if let StrategyConfig::Hsddw { levels, .. } = &mut self.strategy {
            for level in levels {
                if let LevelConfig::Model { model } = level {
                    fix(model);
                }
            }
        }
        if let StrategyConfig::Nat { baseline: Some(b), .. } = &mut self.strategy {
            fix(b);
        }
        if let Some(lib) = self.backend.library.as_mut() {
            fix(lib);
        }
        for provider in &mut self.backend.providers {
            if let ProviderConfig::Tensorrt { engine_cache: Some(dir), .. } = provider {
                fix(dir);
            }
        }
    }

    /// Checks values serde accepted by type but that make no sense, and bounds every number that sizes memory,
    /// threads or work (the ranges are the `MAX_*` constants of this module, listed in README.md).
    pub(crate) fn validate(&self) -> Result<(), Invalid> {
        if let Some(n) = self.backend.threads {
            in_range(&["backend", "threads"], n, 1, MAX_THREADS)?;
        }
        if self.backend.providers.is_empty() {
            return Err(Invalid::new(&["backend", "providers"], "list at least one provider (e.g. [cpu])"));
        }
        for provider in &self.backend.providers {
            if let ProviderConfig::Cuda { device_id } | ProviderConfig::Tensorrt { device_id, .. } = provider {
                if !(0..=MAX_DEVICE_ID as i32).contains(device_id) {
                    return Err(Invalid::new(&["backend", "providers"], format!("device_id must be in 0..={MAX_DEVICE_ID} (got {device_id})")));
                }
            }
        }
        in_range(&["backend", "cuda", "device_id"], self.backend.cuda.device_id, 0, MAX_DEVICE_ID)?;
        if let Some(n) = self.context_length {
            in_range(&["context_length"], n, 2, MAX_CONTEXT_LENGTH)?;
        }
        if let StrategyConfig::Speculative { drafter, window, allow_lossy } = &self.strategy {
            let w = |key: &'static str, msg: String| Err(Invalid::new(&["strategy", "window", key], msg));
            if window.k_min == 0 {
                return w("k_min", "must be at least 1 (a draft window never collapses to 0)".into());
            }
            in_range(&["strategy", "window", "k_max"], window.k_max, window.k_min, MAX_DRAFT_TOKENS)?;
            if window.k < window.k_min || window.k > window.k_max {
                return w("k", format!("must be within k_min..=k_max ({}..={})", window.k_min, window.k_max));
            }
            if !(window.ewma_alpha > 0.0 && window.ewma_alpha <= 1.0) {
                return w("ewma_alpha", "must be in (0, 1]".into());
            }
            if !(window.entropy_threshold > 0.0 && window.entropy_threshold <= MAX_ENTROPY_NATS) {
                return w("entropy_threshold", format!("must be in (0, {MAX_ENTROPY_NATS}] (nats)"));
            }
            in_range(&["strategy", "window", "probe_every"], window.probe_every, 1, MAX_PROBE_EVERY)?;
            if let DrafterConfig::Ngram { n_max, n_min, window, match_ratio, corpus } = drafter {
                check_lookup(&["strategy", "drafter"], *n_min, *n_max, *window, *match_ratio, corpus.as_ref())?;
            }
            if let DrafterConfig::Head { ngram: HybridLookup::Settings(s), .. } = drafter {
                check_lookup(&["strategy", "drafter", "ngram"], s.n_min, s.n_max, s.window, s.match_ratio, s.corpus.as_ref())?;
            }
            if let DrafterConfig::Head { beam, top_k, max_nodes, max_depth, .. } = drafter {
                let d = |key: &'static str, msg: &str| Err(Invalid::new(&["strategy", "drafter", key], msg));
                if !(1..=64).contains(beam) {
                    return d("beam", "must be in 1..=64");
                }
                if !(1..=64).contains(top_k) {
                    return d("top_k", "must be in 1..=64");
                }
                if !(2..=256).contains(max_nodes) {
                    return d("max_nodes", "must be in 2..=256 (the pending token plus at least one draft)");
                }
                if !(1..=64).contains(max_depth) {
                    return d("max_depth", "must be in 1..=64");
                }
            }
            let _ = allow_lossy;
        }
        if let StrategyConfig::Hsddw { levels, gamma, buffer_cap, tau_init, .. } = &self.strategy {
            let h = |key: &'static str, msg: &str| Err(Invalid::new(&["strategy", key], msg));
            if levels.is_empty() {
                return h("levels", "list at least one drafting level (cheapest first)");
            }
            if levels.len() > MAX_HSDDW_LEVELS {
                return h("levels", &format!("list at most {MAX_HSDDW_LEVELS} levels (each loads a model)"));
            }
            if levels.iter().skip(1).any(|l| matches!(l, LevelConfig::Ngram { .. })) {
                return h("levels", "an ngram level can only be the first (cheapest) level: it cannot verify");
            }
            for level in levels {
                if let LevelConfig::Ngram { n_max, n_min, window } = level {
                    check_ngram(&["strategy", "levels"], *n_min, *n_max, *window)?;
                }
            }
            in_range(&["strategy", "gamma"], *gamma, 1, MAX_DRAFT_TOKENS)?;
            in_range(&["strategy", "buffer_cap"], *buffer_cap, 1, MAX_BUFFER_CAP)?;
            if !(*tau_init > 0.0 && *tau_init <= MAX_ENTROPY_NATS) {
                return h("tau_init", &format!("must be in (0, {MAX_ENTROPY_NATS}] (nats)"));
            }
        }
        if let StrategyConfig::Space { k: Some(k), .. } = &self.strategy {
            // The model's own k bounds it further when the strategy is built (the manifest is not read here).
            in_range(&["strategy", "k"], *k, 1, MAX_SPACE_K)?;
        }
        if let StrategyConfig::Nat { beam_width, beam_top_k, batch_size, rate, .. } = &self.strategy {
            let n = |key: &'static str, msg: &str| Err(Invalid::new(&["strategy", key], msg));
            in_range(&["strategy", "beam_width"], *beam_width, 1, MAX_BEAM)?;
            in_range(&["strategy", "beam_top_k"], *beam_top_k, 1, MAX_BEAM)?;
            in_range(&["strategy", "batch_size"], *batch_size, 1, MAX_NAT_BATCH)?;
            if let Some(r) = rate {
                if !(r.is_finite() && *r >= 1.0 && *r <= 16.0) {
                    return n("rate", "must be in [1, 16] (output positions per source token)");
                }
            }
        }
        self.generation.validate().map_err(|(key, msg)| Invalid::new(&["generation", key], msg))
    }
}

/// Most intra-op threads (`backend.threads`): far above any core count, far below what exhausts memory.
pub(crate) const MAX_THREADS: usize = 1024;
/// Largest GPU index (`backend.cuda.device_id`, a provider's `device_id`).
pub(crate) const MAX_DEVICE_ID: usize = 63;
/// Largest `context_length` (and `generation.max_tokens`): the KV cache is sized from it.
pub(crate) const MAX_CONTEXT_LENGTH: usize = 1 << 20;
/// Most draft tokens per step (`strategy.window.k_max`, `strategy.gamma`): verification passes are sized from it.
pub(crate) const MAX_DRAFT_TOKENS: usize = 256;
/// Largest SPACE group size (`strategy.k`); the model's trained k is the real bound (checked at load).
pub(crate) const MAX_SPACE_K: usize = 16;
/// Largest entropy threshold in nats (`strategy.window.entropy_threshold`, `strategy.tau_init`); ln of any
/// vocabulary is far below it.
pub(crate) const MAX_ENTROPY_NATS: f32 = 1000.0;
/// Most steps between window probes (`strategy.window.probe_every`).
pub(crate) const MAX_PROBE_EVERY: usize = 1_000_000;
/// Longest n-gram of prompt lookup (`n_max`).
pub(crate) const MAX_NGRAM: usize = 64;
/// Most HSDDW levels (`strategy.levels`).
pub(crate) const MAX_HSDDW_LEVELS: usize = 8;
/// Most unverified tokens an HSDDW level buffers (`strategy.buffer_cap`).
pub(crate) const MAX_BUFFER_CAP: usize = 4096;
/// Widest CTC beam (`strategy.beam_width`, `strategy.beam_top_k`).
pub(crate) const MAX_BEAM: usize = 256;
/// Most sentences per NAT forward pass (`strategy.batch_size`).
pub(crate) const MAX_NAT_BATCH: usize = 1024;
/// Most stop strings (`generation.stop`), and the longest one in bytes.
pub const MAX_STOP_STRINGS: usize = 16;
/// The longest stop string in bytes.
pub const MAX_STOP_BYTES: usize = 1024;

/// `value` within `lo..=hi`, or an error naming `key` and the range.
fn in_range(key: &[&str], value: usize, lo: usize, hi: usize) -> Result<(), Invalid> {
    if (lo..=hi).contains(&value) {
        return Ok(());
    }
    Err(Invalid::new(key, format!("must be in {lo}..={hi} (got {value})")))
}

/// A prompt-lookup drafter's settings under `parent` (`strategy.drafter`, or a hybrid's `strategy.drafter.ngram`):
/// the n-gram range and window, `match_ratio` in 0..=MAX_NGRAM, and the corpus's own settings.
fn check_lookup<'a>(
    parent: &[&'a str],
    n_min: usize,
    n_max: usize,
    window: usize,
    match_ratio: f32,
    corpus: Option<&CorpusConfig>,
) -> Result<(), Invalid> {
    let key = |k: &[&'a str]| parent.iter().chain(k).copied().collect::<Vec<&'a str>>();
    check_ngram(parent, n_min, n_max, window)?;
    if !(0.0..=MAX_NGRAM as f32).contains(&match_ratio) {
        return Err(Invalid::new(&key(&["match_ratio"]), format!("must be in 0..={MAX_NGRAM} (0 = off; got {match_ratio})")));
    }
    if let Some(c) = corpus {
        check_ngram(&key(&["corpus"]), c.n_min, c.n_max, 0)?;
        in_range(&key(&["corpus", "max_tokens"]), c.max_tokens, 1, MAX_NGRAM)?;
        if c.min_count == 0 {
            return Err(Invalid::new(&key(&["corpus", "min_count"]), "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&c.min_share) {
            return Err(Invalid::new(&key(&["corpus", "min_share"]), format!("must be in 0..=1 (got {})", c.min_share)));
        }
    }
    Ok(())
}

/// Prompt-lookup settings: 1 <= n_min <= n_max <= MAX_NGRAM, window (0 = all) at most MAX_CONTEXT_LENGTH.
fn check_ngram(parent: &[&str], n_min: usize, n_max: usize, window: usize) -> Result<(), Invalid> {
    let key = |k: &str| parent.iter().copied().chain([k]).map(str::to_string).collect::<Vec<_>>();
    if n_min == 0 || n_max < n_min {
        return Err(Invalid { key: key("n_min"), message: "need 1 <= n_min <= n_max".into() });
    }
    if n_max > MAX_NGRAM {
        return Err(Invalid { key: key("n_max"), message: format!("must be at most {MAX_NGRAM} (got {n_max})") });
    }
    if window > MAX_CONTEXT_LENGTH {
        return Err(Invalid { key: key("window"), message: format!("must be at most {MAX_CONTEXT_LENGTH} (0 = the whole context; got {window})") });
    }
    Ok(())
}

impl GenerationDefaults {
    /// Checks the sampling values; returns the offending key and why.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        check_sampling(self.temperature, self.top_p, self.min_p, self.repetition_penalty)?;
        if !(1..=MAX_CONTEXT_LENGTH).contains(&self.max_tokens) {
            return Err(("max_tokens", format!("must be in 1..={MAX_CONTEXT_LENGTH} (got {})", self.max_tokens)));
        }
        if self.stop.iter().any(String::is_empty) {
            return Err(("stop", "stop strings must not be empty".into()));
        }
        if self.stop.len() > MAX_STOP_STRINGS || self.stop.iter().any(|s| s.len() > MAX_STOP_BYTES) {
            return Err(("stop", format!("list at most {MAX_STOP_STRINGS} strings of at most {MAX_STOP_BYTES} bytes")));
        }
        Ok(())
    }
}

/// Shared range checks for sampling values (config defaults and per-request overrides).
pub(crate) fn check_sampling(temperature: f32, top_p: f32, min_p: f32, repetition_penalty: f32) -> Result<(), (&'static str, String)> {
    if !temperature.is_finite() || temperature < 0.0 {
        return Err(("temperature", format!("must be >= 0 (got {temperature})")));
    }
    if !(top_p > 0.0 && top_p <= 1.0) {
        return Err(("top_p", format!("must be in (0, 1] (got {top_p})")));
    }
    if !(0.0..=1.0).contains(&min_p) {
        return Err(("min_p", format!("must be in [0, 1] (got {min_p})")));
    }
    if !repetition_penalty.is_finite() || repetition_penalty <= 0.0 {
        return Err(("repetition_penalty", format!("must be > 0 (got {repetition_penalty})")));
    }
    Ok(())
}
