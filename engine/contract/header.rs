//! What every manifest shares: the format name and version, the model kind, the files it names, and the
//! folder's display name. Each kind's manifest ([`super::decoder`], [`super::ctc_nat`]) reads through these.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::tensor::GraphSpec;
use crate::error::{Error, Result};

/// The manifest format this engine reads.
pub(crate) const FORMAT: &str = "specrt-model";
/// The manifest version this engine reads.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// What an exported folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// A decoder language model with a KV cache (the decoder contract).
    Decoder,
    /// A CTC non-autoregressive encoder (one pass per output).
    CtcNat,
    /// A draft head bound to one decoder target.
    DraftHead,
}

impl ModelKind {
    /// The name as written in `manifest.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelKind::Decoder => "decoder",
            ModelKind::CtcNat => "ctc_nat",
            ModelKind::DraftHead => "draft_head",
        }
    }
}

impl std::fmt::Display for ModelKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The fields every manifest kind starts with, read flattened from the top level of `manifest.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// Contract version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// What the folder holds.
    pub kind: ModelKind,
    /// The graph file and its declared inputs and outputs.
    pub graph: GraphSpec,
    /// Where the weights came from (free-form, shown to users).
    #[serde(default)]
    pub source: serde_json::Value,
    /// sha256 of each file of the folder.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// The model folder (filled on load, not part of the file).
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Header {
    /// A short display name: the folder name.
    pub(crate) fn display_name(&self) -> String {
        folder_name(&self.dir)
    }
}

/// `dir/manifest.json`'s path and text; a missing folder gets a pointed message.
pub(crate) fn read_text(dir: &Path) -> Result<(PathBuf, String)> {
    if !dir.is_dir() {
        return Err(Error::model(dir, "not a folder (export one with `python -m export`, see export/README.md)"));
    }
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::model(&path, format!("cannot read: {e}")))?;
    Ok((path, text))
}

/// The `kind` a manifest declares, read before the kind's own schema so a folder of another kind gets a pointed
/// message instead of "missing field ...". `Ok(None)` when the key is absent or not a known kind.
pub(crate) fn peek_kind(path: &Path, text: &str) -> Result<(Option<ModelKind>, String)> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::model(path, format!("invalid JSON: {e}")))?;
    let raw = value.get("kind").and_then(|k| k.as_str()).unwrap_or("").to_string();
    let kind = serde_json::from_value(serde_json::Value::String(raw.clone())).ok();
    Ok((kind, raw))
}

/// Reads `dir/manifest.json` as a manifest of kind `expected`, the prologue every kind shares: a folder of
/// another kind gets `wrong_kind(raw kind)` as its message, then the format and version are checked, then the
/// kind's own schema (`what` names it in the error). Returns the manifest path and the parsed manifest.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    dir: &Path,
    expected: ModelKind,
    what: &str,
    wrong_kind: impl FnOnce(Option<ModelKind>, &str) -> String,
) -> Result<(PathBuf, T)> {
    #[derive(Deserialize)]
    struct Versioned {
        format: String,
        format_version: u32,
    }
    let (path, text) = read_text(dir)?;
    let (kind, raw) = peek_kind(&path, &text)?;
    if kind != Some(expected) {
        return Err(Error::model(&path, wrong_kind(kind, &raw)));
    }
    let v: Versioned = serde_json::from_str(&text).map_err(|e| Error::model(&path, format!("invalid {what}: {e}")))?;
    check_format(&path, &v.format, v.format_version)?;
    let manifest = serde_json::from_str(&text).map_err(|e| Error::model(&path, format!("invalid {what}: {e}")))?;
    Ok((path, manifest))
}

/// The format name and version this engine reads.
pub(crate) fn check_format(path: &Path, format: &str, version: u32) -> Result<()> {
    if format != FORMAT {
        return Err(Error::model(path, format!("format is `{format}`, expected `{FORMAT}`")));
    }
    if version != FORMAT_VERSION {
        return Err(Error::model(
            path,
            format!("format_version {version} is not supported (this engine reads {FORMAT_VERSION}); re-export the model"),
        ));
    }
    Ok(())
}

/// Every file the manifest names exists in the folder.
pub(crate) fn check_files(dir: &Path, files: &[&String]) -> Result<()> {
    for file in files {
        if !dir.join(file).is_file() {
            return Err(Error::model(dir, format!("missing file `{file}` named in manifest.json")));
        }
    }
    Ok(())
}

/// A short display name for a model folder: its last component.
pub(crate) fn folder_name(dir: &Path) -> String {
    dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string())
}

/// The default tokenizer file name inside a model folder.
pub(crate) fn default_tokenizer() -> String {
    "tokenizer.json".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_by_name_and_unknown_ones_are_none() {
        let p = Path::new("m/manifest.json");
        assert_eq!(peek_kind(p, r#"{"kind": "ctc_nat"}"#).unwrap().0, Some(ModelKind::CtcNat));
        assert_eq!(peek_kind(p, r#"{"kind": "decoder"}"#).unwrap().0, Some(ModelKind::Decoder));
        let (k, raw) = peek_kind(p, r#"{"kind": "vision"}"#).unwrap();
        assert_eq!((k, raw.as_str()), (None, "vision"));
        assert!(peek_kind(p, "{").is_err());
    }
}
