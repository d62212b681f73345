//! The generation endpoints' request path (`/v1/completions`, `/v1/chat/completions`): read and parse the body,
//! pick the pipeline, queue a job, wait for the worker's validation (so its errors still get a 4xx status), then
//! answer with one JSON body or hand the events to an [`SseStream`].

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::extract::Request;
use axum::response::Response;
use tokio::time::Instant as TokioInstant;

use super::api::{self, ApiError, Endpoint};
use super::body;
use super::events::{next_event, CancelOnDrop};
use super::routes::json_response;
use super::sse::SseStream;
use super::state::AppState;
use super::worker::{self, CancelCause, Control, Event, Job, PipelineHandle, SubmitError};

/// The served pipeline a request names (`None`: the first one), or 404 listing the served names.
pub(super) fn find_pipeline(state: &AppState, model: Option<&str>) -> Result<Arc<PipelineHandle>, ApiError> {
    let Some(m) = model else { return Ok(state.pipelines[0].clone()) };
    state.pipelines.iter().find(|p| p.info.name == m).cloned().ok_or_else(|| ApiError {
        status: 404,
        message: format!("the model `{m}` does not exist; served: {}", state.names()),
        kind: "invalid_request_error",
        param: Some("model".into()),
        code: "model_not_found",
    })
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
        Err(SubmitError::Closed) => Err(worker::cancelled_error(CancelCause::Shutdown)),
    }
}

/// The response id: `cmpl-`/`chatcmpl-` + the server's epoch + a counter.
pub(super) fn response_id(state: &AppState, prefix: &str) -> String {
    let n = state.next_id.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{:x}{n:06x}", state.epoch)
}

/// Unix seconds now.
pub(super) fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Serves one generation request.
pub(super) async fn generation(state: &Arc<AppState>, endpoint: Endpoint, req: Request) -> Result<Response, ApiError> {
    let deadline = TokioInstant::now() + state.timeout;
    let body = body::read(req, state.max_body_bytes, state.body_read_timeout).await?;
    let request = api::parse_request(endpoint, &body)?;
    let pipeline = find_pipeline(state, request.model.as_deref())?;
    if let Some(m) = request.generation.max_tokens {
        if m >= pipeline.info.context_length {
            return Err(ApiError::invalid(
                Some("max_tokens"),
                "context_length_exceeded",
                format!("max_tokens ({m}) must be below the model's context length ({})", pipeline.info.context_length),
            ));
        }
    }
    if state.shutting_down.load(Ordering::SeqCst) {
        return Err(worker::cancelled_error(CancelCause::Shutdown));
    }
    let control = Arc::new(Control::default());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let job = Job { request: request.generation, stream: request.stream, control: control.clone(), events: tx, enqueued: Instant::now() };
    submit(&pipeline, job)?;
    let mut guard = CancelOnDrop::new(control);
    // Wait in the queue, then for validation: errors found by the worker still get their 4xx status.
    let prompt_tokens = match next_event(&mut rx, deadline, &mut guard).await? {
        // A job can only finish before `Started` with an error.
        Event::Done(r) => return Err(r.err().unwrap_or_else(|| ApiError::new(500, "server_error", "internal_error", "unexpected worker reply"))),
        Event::Started { prompt_tokens } => prompt_tokens,
        Event::Text(_) => 0,
    };
    let id = response_id(
        state,
        match endpoint {
            Endpoint::Completions => "cmpl",
            Endpoint::Chat => "chatcmpl",
        },
    );
    let created = unix_now();
    let model = pipeline.info.name.clone();
    if !request.stream {
        loop {
            if let Event::Done(r) = next_event(&mut rx, deadline, &mut guard).await? {
                let f = r?;
                let stats = request.specrt_stats.then_some(&f.stats);
                let body = api::response(endpoint, &id, created, &model, &f.text, f.finish_reason, f.prompt_tokens, f.completion_tokens, stats);
                return Ok(json_response(200, &body));
            }
        }
    }
    let stream = SseStream {
        rx,
        guard,
        deadline,
        endpoint,
        id,
        created,
        model,
        specrt_stats: request.specrt_stats,
        prompt_tokens,
        started: false,
        done: false,
        state: state.clone(),
    };
    Ok(stream.into_response())
}
