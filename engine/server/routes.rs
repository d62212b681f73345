//! The HTTP routes and the small endpoints (`/v1/models`, `/health`, `/metrics`, unknown routes), with the JSON
//! and error response shapes every route shares; the generation endpoints' request path is in [`super::generation`].

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::json;

use super::api::{ApiError, Endpoint};
use super::generation::generation;
use super::state::AppState;

/// Every route of the server.
pub(super) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/completions", post(completions))
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/models", get(models))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .fallback(not_found)
        .with_state(state)
}

/// A JSON response with `status`.
pub(super) fn json_response(status: u16, body: &serde_json::Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
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

async fn not_found(State(state): State<Arc<AppState>>, req: Request) -> Response {
    let e = ApiError::new(404, "invalid_request_error", "not_found", format!("no route for {} {}", req.method(), req.uri().path()));
    state.metrics.request("other", 404, 0.0);
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
    state.metrics.request("health", status, 0.0);
    json_response(status, &body)
}

async fn models(State(state): State<Arc<AppState>>) -> Response {
    let data: Vec<_> = state
        .pipelines
        .iter()
        .map(|p| {
            json!({
                "id": p.info.name, "object": "model", "created": state.epoch, "owned_by": "specrt",
                "specrt": {"model": p.info.model, "strategy": p.info.strategy, "context_length": p.info.context_length, "device": p.info.device},
            })
        })
        .collect();
    state.metrics.request("models", 200, 0.0);
    json_response(200, &json!({"object": "list", "data": data}))
}

async fn metrics_text(State(state): State<Arc<AppState>>) -> Response {
    state.metrics.request("metrics", 200, 0.0);
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

async fn generation_endpoint(state: Arc<AppState>, endpoint: Endpoint, req: Request) -> Response {
    let start = Instant::now();
    let response = match generation(&state, endpoint, req).await {
        Ok(r) => r,
        Err(e) => error_response(&state, &e),
    };
    state.metrics.request(endpoint.label(), response.status().as_u16(), start.elapsed().as_secs_f64());
    response
}
