//! [`Pipeline`]: what a YAML file describes, loaded and ready: the target model on its backend, the tokenizer
//! and chat template, the strategy, and the generation defaults. Every interface (CLI, C ABI, server, benchmark)
//! generates through it.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use std::sync::Arc;

use crate::backend::{self, Backend};
use crate::config::schema::{MAX_STOP_BYTES, MAX_STOP_STRINGS};
use crate::config::{self, LoadedConfig, PipelineConfig, StrategyConfig};
use crate::error::{Error, Result};
use crate::generate::{GenerationRequest, Output, OutputSink, Prompt};
use crate::model::{BatchInvariance, LanguageModel, ModelLoader};
use crate::sampling::{Sampler, SamplingParams};
use crate::stats::Stats;
use crate::strategy::{self, DecodeContext, Strategy};
use crate::text::{chat_template, ChatMessage, ChatTemplate, Tokenizer};

/// The most UTF-8 bytes of prompt text per token of context (defined beside the tokenizer, which NAT pipelines
/// bound the same way).
pub use crate::text::MAX_PROMPT_BYTES_PER_TOKEN;

/// A loaded pipeline.
pub struct Pipeline {
    name: String,
    config: PipelineConfig,
    backend: Arc<dyn Backend>,
    loader: ModelLoader,
    target: LanguageModel,
    /// How the target runs for lossless verification (`None` for strategies that never verify in batches).
    numerics: Option<BatchInvariance>,
    tokenizer: Tokenizer,
    template: ChatTemplate,
    stop_ids: Vec<u32>,
    strategy: Box<dyn Strategy>,
}

impl Pipeline {
    /// Loads the pipeline a YAML file describes.
    pub fn load(path: &Path) -> Result<Self> {
        let loaded = config::load_file(path)?;
        Self::from_config(loaded)
    }

    /// Loads a pipeline from a parsed config.
    pub fn from_config(loaded: LoadedConfig) -> Result<Self> {
        let config = loaded.config;
        let name = config
            .name
            .clone()
            .unwrap_or_else(|| Path::new(&loaded.source).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "pipeline".into()));
        if matches!(config.strategy, StrategyConfig::Nat { .. }) {
            return Err(Error::Config {
                file: loaded.source.clone(),
                line: 0,
                column: 0,
                message: "strategy.kind `nat` runs an encoder-only CTC model, not a decoder: load this file with \
                          specrt::nat::NatPipeline (`specrt generate` and `specrt bench` do so)"
                    .into(),
            });
        }
        let backend = backend::open(&config.backend)?;
        let target = LanguageModel::open(&*backend, &config.model, config.context_length)?;
        let loader = ModelLoader::new(backend.clone(), target.capacity());
        let manifest = target.manifest();
        let tokenizer = Tokenizer::load(&manifest.header.dir.join(&manifest.tokenizer))?;
        if tokenizer.vocab_size() > manifest.dims.vocab_size {
            return Err(Error::model(
                &manifest.header.dir,
                format!("tokenizer has {} tokens but the model's vocabulary is {}", tokenizer.vocab_size(), manifest.dims.vocab_size),
            ));
        }
        let token_text = |id: Option<u32>| id.and_then(|i| tokenizer.id_to_token(i)).unwrap_or_default();
        let template = ChatTemplate::new(
            manifest.chat_template.as_deref().unwrap_or(chat_template::CHATML),
            &token_text(manifest.tokens.bos_id),
            &token_text(manifest.tokens.eos_id),
        )?;
        let mut stop_ids = manifest.tokens.stop_ids.clone();
        stop_ids.extend(manifest.tokens.eos_id);
        stop_ids.sort_unstable();
        stop_ids.dedup();
        let strategy = strategy::build(&config.strategy, &loader, target.manifest())?;
        let mut pipeline = Pipeline { name, config, backend, loader, target, numerics: None, tokenizer, template, stop_ids, strategy };
        pipeline.prepare_strategy()?;
        Ok(pipeline)
    }

    /// Load-time work of the current strategy: the batch-invariance probe for strategies that verify several
    /// tokens per pass (docs/DESIGN.md "Losslessness and batch invariance"), then the strategy's own `prepare`.
    fn prepare_strategy(&mut self) -> Result<()> {
        if self.strategy.verifies_in_batches() {
            match self.target.ensure_batch_invariance() {
                Ok(mode) => self.numerics = Some(mode),
                Err(e) if self.allows_lossy() => {
                    // The user accepted a lossy pipeline: run padded (closest to decode numerics) and say so.
                    eprintln!("warning: {e}; running anyway (allow_lossy)");
                    self.target.set_batch_invariant(true);
                    self.numerics = Some(BatchInvariance::Padded);
                }
                Err(e) => return Err(e),
            }
        }
        self.target.reset();
        let prepared = self.strategy.prepare(&mut self.target);
        self.target.reset();
        prepared
    }

    fn allows_lossy(&self) -> bool {
        matches!(self.config.strategy, StrategyConfig::Speculative { allow_lossy: true, .. } | StrategyConfig::Hsddw { allow_lossy: true, .. })
    }

    /// How the target runs so verification equals decoding: `native` (unpadded one-token steps already match),
    /// `padded` (one-token steps run as two-row passes), or `None` for a strategy that never verifies in batches
    /// and so runs the fastest unpadded path.
    pub fn numerics(&self) -> Option<BatchInvariance> {
        self.numerics
    }

    /// Replaces the strategy, keeping the loaded target (e.g. `--strategy ar` to compare with plain AR).
    pub fn set_strategy(&mut self, config: StrategyConfig) -> Result<()> {
        // An override to plain AR keeps the pipeline's numerics (so its output is the reference for the
        // pipeline's own strategy); switching to a speculative strategy probes and pads where needed.
        self.strategy = strategy::build(&config, &self.loader, self.target.manifest())?;
        self.config.strategy = config;
        self.prepare_strategy()
    }

    /// The backend's fixed costs of a run call and of a graph node, where the backend measures them (tiny graphs
    /// run on the pipeline's settings; the benchmark's overhead figures).
    pub fn backend_call_cost(&self) -> Result<Option<crate::backend::CallCost>> {
        self.backend.call_cost()
    }

    /// The pipeline's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The config it was built from.
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// The strategy's name.
    pub fn strategy_name(&self) -> &'static str {
        self.strategy.name()
    }

    /// The target model's display name (its folder).
    pub fn model_name(&self) -> String {
        self.target.manifest().display_name()
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The KV capacity of the target.
    pub fn context_length(&self) -> usize {
        self.target.capacity()
    }

    /// Where the target runs (e.g. `onnxruntime/cpu`).
    pub fn device(&self) -> String {
        self.backend.device()
    }

    /// The target model (benchmarks measure it directly, e.g. latency against context length).
    pub fn target_mut(&mut self) -> &mut LanguageModel {
        &mut self.target
    }

    /// Refuses text too long for the context before it is tokenized: no tokenizer turns more than
    /// [`MAX_PROMPT_BYTES_PER_TOKEN`] bytes into one token of a prompt that fits, so the work stays bounded by the
    /// context length whatever the caller sends.
    fn check_prompt_bytes(&self, bytes: usize) -> Result<()> {
        let context = self.target.capacity();
        let limit = context.saturating_mul(MAX_PROMPT_BYTES_PER_TOKEN);
        if bytes > limit {
            return Err(Error::PromptTooLarge { bytes, limit, context, per_token: MAX_PROMPT_BYTES_PER_TOKEN });
        }
        Ok(())
    }

    /// Prompt token ids of a request (chat template applied when asked; control-token text inside chat messages
    /// encodes as text unless the request sets `trusted_messages`).
    pub fn prompt_tokens(&self, request: &GenerationRequest) -> Result<Vec<u32>> {
        let chat = request.chat.unwrap_or(self.config.generation.chat);
        match &request.prompt {
            Some(Prompt::Text(t)) => self.check_prompt_bytes(t.len())?,
            Some(Prompt::Messages(m)) => {
                self.check_prompt_bytes(m.iter().map(|m| m.content.len().saturating_add(m.role.len())).fold(0, usize::saturating_add))?
            }
            Some(Prompt::Tokens(_)) | None => {}
        }
        let tokens = match &request.prompt {
            None => return Err(Error::InvalidRequest("no prompt".into())),
            Some(Prompt::Tokens(t)) => t.clone(),
            // Message text is data, not markup: control-token text in it stays text (chat_template::encode_chat).
            Some(Prompt::Messages(m)) => chat_template::encode_chat(&self.tokenizer, &self.template, m, request.trusted_messages)?,
            Some(Prompt::Text(t)) if chat => {
                chat_template::encode_chat(&self.tokenizer, &self.template, &[ChatMessage::user(t.clone())], request.trusted_messages)?
            }
            Some(Prompt::Text(t)) => {
                let mut ids = Vec::new();
                let m = self.target.manifest();
                if m.tokens.add_bos {
                    ids.extend(m.tokens.bos_id);
                }
                ids.extend(self.tokenizer.encode(t)?);
                ids
            }
        };
        if tokens.is_empty() {
            return Err(Error::InvalidRequest("the prompt is empty".into()));
        }
        let vocab = self.target.vocab_size() as u32;
        if let Some(bad) = tokens.iter().find(|&&t| t >= vocab) {
            return Err(Error::InvalidRequest(format!("token id {bad} is outside the vocabulary (size {vocab})")));
        }
        Ok(tokens)
    }

    /// Sampling parameters of a request (request values over pipeline defaults), validated.
    pub(crate) fn sampling_params(&self, request: &GenerationRequest) -> Result<SamplingParams> {
        let g = &self.config.generation;
        let p = SamplingParams {
            temperature: request.temperature.unwrap_or(g.temperature),
            top_k: request.top_k.unwrap_or(g.top_k),
            top_p: request.top_p.unwrap_or(g.top_p),
            min_p: request.min_p.unwrap_or(g.min_p),
            repetition_penalty: request.repetition_penalty.unwrap_or(g.repetition_penalty),
            seed: request.seed.unwrap_or(g.seed),
        };
        config::schema::check_sampling(p.temperature, p.top_p, p.min_p, p.repetition_penalty)
            .map_err(|(key, message)| Error::InvalidValue { key: key.to_string(), message: message.to_string() })?;
        if !p.is_greedy() && !self.strategy.exact_under_sampling() && !self.allows_lossy() {
            return Err(Error::InvalidRequest(format!(
                "strategy `{}` is only lossless with greedy decoding (temperature 0); set strategy.allow_lossy: true to sample anyway",
                self.strategy.name()
            )));
        }
        Ok(p)
    }

    /// Generates for `request`, calling `on_text` with each piece of final text (return `false` to stop).
    pub fn generate(&mut self, request: &GenerationRequest, on_text: &mut dyn FnMut(&str) -> bool) -> Result<Output> {
        self.generate_with_cancel(request, on_text, None)
    }

    /// As [`Pipeline::generate`], also stopping when `cancel` becomes true (checked between tokens).
    pub(crate) fn generate_with_cancel(
        &mut self,
        request: &GenerationRequest,
        on_text: &mut dyn FnMut(&str) -> bool,
        cancel: Option<&AtomicBool>,
    ) -> Result<Output> {
        let tokenize_start = Instant::now();
        let prompt = self.prompt_tokens(request)?;
        let tokenize_seconds = tokenize_start.elapsed().as_secs_f64();
        let params = self.sampling_params(request)?;
        let capacity = self.target.capacity();
        if prompt.len() + 1 > capacity {
            return Err(Error::PromptTooLong {
                prompt_tokens: prompt.len(),
                context: capacity,
                model_max: self.target.manifest().dims.max_position_embeddings,
            });
        }
        let max_tokens = request.max_tokens.unwrap_or(self.config.generation.max_tokens);
        if max_tokens == 0 {
            return Err(Error::InvalidValue { key: "max_tokens".into(), message: "must be at least 1".into() });
        }
        let stop_strings = match &request.stop {
            Some(s) => s.clone(),
            None => self.config.generation.stop.clone(),
        };
        if stop_strings.iter().any(String::is_empty) {
            return Err(Error::InvalidValue { key: "stop".into(), message: "strings must not be empty".into() });
        }
        // Every stop string is searched for in the text after each token: their number and length bound that
        // work, for every interface (the server, the C ABI and the CLI all pass through here).
        if stop_strings.len() > MAX_STOP_STRINGS || stop_strings.iter().any(|s| s.len() > MAX_STOP_BYTES) {
            return Err(Error::InvalidValue {
                key: "stop".into(),
                message: format!("at most {MAX_STOP_STRINGS} strings of at most {MAX_STOP_BYTES} bytes each"),
            });
        }
        let mut stats = Stats { strategy: self.strategy.name().to_string(), prompt_tokens: prompt.len(), tokenize_seconds, ..Default::default() };
        let mut sampler = Sampler::new(params);
        let stop_ids: &[u32] = if request.ignore_eos { &[] } else { &self.stop_ids };
        let mut sink = OutputSink::new(&self.tokenizer, stop_ids, &stop_strings, max_tokens, on_text, cancel);
        self.target.reset();
        let backend_before = self.target.backend_seconds() + self.strategy.backend_seconds();
        let calls_before = self.target.backend_calls() + self.strategy.backend_calls();
        let passes_before = self.target.pass_totals().clone();
        let start = Instant::now();
        let result = {
            let mut ctx = DecodeContext { target: &mut self.target, prompt: &prompt, sampler: &mut sampler, sink: &mut sink, stats: &mut stats };
            self.strategy.generate(&mut ctx)
        };
        self.target.reset();
        result?;
        let stop_token = sink.ended_by_stop_token();
        let (text, tokens, finish_reason, detokenize_seconds) = sink.finish()?;
        stats.detokenize_seconds = detokenize_seconds;
        stats.new_tokens = tokens.len();
        stats.committed_tokens = tokens.len() + usize::from(stop_token);
        stats.backend_seconds = self.target.backend_seconds() + self.strategy.backend_seconds() - backend_before;
        stats.backend_calls = self.target.backend_calls() + self.strategy.backend_calls() - calls_before;
        stats.target_passes = self.target.pass_totals().since(&passes_before);
        stats.decode_seconds = (start.elapsed().as_secs_f64() - stats.prefill_seconds).max(0.0);
        Ok(Output { text, tokens, finish_reason, stats })
    }
}
