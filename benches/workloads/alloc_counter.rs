//! A counting global allocator: wraps [`std::alloc::System`] and counts, with
//! relaxed atomics, every allocation, reallocation, byte allocated, and the
//! current and peak live bytes since the last [`reset`].
//!
//! Install it in a binary with
//! `#[global_allocator] static ALLOC: CountingAlloc = CountingAlloc;`, call
//! [`reset`] right before the code to measure and [`snapshot`] right after.
//!
//! Definitions:
//! - `allocations`: calls to `alloc` / `alloc_zeroed`.
//! - `reallocations`: calls to `realloc` (counted separately, not in `allocations`).
//! - `bytes_allocated`: bytes requested by `alloc`/`alloc_zeroed`, plus the growth
//!   (`new_size - old_size`, when positive) of every `realloc`.
//! - `live_bytes` / `peak_live_bytes`: bytes allocated minus bytes freed since the
//!   last reset, and its maximum. Frees of memory allocated before the reset make
//!   `live_bytes` negative; the peak is clamped at 0.
//!
//! The counters are process-wide: other threads allocating at the same time are
//! counted too.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

/// The counting allocator. Zero-sized; all state is in statics.
pub struct CountingAlloc;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static REALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES_ALLOCATED: AtomicU64 = AtomicU64::new(0);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

#[inline]
fn grow(bytes: usize) {
    let now = LIVE.fetch_add(bytes as i64, Relaxed) + bytes as i64;
    PEAK.fetch_max(now, Relaxed);
}

#[inline]
fn shrink(bytes: usize) {
    LIVE.fetch_sub(bytes as i64, Relaxed);
}

// SAFETY: every method forwards to `System` with the same arguments and only
// adds atomic bookkeeping, which never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            BYTES_ALLOCATED.fetch_add(layout.size() as u64, Relaxed);
            grow(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            ALLOCATIONS.fetch_add(1, Relaxed);
            BYTES_ALLOCATED.fetch_add(layout.size() as u64, Relaxed);
            grow(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for `alloc`; `ptr` came from this allocator, i.e. from `System`.
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if !new_ptr.is_null() {
            REALLOCATIONS.fetch_add(1, Relaxed);
            let old_size = layout.size();
            if new_size > old_size {
                BYTES_ALLOCATED.fetch_add((new_size - old_size) as u64, Relaxed);
                grow(new_size - old_size);
            } else {
                shrink(old_size - new_size);
            }
        }
        new_ptr
    }
}

/// Counter values since the last [`reset`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Calls to `alloc` and `alloc_zeroed`.
    pub allocations: u64,
    /// Calls to `realloc`.
    pub reallocations: u64,
    /// Bytes requested by allocations plus realloc growth.
    pub bytes_allocated: u64,
    /// Bytes allocated minus bytes freed (may be negative).
    pub live_bytes: i64,
    /// Maximum of `live_bytes` (at least 0).
    pub peak_live_bytes: u64,
}

/// Zeroes every counter; live and peak bytes restart at 0.
pub fn reset() {
    ALLOCATIONS.store(0, Relaxed);
    REALLOCATIONS.store(0, Relaxed);
    BYTES_ALLOCATED.store(0, Relaxed);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
}

/// Reads every counter.
pub fn snapshot() -> Snapshot {
    Snapshot {
        allocations: ALLOCATIONS.load(Relaxed),
        reallocations: REALLOCATIONS.load(Relaxed),
        bytes_allocated: BYTES_ALLOCATED.load(Relaxed),
        live_bytes: LIVE.load(Relaxed),
        peak_live_bytes: PEAK.load(Relaxed).max(0) as u64,
    }
}
