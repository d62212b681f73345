//! Slow and idle clients against the HTTP server (issue 17 item 3): a head sent byte by byte, a connection that
//! never sends anything, a kept-alive connection left idle, a body that stops halfway, and more connections than
//! `max_connections`. Each client is a raw TCP socket with a bounded wait, so a server without the limit fails
//! the test instead of hanging it.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use specrt::server::{self, ServerConfig, ServerHandle, ServerOptions};

/// How long any test waits for the server to act before it fails.
const BOUND: Duration = Duration::from_secs(10);

fn start(dir: &Path, server_extra: &str) -> ServerHandle {
    let pipeline = common::pipeline_yaml(dir, &common::tiny(), "name: tiny\n");
    let yaml = format!("host: 127.0.0.1\nport: 0\n{server_extra}pipelines:\n  - config: {}\n", pipeline.display());
    let config = ServerConfig::parse_str(&yaml, "server.yaml", dir).expect("server config");
    server::start(&config, ServerOptions::default()).expect("server starts")
}

fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
    s
}

/// Reads until the server closes the connection (EOF or reset), for at most [`BOUND`], calling `tick` between
/// reads (e.g. to trickle bytes). Returns what was read and when the connection closed (None: still open).
fn read_until_closed(s: &mut TcpStream, mut tick: impl FnMut(&mut TcpStream)) -> (Vec<u8>, Option<Duration>) {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while start.elapsed() < BOUND {
        match s.read(&mut buf) {
            Ok(0) => return (got, Some(start.elapsed())),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => tick(s),
            Err(_) => return (got, Some(start.elapsed())),
        }
    }
    (got, None)
}

/// A slowloris client: a head sent a few bytes at a time, never finished. The header timeout is a deadline for
/// the whole head, not per byte, so the connection closes about `header_read_timeout_seconds` after the first
/// byte although bytes keep coming.
#[test]
fn a_head_sent_byte_by_byte_is_cut_at_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "header_read_timeout_seconds: 0.5\nidle_timeout_seconds: 60\n");
    let mut s = connect(srv.addr());
    s.write_all(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\n").unwrap();
    let mut n = 0;
    let (_, closed) = read_until_closed(&mut s, |s| {
        n += 1;
        let _ = s.write_all(format!("X-Slow-{n}: y\r\n").as_bytes());
    });
    let closed = closed.expect("a head that never ends must be cut off");
    assert!(closed >= Duration::from_millis(400) && closed < Duration::from_secs(3), "closed after {closed:?}");
    assert!(n > 5, "the client kept sending ({n} header lines)");
    assert!(srv.metrics().errors().get("header_read_timeout").copied().unwrap_or(0) >= 1, "{:?}", srv.metrics().errors());
}

/// A client that connects and sends nothing, and one that keeps its connection alive after a request: both are
/// closed after `idle_timeout_seconds`.
#[test]
fn idle_connections_are_closed_at_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "header_read_timeout_seconds: 30\nidle_timeout_seconds: 0.5\n");
    let mut silent = connect(srv.addr());
    let (got, closed) = read_until_closed(&mut silent, |_| {});
    let closed = closed.expect("a silent connection must be closed");
    assert!(got.is_empty());
    assert!(closed >= Duration::from_millis(400) && closed < Duration::from_secs(3), "closed after {closed:?}");

    let mut kept = connect(srv.addr());
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let (got, closed) = read_until_closed(&mut kept, |_| {});
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let closed = closed.expect("a kept-alive idle connection must be closed");
    assert!(closed < Duration::from_secs(3), "closed after {closed:?}");
}

/// A client that sends requests and never reads the answers: the server's writes fill the socket buffers and stop
/// making progress; `write_timeout_seconds` later the server closes the connection (counted as `write_timeout`),
/// instead of holding its slot until the kernel gives up. The requests are pipelined so the answers outgrow the
/// kernel's buffers (a stream from the tiny model is too short to fill them).
#[test]
fn a_client_that_never_reads_is_cut_at_the_write_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "write_timeout_seconds: 0.5\n");
    let s = connect(srv.addr());
    let mut w = s.try_clone().unwrap();
    w.set_write_timeout(Some(Duration::from_millis(200))).unwrap();
    // The writer keeps sending requests (never reading) until the server's close makes a write fail.
    let writer = std::thread::spawn(move || {
        let start = Instant::now();
        let chunk = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n".repeat(1000);
        while start.elapsed() < BOUND * 3 {
            match w.write(&chunk) {
                Ok(_) => {}
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => return Some(start.elapsed()),
            }
        }
        None
    });
    let start = Instant::now();
    while srv.metrics().errors().get("write_timeout").copied().unwrap_or(0) == 0 {
        assert!(start.elapsed() < BOUND * 3, "a client that never reads was not cut off: {:?}", srv.metrics().errors());
        std::thread::sleep(Duration::from_millis(50));
    }
    let failed = writer.join().unwrap();
    assert!(failed.is_some(), "the connection should be closed, so the client's writes fail");
    // Only the stuck connection went: the server still answers others.
    let mut other = connect(srv.addr());
    other.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let (got, _) = read_until_closed(&mut other, |_| {});
    assert!(String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200"));
    drop(s);
}

/// A body that stops halfway gets 408 after `body_read_timeout_seconds`.
#[test]
fn a_body_that_stops_halfway_gets_408() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "body_read_timeout_seconds: 0.5\n");
    let mut s = connect(srv.addr());
    let start = Instant::now();
    s.write_all(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"prompt\": ").unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while start.elapsed() < BOUND && !String::from_utf8_lossy(&got).contains("body_read_timeout") {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&got);
    assert!(text.starts_with("HTTP/1.1 408"), "{text:?} after {:?}", start.elapsed());
    assert!(text.contains("body_read_timeout"), "{text}");
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
}

/// With `max_connections: 2`, a third connection gets 503 `too_many_connections` and is closed; once one of the
/// two closes, a new connection is served.
#[test]
fn connections_beyond_the_cap_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "max_connections: 2\nidle_timeout_seconds: 60\n");
    let first = connect(srv.addr());
    let _second = connect(srv.addr());
    // The server accepts in arrival order, so these two take the slots and the next one is refused.
    let refused = |addr| {
        let mut s = connect(addr);
        let (got, closed) = read_until_closed(&mut s, |_| {});
        (String::from_utf8_lossy(&got).into_owned(), closed)
    };
    let (text, closed) = refused(srv.addr());
    assert!(text.starts_with("HTTP/1.1 503"), "{text:?}");
    assert!(text.contains("too_many_connections") && text.to_ascii_lowercase().contains("retry-after: 1"), "{text}");
    assert!(closed.is_some_and(|c| c < Duration::from_secs(2)), "a refused connection is closed at once: {closed:?}");
    assert!(srv.metrics().errors().get("too_many_connections").copied().unwrap_or(0) >= 1);

    drop(first);
    let start = Instant::now();
    let served = loop {
        let mut s = connect(srv.addr());
        s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        let (got, _) = read_until_closed(&mut s, |_| {});
        let text = String::from_utf8_lossy(&got).into_owned();
        if text.starts_with("HTTP/1.1 200") || start.elapsed() > BOUND {
            break text;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(served.starts_with("HTTP/1.1 200"), "a freed slot is reused: {served:?}");
}

/// Open connections, slow heads included, do not stretch shutdown.
#[test]
fn shutdown_does_not_wait_for_idle_or_slow_connections() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "header_read_timeout_seconds: 1\nidle_timeout_seconds: 60\nshutdown_grace_seconds: 30\n");
    let mut conns: Vec<TcpStream> = (0..5).map(|_| connect(srv.addr())).collect();
    conns[0].write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let start = Instant::now();
    srv.shutdown();
    assert!(start.elapsed() < Duration::from_secs(4), "shutdown took {:?}", start.elapsed());
}

/// The timers bound silent connections, never work in progress: with every timer at 0.1 s, six long
/// generations on one worker (the last waits in the queue behind five others, its connection silent all that
/// time; two of them stream) all finish complete. The test checks that the slowest request outlived the timers
/// many times over, so it cannot pass because the generations were short.
#[test]
fn requests_longer_than_every_timer_are_not_cut() {
    const TIMER: f64 = 0.1;
    const TOKENS: usize = 2000;
    let dir = tempfile::tempdir().unwrap();
    let timers = format!(
        "header_read_timeout_seconds: {TIMER}\nidle_timeout_seconds: {TIMER}\nbody_read_timeout_seconds: {TIMER}\n\
         write_timeout_seconds: {TIMER}\n"
    );
    let srv = start(dir.path(), &timers);
    let addr = srv.addr();
    let clients: Vec<_> = (0..6)
        .map(|i| {
            std::thread::spawn(move || {
                let stream = i % 3 == 1;
                let body = format!(
                    "{{\"model\": \"tiny\", \"prompt\": \"the model reads\", \"max_tokens\": {TOKENS}, \
                     \"ignore_eos\": true, \"stream\": {stream}}}"
                );
                let mut s = TcpStream::connect(addr).expect("connect");
                s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
                let start = Instant::now();
                write!(
                    s,
                    "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .unwrap();
                let mut got = Vec::new();
                let _ = s.read_to_end(&mut got);
                (stream, String::from_utf8_lossy(&got).into_owned(), start.elapsed())
            })
        })
        .collect();
    let mut slowest = Duration::ZERO;
    for client in clients {
        let (stream, text, took) = client.join().unwrap();
        slowest = slowest.max(took);
        assert!(text.starts_with("HTTP/1.1 200"), "cut after {took:?}: {}", &text[..text.len().min(300)]);
        // Streamed or not, the answer ends with all its tokens counted (a stream: in its last chunk, then [DONE]).
        let tail = &text[text.len().saturating_sub(400)..];
        assert!(text.contains(&format!("\"completion_tokens\":{TOKENS}")), "answer cut after {took:?}: ...{tail}");
        assert_eq!(text.contains("data: [DONE]"), stream, "after {took:?}: ...{tail}");
    }
    assert!(
        slowest > Duration::from_secs_f64(TIMER * 5.0),
        "the slowest request took {slowest:?}, too short to show that the {TIMER} s timers spare work in progress: raise TOKENS"
    );
    assert!(srv.metrics().errors().is_empty(), "no timer fired: {:?}", srv.metrics().errors());
}
