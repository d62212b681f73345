//! The server's life: load the pipelines and start their workers, bind, serve on a tokio runtime in a background
//! thread, and shut down gracefully (on SIGINT/SIGTERM or [`ServerHandle::shutdown`]): stop accepting, let
//! in-flight requests finish for `shutdown_grace_seconds`, cancel what still runs, then join everything.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::batcher::Batching;
use super::config::{self, NatServing, ServerConfig};
use super::conn;
use super::log::{LogFormat, RequestLog};
use super::metrics::{Metrics, QueueGauge};
use super::queue::WorkerShared;
use super::routes::router;
use super::state::AppState;
use super::worker::{NatInfo, PipelineHandle, Served};
use crate::config::{LoadedConfig, StrategyConfig};
use crate::error::{Error, Result};
use crate::nat::{invariance, NatPipeline};
use crate::pipeline::Pipeline;

/// Options the YAML file does not hold.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// Shut down on SIGINT/SIGTERM (the CLI); tests stop the server through [`ServerHandle::shutdown`].
    pub handle_signals: bool,
    /// Test hook: a prompt containing this text panics inside the worker (to test that panics answer 500).
    pub panic_marker: Option<String>,
    /// One structured line per request on stderr (`specrt serve --log-format`); None logs nothing.
    pub log_format: Option<LogFormat>,
    /// Test hook: keep the request log lines here instead of writing them to stderr.
    pub log_capture: Option<Arc<std::sync::Mutex<Vec<String>>>>,
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
    for ((name, cfg), served) in loaded.into_iter().zip(&config.pipelines) {
        let (copies, nat) = load_copies(cfg, served.nat.as_ref(), config.workers)?;
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
        built.push((name, copies, nat, gauge));
    }
    let metrics = Arc::new(Metrics::new(gauges));
    for (name, _, nat, _) in &built {
        if let Some(n) = nat {
            metrics.declare_nat(name);
            eprintln!("specrt: {name}: NAT, {} decoding, batching {}", n.decode, n.batching.describe());
        }
    }
    let shared = Arc::new(WorkerShared { metrics: metrics.clone(), hard_stop: hard_stop.clone(), panic_marker: options.panic_marker.clone() });
    let pipelines: Vec<_> = built
        .into_iter()
        .map(|(name, copies, nat, gauge)| PipelineHandle::start(name, copies, nat, config.queue_capacity, shared.clone(), gauge))
        .collect();
    let state = Arc::new(AppState {
        pipelines,
        metrics,
        timeout: Duration::from_secs_f64(config.request_timeout_seconds),
        max_body_bytes: config.max_body_bytes,
        body_read_timeout: Duration::from_secs_f64(config.body_read_timeout_seconds),
        shutting_down: AtomicBool::new(false),
        hard_stop,
        log: RequestLog::new(options.log_format, options.log_capture.clone()),
        next_id: AtomicU64::new(0),
        epoch: SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
    });
    let listener = match std::net::TcpListener::bind((config.host.as_str(), config.port)) {
        Ok(l) => l,
        Err(e) => {
            state.stop_workers();
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
        write: Duration::from_secs_f64(config.write_timeout_seconds),
        max_connections: config.max_connections,
    };
    let thread_state = state.clone();
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
            rt.block_on(serve(listener, state.clone(), stop_rx, options.handle_signals, grace, limits));
            rt.shutdown_timeout(Duration::from_secs(1));
            state.stop_workers();
        })
        .map_err(|e| Error::io("server thread", e))?;
    Ok(ServerHandle { addr, state, stop: Some(stop_tx), thread: Some(thread) })
}

/// One copy of the pipeline per worker; for a NAT pipeline also how it is served (its `nat:` section resolved,
/// batching switched off if the encoder pass is not bitwise batch-invariant).
fn load_copies(cfg: LoadedConfig, nat: Option<&NatServing>, workers: usize) -> Result<(Vec<Served>, Option<NatInfo>)> {
    let source = cfg.source.clone();
    if !matches!(cfg.config.strategy, StrategyConfig::Nat { .. }) {
        if nat.is_some() {
            return Err(Error::Config {
                file: source,
                line: 0,
                column: 0,
                message: "the server file gives this pipeline a `nat:` section, but its strategy is not `nat`".into(),
            });
        }
        let copies = (0..workers).map(|_| Ok(Served::Decoder(Box::new(Pipeline::from_config(cfg.clone())?)))).collect::<Result<Vec<_>>>()?;
        return Ok((copies, None));
    }
    let copies = (0..workers).map(|_| NatPipeline::from_config(cfg.clone())).collect::<Result<Vec<_>>>()?;
    let serving = nat.cloned().unwrap_or_default();
    let first = &copies[0];
    let mut batching = Batching {
        window: Duration::from_secs_f64(serving.batch_window_ms / 1e3),
        max_sentences: serving.max_batch_sentences.unwrap_or(first.batch_size()),
        off_reason: None,
    };
    if batching.max_sentences > 1 {
        let probe = invariance::probe_config(first.config(), first.batch_size().clamp(2, 64))?;
        if !probe.bitwise() {
            batching.off_reason = Some(format!(
                "the encoder pass is not batch-invariant here: {} of {} probe comparisons differed, max |diff| {:e}",
                probe.differing, probe.checks, probe.max_abs_diff
            ));
            batching.max_sentences = 1;
        }
    }
    let info = NatInfo {
        max_sentences_per_request: serving.max_sentences_per_request,
        max_sentence_bytes: serving.max_sentence_bytes.unwrap_or(first.max_source_bytes()),
        decode: first.decode_name(),
        batching,
    };
    Ok((copies.into_iter().map(|p| Served::Nat(Box::new(p))).collect(), Some(info)))
}

/// Serves `config` until SIGINT/SIGTERM, logging each request in `log_format` on stderr, and returns once
/// everything has stopped.
pub fn run(config: &ServerConfig, log_format: Option<LogFormat>) -> Result<()> {
    let handle = start(config, ServerOptions { handle_signals: true, log_format, ..Default::default() })?;
    eprintln!("specrt: serving {} on http://{}", handle.state.names(), handle.addr());
    handle.wait();
    eprintln!("specrt: stopped");
    Ok(())
}

/// Completes on the first of: the handle's stop message, and (when `handle_signals`) SIGINT or SIGTERM.
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

/// Serves until shutdown: accepts connections until the signal, then waits for in-flight requests up to `grace`,
/// cancels what still runs, and five seconds later stops waiting for connections at all.
async fn serve(
    listener: std::net::TcpListener,
    state: Arc<AppState>,
    stop_rx: tokio::sync::oneshot::Receiver<()>,
    handle_signals: bool,
    grace: Duration,
    limits: conn::Limits,
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
    let force_state = state.clone();
    let force = async move {
        let mut rx = signalled_rx;
        while !*rx.borrow() {
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
        tokio::time::sleep(grace).await;
        force_state.cancel_generations();
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
            match reason {
                "header read timeout" => closed_metrics.error("header_read_timeout"),
                "write timeout" => closed_metrics.error("write_timeout"),
                _ => {}
            }
        },
    );
    tokio::select! {
        _ = server => {}
        _ = force => eprintln!("specrt: connections still open after the grace period; closing them"),
    }
}
