//! [`NativeValues`]: the values buffer of a leaf array, viewed as raw Arrow
//! bytes, and the checks made on it before anything is written.

use super::LeafKind;
use super::kind::Layout;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type, Float16Type, Float32Type,
    Float64Type, IntervalDayTimeType, IntervalYearMonthType,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray};
use arrow_buffer::i256;
use parquet::errors::{ParquetError, Result};

/// The bytes 0 and 1: a bit's value as a byte.
static ZERO_ONE: [u8; 2] = [0, 1];

/// The values buffer of a leaf array, viewed as raw native bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NativeValues<'a> {
    pub(super) kind: LeafKind,
    /// Parquet width.
    pub(super) width: usize,
    /// Bytes per value in the Arrow buffer (0 for bits).
    pub(super) native_width: usize,
    pub(super) bytes: &'a [u8],
    /// The bit of value 0 in `bytes` (bits: `Boolean`).
    pub(super) bit_offset: usize,
}

fn primitive_bytes<T: ArrowPrimitiveType>(array: &PrimitiveArray<T>) -> &[u8] {
    array.values().inner().as_slice()
}

/// The values buffer of `array`, which must be of `kind`.
fn buffer_of(kind: LeafKind, array: &dyn Array) -> Option<&[u8]> {
    Some(match kind {
        LeafKind::FixedSizeBinary => array.as_fixed_size_binary_opt()?.value_data(),
        LeafKind::Decimal32 => primitive_bytes(array.as_primitive_opt::<Decimal32Type>()?),
        LeafKind::Decimal64 => primitive_bytes(array.as_primitive_opt::<Decimal64Type>()?),
        LeafKind::Decimal128 => primitive_bytes(array.as_primitive_opt::<Decimal128Type>()?),
        LeafKind::Decimal256 => primitive_bytes(array.as_primitive_opt::<Decimal256Type>()?),
        LeafKind::Float16 => primitive_bytes(array.as_primitive_opt::<Float16Type>()?),
        LeafKind::Float32 => primitive_bytes(array.as_primitive_opt::<Float32Type>()?),
        LeafKind::Float64 => primitive_bytes(array.as_primitive_opt::<Float64Type>()?),
        LeafKind::Boolean => array.as_boolean_opt()?.values().values(),
        LeafKind::IntervalYearMonth => {
            primitive_bytes(array.as_primitive_opt::<IntervalYearMonthType>()?)
        }
        LeafKind::IntervalDayTime => {
            primitive_bytes(array.as_primitive_opt::<IntervalDayTimeType>()?)
        }
        k if LeafKind::of(array.data_type()) == Some(k) => integer_bytes(array)?,
        _ => return None,
    })
}

/// The values buffer of a primitive array of an integer kind (integers,
/// dates, times, timestamps, durations).
fn integer_bytes(array: &dyn Array) -> Option<&[u8]> {
    use arrow_array::types::*;
    use arrow_schema::{DataType, TimeUnit};
    macro_rules! bytes_of {
        ($t:ty) => {
            primitive_bytes(array.as_primitive_opt::<$t>()?)
        };
    }
    Some(match array.data_type() {
        DataType::Int8 => bytes_of!(Int8Type),
        DataType::Int16 => bytes_of!(Int16Type),
        DataType::Int32 => bytes_of!(Int32Type),
        DataType::Int64 => bytes_of!(Int64Type),
        DataType::UInt8 => bytes_of!(UInt8Type),
        DataType::UInt16 => bytes_of!(UInt16Type),
        DataType::UInt32 => bytes_of!(UInt32Type),
        DataType::UInt64 => bytes_of!(UInt64Type),
        DataType::Date32 => bytes_of!(Date32Type),
        DataType::Date64 => bytes_of!(Date64Type),
        DataType::Time32(TimeUnit::Second) => bytes_of!(Time32SecondType),
        DataType::Time32(TimeUnit::Millisecond) => bytes_of!(Time32MillisecondType),
        DataType::Time64(TimeUnit::Microsecond) => bytes_of!(Time64MicrosecondType),
        DataType::Time64(TimeUnit::Nanosecond) => bytes_of!(Time64NanosecondType),
        DataType::Timestamp(TimeUnit::Second, _) => bytes_of!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => bytes_of!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => bytes_of!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => bytes_of!(TimestampNanosecondType),
        DataType::Duration(TimeUnit::Second) => bytes_of!(DurationSecondType),
        DataType::Duration(TimeUnit::Millisecond) => bytes_of!(DurationMillisecondType),
        DataType::Duration(TimeUnit::Microsecond) => bytes_of!(DurationMicrosecondType),
        DataType::Duration(TimeUnit::Nanosecond) => bytes_of!(DurationNanosecondType),
        _ => return None,
    })
}

/// Whether values of `kind` can be written with Parquet width `width`: a
/// decimal as INT32 (4), INT64 (8) or FIXED_LEN_BYTE_ARRAY of 9 bytes or
/// more (what precision ≥ 19 needs), so that the width alone says how it is
/// stored ([`LeafKind::stored_as_int`]); an integer kind as the INT32 or
/// INT64 its type is stored as (`Date64` as either).
fn width_supported(kind: LeafKind, width: usize) -> bool {
    match kind {
        LeafKind::FixedSizeBinary => true,
        LeafKind::Decimal32 => width == 4,
        LeafKind::Decimal64 => matches!(width, 4 | 8),
        LeafKind::Decimal128 => matches!(width, 4 | 8 | 9..=16),
        LeafKind::Decimal256 => matches!(width, 4 | 8 | 9..=32),
        LeafKind::Float16 => width == 2,
        LeafKind::Float32 => width == 4,
        LeafKind::Float64 => width == 8,
        LeafKind::Boolean => width == 1,
        LeafKind::IntervalYearMonth | LeafKind::IntervalDayTime => width == 12,
        LeafKind::Int8
        | LeafKind::Int16
        | LeafKind::Int32
        | LeafKind::UInt8
        | LeafKind::UInt16
        | LeafKind::UInt32
        | LeafKind::Date32
        | LeafKind::Time32 => width == 4,
        LeafKind::Date64 => matches!(width, 4 | 8),
        LeafKind::Int64
        | LeafKind::UInt64
        | LeafKind::Time64
        | LeafKind::Timestamp
        | LeafKind::Duration => width == 8,
        _ => false,
    }
}

impl<'a> NativeValues<'a> {
    /// Views `array` (which must be of `kind`, not a dictionary) with Parquet
    /// width `width`.
    pub(crate) fn new(kind: LeafKind, width: usize, array: &'a dyn Array) -> Result<Self> {
        let type_error = || {
            ParquetError::ArrowError(format!(
                "Incompatible type: expected an array of kind {kind:?} and width {width}, got {}",
                array.data_type()
            ))
        };
        let bytes = buffer_of(kind, array).ok_or_else(type_error)?;
        let fsb_width = array.as_fixed_size_binary_opt().map(|a| a.value_length());
        if !width_supported(kind, width) || fsb_width.is_some_and(|w| w as usize != width) {
            return Err(type_error());
        }
        let (native_width, bit_offset) = match kind.layout(width) {
            Layout::Fixed(n) => (n, 0),
            Layout::Bits => (0, array.as_boolean_opt().map_or(0, |a| a.values().offset())),
            _ => return Err(type_error()),
        };
        let enough = match native_width {
            0 => bytes.len() * 8 >= bit_offset + array.len(),
            n => bytes.len() >= array.len() * n,
        };
        if !enough {
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
            bit_offset,
        })
    }

    /// Parquet bytes per value.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// The Arrow bytes of value `i` (what `parquet` hashes for distinct
    /// counts): a bit as the byte 0 or 1.
    #[inline]
    pub(crate) fn native(&self, i: usize) -> &'a [u8] {
        match self.native_width {
            0 => {
                let b = usize::from(self.bit(i));
                &ZERO_ONE[b..=b]
            }
            n => &self.bytes[i * n..(i + 1) * n],
        }
    }

    /// Whether the values are bits (`Boolean`).
    #[inline]
    pub(crate) fn is_bits(&self) -> bool {
        self.native_width == 0
    }

    /// The Arrow bytes of every value, `native_width` bytes each (for bits,
    /// the bitmap from byte 0, the values from bit `bit_offset` on).
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
            LeafKind::FixedSizeBinary
            | LeafKind::Float16
            | LeafKind::Float32
            | LeafKind::Float64 => {}
            LeafKind::Boolean => return None,
            // Decimal32 as INT32, Decimal64 as INT64, integers stored at
            // their own width (reinterpreted if unsigned): the same
            // little-endian bytes.
            k if k.stored_as_int(self.width) && self.width == self.native_width => {}
            _ => return None,
        }
        Some(&self.bytes[start * self.native_width..end * self.native_width])
    }

    /// The first position in `[0, len)` that is valid per `is_valid` and
    /// holds a decimal that does not fit the column's width, if any.
    pub(crate) fn first_unfit_decimal(
        &self,
        len: usize,
        is_valid: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        match self.kind {
            LeafKind::Decimal128 if self.width < 16 => {
                let shift = 8 * self.width as u32 - 1;
                let (natives, _) = self.bytes[..len * 16].as_chunks::<16>();
                // Fast scan over every slot; only if something is out of range
                // look again, honouring validity.
                let any = natives
                    .iter()
                    .fold(false, |acc, v| acc | d128_unfit(v, shift));
                if !any {
                    return None;
                }
                (0..len).find(|&i| d128_unfit(&natives[i], shift) && is_valid(i))
            }
            LeafKind::Decimal64 if self.width < 8 => {
                let (natives, _) = self.bytes[..len * 8].as_chunks::<8>();
                let unfit = |v: &[u8; 8]| {
                    let x = i64::from_le_bytes(*v);
                    x != i64::from(x as i32)
                };
                if !natives.iter().fold(false, |acc, v| acc | unfit(v)) {
                    return None;
                }
                (0..len).find(|&i| unfit(&natives[i]) && is_valid(i))
            }
            LeafKind::Decimal256 if self.width < 32 => {
                // The same two passes and the same shift as Decimal128's
                // (checked a byte at a time, it was a twentieth of the
                // demo's time).
                let shift = 8 * self.width as u8 - 1;
                let (natives, _) = self.bytes[..len * 32].as_chunks::<32>();
                if !natives
                    .iter()
                    .fold(false, |acc, v| acc | d256_unfit(v, shift))
                {
                    return None;
                }
                (0..len).find(|&i| d256_unfit(&natives[i], shift) && is_valid(i))
            }
            _ => None,
        }
    }

    /// The first of `positions` that holds a decimal that does not fit the
    /// column's width, as an index into `positions`.
    pub(crate) fn first_unfit_decimal_among(&self, positions: &[usize]) -> Option<usize> {
        if !self.kind.is_decimal() || self.width >= self.native_width {
            return None;
        }
        positions.iter().position(|&i| self.is_unfit_decimal(i))
    }

    /// Whether the decimal at `i` does not fit the column's width (its
    /// little-endian bytes past the low `width` are not all the sign of the
    /// low `width` bytes).
    fn is_unfit_decimal(&self, i: usize) -> bool {
        let v = self.native(i);
        let w = self.width;
        match self.kind {
            k if k.is_decimal() && w > 0 && w < v.len() => {
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
            LeafKind::Decimal32 | LeafKind::Decimal64 => super::order::le_int(v).to_string(),
            LeafKind::Decimal128 => v
                .try_into()
                .map_or_else(|_| String::new(), |b| i128::from_le_bytes(b).to_string()),
            LeafKind::Decimal256 => v
                .try_into()
                .map_or_else(|_| String::new(), |b| i256::from_le_bytes(b).to_string()),
            _ => String::new(),
        }
    }
}

/// Whether a Decimal128 does not fit the width whose sign bit is `shift`.
#[inline(always)]
fn d128_unfit(v: &[u8; 16], shift: u32) -> bool {
    let x = i128::from_le_bytes(*v) >> shift;
    (x + 1) as u128 > 1
}

/// Whether a Decimal256 does not fit the width whose sign bit is `shift`.
#[inline(always)]
pub(super) fn d256_unfit(v: &[u8; 32], shift: u8) -> bool {
    let x = i256::from_le_bytes(*v) >> shift;
    x != i256::ZERO && x != i256::MINUS_ONE
}
