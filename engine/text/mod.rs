//! Text in and out: the tokenizer, the chat template, and incremental detokenizing for streaming.

pub mod chat_template;
pub mod stream;
pub mod tokenizer;

pub use chat_template::{ChatMessage, ChatTemplate};
pub use stream::TextStream;
pub use tokenizer::Tokenizer;
