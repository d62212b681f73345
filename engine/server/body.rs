//! Reading a request body under the server's limits: `max_body_bytes` (413, after draining a bounded overshoot so
//! the client reads the answer instead of a reset) and `body_read_timeout_seconds` (408).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::header;
use futures_util::StreamExt;

use super::api::ApiError;

fn too_large(limit: usize) -> ApiError {
    ApiError::new(413, "invalid_request_error", "body_too_large", format!("the request body exceeds max_body_bytes ({limit})"))
}

/// Beyond this many bytes a too-large body is not drained: the connection is answered and dropped.
fn drain_cap(limit: usize) -> usize {
    limit.saturating_mul(8).max(16 << 20)
}

/// The body of `req`, at most `limit` bytes, received within `timeout`.
pub(super) async fn read(req: Request, limit: usize, timeout: Duration) -> Result<Bytes, ApiError> {
    if let Some(len) = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok()) {
        if len > drain_cap(limit) {
            return Err(too_large(limit));
        }
    }
    match tokio::time::timeout(timeout, read_limited(req.into_body(), limit)).await {
        Ok(body) => body,
        Err(_) => Err(ApiError::new(
            408,
            "invalid_request_error",
            "body_read_timeout",
            format!("the request body was not received within body_read_timeout_seconds ({timeout:?})"),
        )),
    }
}

/// Reads the body up to `limit` bytes. A larger body is drained (up to a cap) before answering 413, so the client
/// reads the answer instead of a connection reset.
async fn read_limited(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    let mut stream = body.into_data_stream();
    let mut buf = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ApiError::invalid(None, "invalid_body", format!("cannot read the request body: {e}")))?;
        total += chunk.len();
        if total > limit {
            if total > drain_cap(limit) {
                return Err(too_large(limit));
            }
            continue;
        }
        buf.extend_from_slice(&chunk);
    }
    if total > limit {
        return Err(too_large(limit));
    }
    Ok(Bytes::from(buf))
}
