//! Server counters, rendered as Prometheus text at `GET /metrics`. One mutex over plain maps: updates happen a
//! few times per request, far from any hot loop.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::stats::Stats;

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 12] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0];
/// Upper bounds of the batch-size histograms (requests or sentences per NAT pass).
const SIZE_BUCKETS: [f64; 11] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1024.0, 4096.0];

#[derive(Clone)]
struct Histogram {
    bounds: &'static [f64],
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::with_bounds(&BUCKETS)
    }
}

impl Histogram {
    fn with_bounds(bounds: &'static [f64]) -> Self {
        Histogram { bounds, counts: vec![0; bounds.len()], sum: 0.0, count: 0 }
    }

    fn observe(&mut self, v: f64) {
        for (i, b) in self.bounds.iter().enumerate() {
            if v <= *b {
                self.counts[i] += 1;
            }
        }
        self.sum += v;
        self.count += 1;
    }
}

/// Per-pipeline aggregates.
#[derive(Default, Clone)]
struct PipelineCounters {
    generations: BTreeMap<&'static str, u64>,
    cancelled: BTreeMap<&'static str, u64>,
    prompt_tokens: u64,
    new_tokens: u64,
    committed_tokens: u64,
    target_calls: u64,
    drafted: u64,
    accepted: u64,
    generation_seconds: f64,
    queue_wait: Histogram,
    panics: u64,
    /// NAT pipelines: requests and sentences per gathered batch (None for decoder pipelines).
    batches: Option<(Histogram, Histogram)>,
}

#[derive(Default)]
struct Inner {
    requests: BTreeMap<(String, u16), u64>,
    errors: BTreeMap<String, u64>,
    request_seconds: Histogram,
    pipelines: BTreeMap<String, PipelineCounters>,
}

/// A queue's live depth and capacity.
pub struct QueueGauge {
    /// The pipeline.
    pub pipeline: String,
    /// Jobs accepted and not yet picked up by a worker.
    pub depth: AtomicUsize,
    /// Generations running now.
    pub running: AtomicUsize,
    /// The bound.
    pub capacity: usize,
}

/// All server metrics.
#[derive(Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
    /// Live queue gauges, one per pipeline.
    pub queues: Vec<std::sync::Arc<QueueGauge>>,
}

/// A snapshot of one pipeline's counters (tests and the load report read it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PipelineSnapshot {
    /// Generations by finish reason (`stop`, `length`, `cancelled`, `error`).
    pub generations: BTreeMap<String, u64>,
    /// Cancelled generations by cause (`disconnect`, `timeout`, `shutdown`).
    pub cancelled: BTreeMap<String, u64>,
    /// Tokens generated.
    pub new_tokens: u64,
    /// Worker panics caught.
    pub panics: u64,
}

impl Metrics {
    /// Metrics for the pipelines whose queues are `queues` (each shows up with zero counts from the start).
    pub fn new(queues: Vec<std::sync::Arc<QueueGauge>>) -> Self {
        let mut inner = Inner::default();
        for q in &queues {
            inner.pipelines.insert(q.pipeline.clone(), PipelineCounters::default());
        }
        Metrics { inner: Mutex::new(inner), queues }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts one answered request.
    pub fn request(&self, endpoint: &str, status: u16, seconds: f64) {
        let mut m = self.lock();
        *m.requests.entry((endpoint.to_string(), status)).or_default() += 1;
        m.request_seconds.observe(seconds);
    }

    /// Counts one error of `kind` (the OpenAI-style `code`).
    pub fn error(&self, kind: &str) {
        *self.lock().errors.entry(kind.to_string()).or_default() += 1;
    }

    /// Records the time a job waited in `pipeline`'s queue.
    pub(crate) fn queue_wait(&self, pipeline: &str, seconds: f64) {
        self.lock().pipelines.entry(pipeline.to_string()).or_default().queue_wait.observe(seconds);
    }

    /// Records a finished generation.
    pub fn generation(&self, pipeline: &str, finish: &'static str, cancel_cause: Option<super::cancel::CancelCause>, stats: &Stats) {
        let mut m = self.lock();
        let p = m.pipelines.entry(pipeline.to_string()).or_default();
        *p.generations.entry(finish).or_default() += 1;
        if let Some(c) = cancel_cause {
            *p.cancelled.entry(c.as_str()).or_default() += 1;
        }
        p.prompt_tokens += stats.prompt_tokens as u64;
        p.new_tokens += stats.new_tokens as u64;
        p.committed_tokens += stats.committed_tokens.max(stats.new_tokens) as u64;
        p.target_calls += stats.target_calls as u64;
        p.drafted += stats.drafted as u64;
        p.accepted += stats.accepted as u64;
        p.generation_seconds += stats.prefill_seconds + stats.decode_seconds;
    }

    /// Records a generation that failed (error or panic) or was never started (`cause`).
    pub(crate) fn generation_failed(&self, pipeline: &str, panicked: bool, cancel_cause: Option<super::cancel::CancelCause>) {
        let mut m = self.lock();
        let p = m.pipelines.entry(pipeline.to_string()).or_default();
        if let Some(c) = cancel_cause {
            *p.generations.entry("cancelled").or_default() += 1;
            *p.cancelled.entry(c.as_str()).or_default() += 1;
        } else {
            *p.generations.entry("error").or_default() += 1;
        }
        if panicked {
            p.panics += 1;
        }
    }

    /// Records one NAT batch: how many requests and sentences were gathered into it.
    pub(crate) fn nat_batch(&self, pipeline: &str, requests: usize, sentences: usize) {
        let mut m = self.lock();
        let p = m.pipelines.entry(pipeline.to_string()).or_default();
        let (r, s) = p.batches.get_or_insert_with(|| (Histogram::with_bounds(&SIZE_BUCKETS), Histogram::with_bounds(&SIZE_BUCKETS)));
        r.observe(requests as f64);
        s.observe(sentences as f64);
    }

    /// Marks `pipeline` as a NAT pipeline, so its batch histograms show up (empty) from the start.
    pub(crate) fn declare_nat(&self, pipeline: &str) {
        let mut m = self.lock();
        let p = m.pipelines.entry(pipeline.to_string()).or_default();
        p.batches.get_or_insert_with(|| (Histogram::with_bounds(&SIZE_BUCKETS), Histogram::with_bounds(&SIZE_BUCKETS)));
    }

    /// NAT batches of `pipeline` so far: (batches, requests, sentences), summed.
    pub fn nat_batches(&self, pipeline: &str) -> (u64, u64, u64) {
        let m = self.lock();
        m.pipelines.get(pipeline).and_then(|p| p.batches.as_ref()).map_or((0, 0, 0), |(r, s)| (r.count, r.sum as u64, s.sum as u64))
    }

    /// A snapshot of one pipeline's counters.
    pub fn pipeline(&self, name: &str) -> PipelineSnapshot {
        let m = self.lock();
        m.pipelines
            .get(name)
            .map(|p| PipelineSnapshot {
                generations: p.generations.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                cancelled: p.cancelled.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                new_tokens: p.new_tokens,
                panics: p.panics,
            })
            .unwrap_or_default()
    }

    /// Errors by kind.
    pub fn errors(&self) -> BTreeMap<String, u64> {
        self.lock().errors.clone()
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let m = self.lock();
        let mut s = String::new();
        let head = |s: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(s, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        head(&mut s, "specrt_requests_total", "counter", "HTTP requests answered, by endpoint and status.");
        for ((endpoint, status), n) in &m.requests {
            let _ = writeln!(s, "specrt_requests_total{{endpoint=\"{endpoint}\",status=\"{status}\"}} {n}");
        }
        head(&mut s, "specrt_request_errors_total", "counter", "Requests answered with an error, by kind (the error body's code).");
        for (kind, n) in &m.errors {
            let _ = writeln!(s, "specrt_request_errors_total{{kind=\"{kind}\"}} {n}");
        }
        head(&mut s, "specrt_request_duration_seconds", "histogram", "Time to the response head (streams: to the first event).");
        histogram(&mut s, "specrt_request_duration_seconds", "", &m.request_seconds);

        head(&mut s, "specrt_queue_depth", "gauge", "Requests waiting for a worker.");
        for q in &self.queues {
            let _ = writeln!(s, "specrt_queue_depth{{pipeline=\"{}\"}} {}", q.pipeline, q.depth.load(Ordering::Relaxed));
        }
        head(&mut s, "specrt_queue_capacity", "gauge", "Bound of each pipeline's queue.");
        for q in &self.queues {
            let _ = writeln!(s, "specrt_queue_capacity{{pipeline=\"{}\"}} {}", q.pipeline, q.capacity);
        }
        head(&mut s, "specrt_generations_running", "gauge", "Generations running now.");
        for q in &self.queues {
            let _ = writeln!(s, "specrt_generations_running{{pipeline=\"{}\"}} {}", q.pipeline, q.running.load(Ordering::Relaxed));
        }
        head(&mut s, "specrt_queue_wait_seconds", "histogram", "Time requests spent in the queue before a worker took them.");
        for (name, p) in &m.pipelines {
            histogram(&mut s, "specrt_queue_wait_seconds", &format!("pipeline=\"{name}\""), &p.queue_wait);
        }
        head(&mut s, "specrt_batch_requests", "histogram", "NAT pipelines: requests gathered into one batch (dynamic batching).");
        for (name, p) in &m.pipelines {
            if let Some((r, _)) = &p.batches {
                histogram(&mut s, "specrt_batch_requests", &format!("pipeline=\"{name}\""), r);
            }
        }
        head(&mut s, "specrt_batch_sentences", "histogram", "NAT pipelines: sentences gathered into one batch (dynamic batching).");
        for (name, p) in &m.pipelines {
            if let Some((_, st)) = &p.batches {
                histogram(&mut s, "specrt_batch_sentences", &format!("pipeline=\"{name}\""), st);
            }
        }
        head(&mut s, "specrt_generations_total", "counter", "Generations by finish reason (stop, length, cancelled, error).");
        for (name, p) in &m.pipelines {
            for (reason, n) in &p.generations {
                let _ = writeln!(s, "specrt_generations_total{{pipeline=\"{name}\",finish_reason=\"{reason}\"}} {n}");
            }
        }
        head(&mut s, "specrt_generations_cancelled_total", "counter", "Cancelled generations by cause (disconnect, timeout, shutdown).");
        for (name, p) in &m.pipelines {
            for (cause, n) in &p.cancelled {
                let _ = writeln!(s, "specrt_generations_cancelled_total{{pipeline=\"{name}\",cause=\"{cause}\"}} {n}");
            }
        }
        let per_pipeline: [(&str, &str, &str, fn(&PipelineCounters) -> f64); 9] = [
            ("specrt_prompt_tokens_total", "counter", "Prompt tokens processed.", |p| p.prompt_tokens as f64),
            ("specrt_tokens_generated_total", "counter", "Tokens generated (stop tokens excluded).", |p| p.new_tokens as f64),
            ("specrt_generation_seconds_total", "counter", "Wall time inside generation (prefill + decode).", |p| p.generation_seconds),
            ("specrt_tokens_per_second", "gauge", "Tokens generated per second of generation time, over all generations.", |p| {
                if p.generation_seconds > 0.0 {
                    p.new_tokens as f64 / p.generation_seconds
                } else {
                    0.0
                }
            }),
            ("specrt_tau", "gauge", "Tokens committed per target call over all generations (AR = 1).", |p| {
                if p.target_calls > 0 {
                    p.committed_tokens as f64 / p.target_calls as f64
                } else {
                    0.0
                }
            }),
            ("specrt_acceptance_rate", "gauge", "Accepted / drafted draft tokens over all generations (0 without drafting).", |p| {
                if p.drafted > 0 {
                    p.accepted as f64 / p.drafted as f64
                } else {
                    0.0
                }
            }),
            ("specrt_drafted_tokens_total", "counter", "Draft tokens proposed.", |p| p.drafted as f64),
            ("specrt_accepted_tokens_total", "counter", "Draft tokens accepted.", |p| p.accepted as f64),
            ("specrt_worker_panics_total", "counter", "Panics caught in inference workers (answered 500).", |p| p.panics as f64),
        ];
        for (metric, kind, help, f) in per_pipeline {
            head(&mut s, metric, kind, help);
            for (name, p) in &m.pipelines {
                let _ = writeln!(s, "{metric}{{pipeline=\"{name}\"}} {}", f(p));
            }
        }
        s
    }
}

fn histogram(s: &mut String, name: &str, labels: &str, h: &Histogram) {
    let sep = if labels.is_empty() { "" } else { "," };
    for (b, c) in h.bounds.iter().zip(&h.counts) {
        let _ = writeln!(s, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {c}");
    }
    let _ = writeln!(s, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}", h.count);
    let braces = if labels.is_empty() { String::new() } else { format!("{{{labels}}}") };
    let _ = writeln!(s, "{name}_sum{braces} {}", h.sum);
    let _ = writeln!(s, "{name}_count{braces} {}", h.count);
}
