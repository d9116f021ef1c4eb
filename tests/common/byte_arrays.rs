//! Random string and binary arrays for the differential suites, in every
//! Arrow layout: values that probe the byte-array writer (empty values,
//! values longer than the default truncation length of 64 bytes, multi-byte
//! UTF-8 characters across that boundary, binary full of 0xFF, values that
//! share prefixes with the one before), views inline and out of line over
//! several data buffers.

use super::{Gen, Spec};
use arrow_array::builder::{BinaryViewBuilder, StringViewBuilder};
use arrow_array::{ArrayRef, BinaryArray, LargeBinaryArray, LargeStringArray, StringArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use rand::Rng;
use rand::rngs::StdRng;
use std::sync::Arc;

/// Whether `dt` is a string or binary type [`byte_array`] generates.
pub fn is_byte_type(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

/// Every string and binary type.
pub fn byte_types() -> Vec<DataType> {
    vec![
        DataType::Utf8,
        DataType::LargeUtf8,
        DataType::Utf8View,
        DataType::Binary,
        DataType::LargeBinary,
        DataType::BinaryView,
    ]
}

/// Multi-byte characters, placed to straddle truncation boundaries.
const WIDE: [&str; 6] = ["é", "€", "😀", "\u{7ff}", "\u{ffff}", "\u{10ffff}"];

/// One random string: sometimes empty, long (past 64 bytes), with
/// multi-byte characters around byte 64, or sharing a prefix with `prev`.
fn string_value(rng: &mut StdRng, prev: Option<&String>) -> String {
    let r: f64 = rng.random();
    if r < 0.08 {
        return String::new();
    }
    if r < 0.2 {
        // Around the default truncation length, a wide character across it.
        let mut s: String = "t".repeat(rng.random_range(58..66));
        for _ in 0..rng.random_range(1..4) {
            s.push_str(WIDE[rng.random_range(0..WIDE.len())]);
        }
        return s;
    }
    if r < 0.28 {
        let n = rng.random_range(65..200);
        return (0..n)
            .map(|_| rng.random_range(b'a'..=b'z') as char)
            .collect();
    }
    if let Some(prev) = prev.filter(|_| r < 0.5) {
        let mut s = prev.clone();
        s.push(rng.random_range(b'A'..=b'Z') as char);
        return s;
    }
    let n = rng.random_range(0..14);
    (0..n)
        .map(|_| match rng.random_range(0..10) {
            0 => WIDE[rng.random_range(0..WIDE.len())]
                .chars()
                .next()
                .unwrap(),
            _ => rng.random_range(b'a'..=b'z') as char,
        })
        .collect()
}

/// One random binary value: sometimes empty, all 0xFF (long or short), long
/// random bytes, or sharing a prefix with `prev`.
fn binary_value(rng: &mut StdRng, prev: Option<&Vec<u8>>) -> Vec<u8> {
    let r: f64 = rng.random();
    if r < 0.08 {
        return Vec::new();
    }
    if r < 0.16 {
        return vec![0xFF; rng.random_range(1..100)];
    }
    if r < 0.24 {
        let mut v = vec![0xFF; rng.random_range(60..70)];
        v.push(rng.random());
        return v;
    }
    if r < 0.3 {
        let n = rng.random_range(65..200);
        return (0..n).map(|_| rng.random()).collect();
    }
    if let Some(prev) = prev.filter(|_| r < 0.5) {
        let mut v = prev.clone();
        v.push(rng.random());
        return v;
    }
    let n = rng.random_range(0..14);
    (0..n).map(|_| rng.random()).collect()
}

/// A random array of the string or binary type `dt` with `len` slots.
pub fn byte_array(
    g: &mut Gen,
    dt: &DataType,
    len: usize,
    spec: &Spec,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
    let strings = matches!(
        dt,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    );
    if strings {
        let vals = g.values(len, spec, string_value, |a, b| a.cmp(b));
        let opts: Vec<Option<&str>> = vals
            .iter()
            .enumerate()
            .map(|(i, v)| valid(i).then_some(v.as_str()))
            .collect();
        match dt {
            DataType::Utf8 => Arc::new(StringArray::from(opts)),
            DataType::LargeUtf8 => Arc::new(LargeStringArray::from(opts)),
            _ => {
                // Small blocks: out-of-line values over several buffers.
                let mut b = StringViewBuilder::new().with_fixed_block_size(256);
                for v in opts {
                    b.append_option(v);
                }
                Arc::new(b.finish())
            }
        }
    } else {
        let vals = g.values(len, spec, binary_value, |a, b| a.cmp(b));
        let opts: Vec<Option<&[u8]>> = vals
            .iter()
            .enumerate()
            .map(|(i, v)| valid(i).then_some(v.as_slice()))
            .collect();
        match dt {
            DataType::Binary => Arc::new(BinaryArray::from(opts)),
            DataType::LargeBinary => Arc::new(LargeBinaryArray::from(opts)),
            _ => {
                let mut b = BinaryViewBuilder::new().with_fixed_block_size(256);
                for v in opts {
                    b.append_option(v);
                }
                Arc::new(b.finish())
            }
        }
    }
}
