//! Incremental detokenizing that never splits a UTF-8 character: byte-level BPE tokens can end in the middle of
//! a multi-byte character, so text is released only once the decoded suffix no longer ends in an incomplete
//! sequence (shown by the tokenizer as U+FFFD). The approach is the one of Hugging Face's text-generation-inference:
//! decode a small window of recent tokens and emit what grew.

use crate::error::Result;
use crate::text::Tokenizer;

/// Turns a growing list of token ids into text pieces.
#[derive(Debug, Default, Clone)]
pub struct TextStream {
    ids: Vec<u32>,
    prefix_offset: usize,
    read_offset: usize,
}

impl TextStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one token; returns the new complete text, if any.
    pub fn push(&mut self, tokenizer: &Tokenizer, id: u32) -> Result<Option<String>> {
        self.ids.push(id);
        let prefix = tokenizer.decode(&self.ids[self.prefix_offset..self.read_offset], true)?;
        let full = tokenizer.decode(&self.ids[self.prefix_offset..], true)?;
        if full.len() > prefix.len() && !full.ends_with('\u{FFFD}') && full.is_char_boundary(prefix.len()) {
            let piece = full[prefix.len()..].to_string();
            self.prefix_offset = self.read_offset;
            self.read_offset = self.ids.len();
            Ok(Some(piece))
        } else {
            Ok(None)
        }
    }

    /// Whatever is left at the end of generation (possibly with a replacement character for a truncated one).
    pub fn finish(&mut self, tokenizer: &Tokenizer) -> Result<Option<String>> {
        let prefix = tokenizer.decode(&self.ids[self.prefix_offset..self.read_offset], true)?;
        let full = tokenizer.decode(&self.ids[self.prefix_offset..], true)?;
        self.prefix_offset = self.ids.len();
        self.read_offset = self.ids.len();
        if full.len() > prefix.len() && full.is_char_boundary(prefix.len()) {
            Ok(Some(full[prefix.len()..].to_string()))
        } else {
            Ok(None)
        }
    }
}
