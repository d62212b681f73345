//! The generation endpoints' request path (`/v1/completions`, `/v1/chat/completions`, `/v1/translations`): read
//! and parse the body, pick the pipeline (NAT pipelines go to [`super::translate`]), queue a job, wait for the
//! worker's validation (so its errors still get a 4xx status), then answer with one JSON body or hand the events
//! to an [`SseStream`].

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::Request;
use axum::response::Response;
use tokio::time::Instant as TokioInstant;

use super::api::{self, ApiError, Endpoint};
use super::body;
use super::cancel::{self, CancelCause};
use super::events::{next_event, CancelOnDrop};
use super::handler::{json_response, submit, unix_now, Pending};
use super::job::{Control, Event, Job, Work};
use super::sse::SseStream;
use super::state::AppState;
use super::translate;
use super::worker::PipelineHandle;

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

/// Serves one request to `/v1/completions`, `/v1/chat/completions` or `/v1/translations`: NAT pipelines go to
/// [`translate::serve`], decoder pipelines to [`generate`].
pub(super) async fn generation(state: &Arc<AppState>, endpoint: Endpoint, req: Request, log: &mut Pending) -> Result<Response, ApiError> {
    let deadline = TokioInstant::now() + state.timeout;
    let body = body::read(req, state.max_body_bytes, state.body_read_timeout).await?;
    let obj = api::parse_object(&body)?;
    let pipeline = find_pipeline(state, api::model_field(&obj)?.as_deref())?;
    log.record.model = Some(pipeline.info.name.clone());
    match (&pipeline.info.nat, endpoint) {
        (Some(_), Endpoint::Chat) => Err(ApiError::invalid(
            None,
            "invalid_endpoint",
            format!(
                "`{}` is a NAT translation pipeline, it has no chat: use POST /v1/completions (`prompt`: a sentence or a list) or \
                 POST /v1/translations (`text`: a list of sentences)",
                pipeline.info.name
            ),
        )),
        (Some(_), _) => translate::serve(state, &pipeline, endpoint, &obj, deadline, log).await,
        (None, Endpoint::Translations) => Err(ApiError::invalid(
            None,
            "invalid_endpoint",
            format!(
                "`{}` is a {} pipeline, not a translation pipeline: use POST /v1/completions or POST /v1/chat/completions",
                pipeline.info.name, pipeline.info.strategy
            ),
        )),
        (None, _) => generate(state, &pipeline, endpoint, &obj, deadline, log).await,
    }
}

/// A generation on a decoder pipeline.
async fn generate(
    state: &Arc<AppState>,
    pipeline: &Arc<PipelineHandle>,
    endpoint: Endpoint,
    obj: &serde_json::Map<String, serde_json::Value>,
    deadline: TokioInstant,
    log: &mut Pending,
) -> Result<Response, ApiError> {
    let request = api::parse_request_object(endpoint, obj)?;
    if let (Some(m), Some(context)) = (request.generation.max_tokens, pipeline.info.context_length) {
        if m >= context {
            return Err(ApiError::invalid(
                Some("max_tokens"),
                "context_length_exceeded",
                format!("max_tokens ({m}) must be below the model's context length ({context})"),
            ));
        }
    }
    if state.shutting_down.load(Ordering::SeqCst) {
        return Err(cancel::cancelled_error(CancelCause::Shutdown));
    }
    let control = Arc::new(Control::default());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let job =
        Job { work: Work::Generate(request.generation), stream: request.stream, control: control.clone(), events: tx, enqueued: Instant::now() };
    submit(pipeline, job)?;
    let mut guard = CancelOnDrop::new(control);
    // Wait in the queue, then for validation: errors found by the worker still get their 4xx status.
    let prompt_tokens = match next_event(&mut rx, deadline, &mut guard).await? {
        // A job can only finish before `Started` with an error.
        Event::Done(r) => return Err(r.err().unwrap_or_else(|| ApiError::new(500, "server_error", "internal_error", "unexpected worker reply"))),
        Event::Started { prompt_tokens } => prompt_tokens,
        Event::Text(_) | Event::Translated(_) => 0,
    };
    let id = state.new_id(match endpoint {
        Endpoint::Chat => "chatcmpl",
        _ => "cmpl",
    });
    log.record.id = id.clone();
    log.record.tokens_in = Some(prompt_tokens);
    let created = unix_now();
    let model = pipeline.info.name.clone();
    if !request.stream {
        loop {
            if let Event::Done(r) = next_event(&mut rx, deadline, &mut guard).await? {
                let f = r?;
                log.record.tokens_out = Some(f.completion_tokens);
                log.record.finish_reason = Some(f.finish_reason.to_string());
                let stats = request.specrt_stats.then_some(&f.stats);
                let body = api::response(endpoint, &id, created, &model, &f.text, f.finish_reason, f.prompt_tokens, f.completion_tokens, stats);
                return Ok(json_response(200, &body));
            }
        }
    }
    log.deferred = true;
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
        log: std::mem::take(&mut log.record),
        arrived: log.arrived,
    };
    Ok(stream.into_response())
}
