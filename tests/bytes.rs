//! Strings and binary (BYTE_ARRAY leaves) against `parquet::arrow::ArrowWriter`:
//! every Arrow layout (Utf8, LargeUtf8, Utf8View, Binary, LargeBinary,
//! BinaryView and their dictionaries), every encoding, dictionary fallback,
//! statistics truncation, bloom filters, content-defined chunking, nested
//! and run-end-encoded, each case byte for byte and read back, and each
//! asserting that the leaves took the fast path.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Int32Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, SchemaRef};
use common::*;
use parquet::basic::Encoding;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesBuilder};

fn props() -> WriterPropertiesBuilder {
    WriterProperties::builder()
}

/// `batches` of `schema` written by both writers under every standard
/// configuration (`common::configs`), each leaf asserted fast.
fn all_configs(label: &str, schema: &SchemaRef, batches: &[RecordBatch]) {
    let mut failures = Failures::default();
    for (name, b) in configs() {
        let props = b.build();
        assert_kinds_fast(&format!("{label}/{name}"), schema, &props);
        failures.check(check_identical(
            &format!("{label}/{name}"),
            schema,
            batches,
            &Opts::props(props),
        ));
    }
    failures.finish();
}

/// A nullable, a required and a no-null-buffer column of `dt`.
fn three_ways(dt: &DataType) -> SchemaRef {
    schema_of(&[
        ("nullable", dt.clone(), true),
        ("required", dt.clone(), false),
        ("no_null_buffer", dt.clone(), true),
    ])
}

fn three_ways_batches(g: &mut Gen, schema: &SchemaRef, sizes: &[usize]) -> Vec<RecordBatch> {
    let specs = [
        Spec::new(Nulls::Density(0.3)),
        Spec::new(Nulls::Absent),
        Spec::new(Nulls::Absent),
    ];
    sizes
        .iter()
        .map(|&n| g.batch_with(schema, n, &specs))
        .collect()
}

#[test]
fn every_layout_every_config() {
    for dt in byte_types() {
        let mut g = Gen::new(&format!("bytes/{dt}"));
        let schema = three_ways(&dt);
        let batches = three_ways_batches(&mut g, &schema, &[1, 700, 3000]);
        all_configs(&format!("three_ways/{dt}"), &schema, &batches);
    }
}

#[test]
fn low_cardinality_and_sorted() {
    for dt in byte_types() {
        let mut g = Gen::new(&format!("bytes/low/{dt}"));
        let schema = three_ways(&dt);
        for (what, spec) in [
            ("distinct5", Spec::new(Nulls::Density(0.1)).distinct(5)),
            ("asc", Spec::new(Nulls::Density(0.1)).order(Order::Asc)),
            ("desc", Spec::new(Nulls::Absent).order(Order::Desc)),
        ] {
            let batches = vec![g.batch(&schema, 5000, &spec)];
            all_configs(&format!("{what}/{dt}"), &schema, &batches);
        }
    }
}

#[test]
fn encodings_and_small_limits() {
    let encodings = [
        Encoding::PLAIN,
        Encoding::DELTA_LENGTH_BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY,
    ];
    let mut failures = Failures::default();
    for dt in byte_types() {
        let mut g = Gen::new(&format!("bytes/enc/{dt}"));
        let schema = three_ways(&dt);
        let batches = three_ways_batches(&mut g, &schema, &[2000, 1500]);
        for encoding in encodings {
            for dictionary in [false, true] {
                for (limits, b) in [
                    ("default", props()),
                    ("tiny_pages", props().set_data_page_size_limit(300)),
                    (
                        "tiny_dictionary",
                        props().set_dictionary_page_size_limit(500),
                    ),
                    ("batch_7", props().set_write_batch_size(7)),
                ] {
                    let p = b
                        .set_encoding(encoding)
                        .set_dictionary_enabled(dictionary)
                        .build();
                    let label = format!("{dt}/{encoding}/dict_{dictionary}/{limits}");
                    assert_kinds_fast(&label, &schema, &p);
                    failures.check(check_identical(&label, &schema, &batches, &Opts::props(p)));
                }
            }
        }
    }
    failures.finish();
}

#[test]
fn statistics_and_truncation() {
    let mut failures = Failures::default();
    for dt in byte_types() {
        let mut g = Gen::new(&format!("bytes/stats/{dt}"));
        let schema = three_ways(&dt);
        let batches = three_ways_batches(&mut g, &schema, &[900]);
        for stats in [
            EnabledStatistics::None,
            EnabledStatistics::Chunk,
            EnabledStatistics::Page,
        ] {
            for truncate in [None, Some(1), Some(2), Some(5), Some(63), Some(64)] {
                for header in [false, true] {
                    let p = props()
                        .set_statistics_enabled(stats)
                        .set_statistics_truncate_length(truncate)
                        .set_column_index_truncate_length(truncate)
                        .set_write_page_header_statistics(header)
                        .set_data_page_size_limit(2000)
                        .build();
                    let label = format!(
                        "{dt}/{}/trunc_{truncate:?}/header_{header}",
                        stats_name(stats)
                    );
                    failures.check(check_identical(&label, &schema, &batches, &Opts::props(p)));
                }
            }
        }
    }
    failures.finish();
}

#[test]
fn arrow_dictionaries() {
    let mut failures = Failures::default();
    for value in byte_types() {
        for key in [DataType::Int8, DataType::Int32, DataType::UInt16] {
            let dt = DataType::Dictionary(Box::new(key.clone()), Box::new(value.clone()));
            let mut g = Gen::new(&format!("bytes/dict/{dt}"));
            let schema = schema_of(&[("d", dt.clone(), true), ("r", dt.clone(), false)]);
            // Few enough distinct values over the batches for an Int8
            // dictionary to read back.
            let k = if key == DataType::Int8 { 30 } else { 100 };
            let specs = [
                Spec::new(Nulls::Density(0.2)).distinct(k / 2),
                Spec::new(Nulls::Absent).distinct(k),
            ];
            let batches: Vec<RecordBatch> = (0..3)
                .map(|_| g.batch_with(&schema, 1500, &specs))
                .collect();
            for (name, b) in configs() {
                let p = b.set_dictionary_page_size_limit(400).build();
                let label = format!("{dt}/{name}");
                assert_kinds_fast(&label, &schema, &p);
                failures.check(check_identical(&label, &schema, &batches, &Opts::props(p)));
            }
        }
    }
    failures.finish();
}

/// A dictionary array whose dictionary holds duplicates and unused values,
/// sliced: keys map to the column's dictionary by value, not by key.
#[test]
fn dictionary_with_duplicate_and_unused_values() {
    let values = StringArray::from(vec!["b", "a", "b", "unused", "", "a"]);
    let keys = Int32Array::from(vec![
        Some(0),
        Some(2),
        None,
        Some(5),
        Some(1),
        Some(4),
        Some(4),
        Some(0),
    ]);
    let dict: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::new(keys, Arc::new(values)));
    let field = Field::new("d", dict.data_type().clone(), true);
    let schema = Arc::new(arrow_schema::Schema::new(vec![field]));
    let batches = vec![
        RecordBatch::try_new(schema.clone(), vec![dict.clone()]).unwrap(),
        RecordBatch::try_new(schema.clone(), vec![dict.slice(2, 5)]).unwrap(),
    ];
    all_configs("dictionary_duplicates", &schema, &batches);
}

/// Batches whose dictionaries are separate arrays: equal values (the key
/// remap is kept from one write to the next), then one byte changed, one
/// value more, the same values sliced, and a LargeUtf8 column beside; with
/// row groups and dictionary fallbacks cut between and inside the batches.
#[test]
fn batches_bringing_the_same_dictionary_again() {
    use arrow_array::LargeStringArray;
    let words = |change: Option<(usize, &str)>, extra: bool| {
        let mut v: Vec<String> = (0..40)
            .map(|i| format!("value-{i:03}-{}", "x".repeat(i % 7)))
            .collect();
        if let Some((at, to)) = change {
            v[at] = to.to_string();
        }
        if extra {
            v.push("one more".into());
        }
        v
    };
    let dicts = [
        words(None, false),
        words(None, false),
        words(None, false),
        words(Some((7, "value-007-y")), false),
        words(None, true),
        words(None, true),
        words(None, false),
    ];
    let dt = |v: DataType| DataType::Dictionary(Box::new(DataType::Int32), Box::new(v));
    let schema = schema_of(&[
        ("d", dt(DataType::Utf8), true),
        ("l", dt(DataType::LargeUtf8), false),
    ]);
    let batches: Vec<RecordBatch> = dicts
        .iter()
        .enumerate()
        .map(|(b, words)| {
            let n = 700;
            let len = words.len() as i32;
            let keys = |salt: i32| {
                Int32Array::from_iter((0..n).map(|i| {
                    let k = (i * 7 + salt * 13 + b as i32) % len;
                    (i % 11 != 3 || salt == 1).then_some(k)
                }))
            };
            let utf8 = StringArray::from(words.clone());
            // The last batch's dictionary: the same values, sliced.
            let utf8: ArrayRef = match b {
                6 => Arc::new(
                    StringArray::from([vec!["pad".to_string()], words.clone()].concat())
                        .slice(1, words.len()),
                ),
                _ => Arc::new(utf8),
            };
            let large = LargeStringArray::from(words.clone());
            let d = DictionaryArray::<Int32Type>::try_new(keys(0), utf8).unwrap();
            let l = DictionaryArray::<Int32Type>::try_new(keys(1), Arc::new(large)).unwrap();
            RecordBatch::try_new(schema.clone(), vec![Arc::new(d), Arc::new(l)]).unwrap()
        })
        .collect();
    let mut failures = Failures::default();
    for (name, b) in configs() {
        for (cut, limit) in [("", usize::MAX), ("/cut", 300)] {
            let mut b = b.clone();
            if limit != usize::MAX {
                b = b
                    .set_max_row_group_row_count(Some(1000))
                    .set_dictionary_page_size_limit(limit);
            }
            let p = b.build();
            let label = format!("same_dictionary/{name}{cut}");
            assert_kinds_fast(&label, &schema, &p);
            failures.check(check_identical(&label, &schema, &batches, &Opts::props(p)));
        }
    }
    failures.finish();
}

/// Encodings a byte array cannot take (BYTE_STREAM_SPLIT, DELTA_BINARY_PACKED,
/// RLE), with and without a dictionary, in every release: where parquet's
/// writer refuses the column (when it is created, at the write or at the
/// close), this crate refuses it at the same step, with an error naming the
/// column; where parquet panics, an error; never a panic, never a file.
#[test]
fn encodings_byte_arrays_cannot_take() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    // The step a writer failed at (0: creation, 1: write, 2: close) and its
    // error, if any; Err if it panicked.
    macro_rules! attempt {
        ($writer:ty, $schema:expr, $props:expr, $batch:expr) => {
            catch_unwind(AssertUnwindSafe(|| -> Option<(usize, String)> {
                let mut w = match <$writer>::try_new(Vec::new(), $schema.clone(), Some($props)) {
                    Ok(w) => w,
                    Err(e) => return Some((0, e.to_string())),
                };
                if let Err(e) = w.write($batch) {
                    return Some((1, e.to_string()));
                }
                w.close().err().map(|e| (2, e.to_string()))
            }))
        };
    }
    let schema = schema_of(&[("s", DataType::Utf8, true)]);
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StringArray::from(vec![Some("a"), None, Some("bc")])) as ArrayRef],
    )
    .unwrap();
    for encoding in [
        Encoding::BYTE_STREAM_SPLIT,
        Encoding::DELTA_BINARY_PACKED,
        Encoding::RLE,
    ] {
        for dictionary in [false, true] {
            let p = props()
                .set_encoding(encoding)
                .set_dictionary_enabled(dictionary)
                .build();
            let label = format!("{encoding}/dict_{dictionary}");
            let upstream = attempt!(
                parquet::arrow::ArrowWriter<Vec<u8>>,
                schema,
                p.clone(),
                &batch
            );
            let ours = attempt!(parquet_flba::ArrowWriter<Vec<u8>>, schema, p, &batch)
                .unwrap_or_else(|p| {
                    panic!(
                        "{label}: parquet_flba panicked: {}",
                        panic_message(p.as_ref())
                    )
                });
            match upstream {
                Ok(Some((step, e))) => {
                    let (our_step, our_error) = ours.unwrap_or_else(|| {
                        panic!("{label}: parquet failed ({e}), parquet_flba wrote a file")
                    });
                    assert_eq!(
                        our_step, step,
                        "{label}: parquet: {e}; parquet_flba: {our_error}"
                    );
                    assert!(our_error.contains("'s'"), "{label}: {our_error}");
                    eprintln!("{label}: both refuse at step {step}: {our_error}");
                }
                Err(p) => {
                    let (step, our_error) = ours.unwrap_or_else(|| {
                        panic!(
                            "{label}: parquet panicked ({}), parquet_flba wrote a file",
                            panic_message(p.as_ref())
                        )
                    });
                    assert!(our_error.contains("'s'"), "{label}: {our_error}");
                    eprintln!(
                        "{label}: parquet panics, parquet_flba refuses at step {step}: {our_error}"
                    );
                }
                Ok(None) => panic!("{label}: parquet wrote a file; parquet_flba: {ours:?}"),
            }
        }
    }
}
