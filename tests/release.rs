//! One test per byte-level difference between parquet 58.4, 59.3 and 60.1
//! that this crate follows (`docs/releases.md`, rows D1–D26). Each writes
//! the case with `parquet::arrow::ArrowWriter` of the selected release and
//! with `parquet_flba::ArrowWriter`, requires identical files (or the same
//! error), and then asserts the selected release's behaviour itself — so
//! that moving to another release shows up as a failure naming the
//! behaviour, not as a byte offset. Run with the default features (60),
//! with `--no-default-features --features parquet-59` and with
//! `--no-default-features --features parquet-58`.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, Decimal32Array, Decimal64Array, Decimal128Array, DictionaryArray,
    FixedSizeBinaryArray, Int32Array, RecordBatch,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use common::*;
use parquet::arrow::ArrowWriter as UpstreamWriter;
use parquet::basic::{ColumnOrder, Encoding, PageType, SortOrder, Type as PhysicalType};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;
use parquet::file::statistics::Statistics;
use parquet_flba::{
    ArrowWriter, DelegateReason, LeafPath, PARQUET_RELEASE, VERIFIED_PARQUET_RELEASES,
};

const V59: bool = cfg!(feature = "parquet-59");
const V58: bool = cfg!(feature = "parquet-58");
/// 58 and 59 behave alike in D1–D5 and D13–D15.
const BEFORE_60: bool = V59 || V58;

/// One batch written by parquet and by parquet_flba, default properties:
/// each file, or its error.
fn write_one(
    schema: &SchemaRef,
    batch: &RecordBatch,
) -> (
    parquet::errors::Result<Vec<u8>>,
    parquet::errors::Result<Vec<u8>>,
) {
    let up = UpstreamWriter::try_new(Vec::new(), schema.clone(), None).and_then(|mut w| {
        w.write(batch)?;
        w.into_inner()
    });
    let ours = ArrowWriter::try_new(Vec::new(), schema.clone(), None).and_then(|mut w| {
        w.write(batch)?;
        w.into_inner()
    });
    (up, ours)
}

fn column0(md: &ParquetMetaData) -> &parquet::file::metadata::ColumnChunkMetaData {
    md.row_group(0).column(0)
}

fn fast_leaves(schema: &SchemaRef, props: &WriterProperties) -> Vec<bool> {
    let w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone())).unwrap();
    w.column_plan()
        .leaves()
        .iter()
        .map(|l| l.path() == LeafPath::Fast)
        .collect()
}

fn fsb_batch(schema: &SchemaRef, values: Vec<Option<Vec<u8>>>, width: i32) -> RecordBatch {
    RecordBatch::try_new(schema.clone(), vec![fsb_from(width, values)]).unwrap()
}

fn f16_batch(schema: &SchemaRef, bits: Vec<u16>) -> RecordBatch {
    RecordBatch::try_new(schema.clone(), vec![float16_from_bits(bits, None)]).unwrap()
}

fn stats_min_max(s: &Statistics) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    (
        s.min_bytes_opt().map(<[u8]>::to_vec),
        s.max_bytes_opt().map(<[u8]>::to_vec),
    )
}

#[cfg(feature = "parquet-60")]
fn nan_count(s: &Statistics) -> Option<u64> {
    s.nan_count_opt()
}

/// parquet 59 has no NaN counts (D4).
#[cfg(not(feature = "parquet-60"))]
fn nan_count(_s: &Statistics) -> Option<u64> {
    None
}

const F16_POS_ZERO: u16 = 0x0000;
const F16_NEG_ZERO: u16 = 0x8000;
const F16_ONE: u16 = 0x3C00;
const F16_MINUS_ONE: u16 = 0xBC00;
const F16_TWO: u16 = 0x4000;
const F16_NAN: u16 = 0x7E00;

#[test]
fn release_is_the_selected_one() {
    let line = if V59 { "59." } else { "60." };
    let line = if V58 { "58." } else { line };
    assert!(PARQUET_RELEASE.starts_with(line), "{PARQUET_RELEASE}");
    let created_by = WriterProperties::default().created_by().to_string();
    assert_eq!(created_by, format!("parquet-rs version {PARQUET_RELEASE}"));
    // CI's lock file holds a release this crate was checked against, so
    // the fast path is on (a later, unchecked patch would send every leaf
    // to parquet: `DelegateReason::UnverifiedRelease`).
    assert!(
        VERIFIED_PARQUET_RELEASES.contains(&PARQUET_RELEASE),
        "{PARQUET_RELEASE} is not in {VERIFIED_PARQUET_RELEASES:?}"
    );
}

/// D1: FIXED_LEN_BYTE_ARRAY gets a dictionary under PARQUET_1_0 in 60, not
/// in 59; under PARQUET_2_0 in both.
#[test]
fn d1_flba_dictionary_under_v1() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), true);
    let values = (0..200).map(|i| Some(vec![(i % 2) as u8; 16])).collect();
    let batch = fsb_batch(&schema, values, 16);
    let props = WriterProperties::default();
    assert_eq!(fast_leaves(&schema, &props), [true]);
    let file = both("d1/v1", &schema, std::slice::from_ref(&batch), props);
    let md = metadata(&file);
    let c = column0(&md);
    let encodings: Vec<Encoding> = c.encodings().collect();
    if BEFORE_60 {
        assert_eq!(c.dictionary_page_offset(), None);
        assert_eq!(encodings, [Encoding::PLAIN, Encoding::RLE]);
    } else {
        assert!(c.dictionary_page_offset().is_some());
        assert_eq!(
            encodings,
            [Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY]
        );
    }
    let v2 = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .build();
    let file = both("d1/v2", &schema, &[batch], v2);
    assert!(column0(&metadata(&file)).dictionary_page_offset().is_some());
}

/// D2: a zero Float16 min is -0 and a zero max +0 in 59; 60 keeps the
/// value found by total order.
#[test]
fn d2_float16_zeros() {
    let schema = schema1("h", DataType::Float16, true);
    let props = WriterProperties::default();
    assert_eq!(fast_leaves(&schema, &props), [true]);
    let cases = [
        ("pos_zero_min", vec![F16_POS_ZERO, F16_ONE]),
        ("neg_zero_max", vec![F16_MINUS_ONE, F16_NEG_ZERO]),
        ("both_zeros", vec![F16_POS_ZERO, F16_NEG_ZERO, F16_POS_ZERO]),
    ];
    for (name, bits) in cases {
        let file = both(
            &format!("d2/{name}"),
            &schema,
            &[f16_batch(&schema, bits)],
            props.clone(),
        );
        let md = metadata(&file);
        let (min, max) = stats_min_max(column0(&md).statistics().unwrap());
        let le = |b: u16| Some(b.to_le_bytes().to_vec());
        let want = match (name, BEFORE_60) {
            ("pos_zero_min", true) => (le(F16_NEG_ZERO), le(F16_ONE)),
            ("pos_zero_min", false) => (le(F16_POS_ZERO), le(F16_ONE)),
            ("neg_zero_max", true) => (le(F16_MINUS_ONE), le(F16_POS_ZERO)),
            ("neg_zero_max", false) => (le(F16_MINUS_ONE), le(F16_NEG_ZERO)),
            (_, true) => (le(F16_NEG_ZERO), le(F16_POS_ZERO)),
            (_, false) => (le(F16_NEG_ZERO), le(F16_POS_ZERO)),
        };
        assert_eq!((min, max), want, "{name}");
    }
}

/// D3, D4: a page of only NaN has no min/max and drops the chunk's column
/// index in 59; 60 writes NaN min/max and NaN counts (59 never does).
#[test]
fn d3_d4_float16_nan() {
    let schema = schema1("h", DataType::Float16, true);
    let props = WriterProperties::default();
    let file = both(
        "d3/all_nan",
        &schema,
        &[f16_batch(&schema, vec![F16_NAN, F16_NAN])],
        props.clone(),
    );
    let md = metadata(&file);
    let stats = column0(&md).statistics().unwrap();
    let index = common::release::column_index(&md, 0, 0);
    if BEFORE_60 {
        assert_eq!(stats_min_max(stats), (None, None));
        assert!(index.is_none(), "59 drops the column index: {index:?}");
        assert_eq!(nan_count(stats), None);
    } else {
        let nan = Some(F16_NAN.to_le_bytes().to_vec());
        assert_eq!(stats_min_max(stats), (nan.clone(), nan));
        assert!(index.is_some());
        assert_eq!(nan_count(stats), Some(2));
    }
    let file = both(
        "d4/some_nan",
        &schema,
        &[f16_batch(&schema, vec![F16_NAN, F16_TWO])],
        props,
    );
    let md = metadata(&file);
    let stats = column0(&md).statistics().unwrap();
    let two = Some(F16_TWO.to_le_bytes().to_vec());
    assert_eq!(stats_min_max(stats), (two.clone(), two));
    assert_eq!(nan_count(stats), if BEFORE_60 { None } else { Some(1) });
}

/// D5: Float16's column order: SIGNED type-defined order in 59 (so chunk
/// statistics also carry the deprecated min/max), IEEE 754 total order in
/// 60 — in the plain footer and in the hybrid one (CDC on a mixed table).
#[test]
fn d5_float16_column_order() {
    // The `Null` column is `parquet`'s (through the inner writer under CDC).
    let schema = schema_of(&[("h", DataType::Float16, true), ("n", DataType::Null, true)]);
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            float16_from_bits(vec![F16_ONE, F16_TWO, F16_MINUS_ONE], None),
            Arc::new(arrow_array::NullArray::new(3)) as ArrayRef,
        ],
    )
    .unwrap();
    for (name, props) in [
        ("plain", WriterProperties::default()),
        (
            "hybrid",
            WriterProperties::builder()
                .set_content_defined_chunking(Some(small_cdc()))
                .build(),
        ),
    ] {
        assert_eq!(fast_leaves(&schema, &props), [true, false]);
        let file = both(
            &format!("d5/{name}"),
            &schema,
            std::slice::from_ref(&batch),
            props,
        );
        let md = metadata(&file);
        let order = md.file_metadata().column_order(0);
        if BEFORE_60 {
            assert_eq!(
                order,
                ColumnOrder::TYPE_DEFINED_ORDER(SortOrder::SIGNED),
                "{name}"
            );
        } else {
            assert_ne!(
                order,
                ColumnOrder::TYPE_DEFINED_ORDER(SortOrder::SIGNED),
                "{name}"
            );
            assert_eq!(format!("{order:?}"), "IEEE_754_TOTAL_ORDER", "{name}");
        }
    }
}

/// D6: the DICTIONARY_PAGE entry of `encoding_stats` is first in 60 and
/// 59.3 (59.3.2 took it over), after the data pages that used it in 59.2.
#[test]
fn d6_encoding_stats_order() {
    let schema = schema1("u", DataType::FixedSizeBinary(4), true);
    let values = (0..100).map(|i| Some(vec![(i % 2) as u8; 4])).collect();
    let batch = fsb_batch(&schema, values, 4);
    let props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .build();
    let file = both("d6", &schema, &[batch], props);
    let options = ReadOptionsBuilder::new()
        .with_encoding_stats_as_mask(false)
        .build();
    let reader = SerializedFileReader::new_with_options(file, options).unwrap();
    let c = reader.metadata().row_group(0).column(0).clone();
    let stats: Vec<(PageType, Encoding)> = c
        .page_encoding_stats()
        .unwrap()
        .iter()
        .map(|s| (s.page_type, s.encoding))
        .collect();
    let dict = (PageType::DICTIONARY_PAGE, Encoding::PLAIN);
    let data = (PageType::DATA_PAGE_V2, Encoding::RLE_DICTIONARY);
    assert_eq!(stats, vec![dict, data]);
}

fn pages(file: &Bytes) -> usize {
    let md = metadata(file);
    common::release::offset_index(&md, 0, 0)
        .unwrap()
        .page_locations()
        .len()
}

/// D9, D10: DELTA_BYTE_ARRAY with a page limit below one value: 60 and
/// 59.3 exempt a page's first value (59.2 cut a page after every value);
/// windows count values in 60, levels in 59. (58 has no windows, D20, and
/// writes each batch whole: `d9_delta_first_value_exemption` and
/// `d20_byte_budget_windows` pin it there.)
#[cfg(not(feature = "parquet-58"))]
#[test]
fn d9_d10_delta_byte_array_tiny_pages() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), true);
    let value = |i: usize| {
        let mut v = vec![7u8; 16];
        v[15] = i as u8;
        v
    };
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::DELTA_BYTE_ARRAY)
        .set_data_page_size_limit(8)
        .build();
    let dense = fsb_batch(&schema, (0..40).map(|i| Some(value(i))).collect(), 16);
    let file = both("d9/dense", &schema, &[dense], props.clone());
    assert_eq!(pages(&file), 5);
    let sparse = (0..40).map(|i| (i % 3 != 0).then(|| value(i))).collect();
    let file = both(
        "d10/sparse",
        &schema,
        &[fsb_batch(&schema, sparse, 16)],
        props,
    );
    // 59.2 wrote 20 pages here (one per value and null run).
    assert_eq!(pages(&file), if V59 { 4 } else { 3 });
}

/// D13: a `Dictionary(_, FixedSizeBinary)` field: 59 writes it with its
/// byte-array writer (length-prefixed values), so it is left to parquet
/// there; 60 writes it as FLBA, on the fast path.
#[test]
fn d13_dictionary_of_fixed_size_binary() {
    let dt = DataType::Dictionary(
        Box::new(DataType::Int32),
        Box::new(DataType::FixedSizeBinary(4)),
    );
    let schema = schema1("d", dt, true);
    let values =
        FixedSizeBinaryArray::try_from_iter([[1u8, 2, 3, 4], [5, 6, 7, 8]].into_iter()).unwrap();
    let keys = Int32Array::from_iter_values((0..100).map(|i| i % 2));
    let dict: DictionaryArray<Int32Type> =
        DictionaryArray::try_new(keys, Arc::new(values)).unwrap();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(dict) as ArrayRef]).unwrap();
    for (name, props) in [
        ("default", WriterProperties::default()),
        (
            "plain",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .build(),
        ),
    ] {
        let w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone())).unwrap();
        let leaf = &w.column_plan().leaves()[0];
        if BEFORE_60 {
            assert_eq!(leaf.reason(), Some(DelegateReason::WrappedUnderParquet59));
        } else {
            assert_eq!(leaf.path(), LeafPath::Fast, "{name}");
        }
        let file = both(
            &format!("d13/{name}"),
            &schema,
            std::slice::from_ref(&batch),
            props,
        );
        let md = metadata(&file);
        let unencoded = column0(&md).unencoded_byte_array_data_bytes();
        assert_eq!(
            unencoded,
            if BEFORE_60 { Some(400) } else { None },
            "{name}"
        );
    }
}

/// D14: a precision-1 decimal is INT64 in 59 (so `Decimal32(1, 0)` cannot
/// be written), INT32 in 60.
#[test]
fn d14_precision_one_decimal() {
    let schema = schema1("p", DataType::Decimal32(1, 0), true);
    let array = Decimal32Array::from(vec![Some(1), None, Some(9)])
        .with_precision_and_scale(1, 0)
        .unwrap();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(array) as ArrayRef]).unwrap();
    let (up, ours) = write_one(&schema, &batch);
    if BEFORE_60 {
        assert!(up.is_err(), "parquet 59 writes Decimal32(1, 0)");
        assert!(ours.is_err(), "parquet_flba writes what parquet 59 rejects");
        // Left to parquet (which rejects it), not written by the fast path.
        assert_eq!(fast_leaves(&schema, &WriterProperties::default()), [false]);
    } else {
        let (up, ours) = (up.unwrap(), ours.unwrap());
        assert_eq!(up, ours);
        let md = metadata(&Bytes::from(up));
        assert_eq!(column0(&md).column_type(), PhysicalType::INT32);
        assert_eq!(fast_leaves(&schema, &WriterProperties::default()), [true]);
    }
    // Decimal128(1, 0): INT64 in 59, INT32 in 60, on the fast path in both.
    let schema = schema1("p", DataType::Decimal128(1, 0), true);
    let array = arrow_array::Decimal128Array::from(vec![Some(-9), None, Some(9)])
        .with_precision_and_scale(1, 0)
        .unwrap();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(array) as ArrayRef]).unwrap();
    assert_eq!(fast_leaves(&schema, &WriterProperties::default()), [true]);
    let file = both(
        "d14_decimal128_1",
        &schema,
        &[batch],
        WriterProperties::default(),
    );
    let want = if BEFORE_60 {
        PhysicalType::INT64
    } else {
        PhysicalType::INT32
    };
    assert_eq!(column0(&metadata(&file)).column_type(), want);
}

/// D15: a non-nullable field whose array has logical nulls (a dictionary
/// whose value is null): an error in 60, written as stored in 59 — both
/// with the dictionary in the schema and with a plain schema field.
#[test]
fn d15_required_field_with_dictionary_nulls() {
    let values =
        FixedSizeBinaryArray::try_from_sparse_iter_with_size([Some([1u8, 2]), None].into_iter(), 2)
            .unwrap();
    let keys = Int32Array::from_iter_values((0..10).map(|i| i % 2));
    let dict: ArrayRef =
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).unwrap());
    let dict_type = dict.data_type().clone();
    for (name, field_type) in [
        ("dictionary_field", dict_type.clone()),
        ("plain_field", DataType::FixedSizeBinary(2)),
    ] {
        // The writer's schema has the field's type; the batch, always the
        // dictionary (a writer takes a dictionary for a plain field).
        let schema = Arc::new(Schema::new(vec![Field::new("d", field_type, false)]));
        let batch_schema = Arc::new(Schema::new(vec![Field::new("d", dict_type.clone(), false)]));
        let batch = RecordBatch::try_new(batch_schema, vec![dict.clone()]).unwrap();
        let (up, ours) = write_one(&schema, &batch);
        match (up, ours) {
            (Ok(up), Ok(ours)) => {
                if !BEFORE_60 {
                    panic!("{name}: parquet 60 accepted nulls in a required field");
                }
                assert_eq!(up, ours, "{name}: files differ");
            }
            (Err(e), Err(_)) => {
                if BEFORE_60 {
                    panic!("{name}: parquet 59 rejected the batch: {e}");
                }
            }
            (up, ours) => panic!(
                "{name}: parquet {:?}, parquet_flba {:?}",
                up.map(|_| ()),
                ours.map(|_| ())
            ),
        }
    }
}

/// D9 with one-value batches (`write_batch_size(1)`), so that every
/// release cuts at the same places but for the exemption: 58 cuts a page
/// after every value once one value exceeds the limit; 59.3 and 60 exempt
/// a page's first value (8 values a page).
#[test]
fn d9_delta_first_value_exemption() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), false);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_encoding(Encoding::DELTA_BYTE_ARRAY)
        .set_data_page_size_limit(8)
        .set_write_batch_size(1)
        .build();
    let values = (0..40u8).map(|i| {
        let mut v = vec![7u8; 16];
        v[15] = i;
        Some(v)
    });
    let batch = fsb_batch(&schema, values.collect(), 16);
    assert_eq!(fast_leaves(&schema, &props), [true]);
    let file = both("d9/one_value_batches", &schema, &[batch], props);
    assert_eq!(pages(&file), if V58 { 40 } else { 5 });
}

/// The rows of each data page of `(row_group, column)`.
fn page_rows(file: &Bytes, row_group: usize) -> Vec<i64> {
    let md = metadata(file);
    let rows = md.row_group(row_group).num_rows();
    let starts: Vec<i64> = common::release::offset_index(&md, row_group, 0)
        .unwrap()
        .page_locations()
        .iter()
        .map(|l| l.first_row_index)
        .collect();
    starts
        .iter()
        .zip(starts.iter().skip(1).chain([&rows]))
        .map(|(a, b)| b - a)
        .collect()
}

/// D19: a nullable column without nulls has compact levels; 59 and 60 cut
/// such a write into batches of `data_page_row_count_limit` levels, 58
/// into batches of `write_batch_size` (pages are cut between batches, so
/// the row limit of 3,000 ends 58's first page at 3 × 1,024 rows).
#[test]
fn d19_compact_levels_batch_size() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), true);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_data_page_row_count_limit(3000)
        .set_write_batch_size(1024)
        .build();
    // No validity buffer at all (all-valid bits in a buffer materialise the
    // levels in every release).
    let values = FixedSizeBinaryArray::try_from_iter((0..5000).map(|i| [i as u8; 16])).unwrap();
    assert!(values.nulls().is_none());
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values) as ArrayRef]).unwrap();
    assert_eq!(fast_leaves(&schema, &props), [true]);
    let file = both("d19", &schema, &[batch], props);
    let want: &[i64] = if V58 { &[3072, 1928] } else { &[3000, 2000] };
    assert_eq!(page_rows(&file, 0), want);
}

/// D20: a batch whose values overflow the page byte budget is written in
/// windows by 59 and 60 (pages of about the limit); 58 writes it whole
/// (a page per batch of `write_batch_size` values).
#[test]
fn d20_byte_budget_windows() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), false);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(4096)
        .build();
    let batch = fsb_batch(
        &schema,
        (0..2000).map(|i| Some(vec![i as u8; 16])).collect(),
        16,
    );
    assert_eq!(fast_leaves(&schema, &props), [true]);
    let file = both("d20", &schema, &[batch], props);
    let rows = page_rows(&file, 0);
    if V58 {
        assert_eq!(rows, [1024, 976]);
    } else {
        // Windows of 257 values (4,096 bytes hold 256; the one crossing the
        // budget is in), restarting with each batch of 1,024 levels: the
        // fourth page takes the first batch's last 253 values and 257 more.
        assert_eq!(rows, [257, 257, 257, 510, 257, 257, 205]);
    }
}

/// D21: parquet 58 holds a dictionary column's data pages back until the
/// dictionary page is written, and its size estimate counts them without
/// their headers; 59 and 60 hand them on at once, headers counted. So
/// `in_progress_size` after many small dictionary pages is below their
/// stored size in 58, above it in 59 and 60 — and row groups split by
/// `max_row_group_bytes` fall elsewhere.
#[test]
fn d21_held_dictionary_pages_in_the_size_estimate() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), true);
    let builder = || {
        WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_data_page_row_count_limit(10)
            .set_write_batch_size(10)
    };
    let batch = fsb_batch(
        &schema,
        (0..100).map(|i| Some(vec![(i % 2) as u8; 16])).collect(),
        16,
    );
    assert_eq!(fast_leaves(&schema, &builder().build()), [true]);
    // The oracle compares `in_progress_size` after every write too.
    let file = both(
        "d21/estimate",
        &schema,
        std::slice::from_ref(&batch),
        builder().build(),
    );
    let mut w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(builder().build())).unwrap();
    w.write(&batch).unwrap();
    let estimate = w.in_progress_size() as i64;
    w.close().unwrap();
    let md = metadata(&file);
    let data_pages: i64 = common::release::offset_index(&md, 0, 0)
        .unwrap()
        .page_locations()
        .iter()
        .map(|l| i64::from(l.compressed_page_size))
        .sum();
    assert_eq!(pages(&file), 10);
    if V58 {
        assert!(estimate < data_pages, "{estimate} vs {data_pages}");
    } else {
        assert!(estimate > data_pages, "{estimate} vs {data_pages}");
    }
    // The byte limit then splits row groups where parquet does.
    let batches: Vec<RecordBatch> = (0..6).map(|_| batch.clone()).collect();
    let props = builder().set_max_row_group_bytes(Some(600)).build();
    let file = both("d21/row_groups", &schema, &batches, props);
    let md = metadata(&file);
    let rows: Vec<i64> = md.row_groups().iter().map(|rg| rg.num_rows()).collect();
    if V58 {
        // The estimate, without the headers, stays under the limit.
        assert_eq!(rows, [600]);
    } else if at_60_2() {
        // 60.2 writes each row group's first row alone (D29).
        assert_eq!(rows, [221, 225, 154]);
    } else {
        assert_eq!(rows, [210, 211, 179]);
    }
}

/// D16: parquet 58 cannot write a run-end-encoded field at all (its schema
/// converter refuses it); 59 and 60 write the values' column.
#[test]
fn d16_run_end_encoded_field() {
    let run_ends = Int32Array::from(vec![2, 5]);
    let values = FixedSizeBinaryArray::try_from_iter([[1u8, 2], [3, 4]].into_iter()).unwrap();
    let ree = arrow_array::RunArray::<Int32Type>::try_new(&run_ends, &values).unwrap();
    let schema = schema1("r", ree.data_type().clone(), true);
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(ree) as ArrayRef]).unwrap();
    let (up, ours) = write_one(&schema, &batch);
    if V58 {
        let (up, ours) = (up.unwrap_err(), ours.unwrap_err());
        assert_eq!(up.to_string(), ours.to_string());
    } else {
        assert_eq!(up.unwrap(), ours.unwrap());
    }
}

/// A `Float32` or `Float64` column of `values` (nulls as `None`).
fn floats(dt: &DataType, values: &[Option<f64>]) -> ArrayRef {
    match dt {
        DataType::Float32 => Arc::new(arrow_array::Float32Array::from_iter(
            values.iter().map(|v| v.map(|x| x as f32)),
        )),
        _ => Arc::new(arrow_array::Float64Array::from_iter(values.iter().copied())),
    }
}

/// A chunk's min and max bytes, if any.
type MinMaxBytes = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A float's little-endian bytes at the column's width.
fn float_bytes(dt: &DataType, x: f64) -> Option<Vec<u8>> {
    Some(match dt {
        DataType::Float32 => (x as f32).to_le_bytes().to_vec(),
        _ => x.to_le_bytes().to_vec(),
    })
}

/// D2–D5 for FLOAT and DOUBLE (as for Float16): a zero min is -0 and a
/// zero max +0 in 58 and 59, NaN skipped (an all-NaN column has no min/max
/// and no column index), no NaN counts, a SIGNED type-defined column order
/// (so the deprecated min/max are written too); 60 orders by IEEE 754 total
/// order, keeps all-NaN min/max, counts NaNs and declares the total order.
#[test]
fn d2_to_d5_floats() {
    let nan = f64::NAN;
    for dt in [DataType::Float32, DataType::Float64] {
        let schema = schema1("x", dt.clone(), true);
        let props = WriterProperties::default();
        assert_eq!(fast_leaves(&schema, &props), [true]);
        let b = |x: f64| float_bytes(&dt, x);
        let cases: [(&str, Vec<Option<f64>>, MinMaxBytes, u64); 4] = [
            (
                "pos_zero_min",
                vec![Some(0.0), Some(1.0), None],
                match BEFORE_60 {
                    true => (b(-0.0), b(1.0)),
                    false => (b(0.0), b(1.0)),
                },
                0,
            ),
            (
                "neg_zero_max",
                vec![Some(-1.0), Some(-0.0)],
                match BEFORE_60 {
                    true => (b(-1.0), b(0.0)),
                    false => (b(-1.0), b(-0.0)),
                },
                0,
            ),
            (
                "nan_and_values",
                vec![Some(nan), Some(2.0), Some(-3.5), Some(nan)],
                (b(-3.5), b(2.0)),
                2,
            ),
            (
                "all_nan",
                vec![Some(nan), None, Some(nan)],
                match BEFORE_60 {
                    true => (None, None),
                    false => (b(nan), b(nan)),
                },
                2,
            ),
        ];
        for (name, values, want, nans) in cases {
            let batch = RecordBatch::try_new(schema.clone(), vec![floats(&dt, &values)]).unwrap();
            let label = format!("d2_d5/{dt}/{name}");
            let file = both(&label, &schema, &[batch], props.clone());
            let md = metadata(&file);
            let stats = column0(&md).statistics().unwrap();
            assert_eq!(stats_min_max(stats), want, "{label}");
            let want_nans = (!BEFORE_60).then_some(nans);
            assert_eq!(nan_count(stats), want_nans, "{label}");
            let index = common::release::column_index(&md, 0, 0);
            assert_eq!(
                index.is_some(),
                !(BEFORE_60 && name == "all_nan"),
                "{label}"
            );
            let order = md.file_metadata().column_order(0);
            match BEFORE_60 {
                true => assert_eq!(order, ColumnOrder::TYPE_DEFINED_ORDER(SortOrder::SIGNED)),
                false => assert_eq!(format!("{order:?}"), "IEEE_754_TOTAL_ORDER", "{label}"),
            }
        }
    }
}

/// D24: the size estimate of an RLE-encoded BOOLEAN page counts the
/// pending values of the open bit-packed run (60) or only its groups
/// already written (58, 59), which moves where a small page limit cuts
/// pages.
#[test]
fn d24_rle_boolean_page_estimate() {
    let schema = schema1("flag", DataType::Boolean, true);
    // Mixed bits stay bit-packed; nulls make the definition levels a
    // buffer, so mini-batches are `write_batch_size` levels (not windows
    // of the byte budget); every page holds a few groups.
    let flags =
        arrow_array::BooleanArray::from_iter((0..2000).map(|i| (i % 7 != 6).then_some(i % 3 == 0)));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(flags) as ArrayRef]).unwrap();
    let props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_data_page_size_limit(10)
        .set_write_batch_size(5)
        .build();
    let file = both("d24", &schema, &[batch], props);
    let want = if BEFORE_60 { 40 } else { 50 };
    assert_eq!(pages(&file), want);
}
/// D25: a dictionary of `Utf8View` (or `BinaryView`), for a dictionary-typed
/// field or a plain `Utf8View` one: 60 writes it; 59 and 58 panic in their
/// byte-array writer, where this crate returns an error naming the field.
#[test]
fn d25_dictionary_of_views() {
    use arrow_array::builder::StringViewBuilder;
    let mut views = StringViewBuilder::new();
    for v in ["a", "a string longer than twelve bytes", ""] {
        views.append_value(v);
    }
    let keys = Int32Array::from(vec![Some(1), None, Some(0), Some(2), Some(1)]);
    let dict: ArrayRef =
        Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(views.finish())).unwrap());
    let batch_schema = schema1("v", dict.data_type().clone(), true);
    let batch = RecordBatch::try_new(batch_schema.clone(), vec![dict]).unwrap();
    for schema in [batch_schema, schema1("v", DataType::Utf8View, true)] {
        let name = format!("d25/{}", schema.field(0).data_type());
        if BEFORE_60 {
            let upstream = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut w = UpstreamWriter::try_new(Vec::new(), schema.clone(), None).unwrap();
                w.write(&batch)
            }));
            assert!(upstream.is_err(), "{name}: parquet 59 and 58 panic");
            let mut ours = ArrowWriter::try_new(Vec::new(), schema.clone(), None).unwrap();
            let err = ours.write(&batch).expect_err("an error, not a panic");
            assert!(err.to_string().contains("'v'"), "{name}: {err}");
        } else {
            both(
                &name,
                &schema,
                std::slice::from_ref(&batch),
                WriterProperties::default(),
            );
        }
    }
}

/// Both writers on `batches`: each file, or its error or panic message.
fn written_or_failed(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let up = catch::quiet_catch(|| {
        let mut w = UpstreamWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))?;
        for b in batches {
            w.write(b)?;
        }
        w.into_inner()
    });
    let ours = catch::quiet_catch(|| {
        let mut w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))?;
        for b in batches {
            w.write(b)?;
        }
        w.into_inner()
    });
    let flatten = |r: Result<parquet::errors::Result<Vec<u8>>, String>, who: &str| match r {
        Ok(Ok(file)) => Ok(file),
        Ok(Err(e)) => Err(format!("error: {e}")),
        Err(p) => Err(format!("{who} panicked: {p}")),
    };
    (flatten(up, "parquet"), flatten(ours, "parquet_flba"))
}

/// D26: a column encoding that the column's type cannot take, as the
/// dictionary's fallback (writer version 2, dictionary on, few distinct
/// values). 60 refuses it when the column writer is created; 59 and 58
/// create an encoder for RLE and DELTA_LENGTH_BYTE_ARRAY on any type (and
/// DELTA_BYTE_ARRAY on INT32/INT64) and fail only when it is given values,
/// so a column whose dictionary never falls back is written normally —
/// and where they panic (the dictionary falls back, or there is none),
/// parquet_flba returns an error naming the column. A column of nulls
/// only, DELTA_LENGTH_BYTE_ARRAY and no dictionary, is even written by
/// 59 and 58 (pages of no lengths).
#[test]
fn d26_fallback_encoding_checked_when_the_writer_is_created() {
    let types = [
        DataType::FixedSizeBinary(16),
        DataType::Decimal128(37, 18),
        DataType::Decimal64(18, 2),
    ];
    let encodings = [
        Encoding::RLE,
        Encoding::DELTA_LENGTH_BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY,
    ];
    for data_type in &types {
        let flba = !matches!(data_type, DataType::Decimal64(..));
        let schema = schema1("c", data_type.clone(), true);
        let few = |n: usize| -> RecordBatch {
            let values = (0..n).map(|i| (i % 3 != 2).then_some(i as i64 % 5));
            RecordBatch::try_new(schema.clone(), vec![column_of(data_type, values)]).unwrap()
        };
        let many = {
            let values = (0..4000).map(|i| Some(i as i64 * 7919));
            RecordBatch::try_new(schema.clone(), vec![column_of(data_type, values)]).unwrap()
        };
        let nulls = RecordBatch::try_new(
            schema.clone(),
            vec![column_of(data_type, (0..300).map(|_| None))],
        )
        .unwrap();
        for encoding in encodings {
            // DELTA_BYTE_ARRAY on FIXED_LEN_BYTE_ARRAY is a usable encoding.
            let usable = flba && encoding == Encoding::DELTA_BYTE_ARRAY;
            let name = format!("{} {encoding}", type_name(data_type));
            let props = |dictionary: bool| {
                WriterProperties::builder()
                    .set_writer_version(WriterVersion::PARQUET_2_0)
                    .set_dictionary_enabled(dictionary)
                    .set_dictionary_page_size_limit(1024)
                    .set_data_page_row_count_limit(100)
                    .set_write_batch_size(50)
                    .set_encoding(encoding)
                    .build()
            };
            // The dictionary never falls back.
            let batches = [few(1000), few(500)];
            if usable || BEFORE_60 {
                let file = both(&name, &schema, &batches, props(true));
                // No page fell back (RLE is also the levels' encoding).
                let encodings = column0(&metadata(&file)).encodings().collect::<Vec<_>>();
                assert!(
                    encoding == Encoding::RLE || !encodings.contains(&encoding),
                    "{name}: {encodings:?}"
                );
            } else {
                let (up, ours) = written_or_failed(&schema, &batches, &props(true));
                // (parquet's column writer unwraps the error: a panic.)
                let up = up.expect_err(&name);
                let ours = ours.expect_err(&name);
                assert!(
                    up.contains("is not supported for physical type"),
                    "{name}: parquet {up}"
                );
                assert!(!ours.contains("panicked"), "{name}: {ours}");
                assert!(ours.contains("Column 'c'"), "{name}: {ours}");
            }
            if usable {
                continue;
            }
            // The dictionary falls back, or there is none: 59 and 58 panic
            // at the first value (60 refused the writer already).
            for (how, batches, props) in [
                ("falls back", vec![many.clone()], props(true)),
                ("no dictionary", vec![few(10)], props(false)),
            ] {
                let (up, ours) = written_or_failed(&schema, &batches, &props);
                let up = up.expect_err(&format!("{name}, {how}: parquet wrote it"));
                let ours = ours.expect_err(&format!("{name}, {how}: parquet_flba wrote it"));
                assert!(
                    up.contains("panicked")
                        && (BEFORE_60 || up.contains("is not supported for physical type")),
                    "{name}, {how}: parquet {up}"
                );
                assert!(
                    ours.starts_with("error: NYI") && ours.contains("Column 'c'"),
                    "{name}, {how}: {ours}"
                );
            }
            // Nulls only, no dictionary: 59 and 58 write DELTA_LENGTH_BYTE_ARRAY
            // pages of no values on FIXED_LEN_BYTE_ARRAY and fail otherwise.
            let (up, ours) =
                written_or_failed(&schema, std::slice::from_ref(&nulls), &props(false));
            let written = BEFORE_60 && flba && encoding == Encoding::DELTA_LENGTH_BYTE_ARRAY;
            match (up, ours) {
                (Ok(up), Ok(ours)) if written => {
                    assert!(up == ours, "{name}, nulls only: files differ");
                    let file = Bytes::from(up);
                    let got = column0(&metadata(&file)).encodings().collect::<Vec<_>>();
                    assert!(got.contains(&encoding), "{name}, nulls only: {got:?}");
                }
                (Err(up), Err(ours)) if !written => {
                    assert!(!ours.contains("panicked"), "{name}, nulls only: {ours}");
                    assert!(!up.is_empty());
                }
                (up, ours) => panic!(
                    "{name}, nulls only: parquet {:?}, parquet_flba {:?}",
                    up.map(|_| ()),
                    ours.map(|_| ())
                ),
            }
        }
    }
}

/// A column of `data_type` (FixedSizeBinary(16) or a decimal) holding
/// `values`, each a small integer made into that type.
fn column_of(data_type: &DataType, values: impl Iterator<Item = Option<i64>>) -> ArrayRef {
    match data_type {
        DataType::FixedSizeBinary(16) => fsb_from(
            16,
            values
                .map(|v| v.map(|v| (v as i128).to_le_bytes().to_vec()))
                .collect(),
        ),
        DataType::Decimal128(p, s) => Arc::new(
            Decimal128Array::from_iter(values.map(|v| v.map(i128::from)))
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        DataType::Decimal64(p, s) => Arc::new(
            Decimal64Array::from_iter(values)
                .with_precision_and_scale(*p, *s)
                .unwrap(),
        ),
        other => panic!("no column of {other}"),
    }
}
