//! The HTTP server end to end on 127.0.0.1: both generation endpoints (streaming and not), /v1/models, /health,
//! /metrics, every error case, panics, cancellation on disconnect, timeouts, 429 and graceful shutdown. Each test
//! starts its own server in-process on an ephemeral port with the tiny random model.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use specrt::server::client::{self, EventStream};
use specrt::server::{self, ServerConfig, ServerHandle, ServerOptions};

const NAME: &str = "tiny";

/// A server over the tiny model; `server_extra` and `pipeline_extra` are appended YAML.
fn start(dir: &Path, server_extra: &str, pipeline_extra: &str) -> ServerHandle {
    let pipeline = common::pipeline_yaml(dir, &common::tiny(), &format!("name: {NAME}\n{pipeline_extra}"));
    let yaml = format!("host: 127.0.0.1\nport: 0\n{server_extra}pipelines:\n  - config: {}\n", pipeline.display());
    let config = ServerConfig::parse_str(&yaml, "server.yaml", dir).expect("server config");
    server::start(&config, ServerOptions { panic_marker: Some("PANIC-NOW".into()), ..Default::default() }).expect("server starts")
}

fn post(addr: SocketAddr, path: &str, body: Value) -> client::HttpResponse {
    client::post_json(addr, path, &body).expect("request")
}

fn assert_error(r: &client::HttpResponse, status: u16, code: &str, param: Option<&str>) {
    assert_eq!(r.status, status, "{}", r.body);
    let v = r.json();
    let e = &v["error"];
    assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    assert!(e["type"].is_string(), "{v}");
    assert_eq!(e["code"], code, "{v}");
    match param {
        Some(p) => assert_eq!(e["param"], p, "{v}"),
        None => assert!(e.get("param").is_some(), "{v}"),
    }
}

/// Polls `cond` every 20 ms for at most `secs` seconds.
fn wait_for(secs: f64, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

fn stream_payloads(addr: SocketAddr, path: &str, body: Value) -> Vec<String> {
    let s = EventStream::open(addr, path, &body, Duration::from_secs(60)).expect("stream opens");
    assert_eq!(s.status, 200);
    s.collect().expect("stream reads")
}

#[test]
fn completions_non_streaming_and_streaming_agree() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    let req = json!({"model": NAME, "prompt": "Hello there", "max_tokens": 12, "temperature": 0, "ignore_eos": true, "unknown_field": [1, 2]});
    let r = post(addr, "/v1/completions", req.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["object"], "text_completion");
    assert_eq!(v["model"], NAME);
    assert!(v["id"].as_str().unwrap().starts_with("cmpl-"));
    let text = v["choices"][0]["text"].as_str().unwrap().to_string();
    assert_eq!(v["choices"][0]["finish_reason"], "length");
    let u = &v["usage"];
    assert_eq!(u["completion_tokens"], 12);
    assert!(u["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(u["total_tokens"].as_u64().unwrap(), u["prompt_tokens"].as_u64().unwrap() + 12);
    assert!(v.get("specrt_stats").is_none());

    let mut sreq = req.clone();
    sreq["stream"] = json!(true);
    sreq["specrt_stats"] = json!(true);
    let payloads = stream_payloads(addr, "/v1/completions", sreq);
    assert_eq!(payloads.last().map(String::as_str), Some("[DONE]"));
    let chunks: Vec<Value> = payloads[..payloads.len() - 1].iter().map(|p| serde_json::from_str(p).unwrap()).collect();
    let streamed: String = chunks.iter().map(|c| c["choices"][0]["text"].as_str().unwrap()).collect();
    assert_eq!(streamed, text, "streamed text equals the non-streamed text (greedy)");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "length");
    assert_eq!(last["usage"]["completion_tokens"], 12);
    assert_eq!(last["specrt_stats"]["strategy"], "ar");
    assert_eq!(last["specrt_stats"]["tau"], 1.0);
    assert!(chunks[..chunks.len() - 1].iter().all(|c| c["choices"][0]["finish_reason"].is_null()));
    srv.shutdown();
}

#[test]
fn chat_non_streaming_and_streaming_agree() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    let req = json!({"model": NAME, "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
                     "max_tokens": 10, "ignore_eos": true, "seed": 3, "top_k": 5, "top_p": 0.9, "temperature": 0.0, "specrt_stats": true});
    let r = post(addr, "/v1/chat/completions", req.clone());
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    let text = v["choices"][0]["message"]["content"].as_str().unwrap().to_string();
    assert_eq!(v["usage"]["completion_tokens"], 10);
    assert_eq!(v["specrt_stats"]["new_tokens"], 10);

    let mut sreq = req;
    sreq["stream"] = json!(true);
    let payloads = stream_payloads(addr, "/v1/chat/completions", sreq);
    assert_eq!(payloads.last().map(String::as_str), Some("[DONE]"));
    let chunks: Vec<Value> = payloads[..payloads.len() - 1].iter().map(|p| serde_json::from_str(p).unwrap()).collect();
    assert_eq!(chunks[0]["object"], "chat.completion.chunk");
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let streamed: String = chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(streamed, text);
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "length");
    assert_eq!(last["usage"]["total_tokens"], v["usage"]["total_tokens"]);
    assert!(last["specrt_stats"].is_object());
    srv.shutdown();
}

#[test]
fn stop_strings_and_model_default() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    // No `model`: the first pipeline. Greedy output, then the same with its 3rd..4th characters as a stop string.
    let v = post(addr, "/v1/completions", json!({"prompt": "abc", "max_tokens": 20, "ignore_eos": true})).json();
    let text = v["choices"][0]["text"].as_str().unwrap().to_string();
    let chars: Vec<char> = text.chars().collect();
    if chars.len() >= 4 {
        let stop: String = chars[2..4].iter().collect();
        let cut = &text[..text.find(&stop).unwrap()];
        let v = post(addr, "/v1/completions", json!({"prompt": "abc", "max_tokens": 20, "ignore_eos": true, "stop": [stop]})).json();
        assert_eq!(v["choices"][0]["text"], cut);
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
    }
    srv.shutdown();
}

#[test]
fn models_health_and_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    let m = client::get(addr, "/v1/models").unwrap();
    assert_eq!(m.status, 200);
    let v = m.json();
    assert_eq!(v["object"], "list");
    assert_eq!(v["data"][0]["id"], NAME);
    assert_eq!(v["data"][0]["object"], "model");
    assert_eq!(v["data"][0]["specrt"]["strategy"], "ar");
    let h = client::get(addr, "/health").unwrap();
    assert_eq!(h.status, 200);
    assert_eq!(h.json()["status"], "ok");
    let r = post(addr, "/v1/completions", json!({"model": NAME, "prompt": "x", "max_tokens": 5, "ignore_eos": true}));
    assert_eq!(r.status, 200);
    let _ = post(addr, "/v1/completions", json!({"model": "nope", "prompt": "x"}));
    let text = client::get(addr, "/metrics").unwrap();
    assert_eq!(text.status, 200);
    assert!(text.header("content-type").unwrap().starts_with("text/plain"));
    let body = text.body;
    for needle in [
        "specrt_requests_total{endpoint=\"completions\",status=\"200\"} 1",
        "specrt_request_errors_total{kind=\"model_not_found\"} 1",
        "specrt_tokens_generated_total{pipeline=\"tiny\"} 5",
        "specrt_tau{pipeline=\"tiny\"} 1",
        "specrt_acceptance_rate{pipeline=\"tiny\"} 0",
        "specrt_queue_depth{pipeline=\"tiny\"} 0",
        "specrt_queue_wait_seconds_count{pipeline=\"tiny\"} 1",
        "specrt_tokens_per_second{pipeline=\"tiny\"}",
        "specrt_generations_total{pipeline=\"tiny\",finish_reason=\"length\"} 1",
        "# TYPE specrt_queue_wait_seconds histogram",
    ] {
        assert!(body.contains(needle), "missing {needle:?} in\n{body}");
    }
    srv.shutdown();
}

#[test]
fn bad_input_gets_openai_style_4xx() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "max_body_bytes: 4096\n", "context_length: 64\n");
    let addr = srv.addr();
    let c = "/v1/completions";
    let raw = client::request(addr, "POST", c, Some(b"{\"prompt\": \"x\","), Duration::from_secs(10)).unwrap();
    assert_error(&raw, 400, "invalid_json", None);
    let raw = client::request(addr, "POST", c, Some(b"[1, 2]"), Duration::from_secs(10)).unwrap();
    assert_error(&raw, 400, "invalid_json", None);
    assert_error(&post(addr, c, json!({"model": "gpt-9", "prompt": "x"})), 404, "model_not_found", Some("model"));
    let big = json!({"prompt": "y".repeat(10_000)});
    assert_error(&post(addr, c, big), 413, "body_too_large", None);
    assert_error(&post(addr, c, json!({"prompt": "x", "max_tokens": "ten"})), 400, "invalid_type", Some("max_tokens"));
    assert_error(&post(addr, c, json!({"prompt": 5})), 400, "invalid_type", Some("prompt"));
    assert_error(&post(addr, c, json!({"prompt": "x", "stream": "yes"})), 400, "invalid_type", Some("stream"));
    assert_error(&post(addr, c, json!({"prompt": "x", "stop": [1]})), 400, "invalid_type", Some("stop"));
    assert_error(&post(addr, c, json!({})), 400, "missing_field", Some("prompt"));
    let chat = "/v1/chat/completions";
    assert_error(&post(addr, chat, json!({"messages": "hi"})), 400, "invalid_type", Some("messages"));
    assert_error(&post(addr, chat, json!({"messages": [{"role": "user", "content": 1}]})), 400, "invalid_type", Some("messages[0].content"));
    assert_error(&post(addr, chat, json!({"messages": [{"role": "wizard", "content": "x"}]})), 400, "invalid_value", Some("messages[0].role"));
    assert_error(&post(addr, chat, json!({"messages": []})), 400, "invalid_value", Some("messages"));
    // Sampling values.
    assert_error(&post(addr, c, json!({"prompt": "x", "temperature": -1})), 400, "invalid_value", Some("temperature"));
    assert_error(&post(addr, c, json!({"prompt": "x", "top_p": 1.5})), 400, "invalid_value", Some("top_p"));
    assert_error(&post(addr, c, json!({"prompt": "x", "top_p": 0})), 400, "invalid_value", Some("top_p"));
    assert_error(&post(addr, c, json!({"prompt": "x", "top_k": -5})), 400, "invalid_type", Some("top_k"));
    assert_error(&post(addr, c, json!({"prompt": "x", "max_tokens": 0})), 400, "invalid_value", Some("max_tokens"));
    assert_error(&post(addr, c, json!({"prompt": "x", "stop": ""})), 400, "invalid_value", Some("stop"));
    assert_error(&post(addr, c, json!({"prompt": "x", "n": 3})), 400, "invalid_value", Some("n"));
    // Context: max_tokens beyond it, prompt + max_tokens beyond it, a prompt that does not fit at all.
    assert_error(&post(addr, c, json!({"prompt": "x", "max_tokens": 100})), 400, "context_length_exceeded", Some("max_tokens"));
    assert_error(&post(addr, c, json!({"prompt": "hello world ".repeat(4), "max_tokens": 60})), 400, "context_length_exceeded", Some("max_tokens"));
    assert_error(&post(addr, c, json!({"prompt": "hello world ".repeat(40)})), 400, "context_length_exceeded", Some("prompt"));
    assert_error(&post(addr, c, json!({"prompt": [100000]})), 400, "invalid_value", Some("prompt"));
    // Unknown route.
    assert_error(&client::get(addr, "/v2/nothing").unwrap(), 404, "not_found", None);
    // Still serving.
    let ok = post(addr, c, json!({"prompt": "x", "max_tokens": 3, "ignore_eos": true}));
    assert_eq!(ok.status, 200, "{}", ok.body);
    let errors = srv.metrics().errors();
    assert!(errors["invalid_type"] >= 6, "{errors:?}");
    srv.shutdown();
}

#[test]
fn a_panic_answers_500_and_the_worker_survives() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    let r = post(addr, "/v1/completions", json!({"prompt": "please PANIC-NOW", "max_tokens": 3}));
    assert_error(&r, 500, "internal_error", None);
    let s = EventStream::open(
        addr,
        "/v1/chat/completions",
        &json!({"messages": [{"role": "user", "content": "PANIC-NOW"}], "stream": true}),
        Duration::from_secs(30),
    )
    .unwrap();
    assert_eq!(s.status, 500);
    for _ in 0..3 {
        let ok = post(addr, "/v1/completions", json!({"prompt": "fine", "max_tokens": 4, "ignore_eos": true}));
        assert_eq!(ok.status, 200, "{}", ok.body);
    }
    assert_eq!(srv.metrics().pipeline(NAME).panics, 2);
    srv.shutdown();
}

/// A long generation: the whole context of the tiny model.
fn long_request(stream: bool) -> Value {
    json!({"model": NAME, "prompt": "long", "max_tokens": 2000, "ignore_eos": true, "stream": stream})
}

#[test]
fn a_disconnected_stream_cancels_its_generation() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    let t0 = Instant::now();
    let mut s = EventStream::open(addr, "/v1/completions", &long_request(true), Duration::from_secs(30)).unwrap();
    assert_eq!(s.status, 200);
    let first = s.next_data().unwrap().expect("a first chunk");
    assert!(first.starts_with('{'), "{first}");
    drop(s);
    assert!(
        wait_for(20.0, || srv.metrics().pipeline(NAME).cancelled.get("disconnect") == Some(&1)),
        "the generation was not cancelled: {:?}",
        srv.metrics().pipeline(NAME)
    );
    let snap = srv.metrics().pipeline(NAME);
    assert!(snap.new_tokens < 2000, "cancelled early: {} tokens", snap.new_tokens);
    eprintln!("cancelled after {} of 2000 tokens, {:.2}s", snap.new_tokens, t0.elapsed().as_secs_f64());
    assert!(wait_for(5.0, || srv.busy() == 0));
    // The worker is free again.
    assert_eq!(post(addr, "/v1/completions", json!({"prompt": "x", "max_tokens": 2, "ignore_eos": true})).status, 200);
    srv.shutdown();
}

#[test]
fn a_dropped_non_streaming_request_cancels_its_generation() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "", "");
    let addr = srv.addr();
    // Send the request and close the connection without reading the answer.
    {
        use std::io::Write;
        let body = long_request(false).to_string();
        let mut tcp = std::net::TcpStream::connect(addr).unwrap();
        write!(tcp, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())
            .unwrap();
        assert!(wait_for(10.0, || srv.busy() == 1));
    }
    let cancelled = wait_for(20.0, || srv.metrics().pipeline(NAME).cancelled.get("disconnect") == Some(&1));
    let snap = srv.metrics().pipeline(NAME);
    // hyper notices a closed connection while the handler runs; if the generation won the race it is complete.
    assert!(cancelled || snap.new_tokens == 2000, "{snap:?}");
    eprintln!("non-streaming disconnect: cancelled={cancelled}, {} tokens", snap.new_tokens);
    srv.shutdown();
}

#[test]
fn requests_time_out() {
    let dir = tempfile::tempdir().unwrap();
    // The tiny model writes 2000 tokens in ~80 ms even in a release build (~25k tokens/s), so 30 ms always
    // lands mid-generation (0.3 s did not: a fast run finished first).
    let srv = start(dir.path(), "request_timeout_seconds: 0.03\n", "");
    let addr = srv.addr();
    let t0 = Instant::now();
    let r = post(addr, "/v1/completions", long_request(false));
    let secs = t0.elapsed().as_secs_f64();
    assert_error(&r, 504, "request_timeout", None);
    assert!(secs < 5.0, "{secs}");
    let payloads = stream_payloads(addr, "/v1/completions", long_request(true));
    assert_eq!(payloads.last().map(String::as_str), Some("[DONE]"));
    let err: Value = serde_json::from_str(&payloads[payloads.len() - 2]).unwrap();
    assert_eq!(err["error"]["code"], "request_timeout", "{err}");
    assert!(wait_for(10.0, || srv.metrics().pipeline(NAME).cancelled.get("timeout") == Some(&2)), "{:?}", srv.metrics().pipeline(NAME));
    srv.shutdown();
}

#[test]
fn a_full_queue_answers_429_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "queue_capacity: 1\n", "");
    let addr = srv.addr();
    // One running, one waiting: the queue is full.
    let mut running = EventStream::open(addr, "/v1/completions", &long_request(true), Duration::from_secs(30)).unwrap();
    running.next_data().unwrap();
    let waiting = std::thread::spawn(move || post(addr, "/v1/completions", json!({"prompt": "x", "max_tokens": 2, "ignore_eos": true})));
    assert!(wait_for(10.0, || srv.busy() == 2));
    let r = post(addr, "/v1/completions", json!({"prompt": "x", "max_tokens": 2}));
    assert_error(&r, 429, "queue_full", None);
    assert_eq!(r.header("retry-after"), Some("1"));
    drop(running);
    assert_eq!(waiting.join().unwrap().status, 200);
    srv.shutdown();
}

#[test]
fn shutdown_cancels_in_flight_work_and_returns() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "shutdown_grace_seconds: 0.2\n", "");
    let addr = srv.addr();
    let mut s = EventStream::open(addr, "/v1/completions", &long_request(true), Duration::from_secs(30)).unwrap();
    s.next_data().unwrap();
    let reader = std::thread::spawn(move || {
        let mut n = 0;
        let mut last = String::new();
        while let Ok(Some(d)) = s.next_data() {
            n += 1;
            last = d;
        }
        (n, last)
    });
    let t0 = Instant::now();
    srv.shutdown();
    let secs = t0.elapsed().as_secs_f64();
    assert!(secs < 10.0, "shutdown took {secs:.1}s");
    let (_, last) = reader.join().unwrap();
    // The stream ended: normally (it finished within the grace period) or with [DONE] after a shutdown error.
    assert!(last == "[DONE]" || last.is_empty(), "{last}");
    assert!(std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err(), "still listening");
}
