//! Dynamic batching for NAT pipelines: a worker takes a request off the queue, waits up to `batch_window_ms` for
//! more (or until `max_batch_sentences` are gathered), runs all their sentences in shared length-sorted passes
//! ([`NatPipeline::translate_groups`]) and sends each request its own results. A request's output never depends
//! on its batch-mates: the pass is measured bitwise batch-invariant at start (`nat::invariance`), and where it is
//! not, batching is switched off for that pipeline (each request runs alone, exactly like the CLI).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::api::ApiError;
use super::job::{Event, Job, Work};
use super::queue::{panic_message, Queue};
use crate::nat::NatPipeline;

/// The gathering rule of one NAT pipeline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Batching {
    /// How long to wait for more requests after the first, at most.
    pub window: Duration,
    /// Most sentences per gathered batch (a batch always holds at least one whole request).
    pub max_sentences: usize,
    /// Why batching is off when it was asked for (the pass was not batch-invariant), if so.
    pub off_reason: Option<String>,
}

impl Default for Batching {
    fn default() -> Self {
        Batching { window: Duration::ZERO, max_sentences: 1, off_reason: None }
    }
}

impl Batching {
    /// A short description for `/v1/models` and the start line.
    pub(crate) fn describe(&self) -> String {
        match (&self.off_reason, self.max_sentences) {
            (Some(why), _) => format!("off ({why})"),
            (None, 1) => "off (max_batch_sentences 1)".into(),
            (None, n) => format!("up to {n} sentences within {:.1} ms", self.window.as_secs_f64() * 1e3),
        }
    }
}

fn sentences(job: &Job) -> &[String] {
    match &job.work {
        Work::Translate(s) => s,
        Work::Generate(_) => &[],
    }
}

/// Takes the next batch off the queue: the first job that may start (waiting as long as needed), then more while
/// the window is open and the batch has room. `wait` false closes the window at once (only jobs already queued
/// join): the worker passes false after a batch of one request, so a lone client does not wait the window for
/// batch-mates that never come (measured before this rule, docs/BENCHMARKS.md 8b: 0.53x throughput at 1 client),
/// while concurrent clients, whose jobs queue up during a pass, keep the window. A job that does not fit is returned as `carry` and starts the next
/// batch. None when the queue is closed and nothing is carried.
fn gather(queue: &Queue<'_>, batching: &Batching, carry: &mut Option<Job>, wait: bool) -> Option<Vec<Job>> {
    let rx = queue.rx.lock().unwrap_or_else(|p| p.into_inner());
    let first = loop {
        if let Some(job) = carry.take() {
            break job;
        }
        let job = rx.recv().ok()?;
        if let Some(job) = queue.take(job) {
            break job;
        }
    };
    let mut total = sentences(&first).len();
    let mut jobs = vec![first];
    let deadline = Instant::now() + if wait { batching.window } else { Duration::ZERO };
    while total < batching.max_sentences {
        let left = deadline.saturating_duration_since(Instant::now());
        let next = if left.is_zero() { rx.try_recv().map_err(|_| RecvTimeoutError::Timeout) } else { rx.recv_timeout(left) };
        let Ok(job) = next else { break };
        let Some(job) = queue.take(job) else { continue };
        let n = sentences(&job).len();
        if total + n > batching.max_sentences {
            *carry = Some(job);
            break;
        }
        total += n;
        jobs.push(job);
    }
    Some(jobs)
}

/// A NAT worker: gathers batches until the queue is closed.
pub(super) fn worker_loop(mut pipeline: NatPipeline, batching: &Batching, queue: &Queue<'_>) {
    let (mut carry, mut wait) = (None, false);
    while let Some(jobs) = gather(queue, batching, &mut carry, wait) {
        wait = jobs.len() > 1;
        let refs: Vec<&Job> = jobs.iter().collect();
        queue.running(&refs, || run_batch(&mut pipeline, &jobs, queue));
    }
}

/// Runs one gathered batch and answers every job in it.
fn run_batch(pipeline: &mut NatPipeline, jobs: &[Job], queue: &Queue<'_>) {
    let groups: Vec<&[String]> = jobs.iter().map(sentences).collect();
    let total: usize = groups.iter().map(|g| g.len()).sum();
    queue.shared.metrics.nat_batch(queue.name, jobs.len(), total);
    match catch_unwind(AssertUnwindSafe(|| pipeline.translate_groups(&groups))) {
        Ok(results) => {
            for (job, results) in jobs.iter().zip(results) {
                let results: Vec<_> = results.into_iter().map(|r| r.map_err(|e| ApiError::from_engine(&e))).collect();
                let stats = results.iter().flatten().fold(crate::stats::Stats::default(), |mut acc, t| {
                    acc.prompt_tokens += t.source_tokens;
                    acc.new_tokens += t.tokens.len();
                    acc.committed_tokens += t.tokens.len();
                    acc.decode_seconds += t.seconds;
                    acc.target_calls += 1;
                    acc
                });
                let finish = if results.iter().all(Result::is_ok) { "stop" } else { "error" };
                queue.shared.metrics.generation(queue.name, finish, None, &stats);
                let _ = job.events.send(Event::Translated(results));
            }
        }
        Err(panic) => {
            let what = panic_message(&*panic);
            for job in jobs {
                queue.shared.metrics.generation_failed(queue.name, true, None);
                let _ = job.events.send(Event::Done(Err(ApiError::new(
                    500,
                    "server_error",
                    "internal_error",
                    format!("the translation failed: {what}"),
                ))));
            }
        }
    }
}
