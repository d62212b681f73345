//! The few CUDA driver objects the backend needs, each owning its handle (RAII), over cudarc's thin `result`
//! layer: the context, one stream, device buffers, pinned host buffers, events, a loaded module and captured
//! graphs.
//!
//! Why not cudarc's safe layer: it tracks events per buffer for multi-stream use and records them on every
//! access, which would land inside our graph captures; the backend uses one stream per decoder and orders
//! everything on it, so plain handles are simpler to reason about (and to capture).
//!
//! Every entry point first checks that the driver library exists ([`driver_present`]): cudarc's loader panics
//! when it cannot find libcuda, and a machine without a GPU must get a clear error instead.

use std::ffi::{c_void, CString};
use std::sync::OnceLock;

use cudarc::driver::{result, sys};

use crate::error::{Error, Result};

/// Maps a driver error to the engine's error, naming what was being done.
pub(crate) fn check<T>(what: &str, r: std::result::Result<T, result::DriverError>) -> Result<T> {
    r.map_err(|e| Error::Backend(format!("cuda: {what}: {e}")))
}

/// Whether libcuda can be loaded here (false on machines without an NVIDIA driver).
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to dlopen the library names cudarc knows; no symbol is called.
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Whether libnvrtc can be loaded here (the kernels are compiled at run time).
pub(crate) fn nvrtc_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as above, for libnvrtc.
    *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() })
}

/// The error every GPU entry point returns on a machine without a driver.
pub(crate) fn no_driver() -> Error {
    Error::Backend(
        "cuda: no NVIDIA driver found (libcuda.so could not be loaded): the `cuda` backend needs a machine with an NVIDIA \
         GPU and its driver; use `backend: {kind: onnxruntime}` on this machine"
            .into(),
    )
}

/// A device and its primary context, made current on the calling thread by [`Context::bind`].
#[derive(Debug)]
pub struct Context {
    device: sys::CUdevice,
    ctx: sys::CUcontext,
    /// Device ordinal.
    pub ordinal: usize,
    /// Device name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability (major, minor).
    pub capability: (i32, i32),
    /// Device memory in bytes.
    pub total_memory: usize,
    /// Streaming multiprocessors (sizes the split-K decision, plan.rs `matmul_splits`).
    pub multiprocessors: usize,
}

// SAFETY: a CUcontext may be used from any thread once made current there; `bind` does that before every use.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// Initialises the driver and retains device `ordinal`'s primary context.
    pub fn new(ordinal: usize) -> Result<Context> {
        if !driver_present() {
            return Err(no_driver());
        }
        check("cuInit", result::init())?;
        let count = check("cuDeviceGetCount", result::device::get_count())?;
        if ordinal as i32 >= count {
            return Err(Error::Backend(format!("cuda: device_id {ordinal} does not exist ({count} device(s) found)")));
        }
        let device = check("cuDeviceGet", result::device::get(ordinal as i32))?;
        // SAFETY: `device` is a valid device handle from cuDeviceGet.
        let ctx = check("cuDevicePrimaryCtxRetain", unsafe { result::primary_ctx::retain(device) })?;
        // SAFETY: `ctx` was just retained.
        check("cuCtxSetCurrent", unsafe { result::ctx::set_current(ctx) })?;
        let name = check("cuDeviceGetName", result::device::get_name(device))?;
        let attr = |a| {
            // SAFETY: valid device, plain integer attribute.
            check("cuDeviceGetAttribute", unsafe { result::device::get_attribute(device, a) })
        };
        let capability = (
            attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        // SAFETY: valid device.
        let total_memory = check("cuDeviceTotalMem", unsafe { result::device::total_mem(device) })?;
        let multiprocessors = attr(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as usize;
        Ok(Context { device, ctx, ordinal, name, capability, total_memory, multiprocessors })
    }

    /// Makes the context current on this thread (cheap; called at the start of every public operation because the
    /// server may drive a decoder from different worker threads).
    pub fn bind(&self) -> Result<()> {
        // SAFETY: `ctx` stays retained for the lifetime of `self`.
        check("cuCtxSetCurrent", unsafe { result::ctx::set_current(self.ctx) })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: balanced with the retain in `new`.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

/// A CUDA stream (non-blocking with respect to the legacy default stream).
#[derive(Debug)]
pub struct Stream(pub sys::CUstream);

// SAFETY: a stream handle is usable from any thread of the context.
unsafe impl Send for Stream {}

impl Stream {
    /// A new non-blocking stream in the current context.
    pub fn new() -> Result<Stream> {
        Ok(Stream(check("cuStreamCreate", result::stream::create(result::stream::StreamKind::NonBlocking))?))
    }

    /// Waits for everything queued on the stream.
    pub(crate) fn synchronize(&self) -> Result<()> {
        // SAFETY: valid stream.
        check("cuStreamSynchronize", unsafe { result::stream::synchronize(self.0) })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // SAFETY: the stream is owned; pending work finishes before the driver frees it.
        let _ = unsafe { result::stream::destroy(self.0) };
    }
}

/// Device memory of `bytes` bytes (freed on drop).
#[derive(Debug)]
pub struct DeviceBuffer {
    /// Device address.
    pub ptr: sys::CUdeviceptr,
    /// Size in bytes.
    pub bytes: usize,
}

// SAFETY: device memory is addressed by value; access is ordered by the owning stream.
unsafe impl Send for DeviceBuffer {}

impl DeviceBuffer {
    /// Allocates `bytes` (at least 1) bytes, zero-filled.
    pub(crate) fn zeroed(bytes: usize) -> Result<DeviceBuffer> {
        let bytes = bytes.max(1);
        // SAFETY: plain allocation in the current context.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(|e| Error::Backend(format!("cuda: cannot allocate {bytes} bytes: {e}")))?;
        // SAFETY: `ptr` points to `bytes` bytes just allocated.
        check("cuMemsetD8", unsafe { result::memset_d8_sync(ptr, 0, bytes) })?;
        Ok(DeviceBuffer { ptr, bytes })
    }

    /// Allocates and fills from host memory (synchronous: used at load time).
    pub(crate) fn from_host<T: Copy>(data: &[T]) -> Result<DeviceBuffer> {
        let buf = DeviceBuffer::zeroed(std::mem::size_of_val(data))?;
        // SAFETY: `buf` holds at least size_of_val(data) bytes.
        check("cuMemcpyHtoD", unsafe { result::memcpy_htod_sync(buf.ptr, data) })?;
        Ok(buf)
    }

    /// The address `offset` bytes in.
    pub fn at(&self, offset: usize) -> sys::CUdeviceptr {
        debug_assert!(offset <= self.bytes);
        self.ptr + offset as u64
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // SAFETY: owned allocation, freed once.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Page-locked host memory of `len` elements, so async copies really are asynchronous and may sit inside the
/// stream order. Allocated WITHOUT the write-combined flag: the host reads logits back from it, and write-combined
/// memory is uncached for CPU reads.
#[derive(Debug)]
pub(crate) struct PinnedBuffer<T: Copy + Default> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: plain host memory owned by this value.
unsafe impl<T: Copy + Default + Send> Send for PinnedBuffer<T> {}

impl<T: Copy + Default> PinnedBuffer<T> {
    /// Allocates `len` (at least 1) elements, default-filled.
    pub fn new(len: usize) -> Result<PinnedBuffer<T>> {
        let len = len.max(1);
        let bytes = len * std::mem::size_of::<T>();
        // SAFETY: flags 0 = portable-less, mapped-less, cached page-locked memory.
        let raw = unsafe { result::malloc_host(bytes, 0) }.map_err(|e| Error::Backend(format!("cuda: cannot pin {bytes} host bytes: {e}")))?;
        let ptr = raw as *mut T;
        // SAFETY: `ptr` points to `len` writable elements.
        unsafe { std::slice::from_raw_parts_mut(ptr, len).fill(T::default()) };
        Ok(PinnedBuffer { ptr, len })
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised elements for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The elements, writable.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as above, uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// Host address of element `index`.
    pub(crate) fn ptr_at(&self, index: usize) -> *mut c_void {
        debug_assert!(index <= self.len);
        // SAFETY: within (or one past) the allocation.
        unsafe { self.ptr.add(index) as *mut c_void }
    }
}

impl<T: Copy + Default> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: owned page-locked allocation, freed once.
        let _ = unsafe { result::free_host(self.ptr as *mut c_void) };
    }
}

/// Queues a host-to-device copy of `bytes` bytes on `stream`. `src` must stay valid and unchanged until the stream
/// has executed the copy (pinned buffers owned by the decoder, one slot per chunk of a pass).
///
/// # Safety
/// `src` must address `bytes` readable bytes that stay valid until the stream has run the copy; `dst` at least
/// `bytes` device bytes.
pub unsafe fn copy_htod(stream: &Stream, dst: sys::CUdeviceptr, src: *const c_void, bytes: usize) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: caller guarantees `src` holds `bytes` bytes and `dst` at least as many.
    check("cuMemcpyHtoDAsync", unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src, bytes, stream.0).result() })
}

/// Queues a device-to-host copy of `bytes` bytes on `stream` (see [`copy_htod`] for the lifetime rule).
///
/// # Safety
/// `dst` must address `bytes` writable bytes that stay valid until the stream has run the copy; `src` at least
/// `bytes` device bytes.
pub unsafe fn copy_dtoh(stream: &Stream, dst: *mut c_void, src: sys::CUdeviceptr, bytes: usize) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: caller guarantees `dst` holds `bytes` bytes and `src` at least as many.
    check("cuMemcpyDtoHAsync", unsafe { sys::cuMemcpyDtoHAsync_v2(dst, src, bytes, stream.0).result() })
}

/// Queues a device-to-device copy.
pub(crate) fn copy_dtod(stream: &Stream, dst: sys::CUdeviceptr, src: sys::CUdeviceptr, bytes: usize) -> Result<()> {
    // SAFETY: caller guarantees both ranges exist.
    check("cuMemcpyDtoDAsync", unsafe { result::memcpy_dtod_async(dst, src, bytes, stream.0) })
}

/// A timing event.
#[derive(Debug)]
pub(crate) struct Event(sys::CUevent);

// SAFETY: event handles are context-wide; the context is made current before every use.
unsafe impl Send for Event {}

impl Event {
    /// A new event with timing enabled.
    pub fn new() -> Result<Event> {
        Ok(Event(check("cuEventCreate", result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT))?))
    }

    /// Records the event on `stream`.
    pub(crate) fn record(&self, stream: &Stream) -> Result<()> {
        // SAFETY: valid event and stream.
        check("cuEventRecord", unsafe { result::event::record(self.0, stream.0) })
    }

    /// Milliseconds from `self` to `end` (both recorded; waits for `end`).
    pub(crate) fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        // SAFETY: valid events.
        check("cuEventSynchronize", unsafe { result::event::synchronize(end.0) })?;
        // SAFETY: valid, completed events.
        check("cuEventElapsedTime", unsafe { result::event::elapsed(self.0, end.0) })
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: owned event.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

/// A module loaded from PTX and the functions looked up in it.
#[derive(Debug)]
pub(crate) struct Module(sys::CUmodule);

// SAFETY: module handles are context-wide.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    /// Loads PTX text (the driver JIT-compiles it for the current device).
    pub(crate) fn load_ptx(ptx: &str) -> Result<Module> {
        let text = CString::new(ptx).map_err(|_| Error::Internal("cuda: PTX text contains a NUL byte".into()))?;
        // SAFETY: a NUL-terminated PTX image.
        Ok(Module(check("cuModuleLoadData", unsafe { result::module::load_data(text.as_ptr() as *const c_void) })?))
    }

    /// Looks up kernel `name`.
    pub fn function(&self, name: &str) -> Result<Function> {
        let cname = CString::new(name).map_err(|_| Error::Internal("cuda: kernel name with NUL".into()))?;
        // SAFETY: valid module, NUL-terminated name.
        Ok(Function(check(&format!("cuModuleGetFunction({name})"), unsafe { result::module::get_function(self.0, cname) })?))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: owned module.
        let _ = unsafe { result::module::unload(self.0) };
    }
}

/// A kernel handle.
#[derive(Debug, Clone, Copy)]
pub struct Function(pub sys::CUfunction);

// SAFETY: function handles are context-wide and immutable.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

impl Function {
    /// Allows `bytes` of dynamic shared memory (needed above 48 KiB).
    pub(crate) fn set_max_dynamic_shared(&self, bytes: usize) -> Result<()> {
        // SAFETY: valid function; the driver checks the value against the device limit.
        check("cuFuncSetAttribute", unsafe {
            result::function::set_function_attribute(self.0, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes as i32)
        })
    }
}

/// One kernel argument, stored by value so its address stays valid until the launch call returns.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg {
    /// A device pointer (or 0 for nullptr).
    Ptr(sys::CUdeviceptr),
    /// A 32-bit int.
    I32(i32),
    /// An unsigned 32-bit int.
    U32(u32),
    /// A 64-bit size.
    Usize(u64),
    /// A float.
    F32(f32),
}

/// Launch geometry.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Launch {
    /// Blocks (x, y).
    pub grid: (u32, u32),
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory in bytes.
    pub shared: u32,
    /// Blocks along z (1 except split-K's parts).
    pub depth: u32,
}

/// Queues `f` on `stream` with `args` (by value).
pub(crate) fn launch(stream: &Stream, f: Function, geometry: Launch, args: &[Arg]) -> Result<()> {
    let mut values: Vec<Arg> = args.to_vec();
    let mut pointers: Vec<*mut c_void> = values
        .iter_mut()
        .map(|a| match a {
            Arg::Ptr(p) => p as *mut u64 as *mut c_void,
            Arg::I32(v) => v as *mut i32 as *mut c_void,
            Arg::U32(v) => v as *mut u32 as *mut c_void,
            Arg::Usize(v) => v as *mut u64 as *mut c_void,
            Arg::F32(v) => v as *mut f32 as *mut c_void,
        })
        .collect();
    // SAFETY: every pointer addresses a live value of the kernel parameter's size; the driver copies the values
    // during the call (also when capturing), so `values` may be dropped afterwards.
    check("cuLaunchKernel", unsafe {
        result::launch_kernel(
            f.0,
            (geometry.grid.0, geometry.grid.1, geometry.depth.max(1)),
            (geometry.block, 1, 1),
            geometry.shared,
            stream.0,
            &mut pointers,
        )
    })
}

/// An instantiated CUDA graph captured from a stream.
#[derive(Debug)]
pub(crate) struct Graph {
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
}

// SAFETY: graph handles are context-wide.
unsafe impl Send for Graph {}

impl Graph {
    /// Captures what `body` queues on `stream` (thread-local capture mode) and instantiates it. When capture fails
    /// (an operation that cannot be captured), the capture is ended and the error returned, so the caller can run
    /// the body directly instead.
    pub(crate) fn capture(stream: &Stream, body: impl FnOnce() -> Result<()>) -> Result<Graph> {
        // SAFETY: valid stream.
        check("cuStreamBeginCapture", unsafe {
            result::stream::begin_capture(stream.0, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        })?;
        let queued = body();
        // SAFETY: ends the capture begun above (also after a failure, so the stream is usable again).
        let graph = check("cuStreamEndCapture", unsafe { result::stream::end_capture(stream.0) });
        queued?;
        let graph = graph?;
        // SAFETY: `graph` is a complete captured graph.
        let exec = match unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) } {
            Ok(exec) => exec,
            Err(e) => {
                // SAFETY: owned graph.
                let _ = unsafe { result::graph::destroy(graph) };
                return Err(Error::Backend(format!("cuda: cuGraphInstantiate: {e}")));
            }
        };
        Ok(Graph { exec, graph })
    }

    /// Queues one replay on `stream`.
    pub(crate) fn launch(&self, stream: &Stream) -> Result<()> {
        // SAFETY: valid exec and stream.
        check("cuGraphLaunch", unsafe { result::graph::launch(self.exec, stream.0) })
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: owned handles, destroyed once.
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
    }
}
