//! Incremental detokenizing that never splits a UTF-8 character: byte-level BPE tokens can end in the middle of
//! a multi-byte character, so text is released only once it is complete.
//!
//! Two ways, the same text: for byte-level vocabularies (the tokenizer has a [`TokenBytes`] table) each token's
//! bytes are appended to a small pending buffer and the complete UTF-8 prefix moves to the output, with no
//! allocation per token; for any other decoder a small window of recent tokens is decoded and what grew is
//! emitted (the approach of Hugging Face's text-generation-inference), which costs two decodes per token.
//!
//! [`TokenBytes`]: crate::text::token_bytes::TokenBytes

use crate::error::Result;
use crate::text::Tokenizer;

/// Turns a growing list of token ids into text.
#[derive(Debug, Default, Clone)]
pub struct TextStream {
    /// Window path: the ids so far and the window's offsets.
    ids: Vec<u32>,
    prefix_offset: usize,
    read_offset: usize,
    /// Byte path: bytes of an incomplete character waiting for the next token (at most 3).
    pending: Vec<u8>,
}

impl TextStream {
    /// An empty stream.
    pub fn new() -> Self {
        TextStream { pending: Vec::with_capacity(16), ..Default::default() }
    }

    /// Adds one token and appends the text it completes to `out`; returns whether anything was appended.
    pub fn push_into(&mut self, tokenizer: &Tokenizer, id: u32, out: &mut String) -> Result<bool> {
        match tokenizer.token_bytes() {
            Some(table) => {
                self.pending.extend_from_slice(table.get(id));
                Ok(self.drain_complete(out, false))
            }
            None => self.push_window(tokenizer, id, out),
        }
    }

    /// Appends whatever is left at the end of generation to `out` (a truncated character becomes U+FFFD, as the
    /// decoder writes it); returns whether anything was appended.
    pub fn finish_into(&mut self, tokenizer: &Tokenizer, out: &mut String) -> Result<bool> {
        if tokenizer.token_bytes().is_some() {
            return Ok(self.drain_complete(out, true));
        }
        let (prefix, full) = self.decode_window(tokenizer)?;
        self.prefix_offset = self.ids.len();
        self.read_offset = self.ids.len();
        if full.len() > prefix.len() && full.is_char_boundary(prefix.len()) {
            out.push_str(&full[prefix.len()..]);
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// Moves the complete UTF-8 prefix of `pending` to `out`, invalid sequences as U+FFFD (lossy decoding, the
    /// decoder's rule); an incomplete character at the end stays unless `all`.
    fn drain_complete(&mut self, out: &mut String, all: bool) -> bool {
        let before = out.len();
        let mut start = 0;
        loop {
            match std::str::from_utf8(&self.pending[start..]) {
                Ok(s) => {
                    out.push_str(s);
                    start = self.pending.len();
                    break;
                }
                Err(e) => {
                    let valid = start + e.valid_up_to();
                    // The prefix up to `valid` was just validated by from_utf8.
                    out.push_str(std::str::from_utf8(&self.pending[start..valid]).unwrap_or_default());
                    match e.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            start = valid + bad;
                        }
                        None if all => {
                            out.push('\u{FFFD}');
                            start = self.pending.len();
                            break;
                        }
                        None => {
                            start = valid;
                            break;
                        }
                    }
                }
            }
        }
        self.pending.drain(..start);
        out.len() > before
    }

    /// The window's text before the newest unread tokens and with them.
    fn decode_window(&self, tokenizer: &Tokenizer) -> Result<(String, String)> {
        let prefix = tokenizer.decode(&self.ids[self.prefix_offset..self.read_offset], true)?;
        let full = tokenizer.decode(&self.ids[self.prefix_offset..], true)?;
        Ok((prefix, full))
    }

    /// The window path: decode the window before and after the new token; emit what grew once it does not end
    /// in an incomplete character (shown by the decoder as U+FFFD).
    fn push_window(&mut self, tokenizer: &Tokenizer, id: u32, out: &mut String) -> Result<bool> {
        self.ids.push(id);
        let (prefix, full) = self.decode_window(tokenizer)?;
        if full.len() > prefix.len() && !full.ends_with('\u{FFFD}') && full.is_char_boundary(prefix.len()) {
            out.push_str(&full[prefix.len()..]);
            self.prefix_offset = self.read_offset;
            self.read_offset = self.ids.len();
            Ok(true)
        } else {
            Ok(false)
        }
    }
}
