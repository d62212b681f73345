//! The model's tokenizer (`tokenizer.json`, Hugging Face `tokenizers`).

use std::path::Path;

use crate::error::{Error, Result};
use crate::text::token_bytes::TokenBytes;

/// Encodes prompts and decodes generated ids.
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    /// The same tokenizer with special-token matching off: text that spells a control token stays text (chat
    /// message content, so a message cannot forge a turn).
    plain: tokenizers::Tokenizer,
    /// The text of every special added token (`<|im_start|>`, `<|endoftext|>`, ...).
    specials: Vec<String>,
    /// Every token's bytes, for allocation-free streaming (byte-level vocabularies only).
    bytes: Option<TokenBytes>,
}

impl Tokenizer {
    /// Loads `tokenizer.json`.
    pub fn load(path: &Path) -> Result<Self> {
        let inner = tokenizers::Tokenizer::from_file(path).map_err(|e| Error::Tokenizer(format!("{}: {e}", path.display())))?;
        let mut plain = inner.clone();
        plain.set_encode_special_tokens(true);
        let mut specials: Vec<String> =
            inner.get_added_tokens_decoder().into_values().filter(|t| t.special && !t.content.is_empty()).map(|t| t.content).collect();
        specials.sort();
        let bytes = TokenBytes::build(&inner);
        Ok(Tokenizer { inner, plain, specials, bytes })
    }

    /// Token ids of `text`. Special tokens written in the text (e.g. `<|im_start|>`) are recognised, so a
    /// rendered chat template encodes to its control tokens.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.inner.encode(text, false).map_err(|e| Error::Tokenizer(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    /// Token ids of `text` with special tokens not recognised: `<|im_start|>` written in the text encodes as the
    /// ordinary tokens that spell it, never as the control token.
    pub(crate) fn encode_plain(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.plain.encode(text, false).map_err(|e| Error::Tokenizer(e.to_string()))?;
        Ok(enc.get_ids().to_vec())
    }

    /// The first special token whose text occurs in `text`, if any.
    pub(crate) fn special_token_in(&self, text: &str) -> Option<&str> {
        self.specials.iter().find(|s| text.contains(s.as_str())).map(String::as_str)
    }

    /// Text of `ids`; special tokens are skipped when `skip_special` is set.
    pub fn decode(&self, ids: &[u32], skip_special: bool) -> Result<String> {
        self.inner.decode(ids, skip_special).map_err(|e| Error::Tokenizer(e.to_string()))
    }

    /// Every token's bytes when the vocabulary is byte-level BPE (see text/token_bytes.rs), else `None`.
    pub fn token_bytes(&self) -> Option<&TokenBytes> {
        self.bytes.as_ref()
    }

    /// The string of a token id.
    pub(crate) fn id_to_token(&self, id: u32) -> Option<String> {
        self.inner.id_to_token(id)
    }

    /// Vocabulary size including added tokens.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }
}
