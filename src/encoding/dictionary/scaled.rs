//! The direct-mapped window for floats that are decimals: prices, amounts,
//! measurements with a fixed number of decimals, whole numbers.
//!
//! Such a value `x` is the double (or float) nearest to `k / 10^e` for an
//! integer `k` and a small `e`, and `k` serves as its place in the window
//! ([`Dense`](super::dense)) the way an integer column's value does: one
//! load instead of a hash and a probe, and values that lie close together
//! (a price walking up and down) share cache lines where their hashes
//! would scatter them over the table.
//!
//! The key is exact, never approximate: `k` is taken from `x · 10^e`
//! rounded, and `x` keeps it only if dividing `k` by `10^e` (correctly
//! rounded, as IEEE 754 divides) gives back `x` bit for bit. Two values
//! with the same key are then the same bits, so the window tells values
//! apart exactly as the table does (by their bits: `-0.0` is not `0.0`,
//! each NaN payload its own value). A value without a key (NaN, ±∞, `-0.0`,
//! more decimals than `e`, a key past ±2^51, or ±2^22 for floats) and a key
//! outside the window go through the table, one at a time, in their turn,
//! so entries keep the order values first appear in.

use super::Dictionary;
use super::dense::insert;
use crate::cpu::with_avx2;

/// Marks a value without a key.
const NO_KEY: i64 = i64::MIN;

/// The powers of ten tried as `10^e`, smallest first: whole numbers up to
/// millionths (each exact as a double and as a float).
const POWERS: [f64; 7] = [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6];

/// How many values of a mini-batch decide the exponent.
const SAMPLE: usize = 16;

/// How many mini-batches may fail to show an exponent (or, once one is
/// chosen, mostly fail to fit it or a window) before the column stops
/// trying.
const TRIES: u32 = 8;

/// Where a float dictionary stands with its exponent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Scale {
    /// Not a float column: the window, if any, is keyed by the values
    /// themselves.
    Ints,
    /// A float column whose values are not decimals: no keys, no window.
    Off,
    /// Not chosen yet; the count of mini-batches that did not show one.
    Unknown(u32),
    /// Values are keyed as `k` where `x = k / 10^e`; the count of
    /// mini-batches in a row that mostly did not fit it (or the window).
    Exponent(u32, u32),
}

/// The key of a double's bits at `10^e = scale`, or [`NO_KEY`].
#[inline(always)]
fn key64(bits: u64, scale: f64) -> i64 {
    // 1.5 · 2^52: adding it to an integer below 2^51 in magnitude puts the
    // integer in the low bits of the mantissa (and turns -0.0 into 0.0).
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    const LIMIT: f64 = 2_251_799_813_685_248.0;
    let x = f64::from_bits(bits);
    let k = (x * scale).round_ties_even();
    let shifted = k + SHIFT;
    let whole = shifted - SHIFT;
    let exact = k.abs() < LIMIT && (whole / scale).to_bits() == bits;
    let key = shifted.to_bits().wrapping_sub(SHIFT.to_bits()) as i64;
    if exact { key } else { NO_KEY }
}

/// The key of a float's bits at `10^e = scale`, or [`NO_KEY`].
#[inline(always)]
fn key32(bits: u32, scale: f32) -> i64 {
    // 1.5 · 2^23, as for doubles.
    const SHIFT: f32 = 12_582_912.0;
    const LIMIT: f32 = 4_194_304.0;
    let x = f32::from_bits(bits);
    let k = (x * scale).round_ties_even();
    let shifted = k + SHIFT;
    let whole = shifted - SHIFT;
    let exact = k.abs() < LIMIT && (whole / scale).to_bits() == bits;
    let key = shifted.to_bits().wrapping_sub(SHIFT.to_bits()) as i32 as i64;
    if exact { key } else { NO_KEY }
}

/// The key of a `W`-byte float (4: FLOAT, 8: DOUBLE) at exponent `e`.
#[inline(always)]
pub(super) fn key<const W: usize>(v: &[u8; W], e: u32) -> i64 {
    key_at(v, POWERS[e as usize])
}

/// The key of a `W`-byte float at `10^e = scale`.
#[inline(always)]
fn key_at<const W: usize>(v: &[u8; W], scale: f64) -> i64 {
    if W == 4 {
        key32(u32::from_le_bytes([v[0], v[1], v[2], v[3]]), scale as f32)
    } else {
        let mut b = [0u8; 8];
        b.copy_from_slice(&v[..8]);
        key64(u64::from_le_bytes(b), scale)
    }
}

/// The keys of `values` at exponent `e` into the first `values.len()` of
/// `out` (grown to that length if shorter, never filled needlessly), with
/// the least and greatest of them and how many there are. (Two passes:
/// each compiles to vector instructions, the two in one loop did not.)
fn keys<const W: usize>(values: &[[u8; W]], e: u32, out: &mut Vec<i64>) -> (i64, i64, usize) {
    if out.len() < values.len() {
        out.resize(values.len(), NO_KEY);
    }
    let out = &mut out[..values.len()];
    let scale = POWERS[e as usize];
    with_avx2(|| {
        for (v, slot) in values.iter().zip(out.iter_mut()) {
            *slot = key_at(v, scale);
        }
        let (mut lo, mut hi, mut fit) = (i64::MAX, i64::MIN, 0usize);
        for &k in out.iter() {
            let has = k != NO_KEY;
            lo = lo.min(if has { k } else { i64::MAX });
            hi = hi.max(k);
            fit += has as usize;
        }
        (lo, hi, fit)
    })
}

impl Dictionary {
    /// Interns `W`-byte floats through the window keyed by their decimal
    /// digits, the values without a key in the window through the table;
    /// false (nothing done) if the column has no exponent (yet), most of
    /// these values do not fit it, or no window can be made for them.
    pub(super) fn put_scaled<const W: usize>(&mut self, chunks: &[[u8; W]]) -> bool {
        let Some(e) = self.exponent::<W>(chunks) else {
            return false;
        };
        let mut at = std::mem::take(&mut self.dense.scratch);
        let (lo, hi, fit) = keys::<W>(chunks, e, &mut at);
        // A window that cannot take all of them yet still serves those it
        // holds.
        let windowed = fit * 2 >= chunks.len()
            && (self.dense.contains(lo, hi)
                || self.make_window(lo, hi, chunks.len())
                || !self.dense.keys.is_empty());
        self.scale = match (windowed, self.scale) {
            (true, _) => Scale::Exponent(e, 0),
            (false, Scale::Exponent(_, misses)) if misses + 1 < TRIES => {
                Scale::Exponent(e, misses + 1)
            }
            (false, _) => Scale::Off,
        };
        if windowed {
            self.cover_with::<W>(|v| Some(key(v, e)).filter(|&k| k != NO_KEY));
            let start = self.indices.len();
            self.indices.resize(start + chunks.len(), 0);
            let mut from = 0;
            while from < chunks.len() {
                from = self.put_window_run(chunks, &at, start, from);
                if let Some(value) = chunks.get(from) {
                    self.indices[start + from] = self.put_hashed(value);
                    from += 1;
                }
            }
            // Entries the table took here have no place in the window.
            self.dense.covered = self.len;
        }
        self.dense.scratch = at;
        windowed
    }

    /// The column's exponent, chosen from the first values of a mini-batch
    /// if it is not yet: the smallest that keys the most of them.
    fn exponent<const W: usize>(&mut self, chunks: &[[u8; W]]) -> Option<u32> {
        match self.scale {
            Scale::Ints | Scale::Off => None,
            Scale::Exponent(e, _) => Some(e),
            Scale::Unknown(_) if chunks.len() < SAMPLE => None,
            Scale::Unknown(tries) => {
                let sample = &chunks[..SAMPLE];
                let best = (0..POWERS.len() as u32)
                    .map(|e| (sample.iter().filter(|v| key(v, e) != NO_KEY).count(), e))
                    .fold(
                        (0, 0),
                        |best, (n, e)| if n > best.0 { (n, e) } else { best },
                    );
                self.scale = match best {
                    (n, e) if n * 2 >= SAMPLE => Scale::Exponent(e, 0),
                    _ if tries + 1 >= TRIES => Scale::Off,
                    _ => Scale::Unknown(tries + 1),
                };
                match self.scale {
                    Scale::Exponent(e, _) => Some(e),
                    _ => None,
                }
            }
        }
    }

    /// Interns the values from `from` on whose keys (`at`) lie in the
    /// window, up to the first that does not: its position (or the end).
    /// Their keys go to the index buffer from `start`.
    fn put_window_run<const W: usize>(
        &mut self,
        chunks: &[[u8; W]],
        at: &[i64],
        start: usize,
        mut from: usize,
    ) -> usize {
        let (base, keys) = (self.dense.base, self.dense.keys.as_mut_slice());
        let (values, len, expected) = (&mut self.values, &mut self.len, self.expected);
        let out = &mut self.indices[start..start + chunks.len()];
        // No key, and a key outside the window, fall outside `keys`.
        for (&k, key) in at[from..].iter().zip(&mut out[from..]) {
            let place = k.wrapping_sub(base) as usize;
            *key = match keys.get(place) {
                Some(0) => insert(keys, place, values, len, expected, &chunks[from]),
                Some(&slot) => slot - 1,
                None => break,
            };
            from += 1;
        }
        from
    }

    /// Interns one value through the table, which first learns the entries
    /// the window added.
    #[inline(never)]
    fn put_hashed<const W: usize>(&mut self, value: &[u8; W]) -> u32 {
        self.hash_pending(1);
        self.intern_fixed::<W>(value, super::hash::hash_fixed::<W>(value))
    }
}
