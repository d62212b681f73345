//! Why a running generation was cancelled, and the HTTP error each cause answers with. Its own file because the
//! metrics (which count cancellations by cause) and the worker (which decides the cause) both need it: kept in
//! worker.rs it made metrics.rs and worker.rs depend on each other.

use super::api::ApiError;

/// Why a generation was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelCause {
    /// The client went away.
    Disconnect,
    /// The request ran past `request_timeout_seconds`.
    Timeout,
    /// The server is shutting down.
    Shutdown,
}

impl CancelCause {
    /// The metrics label.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelCause::Disconnect => "disconnect",
            CancelCause::Timeout => "timeout",
            CancelCause::Shutdown => "shutdown",
        }
    }
}

/// The error a cancelled request answers with (a disconnected client never reads it).
pub(crate) fn cancelled_error(cause: CancelCause) -> ApiError {
    match cause {
        CancelCause::Timeout => ApiError::new(504, "timeout_error", "request_timeout", "the request did not finish within request_timeout_seconds"),
        CancelCause::Shutdown => ApiError::new(503, "server_error", "shutting_down", "the server is shutting down"),
        CancelCause::Disconnect => ApiError::new(499, "cancelled", "client_disconnected", "the client disconnected"),
    }
}
