//! The runner for small auxiliary graphs (draft heads): named float32 / int64 inputs in, named float32 outputs
//! copied into buffers the runner keeps. A head call moves kilobytes (a window of hidden states in, a few rows of
//! draft-vocabulary scores out), so `ort`'s safe `run` is used; the decoder's zero-copy hot path is not needed.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use ort::value::{DynValue, Tensor};

use super::{contract, OnnxRuntime};
use crate::backend::{HeadGraph, HeadInput};
use crate::contract::GraphSpec;
use crate::error::{Error, Result};

/// A head graph on ONNX Runtime.
pub(crate) struct OrtHead {
    session: ort::session::Session,
    outputs: BTreeMap<String, Vec<f32>>,
    run_seconds: f64,
    run_calls: u64,
}

impl OrtHead {
    /// Loads `dir/graph.file` and checks its inputs and outputs against `graph`.
    pub fn open(backend: &OnnxRuntime, dir: &Path, graph: &GraphSpec) -> Result<Self> {
        let session = backend.session(&dir.join(&graph.file))?;
        contract::compare_io(dir, &graph.inputs, &graph.outputs, &session)?;
        let outputs = graph.outputs.iter().map(|o| (o.name.clone(), Vec::new())).collect();
        Ok(OrtHead { session, outputs, run_seconds: 0.0, run_calls: 0 })
    }
}

impl HeadGraph for OrtHead {
    fn run(&mut self, inputs: &[HeadInput<'_>]) -> Result<()> {
        let backend = |e: ort::Error| Error::Backend(e.to_string());
        let mut values: Vec<(String, DynValue)> = Vec::with_capacity(inputs.len());
        for input in inputs {
            let (name, value) = match input {
                HeadInput::F32 { name, data, shape } => (name, Tensor::from_array((shape.to_vec(), data.to_vec())).map_err(backend)?.into_dyn()),
                HeadInput::I64 { name, data, shape } => (name, Tensor::from_array((shape.to_vec(), data.to_vec())).map_err(backend)?.into_dyn()),
            };
            values.push((name.to_string(), value));
        }
        let t0 = Instant::now();
        let out = self.session.run(values).map_err(backend)?;
        self.run_seconds += t0.elapsed().as_secs_f64();
        self.run_calls += 1;
        for (name, buf) in &mut self.outputs {
            let (_, data) = out[name.as_str()].try_extract_tensor::<f32>().map_err(backend)?;
            buf.clear();
            buf.extend_from_slice(data);
        }
        Ok(())
    }

    fn output(&self, name: &str) -> Option<&[f32]> {
        self.outputs.get(name).map(Vec::as_slice)
    }

    fn backend_seconds(&self) -> f64 {
        self.run_seconds
    }

    fn backend_calls(&self) -> u64 {
        self.run_calls
    }
}
