//! Differential tests at real sizes, with `parquet`'s default limits.
//!
//! The other suites use small pages and row groups so that a few thousand
//! rows cross every boundary. Here nothing is shrunk: 2,500,000 rows in
//! batches of 131,071 (so that row-group cuts fall inside batches) go through
//! `parquet::arrow::ArrowWriter` and `parquet_flba::ArrowWriter` with the
//! default 1 MiB data-page limit, 1 MiB dictionary-page limit, 1,024-value
//! write batches and 1,048,576-row row groups. The files must be
//! byte-identical and read back as written (see `tests/common`).
//!
//! Every FLBA kind is there: `FixedSizeBinary(16)` (UUID-like),
//! `Decimal128(38,10)` with high cardinality (its dictionary passes 1 MiB
//! after about 65,000 values, so the column falls back to PLAIN in the middle
//! of the first column chunk) and with 5,000 distinct values (dictionary
//! throughout), `Decimal256(76,10)`, `Float16`, `Interval(YearMonth)` and
//! `Interval(DayTime)`; and the fixed-width primitives `Timestamp(µs, UTC)`,
//! `Float64` and `Boolean`. Each test also checks, on the file, that these
//! boundaries were really crossed: three row groups of 1,048,576 /
//! 1,048,576 / 402,848 rows and dictionary-then-fallback data pages in the
//! high-cardinality chunks. (Data pages are cut by parquet's default
//! 20,000-row page limit before they reach 1 MiB, for values this narrow.)
//!
//! The dependencies (`parquet`, `arrow`, codecs) are built with
//! optimisations in the test profile (see `[profile.dev.package."*"]` in
//! Cargo.toml), which keeps these tests within a few minutes in
//! `cargo test`.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, IntervalUnit, Schema, SchemaRef};
use bytes::Bytes;
use common::*;
use parquet::basic::{Compression, Encoding, PageType, ZstdLevel};
use parquet::file::metadata::ParquetMetaData;
use parquet::file::properties::{CdcOptions, WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;

/// Rows per test: two full row groups and part of a third.
const ROWS: usize = 2_500_000;

/// Rows per batch: not a divisor of the row-group size, so row groups are
/// cut inside batches.
const BATCH_ROWS: usize = 131_071;

/// parquet's default row-group size.
const ROW_GROUP_ROWS: usize = 1024 * 1024;

/// Columns whose dictionary overflows the 1 MiB limit in the first chunk.
const FALLBACK_COLUMNS: [&str; 3] = ["uuid", "price", "big"];

/// One column of every FLBA kind (two decimals of different cardinality).
fn flba_fields() -> Vec<(Field, Spec)> {
    let nullable = Spec::new(Nulls::Density(0.1));
    vec![
        (
            Field::new("uuid", DataType::FixedSizeBinary(16), true),
            nullable,
        ),
        (
            Field::new("price", DataType::Decimal128(38, 10), true),
            nullable,
        ),
        (
            Field::new("qty", DataType::Decimal128(38, 10), false),
            Spec::new(Nulls::Absent).distinct(5_000),
        ),
        (
            Field::new("big", DataType::Decimal256(76, 10), true),
            Spec::new(Nulls::Runs(40)),
        ),
        (Field::new("half", DataType::Float16, true), nullable),
        (
            Field::new("ym", DataType::Interval(IntervalUnit::YearMonth), false),
            Spec::new(Nulls::Absent),
        ),
        (
            Field::new("dt", DataType::Interval(IntervalUnit::DayTime), true),
            nullable,
        ),
        // Fixed-width primitives: a timestamp of many distinct values, a
        // float with NaNs, zeros and infinities, a boolean.
        (
            Field::new(
                "ts",
                DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, Some("UTC".into())),
                false,
            ),
            Spec::new(Nulls::Absent),
        ),
        (Field::new("x", DataType::Float64, true), nullable),
        (
            Field::new("flag", DataType::Boolean, true),
            Spec::new(Nulls::Runs(40)),
        ),
    ]
}

/// `ROWS` rows of `fields` in batches of `BATCH_ROWS`.
fn data(name: &str, fields: &[(Field, Spec)]) -> (SchemaRef, Vec<RecordBatch>) {
    let schema = Arc::new(Schema::new(
        fields.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
    ));
    let specs: Vec<Spec> = fields.iter().map(|(_, s)| *s).collect();
    let mut g = Gen::new(name);
    let mut batches = Vec::new();
    let mut left = ROWS;
    while left > 0 {
        let n = left.min(BATCH_ROWS);
        batches.push(g.batch_with(&schema, n, &specs));
        left -= n;
    }
    (schema, batches)
}

/// Writes with both writers, compares, reads back; returns parquet_flba's
/// file for the checks on its layout.
fn identical(name: &str, fields: &[(Field, Spec)], props: WriterProperties) -> Vec<u8> {
    let (schema, batches) = data(name, fields);
    let opts = Opts::props(props);
    if let Err(e) = check_identical(name, &schema, &batches, &opts) {
        panic!("{e}");
    }
    // Written a second time for the layout checks: `check_identical` keeps
    // neither file.
    flba::write(&schema, &batches, &opts)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .bytes
}

/// The file's metadata, with the page index.
fn metadata(bytes: &[u8]) -> Arc<ParquetMetaData> {
    // Page encoding statistics in full (the reader's default keeps only a
    // mask of the encodings).
    let options = ReadOptionsBuilder::new()
        .with_page_index()
        .with_encoding_stats_as_mask(false)
        .build();
    let reader =
        SerializedFileReader::new_with_options(Bytes::copy_from_slice(bytes), options).unwrap();
    Arc::new(reader.metadata().clone())
}

/// Three row groups of the default size (the last one partial).
fn assert_row_groups(name: &str, md: &ParquetMetaData) {
    let rows: Vec<i64> = md.row_groups().iter().map(|rg| rg.num_rows()).collect();
    let full = ROW_GROUP_ROWS as i64;
    assert_eq!(
        rows,
        vec![full, full, ROWS as i64 - 2 * full],
        "{name}: row groups"
    );
}

/// In the first row group, `column`'s data pages start dictionary-encoded
/// and continue without (PLAIN, or DELTA_BYTE_ARRAY with V2 pages): the
/// dictionary passed its limit mid-chunk.
fn assert_dictionary_fallback(name: &str, md: &ParquetMetaData, column: &str) {
    let rg = md.row_group(0);
    let idx = (0..rg.num_columns())
        .find(|&i| rg.column(i).column_path().string() == column)
        .unwrap_or_else(|| panic!("{name}: no column {column}"));
    let chunk = rg.column(idx);
    let stats = chunk
        .page_encoding_stats()
        .unwrap_or_else(|| panic!("{name}: {column} has no page encoding stats"));
    // Data pages by whether they are dictionary-encoded; the fallback is
    // PLAIN with V1 pages, DELTA_BYTE_ARRAY with V2.
    let data_pages = |dictionary: bool| {
        stats
            .iter()
            .filter(|s| {
                matches!(s.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2)
                    && matches!(
                        s.encoding,
                        Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
                    ) == dictionary
            })
            .map(|s| s.count)
            .sum::<i32>()
    };
    let dict = data_pages(true);
    let plain = data_pages(false);
    let v1 = stats.iter().any(|s| s.page_type == PageType::DATA_PAGE);
    if v1 && !common::release::PARQUET_60 {
        // parquet 59 gives FIXED_LEN_BYTE_ARRAY no dictionary under
        // PARQUET_1_0 (docs/releases.md D1).
        assert!(
            dict == 0 && plain > 0,
            "{name}: column {column} has a dictionary under PARQUET_1_0 with parquet 59 \
             ({dict} dictionary-encoded data pages, {plain} others)"
        );
        return;
    }
    assert!(
        dict > 0 && plain > 0,
        "{name}: column {column} should fall back from dictionary mid-chunk \
         ({dict} dictionary-encoded data pages, {plain} others)"
    );
}

/// The layout checks of a file written without compression or CDC.
fn assert_default_layout(name: &str, bytes: &[u8]) {
    let md = metadata(bytes);
    assert_row_groups(name, &md);
    for column in FALLBACK_COLUMNS {
        assert_dictionary_fallback(name, &md, column);
    }
}

#[test]
fn default_properties_v1() {
    let bytes = identical("large_v1", &flba_fields(), WriterProperties::default());
    assert_default_layout("large_v1", &bytes);
}

#[test]
fn default_properties_v2() {
    let props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .build();
    let bytes = identical("large_v2", &flba_fields(), props);
    assert_default_layout("large_v2", &bytes);
}

#[test]
fn zstd_v2_with_statistics_and_bloom_filters() {
    let props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .set_bloom_filter_enabled(true)
        .build();
    let bytes = identical("large_zstd_v2", &flba_fields(), props);
    let md = metadata(&bytes);
    assert_row_groups("large_zstd_v2", &md);
    for column in FALLBACK_COLUMNS {
        assert_dictionary_fallback("large_zstd_v2", &md, column);
    }
}

#[test]
fn zstd_v1() {
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::default()))
        .build();
    let bytes = identical("large_zstd_v1", &flba_fields(), props);
    assert_row_groups("large_zstd_v1", &metadata(&bytes));
}

/// Content-defined chunking with parquet's default chunk sizes, every leaf
/// FLBA (every column chunked by this crate).
#[test]
fn cdc_all_flba() {
    let props = WriterProperties::builder()
        .set_content_defined_chunking(Some(CdcOptions::default()))
        .build();
    let bytes = identical("large_cdc", &flba_fields(), props);
    let md = metadata(&bytes);
    assert_row_groups("large_cdc", &md);
    for column in FALLBACK_COLUMNS {
        assert_dictionary_fallback("large_cdc", &md, column);
    }
}

/// Content-defined chunking on a mixed table: the Null and Utf8 columns
/// go through the inner `parquet` writer and are spliced in; V2 pages.
#[test]
fn cdc_mixed_table_v2() {
    let mut fields = flba_fields();
    fields.insert(
        1,
        (
            Field::new("note", DataType::Null, true),
            Spec::new(Nulls::Absent),
        ),
    );
    fields.push((
        Field::new("tag", DataType::Utf8, true),
        Spec::new(Nulls::Density(0.3)).distinct(300),
    ));
    let props = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_2_0)
        .set_content_defined_chunking(Some(CdcOptions::default()))
        .build();
    let bytes = identical("large_cdc_mixed", &fields, props);
    assert_row_groups("large_cdc_mixed", &metadata(&bytes));
}

/// The column-level API (`ArrowRowGroupWriterFactory` → `ArrowColumnWriter`
/// → `append_to_row_group`) with default limits: two row groups of
/// 1,048,576 rows, written column by column.
#[test]
fn column_level_api() {
    let (schema, batches) = data("large_columns", &flba_fields());
    // Re-cut the batches into two row groups of the default size.
    let all: Vec<ArrayRef> = (0..schema.fields().len())
        .map(|c| {
            let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::concat::concat(&parts).unwrap()
        })
        .collect();
    let group = |g: usize| {
        let cols = all
            .iter()
            .map(|a| a.slice(g * ROW_GROUP_ROWS, ROW_GROUP_ROWS))
            .collect();
        vec![RecordBatch::try_new(schema.clone(), cols).unwrap()]
    };
    let groups = vec![group(0), group(1)];
    drop(batches);
    for via_into_serialized in [false, true] {
        let up = up::write_parallel(&schema, &groups, Default::default(), via_into_serialized)
            .unwrap_or_else(|e| panic!("upstream: {e}"));
        let fl = flba::write_parallel(&schema, &groups, Default::default(), via_into_serialized)
            .unwrap_or_else(|e| panic!("parquet_flba: {e}"));
        if let Some(diff) = compare_files(&up.bytes, &fl.bytes) {
            panic!("column-level API (via_into_serialized={via_into_serialized}): {diff}");
        }
        assert_eq!(up.closes, fl.closes, "column close results");
        let md = metadata(&fl.bytes);
        assert_eq!(md.num_row_groups(), 2);
        for column in FALLBACK_COLUMNS {
            assert_dictionary_fallback("large_columns", &md, column);
        }
    }
}
