//! The request log: one structured line per answered request (`specrt serve --log-format json|text`), with the
//! time, request id, route, model, status, tokens in/out, latency and finish reason. Streams are logged when they
//! end (their tokens and finish reason are known only then), every other request when its response is ready.

use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::json;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line (for log collectors).
    Json,
    /// `key=value` pairs (for people).
    Text,
}

impl std::str::FromStr for LogFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(LogFormat::Json),
            "text" => Ok(LogFormat::Text),
            other => Err(format!("unknown log format `{other}` (expected json or text)")),
        }
    }
}

/// One answered request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogRecord {
    /// The request id (the response's `id`, or `req-...` for routes without one).
    pub id: String,
    /// The route, e.g. `/v1/completions` (unknown paths are cut to 100 bytes).
    pub route: String,
    /// The served pipeline, when the request named or reached one.
    pub model: Option<String>,
    /// HTTP status of the response head.
    pub status: u16,
    /// Prompt / source tokens.
    pub tokens_in: Option<usize>,
    /// Generated tokens.
    pub tokens_out: Option<usize>,
    /// Milliseconds from the request's arrival to the response (streams: to the stream's end).
    pub latency_ms: f64,
    /// `stop`, `length`, `error` (a per-sentence error in a NAT batch), `cancelled`, ... when a generation ran.
    pub finish_reason: Option<String>,
}

/// Where request log lines go.
pub(crate) struct RequestLog {
    format: Option<LogFormat>,
    capture: Option<Arc<Mutex<Vec<String>>>>,
}

impl RequestLog {
    /// Lines in `format` (None: no log) to stderr, or into `capture` when given (tests).
    pub fn new(format: Option<LogFormat>, capture: Option<Arc<Mutex<Vec<String>>>>) -> Self {
        RequestLog { format, capture }
    }

    /// Writes the line of `r`.
    pub fn write(&self, r: &LogRecord) {
        let Some(format) = self.format else { return };
        let line = render(format, r, SystemTime::now());
        match &self.capture {
            Some(c) => c.lock().unwrap_or_else(|p| p.into_inner()).push(line),
            None => eprintln!("{line}"),
        }
    }
}

/// The line of `r` at time `now`.
pub fn render(format: LogFormat, r: &LogRecord, now: SystemTime) -> String {
    let time = rfc3339(now);
    let latency = (r.latency_ms * 1000.0).round() / 1000.0;
    match format {
        LogFormat::Json => json!({
            "time": time, "id": r.id, "route": r.route, "model": r.model, "status": r.status,
            "tokens_in": r.tokens_in, "tokens_out": r.tokens_out, "latency_ms": latency, "finish_reason": r.finish_reason,
        })
        .to_string(),
        LogFormat::Text => {
            let mut s = format!("{time} id={} route={} status={}", r.id, r.route, r.status);
            // Values come from the server (names, numbers) except the route of an unknown path: quote that.
            let opt = |s: &mut String, k: &str, v: &Option<String>| {
                if let Some(v) = v {
                    let _ = write!(s, " {k}={v:?}");
                }
            };
            opt(&mut s, "model", &r.model);
            let num = |s: &mut String, k: &str, v: Option<usize>| {
                if let Some(v) = v {
                    let _ = write!(s, " {k}={v}");
                }
            };
            num(&mut s, "tokens_in", r.tokens_in);
            num(&mut s, "tokens_out", r.tokens_out);
            let _ = write!(s, " latency_ms={latency}");
            opt(&mut s, "finish_reason", &r.finish_reason);
            s
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC) without a date crate: days since the epoch to a civil date (H. Hinnant's
/// algorithm).
fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem / 60 % 60, rem % 60, d.subsec_millis())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn time_is_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        // 2024-02-29T12:34:56.789Z (a leap day) = 1709210096.789
        assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_millis(1_709_210_096_789)), "2024-02-29T12:34:56.789Z");
    }

    #[test]
    fn lines_carry_every_field() {
        let r = LogRecord {
            id: "cmpl-1".into(),
            route: "/v1/completions".into(),
            model: Some("m".into()),
            status: 200,
            tokens_in: Some(3),
            tokens_out: Some(5),
            latency_ms: 1.23456,
            finish_reason: Some("stop".into()),
        };
        let v: serde_json::Value = serde_json::from_str(&render(LogFormat::Json, &r, UNIX_EPOCH)).unwrap();
        for k in ["time", "id", "route", "model", "status", "tokens_in", "tokens_out", "latency_ms", "finish_reason"] {
            assert!(!v[k].is_null(), "{k} in {v}");
        }
        assert_eq!(v["latency_ms"], 1.235);
        let t = render(LogFormat::Text, &r, UNIX_EPOCH);
        assert_eq!(t, "1970-01-01T00:00:00.000Z id=cmpl-1 route=/v1/completions status=200 model=\"m\" tokens_in=3 tokens_out=5 latency_ms=1.235 finish_reason=\"stop\"");
        assert!("xml".parse::<LogFormat>().is_err());
    }
}
