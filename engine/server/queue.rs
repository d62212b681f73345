//! What a worker thread reads its jobs from and reports to: the [`Queue`] view of one served pipeline, the
//! settings all workers share, and the bookkeeping around taking a job (queue wait, cancelled-while-queued,
//! running gauges). Used by the decoder workers (worker.rs) and the NAT batcher (batcher.rs); kept apart from
//! both so neither depends on the other's file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

use super::cancel::{cancelled_error, CancelCause};
use super::job::{Control, Event, Job};
use super::metrics::{Metrics, QueueGauge};

/// Settings shared by all workers.
pub(crate) struct WorkerShared {
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// Set when shutdown stops waiting for in-flight requests.
    pub hard_stop: Arc<AtomicBool>,
    /// Test hook: a prompt containing this text panics inside the worker.
    pub panic_marker: Option<String>,
}

/// What a worker thread reads its jobs from, and where it reports.
pub(super) struct Queue<'a> {
    /// The served name (metrics label).
    pub name: &'a str,
    /// The pipeline's queue, shared by its workers.
    pub rx: &'a Mutex<Receiver<Job>>,
    /// Metrics and the shutdown flag.
    pub shared: &'a WorkerShared,
    /// Queue depth and running gauges.
    pub gauge: &'a QueueGauge,
    /// Controls of the jobs running now (shutdown cancels them).
    pub inflight: &'a Mutex<Vec<Arc<Control>>>,
}

impl Queue<'_> {
    /// Accounts for a job just taken off the queue; answers it (and returns None) when it must not start: it timed
    /// out or was abandoned while queued, or the server is stopping.
    pub fn take(&self, job: Job) -> Option<Job> {
        self.gauge.depth.fetch_sub(1, Ordering::SeqCst);
        self.shared.metrics.queue_wait(self.name, job.enqueued.elapsed().as_secs_f64());
        if job.control.cancel.load(Ordering::SeqCst) || self.shared.hard_stop.load(Ordering::SeqCst) || job.events.is_closed() {
            let cause = cancel_cause(&job.control, self.shared);
            self.shared.metrics.generation_failed(self.name, false, Some(cause));
            let _ = job.events.send(Event::Done(Err(cancelled_error(cause))));
            return None;
        }
        Some(job)
    }

    /// Runs `f` with `jobs` counted as running and cancellable by shutdown.
    pub fn running<R>(&self, jobs: &[&Job], f: impl FnOnce() -> R) -> R {
        self.gauge.running.fetch_add(jobs.len(), Ordering::SeqCst);
        self.inflight.lock().unwrap_or_else(|p| p.into_inner()).extend(jobs.iter().map(|j| j.control.clone()));
        let r = f();
        self.inflight.lock().unwrap_or_else(|p| p.into_inner()).retain(|c| !jobs.iter().any(|j| Arc::ptr_eq(c, &j.control)));
        self.gauge.running.fetch_sub(jobs.len(), Ordering::SeqCst);
        r
    }
}

pub(super) fn cancel_cause(control: &Control, shared: &WorkerShared) -> CancelCause {
    if control.timed_out.load(Ordering::SeqCst) {
        CancelCause::Timeout
    } else if shared.hard_stop.load(Ordering::SeqCst) && !control.disconnected.load(Ordering::SeqCst) {
        CancelCause::Shutdown
    } else {
        CancelCause::Disconnect
    }
}

/// The message of a caught panic.
pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| panic.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic".into())
}
