//! A queued request and what flows back from it: the [`Job`] the HTTP side submits, its cancellation
//! [`Control`], and the [`Event`]s a worker reports. Shared by the decoder workers (worker.rs) and the NAT
//! batcher (batcher.rs), which is why it is not in either.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc::UnboundedSender;

use super::api::ApiError;
use crate::generate::GenerationRequest;
use crate::nat::Translation;
use crate::stats::Stats;

/// Per-request cancellation state, shared by the HTTP side and the worker.
#[derive(Debug, Default)]
pub(crate) struct Control {
    /// Checked by the generation between tokens.
    pub cancel: AtomicBool,
    /// Set (before `cancel`) when the request ran out of time.
    pub timed_out: AtomicBool,
    /// Set (before `cancel`) when the client went away.
    pub disconnected: AtomicBool,
}

/// What a worker reports about a job.
#[derive(Debug)]
pub(crate) enum Event {
    /// The request passed validation and generation starts.
    Started {
        /// Prompt tokens after the chat template.
        prompt_tokens: usize,
    },
    /// New final text (streaming requests only).
    Text(String),
    /// The end of a generation (or of any job that failed as a whole).
    Done(Result<Finished, ApiError>),
    /// The end of a translation job: one result per sentence, in the request's order.
    Translated(Vec<Result<Translation, ApiError>>),
}

/// What a job asks for.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    /// A generation (decoder pipelines).
    Generate(GenerationRequest),
    /// Sentences to translate (NAT pipelines).
    Translate(Vec<String>),
}

/// A completed generation.
#[derive(Debug)]
pub(crate) struct Finished {
    /// The text.
    pub text: String,
    /// `stop` or `length`.
    pub finish_reason: &'static str,
    /// Prompt tokens.
    pub prompt_tokens: usize,
    /// Generated tokens.
    pub completion_tokens: usize,
    /// The generation's statistics.
    pub stats: Stats,
}

/// One queued request.
pub(crate) struct Job {
    /// What to do.
    pub work: Work,
    /// Send text pieces as they come.
    pub stream: bool,
    /// Cancellation.
    pub control: Arc<Control>,
    /// Where events go.
    pub events: UnboundedSender<Event>,
    /// When it was queued.
    pub enqueued: Instant,
}
