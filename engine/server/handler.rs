//! What every request handler shares (the decoder path in generation.rs, the NAT path in translate.rs and the
//! router in routes.rs): queueing a job, the JSON response, the pending log record, the clock. In its own file
//! so the router and the two paths depend on it instead of on each other.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;

use super::api::ApiError;
use super::cancel::{self, CancelCause};
use super::job::Job;
use super::log::LogRecord;
use super::worker::{PipelineHandle, SubmitError};

/// A JSON response with `status`.
pub(super) fn json_response(status: u16, body: &serde_json::Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// Queues `job` on `pipeline`: a full queue is 429, a closed one (shutdown) 503.
pub(super) fn submit(pipeline: &PipelineHandle, job: Job) -> Result<(), ApiError> {
    match pipeline.submit(job) {
        Ok(()) => Ok(()),
        Err(SubmitError::Full) => Err(ApiError::new(
            429,
            "rate_limit_error",
            "queue_full",
            format!("the queue of `{}` is full ({} waiting); retry later", pipeline.info.name, pipeline.gauge.capacity),
        )),
        Err(SubmitError::Closed) => Err(cancel::cancelled_error(CancelCause::Shutdown)),
    }
}

/// Unix seconds now.
pub(super) fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// What a handler learned for the request log; the route wrapper adds the status and latency.
pub(super) struct Pending {
    /// The record so far.
    pub record: LogRecord,
    /// A stream took the record and logs it when it ends.
    pub deferred: bool,
    /// When the request arrived.
    pub arrived: Instant,
}
