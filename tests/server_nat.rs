//! NAT pipelines over HTTP (docs/SERVER.md "NAT pipelines"): `/v1/completions` with a list of prompts and
//! `/v1/translations` answer what `NatPipeline` answers for the same sentences; a bad sentence is an error in
//! its own item only; request-level mistakes are clear 400s; dynamic batching never changes a result (many
//! concurrent clients, random mixes, each answer compared with the sentence translated alone); the request log
//! has one structured line per request; and the HTTP output equals the CLI's (`specrt generate` on the same
//! lines). Uses the committed English->German model (`make nat-models`).

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use specrt::nat::NatPipeline;
use specrt::server::client;
use specrt::server::{self, LogFormat, ServerConfig, ServerHandle, ServerOptions};

const NAT: &str = "ctc-nat-en-de";

fn nat_config() -> PathBuf {
    common::root().join("configs/ctc-nat-en-de.yaml")
}

/// English sentences of the kind the model was trained on (parliament proceedings, news, everyday text).
const POOL: &[&str] = &[
    "The committee approved the report.",
    "I would like to thank the President.",
    "This film is very good.",
    "We must protect the environment for our children.",
    "The government has adopted new measures to support small businesses.",
    "Hello",
    "The meeting will take place in Geneva next year.",
    "Water is important.",
    "The Commission has presented its proposal.",
    "We need a common European policy on energy.",
    "I agree with the rapporteur.",
    "The vote will take place tomorrow at noon.",
    "This is a very important question for our citizens.",
    "The situation in the region remains difficult.",
    "Thank you very much for your attention.",
    "The debate is closed.",
    "We cannot accept this amendment.",
    "The Council must take its responsibility.",
    "Young people need better jobs.",
    "The price of oil has risen sharply.",
    "Many people have lost their homes.",
    "My group supports this resolution.",
    "The minutes of the previous sitting have been distributed.",
    "Are there any comments?",
    "The budget for next year is too small.",
    "Human rights must be respected everywhere.",
    "The report contains many good proposals.",
    "I am very pleased with this result.",
    "The next item is the vote.",
    "We have to act now.",
    "This problem affects all member states.",
    "The new law enters into force in January.",
];

fn pool(n: usize) -> Vec<String> {
    POOL.iter().take(n).map(|s| s.to_string()).collect()
}

/// A server with the NAT pipeline (and the tiny decoder, to check the endpoints refuse the wrong kind).
fn start(dir: &Path, nat_section: &str, workers: usize, log: Option<Arc<Mutex<Vec<String>>>>) -> ServerHandle {
    let tiny = common::pipeline_yaml(dir, &common::tiny(), "name: tiny\n");
    let yaml = format!(
        "host: 127.0.0.1\nport: 0\nworkers: {workers}\nqueue_capacity: 256\npipelines:\n  - config: {}\n{nat_section}  - config: {}\n",
        nat_config().display(),
        tiny.display()
    );
    let config = ServerConfig::parse_str(&yaml, "server.yaml", dir).expect("server config");
    let options = ServerOptions { log_format: log.is_some().then_some(LogFormat::Json), log_capture: log, ..Default::default() };
    server::start(&config, options).expect("server starts")
}

fn post(addr: std::net::SocketAddr, path: &str, body: Value) -> client::HttpResponse {
    client::post_json(addr, path, &body).expect("request")
}

fn alone(p: &mut NatPipeline, s: &str) -> String {
    p.translate_one(s).unwrap_or_else(|e| panic!("`{s}`: {e}")).text
}

#[test]
fn completions_and_translations_answer_per_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let srv = start(dir.path(), "    nat:\n      max_sentences_per_request: 8\n      max_sentence_bytes: 200\n", 1, Some(log.clone()));
    let addr = srv.addr();
    let mut reference = NatPipeline::load(&nat_config()).unwrap();

    // A list with bad sentences among good ones: one choice per prompt, in order, errors only where they belong.
    let prompts = vec![POOL[0].to_string(), "   ".into(), POOL[2].to_string(), "x".repeat(201), "word ".repeat(39) + "end", POOL[3].to_string()];
    let r = post(addr, "/v1/completions", json!({"model": NAT, "prompt": prompts, "max_tokens": 16}));
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["object"], "text_completion");
    let choices = v["choices"].as_array().unwrap();
    assert_eq!(choices.len(), prompts.len());
    for (i, c) in choices.iter().enumerate() {
        assert_eq!(c["index"], i);
        match i {
            1 | 3 => {
                assert_eq!(c["finish_reason"], "error", "{c}");
                assert_eq!(c["text"], "");
                assert_eq!(c["error"]["param"], format!("prompt[{i}]"), "{c}");
                let code = if i == 3 { "sentence_too_long" } else { "invalid_value" };
                assert_eq!(c["error"]["code"], code, "{c}");
            }
            _ => {
                assert_eq!(c["finish_reason"], "stop", "{c}");
                assert_eq!(c["text"].as_str().unwrap(), alone(&mut reference, &prompts[i]), "prompt {i}");
            }
        }
    }
    let used_in: usize = [0, 2, 4, 5].iter().map(|&i| reference.translate_one(&prompts[i]).unwrap().source_tokens).sum();
    assert_eq!(v["usage"]["prompt_tokens"], used_in);

    // The batch form: `text` list, DeepL-style items.
    let texts = pool(5);
    let r = post(addr, "/v1/translations", json!({"model": NAT, "text": texts}));
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["object"], "translation.list");
    let items = v["translations"].as_array().unwrap();
    let expected: Vec<String> = reference.translate_each(&texts).into_iter().map(|t| t.unwrap().text).collect();
    let got: Vec<&str> = items.iter().map(|t| t["text"].as_str().unwrap()).collect();
    assert_eq!(got, expected);

    // One sentence as a string: a plain completion; its error is the request's error.
    let r = post(addr, "/v1/completions", json!({"model": NAT, "prompt": POOL[7]}));
    assert_eq!(r.json()["choices"][0]["text"].as_str().unwrap(), alone(&mut reference, POOL[7]));
    let r = post(addr, "/v1/completions", json!({"model": NAT, "prompt": ""}));
    assert_eq!((r.status, r.json()["error"]["param"].clone()), (400, json!("prompt")), "{}", r.body);

    // Request-level errors.
    let cases = [
        ("/v1/completions", json!({"model": NAT, "prompt": []}), 400, "invalid_value"),
        ("/v1/translations", json!({"model": NAT, "text": []}), 400, "invalid_value"),
        ("/v1/translations", json!({"model": NAT, "text": pool(9)}), 400, "too_many_sentences"),
        ("/v1/translations", json!({"model": NAT, "text": ["a", 3]}), 400, "invalid_type"),
        ("/v1/translations", json!({"model": NAT}), 400, "missing_field"),
        ("/v1/completions", json!({"model": NAT, "prompt": "Hi", "temperature": 0.7}), 400, "invalid_value"),
        ("/v1/completions", json!({"model": NAT, "prompt": "Hi", "stream": true}), 400, "invalid_value"),
        ("/v1/chat/completions", json!({"model": NAT, "messages": [{"role": "user", "content": "Hi"}]}), 400, "invalid_endpoint"),
        ("/v1/translations", json!({"model": "tiny", "text": ["Hi"]}), 400, "invalid_endpoint"),
        ("/v1/translations", json!({"model": "nope", "text": ["Hi"]}), 404, "model_not_found"),
    ];
    for (path, body, status, code) in cases.clone() {
        let r = post(addr, path, body.clone());
        assert_eq!((r.status, r.json()["error"]["code"].clone()), (status, json!(code)), "{path} {body}: {}", r.body);
    }
    let r = post(addr, "/v1/chat/completions", json!({"model": NAT, "messages": [{"role": "user", "content": "Hi"}]}));
    assert!(r.json()["error"]["message"].as_str().unwrap().contains("/v1/translations"), "names the right endpoint: {}", r.body);
    // The decoder pipeline still works next to it.
    let r = post(addr, "/v1/completions", json!({"model": "tiny", "prompt": "Hello", "max_tokens": 3}));
    assert_eq!(r.status, 200, "{}", r.body);

    // /v1/models: strategy and model kind of each pipeline.
    let v = client::get(addr, "/v1/models").unwrap().json();
    let models = v["data"].as_array().unwrap();
    assert_eq!(
        (models[0]["id"].clone(), models[0]["specrt"]["strategy"].clone(), models[0]["specrt"]["model_kind"].clone()),
        (json!(NAT), json!("nat"), json!("ctc_nat"))
    );
    assert_eq!(models[0]["specrt"]["nat"]["max_sentences_per_request"], 8);
    assert_eq!((models[1]["specrt"]["strategy"].clone(), models[1]["specrt"]["model_kind"].clone()), (json!("ar"), json!("decoder")));

    // The request log: one JSON line per request above, with every field.
    let requests = 1 + 1 + 2 + cases.len() + 1 + 1 + 1;
    srv.shutdown();
    let lines = log.lock().unwrap().clone();
    assert_eq!(lines.len(), requests, "{lines:#?}");
    let first: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(
        (first["route"].clone(), first["model"].clone(), first["status"].clone(), first["finish_reason"].clone()),
        (json!("/v1/completions"), json!(NAT), json!(200), json!("error"))
    );
    assert!(first["id"].as_str().unwrap().starts_with("cmpl-") && first["latency_ms"].as_f64().unwrap() > 0.0, "{first}");
    assert!(
        first["tokens_in"].as_u64().unwrap() > 0 && first["tokens_out"].as_u64().unwrap() > 0 && first["time"].as_str().unwrap().ends_with('Z'),
        "{first}"
    );
    let statuses: Vec<u64> = lines.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()["status"].as_u64().unwrap()).collect();
    assert_eq!(statuses.iter().filter(|&&s| s == 400).count(), 11, "{statuses:?}");
}

/// Concurrent clients send random mixes of 1..=4 sentences; every answer must equal each sentence translated
/// alone, bit for bit in the text, while the server demonstrably gathered several requests into one pass.
#[test]
fn dynamic_batching_never_changes_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(dir.path(), "    nat:\n      batch_window_ms: 20\n      max_batch_sentences: 16\n", 1, None);
    let addr = srv.addr();
    let mut reference = NatPipeline::load(&nat_config()).unwrap();
    let expected: Vec<String> = POOL.iter().map(|s| alone(&mut reference, s)).collect();
    // The comparison can only catch a mix-up if the sentences' outputs differ from each other.
    let distinct: std::collections::HashSet<&String> = expected.iter().collect();
    assert!(distinct.len() >= POOL.len() - 2, "outputs too alike to detect swapped rows: {expected:?}");
    let expected = Arc::new(expected);
    let threads: Vec<_> = (0..12u64)
        .map(|t| {
            let expected = expected.clone();
            std::thread::spawn(move || {
                let mut seed = t * 7919 + 17;
                let mut next = |n: u64| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((seed >> 33) % n) as usize
                };
                let mut checked = 0;
                for round in 0..8 {
                    let ids: Vec<usize> = (0..1 + next(4) as u64).map(|_| next(POOL.len() as u64)).collect();
                    let texts: Vec<&str> = ids.iter().map(|&i| POOL[i]).collect();
                    let (path, body, key) = if round % 2 == 0 {
                        ("/v1/translations", json!({"model": NAT, "text": texts}), "translations")
                    } else {
                        ("/v1/completions", json!({"model": NAT, "prompt": texts}), "choices")
                    };
                    let r = client::post_json(addr, path, &body).expect("request");
                    assert_eq!(r.status, 200, "{}", r.body);
                    let items = r.json()[key].as_array().unwrap().clone();
                    for (item, &i) in items.iter().zip(&ids) {
                        assert_eq!(item["text"].as_str().unwrap(), expected[i], "thread {t} round {round}: `{}` changed in a batch", POOL[i]);
                        checked += 1;
                    }
                }
                checked
            })
        })
        .collect();
    let checked: usize = threads.into_iter().map(|t| t.join().expect("client thread")).sum();
    assert!(checked >= 96, "{checked}");
    let (batches, requests, _sentences) = srv.metrics().nat_batches(NAT);
    assert_eq!(requests, 96, "every request went through the batcher");
    eprintln!("{batches} batches for {requests} requests ({_sentences} sentences)");
    assert!(batches < requests, "requests were gathered: {batches} batches for {requests} requests");
    let metrics = client::get(addr, "/metrics").unwrap().body;
    assert!(metrics.contains("specrt_batch_requests_bucket{pipeline=\"ctc-nat-en-de\",le=\"1\"}"), "{metrics}");
    assert!(metrics.contains("specrt_batch_sentences_count{pipeline=\"ctc-nat-en-de\"}"), "{metrics}");
    srv.shutdown();
}

/// The measurement behind dynamic batching: on this machine the encoder pass is bitwise batch-invariant, so the
/// server batches; where the probe finds a difference, the server must have switched batching off.
#[test]
fn batching_is_on_only_where_the_pass_is_batch_invariant() {
    let dir = tempfile::tempdir().unwrap();
    let config = specrt::config::load_file(&nat_config()).unwrap();
    let probe = specrt::nat::invariance::probe_config(&config.config, 16).unwrap();
    eprintln!("probe: {probe:?}");
    assert!(probe.checks >= 40, "{probe:?}");
    let srv = start(dir.path(), "", 1, None);
    let v = client::get(srv.addr(), "/v1/models").unwrap().json();
    let batching = v["data"][0]["specrt"]["nat"]["batching"].as_str().unwrap().to_string();
    assert_eq!(batching.starts_with("off"), !probe.bitwise(), "{batching} vs {probe:?}");
    srv.shutdown();
}

/// HTTP and CLI give the same output for the same list of sentences.
#[test]
fn http_output_equals_the_cli_output() {
    let dir = tempfile::tempdir().unwrap();
    let sentences = pool(POOL.len());
    let file = dir.path().join("sentences.txt");
    std::fs::write(&file, sentences.join("\n")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_specrt"))
        .args(["generate", "--config", nat_config().to_str().unwrap(), "--prompt-file", file.to_str().unwrap()])
        .output()
        .expect("specrt runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cli: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    let srv = start(dir.path(), "", 1, None);
    let r = post(srv.addr(), "/v1/translations", json!({"model": NAT, "text": sentences}));
    let http: Vec<String> = r.json()["translations"].as_array().unwrap().iter().map(|t| t["text"].as_str().unwrap().to_string()).collect();
    assert_eq!(http.len(), sentences.len());
    assert_eq!(http, cli);
    srv.shutdown();
}
