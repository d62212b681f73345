//! The C ABI (engine/ffi/), called as a C host would: null pointers, invalid UTF-8, wrong option values, wrong
//! handle types, unknown result keys, cancellation from another thread and two threads generating on one
//! pipeline, each with its documented status and a readable `specrt_last_error()`. Uses the tiny random model.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use specrt::ffi::error::specrt_last_error;
use specrt::ffi::pipeline::*;
use specrt::ffi::request::*;
use specrt::ffi::result::*;
use specrt::ffi::specrt_status::{self, *};
use specrt::ffi::{specrt_abi_version, specrt_version, status::specrt_status_name, SPECRT_ABI_VERSION, SPECRT_MAX_SOURCES};

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(specrt_last_error()) }.to_str().unwrap().to_string()
}

/// Asserts `status` and that the last error mentions every fragment (or is empty for OK).
#[track_caller]
fn expect(status: specrt_status, want: specrt_status, fragments: &[&str]) {
    let err = last_error();
    assert_eq!(status, want, "last error: {err}");
    if want == SPECRT_OK {
        assert!(err.is_empty(), "OK must leave no error, found {err:?}");
    } else {
        assert!(!err.is_empty(), "{want:?} must come with a message");
        for f in fragments {
            assert!(err.contains(f), "error {err:?} should mention {f:?}");
        }
    }
}

const BAD_UTF8: &[u8] = b"caf\xc3(\xff\0";

fn bad_utf8() -> *const c_char {
    BAD_UTF8.as_ptr().cast()
}

fn root() -> CString {
    cs(env!("CARGO_MANIFEST_DIR"))
}

fn tiny_yaml(extra: &str) -> CString {
    cs(&format!("model: models/tiny-fp32\nbackend:\n  threads: 1\ngeneration:\n  max_tokens: 8\n{extra}"))
}

fn load(extra: &str) -> *mut specrt_pipeline {
    let mut p = null_mut();
    let st = unsafe { specrt_pipeline_load_yaml(tiny_yaml(extra).as_ptr(), root().as_ptr(), &mut p) };
    expect(st, SPECRT_OK, &[]);
    assert!(!p.is_null());
    p
}

fn request(prompt: &str, max_tokens: i64) -> *mut specrt_request {
    let mut r = null_mut();
    unsafe {
        expect(specrt_request_new(&mut r), SPECRT_OK, &[]);
        expect(specrt_request_set_prompt(r, cs(prompt).as_ptr()), SPECRT_OK, &[]);
        expect(specrt_request_set_max_tokens(r, max_tokens), SPECRT_OK, &[]);
        expect(specrt_request_set_ignore_eos(r, 1), SPECRT_OK, &[]);
    }
    r
}

/// Collects pieces; stops after `stop_after` pieces when set; sleeps `delay` per piece.
struct Collector {
    pieces: Vec<String>,
    stop_after: Option<usize>,
    delay: Duration,
    first_piece: Option<mpsc::Sender<()>>,
    times: Vec<Instant>,
}

impl Collector {
    fn new() -> Self {
        Collector { pieces: Vec::new(), stop_after: None, delay: Duration::ZERO, first_piece: None, times: Vec::new() }
    }
}

unsafe extern "C" fn collect(piece: *const c_char, len: usize, user: *mut c_void) -> c_int {
    let c = &mut *(user as *mut Collector);
    let bytes = std::slice::from_raw_parts(piece.cast::<u8>(), len);
    assert_eq!(*piece.add(len), 0, "pieces are NUL-terminated");
    c.pieces.push(std::str::from_utf8(bytes).expect("pieces are UTF-8").to_string());
    c.times.push(Instant::now());
    if let Some(tx) = c.first_piece.take() {
        let _ = tx.send(());
    }
    std::thread::sleep(c.delay);
    c_int::from(c.stop_after.is_some_and(|n| c.pieces.len() >= n))
}

fn generate(p: *const specrt_pipeline, r: *const specrt_request, c: &mut Collector) -> (specrt_status, *mut specrt_result) {
    let mut res = null_mut();
    let st = unsafe { specrt_generate(p, r, Some(collect), (c as *mut Collector).cast(), &mut res) };
    (st, res)
}

fn get_string(res: *const specrt_result, key: &str) -> String {
    let mut out = null();
    expect(unsafe { specrt_result_get_string(res, cs(key).as_ptr(), &mut out) }, SPECRT_OK, &[]);
    unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string()
}

fn get_i64(res: *const specrt_result, key: &str) -> i64 {
    let mut out = -1;
    expect(unsafe { specrt_result_get_i64(res, cs(key).as_ptr(), &mut out) }, SPECRT_OK, &[]);
    out
}

fn get_f64(res: *const specrt_result, key: &str) -> f64 {
    let mut out = f64::NAN;
    expect(unsafe { specrt_result_get_f64(res, cs(key).as_ptr(), &mut out) }, SPECRT_OK, &[]);
    out
}

#[test]
fn versions_and_status_names() {
    let v = unsafe { CStr::from_ptr(specrt_version()) }.to_str().unwrap();
    assert_eq!(v, env!("CARGO_PKG_VERSION"));
    assert_eq!(specrt_abi_version(), SPECRT_ABI_VERSION);
    let name = |s: c_int| unsafe { CStr::from_ptr(specrt_status_name(s)) }.to_str().unwrap().to_string();
    assert_eq!(name(0), "SPECRT_OK");
    assert_eq!(name(SPECRT_WRONG_HANDLE as c_int), "SPECRT_WRONG_HANDLE");
    assert_eq!(name(-1), "SPECRT_UNKNOWN");
    assert_eq!(name(9999), "SPECRT_UNKNOWN");
    assert_eq!(last_error(), "");
}

#[test]
fn load_errors() {
    let mut p = null_mut();
    unsafe {
        expect(specrt_pipeline_load_yaml(null(), root().as_ptr(), &mut p), SPECRT_NULL_ARGUMENT, &["specrt_pipeline_load_yaml", "yaml_utf8"]);
        expect(specrt_pipeline_load_yaml(tiny_yaml("").as_ptr(), root().as_ptr(), null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_pipeline_load_yaml(bad_utf8(), root().as_ptr(), &mut p), SPECRT_INVALID_UTF8, &["yaml_utf8", "UTF-8"]);
        expect(specrt_pipeline_load_yaml(tiny_yaml("").as_ptr(), bad_utf8(), &mut p), SPECRT_INVALID_UTF8, &["base_dir_utf8"]);
        expect(specrt_pipeline_load_yaml(cs("model: [unclosed").as_ptr(), root().as_ptr(), &mut p), SPECRT_CONFIG, &["<string>"]);
        expect(
            specrt_pipeline_load_yaml(cs("model: models/tiny-fp32\nbogus_key: 1\n").as_ptr(), root().as_ptr(), &mut p),
            SPECRT_CONFIG,
            &["bogus_key"],
        );
        expect(
            specrt_pipeline_load_yaml(cs("model: models/tiny-fp32\ngeneration:\n  top_p: 7\n").as_ptr(), root().as_ptr(), &mut p),
            SPECRT_CONFIG,
            &["top_p"],
        );
        let st = specrt_pipeline_load_yaml(cs("model: models/no-such-model\n").as_ptr(), root().as_ptr(), &mut p);
        assert!(matches!(st, SPECRT_MODEL | SPECRT_CONFIG | SPECRT_IO), "{st:?}: {}", last_error());
        assert!(last_error().contains("no-such-model"), "{}", last_error());
        assert!(p.is_null(), "out stays NULL on failure");

        expect(specrt_pipeline_load_file(null(), &mut p), SPECRT_NULL_ARGUMENT, &["path_utf8"]);
        expect(specrt_pipeline_load_file(cs("x.yaml").as_ptr(), null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_pipeline_load_file(bad_utf8(), &mut p), SPECRT_INVALID_UTF8, &["path_utf8"]);
        let st = specrt_pipeline_load_file(cs("/nonexistent/pipeline.yaml").as_ptr(), &mut p);
        assert!(matches!(st, SPECRT_IO | SPECRT_CONFIG), "{st:?}: {}", last_error());
        assert!(last_error().contains("/nonexistent/pipeline.yaml"), "{}", last_error());
        assert!(p.is_null());
    }
}

#[test]
fn load_file_and_generate() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("p.yaml");
    std::fs::write(&yaml, format!("model: {}/models/tiny-fp32\ngeneration:\n  max_tokens: 4\n", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut p = null_mut();
    expect(unsafe { specrt_pipeline_load_file(cs(yaml.to_str().unwrap()).as_ptr(), &mut p) }, SPECRT_OK, &[]);
    let r = request("hello", 4);
    let mut res = null_mut();
    // No callback is fine.
    expect(unsafe { specrt_generate(p, r, None, null_mut(), &mut res) }, SPECRT_OK, &[]);
    assert_eq!(get_i64(res, "new_tokens"), 4);
    unsafe {
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        expect(specrt_request_free(&mut (r as *mut _)), SPECRT_OK, &[]);
        expect(specrt_pipeline_free(&mut p), SPECRT_OK, &[]);
    }
}

#[test]
fn request_setters_check_arguments() {
    unsafe {
        expect(specrt_request_new(null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        let n: *mut specrt_request = null_mut();
        expect(specrt_request_set_prompt(n, cs("x").as_ptr()), SPECRT_NULL_ARGUMENT, &["specrt_request_set_prompt", "request"]);
        expect(specrt_request_set_chat(n, 1), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_max_tokens(n, 1), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_temperature(n, 0.0), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_top_p(n, 1.0), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_top_k(n, 0), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_seed(n, 0), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_ignore_eos(n, 0), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_add_stop(n, cs("x").as_ptr()), SPECRT_NULL_ARGUMENT, &["request"]);

        let mut r = null_mut();
        expect(specrt_request_new(&mut r), SPECRT_OK, &[]);
        expect(specrt_request_set_prompt(r, null()), SPECRT_NULL_ARGUMENT, &["prompt_utf8"]);
        expect(specrt_request_set_prompt(r, bad_utf8()), SPECRT_INVALID_UTF8, &["prompt_utf8", "offset 3"]);
        expect(specrt_request_set_prompt(r, cs("fine").as_ptr()), SPECRT_OK, &[]);
        expect(specrt_request_set_chat(r, 2), SPECRT_INVALID_ARGUMENT, &["chat", "0 or 1"]);
        expect(specrt_request_set_chat(r, 0), SPECRT_OK, &[]);
        expect(specrt_request_set_max_tokens(r, 0), SPECRT_INVALID_ARGUMENT, &["max_tokens"]);
        expect(specrt_request_set_max_tokens(r, -5), SPECRT_INVALID_ARGUMENT, &["max_tokens"]);
        expect(specrt_request_set_max_tokens(r, 10), SPECRT_OK, &[]);
        expect(specrt_request_set_temperature(r, -0.1), SPECRT_INVALID_ARGUMENT, &["temperature"]);
        expect(specrt_request_set_temperature(r, f64::NAN), SPECRT_INVALID_ARGUMENT, &["temperature"]);
        expect(specrt_request_set_temperature(r, f64::INFINITY), SPECRT_INVALID_ARGUMENT, &["temperature"]);
        expect(specrt_request_set_temperature(r, 0.7), SPECRT_OK, &[]);
        expect(specrt_request_set_top_p(r, 0.0), SPECRT_INVALID_ARGUMENT, &["top_p"]);
        expect(specrt_request_set_top_p(r, 1.5), SPECRT_INVALID_ARGUMENT, &["top_p"]);
        expect(specrt_request_set_top_p(r, f64::NAN), SPECRT_INVALID_ARGUMENT, &["top_p"]);
        expect(specrt_request_set_top_p(r, 0.9), SPECRT_OK, &[]);
        expect(specrt_request_set_top_k(r, -1), SPECRT_INVALID_ARGUMENT, &["top_k"]);
        expect(specrt_request_set_top_k(r, 40), SPECRT_OK, &[]);
        expect(specrt_request_set_seed(r, u64::MAX), SPECRT_OK, &[]);
        expect(specrt_request_set_ignore_eos(r, -1), SPECRT_INVALID_ARGUMENT, &["ignore_eos"]);
        expect(specrt_request_add_stop(r, null()), SPECRT_NULL_ARGUMENT, &["stop_utf8"]);
        expect(specrt_request_add_stop(r, bad_utf8()), SPECRT_INVALID_UTF8, &["stop_utf8"]);
        expect(specrt_request_add_stop(r, cs("").as_ptr()), SPECRT_INVALID_ARGUMENT, &["empty"]);
        expect(specrt_request_add_stop(r, cs("\n\n").as_ptr()), SPECRT_OK, &[]);

        expect(specrt_request_free(null_mut()), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_free(&mut r), SPECRT_OK, &[]);
        assert!(r.is_null(), "free nulls the caller's pointer");
        expect(specrt_request_free(&mut r), SPECRT_OK, &[]);
    }
}

#[test]
fn wrong_handle_types_are_detected() {
    let p = load("");
    let r = request("abc", 2);
    let mut res = null_mut();
    let mut c = Collector::new();
    unsafe {
        // A request where a pipeline is expected, and the other way round.
        expect(specrt_generate(r.cast(), r, None, null_mut(), &mut res), SPECRT_WRONG_HANDLE, &["pipeline", "specrt_request"]);
        expect(specrt_generate(p, p.cast(), None, null_mut(), &mut res), SPECRT_WRONG_HANDLE, &["request", "specrt_pipeline"]);
        expect(specrt_pipeline_cancel(r.cast()), SPECRT_WRONG_HANDLE, &["specrt_pipeline"]);
        expect(specrt_request_set_prompt(p.cast(), cs("x").as_ptr()), SPECRT_WRONG_HANDLE, &["specrt_request"]);
        let mut as_pipeline: *mut specrt_pipeline = r.cast();
        expect(specrt_pipeline_free(&mut as_pipeline), SPECRT_WRONG_HANDLE, &["specrt_pipeline", "specrt_request"]);
        assert!(!as_pipeline.is_null(), "a wrong handle is not freed");
        // A result where a pipeline or request is expected, and vice versa.
        let (st, res_ok) = generate(p, r, &mut c);
        expect(st, SPECRT_OK, &[]);
        expect(specrt_generate(res_ok.cast(), r, None, null_mut(), &mut res), SPECRT_WRONG_HANDLE, &["specrt_result"]);
        let mut out = null();
        expect(specrt_result_text(p.cast(), &mut out), SPECRT_WRONG_HANDLE, &["specrt_result", "specrt_pipeline"]);
        expect(specrt_result_get_f64(r.cast(), cs("tau").as_ptr(), &mut 0.0), SPECRT_WRONG_HANDLE, &["specrt_result"]);
        // A pointer to something that is not a handle at all.
        let junk = [0u64; 4];
        expect(specrt_pipeline_cancel(junk.as_ptr().cast()), SPECRT_WRONG_HANDLE, &["not a specrt handle"]);
        assert!(res.is_null());
        let mut res_ok = res_ok;
        specrt_result_free(&mut res_ok);
        specrt_request_free(&mut (r as *mut _));
        specrt_pipeline_free(&mut (p as *mut _));
    }
}

/// Whether two JSON values are equal, numbers within a relative 1e-12 (serde_json's default float parsing may
/// differ from the printed value in the last bit).
fn json_close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * y.abs().max(1.0),
            _ => x == y,
        },
        (V::Array(x), V::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_close(x, y)),
        (V::Object(x), V::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_close(v, w))),
        _ => a == b,
    }
}

#[test]
fn generate_streams_and_reports_every_statistic() {
    let p = load("");
    let r = request("The quick brown fox", 6);
    let mut c = Collector::new();
    let (st, mut res) = generate(p, r, &mut c);
    expect(st, SPECRT_OK, &[]);
    unsafe {
        let mut text = null();
        expect(specrt_result_text(res, &mut text), SPECRT_OK, &[]);
        let text = CStr::from_ptr(text).to_str().unwrap().to_string();
        assert_eq!(text, c.pieces.concat(), "streamed pieces add up to the text");
        let mut len = 0usize;
        expect(specrt_result_text_len(res, &mut len), SPECRT_OK, &[]);
        assert_eq!(len, text.len());
        assert_eq!(get_string(res, "text"), text);
    }
    assert_eq!(get_string(res, "finish_reason"), "length");
    assert_eq!(get_string(res, "strategy"), "ar");
    assert_eq!(get_i64(res, "new_tokens"), 6);
    assert!(get_i64(res, "prompt_tokens") > 0);
    assert_eq!(get_f64(res, "tau"), 1.0);
    assert_eq!(get_f64(res, "acceptance_rate"), 0.0);
    assert!(get_f64(res, "decode_tokens_per_second") > 0.0);
    assert_eq!(get_f64(res, "new_tokens"), 6.0, "integers read as doubles too");
    // Every statistic of Stats::to_json is a key.
    let json: serde_json::Value = serde_json::from_str(&get_string(res, "stats_json")).unwrap();
    for (key, value) in json.as_object().unwrap() {
        match value {
            // serde_json's default float parsing may differ from the printed value in the last bit.
            serde_json::Value::Number(n) => {
                let (got, want) = (get_f64(res, key), n.as_f64().unwrap());
                assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "{key}: {got} vs {want}");
            }
            serde_json::Value::String(s) => assert_eq!(&get_string(res, key), s, "{key}"),
            // Arrays and objects (e.g. `target_passes`) come back as JSON text: compared as values, numbers within
            // the same last-bit tolerance (a mean in milliseconds printed as ...00000005 parses back as ...0000001).
            other => {
                let got: serde_json::Value = serde_json::from_str(&get_string(res, key)).unwrap();
                assert!(json_close(&got, other), "{key}: {got} vs {other}");
            }
        }
    }
    let (a, b) = (serde_json::json!([{"calls": 5, "mean_ms": 0.05}]), serde_json::json!([{"calls": 5, "mean_ms": 0.0500001}]));
    assert!(!json_close(&a, &b), "the comparison still tells different values apart");
    unsafe {
        let (mut f, mut i, mut s) = (0.0, 0i64, null());
        expect(specrt_result_get_f64(res, cs("no_such_key").as_ptr(), &mut f), SPECRT_INVALID_ARGUMENT, &["unknown result key `no_such_key`", "tau"]);
        expect(specrt_result_get_i64(res, cs("no_such_key").as_ptr(), &mut i), SPECRT_INVALID_ARGUMENT, &["unknown result key"]);
        expect(specrt_result_get_string(res, cs("no_such_key").as_ptr(), &mut s), SPECRT_INVALID_ARGUMENT, &["unknown result key", "finish_reason"]);
        expect(specrt_result_get_i64(res, cs("tau").as_ptr(), &mut i), SPECRT_INVALID_ARGUMENT, &["specrt_result_get_f64"]);
        expect(specrt_result_get_f64(res, cs("strategy").as_ptr(), &mut f), SPECRT_INVALID_ARGUMENT, &["specrt_result_get_string"]);
        expect(specrt_result_get_string(res, cs("tau").as_ptr(), &mut s), SPECRT_INVALID_ARGUMENT, &["is a number"]);
        expect(specrt_result_get_f64(res, null(), &mut f), SPECRT_NULL_ARGUMENT, &["key_utf8"]);
        expect(specrt_result_get_f64(res, bad_utf8(), &mut f), SPECRT_INVALID_UTF8, &["key_utf8"]);
        expect(specrt_result_get_f64(res, cs("tau").as_ptr(), null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_result_get_i64(null(), cs("tau").as_ptr(), &mut i), SPECRT_NULL_ARGUMENT, &["result"]);
        expect(specrt_result_get_string(res, cs("text").as_ptr(), null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_result_text(res, null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_result_text(null(), &mut s), SPECRT_NULL_ARGUMENT, &["result"]);
        expect(specrt_result_text_len(res, null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_result_free(null_mut()), SPECRT_NULL_ARGUMENT, &["result"]);
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        assert!(res.is_null());
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        specrt_request_free(&mut (r as *mut _));
        specrt_pipeline_free(&mut (p as *mut _));
    }
}

#[test]
fn generate_errors() {
    let p = load("context_length: 16\n");
    let mut res = null_mut();
    unsafe {
        let mut r = null_mut();
        expect(specrt_request_new(&mut r), SPECRT_OK, &[]);
        expect(specrt_generate(p, r, None, null_mut(), &mut res), SPECRT_INVALID_ARGUMENT, &["no prompt"]);
        expect(specrt_generate(null(), r, None, null_mut(), &mut res), SPECRT_NULL_ARGUMENT, &["pipeline"]);
        expect(specrt_generate(p, null(), None, null_mut(), &mut res), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_prompt(r, cs("hi").as_ptr()), SPECRT_OK, &[]);
        expect(specrt_generate(p, r, None, null_mut(), null_mut()), SPECRT_NULL_ARGUMENT, &["out_result"]);
        let long = "word ".repeat(200);
        expect(specrt_request_set_prompt(r, cs(&long).as_ptr()), SPECRT_OK, &[]);
        expect(specrt_generate(p, r, None, null_mut(), &mut res), SPECRT_PROMPT_TOO_LONG, &["context holds 16"]);
        assert!(res.is_null());
        expect(specrt_pipeline_cancel(null()), SPECRT_NULL_ARGUMENT, &["pipeline"]);
        expect(specrt_pipeline_free(null_mut()), SPECRT_NULL_ARGUMENT, &["pipeline"]);
        let mut p = p;
        expect(specrt_pipeline_free(&mut p), SPECRT_OK, &[]);
        assert!(p.is_null());
        expect(specrt_pipeline_free(&mut p), SPECRT_OK, &[]);
        specrt_request_free(&mut r);
    }
}

#[test]
fn callback_can_stop_generation() {
    let p = load("");
    let r = request("once upon a time", 50);
    let mut c = Collector::new();
    c.stop_after = Some(2);
    let (st, mut res) = generate(p, r, &mut c);
    expect(st, SPECRT_OK, &[]);
    assert_eq!(c.pieces.len(), 2);
    assert_eq!(get_string(res, "finish_reason"), "cancelled");
    assert!(get_i64(res, "new_tokens") < 50);
    unsafe {
        specrt_result_free(&mut res);
        specrt_request_free(&mut (r as *mut _));
        specrt_pipeline_free(&mut (p as *mut _));
    }
}

struct SendPtr<T>(*mut T);
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

#[test]
fn cancel_from_another_thread() {
    let p = SendPtr(load("context_length: 1024\n"));
    let r = request("cancel me", 1000);
    let (tx, rx) = mpsc::channel();
    let mut c = Collector::new();
    c.delay = Duration::from_millis(5);
    c.first_piece = Some(tx);
    let canceller = {
        let p = SendPtr(p.0);
        std::thread::spawn(move || {
            let p = p;
            rx.recv().unwrap();
            let st = unsafe { specrt_pipeline_cancel(p.0) };
            (st, last_error())
        })
    };
    let (st, mut res) = generate(p.0, r, &mut c);
    expect(st, SPECRT_OK, &[]);
    let (cancel_status, cancel_error) = canceller.join().unwrap();
    assert_eq!(cancel_status, SPECRT_OK, "{cancel_error}");
    assert_eq!(get_string(res, "finish_reason"), "cancelled");
    let n = get_i64(res, "new_tokens");
    assert!((1..1000).contains(&n), "stopped early: {n} tokens");
    unsafe { specrt_result_free(&mut res) };
    // The flag is reset for the next generation.
    let r2 = request("again", 3);
    let (st, mut res) = generate(p.0, r2, &mut Collector::new());
    expect(st, SPECRT_OK, &[]);
    assert_eq!(get_string(res, "finish_reason"), "length");
    unsafe {
        specrt_result_free(&mut res);
        specrt_request_free(&mut (r as *mut _));
        specrt_request_free(&mut (r2 as *mut _));
        specrt_pipeline_free(&mut (p.0 as *mut _));
    }
}

#[test]
fn two_threads_generate_on_one_pipeline_one_after_another() {
    let p = Arc::new(SendPtr(load("")));
    let spans = Arc::new(Mutex::new(Vec::new()));
    let texts = Arc::new(Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (p, spans, texts) = (p.clone(), spans.clone(), texts.clone());
            std::thread::spawn(move || {
                let r = request("the same prompt", 12);
                let mut c = Collector::new();
                c.delay = Duration::from_millis(3);
                let start = Instant::now();
                let (st, mut res) = generate(p.0, r, &mut c);
                expect(st, SPECRT_OK, &[]);
                spans.lock().unwrap().push((c.times[0], *c.times.last().unwrap(), start));
                texts.lock().unwrap().push(get_string(res, "text"));
                unsafe {
                    specrt_result_free(&mut res);
                    specrt_request_free(&mut (r as *mut _));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut spans = spans.lock().unwrap().clone();
    spans.sort();
    assert!(spans[0].1 < spans[1].0, "the two generations overlapped: {spans:?}");
    let texts = texts.lock().unwrap();
    assert_eq!(texts[0], texts[1], "greedy output does not depend on the other thread");
    unsafe { specrt_pipeline_free(&mut (p.0 as *mut _)) };
}

/// What a re-entering callback does and records: the status and message of each call it makes on the pipeline
/// that is calling it.
struct Reenter {
    pipeline: *mut specrt_pipeline,
    request: *const specrt_request,
    free_instead: bool,
    seen: Vec<(specrt_status, String, bool)>,
}

unsafe extern "C" fn reenter(_: *const c_char, _: usize, user: *mut c_void) -> c_int {
    let r = &mut *(user as *mut Reenter);
    if r.free_instead {
        let mut p = r.pipeline;
        let st = specrt_pipeline_free(&mut p);
        r.seen.push((st, last_error(), p == r.pipeline));
    } else {
        let mut res = null_mut();
        let st = specrt_generate(r.pipeline, r.request, None, null_mut(), &mut res);
        r.seen.push((st, last_error(), res.is_null()));
    }
    // Cancelling from the callback is allowed (it takes no lock).
    let st = specrt_pipeline_cancel(r.pipeline);
    r.seen.push((st, last_error(), true));
    0
}

/// Runs a generation whose callback calls back into the same pipeline, on a thread, so that a deadlock fails
/// the test (after a minute) instead of hanging it. Returns what the callback saw and the generation's status.
fn run_reentering(free_instead: bool) -> (Vec<(specrt_status, String, bool)>, specrt_status, String) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let p = load("");
        let r = request("re-enter", 3);
        let mut state = Reenter { pipeline: p, request: r, free_instead, seen: Vec::new() };
        let mut res = null_mut();
        let st = unsafe { specrt_generate(p, r, Some(reenter), (&mut state as *mut Reenter).cast(), &mut res) };
        let finish = if st == SPECRT_OK { get_string(res, "finish_reason") } else { last_error() };
        // The pipeline is still usable, and can be freed once the generation has returned.
        let r2 = request("after", 2);
        let (st2, mut res2) = generate(p, r2, &mut Collector::new());
        expect(st2, SPECRT_OK, &[]);
        unsafe {
            specrt_result_free(&mut res);
            specrt_result_free(&mut res2);
            specrt_request_free(&mut (r as *mut _));
            specrt_request_free(&mut (r2 as *mut _));
            expect(specrt_pipeline_free(&mut (p as *mut _)), SPECRT_OK, &[]);
        }
        let _ = tx.send((state.seen, st, finish));
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("a call from inside the stream callback deadlocked (or the thread panicked)")
}

/// Issue 17 item 1: `specrt_generate` on the same pipeline from inside its own callback waited forever for the
/// pipeline's mutex; it returns SPECRT_REENTRANT with a message, and the outer generation goes on.
#[test]
fn generate_inside_its_own_callback_is_refused() {
    let (seen, st, finish) = run_reentering(false);
    assert_eq!(st, SPECRT_OK, "{finish}");
    assert_eq!(finish, "cancelled", "the callback's cancel stops the outer generation");
    let (inner, message, no_result) = &seen[0];
    assert_eq!(*inner, SPECRT_REENTRANT, "{message}");
    assert!(message.contains("specrt_generate") && message.contains("stream callback"), "{message}");
    assert!(no_result, "no result on SPECRT_REENTRANT");
    assert_eq!(seen[1].0, SPECRT_OK, "cancel from the callback: {}", seen[1].1);
}

/// Issue 17 item 2 (inside the callback): freeing the pipeline from its own callback returned OK and the running
/// generation then failed on freed memory; it is refused with SPECRT_REENTRANT and the pointer is left alone.
#[test]
fn free_inside_its_own_callback_is_refused() {
    let (seen, st, finish) = run_reentering(true);
    assert_eq!(st, SPECRT_OK, "{finish}");
    let (inner, message, untouched) = &seen[0];
    assert_eq!(*inner, SPECRT_REENTRANT, "{message}");
    assert!(message.contains("specrt_pipeline_free"), "{message}");
    assert!(untouched, "a refused free leaves the caller's pointer as it was");
}

/// Issue 17 item 2 (another thread): freeing a pipeline while it generates crashed inside ONNX Runtime. Free
/// cancels the running generation (it returns OK, "cancelled"), makes a call waiting for the pipeline return
/// SPECRT_CANCELLED, waits for both, and only then frees.
#[test]
fn free_from_another_thread_waits_for_the_running_generation() {
    let p = SendPtr(load(
        "context_length: 1024
",
    ));
    let r = SendPtr(request("free me", 1000));
    let (first_tx, first_rx) = mpsc::channel();
    let (queued_tx, queued_rx) = mpsc::channel();
    // A second call that waits for the pipeline's mutex while the first generation runs.
    let waiter = {
        let (p, r) = (SendPtr(p.0), SendPtr(r.0));
        std::thread::spawn(move || {
            let (p, r) = (p, r);
            first_rx.recv().unwrap();
            queued_tx.send(()).unwrap();
            let mut res = null_mut();
            let st = unsafe { specrt_generate(p.0, r.0, None, null_mut(), &mut res) };
            (st, last_error(), res.is_null())
        })
    };
    let freer = {
        let p = SendPtr(p.0);
        std::thread::spawn(move || {
            let mut p = p;
            queued_rx.recv().unwrap();
            // Give the waiter time to block on the pipeline (it is counted once it is inside specrt_generate).
            std::thread::sleep(Duration::from_millis(300));
            let st = unsafe { specrt_pipeline_free(&mut p.0) };
            (st, last_error(), p.0.is_null(), Instant::now())
        })
    };
    let mut c = Collector::new();
    c.delay = Duration::from_millis(5);
    c.first_piece = Some(first_tx);
    let (st, mut res) = generate(p.0, r.0, &mut c);
    expect(st, SPECRT_OK, &[]);
    assert_eq!(get_string(res, "finish_reason"), "cancelled");
    assert!(get_i64(res, "new_tokens") < 1000);
    let (free_status, free_error, nulled, freed_at) = freer.join().unwrap();
    assert_eq!(free_status, SPECRT_OK, "{free_error}");
    assert!(nulled, "free nulls the caller's pointer");
    assert!(freed_at >= *c.times.last().unwrap(), "free returned before the generation it cancelled had ended");
    let (waiter_status, waiter_error, no_result) = waiter.join().unwrap();
    assert_eq!(waiter_status, SPECRT_CANCELLED, "{waiter_error}");
    assert!(waiter_error.contains("freed"), "{waiter_error}");
    assert!(no_result);
    unsafe {
        specrt_result_free(&mut res);
        specrt_request_free(&mut (r.0 as *mut _));
    }
}

#[test]
fn last_error_is_per_thread() {
    unsafe { specrt_request_new(null_mut()) };
    assert!(!last_error().is_empty());
    let other = std::thread::spawn(last_error).join().unwrap();
    assert_eq!(other, "");
    let mut r = null_mut();
    unsafe { specrt_request_new(&mut r) };
    assert_eq!(last_error(), "", "a successful call clears the message");
    unsafe { specrt_request_free(&mut r) };
}

/// Seeded random calls for a few seconds: random bytes as strings (often invalid UTF-8), random NULLs, handles
/// of random (often wrong) types, random numbers including NaN and infinities. Nothing may crash or panic, every
/// status must be a documented one, and a message must accompany every failure.
#[test]
fn fuzz_entry_points_with_random_arguments() {
    use rand::{Rng, RngCore, SeedableRng};
    let seed = std::env::var("SPECRT_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_u64);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let pipeline = load("context_length: 64\n");
    let mut requests: Vec<*mut specrt_request> = (0..3).map(|_| request("seed prompt", 4)).collect();
    let mut results: Vec<*mut specrt_result> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut calls = 0usize;

    fn random_string(rng: &mut impl RngCore) -> Vec<u8> {
        let len = rng.random_range(0..24);
        let mut bytes: Vec<u8> = (0..len)
            .map(|_| match rng.random_range(0..4) {
                0 => rng.random::<u8>(),
                _ => rng.random_range(b' '..=b'~'),
            })
            .filter(|&b| b != 0)
            .collect();
        if rng.random_bool(0.2) {
            bytes.extend_from_slice("tau".as_bytes());
        }
        bytes.push(0);
        bytes
    }
    unsafe extern "C" fn stop_soon(_: *const c_char, _: usize, user: *mut c_void) -> c_int {
        let n = &mut *(user as *mut usize);
        *n += 1;
        c_int::from(*n >= 4)
    }

    while Instant::now() < deadline {
        calls += 1;
        let s = random_string(&mut rng);
        let sp: *const c_char = if rng.random_bool(0.1) { null() } else { s.as_ptr().cast() };
        // A handle of any kind (or NULL) for any handle argument.
        let any = |rng: &mut rand_chacha::ChaCha8Rng| -> *mut c_void {
            match rng.random_range(0..4) {
                0 => null_mut(),
                1 => pipeline.cast(),
                2 => requests[rng.random_range(0..requests.len())].cast(),
                _ => results.last().map_or(null_mut(), |r| r.cast()),
            }
        };
        let number = match rng.random_range(0..4) {
            0 => f64::from_bits(rng.random()),
            1 => [f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0, 0.0, 1.0][rng.random_range(0..6)],
            _ => rng.random_range(-2.0..2.0),
        };
        let int = match rng.random_range(0..3) {
            0 => rng.random::<i64>(),
            _ => rng.random_range(-3..20),
        };
        let st = unsafe {
            match rng.random_range(0..19) {
                0 => specrt_request_set_prompt(any(&mut rng).cast(), sp),
                1 => specrt_request_set_chat(any(&mut rng).cast(), int as c_int),
                2 => specrt_request_set_max_tokens(any(&mut rng).cast(), int),
                3 => specrt_request_set_temperature(any(&mut rng).cast(), number),
                4 => specrt_request_set_top_p(any(&mut rng).cast(), number),
                5 => specrt_request_set_top_k(any(&mut rng).cast(), int),
                6 => specrt_request_set_seed(any(&mut rng).cast(), int as u64),
                7 => specrt_request_add_stop(any(&mut rng).cast(), sp),
                8 => specrt_request_set_ignore_eos(any(&mut rng).cast(), int as c_int),
                9 | 10 => {
                    let mut n = 0usize;
                    let mut out: *mut specrt_result = null_mut();
                    let out_ptr = if rng.random_bool(0.1) { null_mut() } else { &mut out as *mut _ };
                    let st = specrt_generate(any(&mut rng).cast(), any(&mut rng).cast(), Some(stop_soon), (&mut n as *mut usize).cast(), out_ptr);
                    if !out.is_null() {
                        results.push(out);
                    }
                    st
                }
                11 => {
                    let mut f = 0.0;
                    specrt_result_get_f64(any(&mut rng).cast(), sp, if rng.random_bool(0.1) { null_mut() } else { &mut f })
                }
                12 => {
                    let mut i = 0;
                    specrt_result_get_i64(any(&mut rng).cast(), sp, &mut i)
                }
                13 => {
                    let mut o = null();
                    let st = specrt_result_get_string(any(&mut rng).cast(), sp, &mut o);
                    if st == SPECRT_OK {
                        assert!(CStr::from_ptr(o).to_str().is_ok());
                    }
                    st
                }
                14 => {
                    let mut p = null_mut();
                    let st = specrt_pipeline_load_yaml(sp, null(), &mut p);
                    assert!(p.is_null(), "random YAML does not load");
                    st
                }
                15 => {
                    // 0..=3 random sentences, NULL entries and invalid UTF-8 included; count never past the array.
                    let texts: Vec<Vec<u8>> = (0..3).map(|_| random_string(&mut rng)).collect();
                    let ptrs: Vec<*const c_char> = texts.iter().map(|t| if rng.random_bool(0.2) { null() } else { t.as_ptr().cast() }).collect();
                    let array = if rng.random_bool(0.1) { null() } else { ptrs.as_ptr() };
                    specrt_request_set_sources(any(&mut rng).cast(), array, rng.random_range(0..=3))
                }
                16 => {
                    let mut n = 0usize;
                    specrt_result_output_count(any(&mut rng).cast(), if rng.random_bool(0.1) { null_mut() } else { &mut n })
                }
                17 => {
                    let (mut o, mut len) = (null(), 0usize);
                    let st = specrt_result_output_text(any(&mut rng).cast(), rng.random_range(0..3), &mut o, &mut len);
                    if st == SPECRT_OK {
                        assert!(CStr::from_ptr(o).to_str().is_ok());
                    }
                    st
                }
                _ => {
                    // Free a result, or a request (replaced), or try to free a handle as the wrong type.
                    match rng.random_range(0..3) {
                        0 if !results.is_empty() => {
                            let mut r = results.swap_remove(rng.random_range(0..results.len()));
                            specrt_result_free(&mut r)
                        }
                        1 => {
                            let i = rng.random_range(0..requests.len());
                            let st = specrt_request_free(&mut requests[i]);
                            requests[i] = request("fresh", 3);
                            st
                        }
                        _ => {
                            let mut p: *mut specrt_pipeline = requests[0].cast();
                            specrt_pipeline_free(&mut p)
                        }
                    }
                }
            }
        };
        let err = last_error();
        assert!((st as i32) >= 0 && (st as i32) <= SPECRT_BUSY as i32);
        assert_ne!(st, SPECRT_PANIC, "call {calls} (seed {seed}) panicked: {err}");
        assert_eq!(st == SPECRT_OK, err.is_empty(), "call {calls}: status {st:?} with message {err:?}");
    }
    eprintln!("fuzz: {calls} calls, {} results alive", results.len());
    unsafe {
        for mut r in results {
            expect(specrt_result_free(&mut r), SPECRT_OK, &[]);
        }
        for mut r in requests {
            expect(specrt_request_free(&mut r), SPECRT_OK, &[]);
        }
        specrt_pipeline_free(&mut (pipeline as *mut _));
    }
}

// ---- NAT (translation) pipelines: a batch of sentences, one output each ----------------------------------------

fn nat_yaml() -> CString {
    cs("model: models/tiny-ctc-nat\nbackend:\n  threads: 1\nstrategy:\n  kind: nat\n  batch_size: 4\n")
}

fn load_nat() -> *mut specrt_pipeline {
    let mut p = null_mut();
    expect(unsafe { specrt_pipeline_load_yaml(nat_yaml().as_ptr(), root().as_ptr(), &mut p) }, SPECRT_OK, &[]);
    p
}

/// Output `i` of a result: Ok(text) or Err((status, last error)).
fn output(res: *const specrt_result, i: usize) -> Result<String, (specrt_status, String)> {
    let (mut text, mut len) = (null(), usize::MAX);
    let st = unsafe { specrt_result_output_text(res, i, &mut text, &mut len) };
    if st != SPECRT_OK {
        assert!(text.is_null(), "a failed output hands out no text");
        return Err((st, last_error()));
    }
    let s = unsafe { CStr::from_ptr(text) }.to_str().unwrap().to_string();
    assert_eq!(s.len(), len);
    Ok(s)
}

fn output_count(res: *const specrt_result) -> usize {
    let mut n = usize::MAX;
    expect(unsafe { specrt_result_output_count(res, &mut n) }, SPECRT_OK, &[]);
    n
}

#[test]
fn nat_translates_a_batch_and_a_bad_sentence_fails_alone() {
    let mut p = load_nat();
    let too_many_tokens = "word ".repeat(200); // 200 tokens at least, more than the tiny model's 128 positions
    let too_many_bytes = "x".repeat(1 << 20); // refused before tokenizing (128 bytes per position at most)
    let sentences: Vec<Option<CString>> = vec![
        Some(cs("The committee approved the report.")),
        None,
        Some(CString::from_vec_with_nul(BAD_UTF8.to_vec()).unwrap()),
        Some(cs("   ")),
        Some(cs(&too_many_tokens)),
        Some(cs(&too_many_bytes)),
        Some(cs("Another sentence, a little longer than the first one.")),
        Some(cs("Short.")),
    ];
    let ptrs: Vec<*const c_char> = sentences.iter().map(|s| s.as_ref().map_or(null(), |s| s.as_ptr())).collect();
    let mut r = null_mut();
    let mut res = null_mut();
    unsafe {
        expect(specrt_request_new(&mut r), SPECRT_OK, &[]);
        expect(specrt_request_set_sources(r, ptrs.as_ptr(), ptrs.len()), SPECRT_OK, &[]);
        expect(specrt_generate(p, r, None, null_mut(), &mut res), SPECRT_OK, &[]);
    }
    assert_eq!(output_count(res), 8);
    let errors = [
        (1, SPECRT_NULL_ARGUMENT, "sentence 1 is NULL"),
        (2, SPECRT_INVALID_UTF8, "sentence 2 is not valid UTF-8 (invalid byte at offset 3)"),
        (3, SPECRT_INVALID_ARGUMENT, "sentence 3: the source text is empty"),
        (4, SPECRT_INVALID_ARGUMENT, "sentence 4 has"),
        (5, SPECRT_INVALID_ARGUMENT, "sentence 5 has 1048576 bytes"),
    ];
    for (i, status, message) in errors {
        let (st, err) = output(res, i).expect_err("a bad sentence fails");
        assert_eq!(st, status, "sentence {i}: {err}");
        assert!(err.contains(message), "sentence {i}: {err:?} should contain {message:?}");
    }
    // The good sentences come out as the engine translates them alone, as if the bad ones were not there.
    let good = vec![sentences[0].clone(), sentences[6].clone(), sentences[7].clone()];
    let good: Vec<String> = good.into_iter().map(|s| s.unwrap().into_string().unwrap()).collect();
    let config = specrt::config::parse_str(nat_yaml().to_str().unwrap(), "<string>", std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let engine = specrt::nat::NatPipeline::from_config(config).unwrap().translate(&good).unwrap();
    for (i, want) in [0, 6, 7].into_iter().zip(&engine) {
        assert_eq!(output(res, i).expect("a good sentence is translated"), want.text, "sentence {i}");
    }
    assert_eq!(get_i64(res, "sentences"), 8);
    assert_eq!(get_i64(res, "failed_sentences"), 5);
    assert_eq!(get_i64(res, "new_tokens"), engine.iter().map(|t| t.tokens.len() as i64).sum::<i64>());
    assert_eq!(get_string(res, "strategy"), "nat");
    assert_eq!(get_string(res, "decode"), "greedy");
    let lines = [engine[0].text.as_str(), "", "", "", "", "", engine[1].text.as_str(), engine[2].text.as_str()];
    assert_eq!(get_string(res, "text"), lines.join("\n"), "text: one line per sentence, a failed one empty");
    let per_sentence: serde_json::Value = serde_json::from_str(&get_string(res, "outputs_json")).unwrap();
    assert_eq!(per_sentence[2]["status"], "SPECRT_INVALID_UTF8");
    assert_eq!(per_sentence[7]["text"], engine[2].text.as_str());
    unsafe {
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        expect(specrt_request_free(&mut r), SPECRT_OK, &[]);
        expect(specrt_pipeline_free(&mut p), SPECRT_OK, &[]);
    }
}

#[test]
fn nat_request_errors_are_the_calls_own() {
    let mut nat = load_nat();
    let mut decoder = load("");
    let one = [c"One sentence.".as_ptr()];
    let mut r = null_mut();
    let mut res = null_mut();
    unsafe {
        expect(specrt_request_new(&mut r), SPECRT_OK, &[]);
        expect(specrt_request_set_sources(null_mut(), one.as_ptr(), 1), SPECRT_NULL_ARGUMENT, &["request"]);
        expect(specrt_request_set_sources(r, one.as_ptr(), 0), SPECRT_INVALID_ARGUMENT, &["no sentences"]);
        expect(specrt_request_set_sources(r, null(), 1), SPECRT_NULL_ARGUMENT, &["sources_utf8"]);
        // The count is checked before the array is read.
        expect(specrt_request_set_sources(r, one.as_ptr(), SPECRT_MAX_SOURCES + 1), SPECRT_INVALID_ARGUMENT, &["SPECRT_MAX_SOURCES (4096)"]);

        // No sentences at all (refused calls above left the request without sources).
        expect(specrt_generate(nat, r, None, null_mut(), &mut res), SPECRT_INVALID_ARGUMENT, &["no sentences to translate"]);
        assert!(res.is_null());
        // A prompt is read as the CLI reads it: one sentence per non-empty line.
        expect(specrt_request_set_prompt(r, c"First line.\n\n  \nSecond line.\n".as_ptr()), SPECRT_OK, &[]);
        expect(specrt_generate(nat, r, None, null_mut(), &mut res), SPECRT_OK, &[]);
        assert_eq!(output_count(res), 2);
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        let many = "a\n".repeat(SPECRT_MAX_SOURCES + 1);
        expect(specrt_request_set_prompt(r, cs(&many).as_ptr()), SPECRT_OK, &[]);
        expect(specrt_generate(nat, r, None, null_mut(), &mut res), SPECRT_INVALID_ARGUMENT, &["4097 lines", "SPECRT_MAX_SOURCES"]);

        expect(specrt_request_set_sources(r, one.as_ptr(), 1), SPECRT_OK, &[]);
        expect(specrt_request_set_temperature(r, 0.5), SPECRT_OK, &[]);
        expect(specrt_generate(nat, r, None, null_mut(), &mut res), SPECRT_INVALID_ARGUMENT, &["deterministically", "temperature 0.5"]);
        expect(specrt_request_set_temperature(r, 0.0), SPECRT_OK, &[]);
        // Sources are for NAT pipelines only.
        expect(specrt_generate(decoder, r, None, null_mut(), &mut res), SPECRT_INVALID_ARGUMENT, &["decoder pipeline", "NAT"]);
        assert!(res.is_null());

        expect(specrt_generate(nat, r, None, null_mut(), &mut res), SPECRT_OK, &[]);
        let (mut text, mut len) = (null(), 0usize);
        expect(specrt_result_output_text(res, 1, &mut text, &mut len), SPECRT_INVALID_ARGUMENT, &["index 1 is out of range", "1 outputs"]);
        expect(specrt_result_output_text(res, 0, null_mut(), &mut len), SPECRT_NULL_ARGUMENT, &["out_text"]);
        expect(specrt_result_output_text(res, 0, &mut text, null_mut()), SPECRT_OK, &[]);
        expect(specrt_result_output_count(res, null_mut()), SPECRT_NULL_ARGUMENT, &["out"]);
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        expect(specrt_request_free(&mut r), SPECRT_OK, &[]);
    }
    // A decoder result has one output: its text.
    let mut r = request("hello", 4);
    let mut c = Collector::new();
    let (st, mut res) = generate(decoder, r, &mut c);
    expect(st, SPECRT_OK, &[]);
    assert_eq!(output_count(res), 1);
    assert_eq!(output(res, 0).unwrap(), get_string(res, "text"));
    unsafe {
        expect(specrt_result_free(&mut res), SPECRT_OK, &[]);
        expect(specrt_request_free(&mut r), SPECRT_OK, &[]);
        expect(specrt_pipeline_free(&mut nat), SPECRT_OK, &[]);
        expect(specrt_pipeline_free(&mut decoder), SPECRT_OK, &[]);
    }
}
