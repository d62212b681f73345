//! The HTTP side of one queued job: the guard that cancels its generation when the client goes away, and the one
//! way to wait for the worker's next event, under which a timeout and a vanished worker become the errors they
//! answer with (used before the response, for non-streaming answers, and by the SSE stream).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant as TokioInstant;

use super::api::ApiError;
use super::cancel::{self, CancelCause};
use super::job::{Control, Event};

/// Cancels the generation when dropped armed: the response future or the SSE stream went away before the end,
/// which means the client disconnected.
pub(super) struct CancelOnDrop {
    control: Arc<Control>,
    armed: bool,
}

impl CancelOnDrop {
    /// An armed guard over `control`.
    pub fn new(control: Arc<Control>) -> Self {
        CancelOnDrop { control, armed: true }
    }

    /// The job ended (or can no longer run): dropping the guard cancels nothing.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }

    /// The request ran out of time: cancel the generation, counted as a timeout rather than a disconnect.
    fn time_out(&mut self) {
        self.control.timed_out.store(true, Ordering::SeqCst);
        self.control.cancel.store(true, Ordering::SeqCst);
        self.armed = false;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.control.disconnected.store(true, Ordering::SeqCst);
            self.control.cancel.store(true, Ordering::SeqCst);
        }
    }
}

/// The answer when a worker dropped a job's event channel without a last event (it should never happen: workers
/// catch panics; it means a bug, not a client error).
pub(super) fn worker_gone() -> ApiError {
    ApiError::new(500, "server_error", "internal_error", "the worker went away")
}

/// The job's next event before `deadline`. Past the deadline the generation is cancelled (504); a closed channel
/// is [`worker_gone`]. A `Done` event disarms the guard: nothing is left to cancel.
pub(super) async fn next_event(rx: &mut UnboundedReceiver<Event>, deadline: TokioInstant, guard: &mut CancelOnDrop) -> Result<Event, ApiError> {
    match tokio::time::timeout_at(deadline, rx.recv()).await {
        Err(_) => {
            guard.time_out();
            Err(cancel::cancelled_error(CancelCause::Timeout))
        }
        Ok(None) => {
            guard.disarm();
            Err(worker_gone())
        }
        Ok(Some(e)) => {
            if matches!(e, Event::Done(_)) {
                guard.disarm();
            }
            Ok(e)
        }
    }
}
