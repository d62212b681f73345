//! Requests, outputs and the [`OutputSink`] every strategy commits tokens into. The sink owns the stopping rules
//! (stop ids, stop strings, max tokens, cancellation) and streaming, so a strategy that commits several tokens at
//! once stops exactly where plain AR would, and streams the same text.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::Serialize;

use crate::error::Result;
use crate::stats::Stats;
use crate::text::{ChatMessage, TextStream, Tokenizer};

/// What to continue.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// Plain text; the chat template is applied when the request (or pipeline default) says `chat`.
    Text(String),
    /// A conversation, always rendered with the chat template.
    Messages(Vec<ChatMessage>),
    /// Token ids, used as they are.
    Tokens(Vec<u32>),
}

/// One generation request. `None` fields take the pipeline's defaults.
#[derive(Debug, Clone, Default)]
pub struct GenerationRequest {
    /// The prompt.
    pub prompt: Option<Prompt>,
    /// Apply the chat template to a text prompt.
    pub chat: Option<bool>,
    /// Maximum new tokens.
    pub max_tokens: Option<usize>,
    /// Sampling temperature (0 = greedy).
    pub temperature: Option<f32>,
    /// Top-k (0 = off).
    pub top_k: Option<usize>,
    /// Top-p (1 = off).
    pub top_p: Option<f32>,
    /// Min-p (0 = off).
    pub min_p: Option<f32>,
    /// Repetition penalty (1 = off).
    pub repetition_penalty: Option<f32>,
    /// RNG seed.
    pub seed: Option<u64>,
    /// Stop strings (replace the pipeline's).
    pub stop: Option<Vec<String>>,
    /// Do not stop at stop tokens (benchmarks that need exactly `max_tokens` tokens).
    pub ignore_eos: bool,
    /// Let control-token text in chat messages (`<|im_start|>`) act as control tokens. Off by default, so a
    /// message cannot forge a turn; set it only for messages the caller wrote itself.
    pub trusted_messages: bool,
}

impl GenerationRequest {
    /// A request for a text prompt with all defaults.
    pub fn text(prompt: impl Into<String>) -> Self {
        GenerationRequest { prompt: Some(Prompt::Text(prompt.into())), ..Default::default() }
    }
}

/// Why generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A stop token or stop string.
    Stop,
    /// `max_tokens`, or the context is full.
    Length,
    /// The caller cancelled.
    Cancelled,
}

impl FinishReason {
    /// The OpenAI-style name.
    pub fn as_str(self) -> &'static str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::Cancelled => "cancelled",
        }
    }
}

/// The result of a generation.
#[derive(Debug, Clone)]
pub struct Output {
    /// Generated text (stop strings and stop tokens excluded).
    pub text: String,
    /// Generated token ids (stop tokens excluded).
    pub tokens: Vec<u32>,
    /// Why it ended.
    pub finish_reason: FinishReason,
    /// Counters and timings.
    pub stats: Stats,
}

/// Receives committed tokens from a strategy, applies the stopping rules and streams text.
pub struct OutputSink<'a> {
    tokenizer: &'a Tokenizer,
    stop_ids: &'a [u32],
    stop_strings: &'a [String],
    max_tokens: usize,
    on_text: &'a mut dyn FnMut(&str) -> bool,
    cancel: Option<&'a AtomicBool>,
    tokens: Vec<u32>,
    text: String,
    emitted: usize,
    stream: TextStream,
    /// Seconds spent in the detokenizer.
    detokenize_seconds: f64,
    finish: Option<FinishReason>,
    cut: bool,
    stop_token: bool,
}

impl<'a> OutputSink<'a> {
    /// A sink. `on_text` receives text pieces as they become final and returns `false` to cancel.
    pub fn new(
        tokenizer: &'a Tokenizer,
        stop_ids: &'a [u32],
        stop_strings: &'a [String],
        max_tokens: usize,
        on_text: &'a mut dyn FnMut(&str) -> bool,
        cancel: Option<&'a AtomicBool>,
    ) -> Self {
        OutputSink {
            tokenizer,
            stop_ids,
            stop_strings,
            max_tokens,
            on_text,
            cancel,
            tokens: Vec::new(),
            text: String::new(),
            emitted: 0,
            stream: TextStream::new(),
            detokenize_seconds: 0.0,
            finish: None,
            cut: false,
            stop_token: false,
        }
    }

    /// Commits one token. Returns `Ok(false)` once generation must end (this token may have ended it: a stop id
    /// is not added to the output; a stop string is cut from the text).
    pub fn push(&mut self, token: u32) -> Result<bool> {
        if self.finish.is_some() {
            return Ok(false);
        }
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            self.finish = Some(FinishReason::Cancelled);
            return Ok(false);
        }
        if self.stop_ids.contains(&token) {
            self.stop_token = true;
            self.finish = Some(FinishReason::Stop);
            return Ok(false);
        }
        self.tokens.push(token);
        let t0 = Instant::now();
        let grew = self.stream.push_into(self.tokenizer, token, &mut self.text)?;
        self.detokenize_seconds += t0.elapsed().as_secs_f64();
        if grew && self.check_stop_strings() {
            return Ok(false);
        }
        if !self.emit(false) {
            self.finish = Some(FinishReason::Cancelled);
            return Ok(false);
        }
        if self.tokens.len() >= self.max_tokens {
            self.finish = Some(FinishReason::Length);
            return Ok(false);
        }
        Ok(true)
    }

    /// Commits tokens in order until one ends generation; returns how many were taken and whether to go on.
    pub(crate) fn push_all(&mut self, tokens: &[u32]) -> Result<(usize, bool)> {
        for (i, &t) in tokens.iter().enumerate() {
            if !self.push(t)? {
                // A stop id is consumed but not output; count it as taken so callers keep caches in step.
                return Ok((i + 1, false));
            }
        }
        Ok((tokens.len(), true))
    }

    /// Marks the end because the context is full.
    pub(crate) fn context_full(&mut self) {
        if self.finish.is_none() {
            self.finish = Some(FinishReason::Length);
        }
    }

    /// Tokens that may still be output before `max_tokens`.
    pub(crate) fn remaining(&self) -> usize {
        self.max_tokens.saturating_sub(self.tokens.len())
    }

    /// Tokens output so far.
    pub fn tokens(&self) -> &[u32] {
        &self.tokens
    }

    /// True when a stop token (consumed, not output) ended generation.
    pub(crate) fn ended_by_stop_token(&self) -> bool {
        self.stop_token
    }

    /// Flushes the remaining text and returns (text, tokens, finish reason, seconds spent detokenizing).
    pub fn finish(mut self) -> Result<(String, Vec<u32>, FinishReason, f64)> {
        let reason = self.finish.unwrap_or(FinishReason::Length);
        // After a stop string the rest of the text is dropped; otherwise flush what the stream still holds.
        let t0 = Instant::now();
        if !self.cut && self.stream.finish_into(self.tokenizer, &mut self.text)? {
            self.check_stop_strings();
        }
        self.detokenize_seconds += t0.elapsed().as_secs_f64();
        self.emit(true);
        Ok((self.text, self.tokens, reason, self.detokenize_seconds))
    }

    /// Cuts the text at the first stop string; returns true when one was found.
    fn check_stop_strings(&mut self) -> bool {
        let longest = self.stop_strings.iter().map(String::len).max().unwrap_or(0);
        if longest == 0 {
            return false;
        }
        // Only the region that could contain a new match needs searching.
        let mut from = self.emitted.saturating_sub(longest);
        while !self.text.is_char_boundary(from) {
            from -= 1;
        }
        let hit = self.stop_strings.iter().filter_map(|s| self.text[from..].find(s.as_str()).map(|i| from + i)).min();
        if let Some(at) = hit {
            self.text.truncate(at);
            self.cut = true;
            self.finish = Some(FinishReason::Stop);
            self.emit(true);
            return true;
        }
        false
    }

    /// Sends text that can no longer become part of a stop string; everything when `all`.
    fn emit(&mut self, all: bool) -> bool {
        let mut end = self.text.len();
        if !all {
            // Hold back the longest suffix that is a prefix of some stop string.
            let hold = self
                .stop_strings
                .iter()
                .map(|s| (1..s.len().min(self.text.len() + 1)).rev().find(|&n| s.is_char_boundary(n) && self.text.ends_with(&s[..n])).unwrap_or(0))
                .max()
                .unwrap_or(0);
            end -= hold;
        }
        if end > self.emitted && self.text.is_char_boundary(end) {
            let keep_going = (self.on_text)(&self.text[self.emitted..end]);
            self.emitted = end;
            return keep_going;
        }
        true
    }
}
