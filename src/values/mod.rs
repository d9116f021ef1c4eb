//! Arrow arrays whose values Parquet stores as FIXED_LEN_BYTE_ARRAY, read
//! straight from their buffers.
//!
//! | Arrow type | Parquet bytes (width `L`) |
//! |---|---|
//! | `FixedSizeBinary(n)` | the `n` bytes as stored |
//! | `Decimal128` / `Decimal256` (precision ≥ 19) | two's complement, big-endian, the low `L` bytes |
//! | `Float16` | 2 bytes, little-endian |
//! | `Interval(YearMonth)` | months (i32 LE), then 8 zero bytes |
//! | `Interval(DayTime)` | 4 zero bytes, days (i32 LE), milliseconds (i32 LE) |
//!
//! Values are converted in bulk into a caller-owned buffer, a contiguous run
//! at a time; a `FixedSizeBinary` run needs no conversion and is borrowed.

pub(crate) mod order;
mod source;

pub(crate) use order::ValueOrder;
pub(crate) use source::{BitmapValues, IndexValues, RangeValues, ValueSource};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Decimal256Type, Float16Type, IntervalDayTimeType, IntervalYearMonthType,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray};
use arrow_buffer::i256;
use arrow_schema::{DataType, IntervalUnit};
use parquet::errors::{ParquetError, Result};
use std::mem::MaybeUninit;

/// The Arrow types written as FIXED_LEN_BYTE_ARRAY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlbaKind {
    /// `FixedSizeBinary(n)`.
    FixedSizeBinary,
    /// `Decimal128(p, s)`.
    Decimal128,
    /// `Decimal256(p, s)`.
    Decimal256,
    /// `Float16`.
    Float16,
    /// `Interval(YearMonth)`.
    IntervalYearMonth,
    /// `Interval(DayTime)`.
    IntervalDayTime,
}

impl FlbaKind {
    /// The kind of a (non-dictionary) Arrow data type, if it is one.
    pub(crate) fn of(data_type: &DataType) -> Option<Self> {
        Some(match data_type {
            DataType::FixedSizeBinary(_) => Self::FixedSizeBinary,
            DataType::Decimal128(_, _) => Self::Decimal128,
            DataType::Decimal256(_, _) => Self::Decimal256,
            DataType::Float16 => Self::Float16,
            DataType::Interval(IntervalUnit::YearMonth) => Self::IntervalYearMonth,
            DataType::Interval(IntervalUnit::DayTime) => Self::IntervalDayTime,
            _ => return None,
        })
    }

    /// Bytes per value in the Arrow buffer.
    pub(crate) fn native_width(self, width: usize) -> usize {
        match self {
            Self::FixedSizeBinary => width,
            Self::Decimal128 => 16,
            Self::Decimal256 => 32,
            Self::Float16 => 2,
            Self::IntervalYearMonth => 4,
            Self::IntervalDayTime => 8,
        }
    }

    /// How the column's statistics order values.
    pub(crate) fn order(self) -> ValueOrder {
        match self {
            Self::FixedSizeBinary => ValueOrder::Unsigned,
            Self::Decimal128 | Self::Decimal256 => ValueOrder::Signed,
            Self::Float16 => ValueOrder::Float16,
            Self::IntervalYearMonth | Self::IntervalDayTime => ValueOrder::Undefined,
        }
    }
}

/// Byte width of a decimal of `precision` digits stored as
/// FIXED_LEN_BYTE_ARRAY, computed as `parquet` computes it.
pub(crate) fn decimal_width(precision: u8) -> usize {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// The values buffer of a leaf array, viewed as raw native bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NativeValues<'a> {
    kind: FlbaKind,
    /// Parquet width.
    width: usize,
    native_width: usize,
    bytes: &'a [u8],
}

fn primitive_bytes<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>) -> &[u8] {
    array.values().inner().as_slice()
}

impl<'a> NativeValues<'a> {
    /// Views `array` (which must be of `kind`, not a dictionary) with Parquet
    /// width `width`.
    pub(crate) fn new(kind: FlbaKind, width: usize, array: &'a dyn Array) -> Result<Self> {
        let bytes = match kind {
            FlbaKind::FixedSizeBinary => {
                let a = array
                    .as_fixed_size_binary_opt()
                    .ok_or_else(|| type_error(kind, array))?;
                if a.value_length() as usize != width {
                    return Err(type_error(kind, array));
                }
                a.value_data()
            }
            FlbaKind::Decimal128 => primitive_bytes(
                array
                    .as_primitive_opt::<Decimal128Type>()
                    .ok_or_else(|| type_error(kind, array))?,
            ),
            FlbaKind::Decimal256 => primitive_bytes(
                array
                    .as_primitive_opt::<Decimal256Type>()
                    .ok_or_else(|| type_error(kind, array))?,
            ),
            FlbaKind::Float16 => primitive_bytes(
                array
                    .as_primitive_opt::<Float16Type>()
                    .ok_or_else(|| type_error(kind, array))?,
            ),
            FlbaKind::IntervalYearMonth => primitive_bytes(
                array
                    .as_primitive_opt::<IntervalYearMonthType>()
                    .ok_or_else(|| type_error(kind, array))?,
            ),
            FlbaKind::IntervalDayTime => primitive_bytes(
                array
                    .as_primitive_opt::<IntervalDayTimeType>()
                    .ok_or_else(|| type_error(kind, array))?,
            ),
        };
        let native_width = kind.native_width(width);
        if bytes.len() < array.len() * native_width {
            return Err(ParquetError::General(format!(
                "{} array buffer holds {} bytes, fewer than {} values need",
                array.data_type(),
                bytes.len(),
                array.len()
            )));
        }
        Ok(Self {
            kind,
            width,
            native_width,
            bytes,
        })
    }

    /// Parquet bytes per value.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// The Arrow bytes of value `i` (what `parquet` hashes for distinct counts).
    #[inline]
    pub(crate) fn native(&self, i: usize) -> &'a [u8] {
        &self.bytes[i * self.native_width..(i + 1) * self.native_width]
    }

    /// The Arrow bytes of every value, `native_width` bytes each.
    #[inline]
    pub(crate) fn native_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Bytes per value in the Arrow buffer.
    #[inline]
    pub(crate) fn native_width(&self) -> usize {
        self.native_width
    }

    /// Values `[start, end)` in Parquet form without conversion, when their
    /// Arrow bytes already are the Parquet bytes.
    #[inline]
    pub(crate) fn borrow(&self, start: usize, end: usize) -> Option<&'a [u8]> {
        match self.kind {
            FlbaKind::FixedSizeBinary | FlbaKind::Float16 => {
                Some(&self.bytes[start * self.native_width..end * self.native_width])
            }
            _ => None,
        }
    }

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
        let n = end - start;
        let src = &self.bytes[start * self.native_width..end * self.native_width];
        if matches!(self.kind, FlbaKind::FixedSizeBinary | FlbaKind::Float16) {
            // Short runs (sparse validity) of common widths: fixed-size moves
            // rather than a `memcpy` call per run.
            macro_rules! short {
                ($($w:literal)*) => {
                    match self.native_width {
                        $($w if n <= 8 => append_fixed::<$w>(out, n, |dst| {
                            for (o, v) in dst.iter_mut().zip(src.as_chunks::<$w>().0) {
                                o.write(*v);
                            }
                        }),)*
                        _ => out.extend_from_slice(src),
                    }
                };
            }
            short!(2 4 8 16 32);
            return;
        }
        macro_rules! by_width {
            ($f:ident, $natives:expr, $($w:literal)*) => {
                match self.width {
                    $($w => append_fixed::<$w>(out, n, |dst| $f::<$w>($natives, dst, extremes)),)*
                    w => unreachable!("decimal width {w}"),
                }
            };
        }
        match self.kind {
            FlbaKind::FixedSizeBinary | FlbaKind::Float16 => unreachable!(),
            FlbaKind::Decimal128 => {
                let natives = src.as_chunks::<16>().0;
                by_width!(convert_d128, natives, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
            }
            FlbaKind::Decimal256 => {
                let natives = src.as_chunks::<32>().0;
                by_width!(convert_d256, natives, 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
            }
            FlbaKind::IntervalYearMonth => append_fixed::<12>(out, n, |dst| {
                for (o, v) in dst.iter_mut().zip(src.as_chunks::<4>().0) {
                    let mut b = [0u8; 12];
                    b[..4].copy_from_slice(v);
                    o.write(b);
                }
            }),
            FlbaKind::IntervalDayTime => append_fixed::<12>(out, n, |dst| {
                for (o, v) in dst.iter_mut().zip(src.as_chunks::<8>().0) {
                    let mut b = [0u8; 12];
                    b[4..].copy_from_slice(v);
                    o.write(b);
                }
            }),
        }
    }

    /// Whether [`Self::convert_range`] tracks extremes for this kind.
    pub(crate) fn tracks_extremes(&self) -> bool {
        matches!(self.kind, FlbaKind::Decimal128 | FlbaKind::Decimal256)
    }

    /// The first position in `[0, len)` that is valid per `is_valid` and
    /// holds a decimal that does not fit the column's width, if any.
    pub(crate) fn first_unfit_decimal(
        &self,
        len: usize,
        is_valid: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        match self.kind {
            FlbaKind::Decimal128 if self.width < 16 => {
                let shift = 8 * self.width as u32 - 1;
                let (natives, _) = self.bytes[..len * 16].as_chunks::<16>();
                // Fast scan over every slot; only if something is out of range
                // look again, honouring validity.
                let any = natives.iter().fold(false, |acc, v| {
                    let x = i128::from_le_bytes(*v) >> shift;
                    acc | ((x + 1) as u128 > 1)
                });
                if !any {
                    return None;
                }
                natives.iter().enumerate().position(|(i, v)| {
                    let x = i128::from_le_bytes(*v) >> shift;
                    (x + 1) as u128 > 1 && is_valid(i)
                })
            }
            FlbaKind::Decimal256 if self.width < 32 => {
                let w = self.width;
                let (natives, _) = self.bytes[..len * 32].as_chunks::<32>();
                natives.iter().enumerate().position(|(i, v)| {
                    let fill = if v[w - 1] & 0x80 != 0 { 0xFF } else { 0 };
                    v[w..].iter().any(|&b| b != fill) && is_valid(i)
                })
            }
            _ => None,
        }
    }

    /// Whether the decimal at `i` does not fit the column's width.
    pub(crate) fn first_unfit_decimal_at(&self, i: usize) -> bool {
        let v = self.native(i);
        let w = self.width;
        match self.kind {
            FlbaKind::Decimal128 | FlbaKind::Decimal256 if w < v.len() => {
                let fill = if v[w - 1] & 0x80 != 0 { 0xFF } else { 0 };
                v[w..].iter().any(|&b| b != fill)
            }
            _ => false,
        }
    }

    /// The decimal at `i`, formatted, for error messages.
    pub(crate) fn format_decimal(&self, i: usize) -> String {
        let v = self.native(i);
        match self.kind {
            FlbaKind::Decimal128 => i128::from_le_bytes(v.try_into().unwrap()).to_string(),
            FlbaKind::Decimal256 => i256::from_le_bytes(v.try_into().unwrap()).to_string(),
            _ => String::new(),
        }
    }
}

/// Minimum and maximum of converted decimal values, with their positions
/// among the values converted so far.
#[derive(Debug, Default, Clone)]
pub(crate) struct Extremes {
    count: usize,
    min: i256,
    max: i256,
    min_pos: usize,
    max_pos: usize,
}

impl Extremes {
    /// Positions of the minimum and maximum, if any value was seen.
    pub(crate) fn positions(&self) -> Option<(usize, usize)> {
        (self.count > 0).then_some((self.min_pos, self.max_pos))
    }

    #[inline(always)]
    fn fold<T: Ord + Copy>(
        &mut self,
        mut values: impl Iterator<Item = T>,
        widen: impl Fn(T) -> i256,
        narrow: impl Fn(i256) -> T,
    ) {
        let (mut min, mut max, mut min_pos, mut max_pos, mut pos) = if self.count == 0 {
            match values.next() {
                Some(v) => (v, v, 0, 0, 1),
                None => return,
            }
        } else {
            (
                narrow(self.min),
                narrow(self.max),
                self.min_pos,
                self.max_pos,
                self.count,
            )
        };
        for v in values {
            if v < min {
                min = v;
                min_pos = pos;
            } else if v > max {
                max = v;
                max_pos = pos;
            }
            pos += 1;
        }
        self.count = pos;
        self.min = widen(min);
        self.max = widen(max);
        self.min_pos = min_pos;
        self.max_pos = max_pos;
    }
}

/// Appends `n` values of `W` bytes that `fill` writes, without zeroing the
/// memory first. `fill` must write every element of the slice it is given.
#[inline(always)]
fn append_fixed<const W: usize>(
    out: &mut Vec<u8>,
    n: usize,
    fill: impl FnOnce(&mut [MaybeUninit<[u8; W]>]),
) {
    out.reserve(n * W);
    let at = out.len();
    let spare = &mut out.spare_capacity_mut()[..n * W];
    // SAFETY: `[MaybeUninit<u8>; W]`-sized, align-1 elements: the `n * W`
    // spare bytes are exactly `n` elements of `MaybeUninit<[u8; W]>`.
    let dst = unsafe {
        std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<MaybeUninit<[u8; W]>>(), n)
    };
    fill(dst);
    // SAFETY: `fill` wrote all `n` elements (every caller zips `dst` with
    // exactly `n` source values), so the first `at + n * W` bytes are
    // initialised and within capacity.
    unsafe { out.set_len(at + n * W) };
}

#[inline(never)]
fn convert_d128<const W: usize>(
    natives: &[[u8; 16]],
    dst: &mut [MaybeUninit<[u8; W]>],
    extremes: Option<&mut Extremes>,
) {
    debug_assert_eq!(natives.len(), dst.len());
    for (o, v) in dst.iter_mut().zip(natives) {
        let be = i128::from_le_bytes(*v).to_be_bytes();
        o.write(be[16 - W..].try_into().unwrap());
    }
    if let Some(e) = extremes {
        e.fold(
            natives.iter().map(|v| i128::from_le_bytes(*v)),
            i256::from_i128,
            |x| x.as_i128(),
        );
    }
}

#[inline(never)]
fn convert_d256<const W: usize>(
    natives: &[[u8; 32]],
    dst: &mut [MaybeUninit<[u8; W]>],
    extremes: Option<&mut Extremes>,
) {
    debug_assert_eq!(natives.len(), dst.len());
    // An i256 is a little-endian (low u128, high i128) pair.
    let halves = |v: &[u8; 32]| {
        let (lo, hi) = v.split_at(16);
        (
            i128::from_le_bytes(hi.try_into().unwrap()),
            u128::from_le_bytes(lo.try_into().unwrap()),
        )
    };
    for (o, v) in dst.iter_mut().zip(natives) {
        let (hi, lo) = halves(v);
        let mut be = [0u8; 32];
        be[..16].copy_from_slice(&hi.to_be_bytes());
        be[16..].copy_from_slice(&lo.to_be_bytes());
        o.write(be[32 - W..].try_into().unwrap());
    }
    if let Some(e) = extremes {
        e.fold(
            natives.iter().map(halves),
            |(hi, lo)| i256::from_parts(lo, hi),
            |x| {
                let (lo, hi) = x.to_parts();
                (hi, lo)
            },
        );
    }
}

fn type_error(kind: FlbaKind, array: &dyn Array) -> ParquetError {
    ParquetError::ArrowError(format!(
        "Incompatible type: expected an array of kind {kind:?}, got {}",
        array.data_type()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Decimal128Array, Decimal256Array, FixedSizeBinaryArray};

    #[test]
    fn decimal_width_matches_upstream() {
        for p in 1..=76u8 {
            assert_eq!(
                decimal_width(p),
                parquet::arrow::schema::decimal_length_from_precision(p),
                "precision {p}"
            );
        }
    }

    #[test]
    fn decimal_conversion_is_big_endian_truncated() {
        let a = Decimal128Array::from(vec![1i128, -2, 0x0102_0304_0506_0708_090A]).slice(1, 2);
        let v = NativeValues::new(FlbaKind::Decimal128, 10, &a).unwrap();
        let mut out = Vec::new();
        v.convert_range(0, 2, &mut out, None);
        let mut expected = vec![0xFF; 9];
        expected.push(0xFE);
        expected.extend_from_slice(
            &[
                0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
            ][1..],
        );
        assert_eq!(out, expected);

        let b = Decimal256Array::from(vec![i256::from_i128(-3)]);
        let v = NativeValues::new(FlbaKind::Decimal256, 17, &b).unwrap();
        let mut out = Vec::new();
        v.convert_range(0, 1, &mut out, None);
        let mut expected = vec![0xFF; 16];
        expected.push(0xFD);
        assert_eq!(out, expected);
    }

    #[test]
    fn unfit_decimals_are_found() {
        let a = Decimal128Array::from(vec![Some(1i128), None, Some(1 << 80), Some(-(1 << 71))]);
        let v = NativeValues::new(FlbaKind::Decimal128, 9, &a).unwrap();
        assert_eq!(v.first_unfit_decimal(4, |i| a.is_valid(i)), Some(2));
        let b = Decimal128Array::from(vec![Some(-(1i128 << 71)), Some((1 << 71) - 1)]);
        let v = NativeValues::new(FlbaKind::Decimal128, 9, &b).unwrap();
        assert_eq!(v.first_unfit_decimal(2, |_| true), None);
        let c = Decimal256Array::from(vec![Some(i256::from_i128(1)), Some(i256::MAX)]);
        let v = NativeValues::new(FlbaKind::Decimal256, 17, &c).unwrap();
        assert_eq!(v.first_unfit_decimal(2, |_| true), Some(1));
        assert_eq!(v.first_unfit_decimal(2, |i| i == 0), None);
    }

    #[test]
    fn fixed_size_binary_is_borrowed() {
        let a =
            FixedSizeBinaryArray::try_from_iter([[1u8, 2], [3, 4], [5, 6]].into_iter()).unwrap();
        let a = a.slice(1, 2);
        let v = NativeValues::new(FlbaKind::FixedSizeBinary, 2, &a).unwrap();
        assert_eq!(v.borrow(0, 2).unwrap(), &[3, 4, 5, 6]);
    }
}
