//! The CTC NAT's per-sentence lexical output shortlist (issue 14, docs/BENCHMARKS.md section 5): the table an
//! export carries (`ctc.shortlist` of the manifest, `shortlist.json`, made by `python -m export nat-shortlist`
//! from the training pairs) maps each source token to the target tokens it tends to translate into; a batch's
//! shortlist is the table's `always` list (the most frequent target tokens, <blank>, the specials) plus the rows of
//! its source tokens, and the greedy pass computes only those columns of the output head (`output_columns`).
//!
//! Why: the head (192 x ~6,600 on the small model) is ~40% of a pass's multiply-adds; with K = 16 targets per
//! source token and F = 128 frequent ones a sentence needs ~290 columns (4%), and greedy BLEU on the 2,013 test
//! sentences moves 14.65 -> 14.43 (the study table in docs/BENCHMARKS.md section 5).

use std::path::Path;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::contract::ctc_nat::{CtcSpec, ShortlistSpec};
use crate::error::{Error, Result};

/// The table format this engine reads (`format` and `version` keys of the file).
const FORMAT: &str = "specrt-nat-shortlist";
const VERSION: u32 = 1;

/// The file as written by export/nat_shortlist.py (only the keys the engine uses).
#[derive(Deserialize)]
struct TableFile {
    format: String,
    version: u32,
    vocab: usize,
    always: Vec<u32>,
    rows: std::collections::HashMap<String, Vec<u32>>,
}

/// A loaded shortlist table, mapped to logits columns once so a batch's list costs a few microseconds.
#[derive(Debug, Clone)]
pub struct Shortlist {
    /// Columns of the `always` tokens (sorted, unique).
    always: Vec<u32>,
    /// Per source token id: the columns of its row (tokens outside the output vocabulary dropped).
    rows: Vec<Vec<u32>>,
    /// Logits columns of the whole head.
    width: usize,
    /// Mean shortlist size of the batches built so far (sum and count), for the benchmark's report.
    built: (u64, u64),
    /// Reused marks over the columns.
    mark: Vec<bool>,
    /// Reused: each union column's index in the last union.
    index: Vec<u32>,
}

impl Shortlist {
    /// Reads and checks `dir/spec.file` against the manifest: sha256, format, vocabulary, ids in range, and
    /// <blank> in `always` (a greedy pass without <blank> could never emit it).
    pub fn load(dir: &Path, spec: &ShortlistSpec, ctc: &CtcSpec, vocab: usize) -> Result<Self> {
        let path = dir.join(&spec.file);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if !digest.eq_ignore_ascii_case(&spec.sha256) {
            return Err(Error::model(
                &path,
                format!(
                    "sha256 is {digest}, but the manifest's ctc.shortlist.sha256 says {}: the table was changed or belongs to another export (re-export the model)",
                    spec.sha256
                ),
            ));
        }
        let table: TableFile = serde_json::from_slice(&bytes)
            .map_err(|e| Error::model(&path, format!("not a shortlist table ({e}); make one with `python -m export nat-shortlist`")))?;
        if table.format != FORMAT || table.version != VERSION {
            return Err(Error::model(
                &path,
                format!("key `format` is `{}` v{}, this engine reads `{FORMAT}` v{VERSION}", table.format, table.version),
            ));
        }
        if table.vocab != vocab {
            return Err(Error::model(&path, format!("key `vocab` is {}, but the model's vocabulary is {vocab}", table.vocab)));
        }
        let width = ctc.logits_width(vocab);
        // token -> column (None: outside the output vocabulary, never a CTC target, dropped)
        let column = |t: u32| -> Option<u32> {
            match &ctc.output_ids {
                Some(ids) => ids.binary_search(&t).ok().map(|c| c as u32),
                None => Some(t),
            }
        };
        let check = |key: &str, t: u32| -> Result<()> {
            if t as usize >= vocab {
                return Err(Error::model(&path, format!("key `{key}` holds token id {t}, outside the vocabulary (0..{vocab})")));
            }
            Ok(())
        };
        if !table.always.contains(&ctc.blank_id) {
            return Err(Error::model(&path, format!("key `always` must contain <blank> (id {})", ctc.blank_id)));
        }
        let mut always = Vec::with_capacity(table.always.len());
        for &t in &table.always {
            check("always", t)?;
            always.extend(column(t));
        }
        always.sort_unstable();
        always.dedup();
        let mut rows = vec![Vec::new(); vocab];
        for (key, targets) in &table.rows {
            let s: u32 = key.parse().map_err(|_| Error::model(&path, format!("key `rows`: `{key}` is not a token id")))?;
            check("rows", s)?;
            let mut cols = Vec::with_capacity(targets.len());
            for &t in targets {
                check(&format!("rows.{key}"), t)?;
                cols.extend(column(t));
            }
            rows[s as usize] = cols;
        }
        Ok(Shortlist { always, rows, width, built: (0, 0), mark: vec![false; width], index: vec![0; width] })
    }

    /// Writes into `out` the sorted logits columns of the shortlist of `batch` (the union over its sentences'
    /// token ids; ids without a row, like `<mask>`, add nothing) and into `allowed` `[batch, out.len()]` flags:
    /// row `i` marks the columns of sentence `i`'s own shortlist, which is all its greedy argmax may choose, so a
    /// sentence's output is the same alone and in any batch.
    pub fn columns(&mut self, batch: &[Vec<u32>], out: &mut Vec<i64>, allowed: &mut Vec<u8>) {
        out.clear();
        let mark = &mut self.mark;
        let mut add = |c: u32, out: &mut Vec<i64>| {
            if !mark[c as usize] {
                mark[c as usize] = true;
                out.push(i64::from(c));
            }
        };
        for &c in &self.always {
            add(c, out);
        }
        for s in batch {
            for &t in s {
                if let Some(row) = self.rows.get(t as usize) {
                    for &c in row {
                        add(c, out);
                    }
                }
            }
        }
        for &c in out.iter() {
            self.mark[c as usize] = false;
        }
        out.sort_unstable();
        let s = out.len();
        allowed.clear();
        if batch.len() == 1 {
            // one sentence: its shortlist is the union
            allowed.resize(s, 1);
        } else {
            for (j, &c) in out.iter().enumerate() {
                self.index[c as usize] = j as u32;
            }
            allowed.resize(batch.len() * s, 0);
            for (i, sentence) in batch.iter().enumerate() {
                let row = &mut allowed[i * s..(i + 1) * s];
                for &c in &self.always {
                    row[self.index[c as usize] as usize] = 1;
                }
                for &t in sentence {
                    for &c in self.rows.get(t as usize).map_or(&[][..], Vec::as_slice) {
                        row[self.index[c as usize] as usize] = 1;
                    }
                }
            }
        }
        self.built.0 += s as u64;
        self.built.1 += 1;
    }

    /// Logits columns of the whole head.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Columns summed over the shortlists built so far, and their count.
    pub fn built(&self) -> (u64, u64) {
        self.built
    }

    /// Mean size of the shortlists built so far (`None` before the first).
    pub fn mean_size(&self) -> Option<f64> {
        (self.built.1 > 0).then(|| self.built.0 as f64 / self.built.1 as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ctc_nat::{UpsamplePolicy, UpsampleSpec};

    #[test]
    fn a_batch_s_columns_are_the_sorted_union_of_always_and_its_rows() {
        let mut s = Shortlist {
            always: vec![0, 3],
            rows: vec![vec![], vec![5, 3], vec![7], vec![]],
            width: 8,
            built: (0, 0),
            mark: vec![false; 8],
            index: vec![0; 8],
        };
        let (mut out, mut allowed) = (Vec::new(), Vec::new());
        // id 9 has no row (like <mask>); 3 comes from `always` and a row, once
        s.columns(&[vec![1, 2], vec![1, 9], vec![2]], &mut out, &mut allowed);
        assert_eq!(out, vec![0, 3, 5, 7]);
        // each sentence may choose only its own columns
        assert_eq!(allowed, vec![1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0, 1]);
        // the marks are reset: a later batch without source 1 loses its columns
        s.columns(&[vec![2]], &mut out, &mut allowed);
        assert_eq!((out.as_slice(), allowed.as_slice()), (&[0, 3, 7][..], &[1, 1, 1][..]));
        assert_eq!(s.mean_size(), Some(3.5));
    }

    #[test]
    fn a_table_is_mapped_through_the_output_vocabulary_and_checked_by_sha256() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = br#"{"format":"specrt-nat-shortlist","version":1,"vocab":10,"always":[1,5],"rows":{"2":[4,6,7]}}"#;
        std::fs::write(dir.path().join("t.json"), text).expect("write");
        let sha: String = Sha256::digest(text).iter().map(|b| format!("{b:02x}")).collect();
        let spec = ShortlistSpec { file: "t.json".into(), sha256: sha, vocab: 10, top_k: 3, frequent: 1, input: "output_columns".into() };
        let ctc = CtcSpec {
            blank_id: 5,
            mask_id: 4,
            pad_id: 0,
            upsample: UpsampleSpec { policy: UpsamplePolicy::MaskInsertion, rate: 2.0, position_limit: 8 },
            output_ids: Some(vec![1, 4, 5, 7]),
            shortlist: None,
        };
        let mut s = Shortlist::load(dir.path(), &spec, &ctc, 10).expect("a valid table");
        assert_eq!(s.width(), 4);
        let (mut out, mut allowed) = (Vec::new(), Vec::new());
        // token 6 is outside the output vocabulary: dropped; 1, 5 -> columns 0, 2; 4, 7 -> 1, 3
        s.columns(&[vec![2]], &mut out, &mut allowed);
        assert_eq!(out, vec![0, 1, 2, 3]);
        s.columns(&[vec![3]], &mut out, &mut allowed);
        assert_eq!(out, vec![0, 2]);
        let wrong = ShortlistSpec { sha256: "00".repeat(32), ..spec };
        let err = Shortlist::load(dir.path(), &wrong, &ctc, 10).expect_err("a wrong sha256").to_string();
        assert!(err.contains("t.json") && err.contains("ctc.shortlist.sha256"), "{err}");
    }
}
