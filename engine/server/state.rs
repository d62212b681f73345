//! What every request handler shares: the served pipelines, the metrics, the per-request limits and the shutdown
//! flags, with the two shutdown steps (cancel what runs; then close the queues and join the workers) written once.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::log::RequestLog;
use super::metrics::Metrics;
use super::worker::PipelineHandle;

/// The server's shared state (one per server, behind an `Arc`).
pub(super) struct AppState {
    /// The served pipelines, in the server file's order (the first one serves requests without `model`).
    pub pipelines: Vec<Arc<PipelineHandle>>,
    /// Counters behind `/metrics`.
    pub metrics: Arc<Metrics>,
    /// `request_timeout_seconds`.
    pub timeout: Duration,
    /// `max_body_bytes`.
    pub max_body_bytes: usize,
    /// `body_read_timeout_seconds`.
    pub body_read_timeout: Duration,
    /// Set when shutdown starts: `/health` answers 503 and new requests are refused.
    pub shutting_down: AtomicBool,
    /// Set when shutdown stops waiting for in-flight requests (shared with the workers, which stop at it).
    pub hard_stop: Arc<AtomicBool>,
    /// The request log.
    pub log: RequestLog,
    /// Request ids are `epoch` + this counter.
    pub next_id: AtomicU64,
    /// Unix seconds when the server started (`created` of `/v1/models`, and the id prefix).
    pub epoch: u64,
}

impl AppState {
    /// Cancels every running generation; queued jobs that a worker takes from now on are answered without running.
    pub(crate) fn cancel_generations(&self) {
        self.hard_stop.store(true, Ordering::SeqCst);
        for p in &self.pipelines {
            p.cancel_all();
        }
    }

    /// Cancels what runs, closes every queue and joins the worker threads (the last step of every shutdown path).
    pub(crate) fn stop_workers(&self) {
        self.cancel_generations();
        for p in &self.pipelines {
            p.close_and_join();
        }
    }

    /// A new request id: `prefix-` + the server's epoch + a counter (`cmpl-...`, `chatcmpl-...`, `req-...`).
    pub(crate) fn new_id(&self, prefix: &str) -> String {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}-{:x}{n:06x}", self.epoch)
    }

    /// The served pipelines' names, comma-separated.
    pub fn names(&self) -> String {
        self.pipelines.iter().map(|p| p.info.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}
