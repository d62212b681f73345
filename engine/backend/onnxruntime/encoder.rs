//! The encoder runner (CTC NAT contract): one `Run` per batch with `input_ids` and `attention_mask`
//! `[batch, positions]`; the logits land in a buffer the runner owns and reuses (grown on demand), so decoding
//! reads them in place instead of copying `[batch, positions, vocab]` first. Where the graph also has `token_ids`,
//! a greedy pass asks ONNX Runtime for that output alone (`[batch, positions]` int64), so the scores stay an
//! intermediate that ONNX Runtime reuses and nothing reads them outside the graph. Where the graph has the
//! `output_columns` and `output_columns_mask` inputs (an export with an output shortlist), every run feeds them:
//! the caller's columns and per-sentence flags for a greedy pass, else all of `0..width` and one row of ones (the
//! head's whole-matrix path).

use std::ffi::{c_char, c_void, CString};
use std::path::Path;
use std::time::Instant;

use ort::sys::OrtValue;
use ort::AsPointer;

use super::raw::{self, CpuMemory, Elem, TensorView};
use super::{contract, OnnxRuntime};
use crate::backend::{ColumnSelection, EncoderGraph};
use crate::contract::GraphSpec;
use crate::error::{Error, Result};

/// An encoder graph on ONNX Runtime.
pub(crate) struct OrtEncoder {
    session: ort::session::Session,
    memory: CpuMemory,
    width: usize,
    input_names: [CString; 4],
    /// `0..width`, fed as `output_columns` when the caller selects no columns; empty when the graph lacks that input.
    all_columns: Vec<i64>,
    /// `[1, width]` ones, fed as `output_columns_mask` with `all_columns`.
    all_allowed: Vec<u8>,
    output_name: CString,
    logits: Vec<f32>,
    /// `token_ids`, where the manifest (checked against the graph) declares it.
    token_ids_name: Option<CString>,
    token_ids: Vec<i64>,
    run_seconds: f64,
    run_calls: u64,
}

// SAFETY: the session may be used from any thread, one `Run` at a time (`forward` takes `&mut self`); the
// memory info is immutable.
unsafe impl Send for OrtEncoder {}

impl OrtEncoder {
    /// Loads `dir/graph.file` and checks its inputs and outputs against `graph`.
    pub fn open(backend: &OnnxRuntime, dir: &Path, graph: &GraphSpec, width: usize) -> Result<Self> {
        let session = backend.session(&dir.join(&graph.file))?;
        contract::compare_io(dir, &graph.inputs, &graph.outputs, &session)?;
        let c = |s: &str| CString::new(s).map_err(|e| Error::Internal(format!("tensor name {s:?}: {e}")));
        Ok(OrtEncoder {
            session,
            memory: CpuMemory::new()?,
            width,
            input_names: [c("input_ids")?, c("attention_mask")?, c("output_columns")?, c("output_columns_mask")?],
            all_columns: if graph.inputs.iter().any(|i| i.name == "output_columns") { (0..width as i64).collect() } else { Vec::new() },
            all_allowed: if graph.inputs.iter().any(|i| i.name == "output_columns") { vec![1; width] } else { Vec::new() },
            output_name: c("logits")?,
            logits: Vec::new(),
            token_ids_name: if graph.outputs.iter().any(|o| o.name == "token_ids") { Some(c("token_ids")?) } else { None },
            token_ids: Vec::new(),
            run_seconds: 0.0,
            run_calls: 0,
        })
    }

    /// Checks the input lengths of a pass over `batch` x `positions`.
    fn check_inputs(input_ids: &[i64], attention_mask: &[i64], batch: usize, positions: usize) -> Result<usize> {
        let n = batch * positions;
        if n == 0 || input_ids.len() != n || attention_mask.len() != n {
            return Err(Error::InvalidRequest(format!(
                "encoder pass over {batch} x {positions} positions got {} ids and {} mask values",
                input_ids.len(),
                attention_mask.len()
            )));
        }
        Ok(n)
    }

    /// One `Run` writing the single requested output into `out` (a view over a buffer of this runner); returns the
    /// seconds the run took.
    fn run_into(
        &self,
        input_ids: &[i64],
        attention_mask: &[i64],
        shape: [i64; 2],
        columns: Option<ColumnSelection>,
        output: *const c_char,
        out: &TensorView,
    ) -> Result<f64> {
        let n = input_ids.len();
        let m = &self.memory;
        let columns = match columns {
            Some(c) if self.all_columns.is_empty() => {
                return Err(Error::Backend(format!(
                    "{} output columns were selected, but this encoder graph has no `output_columns` input (export it with `--shortlist`)",
                    c.columns.len()
                )))
            }
            Some(c) if c.columns.is_empty() || c.allowed.len() != shape[0] as usize * c.columns.len() => {
                return Err(Error::InvalidRequest(format!(
                    "an output shortlist of {} columns with {} allowed flags for {} sentences (needs at least one column and one flag per sentence and column)",
                    c.columns.len(),
                    c.allowed.len(),
                    shape[0]
                )))
            }
            Some(c) => Some((c.columns, c.allowed, shape[0])),
            None if self.all_columns.is_empty() => None,
            None => Some((&self.all_columns[..], &self.all_allowed[..], 1)),
        };
        // SAFETY: the slices outlive the run (views drop at the end of this function); ORT never writes inputs.
        let ids = unsafe { TensorView::new(m, input_ids.as_ptr() as *mut c_void, n * 8, &shape, Elem::I64)? };
        let mask = unsafe { TensorView::new(m, attention_mask.as_ptr() as *mut c_void, n * 8, &shape, Elem::I64)? };
        let cols = match columns {
            // SAFETY: as above; `allowed` holds rows x columns bytes (checked above).
            Some((c, a, rows)) => Some(unsafe {
                (
                    TensorView::new(m, c.as_ptr() as *mut c_void, c.len() * 8, &[c.len() as i64], Elem::I64)?,
                    TensorView::new(m, a.as_ptr() as *mut c_void, a.len(), &[rows, c.len() as i64], Elem::U8)?,
                )
            }),
            None => None,
        };
        let mut names: Vec<*const c_char> = vec![self.input_names[0].as_ptr(), self.input_names[1].as_ptr()];
        let mut values = vec![ids.ptr() as *const OrtValue, mask.ptr() as *const OrtValue];
        if let Some((c, a)) = &cols {
            names.extend([self.input_names[2].as_ptr(), self.input_names[3].as_ptr()]);
            values.extend([c.ptr() as *const OrtValue, a.ptr() as *const OrtValue]);
        }
        let mut outputs = [out.ptr()];
        let t0 = Instant::now();
        // SAFETY: names and values are parallel arrays of live objects; the session is alive.
        unsafe { raw::run(self.session.ptr().cast_mut(), &names, &values, &[output], &mut outputs) }?;
        Ok(t0.elapsed().as_secs_f64())
    }
}

impl EncoderGraph for OrtEncoder {
    fn forward(&mut self, input_ids: &[i64], attention_mask: &[i64], batch: usize, positions: usize) -> Result<&[f32]> {
        let n = Self::check_inputs(input_ids, attention_mask, batch, positions)?;
        let out_len = n * self.width;
        crate::error::try_resize(&mut self.logits, out_len, 0.0, "CTC logits")?;
        let shape = [batch as i64, positions as i64];
        // SAFETY: `self.logits` is not touched until the run is over and the view is dropped.
        let out = unsafe {
            TensorView::new(&self.memory, self.logits.as_mut_ptr().cast(), out_len * 4, &[shape[0], shape[1], self.width as i64], Elem::F32)?
        };
        let name = self.output_name.as_ptr();
        let ran = self.run_into(input_ids, attention_mask, shape, None, name, &out);
        drop(out);
        self.run_seconds += ran?;
        self.run_calls += 1;
        Ok(&self.logits[..out_len])
    }

    fn has_token_ids(&self) -> bool {
        self.token_ids_name.is_some()
    }

    fn forward_token_ids(
        &mut self,
        input_ids: &[i64],
        attention_mask: &[i64],
        batch: usize,
        positions: usize,
        columns: Option<ColumnSelection>,
    ) -> Result<&[i64]> {
        let Some(name) = self.token_ids_name.as_ref().map(|c| c.as_ptr()) else {
            return Err(Error::Backend("this encoder graph has no `token_ids` output (re-export it with `python -m export ctc-nat`)".into()));
        };
        let n = Self::check_inputs(input_ids, attention_mask, batch, positions)?;
        crate::error::try_resize(&mut self.token_ids, n, 0, "CTC token ids")?;
        let shape = [batch as i64, positions as i64];
        // SAFETY: `self.token_ids` is not touched until the run is over and the view is dropped.
        let out = unsafe { TensorView::new(&self.memory, self.token_ids.as_mut_ptr().cast(), n * 8, &shape, Elem::I64)? };
        let ran = self.run_into(input_ids, attention_mask, shape, columns, name, &out);
        drop(out);
        self.run_seconds += ran?;
        self.run_calls += 1;
        Ok(&self.token_ids[..n])
    }

    fn backend_seconds(&self) -> f64 {
        self.run_seconds
    }

    fn backend_calls(&self) -> u64 {
        self.run_calls
    }
}
