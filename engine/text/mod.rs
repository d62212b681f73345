//! Text in and out: the tokenizer, the chat template, and incremental detokenizing for streaming.

pub mod chat_template;
pub mod stream;
pub mod token_bytes;
pub mod tokenizer;

pub use chat_template::{ChatMessage, ChatTemplate};
pub use stream::TextStream;
pub use tokenizer::Tokenizer;

/// The most UTF-8 bytes of input text per token of context: longer text is refused before tokenizing
/// ([`crate::error::Error::PromptTooLarge`]). Generous: BPE tokens of real text average 3-5 bytes, and the longest tokens of
/// common vocabularies (runs of spaces or dashes) stay well below it.
pub const MAX_PROMPT_BYTES_PER_TOKEN: usize = 128;
