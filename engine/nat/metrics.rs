//! Corpus BLEU and chrF for the CTC NAT translation benchmark, bit-for-bit with sacrebleu 2.6.0's defaults.
//!
//! - [`corpus_bleu`] is `sacrebleu.corpus_bleu(hyps, [refs])`: tokenizer `13a`, case-sensitive, `exp`
//!   smoothing, n-grams up to 4, no effective order, one reference per segment.
//! - [`corpus_chrf`] is `sacrebleu.corpus_chrf(hyps, [refs])`: character n-grams up to 6, no word n-grams,
//!   beta 2, whitespace removed, sacrebleu's default "effective order" averaging (not eps smoothing).
//!
//! Both sum sufficient statistics over the segments and compute the score once, as sacrebleu does.
//! `tests/translation_metrics.rs` checks them against `tests/fixtures/sacrebleu_parity.json`, written by
//! `export/sacrebleu_fixture.py` with sacrebleu itself.
//!
//! Whitespace follows Python's `str.split()`/`str.rstrip()` (Unicode `White_Space` plus U+001C..U+001F), and
//! the 13a regular expressions use ASCII classes only (sacrebleu compiles them with `re`, not `regex`), so
//! letters such as `ä`, `ß` or `€` are never split off.

use std::collections::HashMap;
use std::hash::Hash;

/// Maximum word n-gram order of BLEU (sacrebleu's `MAX_NGRAM_ORDER`).
const BLEU_MAX_ORDER: usize = 4;
/// Character n-gram order of chrF (sacrebleu's `CHRF.CHAR_ORDER`).
const CHRF_CHAR_ORDER: usize = 6;
/// Recall weight of chrF (sacrebleu's `CHRF.BETA`).
const CHRF_BETA: f64 = 2.0;

/// Why a corpus score could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricsError {
    /// The two sides do not have one reference per hypothesis.
    #[error("corpus length mismatch: {hypotheses} hypotheses but {references} references")]
    LengthMismatch {
        /// Number of hypotheses given.
        hypotheses: usize,
        /// Number of references given.
        references: usize,
    },
    /// No segments at all (sacrebleu raises on an empty corpus too).
    #[error("empty corpus: no hypotheses to score")]
    EmptyCorpus,
}

/// A corpus BLEU score with the numbers sacrebleu reports next to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BleuScore {
    /// BLEU in [0, 100] (sacrebleu's `BLEUScore.score`).
    pub score: f64,
    /// Smoothed n-gram precisions in percent, orders 1..=4 (sacrebleu's `precisions`; all zero when no
    /// n-gram matched at all).
    pub precisions: [f64; 4],
    /// Brevity penalty (sacrebleu's `bp`).
    pub brevity_penalty: f64,
    /// Total hypothesis length in 13a tokens (sacrebleu's `sys_len`).
    pub hyp_len: usize,
    /// Total reference length in 13a tokens (sacrebleu's `ref_len`).
    pub ref_len: usize,
}

/// Python's `str.isspace()`: Unicode `White_Space` plus the four ASCII separators U+001C..U+001F.
fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.split()` with no argument.
fn py_split(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_py_space).filter(|t| !t.is_empty())
}

/// ASCII digit, as the regex class `[0-9]`.
fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}

/// The class `[\{-\~\[-\` -\&\(-\+\:-\@\/]` of sacrebleu's `TokenizerRegexp`: ASCII punctuation and symbols
/// except `'`, `,`, `-` and `.`, plus the space.
fn is_split_symbol(c: char) -> bool {
    matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/')
}

/// One `re.sub` of a two-character pattern `(a)(b)`: leftmost, non-overlapping matches, scanning on after each.
fn sub_pairs(chars: &[char], first: impl Fn(char) -> bool, second: impl Fn(char) -> bool, emit: impl Fn(&mut Vec<char>, char, char)) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + chars.len() / 2);
    let mut i = 0;
    while i < chars.len() {
        if i + 1 < chars.len() && first(chars[i]) && second(chars[i + 1]) {
            emit(&mut out, chars[i], chars[i + 1]);
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// sacrebleu's `13a` tokenizer as BLEU applies it (after `rstrip()`), returning the tokens.
///
/// Drops `<skipped>`, joins `-\n`, turns newlines into spaces, decodes `&quot;`, `&amp;`, `&lt;`, `&gt;` (in
/// that order), then runs the `TokenizerRegexp` rules: split ASCII symbols off, split `.`/`,` unless between
/// digits, split `-` after a digit.
pub(crate) fn tokenize_13a(line: &str) -> Vec<String> {
    let mut line = line.trim_end_matches(is_py_space).replace("<skipped>", "");
    line = line.replace("-\n", "").replace('\n', " ");
    if line.contains('&') {
        line = line.replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    }
    let padded: Vec<char> = std::iter::once(' ').chain(line.chars()).chain(std::iter::once(' ')).collect();

    // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
    let mut chars = Vec::with_capacity(padded.len() * 2);
    for c in padded {
        if is_split_symbol(c) {
            chars.extend([' ', c, ' ']);
        } else {
            chars.push(c);
        }
    }
    let is_period_comma = |c: char| c == '.' || c == ',';
    // ([^0-9])([\.,]) -> "\1 \2 "
    let chars = sub_pairs(&chars, |c| !is_digit(c), is_period_comma, |o, a, b| o.extend([a, ' ', b, ' ']));
    // ([\.,])([^0-9]) -> " \1 \2"
    let chars = sub_pairs(&chars, is_period_comma, |c| !is_digit(c), |o, a, b| o.extend([' ', a, ' ', b]));
    // ([0-9])(-) -> "\1 \2 "
    let chars = sub_pairs(&chars, is_digit, |c| c == '-', |o, a, b| o.extend([a, ' ', b, ' ']));

    let text: String = chars.into_iter().collect();
    py_split(&text).map(str::to_owned).collect()
}

/// Counts of every n-gram of `items` for each order in `1..=max_order`, in one map (n-grams of different
/// orders never collide since their lengths differ).
fn count_ngrams<T: Eq + Hash>(items: &[T], max_order: usize) -> HashMap<&[T], usize> {
    let mut counts = HashMap::new();
    for n in 1..=max_order.min(items.len()) {
        for gram in items.windows(n) {
            *counts.entry(gram).or_insert(0) += 1;
        }
    }
    counts
}

fn check_lengths(hypotheses: &[String], references: &[String]) -> Result<(), MetricsError> {
    if hypotheses.len() != references.len() {
        return Err(MetricsError::LengthMismatch { hypotheses: hypotheses.len(), references: references.len() });
    }
    if hypotheses.is_empty() {
        return Err(MetricsError::EmptyCorpus);
    }
    Ok(())
}

/// sacrebleu's `my_log`: `ln`, floored at -9999999999 for zero.
fn my_log(x: f64) -> f64 {
    if x == 0.0 {
        -9_999_999_999.0
    } else {
        x.ln()
    }
}

/// BLEU's sufficient statistics of one segment (or, summed, of a corpus): what sacrebleu adds up over the
/// segments before it computes the score once. Sums of these are what paired bootstrap resampling recombines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BleuStats {
    /// Hypothesis length in 13a tokens.
    pub hyp_len: usize,
    /// Reference length in 13a tokens.
    pub ref_len: usize,
    /// Clipped n-gram matches, orders 1..=4.
    pub correct: [usize; BLEU_MAX_ORDER],
    /// Hypothesis n-grams, orders 1..=4.
    pub total: [usize; BLEU_MAX_ORDER],
}

impl BleuStats {
    /// Adds another segment's (or corpus') statistics.
    pub fn add(&mut self, other: &BleuStats) {
        self.hyp_len += other.hyp_len;
        self.ref_len += other.ref_len;
        for n in 0..BLEU_MAX_ORDER {
            self.correct[n] += other.correct[n];
            self.total[n] += other.total[n];
        }
    }

    /// The BLEU these statistics give (sacrebleu's `compute_bleu` with its defaults).
    pub fn score(&self) -> BleuScore {
        compute_bleu(&self.correct, &self.total, self.hyp_len, self.ref_len)
    }
}

/// BLEU's statistics of one hypothesis against its one reference (13a tokens, n-grams up to 4).
pub fn segment_bleu_stats(hypothesis: &str, reference: &str) -> BleuStats {
    let hyp_tokens = tokenize_13a(hypothesis);
    let ref_tokens = tokenize_13a(reference);
    let hyp_refs: Vec<&str> = hyp_tokens.iter().map(String::as_str).collect();
    let ref_refs: Vec<&str> = ref_tokens.iter().map(String::as_str).collect();
    // One reference: the "closest" reference length is its length.
    let mut stats = BleuStats { hyp_len: hyp_refs.len(), ref_len: ref_refs.len(), ..Default::default() };
    let ref_counts = count_ngrams(&ref_refs, BLEU_MAX_ORDER);
    for (gram, &count) in &count_ngrams(&hyp_refs, BLEU_MAX_ORDER) {
        let n = gram.len() - 1;
        stats.total[n] += count;
        if let Some(&in_ref) = ref_counts.get(gram) {
            stats.correct[n] += count.min(in_ref);
        }
    }
    stats
}

/// Per-segment BLEU statistics of a corpus (errors as [`corpus_bleu`]).
pub fn corpus_bleu_stats(hypotheses: &[String], references: &[String]) -> Result<Vec<BleuStats>, MetricsError> {
    check_lengths(hypotheses, references)?;
    Ok(hypotheses.iter().zip(references).map(|(h, r)| segment_bleu_stats(h, r)).collect())
}

/// Corpus BLEU of `hypotheses` against one reference each, as `sacrebleu.corpus_bleu(hypotheses,
/// [references])` computes it with its defaults (13a tokenizer, mixed case, `exp` smoothing, 4-grams, no
/// effective order).
///
/// Errors on an empty corpus or when the two slices differ in length.
pub fn corpus_bleu(hypotheses: &[String], references: &[String]) -> Result<BleuScore, MetricsError> {
    let mut sum = BleuStats::default();
    for s in corpus_bleu_stats(hypotheses, references)? {
        sum.add(&s);
    }
    Ok(sum.score())
}

/// sacrebleu's `BLEU.compute_bleu` with `smooth_method="exp"` and `effective_order=False`.
fn compute_bleu(correct: &[usize; BLEU_MAX_ORDER], total: &[usize; BLEU_MAX_ORDER], sys_len: usize, ref_len: usize) -> BleuScore {
    let brevity_penalty = if sys_len < ref_len {
        if sys_len > 0 {
            (1.0 - ref_len as f64 / sys_len as f64).exp()
        } else {
            0.0
        }
    } else {
        1.0
    };
    let mut precisions = [0.0f64; BLEU_MAX_ORDER];
    let mut out = BleuScore { score: 0.0, precisions, brevity_penalty, hyp_len: sys_len, ref_len };
    if correct.iter().all(|&c| c == 0) {
        return out;
    }
    let mut smooth_mteval = 1.0f64;
    for n in 0..BLEU_MAX_ORDER {
        if total[n] == 0 {
            break;
        }
        precisions[n] = if correct[n] == 0 {
            smooth_mteval *= 2.0;
            100.0 / (smooth_mteval * total[n] as f64)
        } else {
            100.0 * correct[n] as f64 / total[n] as f64
        };
    }
    let log_sum = precisions.iter().fold(0.0f64, |acc, &p| acc + my_log(p));
    out.score = brevity_penalty * (log_sum / BLEU_MAX_ORDER as f64).exp();
    out.precisions = precisions;
    out
}

/// Corpus chrF of `hypotheses` against one reference each, as `sacrebleu.corpus_chrf(hypotheses,
/// [references])` computes it with its defaults (chrF2: character 6-grams, no word n-grams, beta 2,
/// whitespace removed, effective-order averaging), in [0, 100].
///
/// Errors on an empty corpus or when the two slices differ in length.
pub fn corpus_chrf(hypotheses: &[String], references: &[String]) -> Result<f64, MetricsError> {
    check_lengths(hypotheses, references)?;
    // Per order: [hypothesis n-grams, reference n-grams, matches], summed over segments.
    let mut stats = [[0usize; 3]; CHRF_CHAR_ORDER];
    for (hyp, reference) in hypotheses.iter().zip(references) {
        let hyp_chars: Vec<char> = hyp.chars().filter(|&c| !is_py_space(c)).collect();
        let ref_chars: Vec<char> = reference.chars().filter(|&c| !is_py_space(c)).collect();
        let hyp_counts = count_ngrams(&hyp_chars, CHRF_CHAR_ORDER);
        let ref_counts = count_ngrams(&ref_chars, CHRF_CHAR_ORDER);
        for (n, order_stats) in stats.iter_mut().enumerate() {
            let order = n + 1;
            let ref_total = ref_chars.len().saturating_sub(n);
            let hyp_total = hyp_chars.len().saturating_sub(n);
            let matches: usize = hyp_counts
                .iter()
                .filter(|(gram, _)| gram.len() == order)
                .map(|(gram, &count)| ref_counts.get(gram).map_or(0, |&r| count.min(r)))
                .sum();
            // sacrebleu counts no hypothesis n-grams of an order the reference has none of.
            order_stats[0] += if ref_total > 0 { hyp_total } else { 0 };
            order_stats[1] += ref_total;
            order_stats[2] += matches;
        }
    }
    Ok(chrf_f_score(&stats))
}

/// sacrebleu's `CHRF._compute_f_score` with `eps_smoothing=False`: average precision and recall over the
/// orders both sides have n-grams of, then one F-beta.
fn chrf_f_score(stats: &[[usize; 3]; CHRF_CHAR_ORDER]) -> f64 {
    let factor = CHRF_BETA * CHRF_BETA;
    let (mut avg_prec, mut avg_rec) = (0.0f64, 0.0f64);
    let mut effective_order = 0usize;
    for &[n_hyp, n_ref, n_match] in stats {
        if n_hyp > 0 && n_ref > 0 {
            avg_prec += n_match as f64 / n_hyp as f64;
            avg_rec += n_match as f64 / n_ref as f64;
            effective_order += 1;
        }
    }
    if effective_order == 0 {
        return 0.0;
    }
    avg_prec /= effective_order as f64;
    avg_rec /= effective_order as f64;
    if avg_prec + avg_rec == 0.0 {
        return 0.0;
    }
    let score = (1.0 + factor) * avg_prec * avg_rec / (factor * avg_prec + avg_rec);
    100.0 * score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn identical_corpus_scores_100() {
        let refs = strings(&["Das ist ein kleiner Test, nicht wahr?", "Die Straße ist 1.000,50 € lang."]);
        let bleu = corpus_bleu(&refs, &refs).unwrap();
        assert!((bleu.score - 100.0).abs() < 1e-9, "{bleu:?}");
        assert_eq!(bleu.brevity_penalty, 1.0);
        assert_eq!(bleu.precisions, [100.0; 4]);
        assert_eq!(bleu.hyp_len, bleu.ref_len);
        assert!((corpus_chrf(&refs, &refs).unwrap() - 100.0).abs() < 1e-9);
    }

    #[test]
    fn disjoint_corpus_scores_0() {
        let hyps = strings(&["aaa bbb ccc ddd"]);
        let refs = strings(&["xxx yyy zzz www"]);
        let bleu = corpus_bleu(&hyps, &refs).unwrap();
        assert_eq!(bleu.score, 0.0);
        assert_eq!(bleu.precisions, [0.0; 4]);
        assert_eq!(corpus_chrf(&hyps, &refs).unwrap(), 0.0);
    }

    #[test]
    fn length_mismatch_and_empty_corpus_are_errors() {
        let two = strings(&["a b", "c d"]);
        let one = strings(&["a b"]);
        let mismatch = MetricsError::LengthMismatch { hypotheses: 2, references: 1 };
        assert_eq!(corpus_bleu(&two, &one), Err(mismatch.clone()));
        assert_eq!(corpus_chrf(&two, &one), Err(mismatch));
        assert_eq!(corpus_bleu(&[], &[]), Err(MetricsError::EmptyCorpus));
        assert_eq!(corpus_chrf(&[], &[]), Err(MetricsError::EmptyCorpus));
    }

    #[test]
    fn tokenizer_13a_rules() {
        assert_eq!(
            tokenize_13a("Er sagte: \"Größe 1.000,50 €\" z.B."),
            ["Er", "sagte", ":", "\"", "Größe", "1.000,50", "€", "\"", "z", ".", "B", "."]
        );
        assert_eq!(tokenize_13a("1990-2000, U.S.A. &amp;lt; x-y"), ["1990", "-", "2000", ",", "U", ".", "S", ".", "A", ".", "<", "x-y"]);
        assert_eq!(tokenize_13a("a<skipped>b line-\nbreak\nnext \u{1c}end\u{a0} "), ["ab", "linebreak", "next", "end"]);
    }

    #[test]
    fn brevity_penalty_for_short_hypothesis() {
        let hyps = strings(&["der Hund bellt laut"]);
        let refs = strings(&["der Hund bellt laut und lange"]);
        let bleu = corpus_bleu(&hyps, &refs).unwrap();
        assert_eq!((bleu.hyp_len, bleu.ref_len), (4, 6));
        assert!((bleu.brevity_penalty - (1.0f64 - 6.0 / 4.0).exp()).abs() < 1e-15);
        assert!((bleu.score - 100.0 * bleu.brevity_penalty).abs() < 1e-9);
    }
}
