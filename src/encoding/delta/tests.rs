//! The delta encoders against `parquet`'s own, byte for byte.

use super::binary_packed::{DeltaBinaryPacked, DeltaBinaryPackedI32};
use super::byte_array::DeltaByteArray;
use crate::compat::DeltaOptions;
use parquet::data_type::{
    DataType, FixedLenByteArray, FixedLenByteArrayType, Int32Type, Int64Type,
};
use parquet::encodings::encoding::{DeltaBitPackEncoder, DeltaByteArrayEncoder, Encoder};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// The block layouts tried (60 only: 59 has one, D12).
#[cfg(feature = "parquet-60")]
fn layout(case: usize) -> Option<DeltaOptions> {
    match case % 4 {
        0 => None,
        1 => Some(DeltaOptions::try_new(256, 8).unwrap()),
        2 => Some(DeltaOptions::try_new(128, 1).unwrap()),
        _ => Some(DeltaOptions::try_new(128, 4).unwrap()),
    }
}

#[cfg(not(feature = "parquet-60"))]
fn layout(_case: usize) -> Option<DeltaOptions> {
    None
}

#[cfg(feature = "parquet-60")]
fn upstream<T: DataType>(options: Option<DeltaOptions>) -> DeltaBitPackEncoder<T> {
    match options {
        Some(o) => DeltaBitPackEncoder::new_with_options(o),
        None => DeltaBitPackEncoder::new(),
    }
}

#[cfg(not(feature = "parquet-60"))]
fn upstream<T: DataType>(options: Option<DeltaOptions>) -> DeltaBitPackEncoder<T> {
    match options {
        Some(o) => match o {},
        None => DeltaBitPackEncoder::new(),
    }
}

#[test]
fn dbp_matches_upstream() {
    let mut rng = StdRng::seed_from_u64(11);
    for case in 0..300 {
        let n = rng.random_range(0..700);
        let spread: i32 = *[1, 100, i32::MAX].get(case % 3).unwrap();
        let values: Vec<i32> = (0..n).map(|_| rng.random_range(-spread..=spread)).collect();
        let options = layout(case);
        let mut up = upstream::<Int32Type>(options);
        let mut ours = DeltaBinaryPackedI32::new(options);
        for chunk in values.chunks(37) {
            up.put(chunk).unwrap();
            for &v in chunk {
                ours.put(v);
            }
            assert_eq!(ours.completed_len(), up.estimated_data_encoded_size());
        }
        let bound = ours.finished_bound();
        let mut out = Vec::new();
        ours.finish_into(&mut out);
        assert!(out.len() <= bound, "case {case}: {} > {bound}", out.len());
        assert_eq!(out, up.flush_buffer().unwrap().to_vec(), "case {case}");
    }
}

/// INT32 and INT64 values given as little-endian bytes (as INT32 / INT64
/// decimals reach the encoder), over two pages, with values that make
/// deltas wrap and mini-blocks wider than 32 bits.
#[test]
fn dbp_le_values_match_upstream() {
    let mut rng = StdRng::seed_from_u64(13);
    for case in 0..300 {
        let n = rng.random_range(0..900);
        let options = layout(case);
        let spread: i64 = *[1, 1000, i64::from(i32::MAX), i64::MAX]
            .get(case % 4)
            .unwrap();
        let values: Vec<i64> = (0..n)
            .map(|i| match rng.random_range(0..20) {
                0 => i64::MIN,
                1 => i64::MAX,
                _ if case % 5 == 0 => i as i64 * 3,
                _ => rng.random_range(-spread..=spread),
            })
            .collect();
        let mut up = upstream::<Int64Type>(options);
        let mut ours = DeltaBinaryPacked::<i64>::new(options);
        let mut up32 = upstream::<Int32Type>(options);
        let mut ours32 = DeltaBinaryPacked::<i32>::new(options);
        let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
        for page in 0..2 {
            for (chunk, chunk32) in values.chunks(41).zip(narrow.chunks(41)) {
                up.put(chunk).unwrap();
                let le: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
                ours.put_le(&le);
                assert_eq!(ours.completed_len(), up.estimated_data_encoded_size());
                up32.put(chunk32).unwrap();
                let le: Vec<u8> = chunk32.iter().flat_map(|v| v.to_le_bytes()).collect();
                ours32.put_le(&le);
                assert_eq!(ours32.completed_len(), up32.estimated_data_encoded_size());
            }
            // Each page's bytes go into a block sized by the bound.
            let bound = ours.finished_bound();
            let mut out = Vec::new();
            ours.finish_into(&mut out);
            assert!(out.len() <= bound, "case {case}: {} > {bound}", out.len());
            assert_eq!(
                out,
                up.flush_buffer().unwrap().to_vec(),
                "case {case} page {page}"
            );
            let bound = ours32.finished_bound();
            let mut out = Vec::new();
            ours32.finish_into(&mut out);
            assert!(out.len() <= bound, "case {case}: {} > {bound}", out.len());
            assert_eq!(
                out,
                up32.flush_buffer().unwrap().to_vec(),
                "case {case} page {page} (32)"
            );
        }
    }
}

#[test]
fn dba_matches_upstream() {
    let mut rng = StdRng::seed_from_u64(12);
    for case in 0..200 {
        // Half the cases use the widths with a specialised path.
        let width = if case % 2 == 0 {
            [2, 4, 8, 12, 16, 32][case / 2 % 6]
        } else {
            rng.random_range(1..40)
        };
        let n = rng.random_range(0..500);
        let mut values = vec![0u8; width * n];
        for v in values.chunks_exact_mut(width) {
            let shared = rng.random_range(0..=width);
            for b in &mut v[shared..] {
                *b = rng.random_range(0..3);
            }
        }
        let mut up = DeltaByteArrayEncoder::<FixedLenByteArrayType>::new();
        let mut ours = DeltaByteArray::new(width, None);
        for page in 0..2 {
            for chunk in values.chunks(width * 13) {
                let flba: Vec<FixedLenByteArray> = chunk
                    .chunks_exact(width)
                    .map(|v| FixedLenByteArray::from(v.to_vec()))
                    .collect();
                up.put(&flba).unwrap();
                ours.put(chunk);
                assert_eq!(ours.estimated_size(), up.estimated_data_encoded_size());
            }
            let mut out = Vec::new();
            ours.finish_into(&mut out);
            assert_eq!(
                out,
                up.flush_buffer().unwrap().to_vec(),
                "case {case} page {page}"
            );
        }
    }
}
