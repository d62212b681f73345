//! The draft-head manifest (`kind: draft_head`, export/README.md "The draft-head contract"): a small graph that
//! drafts tokens from the target's hidden states, bound to ONE target by its checkpoint and tokenizer hashes,
//! with a reduced draft vocabulary mapped to target ids.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::header::{self, Header, ModelKind};
use super::Manifest;
use crate::error::{Error, Result};

/// The three head designs of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HeadKind {
    /// N CTC frames over the draft vocabulary plus a blank, from a window of hidden states.
    Ctc,
    /// One residual block per future position over the newest hidden state.
    Medusa,
    /// One decoder layer over (hidden state, next token) pairs, drafting depth by depth.
    Eagle,
}

/// `head` of the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct HeadSpec {
    /// Which design.
    pub kind: HeadKind,
    /// CTC frames / Medusa heads / EAGLE max depth.
    pub slots: usize,
    /// Newest committed hidden states the graph takes (Medusa: 1; EAGLE: the largest S).
    pub window: usize,
    /// Draft vocabulary size Vd.
    pub draft_vocab_size: usize,
    /// CTC blank id (= Vd, the last index); `None` for the other kinds.
    #[serde(default)]
    pub blank_id: Option<usize>,
}

/// `target` of the manifest: which target the head belongs to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TargetBinding {
    /// The target checkpoint's identity (see [`target_source_sha256`]).
    pub source_sha256: String,
    /// sha256 of the target's tokenizer.json.
    pub tokenizer_sha256: String,
    /// The target's hidden size.
    pub hidden_size: usize,
    /// The target's vocabulary size.
    pub vocab_size: usize,
}

/// `draft_vocab` of the manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct DraftVocabSpec {
    /// The JSON file with Vd target ids.
    pub file: String,
    /// Fraction of held-out target tokens inside the draft vocabulary (`None` for random heads).
    #[serde(default)]
    pub coverage: Option<f64>,
}

/// A parsed draft-head manifest plus its folder and the loaded draft vocabulary.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct HeadManifest {
    /// Format, version, kind ([`ModelKind::DraftHead`] here), graph, source, file hashes and folder.
    #[serde(flatten)]
    pub header: Header,
    /// The head design and its sizes.
    pub head: HeadSpec,
    /// The target it belongs to.
    pub target: TargetBinding,
    /// The draft vocabulary file.
    pub draft_vocab: DraftVocabSpec,
    /// Draft id -> target id (filled on load from `draft_vocab.file`).
    #[serde(skip)]
    pub draft_to_target: Vec<u32>,
}

impl HeadManifest {
    /// Reads `dir/manifest.json` and the draft vocabulary; checks kind, version, sizes and files.
    pub fn load(dir: &Path) -> Result<Self> {
        let (path, mut m): (_, HeadManifest) = header::parse(dir, ModelKind::DraftHead, "draft-head manifest", |_, raw| {
            format!("kind is `{raw}`, but a drafter of kind `head` needs a draft head (`python -m export draft-head`)")
        })?;
        header::check_files(dir, &[&m.header.graph.file, &m.draft_vocab.file])?;
        let vocab_path = dir.join(&m.draft_vocab.file);
        let vocab_text = std::fs::read_to_string(&vocab_path).map_err(|e| Error::io(&vocab_path, e))?;
        let ids: Vec<u32> = serde_json::from_str(&vocab_text).map_err(|e| Error::model(&vocab_path, format!("not a JSON list of token ids: {e}")))?;
        let h = &m.head;
        if ids.len() != h.draft_vocab_size || h.slots == 0 || h.window == 0 {
            return Err(Error::model(
                &path,
                format!(
                    "head: draft_vocab_size {} but {} ids in {}; slots {} and window {} must be >= 1",
                    h.draft_vocab_size,
                    ids.len(),
                    m.draft_vocab.file,
                    h.slots,
                    h.window
                ),
            ));
        }
        if let Some(&bad) = ids.iter().find(|&&t| t as usize >= m.target.vocab_size) {
            return Err(Error::model(&vocab_path, format!("target id {bad} is outside the target vocabulary ({})", m.target.vocab_size)));
        }
        if h.kind == HeadKind::Ctc && h.blank_id != Some(h.draft_vocab_size) {
            return Err(Error::model(
                &path,
                format!("head.blank_id must be draft_vocab_size ({}) for a ctc head, found {:?}", h.draft_vocab_size, h.blank_id),
            ));
        }
        m.draft_to_target = ids;
        m.header.dir = dir.to_path_buf();
        Ok(m)
    }

    /// Refuses a head that belongs to another target (checkpoint, tokenizer or sizes), or a target without the
    /// `hidden_states` output the head reads.
    pub(crate) fn check_binding(&self, target: &Manifest) -> Result<()> {
        let err = |m: String| Err(Error::model(&self.header.dir, m));
        let t = &self.target;
        let source = target_source_sha256(target);
        if t.source_sha256 != source {
            return err(format!(
                "this head belongs to the checkpoint {} but the target {} comes from {source}",
                t.source_sha256,
                target.header.dir.display()
            ));
        }
        let tok = target.header.files.get(&target.tokenizer).cloned().unwrap_or_default();
        if !tok.is_empty() && t.tokenizer_sha256 != tok {
            return err(format!("the head's target tokenizer sha256 {} differs from {}'s ({tok})", t.tokenizer_sha256, target.header.dir.display()));
        }
        if t.hidden_size != target.dims.hidden_size || t.vocab_size != target.dims.vocab_size {
            return err(format!(
                "the head expects hidden size {} and vocabulary {}, the target has {} and {}",
                t.hidden_size, t.vocab_size, target.dims.hidden_size, target.dims.vocab_size
            ));
        }
        if !target.hidden_states {
            return err(format!("the target {} has no `hidden_states` output: re-export it with --hidden-states", target.header.dir.display()));
        }
        Ok(())
    }

    /// A short display name: the folder name.
    pub(crate) fn display_name(&self) -> String {
        self.header.display_name()
    }
}

/// A target's checkpoint identity as heads record it: the sha256 of its checkpoint file when the manifest's
/// `source.files` has exactly one entry, else the sha256 of the canonical JSON (sorted keys, no whitespace) of
/// `source` without its `path` key (random test models, multi-file folders).
pub(crate) fn target_source_sha256(target: &Manifest) -> String {
    let src = &target.header.source;
    if let Some(files) = src.get("files").and_then(|f| f.as_object()) {
        if files.len() == 1 {
            if let Some(sha) = files.values().next().and_then(|v| v.as_str()) {
                return sha.to_string();
            }
        }
    }
    let mut canonical = src.clone();
    if let Some(obj) = canonical.as_object_mut() {
        obj.remove("path");
    }
    Sha256::digest(canonical.to_string().as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
