//! The decoder runner. It owns one KV buffer per layer and tensor (`[1, kv_heads, capacity, head_dim]`),
//! bound as BOTH `past_key.{i}` and `present_key.{i}`: GroupQueryAttention sees the same pointer and writes the
//! new rows in place, so no step copies the cache, and rolling back is just passing a smaller `past_len`.

use std::ffi::{c_char, c_void, CString};

use ort::sys::OrtValue;
use ort::AsPointer;

use super::raw::{self, CpuMemory, Elem, TensorView};
use super::{contract, OnnxRuntime};
use crate::backend::{DecoderGraph, KvInspector, StepInputs};
use crate::contract::decoder::KvDType;
use crate::contract::Manifest;
use crate::error::{Error, Result};

/// A KV buffer with a stable address (a boxed slice never moves or reallocates).
struct KvBuffer {
    words: Box<[u32]>,
    elems: usize,
}

impl KvBuffer {
    /// A zeroed buffer of `elems` elements, or [`Error::Allocation`] when the memory is not there (a context
    /// length and manifest dims can ask for more than the machine has: an error, never an abort).
    fn new(elems: usize, elem: Elem) -> Result<Self> {
        let fail = || Error::allocation::<u8>("a KV cache buffer", elems as u128 * elem.size() as u128);
        let words = elems.checked_mul(elem.size()).ok_or_else(fail)?.div_ceil(4);
        if words == 0 {
            return Ok(KvBuffer { words: Box::new([]), elems });
        }
        let layout = std::alloc::Layout::array::<u32>(words).map_err(|_| fail())?;
        // Zeroed allocation (calloc) keeps untouched KV pages unmapped, as `vec![0; n]` did, but reports failure.
        // SAFETY: the layout has a non-zero size; all-zero bits are valid u32s; the box frees it with the same
        // layout (`[u32]` of `words` elements).
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u32>();
        if ptr.is_null() {
            return Err(fail());
        }
        // SAFETY: `ptr` is a fresh, zeroed allocation of exactly `words` u32s, owned by the box from here on.
        let words = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, words)) };
        Ok(KvBuffer { words, elems })
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.words.len() * 4;
        // SAFETY: u32 storage reinterpreted as bytes; same allocation, alignment 1 is always satisfied.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), len) }
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: as above, read-only.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.words.len() * 4) }
    }
}

/// A decoder graph on ONNX Runtime with its KV cache.
pub(crate) struct OrtDecoder {
    session: ort::session::Session,
    memory: CpuMemory,
    device: String,
    capacity: usize,
    vocab: usize,
    /// Input ids below this are valid: the vocabulary, plus a SPACE export's mask token (its embedding row only).
    input_ids_end: usize,
    hidden: usize,
    kv_heads: usize,
    head_dim: usize,
    kv_elem: Elem,
    // Field order matters for drop: views are released before the buffers they point into.
    kv_views: Vec<TensorView>,
    kv: Vec<KvBuffer>,
    input_names: Vec<CString>,
    output_names: Vec<CString>,
    input_name_ptrs: Vec<*const c_char>,
    output_name_ptrs: Vec<*const c_char>,
    input_values: Vec<*const OrtValue>,
    output_values: Vec<*mut OrtValue>,
    inputs: StepInputs,
    logits: Vec<f32>,
    hidden_states: Option<Vec<f32>>,
    last_logits_len: usize,
    last_hidden_len: usize,
    run_seconds: f64,
    run_calls: u64,
}

// SAFETY: the raw pointers point into buffers owned by this struct (names, KV) or into ORT objects owned by it;
// an ORT session may be used from any thread, one `Run` at a time (`forward` takes `&mut self`).
unsafe impl Send for OrtDecoder {}

impl OrtDecoder {
    /// Loads the graph of `manifest`, checks it against the contract and allocates a KV cache of `capacity` slots.
    pub fn open(backend: &OnnxRuntime, manifest: &Manifest, capacity: usize) -> Result<Self> {
        let d = &manifest.dims;
        if capacity > d.max_position_embeddings {
            return Err(Error::InvalidRequest(format!("context length {capacity} exceeds the model's {} positions", d.max_position_embeddings)));
        }
        let session = backend.session(&manifest.header.dir.join(&manifest.header.graph.file))?;
        contract::check(manifest, &session)?;
        let kv_elem = match manifest.precision.kv_dtype {
            KvDType::Float32 => Elem::F32,
            KvDType::Float16 => Elem::F16,
        };
        let memory = CpuMemory::new()?;
        let layers = manifest.layers();
        let per_buffer = d.num_kv_heads.checked_mul(capacity).and_then(|n| n.checked_mul(d.head_dim));
        let per_buffer = per_buffer.ok_or_else(|| {
            Error::allocation::<u8>("a KV cache buffer", d.num_kv_heads as u128 * capacity as u128 * d.head_dim as u128 * kv_elem.size() as u128)
        })?;
        let mut kv: Vec<KvBuffer> = (0..2 * layers).map(|_| KvBuffer::new(per_buffer, kv_elem)).collect::<Result<_>>()?;
        let shape = [1, d.num_kv_heads as i64, capacity as i64, d.head_dim as i64];
        let mut kv_views = Vec::with_capacity(kv.len());
        for buf in &mut kv {
            let bytes = buf.elems * kv_elem.size();
            let data = buf.words.as_mut_ptr().cast::<c_void>();
            // SAFETY: the buffer lives in `kv`, owned by the decoder next to the view, and never moves.
            kv_views.push(unsafe { TensorView::new(&memory, data, bytes, &shape, kv_elem)? });
        }

        let mut input_names: Vec<CString> = contract::REQUIRED_INPUTS.iter().map(|s| cstring(s)).collect();
        let mut output_names = vec![cstring("logits")];
        if manifest.hidden_states {
            output_names.push(cstring("hidden_states"));
        }
        for layer in 0..layers {
            let [ki, vi, ko, vo] = manifest.kv_cache.names(layer);
            input_names.extend([cstring(&ki), cstring(&vi)]);
            output_names.extend([cstring(&ko), cstring(&vo)]);
        }
        let input_name_ptrs = input_names.iter().map(|c| c.as_ptr()).collect();
        let output_name_ptrs = output_names.iter().map(|c| c.as_ptr()).collect();
        let n_in = input_names.len();
        let n_out = output_names.len();
        Ok(OrtDecoder {
            session,
            memory,
            device: crate::backend::Backend::device(backend),
            capacity,
            vocab: d.vocab_size,
            input_ids_end: manifest.input_ids_end(),
            hidden: d.hidden_size,
            kv_heads: d.num_kv_heads,
            head_dim: d.head_dim,
            kv_elem,
            kv_views,
            kv,
            input_names,
            output_names,
            input_name_ptrs,
            output_name_ptrs,
            input_values: Vec::with_capacity(n_in),
            output_values: Vec::with_capacity(n_out),
            inputs: StepInputs::default(),
            logits: Vec::new(),
            hidden_states: manifest.hidden_states.then(Vec::new),
            last_logits_len: 0,
            last_hidden_len: 0,
            run_seconds: 0.0,
            run_calls: 0,
        })
    }

    fn validate(&self, past_len: usize) -> Result<()> {
        let x = &self.inputs;
        let s = x.input_ids.len();
        let bad = |m: String| Err(Error::InvalidRequest(m));
        if s == 0 {
            return bad("a forward pass needs at least one token".into());
        }
        if x.position_ids.len() != s {
            return bad(format!("{} position ids for {s} tokens", x.position_ids.len()));
        }
        if past_len + s > self.capacity {
            return bad(format!("{past_len} cached + {s} new tokens exceed the KV capacity {}", self.capacity));
        }
        if x.attention_bias.len() != s * (past_len + s) {
            return bad(format!("attention bias has {} values, expected {s} x {}", x.attention_bias.len(), past_len + s));
        }
        if x.logits_rows.is_empty() || x.logits_rows.iter().any(|&r| r < 0 || r as usize >= s) {
            return bad(format!("logits rows {:?} must be non-empty indices below {s}", x.logits_rows));
        }
        if let Some(&t) = x.input_ids.iter().find(|&&t| t < 0 || t as usize >= self.input_ids_end) {
            return bad(format!("token id {t} is outside the vocabulary (size {})", self.input_ids_end));
        }
        Ok(())
    }
}

fn cstring(s: &str) -> CString {
    // Names come from the contract and the manifest's `{layer}` patterns; an interior NUL is replaced, not panicked on.
    CString::new(s.replace('\0', "?")).unwrap_or_default()
}

fn view_of<T>(memory: &CpuMemory, data: &[T], shape: &[i64], elem: Elem) -> Result<TensorView> {
    // SAFETY: the slice outlives the run in which the view is used (views are dropped at the end of `forward`);
    // ORT never writes to inputs.
    unsafe { TensorView::new(memory, data.as_ptr() as *mut c_void, std::mem::size_of_val(data), shape, elem) }
}

impl DecoderGraph for OrtDecoder {
    fn inputs_mut(&mut self) -> &mut StepInputs {
        &mut self.inputs
    }

    fn run(&mut self, past_len: usize) -> Result<()> {
        self.validate(past_len)?;
        let x = &self.inputs;
        let s = x.input_ids.len() as i64;
        let total = (past_len as i64) + s;
        let rows = x.logits_rows.len();
        let seqlens = [(total - 1) as i32];
        let total_len = [total as i32];
        // Grown on demand, then reused: steady-state decoding allocates no buffers.
        crate::error::try_resize(&mut self.logits, rows * self.vocab, 0.0, "logits")?;
        if let Some(h) = self.hidden_states.as_mut() {
            crate::error::try_resize(h, s as usize * self.hidden, 0.0, "hidden states")?;
        }
        let m = &self.memory;
        let ids = view_of(m, &x.input_ids, &[1, s], Elem::I64)?;
        let pos = view_of(m, &x.position_ids, &[1, s], Elem::I64)?;
        let bias = view_of(m, &x.attention_bias, &[1, 1, s, total], Elem::F32)?;
        let seq = view_of(m, &seqlens, &[1], Elem::I32)?;
        let tot = view_of(m, &total_len, &[], Elem::I32)?;
        let idx = view_of(m, &x.logits_rows, &[rows as i64], Elem::I64)?;
        let logits_len = rows * self.vocab;
        // SAFETY: `self.logits` is not touched until the run is over and the view is dropped.
        let logits_view =
            unsafe { TensorView::new(m, self.logits.as_mut_ptr().cast(), logits_len * 4, &[1, rows as i64, self.vocab as i64], Elem::F32)? };
        let hidden_view = match self.hidden_states.as_mut() {
            Some(h) => {
                let n = s as usize * self.hidden;
                // SAFETY: as for logits.
                Some(unsafe { TensorView::new(m, h.as_mut_ptr().cast(), n * 4, &[1, s, self.hidden as i64], Elem::F32)? })
            }
            None => None,
        };

        self.input_values.clear();
        self.input_values.extend([ids.ptr(), pos.ptr(), bias.ptr(), seq.ptr(), tot.ptr(), idx.ptr()].map(|p| p as *const OrtValue));
        self.output_values.clear();
        self.output_values.push(logits_view.ptr());
        if let Some(h) = &hidden_view {
            self.output_values.push(h.ptr());
        }
        for pair in self.kv_views.chunks(2) {
            self.input_values.extend([pair[0].ptr() as *const OrtValue, pair[1].ptr() as *const OrtValue]);
            self.output_values.extend([pair[0].ptr(), pair[1].ptr()]);
        }
        let session = self.session.ptr().cast_mut();
        // SAFETY: names and values are parallel arrays built above; every value is alive until the end of scope.
        let t0 = std::time::Instant::now();
        let ran = unsafe { raw::run(session, &self.input_name_ptrs, &self.input_values, &self.output_name_ptrs, &mut self.output_values) };
        self.run_seconds += t0.elapsed().as_secs_f64();
        self.run_calls += 1;
        ran?;
        drop((ids, pos, bias, seq, tot, idx, logits_view, hidden_view));
        self.last_logits_len = logits_len;
        self.last_hidden_len = s as usize * self.hidden;
        Ok(())
    }

    fn logits(&self) -> &[f32] {
        &self.logits[..self.last_logits_len]
    }

    fn hidden_states(&self) -> Option<&[f32]> {
        self.hidden_states.as_deref().map(|h| &h[..self.last_hidden_len])
    }

    fn backend_seconds(&self) -> f64 {
        self.run_seconds
    }

    fn backend_calls(&self) -> u64 {
        self.run_calls
    }

    fn capacity(&self) -> usize {
        self.capacity
    }

    fn compact_kv(&mut self, src: &[usize], dst_start: usize) -> Result<()> {
        if src.iter().enumerate().any(|(i, &s)| s < dst_start + i || s >= self.capacity) {
            return Err(Error::InvalidRequest(format!("cannot compact KV slots {src:?} down to {dst_start}")));
        }
        let row = self.head_dim * self.kv_elem.size();
        let head_stride = self.capacity * row;
        for buf in &mut self.kv {
            let bytes = buf.bytes_mut();
            for h in 0..self.kv_heads {
                let base = h * head_stride;
                for (i, &s) in src.iter().enumerate() {
                    let d = dst_start + i;
                    if s != d {
                        bytes.copy_within(base + s * row..base + (s + 1) * row, base + d * row);
                    }
                }
            }
        }
        Ok(())
    }

    fn device(&self) -> String {
        self.device.clone()
    }

    fn inspector(&self) -> Option<&dyn KvInspector> {
        Some(self)
    }
}

impl KvInspector for OrtDecoder {
    fn read_kv(&self, len: usize) -> Vec<f32> {
        let len = len.min(self.capacity);
        let row = self.head_dim;
        let mut out = Vec::with_capacity(self.kv.len() * self.kv_heads * len * row);
        for buf in &self.kv {
            let bytes = buf.bytes();
            for h in 0..self.kv_heads {
                for slot in 0..len {
                    for j in 0..row {
                        let e = (h * self.capacity + slot) * row + j;
                        out.push(match self.kv_elem {
                            Elem::F16 => f16_to_f32(u16::from_le_bytes([bytes[2 * e], bytes[2 * e + 1]])),
                            _ => f32::from_le_bytes([bytes[4 * e], bytes[4 * e + 1], bytes[4 * e + 2], bytes[4 * e + 3]]),
                        });
                    }
                }
            }
        }
        out
    }
}

/// IEEE half to single precision (for reading fp16 caches in tests).
fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // Subnormal: normalise.
            let mut e = 127 - 15 + 1;
            let mut f = f;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((f & 0x3ff) << 13)
        }
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 127 - 15) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

impl Drop for OrtDecoder {
    fn drop(&mut self) {
        // Views must go before the buffers they point into (fields drop in declaration order, which already
        // does this; being explicit protects against a reordering).
        self.kv_views.clear();
        let _ = (&self.input_names, &self.output_names);
    }
}
