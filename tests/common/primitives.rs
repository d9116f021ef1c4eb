//! Random fixed-width primitive arrays (integers, dates, times, timestamps,
//! durations, floats): extremes, values with the top bit set for the
//! unsigned types, runs of repeats (dictionary and RLE-friendly), small
//! steps (delta-friendly) and values from the whole range; for floats NaNs
//! of several payloads and both signs, ±0, ±∞, subnormals and prices with
//! two decimals.

use super::{Gen, Spec};
use arrow_array::{ArrayRef, BooleanArray, make_array};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType, TimeUnit};
use rand::Rng;
use rand::rngs::StdRng;
use std::sync::Arc;

/// Bytes per value and signedness of a fixed-width integer-like type
/// this generator draws.
pub fn integer_layout(dt: &DataType) -> Option<(usize, bool)> {
    Some(match dt {
        DataType::Int8 => (1, true),
        DataType::Int16 => (2, true),
        DataType::Int32 | DataType::Date32 => (4, true),
        DataType::Time32(TimeUnit::Second | TimeUnit::Millisecond) => (4, true),
        DataType::Int64 | DataType::Date64 => (8, true),
        DataType::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond) => (8, true),
        DataType::Timestamp(_, _) | DataType::Duration(_) => (8, true),
        DataType::UInt8 => (1, false),
        DataType::UInt16 => (2, false),
        DataType::UInt32 => (4, false),
        DataType::UInt64 => (8, false),
        _ => return None,
    })
}

/// Every integer-like type the fast path writes (one unit of each time
/// type per storage, and timestamps with and without a time zone).
pub fn integer_types() -> Vec<DataType> {
    vec![
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::UInt8,
        DataType::UInt16,
        DataType::UInt32,
        DataType::UInt64,
        DataType::Date32,
        DataType::Date64,
        DataType::Time32(TimeUnit::Second),
        DataType::Time32(TimeUnit::Millisecond),
        DataType::Time64(TimeUnit::Microsecond),
        DataType::Time64(TimeUnit::Nanosecond),
        DataType::Timestamp(TimeUnit::Second, None),
        DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        DataType::Timestamp(TimeUnit::Microsecond, None),
        DataType::Timestamp(TimeUnit::Nanosecond, Some("+02:00".into())),
        DataType::Duration(TimeUnit::Second),
        DataType::Duration(TimeUnit::Nanosecond),
    ]
}

/// A value of `bytes` bytes (as the low bytes of an i64): the type's
/// extremes, zero and minus one, the top bit set (the unsigned types'
/// upper half), a repeat or a small step from the previous value, a small
/// value, or anything in the range.
fn integer_value(rng: &mut StdRng, bytes: usize, signed: bool, prev: Option<&i64>) -> i64 {
    let bits = 8 * bytes as u32;
    let (min, max) = match (signed, bits) {
        (_, 64) if signed => (i64::MIN, i64::MAX),
        (_, 64) => (0, -1),
        (true, b) => (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1),
        (false, b) => (0, (1i64 << b) - 1),
    };
    let wrap = |v: i64| -> i64 {
        let v = v as u64 & (u64::MAX >> (64 - bits));
        match signed && bits < 64 && v >> (bits - 1) & 1 == 1 {
            true => (v | !(u64::MAX >> (64 - bits))) as i64,
            false => v as i64,
        }
    };
    let r: f64 = rng.random();
    match prev {
        Some(&p) if r < 0.3 => return p,
        Some(&p) if r < 0.45 => return wrap(p.wrapping_add(rng.random_range(-3..=3))),
        _ => {}
    }
    if r < 0.55 {
        let top = 1i64.wrapping_shl(bits - 1);
        return wrap([min, max, 0, -1, top, top.wrapping_add(1), 1][rng.random_range(0..7)]);
    }
    if r < 0.8 {
        return wrap(rng.random_range(-1000..1000));
    }
    wrap(rng.random::<i64>())
}

impl Gen {
    /// A random array of an integer-like type (see [`integer_types`]).
    pub fn integer_array(
        &mut self,
        dt: &DataType,
        len: usize,
        spec: &Spec,
        nulls: Option<NullBuffer>,
    ) -> ArrayRef {
        let (bytes, signed) = integer_layout(dt).expect("an integer-like type");
        let unsigned_key = |v: &i64| (*v as u64) & (u64::MAX >> (64 - 8 * bytes as u32));
        let vals = self.values(
            len,
            spec,
            |rng, prev| integer_value(rng, bytes, signed, prev),
            |a, b| match signed {
                true => a.cmp(b),
                false => unsigned_key(a).cmp(&unsigned_key(b)),
            },
        );
        let mut raw = Vec::with_capacity(len * bytes);
        for v in vals {
            raw.extend_from_slice(&v.to_le_bytes()[..bytes]);
        }
        let data = ArrayData::builder(dt.clone())
            .len(len)
            .add_buffer(Buffer::from_slice_ref(&raw))
            .nulls(nulls)
            .build()
            .unwrap();
        make_array(data)
    }

    /// A random `Boolean` array: runs of either value (RLE-friendly) and
    /// stretches of random bits.
    pub fn boolean_array(
        &mut self,
        len: usize,
        spec: &Spec,
        nulls: Option<NullBuffer>,
    ) -> ArrayRef {
        let vals = self.values(
            len,
            spec,
            |rng, prev: Option<&bool>| match prev {
                Some(&p) if rng.random_bool(0.7) => p,
                _ => rng.random_bool(0.5),
            },
            |a, b| a.cmp(b),
        );
        Arc::new(BooleanArray::new(BooleanBuffer::from(vals), nulls))
    }

    /// A random array of `Float32` or `Float64`.
    pub fn float_array(
        &mut self,
        dt: &DataType,
        len: usize,
        spec: &Spec,
        nulls: Option<NullBuffer>,
    ) -> ArrayRef {
        let bytes = match dt {
            DataType::Float32 => 4,
            DataType::Float64 => 8,
            other => panic!("not a float type: {other}"),
        };
        let vals = self.values(
            len,
            spec,
            |rng, prev| float_value(rng, bytes, prev),
            |a, b| float_total_key(*a, bytes).cmp(&float_total_key(*b, bytes)),
        );
        let mut raw = Vec::with_capacity(len * bytes);
        for v in vals {
            raw.extend_from_slice(&v.to_le_bytes()[..bytes]);
        }
        let data = ArrayData::builder(dt.clone())
            .len(len)
            .add_buffer(Buffer::from_slice_ref(&raw))
            .nulls(nulls)
            .build()
            .unwrap();
        make_array(data)
    }
}

/// The float types the fast path writes.
pub fn float_types() -> Vec<DataType> {
    vec![DataType::Float32, DataType::Float64]
}

/// Interesting float64 bit patterns: NaNs (quiet and signalling, both signs,
/// several payloads), ±0, ±∞, subnormals, extremes, ±1.
pub const F64_SPECIALS: &[u64] = &[
    0x7FF8_0000_0000_0000,
    0xFFF8_0000_0000_0000,
    0x7FF0_0000_0000_0001,
    0xFFF0_0000_0000_0001,
    0x7FFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_FFFF_FFFF,
    0x7FF8_0000_DEAD_BEEF,
    0x0000_0000_0000_0000,
    0x8000_0000_0000_0000,
    0x7FF0_0000_0000_0000,
    0xFFF0_0000_0000_0000,
    0x0000_0000_0000_0001,
    0x8000_0000_0000_0001,
    0x7FEF_FFFF_FFFF_FFFF,
    0xFFEF_FFFF_FFFF_FFFF,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
];

/// Interesting float32 bit patterns, as [`F64_SPECIALS`].
pub const F32_SPECIALS: &[u32] = &[
    0x7FC0_0000,
    0xFFC0_0000,
    0x7F80_0001,
    0xFF80_0001,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
    0x7FC0_BEEF,
    0x0000_0000,
    0x8000_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x0000_0001,
    0x8000_0001,
    0x7F7F_FFFF,
    0xFF7F_FFFF,
    0x3F80_0000,
    0xBF80_0000,
];

/// A float's bits (`bytes` = 4 or 8) as the low bytes of a u64: a special
/// value, a repeat or a price near the previous value, or a price with two
/// decimals.
fn float_value(rng: &mut StdRng, bytes: usize, prev: Option<&u64>) -> u64 {
    let from_f64 = |x: f64| match bytes {
        4 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    };
    let r: f64 = rng.random();
    match prev {
        Some(&p) if r < 0.25 => return p,
        Some(&p) if r < 0.4 => {
            let x = match bytes {
                4 => f64::from(f32::from_bits(p as u32)),
                _ => f64::from_bits(p),
            };
            if x.is_finite() {
                return from_f64(((x * 100.0).round() + rng.random_range(-5.0..=5.0)) / 100.0);
            }
        }
        _ => {}
    }
    if r < 0.55 {
        return match bytes {
            4 => u64::from(F32_SPECIALS[rng.random_range(0..F32_SPECIALS.len())]),
            _ => F64_SPECIALS[rng.random_range(0..F64_SPECIALS.len())],
        };
    }
    if r < 0.9 {
        return from_f64(rng.random_range(-100_000i64..100_000) as f64 / 100.0);
    }
    match bytes {
        4 => u64::from(rng.random::<u32>()),
        _ => rng.random::<u64>(),
    }
}

/// The key whose integer order is the IEEE 754 total order of a float's
/// bits (`bytes` = 4 or 8).
fn float_total_key(bits: u64, bytes: usize) -> i64 {
    match bytes {
        4 => {
            let x = bits as u32 as i32;
            i64::from(x ^ ((((x >> 31) as u32) >> 1) as i32))
        }
        _ => {
            let x = bits as i64;
            x ^ ((((x >> 63) as u64) >> 1) as i64)
        }
    }
}

/// The delta encoding a column of `dt` takes: DELTA_BINARY_PACKED for the
/// integer-like types, DELTA_BYTE_ARRAY for the FIXED_LEN_BYTE_ARRAY ones;
/// floats have none (BYTE_STREAM_SPLIT instead), booleans RLE.
pub fn delta_for(dt: &DataType) -> parquet::basic::Encoding {
    match (integer_layout(dt), dt) {
        (Some(_), _) => parquet::basic::Encoding::DELTA_BINARY_PACKED,
        (None, DataType::Float32 | DataType::Float64) => {
            parquet::basic::Encoding::BYTE_STREAM_SPLIT
        }
        (None, DataType::Boolean) => parquet::basic::Encoding::RLE,
        _ => parquet::basic::Encoding::DELTA_BYTE_ARRAY,
    }
}

/// BYTE_STREAM_SPLIT, or for booleans (which have none) PLAIN.
pub fn byte_stream_split_for(dt: &DataType) -> parquet::basic::Encoding {
    match dt {
        DataType::Boolean => parquet::basic::Encoding::PLAIN,
        _ => parquet::basic::Encoding::BYTE_STREAM_SPLIT,
    }
}

/// `array` with every `Date64` value in it (at any depth: struct and list
/// children, dictionary and run-end values) as `parquet` reads back what
/// it stored as INT32 days under `coerce_types`: the days (milliseconds
/// divided by 86,400,000, truncated, their low 32 bits) in milliseconds.
pub fn date64_as_stored_days(array: &ArrayRef) -> ArrayRef {
    fn days(data: ArrayData) -> ArrayData {
        const DAY: i64 = 86_400_000;
        let children: Vec<ArrayData> = data.child_data().iter().cloned().map(days).collect();
        let mut builder = data.clone().into_builder().child_data(children);
        if data.data_type() == &DataType::Date64 {
            let values: Vec<u8> = data.buffers()[0]
                .typed_data::<i64>()
                .iter()
                .flat_map(|&v| (i64::from((v / DAY) as i32) * DAY).to_le_bytes())
                .collect();
            builder = builder.buffers(vec![Buffer::from_slice_ref(&values)]);
        }
        builder.build().unwrap()
    }
    make_array(days(array.to_data()))
}
