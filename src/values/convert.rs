//! Conversion of Arrow values to their Parquet bytes, a contiguous run at a
//! time, written straight into a caller's buffer.

use super::{Extremes, FlbaKind, NativeValues};
use arrow_buffer::i256;
use std::mem::MaybeUninit;

impl NativeValues<'_> {
    /// Appends values `[start, end)` in Parquet form to `out`. With
    /// `extremes`, decimals also fold their minimum and maximum into it as
    /// they are converted (positions count values appended through the same
    /// `Extremes`), which spares a second pass for statistics.
    pub(crate) fn convert_range(
        &self,
        start: usize,
        end: usize,
        out: &mut Vec<u8>,
        extremes: Option<&mut Extremes>,
    ) {
        let src = &self.bytes[start * self.native_width..end * self.native_width];
        self.convert(src, None, out, extremes);
    }

    /// Appends the values at `positions` (in that order) in Parquet form to
    /// `out`, as [`Self::convert_range`] would one at a time, but with one
    /// dispatch for all: scattered values (sparse validity) are fixed-size
    /// moves and conversions rather than a call each.
    pub(crate) fn gather(
        &self,
        positions: &[usize],
        out: &mut Vec<u8>,
        extremes: Option<&mut Extremes>,
    ) {
        self.convert(self.bytes, Some(positions), out, extremes);
    }

    /// Converts the values of `src` (Arrow bytes), or with `at` only those
    /// at these positions of it.
    fn convert(
        &self,
        src: &[u8],
        at: Option<&[usize]>,
        out: &mut Vec<u8>,
        extremes: Option<&mut Extremes>,
    ) {
        macro_rules! by_width {
            ($f:ident, $natives:expr, $($w:literal)*) => {
                match self.width {
                    $($w => $f::<$w>($natives, at, out, extremes),)*
                    // `NativeValues::new` admits no other width.
                    w => unreachable!("decimal width {w}"),
                }
            };
        }
        if self.kind.stored_as_int(self.width) {
            // INT32 / INT64: the low bytes of each little-endian value.
            return match (self.native_width, self.width) {
                (n, w) if n == w => copy_values(src, at, w, out),
                (8, 4) => low_bytes::<8, 4>(src, at, out),
                (16, 4) => low_bytes::<16, 4>(src, at, out),
                (16, 8) => low_bytes::<16, 8>(src, at, out),
                (32, 4) => low_bytes::<32, 4>(src, at, out),
                (32, 8) => low_bytes::<32, 8>(src, at, out),
                // `NativeValues::new` admits no other pair.
                (n, w) => unreachable!("decimal of {n} bytes as {w}"),
            };
        }
        match self.kind {
            FlbaKind::FixedSizeBinary | FlbaKind::Float16 => {
                copy_values(src, at, self.native_width, out)
            }
            // Stored as INT32 / INT64 above.
            FlbaKind::Decimal32 | FlbaKind::Decimal64 => {
                unreachable!("{:?} of width {}", self.kind, self.width)
            }
            FlbaKind::Decimal128 => {
                let natives = src.as_chunks::<16>().0;
                by_width!(convert_d128, natives, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
            }
            FlbaKind::Decimal256 => {
                let natives = src.as_chunks::<32>().0;
                by_width!(convert_d256, natives, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
            }
            FlbaKind::IntervalYearMonth => {
                append_converted(out, src.as_chunks::<4>().0, at, |v| {
                    let mut b = [0u8; 12];
                    b[..4].copy_from_slice(v);
                    b
                });
            }
            FlbaKind::IntervalDayTime => {
                append_converted(out, src.as_chunks::<8>().0, at, |v| {
                    let mut b = [0u8; 12];
                    b[4..].copy_from_slice(v);
                    b
                });
            }
        }
    }

    /// Whether [`Self::convert_range`] tracks extremes for this kind: the
    /// big-endian decimals (little-endian integers are cheaper to scan
    /// once converted).
    pub(crate) fn tracks_extremes(&self) -> bool {
        matches!(self.kind, FlbaKind::Decimal128 | FlbaKind::Decimal256)
            && !self.kind.stored_as_int(self.width)
    }
}

/// The low `W` bytes of each little-endian `S`-byte value of `src` (or of
/// those `at` these positions).
#[inline(never)]
fn low_bytes<const S: usize, const W: usize>(src: &[u8], at: Option<&[usize]>, out: &mut Vec<u8>) {
    append_converted::<S, W>(out, src.as_chunks::<S>().0, at, |v| {
        v[..W].try_into().unwrap()
    });
}

/// Appends values whose Arrow bytes are their Parquet bytes. Short runs
/// (sparse validity) and scattered values of common widths are fixed-size
/// moves rather than a `memcpy` call each.
#[inline(always)]
fn copy_values(src: &[u8], at: Option<&[usize]>, width: usize, out: &mut Vec<u8>) {
    macro_rules! short {
        ($($w:literal)*) => {
            match (width, at) {
                $(($w, Some(_)) => copy_fixed::<$w>(src, at, out),
                ($w, None) if src.len() <= 8 * $w => copy_fixed::<$w>(src, at, out),)*
                (_, None) => out.extend_from_slice(src),
                (w, Some(at)) => {
                    out.reserve(at.len() * w);
                    for &i in at {
                        out.extend_from_slice(&src[i * w..(i + 1) * w]);
                    }
                }
            }
        };
    }
    short!(2 4 8 12 16 32);
}

/// [`copy_values`] of `W`-byte values, one move each.
#[inline(never)]
fn copy_fixed<const W: usize>(src: &[u8], at: Option<&[usize]>, out: &mut Vec<u8>) {
    append_converted::<W, W>(out, src.as_chunks::<W>().0, at, |v| *v)
}

/// Appends one `W`-byte value per `S`-byte value of `src` (or per value at
/// the positions `at`, in that order), as `convert` makes it, straight into
/// the spare capacity of `out` (no zeroing first).
#[inline(always)]
fn append_converted<const S: usize, const W: usize>(
    out: &mut Vec<u8>,
    src: &[[u8; S]],
    at: Option<&[usize]>,
    convert: impl Fn(&[u8; S]) -> [u8; W],
) {
    let n = at.map_or(src.len(), <[usize]>::len);
    let bytes = n.checked_mul(W).expect("capacity overflow");
    out.reserve(bytes);
    let len = out.len();
    let spare = &mut out.spare_capacity_mut()[..bytes];
    // SAFETY: `MaybeUninit<[u8; W]>` has the size (`W`) and alignment (1)
    // of `W` elements of `MaybeUninit<u8>`, so the `bytes = n * W` spare
    // bytes just borrowed are exactly `n` such elements.
    let dst = unsafe {
        std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<MaybeUninit<[u8; W]>>(), n)
    };
    match at {
        None => {
            for (o, v) in dst.iter_mut().zip(src) {
                o.write(convert(v));
            }
        }
        Some(at) => {
            for (o, &i) in dst.iter_mut().zip(at) {
                o.write(convert(&src[i]));
            }
        }
    }
    // SAFETY: `dst` covers the first `bytes` bytes of the spare capacity
    // (checked by the slice above), and either loop zips `dst` with a slice
    // of length `n` (`src`, or `at`, whose positions index `src` with bounds
    // checks), so it wrote every one of those bytes.
    unsafe { out.set_len(len + bytes) };
}

/// Folds the values of `natives` (or those `at` these positions), read as
/// `T` by `read`, into `e`.
#[inline(always)]
fn fold_picked<const S: usize, T: Ord + Copy>(
    e: &mut Extremes,
    natives: &[[u8; S]],
    at: Option<&[usize]>,
    read: impl Fn(&[u8; S]) -> T,
    widen: impl Fn(T) -> i256,
    narrow: impl Fn(i256) -> T,
) {
    match at {
        None => e.fold(natives.iter().map(read), widen, narrow),
        Some(at) => e.fold(at.iter().map(|&i| read(&natives[i])), widen, narrow),
    }
}

/// Decimal128 values as `W`-byte big-endian two's complement.
#[inline(never)]
fn convert_d128<const W: usize>(
    natives: &[[u8; 16]],
    at: Option<&[usize]>,
    out: &mut Vec<u8>,
    extremes: Option<&mut Extremes>,
) {
    append_converted::<16, W>(out, natives, at, |v| {
        let be = i128::from_le_bytes(*v).to_be_bytes();
        be[16 - W..].try_into().unwrap()
    });
    if let Some(e) = extremes {
        fold_picked(
            e,
            natives,
            at,
            |v| i128::from_le_bytes(*v),
            i256::from_i128,
            |x| x.as_i128(),
        );
    }
}

/// An i256's little-endian bytes as its (high, low) halves.
#[inline(always)]
fn halves(v: &[u8; 32]) -> (i128, u128) {
    let (lo, hi) = v.split_at(16);
    (
        i128::from_le_bytes(hi.try_into().unwrap()),
        u128::from_le_bytes(lo.try_into().unwrap()),
    )
}

/// Decimal256 values as `W`-byte big-endian two's complement.
#[inline(never)]
fn convert_d256<const W: usize>(
    natives: &[[u8; 32]],
    at: Option<&[usize]>,
    out: &mut Vec<u8>,
    extremes: Option<&mut Extremes>,
) {
    append_converted::<32, W>(out, natives, at, |v| {
        let (hi, lo) = halves(v);
        let mut be = [0u8; 32];
        be[..16].copy_from_slice(&hi.to_be_bytes());
        be[16..].copy_from_slice(&lo.to_be_bytes());
        be[32 - W..].try_into().unwrap()
    });
    if let Some(e) = extremes {
        fold_picked(
            e,
            natives,
            at,
            halves,
            |(hi, lo)| i256::from_parts(lo, hi),
            |x| {
                let (lo, hi) = x.to_parts();
                (hi, lo)
            },
        );
    }
}
