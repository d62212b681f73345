//! Checks an ONNX Runtime session against the model's manifest and against the decoder contract, so a graph that
//! does not match fails at load time with the name, dtype or shape at fault, not with a cryptic error mid-run.

use ort::value::{TensorElementType, ValueType};

use crate::contract::{DType, Dim, Manifest, TensorSpec};
use crate::error::{Error, Result};

/// The inputs every decoder graph must take, besides the per-layer KV cache.
pub(crate) const REQUIRED_INPUTS: [&str; 6] = ["input_ids", "position_ids", "attention_bias", "seqlens_k", "total_sequence_length", "logits_indices"];

fn dtype_of(t: TensorElementType) -> Option<DType> {
    Some(match t {
        TensorElementType::Float32 => DType::Float32,
        TensorElementType::Float16 => DType::Float16,
        TensorElementType::Int64 => DType::Int64,
        TensorElementType::Int32 => DType::Int32,
        TensorElementType::Bool => DType::Bool,
        TensorElementType::Uint8 => DType::Uint8,
        TensorElementType::Int8 => DType::Int8,
        _ => return None,
    })
}

/// Compares the session's declared inputs and outputs with the manifest, both ways, and checks that the
/// manifest itself declares everything the contract needs.
pub fn check(manifest: &Manifest, session: &ort::session::Session) -> Result<()> {
    let err = |message: String| Error::Contract { model: manifest.header.dir.clone(), message };

    let mut needed: Vec<String> = REQUIRED_INPUTS.iter().map(|s| s.to_string()).collect();
    let mut needed_out = vec!["logits".to_string()];
    for layer in 0..manifest.layers() {
        let [ki, vi, ko, vo] = manifest.kv_cache.names(layer);
        needed.extend([ki, vi]);
        needed_out.extend([ko, vo]);
    }
    if manifest.hidden_states {
        needed_out.push("hidden_states".into());
    }
    for name in &needed {
        if manifest.input(name).is_none() {
            return Err(err(format!("manifest declares no input `{name}`, which the decoder contract requires")));
        }
    }
    for name in &needed_out {
        if manifest.output(name).is_none() {
            return Err(err(format!("manifest declares no output `{name}`, which the decoder contract requires")));
        }
    }

    compare_io(&manifest.header.dir, &manifest.header.graph.inputs, &manifest.header.graph.outputs, session)?;

    // The dimensions the engine relies on when it allocates buffers.
    let d = &manifest.dims;
    let [ki, ..] = manifest.kv_cache.names(0);
    if let Some(spec) = manifest.input(&ki) {
        let want = [None, Some(d.num_kv_heads as i64), None, Some(d.head_dim as i64)];
        for (i, w) in want.iter().enumerate() {
            if let (Some(w), Some(Dim::Fixed(f))) = (w, spec.shape.get(i)) {
                if f != w {
                    return Err(err(format!("input `{ki}`: dimension {i} is {f}, but dims say {w}")));
                }
            }
        }
    }
    if let Some(Dim::Fixed(v)) = manifest.output("logits").and_then(|s| s.shape.last()) {
        if *v as usize != d.vocab_size {
            return Err(err(format!("output `logits`: last dimension is {v}, but dims.vocab_size is {}", d.vocab_size)));
        }
    }
    Ok(())
}

/// Compares a session's inputs and outputs with what a manifest declares, both ways: every declared tensor
/// exists with the same dtype, rank and fixed dimensions, and the graph has nothing undeclared. Shared by every
/// model kind (decoders, CTC NAT encoders).
pub(crate) fn compare_io(model: &std::path::Path, inputs: &[TensorSpec], outputs: &[TensorSpec], session: &ort::session::Session) -> Result<()> {
    let err = |message: String| Error::Contract { model: model.to_path_buf(), message };
    let compare = |kind: &str, spec: &[TensorSpec], actual: &[ort::value::Outlet]| -> Result<()> {
        for s in spec {
            let Some(a) = actual.iter().find(|a| a.name() == s.name) else {
                return Err(err(format!("{kind} `{}` is in manifest.json but not in the ONNX graph", s.name)));
            };
            let ValueType::Tensor { ty, shape, .. } = a.dtype() else {
                return Err(err(format!("{kind} `{}` is not a tensor in the ONNX graph", s.name)));
            };
            if dtype_of(*ty) != Some(s.dtype) {
                let found = dtype_of(*ty).map_or_else(|| format!("{ty:?}"), |d| d.to_string());
                return Err(err(format!("{kind} `{}`: manifest says dtype {}, graph has {found}", s.name, s.dtype)));
            }
            let dims: Vec<i64> = shape.iter().copied().collect();
            if dims.len() != s.shape.len() {
                return Err(err(format!(
                    "{kind} `{}`: manifest says rank {} {:?}, graph has rank {} {:?}",
                    s.name,
                    s.shape.len(),
                    s.shape,
                    dims.len(),
                    dims
                )));
            }
            for (i, (d, m)) in dims.iter().zip(&s.shape).enumerate() {
                if let Dim::Fixed(m) = m {
                    if *d >= 0 && d != m {
                        return Err(err(format!("{kind} `{}`: dimension {i} is {d} in the graph but {m} in manifest.json", s.name)));
                    }
                }
            }
        }
        for a in actual {
            if !spec.iter().any(|s| s.name == a.name()) {
                return Err(err(format!("the ONNX graph has {kind} `{}` that manifest.json does not declare", a.name())));
            }
        }
        Ok(())
    };
    compare("input", inputs, session.inputs())?;
    compare("output", outputs, session.outputs())
}
