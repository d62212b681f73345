//! How the kernels split work over threads without owning any: a [`ParallelFor`] runs independent tasks (the
//! ONNX Runtime backend passes its intra-op pool, so the engine's `threads` setting covers the kernels too), and
//! [`SyncPtr`] hands tasks the output buffer each writes a disjoint part of.

/// Runs `tasks` independent tasks, in parallel where it can: every `i` in `0..tasks` exactly once, returning when
/// all are done.
pub trait ParallelFor {
    /// Calls `task(i)` for each `i < tasks`.
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync));
}

/// Every task on the calling thread, in order.
pub struct Serial;

impl ParallelFor for Serial {
    fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..tasks).for_each(task);
    }
}

/// A raw output pointer handed to parallel tasks, each of which writes only its own part of the buffer.
pub struct SyncPtr(pub *mut f32);

// SAFETY: the tasks sharing it write disjoint parts of a buffer that outlives the parallel call (each user states
// which part a task owns).
unsafe impl Sync for SyncPtr {}

impl SyncPtr {
    /// The pointer (a method, so closures capture the `Sync` wrapper rather than its raw field).
    pub fn ptr(&self) -> *mut f32 {
        self.0
    }
}
