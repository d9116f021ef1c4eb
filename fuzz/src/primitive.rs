//! Fixed-width primitive columns of a scenario besides `Int64` (an 8-bit
//! and the unsigned integers, `Date64`, a timestamp with a zone, `Float64`,
//! `Boolean`): the fast path writes them, and the differential target
//! compares them with `parquet`'s file. Values mix the type's extremes, zero and minus one, the top bit set
//! (the unsigned types' upper half), repeats (runs, dictionaries), small
//! steps and anything; floats add NaNs of both signs and several payloads,
//! ±0 and ±∞.

use super::input::{ByteReader, SplitMix64};
use arrow_array::{ArrayRef, make_array};
use arrow_buffer::{Buffer, NullBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType, TimeUnit};
use parquet::basic::Encoding;

/// A fixed-width primitive type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    /// `Int8` (INT32).
    Int8,
    /// `UInt32` (INT32, its bit pattern).
    UInt32,
    /// `UInt64` (INT64, its bit pattern).
    UInt64,
    /// `Date64` (INT32 days under `coerce_types`).
    Date64,
    /// `Timestamp(Microsecond, "UTC")`.
    TimestampUtc,
    /// `Float64`.
    Float64,
    /// `Boolean`.
    Boolean,
}

impl Prim {
    /// The type three bits pick (0: none, an `Int64` column stays one).
    /// The scenario decoder takes them from bits it already reads, so that
    /// adding these types changed no stored input's scenario but the
    /// type of that one column.
    pub fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits & 7 {
            1 => Prim::Int8,
            2 => Prim::UInt32,
            3 => Prim::UInt64,
            4 => Prim::Date64,
            5 => Prim::TimestampUtc,
            6 => Prim::Float64,
            7 => Prim::Boolean,
            _ => return None,
        })
    }

    /// The Arrow type.
    pub fn data_type(self) -> DataType {
        match self {
            Prim::Int8 => DataType::Int8,
            Prim::UInt32 => DataType::UInt32,
            Prim::UInt64 => DataType::UInt64,
            Prim::Date64 => DataType::Date64,
            Prim::TimestampUtc => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            Prim::Float64 => DataType::Float64,
            Prim::Boolean => DataType::Boolean,
        }
    }

    /// Bytes per value in the Arrow buffer (0: bits).
    pub fn width(self) -> usize {
        match self {
            Prim::Int8 => 1,
            Prim::UInt32 => 4,
            Prim::Boolean => 0,
            _ => 8,
        }
    }

    /// The encodings a column of this type may be given.
    pub fn encodings(self) -> &'static [Encoding] {
        match self {
            Prim::Boolean => &[Encoding::PLAIN, Encoding::RLE],
            Prim::Float64 => &[Encoding::PLAIN, Encoding::BYTE_STREAM_SPLIT],
            _ => &[
                Encoding::PLAIN,
                Encoding::BYTE_STREAM_SPLIT,
                Encoding::DELTA_BINARY_PACKED,
            ],
        }
    }

    /// An array of `len` values with `nulls` (from one draw of `r`, as an
    /// `Int64` column takes).
    pub fn array(self, r: &mut ByteReader, len: usize, nulls: Option<NullBuffer>) -> ArrayRef {
        let mut rng = r.rng();
        let style = rng.next_u64() as u8;
        let width = self.width();
        let raw: Vec<u8> = match width {
            0 => {
                let mut bits = vec![0u8; len.div_ceil(8)];
                let mut prev = false;
                for i in 0..len {
                    let v = match style % 3 {
                        0 => rng.chance(1, 2),
                        1 if !rng.chance(1, 16) => prev,
                        _ => !prev,
                    };
                    bits[i / 8] |= u8::from(v) << (i % 8);
                    prev = v;
                }
                bits
            }
            w => {
                let mut out = Vec::with_capacity(len * w);
                let mut prev = 0u64;
                for _ in 0..len {
                    let v = self.value(&mut rng, style, prev);
                    out.extend_from_slice(&v.to_le_bytes()[..w]);
                    prev = v;
                }
                out
            }
        };
        let data = ArrayData::builder(self.data_type())
            .len(len)
            .add_buffer(Buffer::from_slice_ref(&raw))
            .nulls(nulls)
            .build()
            .expect("a primitive array");
        make_array(data)
    }

    /// One value (its bits in the low bytes).
    fn value(self, rng: &mut SplitMix64, style: u8, prev: u64) -> u64 {
        let bits = 8 * self.width() as u32;
        let mask = u64::MAX >> (64 - bits);
        let top = 1u64 << (bits - 1);
        if rng.chance(u64::from(style % 4), 4) {
            return prev;
        }
        let v = match (self, rng.below(8)) {
            (Prim::Float64, 0) => [
                0x7FF8_0000_0000_0000u64,
                0xFFF8_0000_0000_0001,
                0x7FF0_0000_0000_0001,
                0,
                0x8000_0000_0000_0000,
                0x7FF0_0000_0000_0000,
                0xFFF0_0000_0000_0000,
            ][rng.below(7) as usize],
            (Prim::Float64, 1..=4) => ((rng.below(20_000) as f64) / 100.0 - 50.0).to_bits(),
            (_, 0) => [0, mask, top, top - 1, top + 1][rng.below(5) as usize],
            (_, 1..=3) => prev.wrapping_add(rng.below(7)).wrapping_sub(3),
            (_, 4 | 5) => rng.below(1000).wrapping_sub(500),
            _ => rng.next_u64(),
        };
        match self {
            // Whole days, which read back as written under `coerce_types`
            // (the differential tests cover the rest).
            Prim::Date64 => ((v as i32 as i64) * 86_400_000) as u64,
            _ => v & mask,
        }
    }
}
