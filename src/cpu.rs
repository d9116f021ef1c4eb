//! What the processor offers beyond the target's baseline, for the hot
//! loops of every stage: code compiled a second time for AVX2, and a cache
//! prefetch hint.

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
