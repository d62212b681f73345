//! The HTTP routes and the small endpoints (`/v1/models`, `/health`, `/metrics`, unknown routes), with the JSON
//! and error response shapes every route shares; the generation endpoints' request path is in [`super::generation`].

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::json;

use super::api::{ApiError, Endpoint};
use super::generation::generation;
use super::handler::{json_response, Pending};
use super::log::LogRecord;
use super::state::AppState;

/// Every route of the server.
pub(super) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/completions", post(completions))
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/translations", post(translations))
        .route("/v1/models", get(models))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .fallback(not_found)
        .with_state(state)
}

/// The error's response (429 and 503 carry `Retry-After: 1`), counted in `specrt_request_errors_total`.
pub(super) fn error_response(state: &AppState, e: &ApiError) -> Response {
    state.metrics.error(e.code);
    let mut r = json_response(e.status, &e.body());
    if e.status == 429 || e.status == 503 {
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    r
}

/// Counts a request answered at once (no queueing) and writes its log line.
fn answered(state: &AppState, label: &str, route: &str, status: u16) {
    state.metrics.request(label, status, 0.0);
    // An unknown path comes from the client: cut it so a log line stays a line of bounded size.
    let route: String = route.chars().take(100).collect();
    state.log.write(&LogRecord { id: state.new_id("req"), route, status, ..Default::default() });
}

async fn not_found(State(state): State<Arc<AppState>>, req: Request) -> Response {
    let e = ApiError::new(404, "invalid_request_error", "not_found", format!("no route for {} {}", req.method(), req.uri().path()));
    answered(&state, "other", req.uri().path(), 404);
    error_response(&state, &e)
}

async fn health(State(state): State<Arc<AppState>>) -> Response {
    let stopping = state.shutting_down.load(Ordering::SeqCst);
    let body = json!({
        "status": if stopping { "shutting_down" } else { "ok" },
        "pipelines": state.pipelines.iter().map(|p| json!({
            "name": p.info.name,
            "queue_depth": p.gauge.depth.load(Ordering::Relaxed),
            "running": p.gauge.running.load(Ordering::Relaxed),
        })).collect::<Vec<_>>(),
    });
    let status = if stopping { 503 } else { 200 };
    answered(&state, "health", "/health", status);
    json_response(status, &body)
}

async fn models(State(state): State<Arc<AppState>>) -> Response {
    let data: Vec<_> = state
        .pipelines
        .iter()
        .map(|p| {
            let mut specrt = json!({
                "model": p.info.model, "model_kind": p.info.model_kind, "strategy": p.info.strategy,
                "context_length": p.info.context_length, "device": p.info.device,
            });
            if let Some(n) = &p.info.nat {
                specrt["endpoints"] = json!(["/v1/completions", "/v1/translations"]);
                specrt["nat"] = json!({
                    "decode": n.decode, "max_sentences_per_request": n.max_sentences_per_request,
                    "max_sentence_bytes": n.max_sentence_bytes, "batching": n.batching.describe(),
                });
            } else {
                specrt["endpoints"] = json!(["/v1/completions", "/v1/chat/completions"]);
            }
            json!({"id": p.info.name, "object": "model", "created": state.epoch, "owned_by": "specrt", "specrt": specrt})
        })
        .collect();
    answered(&state, "models", "/v1/models", 200);
    json_response(200, &json!({"object": "list", "data": data}))
}

async fn metrics_text(State(state): State<Arc<AppState>>) -> Response {
    answered(&state, "metrics", "/metrics", 200);
    let mut r = Response::new(Body::from(state.metrics.render()));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4"));
    r
}

async fn completions(State(state): State<Arc<AppState>>, req: Request) -> Response {
    generation_endpoint(state, Endpoint::Completions, req).await
}

async fn chat_completions(State(state): State<Arc<AppState>>, req: Request) -> Response {
    generation_endpoint(state, Endpoint::Chat, req).await
}

async fn translations(State(state): State<Arc<AppState>>, req: Request) -> Response {
    generation_endpoint(state, Endpoint::Translations, req).await
}

async fn generation_endpoint(state: Arc<AppState>, endpoint: Endpoint, req: Request) -> Response {
    let arrived = Instant::now();
    let record = LogRecord { route: endpoint.route().into(), ..Default::default() };
    let mut log = Pending { record, deferred: false, arrived };
    let response = match generation(&state, endpoint, req, &mut log).await {
        Ok(r) => r,
        Err(e) => {
            log.record.finish_reason = None;
            error_response(&state, &e)
        }
    };
    let status = response.status().as_u16();
    state.metrics.request(endpoint.label(), status, arrived.elapsed().as_secs_f64());
    if !log.deferred {
        if log.record.id.is_empty() {
            log.record.id = state.new_id("req");
        }
        log.record.status = status;
        log.record.latency_ms = arrived.elapsed().as_secs_f64() * 1e3;
        state.log.write(&log.record);
    }
    response
}
