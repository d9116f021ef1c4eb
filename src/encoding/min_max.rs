//! Min/max statistics over Parquet values, in the order `parquet` uses for
//! each kind of column ([`ValueOrder`]; truncation is the page stage's).
//!
//! * FixedSizeBinary / UUID: unsigned lexicographic bytes.
//! * Decimals: signed big-endian two's complement (all values have the column's
//!   width, so this is an unsigned compare with the sign bit flipped).
//! * INT32 / INT64: signed (or unsigned) little-endian integers.
//! * Floats: IEEE 754 total order on the little-endian bits; NaNs are skipped
//!   unless every value is NaN, and counted.
//! * Intervals: no min/max at all.

use crate::cpu::with_avx2;
use crate::values::order::{float_is_nan, float_key};
use crate::values::{Slots, ValueOrder};
use std::cmp::Ordering;

/// The running min and max of a page or a chunk, as Parquet bytes.
#[derive(Debug, Default, Clone)]
pub(crate) struct MinMax {
    min: Vec<u8>,
    max: Vec<u8>,
    set: bool,
}

impl MinMax {
    /// True once a value has been seen.
    pub(crate) fn is_set(&self) -> bool {
        self.set
    }

    /// The minimum, once a value has been seen.
    pub(crate) fn min(&self) -> Option<&[u8]> {
        self.set.then_some(self.min.as_slice())
    }

    /// The maximum, once a value has been seen.
    pub(crate) fn max(&self) -> Option<&[u8]> {
        self.set.then_some(self.max.as_slice())
    }

    /// Forgets the values, keeping the buffers.
    pub(crate) fn clear(&mut self) {
        self.set = false;
    }

    /// Folds a batch's (or page's) min and max in, with `parquet`'s NaN rules:
    /// a NaN never replaces a number, a number always replaces a NaN.
    pub(crate) fn update(&mut self, order: ValueOrder, min: &[u8], max: &[u8]) {
        if !self.set {
            self.min.clear();
            self.min.extend_from_slice(min);
            self.max.clear();
            self.max.extend_from_slice(max);
            self.set = true;
            return;
        }
        if replaces(order, &self.min, min, Ordering::Greater) {
            self.min.clear();
            self.min.extend_from_slice(min);
        }
        if replaces(order, &self.max, max, Ordering::Less) {
            self.max.clear();
            self.max.extend_from_slice(max);
        }
    }

    /// Float min/max as parquet 59 writes them (D2): a zero min as -0, a
    /// zero max as +0 (little-endian floats of any width).
    pub(crate) fn replace_float_zeros(&mut self) {
        if self.set {
            if is_float_zero(&self.min) {
                set_float_zero(&mut self.min, true);
            }
            if is_float_zero(&self.max) {
                set_float_zero(&mut self.max, false);
            }
        }
    }

    /// Folds another min/max in.
    pub(crate) fn merge(&mut self, order: ValueOrder, other: &MinMax) {
        if other.set {
            self.update(order, &other.min, &other.max);
        }
    }
}

/// Whether a little-endian float is +0 or -0.
fn is_float_zero(v: &[u8]) -> bool {
    match v.split_last() {
        Some((&top, rest)) => top & 0x7F == 0 && rest.iter().all(|&b| b == 0),
        None => false,
    }
}

/// Sets a little-endian float to -0 (`negative`) or +0.
fn set_float_zero(v: &mut [u8], negative: bool) {
    v.fill(0);
    if let Some(top) = v.last_mut() {
        *top = u8::from(negative) << 7;
    }
}

/// Whether `val` replaces `cur`, where it replaces when `cur.cmp(val) == when`.
#[inline]
fn replaces(order: ValueOrder, cur: &[u8], val: &[u8], when: Ordering) -> bool {
    match (order.is_nan(cur), order.is_nan(val)) {
        (false, true) => false,
        (true, false) => true,
        _ => order.cmp(cur, val) == when,
    }
}

/// Min, max and NaN count of a batch of values, or None for an empty batch.
/// Returns the positions of the min and max values.
pub(crate) fn batch_min_max(order: ValueOrder, values: Slots<'_>) -> Option<(usize, usize, u64)> {
    if values.is_empty() {
        return None;
    }
    let Some(width) = values.fixed_width() else {
        return (order != ValueOrder::Undefined).then(|| {
            let (lo, hi) = min_max_slices(order, values);
            (lo, hi, 0)
        });
    };
    let data = values.data();
    match order {
        ValueOrder::Undefined => None,
        ValueOrder::Float => match width {
            2 => float_min_max::<2>(data),
            4 => float_min_max::<4>(data),
            8 => float_min_max::<8>(data),
            _ => {
                let (lo, hi) = min_max_slices(order, values);
                Some((lo, hi, 0))
            }
        },
        ValueOrder::SignedLe => Some(match width {
            4 => with_avx2(|| min_max_by_key(data.as_chunks::<4>().0, |v| i32::from_le_bytes(*v))),
            8 => with_avx2(|| min_max_by_key(data.as_chunks::<8>().0, |v| i64::from_le_bytes(*v))),
            _ => min_max_slices(order, values),
        })
        .map(|(lo, hi)| (lo, hi, 0)),
        ValueOrder::UnsignedLe => Some(match width {
            4 => with_avx2(|| min_max_by_key(data.as_chunks::<4>().0, |v| u32::from_le_bytes(*v))),
            8 => with_avx2(|| min_max_by_key(data.as_chunks::<8>().0, |v| u64::from_le_bytes(*v))),
            _ => min_max_slices(order, values),
        })
        .map(|(lo, hi)| (lo, hi, 0)),
        ValueOrder::Unsigned | ValueOrder::Signed => {
            let flip = order == ValueOrder::Signed;
            macro_rules! fixed {
                ($($w:literal)*) => {
                    match width {
                        $($w => min_max_fixed::<$w>(data, flip),)*
                        _ => min_max_slices(order, values),
                    }
                };
            }
            let (lo, hi) = fixed!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
            Some((lo, hi, 0))
        }
    }
}

/// Min/max positions of `W`-byte values, compared as big-endian integers
/// (with the sign bit flipped for signed order).
#[inline(never)]
fn min_max_fixed<const W: usize>(values: &[u8], flip: bool) -> (usize, usize) {
    let (chunks, _) = values.as_chunks::<W>();
    if W <= 8 {
        with_avx2(|| min_max_by_key(chunks, |v| key_u64::<W>(v, flip)))
    } else if W <= 16 {
        min_max_prefiltered(chunks, flip, |v| key_u128::<W>(v, flip))
    } else {
        min_max_prefiltered(chunks, flip, |v| key_u256::<W>(v, flip))
    }
}

/// [`min_max_by_key`] for values wider than eight bytes: a value whose first
/// eight bytes (as a key) lie strictly between those of the current minimum
/// and maximum cannot replace either, so the full key is built only for the
/// few values that might.
#[inline(always)]
fn min_max_prefiltered<const W: usize, K: Ord + Copy>(
    values: &[[u8; W]],
    flip: bool,
    key: impl Fn(&[u8; W]) -> K,
) -> (usize, usize) {
    let head = |v: &[u8; W]| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&v[..8]);
        u64::from_be_bytes(b) ^ ((flip as u64) << 63)
    };
    let first = key(&values[0]);
    let (mut min, mut max) = (first, first);
    let (mut min_head, mut max_head) = (head(&values[0]), head(&values[0]));
    let (mut min_i, mut max_i) = (0, 0);
    for (i, v) in values.iter().enumerate().skip(1) {
        let h = head(v);
        if h > min_head && h < max_head {
            continue;
        }
        let k = key(v);
        if k < min {
            min = k;
            min_i = i;
            min_head = h;
        } else if k > max {
            max = k;
            max_i = i;
            max_head = h;
        }
    }
    (min_i, max_i)
}

#[inline(always)]
fn key_u64<const W: usize>(v: &[u8; W], flip: bool) -> u64 {
    let mut b = [0u8; 8];
    b[..W].copy_from_slice(v);
    b[0] ^= (flip as u8) << 7;
    u64::from_be_bytes(b)
}

#[inline(always)]
fn key_u128<const W: usize>(v: &[u8; W], flip: bool) -> u128 {
    let mut b = [0u8; 16];
    b[..W].copy_from_slice(v);
    b[0] ^= (flip as u8) << 7;
    u128::from_be_bytes(b)
}

#[inline(always)]
fn key_u256<const W: usize>(v: &[u8; W], flip: bool) -> (u128, u128) {
    let mut b = [0u8; 32];
    b[..W].copy_from_slice(v);
    b[0] ^= (flip as u8) << 7;
    let (hi, lo) = b.split_at(16);
    (
        u128::from_be_bytes(hi.try_into().unwrap()),
        u128::from_be_bytes(lo.try_into().unwrap()),
    )
}

/// Positions of the first minimum and the first maximum of `values` by
/// `key`. Blocks of 64 values are reduced branch-free (integer keys
/// vectorise); a block is searched for a position only when it improves on
/// the extremes so far, which in typical data few blocks do. `key` must be
/// one to one (equal keys, equal values).
#[inline(always)]
fn min_max_by_key<T, K: Ord + Copy>(values: &[T], key: impl Fn(&T) -> K) -> (usize, usize) {
    const BLOCK: usize = 64;
    let first = key(&values[0]);
    let (mut min, mut max) = (first, first);
    let (mut min_i, mut max_i) = (0, 0);
    for (b, block) in values.chunks(BLOCK).enumerate() {
        let head = key(&block[0]);
        let (lo, hi) = block[1..].iter().fold((head, head), |(lo, hi), v| {
            let k = key(v);
            (lo.min(k), hi.max(k))
        });
        // The minimum is looked for from the block's start and the maximum
        // from its end: in rising data (event times, ids) every block has a
        // new maximum, found at once at the end. The keys are one to one
        // with the values, so any position of the extreme names the same
        // bytes.
        if lo < min {
            min = lo;
            min_i = b * BLOCK + block.iter().position(|v| key(v) == lo).unwrap_or(0);
        }
        if hi > max {
            max = hi;
            max_i = b * BLOCK + block.iter().rposition(|v| key(v) == hi).unwrap_or(0);
        }
    }
    (min_i, max_i)
}

fn min_max_slices(order: ValueOrder, values: Slots<'_>) -> (usize, usize) {
    let mut values = values.iter();
    let Some(mut min) = values.next() else {
        return (0, 0);
    };
    let mut max = min;
    let (mut min_i, mut max_i) = (0, 0);
    for (i, v) in values.enumerate() {
        if order.cmp(v, min) == Ordering::Less {
            min = v;
            min_i = i + 1;
        } else if order.cmp(v, max) == Ordering::Greater {
            max = v;
            max_i = i + 1;
        }
    }
    (min_i, max_i)
}

/// Min/max positions and NaN count of little-endian floats of `W` bytes
/// (2, 4 or 8) by IEEE 754 total order, NaNs skipped unless every value is
/// one.
#[inline(never)]
fn float_min_max<const W: usize>(values: &[u8]) -> Option<(usize, usize, u64)> {
    let (floats, _) = values.as_chunks::<W>();
    let (nan_count, best) = match W {
        2 => float_min_max_scalar(floats),
        _ => with_avx2(|| float_min_max_blocks(floats)),
    };
    if let Some((lo_i, hi_i)) = best {
        return Some((lo_i, hi_i, nan_count));
    }
    // Every value is NaN: min and max are the extreme NaNs by total order
    // (60); 59 has none (D3).
    if !crate::compat::FLOAT_TOTAL_ORDER {
        return None;
    }
    let (lo_i, hi_i) = min_max_by_key(floats, |v| float_key(v));
    Some((lo_i, hi_i, nan_count))
}

/// The NaN count and the positions of the least and greatest non-NaN
/// values (by total order), one value at a time.
fn float_min_max_scalar<const W: usize>(floats: &[[u8; W]]) -> (u64, Option<(usize, usize)>) {
    let mut nan_count = 0u64;
    let mut best: Option<(i64, usize, i64, usize)> = None;
    for (i, v) in floats.iter().enumerate() {
        if float_is_nan(v) {
            nan_count += 1;
            continue;
        }
        let k = float_key(v);
        match &mut best {
            None => best = Some((k, i, k, i)),
            Some((lo, lo_i, hi, hi_i)) => {
                if k < *lo {
                    (*lo, *lo_i) = (k, i);
                } else if k > *hi {
                    (*hi, *hi_i) = (k, i);
                }
            }
        }
    }
    (nan_count, best.map(|(_, lo_i, _, hi_i)| (lo_i, hi_i)))
}

/// [`float_min_max_scalar`] for 4- and 8-byte floats, a block at a time:
/// each block's NaN count and least and greatest keys (NaNs as neutral
/// values) come from one branch-free pass that vectorises; a position is
/// looked for only in a block that improves on the running min or max.
#[inline(always)]
fn float_min_max_blocks<const W: usize>(floats: &[[u8; W]]) -> (u64, Option<(usize, usize)>) {
    const BLOCK: usize = 64;
    // A float's key (total order) and whether it is a NaN, from its bits.
    let key_nan = |v: &[u8; W]| -> (i64, bool) {
        if W == 4 {
            let x = i32::from_le_bytes([v[0], v[1], v[2], v[3]]);
            let nan = (x & 0x7FFF_FFFF) > 0x7F80_0000;
            (i64::from(x ^ ((((x >> 31) as u32) >> 1) as i32)), nan)
        } else {
            let mut b = [0u8; 8];
            b.copy_from_slice(&v[..8]);
            let x = i64::from_le_bytes(b);
            let nan = (x & 0x7FFF_FFFF_FFFF_FFFF) > 0x7FF0_0000_0000_0000;
            (x ^ ((((x >> 63) as u64) >> 1) as i64), nan)
        }
    };
    let mut nan_count = 0u64;
    let (mut min, mut max) = (0i64, 0i64);
    let mut best: Option<(usize, usize)> = None;
    for (b, block) in floats.chunks(BLOCK).enumerate() {
        let (lo, hi, nans) = block
            .iter()
            .fold((i64::MAX, i64::MIN, 0u32), |(lo, hi, n), v| {
                let (k, nan) = key_nan(v);
                let lo = if nan { lo } else { lo.min(k) };
                let hi = if nan { hi } else { hi.max(k) };
                (lo, hi, n + u32::from(nan))
            });
        nan_count += u64::from(nans);
        if nans as usize == block.len() {
            continue;
        }
        let find = |target: i64| {
            b * BLOCK
                + block
                    .iter()
                    .position(|v| key_nan(v) == (target, false))
                    .expect("the block holds its extreme")
        };
        match &mut best {
            None => {
                (min, max) = (lo, hi);
                best = Some((find(lo), find(hi)));
            }
            Some((lo_i, hi_i)) => {
                if lo < min {
                    (min, *lo_i) = (lo, find(lo));
                }
                if hi > max {
                    (max, *hi_i) = (hi, find(hi));
                }
            }
        }
    }
    (nan_count, best)
}

#[cfg(test)]
mod tests;
