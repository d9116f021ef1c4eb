//! Conversion of Arrow values to their Parquet bytes, a contiguous run at a
//! time, written straight into a caller's buffer.

use super::pick::{Pick, append_converted};
use super::{Extremes, LeafKind, NativeValues};
use arrow_buffer::bit_iterator::BitIndexIterator;
use arrow_buffer::i256;

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
        if self.is_bits() {
            return self.bits_range(start, end, out);
        }
        let src = &self.bytes[start * self.native_width..end * self.native_width];
        self.convert(src, Pick::All, out, extremes);
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
        if self.is_bits() {
            return self.bits_gather(positions, out);
        }
        self.convert(self.bytes, Pick::At(positions), out, extremes);
    }

    /// Appends the values of `[start, end)` whose validity bit is set (bit
    /// `bit_offset + i` of `bits` for value `start + i`; `count` of them) in
    /// Parquet form to `out`, as [`Self::convert_range`] would run by run.
    /// Made for mostly valid slots: every slot's value is converted and
    /// written, and the write position advances by its bit, so there is no
    /// branch per value or per run.
    pub(crate) fn compact(
        &self,
        (start, end): (usize, usize),
        (bits, bit_offset): (&[u8], usize),
        count: usize,
        out: &mut Vec<u8>,
        extremes: Option<&mut Extremes>,
    ) {
        if self.is_bits() {
            return self.bits_compact((start, end), (bits, bit_offset), count, out);
        }
        let src = &self.bytes[start * self.native_width..end * self.native_width];
        let pick = Pick::Mask {
            bits,
            offset: bit_offset,
            count,
        };
        self.convert(src, pick, out, extremes);
    }

    /// Converts the values of `src` (Arrow bytes) that `at` picks.
    fn convert(
        &self,
        src: &[u8],
        at: Pick<'_>,
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
        if self.kind.is_integer() && self.native_width != self.width {
            return super::integer::widen_or_narrow(self.kind, src, at, out);
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
            LeafKind::FixedSizeBinary
            | LeafKind::Float16
            | LeafKind::Float32
            | LeafKind::Float64 => copy_values(src, at, self.native_width, out),
            // Converted above, a bit at a time.
            LeafKind::Boolean => unreachable!("bits"),
            // Stored as INT32 / INT64 above.
            LeafKind::Decimal32
            | LeafKind::Decimal64
            | LeafKind::Int8
            | LeafKind::Int16
            | LeafKind::Int32
            | LeafKind::Int64
            | LeafKind::UInt8
            | LeafKind::UInt16
            | LeafKind::UInt32
            | LeafKind::UInt64
            | LeafKind::Date32
            | LeafKind::Date64
            | LeafKind::Time32
            | LeafKind::Time64
            | LeafKind::Timestamp
            | LeafKind::Duration => {
                unreachable!("{:?} of width {}", self.kind, self.width)
            }
            LeafKind::Decimal128 => {
                let natives = src.as_chunks::<16>().0;
                by_width!(convert_d128, natives, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
            }
            LeafKind::Decimal256 => {
                let natives = src.as_chunks::<32>().0;
                by_width!(convert_d256, natives, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
            }
            LeafKind::IntervalYearMonth => {
                append_converted(out, src.as_chunks::<4>().0, at, |v| {
                    let mut b = [0u8; 12];
                    b[..4].copy_from_slice(v);
                    b
                });
            }
            LeafKind::IntervalDayTime => {
                append_converted(out, src.as_chunks::<8>().0, at, |v| {
                    let mut b = [0u8; 12];
                    b[4..].copy_from_slice(v);
                    b
                });
            }
            // `NativeValues::new` admits no byte-array kind.
            k => unreachable!("{k:?} has no fixed-width values"),
        }
    }

    /// Whether [`Self::convert_range`] tracks extremes for this kind: the
    /// big-endian decimals (little-endian integers are cheaper to scan
    /// once converted).
    pub(crate) fn tracks_extremes(&self) -> bool {
        matches!(self.kind, LeafKind::Decimal128 | LeafKind::Decimal256)
            && !self.kind.stored_as_int(self.width)
    }
}

/// The low `W` bytes of each little-endian `S`-byte value of `src` (or of
/// those `at` picks).
#[inline(never)]
fn low_bytes<const S: usize, const W: usize>(src: &[u8], at: Pick<'_>, out: &mut Vec<u8>) {
    append_converted::<S, W>(out, src.as_chunks::<S>().0, at, |v| {
        v[..W].try_into().unwrap()
    });
}

/// Appends values whose Arrow bytes are their Parquet bytes. Short runs
/// (sparse validity) and scattered values of common widths are fixed-size
/// moves rather than a `memcpy` call each.
#[inline(always)]
fn copy_values(src: &[u8], at: Pick<'_>, width: usize, out: &mut Vec<u8>) {
    macro_rules! short {
        ($($w:literal)*) => {
            match (width, at) {
                $(($w, Pick::At(_) | Pick::Mask { .. }) => copy_fixed::<$w>(src, at, out),
                ($w, Pick::All) if src.len() <= 8 * $w => copy_fixed::<$w>(src, at, out),)*
                (_, Pick::All) => out.extend_from_slice(src),
                (w, Pick::At(at)) => {
                    out.reserve(at.len() * w);
                    for &i in at {
                        out.extend_from_slice(&src[i * w..(i + 1) * w]);
                    }
                }
                (w, Pick::Mask { bits, offset, count }) => {
                    out.reserve(count * w);
                    for i in BitIndexIterator::new(bits, offset, src.len() / w) {
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
fn copy_fixed<const W: usize>(src: &[u8], at: Pick<'_>, out: &mut Vec<u8>) {
    append_converted::<W, W>(out, src.as_chunks::<W>().0, at, |v| *v)
}

/// Folds the values of `natives` that `at` picks, read as
/// `T` by `read`, into `e`.
#[inline(always)]
fn fold_picked<const S: usize, T: Ord + Copy>(
    e: &mut Extremes,
    natives: &[[u8; S]],
    at: Pick<'_>,
    read: impl Fn(&[u8; S]) -> T,
    widen: impl Fn(T) -> i256,
    narrow: impl Fn(i256) -> T,
) {
    match at {
        Pick::All => e.fold(natives.iter().map(read), widen, narrow),
        Pick::At(at) => e.fold(at.iter().map(|&i| read(&natives[i])), widen, narrow),
        Pick::Mask { bits, offset, .. } => {
            let picked = BitIndexIterator::new(bits, offset, natives.len());
            e.fold(picked.map(|i| read(&natives[i])), widen, narrow)
        }
    }
}

/// Decimal128 values as `W`-byte big-endian two's complement.
#[inline(never)]
fn convert_d128<const W: usize>(
    natives: &[[u8; 16]],
    at: Pick<'_>,
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
    at: Pick<'_>,
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
