//! NAT pipelines over HTTP: `/v1/completions` with a NAT pipeline as `model` (`prompt`: one sentence or a list,
//! one choice per sentence) and the batch form `/v1/translations` (`text`: a sentence or a list, DeepL-style).
//! Request-level problems (no sentences, more than `max_sentences_per_request`, wrong types, sampling or
//! streaming asked of a deterministic one-pass model) answer 4xx; a bad sentence in a list (empty, over
//! `max_sentence_bytes`, more tokens than the model's positions) is an error in its own item only, never failing
//! the others. docs/SERVER.md "NAT pipelines" has the shapes.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use axum::response::Response;
use serde_json::{json, Map, Value};
use tokio::time::Instant as TokioInstant;

use super::api::{self, ApiError, Endpoint};
use super::cancel::{self, CancelCause};
use super::events::{next_event, CancelOnDrop};
use super::handler::{json_response, submit, unix_now, Pending};
use super::job::{Control, Event, Job, Work};
use super::state::AppState;
use super::worker::{NatInfo, PipelineHandle};
use crate::nat::Translation;

/// The sentences of a request and whether they came as a list (a single string answers its error as the
/// request's error, like any completion; a list answers per item).
struct Sentences {
    items: Vec<String>,
    listed: bool,
}

/// `prompt` (completions) or `text` (translations): a string or a non-empty list of strings, within the limits.
fn parse_sentences(obj: &Map<String, Value>, key: &str, nat: &NatInfo) -> Result<Sentences, ApiError> {
    let v = api::field(obj, key).ok_or_else(|| ApiError::invalid(Some(key), "missing_field", format!("`{key}` is required")))?;
    let (items, listed) = match v {
        Value::String(s) => (vec![s.clone()], false),
        Value::Array(items) => {
            if items.is_empty() {
                return Err(ApiError::invalid(Some(key), "invalid_value", format!("`{key}` is an empty list: give at least one sentence")));
            }
            if items.len() > nat.max_sentences_per_request {
                return Err(ApiError::invalid(
                    Some(key),
                    "too_many_sentences",
                    format!(
                        "`{key}` has {} sentences; this pipeline takes at most {} per request (max_sentences_per_request): split the list",
                        items.len(),
                        nat.max_sentences_per_request
                    ),
                ));
            }
            let strings = items
                .iter()
                .enumerate()
                .map(|(i, v)| v.as_str().map(str::to_string).ok_or_else(|| api::type_error(&format!("{key}[{i}]"), "a string", v)))
                .collect::<Result<Vec<_>, _>>()?;
            (strings, true)
        }
        v => return Err(api::type_error(key, "a string or a list of strings", v)),
    };
    Ok(Sentences { items, listed })
}

/// Fields a NAT pipeline cannot honour are refused rather than ignored: it decodes deterministically in one pass.
fn refuse_generation_fields(obj: &Map<String, Value>) -> Result<(), ApiError> {
    if api::get_float(obj, "temperature")?.is_some_and(|t| t > 0.0) {
        return Err(ApiError::invalid(
            Some("temperature"),
            "invalid_value",
            "a NAT pipeline decodes deterministically (greedy CTC or beam search): temperature must be 0 or absent",
        ));
    }
    if api::get_bool(obj, "stream")? == Some(true) {
        return Err(ApiError::invalid(Some("stream"), "invalid_value", "a NAT pipeline writes each output in one pass: streaming is not offered"));
    }
    if let Some(n) = api::get_uint(obj, "n")? {
        if n != 1 {
            return Err(ApiError::invalid(Some("n"), "invalid_value", "only n = 1 is supported"));
        }
    }
    Ok(())
}

/// Serves a NAT request on `pipeline` (its `info.nat` is set).
pub(super) async fn serve(
    state: &Arc<AppState>,
    pipeline: &Arc<PipelineHandle>,
    endpoint: Endpoint,
    obj: &Map<String, Value>,
    deadline: TokioInstant,
    log: &mut Pending,
) -> Result<Response, ApiError> {
    let Some(nat) = &pipeline.info.nat else { return Err(ApiError::new(500, "server_error", "internal_error", "not a NAT pipeline")) };
    let key = if endpoint == Endpoint::Translations { "text" } else { "prompt" };
    let sentences = parse_sentences(obj, key, nat)?;
    refuse_generation_fields(obj)?;
    // Bound each sentence's bytes before anything tokenizes it; those refused here never reach the worker.
    let mut results: Vec<Option<Result<Translation, ApiError>>> = sentences
        .items
        .iter()
        .map(|s| {
            (s.len() > nat.max_sentence_bytes).then(|| {
                Err(ApiError::invalid(
                    None,
                    "sentence_too_long",
                    format!("the sentence has {} bytes, more than max_sentence_bytes ({}): split it", s.len(), nat.max_sentence_bytes),
                ))
            })
        })
        .collect();
    let accepted: Vec<String> = sentences.items.iter().zip(&results).filter(|(_, r)| r.is_none()).map(|(s, _)| s.clone()).collect();
    if !accepted.is_empty() {
        if state.shutting_down.load(Ordering::SeqCst) {
            return Err(cancel::cancelled_error(CancelCause::Shutdown));
        }
        let control = Arc::new(Control::default());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        submit(pipeline, Job { work: Work::Translate(accepted), stream: false, control: control.clone(), events: tx, enqueued: Instant::now() })?;
        let mut guard = CancelOnDrop::new(control);
        let translated = loop {
            match next_event(&mut rx, deadline, &mut guard).await? {
                Event::Translated(t) => break t,
                Event::Done(Err(e)) => return Err(e),
                _ => {}
            }
        };
        guard.disarm();
        let mut translated = translated.into_iter();
        for slot in results.iter_mut().filter(|r| r.is_none()) {
            *slot = translated.next();
        }
    }
    let results: Vec<Result<Translation, ApiError>> = results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(ApiError::new(500, "server_error", "internal_error", "no result for this sentence"))))
        .collect();
    if !sentences.listed {
        // One sentence given as a string: its error is the request's error, as for any completion.
        if let Some(Err(e)) = results.first() {
            return Err(ApiError { param: Some(key.to_string()), ..e.clone() });
        }
    }
    let (tokens_in, tokens_out) = results.iter().flatten().fold((0, 0), |(i, o), t| (i + t.source_tokens, o + t.tokens.len()));
    let all_ok = results.iter().all(Result::is_ok);
    log.record.tokens_in = Some(tokens_in);
    log.record.tokens_out = Some(tokens_out);
    log.record.finish_reason = Some(if all_ok { "stop" } else { "error" }.into());
    let item_error = |e: &ApiError, i: usize| {
        let mut e = e.clone();
        e.param = Some(format!("{key}[{i}]"));
        e.body()["error"].clone()
    };
    let model = &pipeline.info.name;
    let created = unix_now();
    let body = match endpoint {
        Endpoint::Translations => {
            let id = state.new_id("tr");
            log.record.id = id.clone();
            let items: Vec<Value> = results
                .iter()
                .enumerate()
                .map(|(i, r)| match r {
                    Ok(t) => json!({"index": i, "text": t.text, "source_tokens": t.source_tokens, "tokens": t.tokens.len()}),
                    Err(e) => json!({"index": i, "text": null, "error": item_error(e, i)}),
                })
                .collect();
            json!({"id": id, "object": "translation.list", "created": created, "model": model, "translations": items,
                   "usage": api::usage(tokens_in, tokens_out)})
        }
        _ => {
            let id = state.new_id("cmpl");
            log.record.id = id.clone();
            let choices: Vec<Value> = results
                .iter()
                .enumerate()
                .map(|(i, r)| match r {
                    Ok(t) => json!({"index": i, "text": t.text, "logprobs": null, "finish_reason": "stop"}),
                    // OpenAI's schema has no per-choice error: the choice stays (so `index` keeps matching the prompt
                    // list), its text is empty, `finish_reason` is "error" and `error` says why.
                    Err(e) => json!({"index": i, "text": "", "logprobs": null, "finish_reason": "error", "error": item_error(e, i)}),
                })
                .collect();
            json!({"id": id, "object": "text_completion", "created": created, "model": model, "choices": choices,
                   "usage": api::usage(tokens_in, tokens_out)})
        }
    };
    Ok(json_response(200, &body))
}
