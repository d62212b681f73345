//! A bounded load test on 127.0.0.1: 200 requests from 16 concurrent clients against the tiny model with a small
//! queue, so some get 429. Every request must either complete correctly or get a clean 429; the counts add up;
//! the server is alive afterwards; the process RSS stays flat over a second round. Writes
//! bench-out/server-load.json.

mod common;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use specrt::server::client;
use specrt::server::{self, ServerConfig, ServerOptions};

const REQUESTS: usize = 200;
const CONCURRENCY: usize = 16;
/// Allowed RSS growth between the end of round 1 and the end of round 2.
const RSS_BOUND_MIB: f64 = 32.0;
/// How long a client waits after a 429 before its next request.
const BACKOFF_MS: u64 = 20;

#[derive(Default, Debug)]
struct Round {
    ok: usize,
    rejected: usize,
    other: Vec<String>,
    latencies: Vec<f64>,
    seconds: f64,
}

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn one(addr: SocketAddr, i: usize) -> Result<bool, String> {
    let chat = i % 2 == 1;
    let stream = i % 4 >= 2;
    let (path, mut body) = if chat {
        ("/v1/chat/completions", json!({"messages": [{"role": "user", "content": format!("request {i}")}]}))
    } else {
        ("/v1/completions", json!({"prompt": format!("request {i}")}))
    };
    body["max_tokens"] = json!(16);
    body["ignore_eos"] = json!(true);
    body["stream"] = json!(stream);
    if stream {
        let s = client::EventStream::open(addr, path, &body, Duration::from_secs(60)).map_err(|e| e.to_string())?;
        if s.status == 429 {
            return Ok(false);
        }
        if s.status != 200 {
            return Err(format!("status {}", s.status));
        }
        let payloads = s.collect().map_err(|e| e.to_string())?;
        if payloads.last().map(String::as_str) != Some("[DONE]") {
            return Err(format!("stream without [DONE]: {payloads:?}"));
        }
        let mut text = String::new();
        for p in &payloads[..payloads.len() - 1] {
            let v: Value = serde_json::from_str(p).map_err(|e| format!("bad chunk {p}: {e}"))?;
            let c = &v["choices"][0];
            text.push_str(c["text"].as_str().or_else(|| c["delta"]["content"].as_str()).unwrap_or(""));
        }
        if text.is_empty() {
            return Err("empty streamed text".into());
        }
        Ok(true)
    } else {
        let r = client::post_json(addr, path, &body).map_err(|e| e.to_string())?;
        match r.status {
            429 => {
                let v: Value = serde_json::from_str(&r.body).map_err(|e| e.to_string())?;
                if v["error"]["code"] != "queue_full" || r.header("retry-after").is_none() {
                    return Err(format!("unclean 429: {}", r.body));
                }
                Ok(false)
            }
            200 => {
                let v: Value = serde_json::from_str(&r.body).map_err(|e| format!("bad JSON {}: {e}", r.body))?;
                let c = &v["choices"][0];
                let text = c["text"].as_str().or_else(|| c["message"]["content"].as_str()).unwrap_or("");
                if text.is_empty() || v["usage"]["completion_tokens"] != 16 {
                    return Err(format!("bad completion: {v}"));
                }
                Ok(true)
            }
            s => Err(format!("status {s}: {}", r.body)),
        }
    }
}

fn round(addr: SocketAddr) -> Round {
    let next = Arc::new(Mutex::new(0usize));
    let results = Arc::new(Mutex::new(Round::default()));
    let t0 = Instant::now();
    let threads: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let (next, results) = (next.clone(), results.clone());
            std::thread::spawn(move || loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    if *n >= REQUESTS {
                        return;
                    }
                    *n += 1;
                    *n - 1
                };
                let t = Instant::now();
                let r = one(addr, i);
                let secs = t.elapsed().as_secs_f64();
                let rejected = matches!(r, Ok(false));
                let mut res = results.lock().unwrap();
                match r {
                    Ok(true) => {
                        res.ok += 1;
                        res.latencies.push(secs);
                    }
                    Ok(false) => res.rejected += 1,
                    Err(e) => res.other.push(e),
                }
                drop(res);
                if rejected {
                    // A client backs off briefly after a 429 (Retry-After says 1 s; the test keeps it short).
                    std::thread::sleep(Duration::from_millis(BACKOFF_MS));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut r = std::mem::take(&mut *results.lock().unwrap());
    r.seconds = t0.elapsed().as_secs_f64();
    r.latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    r
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn bounded_load_with_backpressure() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = common::pipeline_yaml(dir.path(), &common::tiny(), "name: tiny\n");
    let yaml = format!("port: 0\nworkers: 2\nqueue_capacity: 4\npipelines:\n  - config: {}\n", pipeline.display());
    let config = ServerConfig::parse_str(&yaml, "server.yaml", dir.path()).unwrap();
    let srv = server::start(&config, ServerOptions::default()).unwrap();
    let addr = srv.addr();

    let first = round(addr);
    let rss_after_first = rss_mib();
    let second = round(addr);
    let rss_after_second = rss_mib();

    let mut report = Vec::new();
    for (n, r) in [(1, &first), (2, &second)] {
        let rps = REQUESTS as f64 / r.seconds;
        let (p50, p99) = (pct(&r.latencies, 0.5), pct(&r.latencies, 0.99));
        println!(
            "round {n}: {REQUESTS} requests, {CONCURRENCY} concurrent: {:.1} req/s, ok {} ({:.1} completed/s), 429 {}, other errors {}, latency p50 {:.1} ms p99 {:.1} ms",
            rps,
            r.ok,
            r.ok as f64 / r.seconds,
            r.rejected,
            r.other.len(),
            p50 * 1e3,
            p99 * 1e3
        );
        report.push(json!({
            "round": n, "requests": REQUESTS, "concurrency": CONCURRENCY, "seconds": r.seconds,
            "requests_per_second": rps, "completed_per_second": r.ok as f64 / r.seconds,
            "ok": r.ok, "rejected_429": r.rejected, "other_errors": r.other.len(),
            "latency_p50_ms": p50 * 1e3, "latency_p99_ms": p99 * 1e3,
        }));
    }
    println!("RSS after round 1: {rss_after_first:.1} MiB, after round 2: {rss_after_second:.1} MiB");
    let out = json!({
        "test": "cargo test --release --test server_load -- --nocapture",
        "setup": {"model": "tiny-fp32", "workers": 2, "queue_capacity": 4, "max_tokens": 16, "backend_threads": 2,
                  "mix": "completions/chat x streaming/non-streaming, round robin", "backoff_after_429_ms": BACKOFF_MS},
        "rounds": report,
        "rss_mib": {"after_round_1": rss_after_first, "after_round_2": rss_after_second, "bound": RSS_BOUND_MIB},
    });
    let dir_out = common::root().join("bench-out");
    std::fs::create_dir_all(&dir_out).unwrap();
    std::fs::write(dir_out.join("server-load.json"), serde_json::to_string_pretty(&out).unwrap()).unwrap();

    for r in [&first, &second] {
        assert!(r.other.is_empty(), "requests that neither completed nor got a clean 429: {:?}", &r.other[..r.other.len().min(5)]);
        assert!(r.ok > 0);
    }
    // The server's own counters agree with what the clients saw: every completion and every 429 was counted
    // once, none invented, none lost.
    let metrics = client::get(addr, "/metrics").unwrap().body;
    let count = |status: &str| -> usize {
        metrics
            .lines()
            .filter(|l| l.starts_with("specrt_requests_total{") && l.contains("completions") && l.contains(&format!("status=\"{status}\"")))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as usize
    };
    assert_eq!(count("200"), first.ok + second.ok, "completed requests counted by the server:\n{metrics}");
    assert_eq!(count("429"), first.rejected + second.rejected, "429s counted by the server");
    assert!(first.rejected + second.rejected > 0, "a queue of 4 under 16 clients must reject some");
    let h = client::get(addr, "/health").unwrap();
    assert_eq!(h.status, 200);
    // The last workers finish their bookkeeping just after their responses went out: allow them a moment.
    let idle_by = Instant::now() + Duration::from_secs(5);
    while srv.busy() != 0 && Instant::now() < idle_by {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(srv.busy(), 0, "queued or running generations left after every client finished");
    assert!(rss_after_second - rss_after_first < RSS_BOUND_MIB, "RSS grew from {rss_after_first:.1} to {rss_after_second:.1} MiB");
    srv.shutdown();
}
