//! Min/max statistics over fixed-width Parquet values, in the order `parquet`
//! 60.1 uses for each kind of column (truncation is the page stage's).
//!
//! * FixedSizeBinary / UUID: unsigned lexicographic bytes.
//! * Decimals: signed big-endian two's complement (all values have the column's
//!   width, so this is an unsigned compare with the sign bit flipped).
//! * INT32 / INT64 decimals: signed little-endian integers.
//! * Float16: IEEE 754 total order on the little-endian bits; NaNs are skipped
//!   unless every value is NaN, and counted.
//! * Intervals: no min/max at all.

use crate::cpu::with_avx2;
use crate::values::ValueOrder;
use crate::values::order::{f16_is_nan, f16_key, f16_total_key};
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

    /// Float16 min/max as parquet 59 writes them (D2): a zero min as -0, a
    /// zero max as +0.
    pub(crate) fn replace_f16_zeros(&mut self) {
        if self.set {
            if self.min.len() == 2 && self.min[0] == 0 && self.min[1] & 0x7F == 0 {
                self.min.copy_from_slice(&[0x00, 0x80]);
            }
            if self.max.len() == 2 && self.max[0] == 0 && self.max[1] & 0x7F == 0 {
                self.max.copy_from_slice(&[0x00, 0x00]);
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

/// Whether `val` replaces `cur`, where it replaces when `cur.cmp(val) == when`.
#[inline]
fn replaces(order: ValueOrder, cur: &[u8], val: &[u8], when: Ordering) -> bool {
    match (order.is_nan(cur), order.is_nan(val)) {
        (false, true) => false,
        (true, false) => true,
        _ => order.cmp(cur, val) == when,
    }
}

/// Min, max and NaN count of a batch of values (`width` bytes each), or None
/// for an empty batch. Returns the positions of the min and max values.
pub(crate) fn batch_min_max(
    order: ValueOrder,
    values: &[u8],
    width: usize,
) -> Option<(usize, usize, u64)> {
    if values.is_empty() || width == 0 {
        return None;
    }
    match order {
        ValueOrder::Undefined => None,
        ValueOrder::Float16 => float16_min_max(values),
        ValueOrder::SignedLe => Some(match width {
            4 => {
                with_avx2(|| min_max_by_key(values.as_chunks::<4>().0, |v| i32::from_le_bytes(*v)))
            }
            8 => {
                with_avx2(|| min_max_by_key(values.as_chunks::<8>().0, |v| i64::from_le_bytes(*v)))
            }
            _ => min_max_slices(order, values, width),
        })
        .map(|(lo, hi)| (lo, hi, 0)),
        ValueOrder::Unsigned | ValueOrder::Signed => {
            let flip = order == ValueOrder::Signed;
            macro_rules! fixed {
                ($($w:literal)*) => {
                    match width {
                        $($w => min_max_fixed::<$w>(values, flip),)*
                        _ => min_max_slices(order, values, width),
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
/// the extremes so far, which in typical data few blocks do.
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
        let find = |target: K| block.iter().position(|v| key(v) == target).unwrap_or(0);
        if lo < min {
            min = lo;
            min_i = b * BLOCK + find(lo);
        }
        if hi > max {
            max = hi;
            max_i = b * BLOCK + find(hi);
        }
    }
    (min_i, max_i)
}

fn min_max_slices(order: ValueOrder, values: &[u8], width: usize) -> (usize, usize) {
    let mut chunks = values.chunks_exact(width);
    let mut min = chunks.next().unwrap();
    let mut max = min;
    let (mut min_i, mut max_i) = (0, 0);
    for (i, v) in chunks.enumerate() {
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

fn float16_min_max(values: &[u8]) -> Option<(usize, usize, u64)> {
    let (bits, _) = values.as_chunks::<2>();
    let mut nan_count = 0u64;
    let mut best: Option<(i16, usize, i16, usize)> = None;
    for (i, b) in bits.iter().enumerate() {
        let raw = u16::from_le_bytes(*b);
        if f16_is_nan(raw) {
            nan_count += 1;
            continue;
        }
        let k = f16_total_key(raw);
        match &mut best {
            None => best = Some((k, i, k, i)),
            Some((lo, lo_i, hi, hi_i)) => {
                if k < *lo {
                    *lo = k;
                    *lo_i = i;
                } else if k > *hi {
                    *hi = k;
                    *hi_i = i;
                }
            }
        }
    }
    if let Some((_, lo_i, _, hi_i)) = best {
        return Some((lo_i, hi_i, nan_count));
    }
    // Every value is NaN: min and max are the extreme NaNs by total order
    // (60); 59 has none (D3).
    if !crate::compat::FLOAT16_TOTAL_ORDER {
        return None;
    }
    let (lo_i, hi_i) = min_max_by_key(bits, |v| f16_key(v));
    Some((lo_i, hi_i, nan_count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn naive(order: ValueOrder, values: &[u8], width: usize) -> Option<(Vec<u8>, Vec<u8>, u64)> {
        let vals: Vec<&[u8]> = values.chunks_exact(width).collect();
        let nans = vals.iter().filter(|v| order.is_nan(v)).count() as u64;
        let candidates: Vec<&[u8]> = if vals.iter().all(|v| order.is_nan(v)) {
            vals.clone()
        } else {
            vals.iter().copied().filter(|v| !order.is_nan(v)).collect()
        };
        let min = candidates.iter().copied().min_by(|a, b| order.cmp(a, b))?;
        let max = candidates.iter().copied().max_by(|a, b| order.cmp(a, b))?;
        Some((min.to_vec(), max.to_vec(), nans))
    }

    #[test]
    fn batch_min_max_matches_naive() {
        let mut rng = StdRng::seed_from_u64(5);
        for case in 0..3000 {
            let (order, width) = match case % 4 {
                0 => (ValueOrder::Unsigned, rng.random_range(1..40)),
                1 => (ValueOrder::Signed, rng.random_range(1..40)),
                2 => (ValueOrder::SignedLe, [4, 8][rng.random_range(0..2)]),
                _ => (ValueOrder::Float16, 2),
            };
            let n = rng.random_range(1..50);
            let values: Vec<u8> = (0..n * width)
                .map(|_| {
                    *[0u8, 1, 0x7C, 0x7E, 0x80, 0xFC, 0xFE, 0xFF]
                        .get(rng.random_range(0..8))
                        .unwrap()
                })
                .collect();
            let Some((lo, hi, nans)) = batch_min_max(order, &values, width) else {
                // parquet 59: no min/max for a batch of only NaN (D3).
                assert!(
                    !crate::compat::FLOAT16_TOTAL_ORDER
                        && values.chunks_exact(width).all(|v| order.is_nan(v)),
                    "case {case}"
                );
                continue;
            };
            let (nmin, nmax, nnans) = naive(order, &values, width).unwrap();
            assert_eq!(
                &values[lo * width..(lo + 1) * width],
                nmin.as_slice(),
                "case {case}"
            );
            assert_eq!(
                &values[hi * width..(hi + 1) * width],
                nmax.as_slice(),
                "case {case}"
            );
            assert_eq!(nans, nnans);
        }
    }

    #[test]
    fn little_endian_order_is_integer_order() {
        let vals: [i64; 9] = [i64::MIN, -(1 << 40), -300, -1, 0, 1, 255, 1 << 33, i64::MAX];
        for a in vals {
            for b in vals {
                let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
                assert_eq!(ValueOrder::SignedLe.cmp(&x, &y), a.cmp(&b), "{a} {b}");
                let (a, b) = (a as i32, b as i32);
                let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
                assert_eq!(ValueOrder::SignedLe.cmp(&x, &y), a.cmp(&b), "{a} {b}");
            }
        }
        let values: Vec<u8> = [5i32, -7, i32::MAX, 0, i32::MIN, 3]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            batch_min_max(ValueOrder::SignedLe, &values, 4),
            Some((4, 2, 0))
        );
    }

    #[test]
    fn signed_order_is_integer_order() {
        let vals: [i64; 7] = [i64::MIN, -300, -1, 0, 1, 255, i64::MAX];
        for a in vals {
            for b in vals {
                let (x, y) = (a.to_be_bytes(), b.to_be_bytes());
                assert_eq!(ValueOrder::Signed.cmp(&x, &y), a.cmp(&b));
            }
        }
    }
}
