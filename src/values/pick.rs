//! Which values of an Arrow buffer a conversion takes ([`Pick`]), and the
//! loop that writes one converted value per picked value straight into a
//! buffer's spare capacity ([`append_converted`]), shared by every
//! conversion (`convert`, `integer`).

use crate::cpu::prefetch;
use arrow_buffer::bit_chunk_iterator::BitChunks;
use std::mem::MaybeUninit;

/// Which values of a source to convert.
#[derive(Clone, Copy)]
pub(super) enum Pick<'a> {
    /// All of them, in order.
    All,
    /// The values at these positions, in this order.
    At(&'a [usize]),
    /// The values whose bit is set, in order: bit `offset + i` of `bits` for
    /// value `i`; `count` bits are set.
    Mask {
        bits: &'a [u8],
        offset: usize,
        count: usize,
    },
}

impl Pick<'_> {
    /// How many values are picked from `len`.
    pub(super) fn count(self, len: usize) -> usize {
        match self {
            Pick::All => len,
            Pick::At(at) => at.len(),
            Pick::Mask { count, .. } => count,
        }
    }
}

/// Appends one `W`-byte value per `S`-byte value of `src` that `at` picks,
/// in order, as `convert` makes it, straight into the spare capacity of
/// `out` (no zeroing first).
#[inline(always)]
pub(super) fn append_converted<const S: usize, const W: usize>(
    out: &mut Vec<u8>,
    src: &[[u8; S]],
    at: Pick<'_>,
    convert: impl Fn(&[u8; S]) -> [u8; W],
) {
    // A mask writes each slot's value at the next position before knowing
    // whether it is kept: one value of room beyond the picked ones.
    let n = at.count(src.len());
    let room = n + usize::from(matches!(at, Pick::Mask { .. }));
    let bytes = room.checked_mul(W).expect("capacity overflow");
    out.reserve(bytes);
    let len = out.len();
    let spare = &mut out.spare_capacity_mut()[..bytes];
    // SAFETY: `MaybeUninit<[u8; W]>` has the size (`W`) and alignment (1)
    // of `W` elements of `MaybeUninit<u8>`, so the `bytes = room * W` spare
    // bytes just borrowed are exactly `room` such elements.
    let dst = unsafe {
        std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<MaybeUninit<[u8; W]>>(), room)
    };
    let written = match at {
        Pick::All => {
            for (o, v) in dst.iter_mut().zip(src) {
                o.write(convert(v));
            }
            n
        }
        Pick::At(at) => {
            // Scattered positions: ask for the value `AHEAD` positions on
            // while converting this one, so the cache misses overlap; the
            // first `AHEAD` are all asked for up front (a call covers one
            // mini-batch: a sparse column's ~100 values of 1,024 rows).
            const AHEAD: usize = 16;
            for &i in &at[..AHEAD.min(at.len())] {
                if let Some(v) = src.get(i) {
                    prefetch(v);
                }
            }
            let (near, far) = at.split_at(at.len().saturating_sub(AHEAD));
            for ((o, &i), &next) in dst.iter_mut().zip(near).zip(&at[AHEAD.min(at.len())..]) {
                if let Some(v) = src.get(next) {
                    prefetch(v);
                }
                o.write(convert(&src[i]));
            }
            for (o, &i) in dst[near.len()..].iter_mut().zip(far) {
                o.write(convert(&src[i]));
            }
            n
        }
        Pick::Mask { bits, offset, .. } => {
            let chunks = BitChunks::new(bits, offset, src.len());
            let mut pos = 0;
            for (word, slots) in chunks.iter_padded().zip(src.chunks(64)) {
                if word == u64::MAX && slots.len() == 64 && pos + 64 <= n {
                    for (o, v) in dst[pos..pos + 64].iter_mut().zip(slots) {
                        o.write(convert(v));
                    }
                    pos += 64;
                    continue;
                }
                for (j, v) in slots.iter().enumerate() {
                    // Stops short of `room` if `count` undercounts the bits.
                    let Some(o) = dst.get_mut(pos) else { break };
                    o.write(convert(v));
                    pos += (word >> j & 1) as usize;
                }
            }
            pos.min(n)
        }
    };
    // SAFETY: the first `written` elements of `dst` were written: `All` and
    // `At` zip `dst` with a slice of `n` items (`src` or `at`, whose
    // positions index `src` with bounds checks); `Mask` writes element `pos`
    // before `pos` moves past it, and `written` is at most `pos`.
    unsafe { out.set_len(len + written * W) };
}
