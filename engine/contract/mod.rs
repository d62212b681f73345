//! The model contract as the engine reads it: `manifest.json` of every exported folder (export/README.md).
//! One shared header ([`header`]: format, version, named files, display name), the tensor declarations both
//! model kinds use ([`tensor`]), and one manifest type per kind: [`decoder`] (language models with a KV cache),
//! [`ctc_nat`] (CTC non-autoregressive encoders) and [`draft_head`] (draft heads bound to one decoder target).
//!
//! This layer knows nothing about backends or strategies: backends check a graph against it, the model layer
//! and the pipelines read it. Closed sets of values (model kind, KV dtype, KV layout, weight precision,
//! upsampling policy) are enums, so a typo in a manifest is an error at load time with the file and the key.

pub mod ctc_nat;
pub mod decoder;
pub mod draft_head;
pub mod header;
pub mod tensor;

pub use ctc_nat::NatManifest;
pub use decoder::Manifest;
pub use header::ModelKind;
pub use tensor::{DType, Dim, GraphSpec, TensorSpec};
