//! Where the weight panels live: 64-byte lines carved from memory the kernel is asked to back with transparent huge
//! pages (`MADV_HUGEPAGE`), shared by the matrices of every model in the process.
//!
//! Why: a decode step streams every weight once (SmolLM2's panels ~90 MB, Qwen2.5-1.5B's ~1 GB). With 4 KiB pages
//! that is one TLB entry per 64 lines, far past the L2 TLB's reach, and the hardware prefetchers stop at every page
//! boundary. Where THP is `madvise` (a common default), only advised memory gets huge pages, and most matrices are
//! too small to hold a whole aligned 2 MiB region of their own (SmolLM2's per-layer projections are 0.3-1 MB): so
//! small matrices are packed into shared chunks of [`CHUNK_BYTES`], and large ones get their own 2 MiB-aligned
//! mapping. Measured in docs/KERNELS.md ("Huge pages for the weights").
//!
//! Memory: a chunk is unmapped when the last matrix in it is dropped (the allocator holds it weakly), so unloading
//! every model returns everything; a chunk kept alive by one matrix keeps its other, freed ranges (at most
//! [`CHUNK_BYTES`] per such chunk: the ranges are bump-allocated, never reused). `SPECRT_NO_HUGE_PAGES=1` skips
//! the advice (A/B measurements); the bytes, and so every result, are the same either way.

use std::sync::{Arc, Mutex, Weak};

/// One cache line of storage.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Line(pub [u8; 64]);

/// A huge page on x86-64 Linux.
const HUGE: usize = 2 << 20;
/// Bytes of a shared chunk (4 huge pages).
const CHUNK_BYTES: usize = 4 * HUGE;
/// Matrices of at least this many bytes get their own mapping.
const OWN_MAPPING_BYTES: usize = HUGE;

/// Zeroed lines of weight storage (see the module notes), or a growable owned buffer.
#[derive(Debug)]
pub(crate) struct WeightLines {
    storage: Storage,
}

#[derive(Debug)]
enum Storage {
    Owned(Vec<Line>),
    Mapped { region: Arc<Region>, start: usize, len: usize },
}

impl WeightLines {
    /// `n` zeroed lines for weights a decode step streams.
    pub fn for_weights(n: usize) -> Self {
        match Region::lines(n) {
            Some((region, start)) => WeightLines { storage: Storage::Mapped { region, start, len: n } },
            None => WeightLines { storage: Storage::Owned(vec![Line([0; 64]); n]) },
        }
    }

    /// An empty, growable buffer (a gather target).
    pub fn owned() -> Self {
        WeightLines { storage: Storage::Owned(Vec::new()) }
    }

    /// Lines held.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Owned(v) => v.len(),
            Storage::Mapped { len, .. } => *len,
        }
    }

    /// Grows to at least `n` lines (new lines zeroed), moving mapped storage into an owned buffer first.
    pub fn grow_to(&mut self, n: usize) {
        if let Storage::Mapped { .. } = self.storage {
            self.storage = Storage::Owned(self.owned_copy());
        }
        if let Storage::Owned(v) = &mut self.storage {
            if v.len() < n {
                v.resize(n, Line([0; 64]));
            }
        }
    }

    /// The lines copied into an owned buffer.
    fn owned_copy(&self) -> Vec<Line> {
        let mut copy = vec![Line([0; 64]); self.len()];
        // SAFETY: `Line` is 64 plain bytes; the slice covers exactly the vector's storage.
        unsafe { std::slice::from_raw_parts_mut(copy.as_mut_ptr() as *mut u8, copy.len() * 64) }.copy_from_slice(self.bytes());
        copy
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.storage {
            Storage::Owned(v) => {
                // SAFETY: `Line` is 64 plain bytes; the slice covers exactly the vector's storage.
                unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len() * 64) }
            }
            Storage::Mapped { region, start, len } => {
                // SAFETY: lines start..start + len of the region were handed to this value alone (`Region::lines`)
                // and stay mapped while `region` (an Arc held here) lives.
                unsafe { std::slice::from_raw_parts(region.base.add(start * 64), len * 64) }
            }
        }
    }

    /// The bytes, writable.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.storage {
            Storage::Owned(v) => {
                // SAFETY: as in `bytes`, and `v` is borrowed mutably.
                unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, v.len() * 64) }
            }
            Storage::Mapped { region, start, len } => {
                // SAFETY: as in `bytes`; no other value holds these lines (clones copy, see `Clone`), and `self`
                // is borrowed mutably.
                unsafe { std::slice::from_raw_parts_mut(region.base.add(*start * 64), *len * 64) }
            }
        }
    }
}

impl Clone for WeightLines {
    /// A copy in fresh storage of the same kind (mapped lines are never shared by two values).
    fn clone(&self) -> Self {
        match self.storage {
            Storage::Owned(_) => WeightLines { storage: Storage::Owned(self.owned_copy()) },
            Storage::Mapped { .. } => {
                let mut copy = WeightLines::for_weights(self.len());
                copy.bytes_mut().copy_from_slice(self.bytes());
                copy
            }
        }
    }
}

/// An anonymous mapping, unmapped on drop.
#[derive(Debug)]
struct Region {
    /// Aligned start of the usable bytes.
    base: *mut u8,
    lines: usize,
    /// The mapping as made (for munmap).
    map: *mut libc::c_void,
    map_len: usize,
}

// SAFETY: the region is plain memory; disjoint line ranges are handed to distinct owners (`Region::lines`).
unsafe impl Send for Region {}
// SAFETY: as above; shared access only reads.
unsafe impl Sync for Region {}

/// The shared chunk small matrices are packed into, held weakly, and its next free line.
static CURRENT: Mutex<(Weak<Region>, usize)> = Mutex::new((Weak::new(), 0));

impl Region {
    /// `n` lines: a range of the current shared chunk, or a mapping of their own; `None` when mapping is not
    /// available (other systems, or the system refused), for the caller's ordinary allocation.
    fn lines(n: usize) -> Option<(Arc<Region>, usize)> {
        if n == 0 {
            return None;
        }
        let bytes = n * 64;
        if bytes >= OWN_MAPPING_BYTES {
            // Huge pages only for the whole 2 MiB regions the matrix fills: a partly used last one stays in small
            // pages rather than taking a whole huge page for a few lines.
            return Region::map(bytes, bytes / HUGE * HUGE).map(|r| (Arc::new(r), 0));
        }
        let mut current = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(region) = current.0.upgrade() {
            if current.1 + n <= region.lines {
                let start = current.1;
                current.1 += n;
                return Some((region, start));
            }
        }
        let region = Arc::new(Region::map(CHUNK_BYTES, CHUNK_BYTES)?);
        *current = (Arc::downgrade(&region), n);
        Some((region, 0))
    }

    /// A zeroed mapping of `bytes` starting on a 2 MiB boundary, its first `advise` bytes advised to huge pages.
    #[cfg(target_os = "linux")]
    fn map(bytes: usize, advise: usize) -> Option<Region> {
        let map_len = bytes + HUGE;
        // SAFETY: an anonymous private mapping: no file, no fixed address; the result is checked.
        let map =
            unsafe { libc::mmap(std::ptr::null_mut(), map_len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        if map == libc::MAP_FAILED {
            return None;
        }
        let base = (map as usize).next_multiple_of(HUGE) as *mut u8;
        if advise > 0 && std::env::var_os("SPECRT_NO_HUGE_PAGES").is_none() {
            // SAFETY: [base, base + advise) lies inside the mapping; madvise only changes how the kernel backs it,
            // and its failure (THP off) is harmless: the advice is ignored.
            unsafe {
                libc::madvise(base as *mut libc::c_void, advise, libc::MADV_HUGEPAGE);
            }
        }
        Some(Region { base, lines: bytes / 64, map, map_len })
    }

    #[cfg(not(target_os = "linux"))]
    fn map(_bytes: usize, _advise: usize) -> Option<Region> {
        None
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        unmap(self.map, self.map_len);
    }
}

/// Unmaps what `Region::map` mapped: called once, when the last `WeightLines` holding the region is dropped.
#[cfg(target_os = "linux")]
fn unmap(map: *mut libc::c_void, len: usize) {
    // SAFETY: `map`/`len` are a mapping `Region::map` made, and nothing borrows it any more.
    unsafe {
        libc::munmap(map, len);
    }
}

#[cfg(not(target_os = "linux"))]
fn unmap(_map: *mut libc::c_void, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_matrices_share_a_chunk_and_never_overlap() {
        let mut a = WeightLines::for_weights(1000);
        let mut b = WeightLines::for_weights(3000);
        assert!(a.bytes().iter().all(|&x| x == 0) && b.bytes().iter().all(|&x| x == 0));
        a.bytes_mut().fill(1);
        b.bytes_mut().fill(2);
        assert!(a.bytes().iter().all(|&x| x == 1) && b.bytes().iter().all(|&x| x == 2));
        assert_eq!((a.len(), b.len()), (1000, 3000));
        if cfg!(target_os = "linux") {
            let (pa, pb) = (a.bytes().as_ptr() as usize, b.bytes().as_ptr() as usize);
            assert!(pa + 1000 * 64 <= pb || pb + 3000 * 64 <= pa, "ranges overlap");
            assert_eq!(pa % 64, 0);
        }
    }

    #[test]
    fn large_matrices_start_on_a_huge_page_and_clones_copy() {
        let n = (3 * HUGE) / 64 + 5;
        let mut a = WeightLines::for_weights(n);
        a.bytes_mut()[..7].copy_from_slice(b"weights");
        if cfg!(target_os = "linux") {
            assert_eq!(a.bytes().as_ptr() as usize % HUGE, 0);
        }
        let c = a.clone();
        assert_eq!(c.bytes(), a.bytes());
        assert_ne!(c.bytes().as_ptr(), a.bytes().as_ptr());
        drop(a);
        assert_eq!(&c.bytes()[..7], b"weights");
    }

    #[test]
    fn mapped_lines_grow_into_an_owned_buffer() {
        let mut a = WeightLines::for_weights(10);
        a.bytes_mut()[0] = 9;
        a.grow_to(20);
        assert_eq!(a.len(), 20);
        assert_eq!(a.bytes()[0], 9);
        assert!(a.bytes()[10 * 64..].iter().all(|&x| x == 0));
        let mut o = WeightLines::owned();
        assert_eq!(o.len(), 0);
        o.grow_to(3);
        assert_eq!(o.bytes().len(), 192);
    }
}
