//! The byte-array encoders against `parquet`'s own, byte for byte and
//! estimate for estimate, over every Arrow layout.

use super::dictionary::ByteDictionary;
use super::fallback::{DeltaByteArray, DeltaLengthByteArray, append_plain};
use crate::values::bytes::{ByteValues, Picks};
use arrow_array::builder::StringViewBuilder;
use arrow_array::{ArrayRef, LargeBinaryArray, StringArray};
use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType};
use parquet::encodings::encoding::{
    DeltaByteArrayEncoder, DeltaLengthByteArrayEncoder, DictEncoder, Encoder, PlainEncoder,
};
use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type};
use std::sync::Arc;

/// Strings with shared prefixes, empty ones, multi-byte and long ones.
fn values(n: usize, seed: u64) -> Vec<String> {
    let mut x = seed | 1;
    let mut prev = String::new();
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let s = match x % 6 {
                0 => String::new(),
                1 => prev.clone(),
                2 => format!("{prev}{}", x % 1000),
                3 => "é".repeat((x % 7) as usize),
                4 => format!("{:0>w$}", x % 97, w = (x % 60) as usize),
                _ => format!("k{}", x % 13),
            };
            prev = s.clone();
            s
        })
        .collect()
}

fn arrays(v: &[String]) -> Vec<ArrayRef> {
    let mut views = StringViewBuilder::new().with_fixed_block_size(128);
    for s in v {
        views.append_value(s);
    }
    vec![
        Arc::new(StringArray::from_iter_values(v)),
        Arc::new(LargeBinaryArray::from_iter_values(
            v.iter().map(|s| s.as_bytes()),
        )),
        Arc::new(views.finish()),
    ]
}

fn byte_arrays(v: &[String], picks: &[usize]) -> Vec<ByteArray> {
    picks
        .iter()
        .map(|&i| ByteArray::from(v[i].as_bytes().to_vec()))
        .collect()
}

/// Position lists tried: everything, a range, scattered positions.
fn pick_lists(n: usize) -> Vec<Vec<usize>> {
    vec![
        (0..n).collect(),
        (n / 3..n / 2).collect(),
        (0..n).filter(|i| i % 3 != 1).collect(),
    ]
}

/// Feeds `positions` in uneven calls: 1, 7, 100, ... values at a time.
fn in_calls(positions: &[usize], mut f: impl FnMut(&[usize])) {
    let mut at = 0;
    for size in [1usize, 7, 100, 129, 1000].iter().cycle() {
        if at >= positions.len() {
            break;
        }
        let end = (at + size).min(positions.len());
        f(&positions[at..end]);
        at = end;
    }
}

#[test]
fn plain_matches_upstream() {
    let v = values(3000, 1);
    for array in arrays(&v) {
        let bv = ByteValues::of(array.as_ref()).unwrap();
        for picks in pick_lists(v.len()) {
            let mut ours = Vec::new();
            let mut up = PlainEncoder::<ByteArrayType>::new();
            in_calls(&picks, |p| {
                append_plain(&mut ours, &bv, &Picks::Indices(p));
                up.put(&byte_arrays(&v, p)).unwrap();
            });
            assert_eq!(ours.len(), up.estimated_data_encoded_size());
            assert_eq!(ours, up.flush_buffer().unwrap().to_vec());
        }
    }
}

/// Runs `put` with a `seen` callback and checks that it was shown every
/// value at `picks`, in order, with its own bytes, and that it returned
/// their total length.
fn shown_in_order<'a>(
    picks: &[usize],
    values: &ByteValues<'a>,
    put: impl FnOnce(&mut dyn FnMut(usize, &'a [u8])) -> usize,
) {
    let mut shown = Vec::new();
    let bytes = put(&mut |i, v| shown.push((i, v)));
    let positions: Vec<usize> = shown.iter().map(|&(i, _)| i).collect();
    assert_eq!(positions, picks);
    assert!(shown.iter().all(|&(i, v)| v == values.value(i)));
    let total: usize = picks.iter().map(|&i| values.value(i).len()).sum();
    assert_eq!(bytes, total);
}

#[test]
fn delta_length_matches_upstream() {
    let v = values(3000, 2);
    for array in arrays(&v) {
        let bv = ByteValues::of(array.as_ref()).unwrap();
        for picks in pick_lists(v.len()) {
            let mut ours = DeltaLengthByteArray::default();
            let mut up = DeltaLengthByteArrayEncoder::<ByteArrayType>::new();
            // Two pages, the second after a flush.
            for page in [&picks[..picks.len() / 2], &picks[picks.len() / 2..]] {
                in_calls(page, |p| {
                    shown_in_order(p, &bv, |seen| ours.put(&bv, &Picks::Indices(p), seen));
                    up.put(&byte_arrays(&v, p)).unwrap();
                    assert_eq!(ours.estimated_size(), up.estimated_data_encoded_size());
                });
                // The page's values go into a block sized by the bound.
                let bound = ours.finished_bound();
                let mut out = Vec::new();
                ours.finish_into(&mut out);
                assert!(out.len() <= bound, "{} > bound {bound}", out.len());
                assert_eq!(out, up.flush_buffer().unwrap().to_vec());
            }
        }
    }
}

#[test]
fn delta_byte_array_matches_upstream() {
    let v = values(3000, 3);
    for array in arrays(&v) {
        let bv = ByteValues::of(array.as_ref()).unwrap();
        for picks in pick_lists(v.len()) {
            let mut ours = DeltaByteArray::default();
            let mut up = DeltaByteArrayEncoder::<ByteArrayType>::new();
            for page in [
                &picks[..picks.len() / 2],
                &picks[picks.len() / 2..],
                &[][..],
            ] {
                in_calls(page, |p| {
                    shown_in_order(p, &bv, |seen| ours.put(&bv, &Picks::Indices(p), seen));
                    up.put(&byte_arrays(&v, p)).unwrap();
                    assert_eq!(ours.estimated_size(), up.estimated_data_encoded_size());
                });
                // The page's values go into a block sized by the bound.
                let bound = ours.finished_bound();
                let mut out = Vec::new();
                ours.finish_into(&mut out);
                assert!(out.len() <= bound, "{} > bound {bound}", out.len());
                assert_eq!(out, up.flush_buffer().unwrap().to_vec());
            }
        }
    }
}

fn string_descr() -> Arc<ColumnDescriptor> {
    let t = Type::primitive_type_builder("c", PhysicalType::BYTE_ARRAY)
        .with_repetition(Repetition::OPTIONAL)
        .with_logical_type(Some(LogicalType::String))
        .build()
        .unwrap();
    Arc::new(ColumnDescriptor::new(
        Arc::new(t),
        1,
        0,
        ColumnPath::from("c"),
    ))
}

#[test]
fn dictionary_matches_upstream() {
    for (n, seed) in [(3000, 4), (5, 5), (20_000, 6)] {
        let v = values(n, seed);
        for array in arrays(&v) {
            let bv = ByteValues::of(array.as_ref()).unwrap();
            let picks: Vec<usize> = (0..n).collect();
            let mut ours = ByteDictionary::new();
            let mut up = DictEncoder::<ByteArrayType>::new(string_descr());
            // Two data pages.
            for page in [&picks[..n / 3], &picks[n / 3..]] {
                in_calls(page, |p| {
                    ours.put(&bv, &Picks::Indices(p));
                    up.put(&byte_arrays(&v, p)).unwrap();
                    assert_eq!(ours.encoded_size(), up.dict_encoded_size());
                });
                let bound = ours.indices_bound();
                let mut out = Vec::new();
                ours.finish_page_into(&mut out);
                assert!(out.len() <= bound, "{} > bound {bound}", out.len());
                assert_eq!(out, up.write_indices().unwrap().to_vec());
            }
            let dict = up.write_dict().unwrap().to_vec();
            assert_eq!(ours.into_page(), (dict, up.num_entries()));
        }
    }
}
