//! `specrt serve`: an OpenAI-compatible HTTP server (tokio + axum) over one or more pipelines.
//!
//! The async runtime only parses, routes and streams. Inference runs on dedicated worker threads
//! ([`worker`]): each served pipeline has a bounded queue and `workers` threads, each owning its own loaded
//! [`Pipeline`](crate::Pipeline). A full queue answers 429 with `Retry-After`; a request past
//! `request_timeout_seconds` is cancelled (504); a client that disconnects cancels its generation; a panic in a
//! generation answers 500 and the worker goes on. Connections are accepted and timed by [`conn`] (header-read,
//! idle and body timeouts, a connection cap). See docs/SERVER.md.

pub mod api;
pub mod client;
pub mod config;
pub mod conn;
pub mod metrics;
pub mod worker;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures_util::StreamExt;
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant as TokioInstant;

use crate::error::{Error, Result};
use crate::pipeline::Pipeline;
use api::{ApiError, Endpoint};
pub use config::ServerConfig;
use metrics::{Metrics, QueueGauge};
use worker::{Control, Event, Job, PipelineHandle, SubmitError, WorkerShared};

/// Options the YAML file does not hold.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Shut down on SIGINT/SIGTERM (the CLI); tests stop the server through [`ServerHandle::shutdown`].
    pub handle_signals: bool,
    /// Test hook: a prompt containing this text panics inside the worker (to test that panics answer 500).
    pub panic_marker: Option<String>,
}

struct AppState {
    pipelines: Vec<Arc<PipelineHandle>>,
    metrics: Arc<Metrics>,
    timeout: Duration,
    max_body_bytes: usize,
    body_read_timeout: Duration,
    shutting_down: AtomicBool,
    next_id: AtomicU64,
    epoch: u64,
}

/// A running server.
pub struct ServerHandle {
    addr: SocketAddr,
    state: Arc<AppState>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ServerHandle {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The metrics (tests read counters directly).
    pub fn metrics(&self) -> &Metrics {
        &self.state.metrics
    }

    /// Requests currently inside generation or queued, over all pipelines.
    pub fn busy(&self) -> usize {
        self.state.pipelines.iter().map(|p| p.gauge.depth.load(Ordering::SeqCst) + p.gauge.running.load(Ordering::SeqCst)).sum()
    }

    /// Shuts down gracefully (as SIGTERM does) and waits until every thread has ended.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    /// Blocks until the server has stopped (after a signal, when signals are handled).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    fn stop_and_join(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// Loads every pipeline, starts the workers, binds `config.host:config.port` and serves in a background thread.
pub fn start(config: &ServerConfig, options: ServerOptions) -> Result<ServerHandle> {
    let loaded = config::load_pipeline_configs(config)?;
    let hard_stop = Arc::new(AtomicBool::new(false));
    let mut gauges = Vec::new();
    let mut built = Vec::new();
    let mut names = HashSet::new();
    for (name, cfg) in loaded {
        let copies = (0..config.workers).map(|_| Pipeline::from_config(cfg.clone())).collect::<Result<Vec<_>>>()?;
        let name = name.unwrap_or_else(|| copies[0].name().to_string());
        if !names.insert(name.clone()) {
            return Err(Error::Config {
                file: "server config".into(),
                line: 0,
                column: 0,
                message: format!("pipelines: two pipelines are named `{name}`; give one a `name:`"),
            });
        }
        let gauge = Arc::new(QueueGauge {
            pipeline: name.clone(),
            depth: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            capacity: config.queue_capacity,
        });
        gauges.push(gauge.clone());
        built.push((name, copies, gauge));
    }
    let metrics = Arc::new(Metrics::new(gauges));
    let shared = Arc::new(WorkerShared { metrics: metrics.clone(), hard_stop: hard_stop.clone(), panic_marker: options.panic_marker.clone() });
    let pipelines: Vec<_> =
        built.into_iter().map(|(name, copies, gauge)| PipelineHandle::start(name, copies, config.queue_capacity, shared.clone(), gauge)).collect();
    let state = Arc::new(AppState {
        pipelines,
        metrics,
        timeout: Duration::from_secs_f64(config.request_timeout_seconds),
        max_body_bytes: config.max_body_bytes,
        body_read_timeout: Duration::from_secs_f64(config.body_read_timeout_seconds),
        shutting_down: AtomicBool::new(false),
        next_id: AtomicU64::new(0),
        epoch: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
    });
    let close_workers = |state: &AppState| {
        hard_stop.store(true, Ordering::SeqCst);
        for p in &state.pipelines {
            p.cancel_all();
            p.close_and_join();
        }
    };
    let listener = match std::net::TcpListener::bind((config.host.as_str(), config.port)) {
        Ok(l) => l,
        Err(e) => {
            close_workers(&state);
            return Err(Error::io(format!("{}:{}", config.host, config.port), e));
        }
    };
    let addr = listener.local_addr().map_err(|e| Error::io("listener", e))?;
    listener.set_nonblocking(true).map_err(|e| Error::io("listener", e))?;
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let grace = Duration::from_secs_f64(config.shutdown_grace_seconds);
    let limits = conn::Limits {
        header_read: Duration::from_secs_f64(config.header_read_timeout_seconds),
        idle: Duration::from_secs_f64(config.idle_timeout_seconds),
        max_connections: config.max_connections,
    };
    let thread_state = state.clone();
    let thread_hard_stop = hard_stop.clone();
    let thread = std::thread::Builder::new()
        .name("specrt-http".into())
        .spawn(move || {
            let state = thread_state;
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .thread_name("specrt-http-rt")
                .build()
                .expect("building the tokio runtime");
            rt.block_on(serve(listener, state.clone(), stop_rx, options.handle_signals, grace, limits, thread_hard_stop.clone()));
            rt.shutdown_timeout(Duration::from_secs(1));
            thread_hard_stop.store(true, Ordering::SeqCst);
            for p in &state.pipelines {
                p.cancel_all();
                p.close_and_join();
            }
        })
        .map_err(|e| Error::io("server thread", e))?;
    Ok(ServerHandle { addr, state, stop: Some(stop_tx), thread: Some(thread) })
}

/// Loads the server file, serves until SIGINT/SIGTERM, and returns once everything has stopped.
pub fn run(config: &ServerConfig) -> Result<()> {
    let handle = start(config, ServerOptions { handle_signals: true, ..Default::default() })?;
    eprintln!("specrt: serving {} on http://{}", names(&handle), handle.addr());
    handle.wait();
    eprintln!("specrt: stopped");
    Ok(())
}

fn names(handle: &ServerHandle) -> String {
    handle.state.pipelines.iter().map(|p| p.info.name.as_str()).collect::<Vec<_>>().join(", ")
}

async fn shutdown_signal(stop_rx: tokio::sync::oneshot::Receiver<()>, handle_signals: bool) {
    let stop = async {
        let _ = stop_rx.await;
    };
    if !handle_signals {
        return stop.await;
    }
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = stop => {},
        _ = tokio::signal::ctrl_c() => {},
        _ = term => {},
    }
}

async fn serve(
    listener: std::net::TcpListener,
    state: Arc<AppState>,
    stop_rx: tokio::sync::oneshot::Receiver<()>,
    handle_signals: bool,
    grace: Duration,
    limits: conn::Limits,
    hard_stop: Arc<AtomicBool>,
) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("specrt: cannot listen: {e}");
            return;
        }
    };
    let app = router(state.clone());
    let (signalled_tx, signalled_rx) = tokio::sync::watch::channel(false);
    let shutdown_state = state.clone();
    let shutdown = async move {
        shutdown_signal(stop_rx, handle_signals).await;
        eprintln!("specrt: shutting down (in-flight requests get {:.0}s)", grace.as_secs_f64());
        shutdown_state.shutting_down.store(true, Ordering::SeqCst);
        let _ = signalled_tx.send(true);
    };
    // After the grace period, cancel what still runs; a little later stop waiting for connections at all.
    let force_state = state.clone();
    let force = async move {
        let mut rx = signalled_rx;
        while !*rx.borrow() {
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        tokio::time::sleep(grace).await;
        hard_stop.store(true, Ordering::SeqCst);
        for p in &force_state.pipelines {
            p.cancel_all();
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    };
    let (refused_metrics, closed_metrics) = (state.metrics.clone(), state.metrics.clone());
    let server = conn::serve(
        listener,
        app,
        limits,
        shutdown,
        move || refused_metrics.error("too_many_connections"),
        move |reason| {
            // Idle connections closing is ordinary keep-alive housekeeping; a head that never completes is not.
            if reason == "header read timeout" {
                closed_metrics.error("header_read_timeout");
            }
        },
    );
    tokio::select! {
        _ = server => {}
        _ = force => eprintln!("specrt: connections still open after the grace period; closing them"),
    }
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/completions", post(completions))
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/models", get(models))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .fallback(not_found)
        .with_state(state)
}

fn json_response(status: u16, body: &serde_json::Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn error_response(state: &AppState, e: &ApiError) -> Response {
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

/// Reads the body up to `limit` bytes. A larger body is drained (up to a cap) before answering 413, so the client
/// reads the answer instead of a connection reset.
async fn read_body(body: Body, limit: usize) -> std::result::Result<Bytes, ApiError> {
    let too_large = || ApiError::new(413, "invalid_request_error", "body_too_large", format!("the request body exceeds max_body_bytes ({limit})"));
    let mut stream = body.into_data_stream();
    let mut buf = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ApiError::invalid(None, "invalid_body", format!("cannot read the request body: {e}")))?;
        total += chunk.len();
        if total > limit {
            if total > limit.saturating_mul(8).max(16 << 20) {
                return Err(too_large());
            }
            continue;
        }
        buf.extend_from_slice(&chunk);
    }
    if total > limit {
        return Err(too_large());
    }
    Ok(Bytes::from(buf))
}

/// Cancels the generation when dropped armed: the response future or the SSE stream went away before the end,
/// which means the client disconnected.
struct CancelOnDrop {
    control: Arc<Control>,
    armed: bool,
}

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.armed = false;
    }

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

async fn generation(state: &Arc<AppState>, endpoint: Endpoint, req: Request) -> std::result::Result<Response, ApiError> {
    let deadline = TokioInstant::now() + state.timeout;
    if let Some(len) = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok()) {
        if len > state.max_body_bytes.saturating_mul(8).max(16 << 20) {
            return Err(ApiError::new(
                413,
                "invalid_request_error",
                "body_too_large",
                format!("the request body exceeds max_body_bytes ({})", state.max_body_bytes),
            ));
        }
    }
    let body = match tokio::time::timeout(state.body_read_timeout, read_body(req.into_body(), state.max_body_bytes)).await {
        Ok(body) => body?,
        Err(_) => {
            return Err(ApiError::new(
                408,
                "invalid_request_error",
                "body_read_timeout",
                format!("the request body was not received within body_read_timeout_seconds ({:?})", state.body_read_timeout),
            ))
        }
    };
    let request = api::parse_request(endpoint, &body)?;
    let pipeline = match &request.model {
        None => state.pipelines[0].clone(),
        Some(m) => state.pipelines.iter().find(|p| &p.info.name == m).cloned().ok_or_else(|| ApiError {
            status: 404,
            message: format!(
                "the model `{m}` does not exist; served: {}",
                state.pipelines.iter().map(|p| p.info.name.as_str()).collect::<Vec<_>>().join(", ")
            ),
            kind: "invalid_request_error",
            param: Some("model".into()),
            code: "model_not_found",
        })?,
    };
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
        return Err(worker::cancelled_error(worker::CancelCause::Shutdown));
    }
    let control = Arc::new(Control::default());
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let job = Job { request: request.generation, stream: request.stream, control: control.clone(), events: tx, enqueued: Instant::now() };
    match pipeline.submit(job) {
        Ok(()) => {}
        Err(SubmitError::Full) => {
            return Err(ApiError::new(
                429,
                "rate_limit_error",
                "queue_full",
                format!("the queue of `{}` is full ({} waiting); retry later", pipeline.info.name, pipeline.gauge.capacity),
            ))
        }
        Err(SubmitError::Closed) => return Err(worker::cancelled_error(worker::CancelCause::Shutdown)),
    }
    let mut guard = CancelOnDrop { control, armed: true };
    // Wait in the queue, then for validation: errors found by the worker still get their 4xx status.
    let prompt_tokens = match tokio::time::timeout_at(deadline, rx.recv()).await {
        Err(_) => {
            guard.time_out();
            return Err(worker::cancelled_error(worker::CancelCause::Timeout));
        }
        Ok(None) => {
            guard.disarm();
            return Err(ApiError::new(500, "server_error", "internal_error", "the worker went away"));
        }
        Ok(Some(Event::Done(r))) => {
            guard.disarm();
            // A job can only finish before `Started` with an error.
            return Err(r.err().unwrap_or_else(|| ApiError::new(500, "server_error", "internal_error", "unexpected worker reply")));
        }
        Ok(Some(Event::Started { prompt_tokens })) => prompt_tokens,
        Ok(Some(Event::Text(_))) => 0,
    };
    let id_num = state.next_id.fetch_add(1, Ordering::Relaxed);
    let id = match endpoint {
        Endpoint::Completions => format!("cmpl-{:x}{id_num:06x}", state.epoch),
        Endpoint::Chat => format!("chatcmpl-{:x}{id_num:06x}", state.epoch),
    };
    let created = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let model = pipeline.info.name.clone();
    if !request.stream {
        loop {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Err(_) => {
                    guard.time_out();
                    return Err(worker::cancelled_error(worker::CancelCause::Timeout));
                }
                Ok(None) => {
                    guard.disarm();
                    return Err(ApiError::new(500, "server_error", "internal_error", "the worker went away"));
                }
                Ok(Some(Event::Done(r))) => {
                    guard.disarm();
                    let f = r?;
                    let stats = request.specrt_stats.then_some(&f.stats);
                    let body = api::response(endpoint, &id, created, &model, &f.text, f.finish_reason, f.prompt_tokens, f.completion_tokens, stats);
                    return Ok(json_response(200, &body));
                }
                Ok(Some(_)) => {}
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
    let body = Body::from_stream(futures_util::stream::unfold(stream, |mut s| async move {
        let bytes = s.next_bytes().await?;
        Some((Ok::<_, std::convert::Infallible>(Bytes::from(bytes)), s))
    }));
    let mut r = Response::new(body);
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(r.into_response())
}

struct SseStream {
    rx: UnboundedReceiver<Event>,
    guard: CancelOnDrop,
    deadline: TokioInstant,
    endpoint: Endpoint,
    id: String,
    created: u64,
    model: String,
    specrt_stats: bool,
    prompt_tokens: usize,
    started: bool,
    done: bool,
    state: Arc<AppState>,
}

impl SseStream {
    fn chunk(&self, piece: Option<&str>, finish: Option<&str>) -> serde_json::Value {
        api::chunk(self.endpoint, &self.id, self.created, &self.model, piece, finish)
    }

    fn fail(&mut self, e: ApiError) -> String {
        self.state.metrics.error(e.code);
        self.done = true;
        format!("{}data: [DONE]\n\n", api::sse(&e.body()))
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
        let first = match tokio::time::timeout_at(self.deadline, self.rx.recv()).await {
            Err(_) => {
                self.guard.time_out();
                return Some(self.fail(worker::cancelled_error(worker::CancelCause::Timeout)));
            }
            Ok(None) => {
                self.guard.disarm();
                return Some(self.fail(ApiError::new(500, "server_error", "internal_error", "the worker went away")));
            }
            Ok(Some(e)) => e,
        };
        let mut out = String::new();
        let mut event = Some(first);
        while let Some(e) = event.take() {
            match e {
                Event::Text(piece) => {
                    out.push_str(&api::sse(&self.chunk(Some(&piece), None)));
                    event = self.rx.try_recv().ok();
                }
                Event::Started { .. } => event = self.rx.try_recv().ok(),
                Event::Done(Ok(f)) => {
                    self.guard.disarm();
                    self.done = true;
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
