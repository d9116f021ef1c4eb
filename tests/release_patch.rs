//! The byte-level differences between parquet 60.1 and 60.2 that this crate
//! follows (`docs/releases.md`, rows D27–D31), one test each: the case is
//! written by the selected release's `parquet::arrow::ArrowWriter` and by
//! `parquet_flba::ArrowWriter` (identical files required, every leaf on the
//! fast path), then the resolved release's own behaviour is asserted. 60.2
//! changed these rules; 60.1, 59 and 58 share the old ones, so the tests
//! run under every release feature and every 60 patch the lock file holds.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, ListArray, RecordBatch};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use common::*;
use parquet::arrow::{ArrowSchemaConverter, ArrowWriter as UpstreamWriter};
use parquet::basic::Encoding;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet_flba::ArrowWriter;

fn fsb16(i: usize) -> Vec<u8> {
    vec![i as u8; 16]
}

/// D27: 60.2 lists RLE among a chunk's encodings only for a column with
/// levels; a REQUIRED column's chunk lists its value encodings alone.
#[test]
fn d27_rle_listed_only_with_levels() {
    for nullable in [false, true] {
        let schema = schema1("u", DataType::FixedSizeBinary(16), nullable);
        let values = (0..100).map(|i| Some(fsb16(i % 7))).collect();
        let batch = RecordBatch::try_new(schema.clone(), vec![fsb_from(16, values)]).unwrap();
        let file = both("d27", &schema, &[batch], WriterProperties::default());
        let md = metadata(&file);
        let encodings: Vec<Encoding> = md.row_group(0).column(0).encodings().collect();
        let listed = encodings.contains(&Encoding::RLE);
        assert_eq!(
            listed,
            nullable || !at_60_2(),
            "nullable {nullable}: {encodings:?}"
        );
    }
}

/// A `List<FixedSizeBinary(16)>` column (nullable lists and elements).
fn list_of_fsb(rows: &[Option<Vec<Option<Vec<u8>>>>]) -> (SchemaRef, RecordBatch) {
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(16), true));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "l",
        DataType::List(item.clone()),
        true,
    )]));
    let flat: Vec<Option<Vec<u8>>> = rows.iter().flatten().flatten().cloned().collect();
    let offsets = OffsetBuffer::from_lengths(rows.iter().map(|r| r.as_ref().map_or(0, Vec::len)));
    let nulls = NullBuffer::from(rows.iter().map(Option::is_some).collect::<Vec<_>>());
    let list = ListArray::new(item, offsets, fsb_from(16, flat), Some(nulls));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list) as ArrayRef]).unwrap();
    (schema, batch)
}

/// D28: a page is a null page of the column index when all its levels are
/// nulls (60.2), not when its nulls equal its rows (before): a page of two
/// rows, `[v, null]` and `null`, has two nulls and a value.
#[test]
fn d28_null_page_by_levels() {
    let v = fsb16(9);
    // Two rows, two nulls, one value: a null page before 60.2.
    let (schema, batch) = list_of_fsb(&[Some(vec![Some(v.clone()), None]), None]);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .build();
    let file = both("d28 rows", &schema, &[batch], props.clone());
    let index = common::release::column_index(&metadata(&file), 0, 0);
    match at_60_2() {
        true => assert!(!index.expect("a column index").is_null_page(0)),
        false => assert!(index.expect("a column index").is_null_page(0)),
    }
    // One row of two null elements: a null page in 60.2; before, not a
    // null page and without min/max, so the chunk has no column index.
    let (schema, batch) = list_of_fsb(&[Some(vec![None, None])]);
    let file = both("d28 levels", &schema, &[batch], props);
    let index = common::release::column_index(&metadata(&file), 0, 0);
    match at_60_2() {
        true => assert!(index.expect("a column index").is_null_page(0)),
        false => assert!(index.is_none()),
    }
}

/// D29: with a byte limit on row groups, 60.2 writes a batch's first row
/// into an empty row group alone, then splits the rest by the size of that
/// row; before, the first batch filled the row group whole.
#[test]
fn d29_row_group_bytes_first_row_alone() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), false);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_max_row_group_bytes(Some(4000))
        .build();
    let values = (0..1000).map(|i| Some(fsb16(i))).collect();
    let batch = RecordBatch::try_new(schema.clone(), vec![fsb_from(16, values)]).unwrap();
    let file = both("d29", &schema, &[batch], props);
    let md = metadata(&file);
    let rows: Vec<i64> = md.row_groups().iter().map(|rg| rg.num_rows()).collect();
    assert_eq!(rows.iter().sum::<i64>(), 1000);
    match at_60_2() {
        true => assert!(rows.len() > 1 && rows[0] < 1000, "{rows:?}"),
        false => assert_eq!(rows, [1000]),
    }
}

/// D30: a byte-budget window sized in levels holds at most twice the values
/// that fit the budget in 60.2: 100 values followed by 924 nulls no longer
/// land in one window (and so one page) of 113 levels.
#[test]
fn d30_level_windows_capped_by_values() {
    let schema = schema1("u", DataType::FixedSizeBinary(16), true);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(160)
        .build();
    let values = (0..1024)
        .map(|i| (i < 100).then(|| fsb16(i)))
        .collect::<Vec<_>>();
    let batch = RecordBatch::try_new(schema.clone(), vec![fsb_from(16, values)]).unwrap();
    let file = both("d30", &schema, &[batch], props);
    let md = metadata(&file);
    let pages = common::release::offset_index(&md, 0, 0)
        .unwrap()
        .page_locations()
        .len();
    // Before 60.2 the first window (113 levels) holds all 100 values; in
    // 60.2 windows hold at most 22, so the values take several pages.
    eprintln!("d30: {pages} pages");
    match at_60_2() {
        true => assert!(pages >= 5, "{pages} pages"),
        false => assert!(pages <= 2, "{pages} pages"),
    }
}

/// D31: a column chunk of no rows gets no dictionary page in 60.2 (one row
/// group written through the column writer API, its writers closed without
/// a write; the harness checks that each chunk came from the planned writer).
#[test]
fn d31_empty_chunk_without_dictionary_page() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("u", DataType::FixedSizeBinary(16), true),
        Field::new("i", DataType::Int64, true),
    ]));
    let props = WriterProperties::default();
    assert_kinds_fast("d31", &schema, &props);
    let empty_row_group = [Vec::new()];
    let up = common::up::write_parallel(&schema, &empty_row_group, props.clone(), false).unwrap();
    let ours = common::flba::write_parallel(&schema, &empty_row_group, props, false).unwrap();
    assert!(
        up.bytes == ours.bytes,
        "{:?}",
        compare_files(&up.bytes, &ours.bytes)
    );
    let md = metadata(&Bytes::from(up.bytes));
    // The Int64 column (FIXED_LEN_BYTE_ARRAY has no dictionary under
    // PARQUET_1_0 before 60, D1).
    let dictionary = md.row_group(0).column(1).dictionary_page_offset();
    assert_eq!(dictionary.is_some(), !at_60_2(), "{dictionary:?}");
    // Nothing was written: the row group has no rows either way.
    assert_eq!(md.row_group(0).num_rows(), 0);
}

/// A schema with a map whose key is nullable when `nullable_key`.
fn map_schema(nullable_key: bool) -> SchemaRef {
    let entries = Field::new(
        "entries",
        DataType::Struct(
            vec![
                Field::new("key", DataType::Utf8, nullable_key),
                Field::new("value", DataType::Int64, true),
            ]
            .into(),
        ),
        false,
    );
    Arc::new(Schema::new(vec![Field::new(
        "m",
        DataType::Map(Arc::new(entries), false),
        true,
    )]))
}

/// D32: 60.2's `ArrowWriter::try_new` refuses a nullable map key before
/// anything else, so an explicit Parquet schema no longer skips the rule
/// (before, only the schema converter applied it). The crate's writer
/// follows; its `ArrowRowGroupWriterFactory::try_new` checks it under every
/// release.
#[test]
fn d32_map_keys_checked_first() {
    let descr = ArrowSchemaConverter::new()
        .convert(&map_schema(false))
        .unwrap();
    let schema = map_schema(true);
    let up = UpstreamWriter::try_new_with_options(
        Vec::new(),
        schema.clone(),
        parquet::arrow::arrow_writer::ArrowWriterOptions::new().with_parquet_schema(descr.clone()),
    )
    .map(|_| ());
    let ours = ArrowWriter::try_new_with_options(
        Vec::new(),
        schema.clone(),
        parquet_flba::ArrowWriterOptions::new().with_parquet_schema(descr.clone()),
    )
    .map(|_| ());
    match (&up, &ours) {
        (Ok(()), Ok(())) => assert!(!at_60_2()),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string());
            assert!(
                at_60_2() && a.to_string().contains("must be non-nullable"),
                "{a}"
            );
        }
        _ => panic!("parquet: {up:?}, parquet_flba: {ours:?}"),
    }
    // The factory's `try_new`, under every release.
    let mut out = Vec::new();
    let writer = SerializedFileWriter::new(
        &mut out,
        descr.root_schema_ptr(),
        Arc::new(WriterProperties::default()),
    )
    .unwrap();
    let err = parquet_flba::ArrowRowGroupWriterFactory::try_new(&writer, schema).unwrap_err();
    assert!(
        err.to_string().contains("'key' must be non-nullable"),
        "{err}"
    );
    assert!(parquet_flba::ArrowRowGroupWriterFactory::try_new(&writer, map_schema(false)).is_ok());
    // The map's two leaves against three fields.
    let three = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Int64, true),
    ]));
    let err = parquet_flba::ArrowRowGroupWriterFactory::try_new(&writer, three).unwrap_err();
    assert!(err.to_string().contains("maps to 3 leaf columns"), "{err}");
}
