//! Streaming answers (`stream: true`): the worker's events become `text/event-stream` chunks, pieces already
//! waiting go out together, the last chunk carries `finish_reason` and `usage`, and an error after the stream
//! started is one `data: {"error": ...}` event followed by `data: [DONE]`.

use std::sync::Arc;
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant as TokioInstant;

use super::api::{self, ApiError, Endpoint};
use super::events::{next_event, CancelOnDrop};
use super::job::Event;
use super::log::LogRecord;
use super::state::AppState;

/// One streaming response in progress.
pub(super) struct SseStream {
    /// The job's events.
    pub rx: UnboundedReceiver<Event>,
    /// Cancels the generation if the stream is dropped before its end (the client went away).
    pub guard: CancelOnDrop,
    /// The request's deadline.
    pub deadline: TokioInstant,
    /// Completions or chat chunks.
    pub endpoint: Endpoint,
    /// The response id.
    pub id: String,
    /// Unix seconds.
    pub created: u64,
    /// The served name.
    pub model: String,
    /// Add `specrt_stats` to the last chunk.
    pub specrt_stats: bool,
    /// For the last chunk's `usage`.
    pub prompt_tokens: usize,
    /// Whether the first chunk went out (chat streams open with a role chunk).
    pub started: bool,
    /// Whether `[DONE]` went out.
    pub done: bool,
    /// For error metrics and the request log.
    pub state: Arc<AppState>,
    /// The request's log record, written when the stream ends.
    pub log: LogRecord,
    /// When the request arrived.
    pub arrived: Instant,
}

impl SseStream {
    /// The `text/event-stream` response that sends this stream.
    pub(crate) fn into_response(self) -> Response {
        let body = Body::from_stream(futures_util::stream::unfold(self, |mut s| async move {
            let bytes = s.next_bytes().await?;
            Some((Ok::<_, std::convert::Infallible>(Bytes::from(bytes)), s))
        }));
        let mut r = Response::new(body);
        let h = r.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        r
    }

    fn chunk(&self, piece: Option<&str>, finish: Option<&str>) -> serde_json::Value {
        api::chunk(self.endpoint, &self.id, self.created, &self.model, piece, finish)
    }

    fn fail(&mut self, e: ApiError) -> String {
        self.state.metrics.error(e.code);
        self.end(if e.code == "request_timeout" || e.code == "shutting_down" { "cancelled" } else { "error" }, None);
        format!("{}data: [DONE]\n\n", api::sse(&e.body()))
    }

    /// Marks the stream done and writes its log line.
    fn end(&mut self, finish_reason: &str, tokens_out: Option<usize>) {
        self.done = true;
        self.log.status = 200;
        self.log.finish_reason = Some(finish_reason.to_string());
        self.log.tokens_out = tokens_out;
        self.log.latency_ms = self.arrived.elapsed().as_secs_f64() * 1e3;
        self.state.log.write(&self.log);
    }

    /// The next bytes to send; None at the end. Text pieces that are already waiting go out together.
    async fn next_bytes(&mut self) -> Option<String> {
        if self.done {
            return None;
        }
        if !self.started {
            self.started = true;
            if self.endpoint == Endpoint::Chat {
                return Some(api::sse(&self.chunk(None, None)));
            }
        }
        let first = match next_event(&mut self.rx, self.deadline, &mut self.guard).await {
            Ok(e) => e,
            Err(e) => return Some(self.fail(e)),
        };
        let mut out = String::new();
        let mut event = Some(first);
        while let Some(e) = event.take() {
            match e {
                Event::Text(piece) => {
                    out.push_str(&api::sse(&self.chunk(Some(&piece), None)));
                    event = self.rx.try_recv().ok();
                }
                Event::Started { .. } | Event::Translated(_) => event = self.rx.try_recv().ok(),
                Event::Done(Ok(f)) => {
                    self.guard.disarm();
                    self.end(f.finish_reason, Some(f.completion_tokens));
                    let mut last = self.chunk(None, Some(f.finish_reason));
                    last["usage"] = api::usage(self.prompt_tokens, f.completion_tokens);
                    if self.specrt_stats {
                        last["specrt_stats"] = f.stats.to_json();
                    }
                    out.push_str(&api::sse(&last));
                    out.push_str("data: [DONE]\n\n");
                }
                Event::Done(Err(e)) => {
                    self.guard.disarm();
                    out.push_str(&self.fail(e));
                }
            }
        }
        Some(out)
    }
}

impl Drop for SseStream {
    fn drop(&mut self) {
        // Dropped before its end: the client went away (the guard cancels the generation).
        if !self.done {
            self.end("cancelled", None);
        }
    }
}
