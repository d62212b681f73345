//! [`NatPipeline`]: a YAML pipeline whose strategy is `nat`, loaded: the CTC NAT encoder on its backend, the
//! shared source/target tokenizer, the CTC decoding rule and the batching settings.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::ctc;
use super::model::NatModel;
use super::upsample::upsample;

use crate::backend::{self, Backend};
use crate::config::{self, CtcDecodeKind, LoadedConfig, PipelineConfig, StrategyConfig};
use crate::error::{Error, Result};
use crate::stats::Stats;
use crate::text::Tokenizer;

/// One translated sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    /// The output text.
    pub text: String,
    /// The output token ids.
    pub tokens: Vec<u32>,
    /// Source tokens.
    pub source_tokens: usize,
    /// Encoder positions after upsampling (the most output tokens possible).
    pub positions: usize,
    /// log P(output) under the model when beam search decoded it (summed over the alignments kept).
    pub log_prob: Option<f64>,
    /// Wall time of the call that produced it, divided evenly over the sentences of its batch, seconds.
    pub seconds: f64,
    /// The part of `seconds` spent in the encoder pass.
    pub forward_seconds: f64,
}

impl Translation {
    /// The statistics every interface prints, in the shape all strategies share: one model call, no prefill.
    pub fn stats(&self) -> Stats {
        Stats {
            strategy: "nat".into(),
            prompt_tokens: self.source_tokens,
            new_tokens: self.tokens.len(),
            committed_tokens: self.tokens.len(),
            decode_seconds: self.seconds,
            target_calls: 1,
            backend_seconds: self.forward_seconds,
            backend_calls: 1,
            verify_seconds: self.forward_seconds,
            details: crate::stats::Details::Nat { positions: self.positions, log_prob: self.log_prob },
            ..Default::default()
        }
    }
}

/// A loaded NAT pipeline.
pub struct NatPipeline {
    name: String,
    config: PipelineConfig,
    backend: Arc<dyn Backend>,
    model: NatModel,
    tokenizer: Tokenizer,
    decode: CtcDecodeKind,
    beam_width: usize,
    beam_top_k: usize,
    batch_size: usize,
    rate: f32,
    baseline: Option<PathBuf>,
    /// Whether greedy passes use the model's output shortlist (YAML `shortlist`, and the export has one).
    shortlist: bool,
    /// Reused: the last batch's shortlist columns and per-sentence flags.
    columns: Vec<i64>,
    allowed: Vec<u8>,
}

impl NatPipeline {
    /// Loads the pipeline a YAML file describes (its strategy must be `nat`).
    pub fn load(path: &Path) -> Result<Self> {
        Self::from_config(config::load_file(path)?)
    }

    /// Loads a NAT pipeline from a parsed config.
    pub fn from_config(loaded: LoadedConfig) -> Result<Self> {
        let config = loaded.config;
        let StrategyConfig::Nat { decode, beam_width, beam_top_k, batch_size, rate, baseline, shortlist } = config.strategy.clone() else {
            return Err(Error::Config {
                file: loaded.source,
                line: 0,
                column: 0,
                message: format!("strategy.kind is `{}`, a NAT pipeline needs `nat`", config.strategy.name()),
            });
        };
        let name = config
            .name
            .clone()
            .unwrap_or_else(|| Path::new(&loaded.source).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "nat".into()));
        let backend = backend::open(&config.backend)?;
        let model = NatModel::open(&*backend, &config.model)?;
        let m = model.manifest();
        let tokenizer = Tokenizer::load(&m.header.dir.join(&m.tokenizer))?;
        if tokenizer.vocab_size() > m.dims.vocab_size {
            return Err(Error::model(
                &m.header.dir,
                format!("tokenizer has {} tokens but the model's vocabulary is {}", tokenizer.vocab_size(), m.dims.vocab_size),
            ));
        }
        let rate = rate.unwrap_or(m.ctc.upsample.rate);
        let shortlist = shortlist && model.shortlist().is_some();
        Ok(NatPipeline {
            name,
            config,
            backend,
            model,
            tokenizer,
            decode,
            beam_width,
            beam_top_k,
            batch_size,
            rate,
            baseline,
            shortlist,
            columns: Vec::new(),
            allowed: Vec::new(),
        })
    }

    /// The pipeline's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The config it was built from.
    pub fn config(&self) -> &PipelineConfig {
        &self.config
    }

    /// The model folder's name.
    pub fn model_name(&self) -> String {
        self.model.manifest().display_name()
    }

    /// The backend's fixed costs of a run call and of a graph node, where the backend measures them (tiny graphs
    /// run on the pipeline's settings; the benchmark's overhead figures).
    pub fn backend_call_cost(&self) -> Result<Option<crate::backend::CallCost>> {
        self.backend.call_cost()
    }

    /// Where the model runs (e.g. `onnxruntime/cpu`).
    pub fn device(&self) -> String {
        self.backend.device()
    }

    /// The AR baseline pipeline file named in the config, if any.
    pub fn baseline(&self) -> Option<&Path> {
        self.baseline.as_deref()
    }

    /// The decoding rule's name: `greedy` or `beam`.
    pub fn decode_name(&self) -> &'static str {
        match self.decode {
            CtcDecodeKind::Greedy => "greedy",
            CtcDecodeKind::Beam => "beam",
        }
    }

    /// Switches the decoding rule (benchmarks compare both on one loaded model).
    pub fn set_decode(&mut self, decode: CtcDecodeKind) {
        self.decode = decode;
    }

    /// Whether greedy passes compute only the output shortlist's columns of the head.
    pub fn uses_shortlist(&self) -> bool {
        self.shortlist
    }

    /// Switches the output shortlist on or off (benchmarks compare both on one loaded model); on only takes
    /// effect where the export has one.
    pub fn set_shortlist(&mut self, on: bool) {
        self.shortlist = on && self.model.shortlist().is_some();
    }

    /// Mean number of logits columns of the shortlists built so far (`None` without any).
    pub fn shortlist_mean_size(&self) -> Option<f64> {
        self.model.shortlist().and_then(|s| s.mean_size())
    }

    /// Columns summed over the shortlists built so far, and their count (`(0, 0)` without a shortlist).
    pub fn shortlist_built(&self) -> (u64, u64) {
        self.model.shortlist().map_or((0, 0), |s| s.built())
    }

    /// Columns of the whole head's logits.
    pub fn logits_width(&self) -> usize {
        self.model.logits_width()
    }

    /// Most sentences per forward pass.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Seconds spent inside the backend so far.
    pub fn backend_seconds(&self) -> f64 {
        self.model.backend_seconds()
    }

    /// Run calls made so far.
    pub fn backend_calls(&self) -> u64 {
        self.model.backend_calls()
    }

    /// Translates one sentence in one forward pass.
    pub fn translate_one(&mut self, source: &str) -> Result<Translation> {
        let mut out = self.translate(&[source.to_string()])?;
        out.pop().ok_or_else(|| Error::Backend("no output".into()))
    }

    /// Translates `sources`, up to `batch_size` sentences per forward pass. Sentences are grouped by length so a
    /// pass pads little; the output keeps the input order. Any bad sentence (empty, too long) fails the call
    /// before any pass runs, naming its index ([`NatPipeline::translate_each`] keeps the good ones instead).
    pub fn translate(&mut self, sources: &[String]) -> Result<Vec<Translation>> {
        let mut prepared = Vec::with_capacity(sources.len());
        for (i, s) in sources.iter().enumerate() {
            prepared.push(self.prepare(i, s)?);
        }
        self.run_prepared(prepared.into_iter().map(Some).collect()).into_iter().collect()
    }

    /// Translates `sources` with one result per sentence: a bad sentence (empty, too long) or a failed pass is an
    /// error for the sentences it concerns only, never for the others (the C ABI and the server batch unrelated
    /// users' sentences together).
    pub fn translate_each(&mut self, sources: &[String]) -> Vec<Result<Translation>> {
        self.translate_groups(&[sources]).pop().unwrap_or_default()
    }

    /// [`NatPipeline::translate_each`] over several independent groups of sentences at once (the server's
    /// dynamic batching: one group per request), in shared length-sorted passes. Results come back per group,
    /// and an error names the sentence's index within its own group, so nothing in a group's answer depends on
    /// the other groups.
    pub(crate) fn translate_groups(&mut self, groups: &[&[String]]) -> Vec<Vec<Result<Translation>>> {
        let mut errors: Vec<Option<Error>> = Vec::new();
        let mut prepared = Vec::new();
        for group in groups {
            for (i, s) in group.iter().enumerate() {
                match self.prepare(i, s) {
                    Ok(p) => {
                        prepared.push(Some(p));
                        errors.push(None);
                    }
                    Err(e) => {
                        prepared.push(None);
                        errors.push(Some(e));
                    }
                }
            }
        }
        let mut results = self.run_prepared(prepared).into_iter().zip(errors).map(|(r, e)| match e {
            Some(e) => Err(e),
            None => r,
        });
        groups.iter().map(|g| results.by_ref().take(g.len()).collect()).collect()
    }

    /// The most source bytes a sentence may have: its tokens must fit the model's positions, and no token of a
    /// real vocabulary is longer than [`crate::text::MAX_PROMPT_BYTES_PER_TOKEN`] bytes, so longer text is
    /// refused before the tokenizer spends time and memory on it (issue 17: a 50 MB input once took 5 GB).
    pub fn max_source_bytes(&self) -> usize {
        self.model.manifest().ctc.upsample.position_limit.saturating_mul(crate::text::MAX_PROMPT_BYTES_PER_TOKEN)
    }

    /// Tokenizes and upsamples sentence `i`, with errors that name its index and what to do.
    fn prepare(&self, i: usize, source: &str) -> Result<(usize, Vec<u32>)> {
        let m = self.model.manifest();
        let (limit, mask) = (m.ctc.upsample.position_limit, m.ctc.mask_id);
        let too_long = |tokens: String| {
            Error::InvalidRequest(format!(
                "sentence {i} has {tokens} tokens, more than the model's {limit} positions (split it into shorter sentences)"
            ))
        };
        let source = source.trim();
        if source.len() > self.max_source_bytes() {
            return Err(too_long(format!("{} bytes, so more than {limit}", source.len())));
        }
        let ids = self.tokenizer.encode(source)?;
        let up = upsample(&ids, self.rate, limit, mask).map_err(|e| match e {
            Error::PromptTooLong { prompt_tokens, .. } => too_long(prompt_tokens.to_string()),
            Error::InvalidRequest(msg) => Error::InvalidRequest(format!("sentence {i}: {msg}")),
            other => other,
        })?;
        Ok((ids.len(), up))
    }

    /// Runs the prepared sentences (`None` = refused earlier; its slot stays an error placeholder) in length-sorted
    /// batches and returns one result per slot, in input order.
    fn run_prepared(&mut self, prepared: Vec<Option<(usize, Vec<u32>)>>) -> Vec<Result<Translation>> {
        let n = prepared.len();
        let mut order: Vec<usize> = (0..n).filter(|&i| prepared[i].is_some()).collect();
        order.sort_by_key(|&i| prepared[i].as_ref().map_or(0, |p| p.1.len()));
        let mut results: Vec<Result<Translation>> =
            (0..n).map(|_| Err(Error::InvalidRequest("sentence refused before translation".into()))).collect();
        for chunk in order.chunks(self.batch_size) {
            let t0 = Instant::now();
            let batch: Vec<Vec<u32>> = chunk.iter().filter_map(|&i| prepared[i].as_ref().map(|p| p.1.clone())).collect();
            let before = self.model.backend_seconds();
            let ctc = self.model.manifest().ctc.clone();
            let width = self.model.logits_width();
            let (decode, beam_width, beam_top_k, tokenizer) = (self.decode, self.beam_width, self.beam_top_k, &self.tokenizer);
            let finish = |tokens: Vec<u32>, log_prob: Option<f64>| -> Result<(Vec<u32>, Option<f64>, String)> {
                let text = tokenizer.decode(&tokens, true)?;
                Ok((tokens, log_prob, text))
            };
            // Decoding works on logits columns; with an output vocabulary a column is mapped to its token id.
            let to_tokens = |columns: Vec<u32>| -> Vec<u32> { columns.into_iter().map(|c| ctc.token_of_column(c)).collect() };
            let decoded = if decode == CtcDecodeKind::Greedy && self.model.has_token_ids() {
                // The graph's argmax: one id per position, already token ids; with the shortlist, the head computes
                // the batch's union of shortlist columns and each sentence chooses among its own (so batching
                // changes no output); beam search below always scores the whole head.
                let columns = (self.shortlist && self.model.shortlist_columns(&batch, &mut self.columns, &mut self.allowed))
                    .then_some(crate::backend::ColumnSelection { columns: &self.columns, allowed: &self.allowed });
                self.model.forward_ids_with(&batch, columns, |_, ids| {
                    let alignment: Vec<u32> = ids.iter().map(|&t| t as u32).collect();
                    finish(ctc::collapse(&alignment, ctc.blank_id), None)
                })
            } else {
                let blank = ctc.blank_column();
                self.model.forward_with(&batch, |_, rows| match decode {
                    CtcDecodeKind::Greedy => finish(to_tokens(ctc::greedy(rows, width, blank)), None),
                    CtcDecodeKind::Beam => {
                        let best = ctc::prefix_beam_search(rows, width, blank, beam_width, beam_top_k).into_iter().next();
                        let (columns, log_prob) = best.map(|h| (h.tokens, Some(h.log_prob))).unwrap_or((Vec::new(), None));
                        finish(to_tokens(columns), log_prob)
                    }
                })
            };
            let decoded = match decoded {
                Ok(d) => d,
                Err(e) => {
                    // A failed pass fails the sentences it carried, not the rest of the call.
                    let msg = e.to_string();
                    for &i in chunk {
                        results[i] = Err(Error::Backend(msg.clone()));
                    }
                    continue;
                }
            };
            let forward = self.model.backend_seconds() - before;
            let share = t0.elapsed().as_secs_f64() / chunk.len() as f64;
            for (&i, (tokens, log_prob, text)) in chunk.iter().zip(decoded) {
                let (source_tokens, positions) = prepared[i].as_ref().map_or((0, 0), |p| (p.0, p.1.len()));
                results[i] = Ok(Translation {
                    text: text.trim().to_string(),
                    tokens,
                    source_tokens,
                    positions,
                    log_prob,
                    seconds: share,
                    forward_seconds: forward / chunk.len() as f64,
                });
            }
        }
        results
    }
}
