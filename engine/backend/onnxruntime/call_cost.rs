//! ONNX Runtime's own fixed costs (issue 14, "honest overhead"): tiny graphs run the way the decoder runs its graphs
//! (the raw C API, preallocated output, the backend's threads and session options), so what is measured is not
//! arithmetic. A one-node graph (`y = Neg(x)` over one float) gives the cost of a `Run` call itself (argument checks,
//! executor set-up, output binding); a chain of [`CHAIN`] `Neg` nodes gives what each further node adds (the
//! executor's dispatch, kernel lookup, the intermediate's allocation from the arena). A model step pays the first
//! once per run and the second per node of its graph; the benchmark prices the run calls of every strategy
//! (docs/BENCHMARKS.md, "Honest overhead").
//!
//! The graphs are written here as protobuf bytes instead of files, so the probe needs no fixture and cannot go stale.

use std::ffi::{c_char, c_void, CString};
use std::time::Instant;

use ort::sys::OrtValue;
use ort::AsPointer;

use super::raw::{self, CpuMemory, Elem, TensorView};
use super::OnnxRuntime;
use crate::backend::CallCost;
use crate::error::{Error, Result};

/// Calls timed per batch, and batches (the median batch is reported: the VM's noise hits single batches).
const CALLS_PER_BATCH: usize = 200;
const BATCHES: usize = 9;
/// Nodes of the chain graph (odd, so the chain's output is `-x` like the one-node graph's).
const CHAIN: usize = 129;

/// Measures both costs on `backend`'s settings.
pub(crate) fn measure(backend: &OnnxRuntime) -> Result<CallCost> {
    let one = seconds_per_run(backend, 1)?;
    let chain = seconds_per_run(backend, CHAIN)?;
    Ok(CallCost { per_call_seconds: one, per_node_seconds: ((chain - one) / (CHAIN - 1) as f64).max(0.0) })
}

/// The median seconds of one `Run` of a chain of `nodes` `Neg` nodes (after a warm-up batch).
fn seconds_per_run(backend: &OnnxRuntime, nodes: usize) -> Result<f64> {
    let session = backend.session_from_memory(&neg_chain(nodes))?;
    let memory = CpuMemory::new()?;
    let (x_name, y_name) = (cstr("x")?, cstr("y")?);
    let mut x = [1.5f32];
    let mut y = [0.0f32];
    // SAFETY: both one-float buffers outlive the views, which drop before `y` is read.
    let xv = unsafe { TensorView::new(&memory, x.as_mut_ptr().cast::<c_void>(), 4, &[1], Elem::F32)? };
    let yv = unsafe { TensorView::new(&memory, y.as_mut_ptr().cast::<c_void>(), 4, &[1], Elem::F32)? };
    let names_in: [*const c_char; 1] = [x_name.as_ptr()];
    let names_out: [*const c_char; 1] = [y_name.as_ptr()];
    let inputs = [xv.ptr() as *const OrtValue];
    let mut outputs = [yv.ptr()];
    let session_ptr = session.ptr().cast_mut();
    let mut batches = Vec::with_capacity(BATCHES);
    for b in 0..=BATCHES {
        let t0 = Instant::now();
        for _ in 0..CALLS_PER_BATCH {
            // SAFETY: a live session; names and values are parallel one-element arrays alive for the call.
            unsafe { raw::run(session_ptr, &names_in, &inputs, &names_out, &mut outputs)? };
        }
        if b > 0 {
            batches.push(t0.elapsed().as_secs_f64() / CALLS_PER_BATCH as f64);
        }
    }
    drop((xv, yv));
    // The graph really ran: an odd number of negations.
    if y[0] != -1.5 {
        return Err(Error::Backend(format!("the {nodes}-node probe graph returned {} for -(1.5)", y[0])));
    }
    batches.sort_by(f64::total_cmp);
    Ok(batches[batches.len() / 2])
}

fn cstr(s: &str) -> Result<CString> {
    CString::new(s).map_err(|e| Error::Internal(format!("tensor name {s:?}: {e}")))
}

/// The ONNX ModelProto of `y = Neg(Neg(...Neg(x)))` with `nodes` nodes, `x` and `y` float[1] (IR version 8, opset
/// 13), protobuf-encoded. `nodes` must be odd (`y = -x`, which the probe checks).
fn neg_chain(nodes: usize) -> Vec<u8> {
    // float[1]: TypeProto { tensor_type (1): { elem_type (1) = FLOAT, shape (2): { dim (1): { dim_value (1) = 1 } } } }
    let tensor_type = [varint_field(1, 1), message(2, &message(1, &varint_field(1, 1)))].concat();
    let type_proto = message(1, &tensor_type);
    let value_info = |name: &str| [bytes_field(1, name.as_bytes()), message(2, &type_proto)].concat();
    let name = |i: usize| {
        if i == 0 {
            "x".to_string()
        } else if i == nodes {
            "y".to_string()
        } else {
            format!("t{i}")
        }
    };
    // GraphProto { node (1) per node: NodeProto { input (1), output (2), op_type (4) }, name (2), input (11), output (12) }
    let mut graph = Vec::new();
    for i in 0..nodes {
        let node = [bytes_field(1, name(i).as_bytes()), bytes_field(2, name(i + 1).as_bytes()), bytes_field(4, b"Neg")].concat();
        graph.extend(message(1, &node));
    }
    graph.extend([bytes_field(2, b"call_cost_probe"), message(11, &value_info("x")), message(12, &value_info("y"))].concat());
    // ModelProto { ir_version (1), graph (7), opset_import (8): { domain (1) = "", version (2) = 13 } }
    [varint_field(1, 8), message(7, &graph), message(8, &[bytes_field(1, b""), varint_field(2, 13)].concat())].concat()
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A varint field (wire type 0).
fn varint_field(field: u64, v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    varint(field << 3, &mut out);
    varint(v, &mut out);
    out
}

/// A length-delimited field (wire type 2): bytes, strings and embedded messages.
fn bytes_field(field: u64, bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    varint((field << 3) | 2, &mut out);
    varint(bytes.len() as u64, &mut out);
    out.extend_from_slice(bytes);
    out
}

/// An embedded message field.
fn message(field: u64, encoded: &[u8]) -> Vec<u8> {
    bytes_field(field, encoded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_follow_the_protobuf_encoding() {
        let mut out = Vec::new();
        varint(300, &mut out);
        assert_eq!(out, [0xAC, 0x02]);
        assert_eq!(varint_field(1, 8), [0x08, 0x08]);
        assert_eq!(bytes_field(4, b"Add"), [0x22, 3, b'A', b'd', b'd']);
    }
}
