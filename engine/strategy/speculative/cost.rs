//! The verification cost curve: seconds for one target forward over n new tokens, measured on this machine at
//! startup and cached per model and machine (`$SPECRT_CACHE_DIR`, default `~/.cache/specrt/cost/`), so the
//! hardware-aware window policy can trade draft length against verify cost.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::LanguageModel;

/// Seconds of one target pass by number of new tokens, linearly interpolated between measured points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostCurve {
    /// (tokens, seconds), ascending in tokens.
    pub points: Vec<(usize, f64)>,
}

impl CostCurve {
    /// A curve through `points` (sorted on construction).
    pub(crate) fn from_points(mut points: Vec<(usize, f64)>) -> Self {
        points.sort_by_key(|p| p.0);
        CostCurve { points }
    }

    /// Interpolated (or linearly extrapolated) seconds for `n` tokens.
    pub fn seconds(&self, n: usize) -> f64 {
        let p = &self.points;
        match p.len() {
            0 => 0.0,
            1 => p[0].1,
            _ => {
                let i = p.iter().position(|&(m, _)| m >= n).unwrap_or(p.len() - 1).max(1);
                let (n0, s0) = p[i - 1];
                let (n1, s1) = p[i];
                s0 + (s1 - s0) * (n as f64 - n0 as f64) / (n1 as f64 - n0 as f64).max(1.0)
            }
        }
    }
}

/// A size's own running average is used once it has this many passes (fewer: the per-row model below).
const MIN_SEEN: u32 = 3;
/// ... and while its last pass is at most this many passes old: a size priced out by an unlucky stretch is priced
/// by the model again after a while, so it can be chosen and measured again.
const FRESH_PASSES: u64 = 64;

/// The verify-cost curve as decoding sees it: the load-time curve ([`measure_or_load`]) corrected online by the
/// passes the strategy actually runs. Each size n that ran recently is priced by the running average of its own
/// passes; any other size by `load(n) + n x delta`, where delta is the running average of the per-row excess
/// `(observed(m) - load(m)) / m` over every pass.
///
/// Why: the load-time curve is measured at a 128-token context, and decoding runs at hundreds of tokens, where each
/// row of a pass pays attention over the whole context. On an AMD EPYC Zen 3 (2026-12-07, SmolLM2 with hidden
/// states on the engine kernels) the cached curve priced a 3-token pass at 1.13 one-token steps (the same as a
/// 2-token pass), while decoding's own 3-token passes cost 1.31: the node budget verified a third node for ~15%
/// acceptance that it believed free (docs/HEADS.md "Side branches, exact"). Measured on that machine
/// (`make bench-live-curve-smollm2`, same run, against `learn_costs: false`): tokens/s within the run's spread
/// (lookup + corpus 1.44x vs 1.45x the fastest AR, the EAGLE head alone 1.04x vs 1.03x, its hybrid 1.48x vs 1.50x),
/// because rates near the optimum are flat in n. Kept on: the prices are the ones decoding pays, and they follow a
/// host whose speed drifts during a run (the one-token step moved 9.5 -> 7.4 ms between two runs that hour).
#[derive(Debug, Clone)]
pub(crate) struct LiveCurve {
    load: CostCurve,
    /// Learn from observed passes (`window.learn_costs`); off: the load-time curve alone.
    learn: bool,
    alpha: f64,
    /// Running per-row excess of observed passes over the load-time curve (seconds).
    delta: Option<f64>,
    /// Per size n: (running average seconds, passes seen, index of the last pass).
    sizes: Vec<(f64, u32, u64)>,
    passes: u64,
}

impl LiveCurve {
    /// The curve `load`, learning from observed passes with smoothing `alpha` when `learn`.
    pub(crate) fn new(load: CostCurve, learn: bool, alpha: f64) -> Self {
        LiveCurve { load, learn, alpha: alpha.clamp(1e-3, 1.0), delta: None, sizes: Vec::new(), passes: 0 }
    }

    /// Expected seconds of a pass over `n` tokens now.
    pub(crate) fn seconds(&self, n: usize) -> f64 {
        if !self.learn {
            return self.load.seconds(n);
        }
        if let Some(&(avg, seen, last)) = self.sizes.get(n) {
            if seen >= MIN_SEEN && self.passes - last <= FRESH_PASSES {
                return avg;
            }
        }
        self.load.seconds(n) + n as f64 * self.delta.unwrap_or(0.0)
    }

    /// Learns from one pass over `n` tokens that took `seconds`.
    pub(crate) fn observe(&mut self, n: usize, seconds: f64) {
        if !self.learn || n == 0 || !seconds.is_finite() || seconds <= 0.0 {
            return;
        }
        self.passes += 1;
        let excess = (seconds - self.load.seconds(n)) / n as f64;
        self.delta = Some(self.delta.map_or(excess, |d| d + self.alpha * (excess - d)));
        if self.sizes.len() <= n {
            self.sizes.resize(n + 1, (0.0, 0, 0));
        }
        let (avg, seen, last) = &mut self.sizes[n];
        *avg = if *seen == 0 { seconds } else { *avg + self.alpha * (seconds - *avg) };
        *seen += 1;
        *last = self.passes;
    }
}

fn cache_file(target: &LanguageModel, max_tokens: usize) -> Option<PathBuf> {
    let dir = std::env::var_os("SPECRT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/specrt")))?
        .join("cost");
    let m = target.manifest();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(str::to_string))
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let key = format!(
        "{}|{}|{}|{}|{}|{}|{}|kernels {}",
        m.header.files.get(&m.header.graph.file).cloned().unwrap_or_else(|| m.header.dir.display().to_string()),
        target.device(),
        target.capacity(),
        cpu,
        cores,
        max_tokens,
        env!("CARGO_PKG_VERSION"),
        crate::kernels::REVISION
    );
    // FNV-1a: a stable file name for the key.
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    Some(dir.join(format!("{}-{hash:016x}.json", m.display_name())))
}

/// A cached curve is trusted only if a quick probe (median of 3 one-token passes) lands within this factor of
/// its first point: a curve measured while the machine was busy would otherwise mislead the policy for good.
const STALE_FACTOR: f64 = 1.4;

/// The cached curve for this model and machine, or a fresh measurement (which is then cached). A cached curve
/// whose one-token cost no longer matches a quick probe is measured again.
pub(crate) fn measure_or_load(target: &mut LanguageModel, max_tokens: usize) -> Result<CostCurve> {
    let file = cache_file(target, max_tokens);
    let cached: Option<CostCurve> = file.as_ref().and_then(|f| std::fs::read_to_string(f).ok()).and_then(|t| serde_json::from_str(&t).ok());
    if let Some(curve) = cached {
        let probe = measure(target, 1)?.seconds(1);
        let expected = curve.seconds(1);
        if probe > 0.0 && expected > 0.0 && (probe / expected).max(expected / probe) <= STALE_FACTOR {
            return Ok(curve);
        }
    }
    let curve = measure(target, max_tokens)?;
    if let Some(f) = file {
        if let Some(dir) = f.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // A cache that cannot be written only costs a re-measurement next time.
        let _ = std::fs::write(&f, serde_json::to_string(&curve).unwrap_or_default());
    }
    Ok(curve)
}

/// Rounds of [`measure`]: every pass size once per round.
const ROUNDS: usize = 5;

/// Times target passes of 1..=max_tokens new tokens on top of a 128-token context: one untimed round, then
/// [`ROUNDS`] rounds, each timing every size once in turn, the median per size, made non-decreasing in tokens.
///
/// Why: measured size by size right after loading (3 passes of 1 token, then 3 of 2, ...), the curves of one model
/// on one machine disagreed by up to 1.5x and a cached curve kept the accident for good (AMD EPYC Zen 4,
/// 2026-12-05: one priced a 2-token pass below a 1-token pass, one a 3-token pass 33% above a 2-token pass where
/// examples/pass_cost measured 4%; the window policy drafts by it). A fresh session's first pass of each shape
/// pays for its allocations, and a shared VM drifts 10-15% within seconds. Four loads of the deep Medusa hybrid's
/// target, 12-token pass in one-token steps: 2.72-3.98 in turn without the untimed round, 3.11-3.20 with it. In
/// turn, a slow stretch hits every size alike; a pass over more tokens does the work of one over fewer and more,
/// so a measured dip is noise.
pub(crate) fn measure(target: &mut LanguageModel, max_tokens: usize) -> Result<CostCurve> {
    let vocab = target.vocab_size() as u32;
    let context = 128.min(target.capacity().saturating_sub(max_tokens + 1));
    let filler: Vec<u32> = (0..context as u32).map(|i| 100 + (i * 7919) % (vocab.saturating_sub(200).max(1))).collect();
    let probe: Vec<u32> = (0..max_tokens as u32).map(|i| 300 + (i * 31) % (vocab.saturating_sub(400).max(1))).collect();
    target.reset();
    if !filler.is_empty() {
        target.append(&filler)?;
    }
    let sizes: Vec<usize> = (1..=max_tokens).filter(|&n| n <= 8 || n % 4 == 0 || n == max_tokens).collect();
    let mut samples = vec![Vec::with_capacity(ROUNDS); sizes.len()];
    // one untimed round first: a fresh session's first pass of each shape pays for its allocations
    for round in 0..=ROUNDS {
        for (i, &n) in sizes.iter().enumerate() {
            let t0 = Instant::now();
            target.append_all(&probe[..n])?;
            if round > 0 {
                samples[i].push(t0.elapsed().as_secs_f64());
            }
            target.truncate(context)?;
        }
    }
    target.reset();
    Ok(curve_from_samples(&sizes, samples))
}

/// The median of each size's samples, made non-decreasing in tokens (see [`measure`]).
fn curve_from_samples(sizes: &[usize], samples: Vec<Vec<f64>>) -> CostCurve {
    let mut points = Vec::with_capacity(sizes.len());
    let mut floor = 0.0f64;
    for (&n, mut s) in sizes.iter().zip(samples) {
        s.sort_by(f64::total_cmp);
        let median = s.get(s.len() / 2).copied().unwrap_or(0.0);
        floor = floor.max(median);
        points.push((n, floor));
    }
    CostCurve::from_points(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_curve_prices_seen_sizes_by_their_passes_and_the_rest_by_the_per_row_excess() {
        // Load-time: 10 / 11 / 11 / 12 ms; decoding sees 2-token passes at 13 ms and 3-token passes at 15 ms.
        let load = CostCurve::from_points(vec![(1, 0.010), (2, 0.011), (3, 0.011), (4, 0.012)]);
        let mut live = LiveCurve::new(load.clone(), true, 0.5);
        assert_eq!(live.seconds(3), 0.011, "nothing observed: the load-time curve");
        for _ in 0..MIN_SEEN {
            live.observe(2, 0.013);
            live.observe(3, 0.015);
        }
        assert!((live.seconds(2) - 0.013).abs() < 1e-12 && (live.seconds(3) - 0.015).abs() < 1e-12);
        // 4 tokens never ran: load + 4 x the running per-row excess (between 1 and 4/3 ms per row here).
        let four = live.seconds(4);
        assert!(four > 0.012 + 4.0 * 0.001 - 1e-9 && four < 0.012 + 4.0 * 0.004 / 3.0 + 1e-9, "{four}");
        // A size not run for a while falls back to the model, so it can be tried again.
        for _ in 0..=FRESH_PASSES {
            live.observe(2, 0.013);
        }
        assert!((live.seconds(3) - (0.011 + 3.0 * 0.001)).abs() < 1e-4, "{}", live.seconds(3));
        // Learning off: the load-time curve whatever was seen (the control).
        let mut fixed = LiveCurve::new(load, false, 0.5);
        fixed.observe(3, 0.015);
        assert_eq!(fixed.seconds(3), 0.011);
    }

    #[test]
    fn interpolates_and_extrapolates() {
        let c = CostCurve::from_points(vec![(4, 0.02), (1, 0.01)]);
        assert!((c.seconds(1) - 0.01).abs() < 1e-12);
        assert!((c.seconds(2) - (0.01 + 0.01 / 3.0)).abs() < 1e-12);
        assert!((c.seconds(7) - 0.03).abs() < 1e-12);
    }

    #[test]
    fn a_curve_takes_each_sizes_median_and_never_falls() {
        // size 2's median (3.0) under size 1's (4.0) is noise: priced as size 1; an outlier does not move a median
        let sizes = [1, 2, 3, 4];
        let samples = vec![vec![4.0, 9.0, 4.5, 3.9, 4.1], vec![3.0, 3.1, 2.9, 3.0, 40.0], vec![5.0, 5.2, 4.9, 5.1, 5.0], vec![6.0; 5]];
        let c = curve_from_samples(&sizes, samples);
        assert_eq!(c.points, vec![(1, 4.1), (2, 4.1), (3, 5.0), (4, 6.0)]);
        // negative control: without the floor size 2 would read 3.0
        let raw = curve_from_samples(&[2], vec![vec![3.0, 3.1, 2.9, 3.0, 40.0]]);
        assert_eq!(raw.points, vec![(2, 3.0)]);
    }
}
