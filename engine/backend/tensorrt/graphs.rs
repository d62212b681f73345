//! CUDA graphs around `enqueueV3`, one per shape bucket. TensorRT's enqueue launches tens to hundreds of kernels;
//! replaying them as one graph removes the per-launch CPU cost, which dominates one-token decode steps of small
//! models (docs/GPU.md measures the same effect on the native backend). A graph bakes in the shapes and the bound
//! device addresses, so the bucket key is the input shapes plus a binding generation that every `set_address`
//! bumps. TensorRT may do one-time work on the first enqueue after a shape change (allocations, profile switches)
//! that cannot be captured, so a new key runs directly once, is captured on its second use, and replays after
//! that. A capture TensorRT refuses turns graphs off for the context, and every later pass runs directly.

use std::collections::HashMap;

use super::library::ExecutionContext;
use crate::backend::cuda::driver::{Graph, Stream};
use crate::error::Result;

/// The shapes (and binding generation) one graph is valid for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BucketKey {
    /// The optimization profile in use.
    pub profile: usize,
    /// Every dynamic input's shape, in binding order.
    pub shapes: Vec<Vec<i64>>,
    /// Bumped on every address change: a graph replays the addresses it captured.
    pub bindings: u64,
}

/// What to do with the next enqueue of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Enqueue directly (first use of a key, or graphs off).
    Direct,
    /// Enqueue inside a stream capture and keep the graph.
    Capture,
    /// Launch the bucket's graph.
    Replay,
}

/// Per-context bookkeeping of which buckets have graphs. `G` is the graph handle (a CUDA graph on the device;
/// anything in tests).
#[derive(Debug)]
pub struct GraphCache<G> {
    enabled: bool,
    seen: HashMap<BucketKey, u32>,
    graphs: HashMap<BucketKey, G>,
    /// Why graphs were turned off, once they were.
    pub disabled_because: Option<String>,
}

impl<G> GraphCache<G> {
    /// A cache; `enabled: false` makes every action [`Action::Direct`].
    pub fn new(enabled: bool) -> Self {
        GraphCache { enabled, seen: HashMap::new(), graphs: HashMap::new(), disabled_because: None }
    }

    /// The action for `key`, counting this use.
    pub fn action(&mut self, key: &BucketKey) -> Action {
        if !self.enabled {
            return Action::Direct;
        }
        if self.graphs.contains_key(key) {
            return Action::Replay;
        }
        let uses = self.seen.entry(key.clone()).or_insert(0);
        *uses += 1;
        if *uses >= 2 {
            Action::Capture
        } else {
            Action::Direct
        }
    }

    /// Stores the graph captured for `key`.
    pub fn insert(&mut self, key: BucketKey, graph: G) {
        self.seen.remove(&key);
        self.graphs.insert(key, graph);
    }

    /// The graph of `key`.
    pub fn get(&self, key: &BucketKey) -> Option<&G> {
        self.graphs.get(key)
    }

    /// Turns graphs off for good (a capture failed), dropping the ones kept.
    pub fn disable(&mut self, why: String) {
        self.enabled = false;
        self.graphs.clear();
        self.seen.clear();
        self.disabled_because = Some(why);
    }

    /// Graphs kept.
    pub fn len(&self) -> usize {
        self.graphs.len()
    }

    /// Whether no graph is kept.
    pub fn is_empty(&self) -> bool {
        self.graphs.is_empty()
    }
}

/// An execution context with its own stream, whose enqueues go through a [`GraphCache`].
#[derive(Debug)]
pub struct GraphedContext {
    // Declaration order is drop order: graphs before the stream they were captured on.
    cache: GraphCache<Graph>,
    stream: Stream,
    ctx: ExecutionContext,
    profile: usize,
    shapes: Vec<(String, Vec<i64>)>,
    bindings: u64,
}

impl GraphedContext {
    /// Wraps `ctx` with a new stream of the current CUDA context (the caller has bound it:
    /// [`crate::backend::cuda::driver::Context::bind`]). `graphs: false` always enqueues directly.
    pub fn new(ctx: ExecutionContext, graphs: bool) -> Result<GraphedContext> {
        Ok(GraphedContext { cache: GraphCache::new(graphs), stream: Stream::new()?, ctx, profile: 0, shapes: Vec::new(), bindings: 0 })
    }

    /// Selects an optimization profile.
    pub fn set_profile(&mut self, profile: usize) -> Result<()> {
        if profile != self.profile {
            // SAFETY: the context's own live stream.
            unsafe { self.ctx.set_profile(profile, self.stream.0.cast())? };
            self.profile = profile;
        }
        Ok(())
    }

    /// Sets an input's shape (part of the bucket key).
    pub fn set_input_shape(&mut self, name: &str, dims: &[i64]) -> Result<()> {
        self.ctx.set_input_shape(name, dims)?;
        match self.shapes.iter_mut().find(|(n, _)| n == name) {
            Some((_, d)) => {
                d.clear();
                d.extend_from_slice(dims);
            }
            None => self.shapes.push((name.to_string(), dims.to_vec())),
        }
        Ok(())
    }

    /// Binds a tensor to device memory (invalidates the graphs of earlier bindings).
    ///
    /// # Safety
    /// As [`ExecutionContext::set_address`]: the memory outlives every later [`GraphedContext::run`].
    pub unsafe fn set_address(&mut self, name: &str, address: *mut std::ffi::c_void) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { self.ctx.set_address(name, address)? };
        self.bindings += 1;
        Ok(())
    }

    /// Runs the plan once on the bound buffers and waits for it; returns how it ran.
    pub fn run(&mut self) -> Result<Action> {
        let key = BucketKey { profile: self.profile, shapes: self.shapes.iter().map(|(_, d)| d.clone()).collect(), bindings: self.bindings };
        let stream: *mut std::ffi::c_void = self.stream.0.cast();
        // SAFETY (every enqueue below): the context's own live stream; the addresses were bound by the caller
        // under set_address's contract.
        let mut action = self.cache.action(&key);
        match action {
            Action::Direct => unsafe { self.ctx.enqueue(stream)? },
            Action::Replay => match self.cache.get(&key) {
                Some(graph) => graph.launch(&self.stream)?,
                None => unsafe { self.ctx.enqueue(stream)? },
            },
            Action::Capture => {
                let ctx = &mut self.ctx;
                match Graph::capture(&self.stream, || unsafe { ctx.enqueue(stream) }) {
                    Ok(graph) => {
                        graph.launch(&self.stream)?;
                        self.cache.insert(key, graph);
                    }
                    Err(e) => {
                        self.cache.disable(e.to_string());
                        action = Action::Direct;
                        unsafe { self.ctx.enqueue(stream)? };
                    }
                }
            }
        }
        self.stream.synchronize()?;
        Ok(action)
    }

    /// Why graphs are off, if a capture failed.
    pub fn graphs_disabled_because(&self) -> Option<&str> {
        self.cache.disabled_because.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seq: i64, bindings: u64) -> BucketKey {
        BucketKey { profile: 1, shapes: vec![vec![1, seq]], bindings }
    }

    #[test]
    fn a_bucket_runs_directly_then_is_captured_then_replays() {
        let mut c = GraphCache::new(true);
        assert_eq!(c.action(&key(1, 0)), Action::Direct);
        assert_eq!(c.action(&key(1, 0)), Action::Capture);
        c.insert(key(1, 0), "graph");
        assert_eq!(c.action(&key(1, 0)), Action::Replay);
        // Another shape, or the same shape after a rebinding, is a new bucket.
        assert_eq!(c.action(&key(4, 0)), Action::Direct);
        assert_eq!(c.action(&key(1, 1)), Action::Direct);
        assert_eq!(c.get(&key(1, 0)), Some(&"graph"));
    }

    #[test]
    fn a_failed_capture_turns_graphs_off_for_good() {
        let mut c = GraphCache::new(true);
        c.action(&key(1, 0));
        c.insert(key(1, 0), 7);
        c.disable("cuStreamEndCapture: operation not permitted".into());
        assert!(c.is_empty());
        assert_eq!(c.action(&key(1, 0)), Action::Direct);
        assert_eq!(c.action(&key(1, 0)), Action::Direct);
        assert!(c.disabled_because.as_deref().unwrap().contains("not permitted"));
        let mut off = GraphCache::<()>::new(false);
        assert_eq!(off.action(&key(1, 0)), Action::Direct);
        assert_eq!(off.action(&key(1, 0)), Action::Direct);
    }
}
