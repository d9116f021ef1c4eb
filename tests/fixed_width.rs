//! Fixed-width primitive columns on the fast path: integers of every width,
//! signed and unsigned; dates, times, timestamps, durations; floats. The
//! families under every configuration are in `differential.rs`
//! (`integers`, `floats`); here are the cases particular to these types,
//! each written with `parquet::arrow::ArrowWriter` and with this crate and
//! compared byte for byte, every leaf asserted to take the fast path:
//!
//! * `Date64` stored as INT32 days under `coerce_types` (truncated toward
//!   zero, wrapped), and as INT64 without;
//! * unsigned integers' statistics (their bit patterns stored, ordered
//!   unsigned) and the column index's boundary order;
//! * floats' NaNs (payloads, signs), ±0, ±∞ under every statistics level,
//!   total order and NaN counts (parquet 60) or IEEE order with zero
//!   replacement (59, 58);
//! * times adjusted to UTC by field metadata, explicit Parquet schemas;
//! * dictionary-typed and run-end-encoded fields and arrays;
//! * nested leaves with explicit encodings;
//! * what stays `parquet`'s: `Null` columns, the ALP encoding.

include!("../src/versions.rs");

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Date64Array, DictionaryArray, Float32Array, Float64Array, Int32Array, NullArray,
    RecordBatch, RunArray, UInt32Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use common::*;
use parquet::basic::Encoding;
use parquet::file::properties::{
    EnabledStatistics, WriterProperties, WriterPropertiesBuilder, WriterVersion,
};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::SchemaDescriptor;
use parquet_flba::{DelegateReason, LeafPath};

fn props() -> WriterPropertiesBuilder {
    WriterProperties::builder()
}

fn v2(b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
    b.set_writer_version(WriterVersion::PARQUET_2_0)
}

/// Every leaf of `schema` is planned fast under `opts`.
fn assert_all_fast(name: &str, schema: &SchemaRef, opts: &Opts) {
    let mut options = parquet_flba::ArrowWriterOptions::new().with_properties(opts.props.clone());
    if let Some(descr) = &opts.parquet_schema {
        options = options.with_parquet_schema(descr.clone());
    }
    let writer =
        parquet_flba::ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options)
            .expect("writer");
    for leaf in writer.column_plan().leaves() {
        assert_eq!(
            leaf.path(),
            LeafPath::Fast,
            "case `{name}`: leaf {} ({:?}) is not on the fast path: {:?}",
            leaf.column_path().string(),
            leaf.arrow_type(),
            leaf.reason()
        );
    }
}

/// Checks a case whose leaves must all be fast.
fn fast_case(
    f: &mut Failures,
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    p: WriterProperties,
) {
    let opts = Opts::props(p);
    assert_all_fast(name, schema, &opts);
    f.check(check_identical(name, schema, batches, &opts));
}

fn configs_of_interest() -> Vec<(&'static str, WriterPropertiesBuilder)> {
    vec![
        ("default", props()),
        ("v2", v2(props())),
        ("no_dictionary", props().set_dictionary_enabled(false)),
        (
            "small_pages_v2",
            small_pages(v2(props())).set_dictionary_page_size_limit(64),
        ),
        (
            "chunk_stats_bss",
            props()
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .set_dictionary_enabled(false)
                .set_encoding(Encoding::BYTE_STREAM_SPLIT),
        ),
        (
            "no_stats",
            props().set_statistics_enabled(EnabledStatistics::None),
        ),
        (
            "header_stats_bloom",
            props()
                .set_write_page_header_statistics(true)
                .set_bloom_filter_enabled(true)
                .set_data_page_row_count_limit(40),
        ),
        ("cdc_small", config("cdc_small")),
    ]
}

/// `Date64` is INT32 days under `coerce_types` (milliseconds divided by
/// 86,400,000, truncated toward zero, the low 32 bits kept) and INT64
/// milliseconds otherwise: values that are not whole days, negative ones,
/// and ones whose day count does not fit 32 bits.
#[test]
fn date64_with_and_without_coerce_types() {
    const DAY: i64 = 86_400_000;
    let values: Vec<Option<i64>> = (0..600i64)
        .map(|i| match i % 9 {
            0 => None,
            1 => Some(i * DAY),
            2 => Some(-i * DAY - 1),
            3 => Some(i * DAY + DAY / 2),
            4 => Some(-(DAY / 3)),
            5 => Some(i64::MAX - i),
            6 => Some(i64::MIN + i),
            7 => Some((i32::MAX as i64 + 3) * DAY),
            _ => Some(i * 1_000),
        })
        .collect();
    let array: ArrayRef = Arc::new(Date64Array::from(values));
    let schema = schema_of(&[("d", DataType::Date64, true)]);
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    let mut f = Failures::new();
    for coerce in [false, true] {
        for (label, b) in configs_of_interest() {
            let p = b
                .set_coerce_types(coerce)
                .set_statistics_enabled(EnabledStatistics::Page)
                .build();
            let name = format!("date64/coerce_{coerce}/{label}");
            fast_case(&mut f, &name, &schema, std::slice::from_ref(&batch), p);
        }
        // Distinct counts hash the Arrow values (milliseconds), not the
        // stored days.
        let p = props()
            .set_coerce_types(coerce)
            .distinct_values(true)
            .build();
        let name = format!("date64/coerce_{coerce}/distinct");
        fast_case(&mut f, &name, &schema, std::slice::from_ref(&batch), p);
    }
    f.finish();
}

/// Unsigned integers are stored as their bit patterns and ordered
/// unsigned: values with the top bit set are the largest, and the column
/// index's boundary order follows the unsigned order.
#[test]
fn unsigned_statistics_and_boundary_orders() {
    let mut f = Failures::new();
    let u32s: Vec<u32> = (0..500u32)
        .map(|i| i.wrapping_mul(0x0101_0101).wrapping_add(i << 24))
        .collect();
    let u64s: Vec<u64> = (0..500u64)
        .map(|i| i.wrapping_mul(0x0123_4567_89AB_CDEF) ^ (i << 60))
        .collect();
    for order in ["random", "asc", "desc"] {
        let sort = |mut v: Vec<u64>| {
            match order {
                "asc" => v.sort(),
                "desc" => v.sort_by(|a, b| b.cmp(a)),
                _ => {}
            }
            v
        };
        let a32 = sort(u32s.iter().map(|&v| u64::from(v)).collect());
        let a64 = sort(u64s.clone());
        let schema = schema_of(&[
            ("u32", DataType::UInt32, false),
            ("u64", DataType::UInt64, true),
        ]);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt32Array::from_iter_values(a32.iter().map(|&v| v as u32))),
            Arc::new(UInt64Array::from_iter(
                a64.iter()
                    .enumerate()
                    .map(|(i, &v)| (i % 7 != 3).then_some(v)),
            )),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        for (label, b) in configs_of_interest() {
            let name = format!("unsigned/{order}/{label}");
            fast_case(
                &mut f,
                &name,
                &schema,
                std::slice::from_ref(&batch),
                b.build(),
            );
        }
    }
    f.finish();
}

/// A float column from bit patterns, with nulls at every `null_every`-th
/// slot (0: none).
fn floats(dt: &DataType, bits: &[u64], null_every: usize) -> ArrayRef {
    let valid = |i: usize| null_every == 0 || !i.is_multiple_of(null_every);
    match dt {
        DataType::Float32 => Arc::new(Float32Array::from_iter(
            bits.iter()
                .enumerate()
                .map(|(i, &b)| valid(i).then_some(f32::from_bits(b as u32))),
        )),
        _ => Arc::new(Float64Array::from_iter(
            bits.iter()
                .enumerate()
                .map(|(i, &b)| valid(i).then_some(f64::from_bits(b))),
        )),
    }
}

/// Floats' NaNs, zeros and infinities: min/max by total order with NaN
/// counts (parquet 60) or skipping NaN with zeros replaced (59, 58), in
/// page headers, the column index and chunk statistics.
#[test]
fn float_special_values() {
    let mut f = Failures::new();
    for dt in float_types() {
        let (nan, pos_zero, neg_zero, inf, one): (Vec<u64>, u64, u64, u64, u64) = match dt {
            DataType::Float32 => (
                F32_SPECIALS[..7].iter().map(|&b| u64::from(b)).collect(),
                0,
                0x8000_0000,
                0x7F80_0000,
                0x3F80_0000,
            ),
            _ => (
                F64_SPECIALS[..7].to_vec(),
                0,
                0x8000_0000_0000_0000,
                0x7FF0_0000_0000_0000,
                0x3FF0_0000_0000_0000,
            ),
        };
        let specials: Vec<u64> = match dt {
            DataType::Float32 => F32_SPECIALS.iter().map(|&b| u64::from(b)).collect(),
            _ => F64_SPECIALS.to_vec(),
        };
        let n = nan.len();
        let cases: Vec<(&str, Vec<u64>)> = vec![
            ("all_nan", (0..200).map(|i| nan[i % n]).collect()),
            (
                "nan_and_values",
                (0..200)
                    .map(|i| {
                        if i % 3 == 0 {
                            nan[i % n]
                        } else {
                            one + i as u64
                        }
                    })
                    .collect(),
            ),
            (
                "signed_zeros",
                (0..200).map(|i| [pos_zero, neg_zero][i % 2]).collect(),
            ),
            (
                "zeros_then_negative_zero_first",
                (0..200)
                    .map(|i| if i < 100 { neg_zero } else { pos_zero })
                    .collect(),
            ),
            (
                "infinities_and_nan",
                (0..200)
                    .map(|i| [inf, inf | neg_zero, nan[0], nan[1]][i % 4])
                    .collect(),
            ),
            (
                "specials",
                (0..200).map(|i| specials[i % specials.len()]).collect(),
            ),
            (
                "nan_first_then_values",
                (0..200)
                    .map(|i| if i < 60 { nan[i % n] } else { one + i as u64 })
                    .collect(),
            ),
        ];
        for (label, bits) in cases {
            let schema = schema_of(&[("x", dt.clone(), true), ("r", dt.clone(), false)]);
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![floats(&dt, &bits, 10), floats(&dt, &bits, 0)],
            )
            .unwrap();
            for (cfg, b) in [
                ("default", props()),
                (
                    "pages_of_30",
                    props()
                        .set_data_page_row_count_limit(30)
                        .set_write_batch_size(10),
                ),
                (
                    "v2_plain_header_stats",
                    v2(props())
                        .set_dictionary_enabled(false)
                        .set_write_page_header_statistics(true)
                        .set_data_page_row_count_limit(30),
                ),
                (
                    "chunk_stats",
                    props().set_statistics_enabled(EnabledStatistics::Chunk),
                ),
                (
                    "bss",
                    props()
                        .set_dictionary_enabled(false)
                        .set_encoding(Encoding::BYTE_STREAM_SPLIT),
                ),
                ("bloom", props().set_bloom_filter_enabled(true)),
            ] {
                let name = format!("{}/{label}/{cfg}", type_name(&dt));
                fast_case(
                    &mut f,
                    &name,
                    &schema,
                    std::slice::from_ref(&batch),
                    b.build(),
                );
            }
        }
    }
    f.finish();
}

/// A time field is adjusted to UTC when its metadata says so: the logical
/// type changes, the values do not.
#[test]
fn times_adjusted_to_utc_by_metadata() {
    let meta = HashMap::from([("adjusted_to_utc".to_string(), String::new())]);
    let types = [
        DataType::Time32(TimeUnit::Second),
        DataType::Time32(TimeUnit::Millisecond),
        DataType::Time64(TimeUnit::Microsecond),
        DataType::Time64(TimeUnit::Nanosecond),
    ];
    let mut fields = Vec::new();
    for (i, dt) in types.iter().enumerate() {
        fields.push(Field::new(format!("t{i}"), dt.clone(), true));
        fields.push(Field::new(format!("t{i}_utc"), dt.clone(), true).with_metadata(meta.clone()));
    }
    let schema = Arc::new(Schema::new(fields));
    let mut g = Gen::new("times/utc");
    let batches = g.batches(&schema, &[300, 40], &Spec::new(Nulls::Density(0.2)));
    let mut f = Failures::new();
    for (label, b) in configs_of_interest() {
        fast_case(
            &mut f,
            &format!("times/utc/{label}"),
            &schema,
            &batches,
            b.build(),
        );
    }
    f.finish();
}

/// An explicit Parquet schema that is what the converter makes keeps the
/// leaves fast; one that gives a leaf another logical type sends that leaf
/// to `parquet` (`ParquetSchemaMismatch`), and the file is still its.
#[test]
fn explicit_parquet_schemas() {
    let schema = schema_of(&[
        ("i8", DataType::Int8, false),
        ("u16", DataType::UInt16, true),
        (
            "ts",
            DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
            true,
        ),
        ("d64", DataType::Date64, true),
        ("f", DataType::Float32, true),
    ]);
    let mut g = Gen::new("explicit_schema");
    let batches = g.batches(&schema, &[200, 50], &Spec::new(Nulls::Density(0.1)));
    let same = parse_message_type(
        "message schema {
            REQUIRED INT32 i8 (INTEGER(8,true));
            OPTIONAL INT32 u16 (INTEGER(16,false));
            OPTIONAL INT64 ts (TIMESTAMP(MILLIS,true));
            OPTIONAL INT64 d64;
            OPTIONAL FLOAT f;
        }",
    )
    .unwrap();
    let opts = Opts {
        parquet_schema: Some(SchemaDescriptor::new(Arc::new(same))),
        ..Opts::props(props().build())
    };
    let mut f = Failures::new();
    assert_all_fast("explicit_schema/same", &schema, &opts);
    f.check(check_identical(
        "explicit_schema/same",
        &schema,
        &batches,
        &opts,
    ));

    let other = parse_message_type(
        "message schema {
            REQUIRED INT32 i8 (INTEGER(8,true));
            OPTIONAL INT32 u16 (INTEGER(16,false));
            OPTIONAL INT64 ts (TIMESTAMP(MILLIS,false));
            OPTIONAL INT64 d64;
            OPTIONAL FLOAT f;
        }",
    )
    .unwrap();
    let opts = Opts {
        parquet_schema: Some(SchemaDescriptor::new(Arc::new(other))),
        ..Opts::props(props().build())
    };
    let options = parquet_flba::ArrowWriterOptions::new()
        .with_parquet_schema(opts.parquet_schema.clone().unwrap());
    let writer =
        parquet_flba::ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options)
            .unwrap();
    let reasons: Vec<Option<DelegateReason>> = writer
        .column_plan()
        .leaves()
        .iter()
        .map(|l| l.reason())
        .collect();
    use DelegateReason::ParquetSchemaMismatch as M;
    assert_eq!(reasons, [None, None, Some(M), None, None]);
    f.check(check_identical(
        "explicit_schema/other",
        &schema,
        &batches,
        &opts,
    ));
    f.finish();
}

/// Dictionary-typed fields of fixed-width values, and dictionary and
/// run-end-encoded arrays for plain fields, top level and in a list.
#[test]
fn dictionary_and_run_end_encoded() {
    let dict = |k: DataType, v: DataType| DataType::Dictionary(Box::new(k), Box::new(v));
    let schema = schema_of(&[
        ("d_i64", dict(DataType::Int16, DataType::Int64), true),
        ("d_f64", dict(DataType::Int8, DataType::Float64), true),
        ("d_u8", dict(DataType::UInt32, DataType::UInt8), false),
        (
            "l_d_ts",
            DataType::List(Arc::new(Field::new(
                "item",
                dict(
                    DataType::Int32,
                    DataType::Timestamp(TimeUnit::Nanosecond, None),
                ),
                true,
            ))),
            true,
        ),
    ]);
    let mut g = Gen::new("dictionary_fields");
    let batches = g.batches(
        &schema,
        &[300, 100],
        &Spec::new(Nulls::Density(0.2)).distinct(12),
    );
    let mut f = Failures::new();
    for (label, b) in configs_of_interest() {
        let name = format!("dictionary_fields/{label}");
        let opts = Opts::props(b.build());
        if release::PARQUET_60 {
            assert_all_fast(&name, &schema, &opts);
        }
        f.check(check_identical(&name, &schema, &batches, &opts));
    }

    // Plain fields given dictionary and run-end-encoded arrays (parquet 60).
    if release::PARQUET_60 {
        let schema = schema_of(&[
            ("i32", DataType::Int32, true),
            ("f32", DataType::Float32, false),
        ]);
        let keys = Int32Array::from_iter((0..400).map(|i| (i % 11 != 0).then_some(i % 5)));
        let values = Int32Array::from(vec![i32::MIN, -1, 0, 7, i32::MAX]);
        let dict_array: ArrayRef =
            Arc::new(DictionaryArray::try_new(keys, Arc::new(values)).unwrap());
        let run_ends = Int32Array::from_iter_values((1..=40).map(|i| i * 10));
        let run_values = Float32Array::from_iter_values((0..40).map(|i| i as f32 * -0.5));
        let ree: ArrayRef = Arc::new(RunArray::try_new(&run_ends, &run_values).unwrap());
        let batch_schema = Arc::new(Schema::new(vec![
            Field::new("i32", dict_array.data_type().clone(), true),
            Field::new("f32", ree.data_type().clone(), false),
        ]));
        let batch = RecordBatch::try_new(batch_schema, vec![dict_array, ree]).unwrap();
        let batch = RecordBatch::try_new(schema.clone(), batch.columns().to_vec()).unwrap_or(batch);
        for (label, b) in configs_of_interest() {
            let name = format!("encoded_arrays/{label}");
            fast_case(
                &mut f,
                &name,
                &schema,
                std::slice::from_ref(&batch),
                b.build(),
            );
        }
    }
    f.finish();
}

/// Leaves inside lists, structs, maps and fixed-size lists, with explicit
/// encodings per column (PLAIN, BYTE_STREAM_SPLIT, DELTA_BINARY_PACKED).
#[test]
fn nested_leaves_with_encodings() {
    let item = |dt: DataType| Arc::new(Field::new("item", dt, true));
    let schema = schema_of(&[
        ("l_i8", DataType::List(item(DataType::Int8)), true),
        (
            "s",
            DataType::Struct(Fields::from(vec![
                Field::new("u32", DataType::UInt32, true),
                Field::new("f32", DataType::Float32, false),
            ])),
            true,
        ),
        ("l_date", DataType::List(item(DataType::Date32)), true),
        (
            "l_dur",
            DataType::List(item(DataType::Duration(TimeUnit::Microsecond))),
            true,
        ),
        ("l_flag", DataType::List(item(DataType::Boolean)), true),
    ]);
    let mut g = Gen::new("nested_encodings");
    let batches = g.batches(&schema, &[250, 60], &Spec::new(Nulls::Density(0.15)));
    let mut f = Failures::new();
    let columns = [
        "l_i8.list.item",
        "s.u32",
        "s.f32",
        "l_date.list.item",
        "l_dur.list.item",
        "l_flag.list.item",
    ];
    let is_float = |c: &str| c.ends_with("f32");
    let is_bool = |c: &str| c.starts_with("l_flag");
    for (enc_label, int_enc, float_enc, bool_enc) in [
        ("plain", Encoding::PLAIN, Encoding::PLAIN, Encoding::PLAIN),
        (
            "bss",
            Encoding::BYTE_STREAM_SPLIT,
            Encoding::BYTE_STREAM_SPLIT,
            Encoding::PLAIN,
        ),
        (
            "delta",
            Encoding::DELTA_BINARY_PACKED,
            Encoding::BYTE_STREAM_SPLIT,
            Encoding::RLE,
        ),
    ] {
        for (v, version) in [
            ("v1", WriterVersion::PARQUET_1_0),
            ("v2", WriterVersion::PARQUET_2_0),
        ] {
            for dictionary in [false, true] {
                let mut b = small_pages(props())
                    .set_writer_version(version)
                    .set_dictionary_page_size_limit(128);
                for c in columns {
                    let path = parquet::schema::types::ColumnPath::from(c);
                    let e = match (is_float(c), is_bool(c)) {
                        (true, _) => float_enc,
                        (_, true) => bool_enc,
                        _ => int_enc,
                    };
                    b = b
                        .set_column_encoding(path.clone(), e)
                        .set_column_dictionary_enabled(path, dictionary);
                }
                let name = format!("nested_encodings/{enc_label}/{v}/dict_{dictionary}");
                fast_case(&mut f, &name, &schema, &batches, b.build());
            }
        }
    }
    f.finish();
}

/// What stays `parquet`'s, by name: a `Null` column, and (parquet 60) a
/// float column given the ALP encoding. The files are `parquet`'s.
#[test]
fn null_columns_and_alp_stay_parquets() {
    let schema = schema_of(&[
        ("n", DataType::Null, true),
        ("x", DataType::Float64, true),
        ("i", DataType::Int64, false),
    ]);
    let x: ArrayRef = Arc::new(Float64Array::from_iter(
        (0..300).map(|i| (i % 4 != 0).then_some(i as f64 / 8.0)),
    ));
    let i: ArrayRef = Arc::new(arrow_array::Int64Array::from_iter_values(0..300));
    let batch =
        RecordBatch::try_new(schema.clone(), vec![Arc::new(NullArray::new(300)), x, i]).unwrap();
    let mut f = Failures::new();
    let writer = parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), None).unwrap();
    let plan = writer.column_plan();
    assert_eq!(
        plan.leaves()[0].reason(),
        Some(DelegateReason::NullType),
        "{plan}"
    );
    assert_eq!(plan.leaves()[1].path(), LeafPath::Fast, "{plan}");
    assert_eq!(plan.leaves()[2].path(), LeafPath::Fast, "{plan}");
    f.identical(
        "null_column",
        &schema,
        std::slice::from_ref(&batch),
        props().build(),
    );
    #[cfg(feature = "parquet-60")]
    {
        let p = props()
            .set_column_encoding("x".into(), Encoding::ALP)
            .set_column_dictionary_enabled("x".into(), false)
            .build();
        let writer =
            parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(p.clone()))
                .unwrap();
        let plan = writer.column_plan();
        assert_eq!(
            plan.leaves()[1].reason(),
            Some(DelegateReason::AlpEncoding),
            "{plan}"
        );
        assert_eq!(plan.leaves()[2].path(), LeafPath::Fast, "{plan}");
        f.identical("alp_column", &schema, std::slice::from_ref(&batch), p);
    }
    f.finish();
}

/// The file this crate writes on `threads` threads.
fn write_on_threads(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    threads: usize,
) -> Vec<u8> {
    let mut writer =
        parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))
            .unwrap()
            .with_threads(threads)
            .with_min_parallel_work(std::time::Duration::ZERO);
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.into_inner().unwrap()
}

/// The `prims` table (a rising timestamp, integers of few distinct values,
/// prices, a date, a flag) is `parquet`'s file, and on several threads the
/// one-thread file.
#[test]
fn prims_table_on_threads() {
    let schema = schema_of(&[
        (
            "ts",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            false,
        ),
        ("id", DataType::Int64, false),
        ("n", DataType::Int32, false),
        ("price", DataType::Float64, true),
        ("day", DataType::Date32, false),
        ("flag", DataType::Boolean, true),
    ]);
    let mut g = Gen::new("prims_threads");
    let spec = Spec::new(Nulls::Density(0.05)).distinct(40);
    let batches = g.batches(&schema, &[3000, 1000, 2500], &spec);
    let mut f = Failures::new();
    for (label, b) in [("default", props()), ("zstd_v2", config("zstd_parquet_2"))] {
        let p = b.set_max_row_group_row_count(Some(2048)).build();
        let name = format!("prims/{label}");
        fast_case(&mut f, &name, &schema, &batches, p.clone());
        let one = write_on_threads(&schema, &batches, &p, 1);
        let three = write_on_threads(&schema, &batches, &p, 3);
        f.check(match compare_files(&one, &three) {
            None => Ok(()),
            Some(diff) => Err(format!("case `{name}/threads_3`: {diff}")),
        });
    }
    f.finish();
}

/// Writes `batch` with `parquet`'s writer and with this crate: `parquet`
/// panics with `upstream_panic`, this crate returns an error naming the
/// column and `cause` (and does not panic).
fn assert_error_where_parquet_panics(
    schema: &SchemaRef,
    batch: &RecordBatch,
    props: &WriterProperties,
    upstream_panic: &str,
    cause: &str,
) {
    let up = no_panic("upstream writer", || {
        let mut w =
            parquet::arrow::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))
                .unwrap();
        w.write(batch).and_then(|_| w.close()).map(|_| ())
    });
    match up {
        Err(p) => assert!(
            p.contains(upstream_panic),
            "parquet panicked otherwise: {p}"
        ),
        Ok(r) => panic!("parquet did not panic (the case no longer shows its bug): {r:?}"),
    }
    let ours = no_panic("parquet_flba writer", || {
        let mut w =
            parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))
                .unwrap();
        let plan = w.column_plan().clone();
        assert_eq!(plan.fast_count(), plan.leaves().len(), "{plan}");
        w.write(batch).and_then(|_| w.close()).map(|_| ())
    })
    .expect("parquet_flba does not panic");
    let e = ours
        .expect_err("parquet_flba refuses what parquet cannot write")
        .to_string();
    let column = schema.field(0).name();
    assert!(e.contains(&format!("Column '{column}")), "{e}");
    assert!(e.contains(cause), "{e}");
}

/// Content-defined chunking that ends a chunk right after a page limit cut
/// a page makes an empty page before parquet 60.2: `parquet` panics
/// flushing it for an RLE-encoded BOOLEAN column ("RLE value encoder is not
/// initialized"); this crate returns an error naming the column (and,
/// PLAIN-encoded, the same column is `parquet`'s file, empty page
/// included). 60.2 writes no empty page (D31): the same file either way.
#[test]
fn rle_boolean_empty_page_under_cdc_is_an_error() {
    let schema = schema_of(&[("flag", DataType::Boolean, true)]);
    let flags = arrow_array::BooleanArray::from_iter(
        (0..3000).map(|i| (i * 7 % 5 != 0).then_some(i * 13 % 3 == 0)),
    );
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(flags)]).unwrap();
    let cdc = parquet::file::properties::CdcOptions {
        min_chunk_size: 64,
        max_chunk_size: 512,
        norm_level: 0,
    };
    let mut f = Failures::new();
    for (label, b) in [
        ("v2", v2(props())),
        ("rle_v1", props().set_encoding(Encoding::RLE)),
    ] {
        let p = b
            .set_content_defined_chunking(Some(cdc))
            .set_data_page_row_count_limit(1)
            .build();
        eprintln!("{label}");
        if at_60_2() {
            // 60.2 writes no empty page (docs/releases.md D31), so nothing
            // panics: the same file, on the fast path.
            fast_case(&mut f, label, &schema, std::slice::from_ref(&batch), p);
            continue;
        }
        assert_error_where_parquet_panics(
            &schema,
            &batch,
            &p,
            "RLE value encoder is not initialized",
            "empty data page of an RLE-encoded BOOLEAN column",
        );
    }
    let p = props()
        .set_content_defined_chunking(Some(cdc))
        .set_data_page_row_count_limit(1)
        .build();
    fast_case(
        &mut f,
        "cdc_boolean_plain",
        &schema,
        std::slice::from_ref(&batch),
        p,
    );
    f.finish();
}

/// Content-defined chunking over a list view whose values are out of
/// order: `parquet` slices each chunk's values from its first to its last
/// and panics (index out of bounds; subtract with overflow in a debug
/// build); this crate returns an error naming the column. In order, the
/// same list view is `parquet`'s file.
#[test]
fn cdc_over_an_out_of_order_list_view_is_an_error() {
    use arrow_array::{Array, Int64Array, ListViewArray};
    use arrow_buffer::ScalarBuffer;
    let item = Arc::new(Field::new("item", DataType::Int64, true));
    let n = 300;
    let view = |reversed: bool| {
        let offsets: Vec<i32> = (0..n)
            .map(|i| if reversed { (n - 1 - i) * 3 } else { i * 3 })
            .collect();
        ListViewArray::new(
            item.clone(),
            ScalarBuffer::from(offsets),
            ScalarBuffer::from(vec![3i32; n as usize]),
            Arc::new(Int64Array::from_iter_values(0..2000)),
            None,
        )
    };
    let cdc = parquet::file::properties::CdcOptions {
        min_chunk_size: 64,
        max_chunk_size: 512,
        norm_level: 0,
    };
    let p = props().set_content_defined_chunking(Some(cdc)).build();
    let reversed = view(true);
    let schema = schema_of(&[("lv", reversed.data_type().clone(), true)]);
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(reversed)]).unwrap();
    assert_error_where_parquet_panics(&schema, &batch, &p, "", "out of order");
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(view(false))]).unwrap();
    let mut f = Failures::new();
    fast_case(
        &mut f,
        "cdc_list_view_in_order",
        &schema,
        std::slice::from_ref(&batch),
        p,
    );
    f.finish();
}
