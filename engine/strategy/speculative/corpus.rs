//! A lookup corpus: a static n-gram store of token streams the target itself produced (its own greedy answers to
//! prompts like the ones it will serve), searched when the request's own context has no match. The same idea as
//! llama.cpp's static lookup cache and REST, sized for a CPU: a few hundred thousand tokens, an in-memory index
//! built at load (docs/METHODS.md section 1.4).
//!
//! On disk a corpus is a folder: `corpus.json` (format `specrt-lookup-corpus`, version 1; the sha256 of the
//! tokenizer.json it was tokenized with, which must equal the target's; the vocabulary size; the token file's
//! sha256) and `tokens.bin` (little-endian u32 ids; [`DOCUMENT_END`] separates documents, so no n-gram spans two).
//! `python -m export lookup-corpus` writes it.
//!
//! Drafting from the corpus: take the longest suffix of the context (n_max down to n_min tokens) the corpus has
//! seen, propose the continuation it saw most often if it was seen `min_count` times and makes at least
//! `min_share` of them (count / (total + 1)), append it and repeat, up to `max_tokens`. Drafts are verified like
//! any other, so the corpus changes speed only, never the output.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::config::CorpusConfig;
use crate::contract::Manifest;
use crate::error::{Error, Result};

/// The separator between documents in `tokens.bin`.
pub const DOCUMENT_END: u32 = u32::MAX;

/// The format name `corpus.json` must carry.
const FORMAT: &str = "specrt-lookup-corpus";
/// The one format version this engine reads.
const FORMAT_VERSION: u32 = 1;

/// `corpus.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusManifest {
    format: String,
    format_version: u32,
    /// sha256 of the tokenizer.json the tokens come from.
    tokenizer_sha256: String,
    /// The tokenizer's vocabulary size (every id is below it).
    vocab_size: usize,
    /// The token file (normally `tokens.bin`).
    tokens_file: String,
    /// Its sha256.
    tokens_sha256: String,
    /// Documents and tokens, for people reading the file; checked against the token file.
    documents: usize,
    tokens: usize,
    /// Where the token streams came from (free text for people).
    #[serde(default)]
    #[allow(dead_code)]
    sources: serde_json::Value,
}

/// The most frequent continuation of one n-gram.
#[derive(Debug, Clone, Copy)]
struct Continuation {
    token: u32,
    count: u32,
    total: u32,
}

/// The in-memory index: for each n-gram (n in `n_min..=n_max`, keyed by a 64-bit hash of its tokens and n), the
/// continuation seen most often and how often any continuation was seen.
#[derive(Debug)]
pub struct LookupCorpus {
    n_min: usize,
    n_max: usize,
    max_tokens: usize,
    min_count: u32,
    min_share: f32,
    index: HashMap<u64, Continuation>,
}

/// FNV-1a over the n-gram's ids and its length: a collision can only cost a rejected draft, never a wrong token.
fn key(ngram: &[u32]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ ngram.len() as u64;
    for &t in ngram {
        for b in t.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

impl LookupCorpus {
    /// Indexes `documents` (token streams) for drafting with `config`'s settings.
    pub fn from_documents<'a>(documents: impl IntoIterator<Item = &'a [u32]>, config: &CorpusConfig) -> Self {
        let mut counts: HashMap<(u64, u32), u32> = HashMap::new();
        for doc in documents {
            for n in config.n_min..=config.n_max {
                for w in doc.windows(n + 1) {
                    *counts.entry((key(&w[..n]), w[n])).or_insert(0) += 1;
                }
            }
        }
        let mut index: HashMap<u64, Continuation> = HashMap::with_capacity(counts.len() / 2);
        for ((k, token), count) in counts {
            let e = index.entry(k).or_insert(Continuation { token, count: 0, total: 0 });
            e.total += count;
            // Ties go to the smaller id so the index does not depend on the hash map's iteration order.
            if count > e.count || (count == e.count && token < e.token) {
                e.token = token;
                e.count = count;
            }
        }
        LookupCorpus {
            n_min: config.n_min,
            n_max: config.n_max,
            max_tokens: config.max_tokens,
            min_count: config.min_count,
            min_share: config.min_share,
            index,
        }
    }

    /// Opens the corpus folder `config.path` for `target`: its tokenizer must be the target's, every id inside the
    /// vocabulary, the token file the one its manifest names.
    pub fn open(config: &CorpusConfig, target: &Manifest) -> Result<Self> {
        let dir = &config.path;
        let bad = |message: String| Error::model(dir, format!("lookup corpus: {message}"));
        let manifest_path = dir.join("corpus.json");
        let text = std::fs::read_to_string(&manifest_path).map_err(|e| bad(format!("cannot read {}: {e}", manifest_path.display())))?;
        let m: CorpusManifest = serde_json::from_str(&text).map_err(|e| bad(format!("corpus.json: {e}")))?;
        if m.format != FORMAT {
            return Err(bad(format!("corpus.json: format is `{}`, expected `{FORMAT}`", m.format)));
        }
        if m.format_version != FORMAT_VERSION {
            return Err(bad(format!("corpus.json: format_version {} is not supported (this engine reads {FORMAT_VERSION})", m.format_version)));
        }
        match target.header.files.get(&target.tokenizer) {
            Some(sha) if *sha == m.tokenizer_sha256 => {}
            Some(sha) => {
                return Err(bad(format!(
                    "built with tokenizer sha256 {} but the target's {} is {sha}: build the corpus with the target's tokenizer",
                    m.tokenizer_sha256, target.tokenizer
                )))
            }
            None => return Err(bad(format!("the target's manifest has no sha256 for {}, so the corpus cannot be matched to it", target.tokenizer))),
        }
        if m.vocab_size > target.dims.vocab_size {
            return Err(bad(format!("vocab_size {} exceeds the target's {}", m.vocab_size, target.dims.vocab_size)));
        }
        let tokens_path: PathBuf = dir.join(&m.tokens_file);
        let bytes = std::fs::read(&tokens_path).map_err(|e| bad(format!("cannot read {}: {e}", tokens_path.display())))?;
        let sha = hex(&Sha256::digest(&bytes));
        if sha != m.tokens_sha256 {
            return Err(bad(format!("{} has sha256 {sha}, corpus.json says {}", m.tokens_file, m.tokens_sha256)));
        }
        let ids = parse_tokens(&bytes, m.vocab_size).map_err(|e| bad(format!("{}: {e}", m.tokens_file)))?;
        let documents: Vec<&[u32]> = ids.split(|&t| t == DOCUMENT_END).filter(|d| !d.is_empty()).collect();
        let tokens: usize = documents.iter().map(|d| d.len()).sum();
        if documents.len() != m.documents || tokens != m.tokens {
            return Err(bad(format!(
                "{} holds {} documents / {tokens} tokens, corpus.json says {} / {}",
                m.tokens_file,
                documents.len(),
                m.documents,
                m.tokens
            )));
        }
        Ok(Self::from_documents(documents, config))
    }

    /// Appends to `out` up to `min(k, max_tokens)` tokens the corpus predicts after `context` (see the module doc).
    pub fn draft(&self, context: &[u32], k: usize, out: &mut Vec<u32>) {
        let want = k.min(self.max_tokens);
        // The last n_max tokens of context + drafts so far: drafting extends the tail it looks up.
        let mut tail: Vec<u32> = context[context.len().saturating_sub(self.n_max)..].to_vec();
        for _ in 0..want {
            let Some(c) = (self.n_min..=self.n_max.min(tail.len())).rev().find_map(|n| self.index.get(&key(&tail[tail.len() - n..]))) else {
                break;
            };
            if c.total < self.min_count || (c.count as f32) < self.min_share * (c.total as f32 + 1.0) {
                break;
            }
            out.push(c.token);
            tail.push(c.token);
            if tail.len() > self.n_max {
                tail.remove(0);
            }
        }
    }
}

/// The ids of a little-endian u32 file, each below `vocab` or the document separator.
fn parse_tokens(bytes: &[u8], vocab: usize) -> std::result::Result<Vec<u32>, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!("{} bytes is not a whole number of u32 ids", bytes.len()));
    }
    let ids: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if let Some((i, t)) = ids.iter().enumerate().find(|&(_, &t)| t != DOCUMENT_END && t as usize >= vocab) {
        return Err(format!("id {t} at position {i} is outside the vocabulary of {vocab}"));
    }
    Ok(ids)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(max_tokens: usize, min_count: u32, min_share: f32) -> CorpusConfig {
        CorpusConfig { path: PathBuf::new(), max_tokens, n_max: 3, n_min: 2, min_count, min_share }
    }

    #[test]
    fn drafts_the_most_frequent_continuation_and_extends_it() {
        // "1 2 -> 3" three times, "1 2 -> 9" once; "2 3 -> 4" always.
        let docs: Vec<Vec<u32>> = vec![vec![1, 2, 3, 4], vec![1, 2, 3, 4], vec![7, 1, 2, 3], vec![1, 2, 9]];
        let c = LookupCorpus::from_documents(docs.iter().map(|d| d.as_slice()), &config(3, 2, 0.5));
        let mut out = Vec::new();
        c.draft(&[5, 1, 2], 8, &mut out);
        // 1 2 -> 3 (3 of 4, share 3/5 >= 0.5); then "1 2 3" -> 4 (2 of 2: 2/3); then "2 3 4" is unseen after and
        // "3 4" has no continuation: stop.
        assert_eq!(out, vec![3, 4]);
    }

    #[test]
    fn thresholds_and_caps_stop_drafting() {
        let docs: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![1, 2, 4]];
        let c = LookupCorpus::from_documents(docs.iter().map(|d| d.as_slice()), &config(3, 1, 0.5));
        let mut out = Vec::new();
        c.draft(&[1, 2], 4, &mut out);
        assert!(out.is_empty(), "1 of 2 is below half of total + 1: {out:?}");
        let c = LookupCorpus::from_documents(docs.iter().map(|d| d.as_slice()), &config(3, 3, 0.0));
        c.draft(&[1, 2], 4, &mut out);
        assert!(out.is_empty(), "seen twice, min_count 3: {out:?}");
        let docs: Vec<Vec<u32>> = vec![vec![1, 2, 3, 4, 5, 6]; 3];
        let c = LookupCorpus::from_documents(docs.iter().map(|d| d.as_slice()), &config(2, 1, 0.5));
        c.draft(&[1, 2], 9, &mut out);
        assert_eq!(out, vec![3, 4], "max_tokens caps the draft");
        out.clear();
        c.draft(&[1, 2], 1, &mut out);
        assert_eq!(out, vec![3], "k caps the draft");
        out.clear();
        c.draft(&[2], 4, &mut out);
        assert!(out.is_empty(), "shorter than n_min: {out:?}");
    }

    #[test]
    fn documents_do_not_join() {
        // Separated, "2 | 3" never forms the bigram 2 3.
        let ids = [1u32, 2, DOCUMENT_END, 3, 4];
        let docs: Vec<&[u32]> = ids.split(|&t| t == DOCUMENT_END).collect();
        let c = LookupCorpus::from_documents(docs, &config(2, 1, 0.0));
        let mut out = Vec::new();
        c.draft(&[1, 2], 2, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn token_files_are_checked() {
        assert!(parse_tokens(&[0, 0, 0], 10).unwrap_err().contains("whole number"));
        let mut b = Vec::new();
        for t in [1u32, DOCUMENT_END, 12] {
            b.extend_from_slice(&t.to_le_bytes());
        }
        assert!(parse_tokens(&b, 10).unwrap_err().contains("id 12 at position 2"));
        assert_eq!(parse_tokens(&b, 13).unwrap(), vec![1, DOCUMENT_END, 12]);
    }
}
