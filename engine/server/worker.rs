//! Inference workers: dedicated std threads, each owning one loaded pipeline ([`Served`]), fed by a bounded queue
//! per served pipeline. The async side never runs inference; it submits a [`Job`] and reads [`Event`]s back.
//! Decoder pipelines run one job at a time here; NAT pipelines gather jobs into batches ([`super::batcher`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::api::ApiError;
use super::batcher::{self, Batching};
use super::cancel::cancelled_error;
use super::job::{Control, Event, Finished, Job, Work};
use super::metrics::QueueGauge;
use super::queue::{cancel_cause, panic_message, Queue, WorkerShared};
use crate::generate::{FinishReason, GenerationRequest, Prompt};
use crate::nat::NatPipeline;
use crate::pipeline::Pipeline;
use crate::stats::Stats;

/// Static facts about a served pipeline (for `/v1/models` and validation).
#[derive(Debug, Clone)]
pub(crate) struct PipelineInfo {
    /// The served name (`model` in requests).
    pub name: String,
    /// The target model's name.
    pub model: String,
    /// The strategy (`ar`, `speculative`, `hsddw`, `nat`, ...).
    pub strategy: String,
    /// The model kind: `decoder` or `ctc_nat`.
    pub model_kind: &'static str,
    /// KV capacity (decoder pipelines).
    pub context_length: Option<usize>,
    /// Where it runs.
    pub device: String,
    /// NAT pipelines: the request limits and the batching in effect.
    pub nat: Option<NatInfo>,
}

/// How a NAT pipeline is served (resolved from the server file's `nat:` section and the pipeline).
#[derive(Debug, Clone)]
pub(crate) struct NatInfo {
    /// Most sentences per request.
    pub max_sentences_per_request: usize,
    /// Most bytes per sentence (checked before tokenizing).
    pub max_sentence_bytes: usize,
    /// `greedy` or `beam`.
    pub decode: &'static str,
    /// The gathering rule.
    pub batching: Batching,
}

/// A loaded pipeline a worker owns.
pub(crate) enum Served {
    /// A decoder pipeline (ar, speculative, hsddw, ...).
    Decoder(Box<Pipeline>),
    /// A CTC NAT pipeline.
    Nat(Box<NatPipeline>),
}

impl Served {
    /// The pipeline's own name.
    pub fn name(&self) -> &str {
        match self {
            Served::Decoder(p) => p.name(),
            Served::Nat(p) => p.name(),
        }
    }

    fn info(&self, name: &str, nat: Option<NatInfo>) -> PipelineInfo {
        match self {
            Served::Decoder(p) => PipelineInfo {
                name: name.to_string(),
                model: p.model_name(),
                strategy: p.strategy_name().to_string(),
                model_kind: "decoder",
                context_length: Some(p.context_length()),
                device: p.device(),
                nat: None,
            },
            Served::Nat(p) => PipelineInfo {
                name: name.to_string(),
                model: p.model_name(),
                strategy: "nat".into(),
                model_kind: "ctc_nat",
                context_length: None,
                device: p.device(),
                nat,
            },
        }
    }
}

/// A served pipeline: its queue and workers.
pub(crate) struct PipelineHandle {
    /// Facts.
    pub info: PipelineInfo,
    sender: Mutex<Option<SyncSender<Job>>>,
    /// Queue depth gauge.
    pub gauge: Arc<QueueGauge>,
    inflight: Arc<Mutex<Vec<Arc<Control>>>>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

/// Why a job was not queued.
pub(crate) enum SubmitError {
    /// The queue is full (429).
    Full,
    /// The server is shutting down (503).
    Closed,
}

impl PipelineHandle {
    /// Starts one worker thread per pipeline copy, all fed by one queue of `capacity`. `copies` is not empty
    /// (one per worker); `nat` is given for NAT pipelines.
    pub fn start(
        name: String,
        copies: Vec<Served>,
        nat: Option<NatInfo>,
        capacity: usize,
        shared: Arc<WorkerShared>,
        gauge: Arc<QueueGauge>,
    ) -> Arc<Self> {
        let info = copies.first().map(|c| c.info(&name, nat.clone())).unwrap_or_else(|| PipelineInfo {
            name: name.clone(),
            model: String::new(),
            strategy: String::new(),
            model_kind: "decoder",
            context_length: None,
            device: String::new(),
            nat: None,
        });
        let (tx, rx) = std::sync::mpsc::sync_channel::<Job>(capacity);
        let rx = Arc::new(Mutex::new(rx));
        let inflight = Arc::new(Mutex::new(Vec::new()));
        let workers = copies
            .into_iter()
            .enumerate()
            .map(|(i, served)| {
                let (rx, shared, gauge, inflight, name) = (rx.clone(), shared.clone(), gauge.clone(), inflight.clone(), name.clone());
                let batching = nat.as_ref().map(|n| n.batching.clone());
                std::thread::Builder::new()
                    .name(format!("specrt-worker-{name}-{i}"))
                    .spawn(move || {
                        let queue = Queue { name: &name, rx: &rx, shared: &shared, gauge: &gauge, inflight: &inflight };
                        match served {
                            Served::Decoder(pipeline) => worker_loop(*pipeline, &queue),
                            Served::Nat(pipeline) => batcher::worker_loop(*pipeline, &batching.unwrap_or_default(), &queue),
                        }
                    })
                    .expect("spawning a worker thread")
            })
            .collect();
        Arc::new(PipelineHandle { info, sender: Mutex::new(Some(tx)), gauge, inflight, workers: Mutex::new(workers) })
    }

    /// Queues a job without waiting.
    pub(crate) fn submit(&self, job: Job) -> Result<(), SubmitError> {
        let guard = self.sender.lock().unwrap_or_else(|p| p.into_inner());
        let Some(tx) = guard.as_ref() else { return Err(SubmitError::Closed) };
        // Count before sending so the worker's decrement never runs first.
        self.gauge.depth.fetch_add(1, Ordering::SeqCst);
        match tx.try_send(job) {
            Ok(()) => Ok(()),
            Err(e) => {
                self.gauge.depth.fetch_sub(1, Ordering::SeqCst);
                Err(match e {
                    TrySendError::Full(_) => SubmitError::Full,
                    TrySendError::Disconnected(_) => SubmitError::Closed,
                })
            }
        }
    }

    /// Cancels every running generation.
    pub(crate) fn cancel_all(&self) {
        for c in self.inflight.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            c.cancel.store(true, Ordering::SeqCst);
        }
    }

    /// Closes the queue (workers drain what is queued, then exit) and joins the workers.
    pub(crate) fn close_and_join(&self) {
        self.sender.lock().unwrap_or_else(|p| p.into_inner()).take();
        let workers = std::mem::take(&mut *self.workers.lock().unwrap_or_else(|p| p.into_inner()));
        for w in workers {
            let _ = w.join();
        }
    }
}

fn worker_loop(mut pipeline: Pipeline, queue: &Queue<'_>) {
    loop {
        let job = {
            let rx = queue.rx.lock().unwrap_or_else(|p| p.into_inner());
            match rx.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        let Some(job) = queue.take(job) else { continue };
        queue.running(&[&job], || run_job(&mut pipeline, queue.name, &job, queue.shared));
    }
}

fn prompt_contains(request: &GenerationRequest, marker: &str) -> bool {
    match &request.prompt {
        Some(Prompt::Text(t)) => t.contains(marker),
        Some(Prompt::Messages(m)) => m.iter().any(|m| m.content.contains(marker)),
        _ => false,
    }
}

fn run_job(pipeline: &mut Pipeline, name: &str, job: &Job, shared: &WorkerShared) {
    let result = catch_unwind(AssertUnwindSafe(|| generate(pipeline, job, shared)));
    let outcome = match result {
        Ok(Ok(finished)) => Ok(finished),
        Ok(Err(Outcome::Error(e))) => {
            shared.metrics.generation_failed(name, false, None);
            Err(e)
        }
        Ok(Err(Outcome::Cancelled(stats))) => {
            let cause = cancel_cause(&job.control, shared);
            shared.metrics.generation(name, "cancelled", Some(cause), &stats);
            Err(cancelled_error(cause))
        }
        Err(panic) => {
            let what = panic_message(&*panic);
            shared.metrics.generation_failed(name, true, None);
            Err(ApiError::new(500, "server_error", "internal_error", format!("the generation failed: {what}")))
        }
    };
    if let Ok(f) = &outcome {
        shared.metrics.generation(name, f.finish_reason, None, &f.stats);
    }
    let _ = job.events.send(Event::Done(outcome));
}

enum Outcome {
    Error(ApiError),
    Cancelled(Stats),
}

fn generate(pipeline: &mut Pipeline, job: &Job, shared: &WorkerShared) -> Result<Finished, Outcome> {
    let Work::Generate(request) = &job.work else {
        return Err(Outcome::Error(ApiError::new(500, "server_error", "internal_error", "a translation job reached a decoder pipeline")));
    };
    if let Some(marker) = &shared.panic_marker {
        if prompt_contains(request, marker) {
            panic!("test hook: prompt contains the panic marker");
        }
    }
    let prompt_param = if matches!(request.prompt, Some(Prompt::Messages(_))) { "messages" } else { "prompt" };
    let with_param = |mut e: ApiError, p: &str| {
        if e.param.is_none() {
            e.param = Some(p.to_string());
        }
        e
    };
    let tokens = pipeline.prompt_tokens(request).map_err(|e| Outcome::Error(with_param(ApiError::from_engine(&e), prompt_param)))?;
    let context = pipeline.context_length();
    if tokens.len() + 1 > context {
        return Err(Outcome::Error(ApiError::invalid(
            Some(prompt_param),
            "context_length_exceeded",
            format!("this model's context holds {context} tokens; the prompt has {} tokens, which leaves no room for a new token", tokens.len()),
        )));
    }
    if let Some(m) = request.max_tokens {
        if tokens.len() + m > context {
            return Err(Outcome::Error(ApiError::invalid(
                Some("max_tokens"),
                "context_length_exceeded",
                format!(
                    "this model's context holds {context} tokens; you requested {} tokens ({} in the prompt, {m} in the completion)",
                    tokens.len() + m,
                    tokens.len()
                ),
            )));
        }
    }
    pipeline.sampling_params(request).map_err(|e| Outcome::Error(ApiError::from_engine(&e)))?;
    let prompt_tokens = tokens.len();
    let _ = job.events.send(Event::Started { prompt_tokens });
    let request = GenerationRequest { prompt: Some(Prompt::Tokens(tokens)), ..request.clone() };
    let hard_stop = &shared.hard_stop;
    let mut on_text = |piece: &str| {
        let alive = if job.stream { job.events.send(Event::Text(piece.to_string())).is_ok() } else { !job.events.is_closed() };
        alive && !hard_stop.load(Ordering::Relaxed)
    };
    let out =
        pipeline.generate_with_cancel(&request, &mut on_text, Some(&job.control.cancel)).map_err(|e| Outcome::Error(ApiError::from_engine(&e)))?;
    if out.finish_reason == FinishReason::Cancelled {
        return Err(Outcome::Cancelled(out.stats));
    }
    Ok(Finished { completion_tokens: out.tokens.len(), text: out.text, finish_reason: out.finish_reason.as_str(), prompt_tokens, stats: out.stats })
}
