//! Models as strategies see them: a [`LanguageModel`] (a decoder graph plus its committed KV length, with
//! prefill, decode, chain and tree evaluation, rollback and path compaction, and the [`PassTotals`] of its passes
//! by size), the attention masks ([`mask`]) that express causal chains and token trees, the batch-invariance probe
//! ([`invariance`]) that decides whether one-token steps need padding, and the [`loader`] strategies open their
//! models through.

pub mod invariance;
pub mod loader;
pub mod mask;
pub mod pass_totals;
pub mod session;
pub mod trie;

pub use crate::contract::Manifest;
pub use invariance::{BatchInvariance, SideBranches};
pub use loader::ModelLoader;
pub use mask::TokenTree;
pub use pass_totals::PassTotals;
pub use session::LanguageModel;
