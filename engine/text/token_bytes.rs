//! The raw bytes of every token of a byte-level BPE vocabulary (GPT-2 style: SmolLM2, Qwen, Llama 3), so the
//! output stream can detokenize one token at a time by appending bytes, without calling the tokenizer's decoder
//! and without allocating (issue 14: zero heap allocations per decode step). Measured before: two full
//! `tokenizers` decodes per generated token made ~22 heap allocations per AR step on SmolLM2's tokenizer.
//!
//! It mirrors what the `tokenizers` crate's ByteLevel decoder does: every character of a token's string maps back
//! to one byte through GPT-2's byte-to-unicode table, and a token with a character outside that table (an added
//! token such as `<|im_start|>`) contributes its string's own UTF-8 bytes; special tokens are skipped, as
//! `decode(ids, skip_special = true)` skips them; the concatenation is read as lossy UTF-8. Built only when the
//! tokenizer's decoder is exactly ByteLevel; any other decoder keeps the decode-a-window path (text/stream.rs).
//! tests/text_stream.rs checks every token of the real vocabularies and random sequences against the decoder.

use std::collections::HashSet;

use tokenizers::DecoderWrapper;

/// Token id -> bytes, for the whole vocabulary (added tokens included).
#[derive(Debug, Clone)]
pub struct TokenBytes {
    /// All tokens' bytes, back to back.
    data: Vec<u8>,
    /// `ends[i]`: where token i's bytes end in `data` (token i starts where i - 1 ends).
    ends: Vec<u32>,
}

impl TokenBytes {
    /// The table for `tokenizer`, or `None` when its decoder is not plain ByteLevel (the mapping would not be the
    /// decoder's).
    pub(crate) fn build(tokenizer: &tokenizers::Tokenizer) -> Option<Self> {
        if !matches!(tokenizer.get_decoder(), Some(DecoderWrapper::ByteLevel(_))) {
            return None;
        }
        let special: HashSet<u32> = tokenizer.get_added_tokens_decoder().into_iter().filter(|(_, t)| t.special).map(|(id, _)| id).collect();
        let to_byte = unicode_to_byte();
        let n = tokenizer.get_vocab_size(true);
        let mut data = Vec::with_capacity(n * 6);
        let mut ends = Vec::with_capacity(n);
        for id in 0..n as u32 {
            if !special.contains(&id) {
                if let Some(token) = tokenizer.id_to_token(id) {
                    let start = data.len();
                    for c in token.chars() {
                        match to_byte.get(c as usize).copied().flatten() {
                            Some(b) => data.push(b),
                            None => {
                                // A character outside the byte table: the decoder takes the token's own bytes.
                                data.truncate(start);
                                data.extend_from_slice(token.as_bytes());
                                break;
                            }
                        }
                    }
                }
            }
            ends.push(u32::try_from(data.len()).ok()?);
        }
        Some(TokenBytes { data, ends })
    }

    /// The bytes of `id` (empty for special tokens and for ids outside the vocabulary, which the decoder drops).
    pub fn get(&self, id: u32) -> &[u8] {
        let i = id as usize;
        match self.ends.get(i) {
            Some(&end) => {
                let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
                &self.data[start..end as usize]
            }
            None => &[],
        }
    }
}

/// GPT-2's byte-to-unicode table, inverted: the printable bytes `!`..`~`, `¡`..`¬`, `®`..`ÿ` stand for
/// themselves; the other 68 bytes were shifted to U+0100.. in byte order.
fn unicode_to_byte() -> Vec<Option<u8>> {
    let mut table = vec![None; 0x144];
    let mut shifted = 0usize;
    for b in 0..=255u8 {
        let printable = matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        let c = if printable {
            b as usize
        } else {
            shifted += 1;
            0xFF + shifted
        };
        table[c] = Some(b);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::unicode_to_byte;

    #[test]
    fn the_byte_table_is_gpt2s() {
        let t = unicode_to_byte();
        assert_eq!(t.iter().flatten().count(), 256, "every byte exactly once");
        assert_eq!(t['Ġ' as usize], Some(b' '), "U+0120 is the space");
        assert_eq!(t['Ċ' as usize], Some(b'\n'), "U+010A is the newline");
        assert_eq!(t['A' as usize], Some(b'A'));
        assert_eq!(t[0x100], Some(0), "the first shifted character is byte 0");
        assert_eq!(t[' ' as usize], None, "a plain space is not a byte-level character");
    }
}
