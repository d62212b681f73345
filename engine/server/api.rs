//! The OpenAI-compatible wire format: request parsing with errors that name the offending field, error bodies,
//! and the response and stream-chunk shapes of `/v1/completions` and `/v1/chat/completions`.

use serde_json::{json, Map, Value};

use crate::config::schema::{MAX_STOP_BYTES, MAX_STOP_STRINGS};
use crate::error::Error;
use crate::generate::{GenerationRequest, Prompt};
use crate::stats::Stats;
use crate::text::ChatMessage;

/// An error answered with an OpenAI-style body `{"error": {"message", "type", "param", "code"}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// HTTP status.
    pub status: u16,
    /// Human-readable message.
    pub message: String,
    /// `invalid_request_error`, `rate_limit_error`, `timeout_error`, `server_error`, ...
    pub kind: &'static str,
    /// The request field at fault, if any.
    pub param: Option<String>,
    /// A machine-readable code (also the `kind` label of `specrt_request_errors_total`).
    pub code: &'static str,
}

impl ApiError {
    /// A 400 about `param`.
    pub fn invalid(param: Option<&str>, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status: 400, message: message.into(), kind: "invalid_request_error", param: param.map(str::to_string), code }
    }

    /// Any other status.
    pub fn new(status: u16, kind: &'static str, code: &'static str, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into(), kind, param: None, code }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        json!({"error": {"message": self.message, "type": self.kind, "param": self.param, "code": self.code}})
    }

    /// Maps a library error from a generation.
    pub(crate) fn from_engine(e: &Error) -> Self {
        match e {
            Error::InvalidValue { key, .. } => {
                // The request field at fault, as OpenAI's `param`.
                let param =
                    ["temperature", "top_p", "top_k", "min_p", "repetition_penalty", "max_tokens", "stop", "seed"].into_iter().find(|k| k == key);
                ApiError::invalid(param, "invalid_value", e.to_string())
            }
            Error::InvalidRequest(_) => ApiError::invalid(None, "invalid_value", e.to_string()),
            Error::PromptTooLong { .. } | Error::PromptTooLarge { .. } => ApiError::invalid(None, "context_length_exceeded", e.to_string()),
            Error::ChatTemplate(_) => ApiError::invalid(Some("messages"), "invalid_value", e.to_string()),
            Error::Cancelled => ApiError::new(499, "cancelled", "cancelled", e.to_string()),
            _ => ApiError::new(500, "server_error", "internal_error", e.to_string()),
        }
    }
}

/// Which endpoint a request came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/v1/completions`.
    Completions,
    /// `/v1/chat/completions`.
    Chat,
    /// `/v1/translations` (NAT pipelines).
    Translations,
}

impl Endpoint {
    /// The metrics label.
    pub fn label(self) -> &'static str {
        match self {
            Endpoint::Completions => "completions",
            Endpoint::Chat => "chat_completions",
            Endpoint::Translations => "translations",
        }
    }

    /// The route.
    pub fn route(self) -> &'static str {
        match self {
            Endpoint::Completions => "/v1/completions",
            Endpoint::Chat => "/v1/chat/completions",
            Endpoint::Translations => "/v1/translations",
        }
    }
}

/// A parsed request: what the worker needs plus what the response needs.
#[derive(Debug, Clone)]
pub struct ApiRequest {
    /// The `model` field (None: the first pipeline).
    pub model: Option<String>,
    /// Stream SSE chunks.
    pub stream: bool,
    /// Add `specrt_stats` to the response.
    pub specrt_stats: bool,
    /// The generation request.
    pub generation: GenerationRequest,
}

/// `key` unless absent or null.
pub fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// 400 `invalid_type` naming `key`, what it must be and what it was.
pub(crate) fn type_error(key: &str, expected: &str, got: &Value) -> ApiError {
    let got = match got {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    ApiError::invalid(Some(key), "invalid_type", format!("`{key}` must be {expected}, got {got}"))
}

/// `key` as a boolean, if present.
pub(crate) fn get_bool(obj: &Map<String, Value>, key: &str) -> Result<Option<bool>, ApiError> {
    field(obj, key).map(|v| v.as_bool().ok_or_else(|| type_error(key, "a boolean", v))).transpose()
}

/// `key` as a non-negative integer, if present.
pub(crate) fn get_uint(obj: &Map<String, Value>, key: &str) -> Result<Option<u64>, ApiError> {
    field(obj, key).map(|v| v.as_u64().ok_or_else(|| type_error(key, "a non-negative integer", v))).transpose()
}

/// `key` as a number, if present.
pub(crate) fn get_float(obj: &Map<String, Value>, key: &str) -> Result<Option<f64>, ApiError> {
    field(obj, key).map(|v| v.as_f64().ok_or_else(|| type_error(key, "a number", v))).transpose()
}

fn get_string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, ApiError> {
    field(obj, key).map(|v| v.as_str().map(str::to_string).ok_or_else(|| type_error(key, "a string", v))).transpose()
}

/// Parses a request body as a JSON object.
pub(crate) fn parse_object(body: &[u8]) -> Result<Map<String, Value>, ApiError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| ApiError::invalid(None, "invalid_json", format!("the request body is not valid JSON: {e}")))?;
    match value {
        Value::Object(obj) => Ok(obj),
        _ => Err(ApiError::invalid(None, "invalid_json", "the request body must be a JSON object")),
    }
}

/// The `model` field of a request object.
pub(crate) fn model_field(obj: &Map<String, Value>) -> Result<Option<String>, ApiError> {
    get_string(obj, "model")
}

/// Parses a request body. Unknown fields are ignored, as OpenAI does.
pub fn parse_request(endpoint: Endpoint, body: &[u8]) -> Result<ApiRequest, ApiError> {
    parse_request_object(endpoint, &parse_object(body)?)
}

/// Parses a request object (see [`parse_request`]).
pub(crate) fn parse_request_object(endpoint: Endpoint, obj: &Map<String, Value>) -> Result<ApiRequest, ApiError> {
    let obj = obj.clone();
    let prompt = match endpoint {
        Endpoint::Completions => Some(parse_prompt(&obj)?),
        Endpoint::Chat => Some(parse_messages(&obj)?),
        Endpoint::Translations => return Err(ApiError::invalid(None, "invalid_endpoint", "/v1/translations serves NAT pipelines only")),
    };
    let max_tokens = match get_uint(&obj, "max_tokens")? {
        Some(0) => return Err(ApiError::invalid(Some("max_tokens"), "invalid_value", "`max_tokens` must be at least 1")),
        m => m.map(|m| m as usize),
    };
    let temperature = get_float(&obj, "temperature")?;
    if let Some(t) = temperature {
        if !(0.0..=2.0).contains(&t) {
            return Err(ApiError::invalid(Some("temperature"), "invalid_value", format!("`temperature` must be in [0, 2] (got {t})")));
        }
    }
    let top_p = get_float(&obj, "top_p")?;
    if let Some(p) = top_p {
        if !(p > 0.0 && p <= 1.0) {
            return Err(ApiError::invalid(Some("top_p"), "invalid_value", format!("`top_p` must be in (0, 1] (got {p})")));
        }
    }
    let top_k = match field(&obj, "top_k") {
        // -1 means "off" in several OpenAI-compatible servers.
        Some(v) if v.as_i64() == Some(-1) => Some(0),
        Some(_) => get_uint(&obj, "top_k")?.map(|k| k as usize),
        None => None,
    };
    let seed = match field(&obj, "seed") {
        Some(v) => Some(v.as_u64().or_else(|| v.as_i64().map(|i| i as u64)).ok_or_else(|| type_error("seed", "an integer", v))?),
        None => None,
    };
    let stop = match field(&obj, "stop") {
        None => None,
        Some(Value::String(s)) => Some(vec![s.clone()]),
        Some(Value::Array(items)) => Some(
            items
                .iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(|| type_error("stop", "a string or a list of strings", v)))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(v) => return Err(type_error("stop", "a string or a list of strings", v)),
    };
    if let Some(stop) = &stop {
        if stop.iter().any(String::is_empty) {
            return Err(ApiError::invalid(Some("stop"), "invalid_value", "stop strings must not be empty"));
        }
        if stop.len() > MAX_STOP_STRINGS || stop.iter().any(|s| s.len() > MAX_STOP_BYTES) {
            let msg = format!("at most {MAX_STOP_STRINGS} stop strings of at most {MAX_STOP_BYTES} bytes each");
            return Err(ApiError::invalid(Some("stop"), "invalid_value", msg));
        }
    }
    if let Some(n) = get_uint(&obj, "n")? {
        if n != 1 {
            return Err(ApiError::invalid(Some("n"), "invalid_value", "only n = 1 is supported"));
        }
    }
    let generation = GenerationRequest {
        prompt,
        // A completion's prompt is raw text; the chat endpoint always renders the template.
        chat: Some(endpoint == Endpoint::Chat),
        max_tokens,
        temperature: temperature.map(|t| t as f32),
        top_k,
        top_p: top_p.map(|p| p as f32),
        seed,
        stop,
        ignore_eos: get_bool(&obj, "ignore_eos")?.unwrap_or(false),
        ..Default::default()
    };
    Ok(ApiRequest {
        model: get_string(&obj, "model")?,
        stream: get_bool(&obj, "stream")?.unwrap_or(false),
        specrt_stats: get_bool(&obj, "specrt_stats")?.unwrap_or(false),
        generation,
    })
}

fn parse_prompt(obj: &Map<String, Value>) -> Result<Prompt, ApiError> {
    let missing = || ApiError::invalid(Some("prompt"), "missing_field", "`prompt` is required");
    match field(obj, "prompt").ok_or_else(missing)? {
        Value::String(s) => Ok(Prompt::Text(s.clone())),
        Value::Array(items) if items.len() == 1 && items[0].is_string() => Ok(Prompt::Text(items[0].as_str().unwrap_or_default().into())),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_u64) => {
            Ok(Prompt::Tokens(items.iter().filter_map(Value::as_u64).map(|t| t.min(u32::MAX as u64) as u32).collect()))
        }
        Value::Array(items) if items.len() > 1 && items.iter().all(Value::is_string) => {
            Err(ApiError::invalid(Some("prompt"), "invalid_value", "only one prompt per request is supported"))
        }
        v => Err(type_error("prompt", "a string (or a list of token ids)", v)),
    }
}

fn parse_messages(obj: &Map<String, Value>) -> Result<Prompt, ApiError> {
    let v = field(obj, "messages").ok_or_else(|| ApiError::invalid(Some("messages"), "missing_field", "`messages` is required"))?;
    let items = v.as_array().ok_or_else(|| type_error("messages", "a list of messages", v))?;
    if items.is_empty() {
        return Err(ApiError::invalid(Some("messages"), "invalid_value", "`messages` must not be empty"));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, m) in items.iter().enumerate() {
        let param = format!("messages[{i}]");
        let m = m.as_object().ok_or_else(|| type_error(&param, "an object with `role` and `content`", m))?;
        let role = get_string(m, "role").map_err(|e| ApiError { param: Some(format!("{param}.role")), ..e })?;
        let role = role.ok_or_else(|| ApiError::invalid(Some(&format!("{param}.role")), "missing_field", format!("`{param}.role` is required")))?;
        if !matches!(role.as_str(), "system" | "user" | "assistant" | "developer" | "tool") {
            return Err(ApiError::invalid(Some(&format!("{param}.role")), "invalid_value", format!("unknown role `{role}`")));
        }
        let content = match field(m, "content") {
            None => String::new(),
            Some(Value::String(s)) => s.clone(),
            // Content parts: concatenate the text parts.
            Some(Value::Array(parts)) => {
                let mut text = String::new();
                for p in parts {
                    match p.get("text").and_then(Value::as_str) {
                        Some(t) => text.push_str(t),
                        None => return Err(type_error(&format!("{param}.content"), "a string or a list of text parts", p)),
                    }
                }
                text
            }
            Some(v) => return Err(type_error(&format!("{param}.content"), "a string", v)),
        };
        out.push(ChatMessage { role, content });
    }
    Ok(Prompt::Messages(out))
}

/// `usage`.
pub fn usage(prompt_tokens: usize, completion_tokens: usize) -> Value {
    json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens})
}

/// The non-streaming response.
#[allow(clippy::too_many_arguments)]
pub(crate) fn response(
    endpoint: Endpoint,
    id: &str,
    created: u64,
    model: &str,
    text: &str,
    finish_reason: &str,
    prompt_tokens: usize,
    completion_tokens: usize,
    stats: Option<&Stats>,
) -> Value {
    let mut v = match endpoint {
        // Translations never stream nor use this shape; they answer with completions' shape if ever asked.
        Endpoint::Completions | Endpoint::Translations => json!({
            "id": id, "object": "text_completion", "created": created, "model": model,
            "choices": [{"index": 0, "text": text, "logprobs": null, "finish_reason": finish_reason}],
        }),
        Endpoint::Chat => json!({
            "id": id, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": null, "finish_reason": finish_reason}],
        }),
    };
    v["usage"] = usage(prompt_tokens, completion_tokens);
    if let Some(s) = stats {
        v["specrt_stats"] = s.to_json();
    }
    v
}

/// One streamed chunk. `piece` is the new text; the last chunk has a `finish_reason` (and `usage`, and the stats
/// when asked for).
pub fn chunk(endpoint: Endpoint, id: &str, created: u64, model: &str, piece: Option<&str>, finish_reason: Option<&str>) -> Value {
    match endpoint {
        // Translations never stream nor use this shape; they answer with completions' shape if ever asked.
        Endpoint::Completions | Endpoint::Translations => json!({
            "id": id, "object": "text_completion", "created": created, "model": model,
            "choices": [{"index": 0, "text": piece.unwrap_or(""), "logprobs": null, "finish_reason": finish_reason}],
        }),
        Endpoint::Chat => {
            let delta = match piece {
                Some(p) => json!({"content": p}),
                None if finish_reason.is_none() => json!({"role": "assistant", "content": ""}),
                None => json!({}),
            };
            json!({
                "id": id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
            })
        }
    }
}

/// An SSE event carrying `value`.
pub(crate) fn sse(value: &Value) -> String {
    format!("data: {value}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_lists_are_bounded_in_count_and_bytes() {
        let long = format!(r#"{{"model":"m","prompt":"hi","stop":"{}"}}"#, "s".repeat(MAX_STOP_BYTES + 1));
        let many = format!(r#"{{"model":"m","prompt":"hi","stop":[{}]}}"#, vec![r#""a""#; MAX_STOP_STRINGS + 1].join(","));
        for body in [long, many] {
            let err = parse_request(Endpoint::Completions, body.as_bytes()).unwrap_err();
            assert_eq!((err.status, err.param.as_deref()), (400, Some("stop")), "{}", err.message);
        }
    }

    #[test]
    fn parses_fields_and_ignores_unknown() {
        let r = parse_request(
            Endpoint::Completions,
            br#"{"model":"m","prompt":"hi","max_tokens":5,"temperature":0.5,"top_p":0.9,"top_k":3,"seed":7,"stop":"x","stream":true,"foo":1}"#,
        )
        .unwrap();
        assert_eq!(r.model.as_deref(), Some("m"));
        assert!(r.stream);
        assert_eq!(r.generation.max_tokens, Some(5));
        assert_eq!(r.generation.top_k, Some(3));
        assert_eq!(r.generation.stop, Some(vec!["x".into()]));
    }

    #[test]
    fn wrong_types_name_the_field() {
        let e = parse_request(Endpoint::Completions, br#"{"prompt":"hi","max_tokens":"many"}"#).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("max_tokens"));
        let e = parse_request(Endpoint::Chat, br#"{"messages":[{"role":"user","content":3}]}"#).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("messages[0].content"));
        let e = parse_request(Endpoint::Completions, b"{not json").unwrap_err();
        assert_eq!(e.code, "invalid_json");
    }
}
