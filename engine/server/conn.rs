//! Client connections: the accept loop with a connection cap, and one task per connection that drives hyper's
//! HTTP/1 connection with a header-read timeout and an idle timeout.
//!
//! `axum::serve` has neither timeouts nor a cap, so a few slow clients could hold connections forever and
//! hundreds of idle ones were all accepted (issue 17 item 3). Here every connection is watched:
//! - bytes read while no request is in progress start the head's clock: a head not complete within
//!   `header_read_timeout_seconds` closes the connection;
//! - with no request in progress and no bytes received for `idle_timeout_seconds` (before the first request or
//!   between keep-alive requests), the connection is closed;
//! - a request counts as in progress from its head until its response body has been sent (or dropped), so a long
//!   generation or stream is never cut by these timers (the request timeout bounds it);
//! - the request body has its own limit, `body_read_timeout_seconds`, enforced where it is read (408);
//! - a response stuck because the client reads nothing (a write to the socket pending, no byte out) for
//!   `write_timeout_seconds` closes the connection, which cancels its generation: without it a client that
//!   sends requests and never reads held a connection slot and a worker forever.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::response::Response;
use axum::Router;
use hyper::body::Incoming;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, Semaphore};
use tokio::time::Instant;

/// The connection limits of the server file.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `header_read_timeout_seconds`.
    pub header_read: Duration,
    /// `idle_timeout_seconds`.
    pub idle: Duration,
    /// `write_timeout_seconds`.
    pub write: Duration,
    /// `max_connections`.
    pub max_connections: usize,
}

/// "No head in progress" in [`Activity::head_started_ms`].
const NONE: u64 = u64::MAX;

/// What the watchdog of one connection reads; written by the socket wrapper and the request service.
struct Activity {
    opened: Instant,
    /// Requests in progress (head read, response not yet fully sent).
    busy: AtomicUsize,
    /// When the last request ended (or the connection opened), ms since `opened`.
    last_idle_start_ms: AtomicU64,
    /// When the first byte of a not yet complete head arrived, ms since `opened`; [`NONE`] otherwise.
    head_started_ms: AtomicU64,
    /// When a write to the socket last found the send buffer full with no byte written since, ms since `opened`;
    /// [`NONE`] while writes go through.
    write_stalled_ms: AtomicU64,
    /// Wakes the watchdog when a clock starts, so it does not sleep through a shorter deadline.
    changed: Notify,
}

impl Activity {
    fn new() -> Self {
        Activity {
            opened: Instant::now(),
            busy: AtomicUsize::new(0),
            last_idle_start_ms: AtomicU64::new(0),
            head_started_ms: AtomicU64::new(NONE),
            write_stalled_ms: AtomicU64::new(NONE),
            changed: Notify::new(),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(NONE - 1)
    }

    /// Starts the write-stall clock when a write finds the send buffer full, stops it when bytes go out.
    fn note_write(&self, r: &Poll<io::Result<usize>>) {
        match r {
            Poll::Pending => {
                if self.write_stalled_ms.compare_exchange(NONE, self.now_ms(), Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                    self.changed.notify_one();
                }
            }
            Poll::Ready(_) => self.write_stalled_ms.store(NONE, Ordering::SeqCst),
        }
    }

    /// When the connection should be checked next, or why it must close now.
    fn check(&self, limits: &Limits) -> Result<Duration, &'static str> {
        // Idle connections are checked against their own clocks; a busy one again after a while (its request
        // is bounded by the request and body timeouts, not here).
        let now = self.now_ms();
        // A stuck write closes the connection whatever else is going on: a response body may be complete on
        // hyper's side (the request no longer counted) while its bytes still wait in a full socket buffer.
        let stalled_for = match self.write_stalled_ms.load(Ordering::SeqCst) {
            NONE => None,
            since => Some(Duration::from_millis(now.saturating_sub(since))),
        };
        if let Some(stalled) = stalled_for {
            if stalled >= limits.write {
                return Err("write timeout");
            }
        }
        let write_wait = stalled_for.map_or(Duration::MAX, |stalled| limits.write.saturating_sub(stalled));
        if self.busy.load(Ordering::SeqCst) > 0 {
            return Ok(limits.idle.min(Duration::from_secs(1)).min(write_wait));
        }
        let (since, limit, reason) = match self.head_started_ms.load(Ordering::SeqCst) {
            NONE => (self.last_idle_start_ms.load(Ordering::SeqCst), limits.idle, "idle timeout"),
            started => (started, limits.header_read, "header read timeout"),
        };
        let elapsed = Duration::from_millis(now.saturating_sub(since));
        if elapsed >= limit {
            Err(reason)
        } else {
            Ok((limit - elapsed).min(write_wait))
        }
    }
}

/// Counts a request as in progress while alive; when the last one ends the idle clock starts.
struct InProgress(Arc<Activity>);

impl InProgress {
    fn new(activity: Arc<Activity>) -> Self {
        activity.busy.fetch_add(1, Ordering::SeqCst);
        // The head is complete: its clock stops.
        activity.head_started_ms.store(NONE, Ordering::SeqCst);
        InProgress(activity)
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.last_idle_start_ms.store(self.0.now_ms(), Ordering::SeqCst);
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_one();
    }
}

/// The socket, noting when bytes arrive between requests (the start of a head).
struct WatchedIo {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for WatchedIo {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut this.stream).poll_read(cx, buf);
        if buf.filled().len() > before && this.activity.busy.load(Ordering::SeqCst) == 0 {
            let now = this.activity.now_ms();
            // Only the first byte of a head starts its clock.
            if this.activity.head_started_ms.compare_exchange(NONE, now, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                this.activity.changed.notify_one();
            }
        }
        r
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.activity.note_write(&r);
        r
    }

    fn poll_write_vectored(self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.activity.note_write(&r);
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// A response body that keeps its request counted as in progress until hyper has sent or dropped it.
struct WatchedBody {
    inner: Body,
    _in_progress: InProgress,
}

impl http_body::Body for WatchedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The router as hyper's service for one connection.
#[derive(Clone)]
struct Service {
    router: Router,
    activity: Arc<Activity>,
}

impl hyper::service::Service<Request<Incoming>> for Service {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        let in_progress = InProgress::new(self.activity.clone());
        let mut router = self.router.clone();
        Box::pin(async move {
            // A Router is always ready (its poll_ready returns Ready), so calling it directly is allowed.
            let response = tower_service::Service::call(&mut router, req).await?;
            Ok(response.map(|inner| Body::new(WatchedBody { inner, _in_progress: in_progress })))
        })
    }
}

/// The answer to a connection beyond `max_connections`, written without waiting (the socket's send buffer is
/// empty) before the connection is closed.
fn refusal(max_connections: usize) -> Vec<u8> {
    let body = serde_json::json!({"error": {
        "message": format!("the server has max_connections ({max_connections}) connections open; retry later"),
        "type": "server_error", "param": null, "code": "too_many_connections",
    }})
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Accepts connections until `shutdown` completes, then asks every connection to close once its request in
/// progress is answered and waits for all of them (the caller bounds that wait). `on_refused` is called for
/// each connection refused by the cap; `on_closed` with the reason a connection was closed by a timer.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    on_refused: impl Fn() + Send + Sync + 'static,
    on_closed: impl Fn(&'static str) + Send + Sync + 'static,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let on_closed = Arc::new(on_closed);
    let (stop_tx, stop_rx) = watch::channel(false);
    let refusal = refusal(limits.max_connections);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            a = listener.accept() => a,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and similar: accepting again at once would spin.
                eprintln!("specrt: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            let _ = stream.try_write(&refusal);
            on_refused();
            continue;
        };
        // Streamed pieces go out as soon as they are written.
        let _ = stream.set_nodelay(true);
        let (router, stop_rx, on_closed) = (router.clone(), stop_rx.clone(), on_closed.clone());
        tokio::spawn(async move {
            connection(stream, router, limits, stop_rx, &*on_closed).await;
            drop(slot);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    // Every connection holds one slot until its task ends.
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
}

/// Serves one connection. When a timer closes it, `on_closed` hears why before the socket closes (so whoever sees
/// the close also sees it counted).
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
    on_closed: &(dyn Fn(&'static str) + Send + Sync),
) {
    let activity = Arc::new(Activity::new());
    let io = hyper_util::rt::TokioIo::new(WatchedIo { stream, activity: activity.clone() });
    let service = Service { router, activity: activity.clone() };
    let conn = hyper::server::conn::http1::Builder::new().keep_alive(true).serve_connection(io, service);
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        let wait = match activity.check(&limits) {
            Ok(wait) => wait,
            Err(reason) => {
                on_closed(reason);
                // Returning drops the connection, which closes the socket; no request is in progress.
                return;
            }
        };
        tokio::select! {
            _ = conn.as_mut() => return,
            changed = stop.changed(), if !stopping => {
                stopping = true;
                if changed.is_ok() {
                    // Closes an idle connection now, a busy one after its response.
                    conn.as_mut().graceful_shutdown();
                }
            }
            _ = tokio::time::sleep(wait.max(Duration::from_millis(5))) => {}
            _ = activity.changed.notified() => {}
        }
    }
}
