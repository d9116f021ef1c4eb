//! Value encoding for fixed-width values: one [`ColumnEncoder`] per column,
//! which pulls values from a [`ValueSource`](crate::values::ValueSource) and
//! hands encoded pages to the page builder.
//!
//! * [`encoder`]: the column's encoder (the boundary the page stage uses).
//! * [`dictionary`]: dictionary encoding with the fallback point `parquet` uses.
//! * [`fallback`]: PLAIN, BYTE_STREAM_SPLIT and DELTA_BYTE_ARRAY ([`delta`]).
//! * [`block`]: the block a PLAIN page's values are written into, in place.
//! * [`min_max`]: page min/max in each column's order; [`bloom`]: the bloom filter.
//! * [`rle`]: the RLE / bit-packing hybrid, for levels and dictionary indices
//!   ([`bitpack`]: bit packing and varints).
//!
//! Every encoder takes values as one contiguous byte slice, `width` bytes per
//! value, already in their Parquet form. No value is ever boxed or allocated
//! on its own.

pub(crate) mod bitpack;
pub(crate) mod block;
pub(crate) mod bloom;
pub(crate) mod delta;
pub(crate) mod dictionary;
pub(crate) mod encoder;
pub(crate) mod fallback;
pub(crate) mod min_max;
pub(crate) mod rle;

pub(crate) use encoder::{ColumnEncoder, DictionaryPage, PageBytes};

/// Runs `f` compiled for AVX2 when the CPU has it, else as it is.
///
/// The crate is built for the baseline of its target (on x86_64, SSE2: no
/// 64-bit integer compares, no 32-bit min/max), so reductions such as the
/// min and max of a page's INT64 values stay scalar. What `f` inlines is
/// compiled a second time inside an AVX2 function, where they vectorise;
/// the CPU check is one cached load. The results are the same either way.
#[inline(always)]
pub(crate) fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: AVX2 is available, as just checked.
        return unsafe { run(f) };
    }
    f()
}

/// Asks the core to bring the cache line of `item` in, without waiting for
/// it (a hint; a no-op where the target has no stable prefetch instruction).
#[inline(always)]
pub(crate) fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and does not access memory
    // architecturally; the pointer comes from a live reference anyway.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((item as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}
