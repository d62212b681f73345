//! Models as strategies see them: a [`LanguageModel`] (a decoder graph plus its committed KV length, with
//! prefill, decode, chain and tree evaluation, rollback and path compaction), its [`Manifest`], and the
//! attention masks ([`mask`]) that express causal chains and token trees.

pub mod manifest;
pub mod mask;
pub mod session;

pub use manifest::Manifest;
pub use mask::TokenTree;
pub use session::LanguageModel;
