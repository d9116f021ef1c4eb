//! Writer settings not covered elsewhere, each checked byte for byte against
//! `parquet::arrow::ArrowWriter` and on the file's metadata, on every write
//! path: FLBA columns alone (this crate's column writers), a mixed table
//! (FLBA and `parquet`'s own columns), and a mixed table with
//! content-defined chunking (whose footer this crate writes itself).
//!
//! * `set_sorting_columns`: recorded in every row group's metadata.
//! * `set_bloom_filter_properties` / `set_column_bloom_filter_properties`:
//!   per-column FPP and NDV, which size each filter.
//! * `Interval(MonthDayNano)`: rejected as `parquet` rejects it (same error
//!   kind and message, at the same call).

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, IntervalMonthDayNanoArray, RecordBatch};
use arrow_buffer::IntervalMonthDayNano;
use arrow_schema::{DataType, Field, IntervalUnit, Schema, SchemaRef};
use bytes::Bytes;
use common::*;
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, SortingColumn};
use parquet::file::properties::{
    CdcOptions, WriterProperties, WriterPropertiesBuilder, WriterVersion,
};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::ColumnPath;

/// FLBA columns only.
fn flba_schema() -> SchemaRef {
    schema_of(&[
        ("uuid", DataType::FixedSizeBinary(16), false),
        ("price", DataType::Decimal128(38, 10), true),
        ("big", DataType::Decimal256(60, 4), true),
        ("half", DataType::Float16, true),
    ])
}

/// FLBA columns next to `parquet`'s own.
fn mixed_schema() -> SchemaRef {
    schema_of(&[
        ("id", DataType::Int64, false),
        ("uuid", DataType::FixedSizeBinary(16), false),
        ("price", DataType::Decimal128(38, 10), true),
        ("name", DataType::Utf8, true),
        ("half", DataType::Float16, true),
    ])
}

/// The write paths: (name, schema, base properties).
fn paths() -> Vec<(&'static str, SchemaRef, WriterPropertiesBuilder)> {
    let cdc = || WriterProperties::builder().set_content_defined_chunking(Some(small_cdc()));
    vec![
        ("flba", flba_schema(), WriterProperties::builder()),
        (
            "flba_v2",
            flba_schema(),
            WriterProperties::builder().set_writer_version(WriterVersion::PARQUET_2_0),
        ),
        ("mixed", mixed_schema(), WriterProperties::builder()),
        ("flba_cdc", flba_schema(), cdc()),
        ("mixed_cdc", mixed_schema(), cdc()),
        (
            "mixed_cdc_default_chunks",
            mixed_schema(),
            WriterProperties::builder().set_content_defined_chunking(Some(CdcOptions::default())),
        ),
    ]
}

/// Batches for `schema`: three of them, a row-group limit of 700 rows so
/// that there are several row groups.
fn batches(name: &str, schema: &SchemaRef) -> Vec<RecordBatch> {
    Gen::new(name).batches(schema, &[600, 500, 400], &Spec::new(Nulls::Density(0.2)))
}

fn metadata(bytes: &[u8]) -> Arc<ParquetMetaData> {
    let reader = SerializedFileReader::new(Bytes::copy_from_slice(bytes)).unwrap();
    Arc::new(reader.metadata().clone())
}

/// The file written by parquet_flba for these options.
fn flba_file(schema: &SchemaRef, batches: &[RecordBatch], props: WriterProperties) -> Vec<u8> {
    flba::write(schema, batches, &Opts::props(props))
        .unwrap_or_else(|e| panic!("{e}"))
        .bytes
}

#[test]
fn sorting_columns_on_every_path() {
    let sorting = vec![
        SortingColumn {
            column_idx: 1,
            descending: true,
            nulls_first: false,
        },
        SortingColumn {
            column_idx: 0,
            descending: false,
            nulls_first: true,
        },
    ];
    let mut f = Failures::new();
    let mut checked = Vec::new();
    for (path, schema, builder) in paths() {
        let name = format!("sorting_columns/{path}");
        let batches = batches(&name, &schema);
        let props = builder
            .set_sorting_columns(Some(sorting.clone()))
            .set_max_row_group_row_count(Some(700))
            .build();
        f.identical(&name, &schema, &batches, props.clone());
        checked.push((name, schema, batches, props));
    }
    f.finish();
    for (name, schema, batches, props) in checked {
        let md = metadata(&flba_file(&schema, &batches, props));
        assert!(md.num_row_groups() >= 2, "{name}: row groups");
        for rg in md.row_groups() {
            assert_eq!(
                rg.sorting_columns(),
                Some(&sorting),
                "{name}: sorting columns of a row group"
            );
        }
    }
}

/// Bloom filter sizes of the first row group, by column name.
fn bloom_lengths(md: &ParquetMetaData) -> Vec<(String, Option<i32>)> {
    let rg = md.row_group(0);
    rg.columns()
        .iter()
        .map(|c| (c.column_path().string(), c.bloom_filter_length()))
        .collect()
}

#[test]
fn bloom_filter_properties_per_column() {
    let col = |n: &str| ColumnPath::from(n);
    let mut f = Failures::new();
    let mut checked = Vec::new();
    for (path, schema, builder) in paths() {
        let name = format!("bloom_filter_properties/{path}");
        let batches = batches(&name, &schema);
        // (`Props59`: parquet 58 sets FPP and NDV one by one.)
        let props = builder
            .bloom_properties(0.2, Some(100))
            .column_bloom_properties(col("price"), 0.001, Some(20_000))
            .column_bloom_properties(col("half"), 0.05, None)
            .set_column_bloom_filter_enabled(col("uuid"), false)
            .build();
        f.identical(&name, &schema, &batches, props.clone());
        checked.push((name, schema, batches, props));
    }
    f.finish();
    for (name, schema, batches, props) in checked {
        let lengths = bloom_lengths(&metadata(&flba_file(&schema, &batches, props)));
        let of = |c: &str| {
            lengths
                .iter()
                .find(|(n, _)| n == c)
                .unwrap_or_else(|| panic!("{name}: no column {c}"))
                .1
        };
        // `parquet` keeps the file-wide filter for a column whose own
        // filter is disabled after `set_bloom_filter_properties`: so does
        // this crate (the files are identical).
        let uuid = of("uuid").unwrap_or_else(|| panic!("{name}: uuid has no filter"));
        let price = of("price").unwrap_or_else(|| panic!("{name}: price has no filter"));
        let half = of("half").unwrap_or_else(|| panic!("{name}: half has no filter"));
        println!("{name}: {lengths:?}");
        // 20,000 values at 0.1% take far more room than the file-wide 100
        // values at 20%; `half` has its own FPP.
        assert!(price > 8 * uuid, "{name}: filter sizes {lengths:?}");
        assert_ne!(half, uuid, "{name}: filter sizes {lengths:?}");
        if schema.fields().len() > 4 {
            assert_eq!(of("id"), Some(uuid), "{name}: id has the file-wide filter");
        }
    }
}

/// What a write of `batch` gives: `Ok` or the error's kind and message,
/// at `try_new` or at `write`.
fn outcome<E: std::fmt::Debug>(
    created: Result<E, ParquetError>,
    write: impl FnOnce(E) -> Result<(), ParquetError>,
) -> String {
    match created {
        Err(e) => format!("try_new: {}", kind_and_message(&e)),
        Ok(w) => match write(w) {
            Ok(()) => "ok".into(),
            Err(e) => format!("write: {}", kind_and_message(&e)),
        },
    }
}

fn kind_and_message(e: &ParquetError) -> String {
    let kind = match e {
        ParquetError::General(_) => "General",
        ParquetError::NYI(_) => "NYI",
        ParquetError::EOF(_) => "EOF",
        ParquetError::ArrowError(_) => "ArrowError",
        ParquetError::IndexOutOfBound(..) => "IndexOutOfBound",
        ParquetError::External(_) => "External",
        ParquetError::NeedMoreData(_) => "NeedMoreData",
        _ => "other",
    };
    format!("{kind}: {e}")
}

#[test]
fn interval_month_day_nano_is_rejected_like_parquet() {
    let mdn = DataType::Interval(IntervalUnit::MonthDayNano);
    let array: ArrayRef = Arc::new(IntervalMonthDayNanoArray::from(vec![
        IntervalMonthDayNano::new(1, 2, 3),
        IntervalMonthDayNano::new(-1, 0, i64::MAX),
    ]));
    let ints: ArrayRef = Arc::new(arrow_array::Int64Array::from(vec![1, 2]));
    let dec: ArrayRef = Arc::new(
        arrow_array::Decimal128Array::from(vec![5, 6])
            .with_precision_and_scale(38, 2)
            .unwrap(),
    );
    let cases: Vec<(&str, Vec<(&str, ArrayRef)>)> = vec![
        ("alone", vec![("i", array.clone())]),
        ("with_flba", vec![("d", dec.clone()), ("i", array.clone())]),
        (
            "with_int",
            vec![("n", ints.clone()), ("i", array.clone()), ("d", dec)],
        ),
    ];
    for (name, cols) in cases {
        let fields: Vec<Field> = cols
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect();
        assert!(fields.iter().any(|f| f.data_type() == &mdn));
        let schema = Arc::new(Schema::new(fields));
        let batch =
            RecordBatch::try_new(schema.clone(), cols.into_iter().map(|(_, a)| a).collect())
                .unwrap();
        for (config, props) in [
            ("default", WriterProperties::default()),
            (
                "cdc",
                WriterProperties::builder()
                    .set_content_defined_chunking(Some(CdcOptions::default()))
                    .build(),
            ),
        ] {
            let opts = Opts::props(props);
            let expected = outcome(up::writer(Vec::new(), &schema, &opts), |mut w| {
                w.write(&batch)?;
                w.close().map(|_| ())
            });
            let actual = outcome(flba::writer(Vec::new(), &schema, &opts), |mut w| {
                w.write(&batch)?;
                w.close().map(|_| ())
            });
            assert_ne!(expected, "ok", "{name}/{config}: parquet accepts it");
            assert_eq!(actual, expected, "{name}/{config}");
        }
    }
}

/// An encoding FIXED_LEN_BYTE_ARRAY columns cannot take is refused with an
/// error naming the column (parquet's own FLBA encoder panics or errors
/// without naming it), when the writer is created and at the column level.
#[test]
fn unsupported_encoding_names_the_column() {
    use parquet::basic::Encoding;
    let schema = flba_schema();
    let column = schema.field(0).name().clone();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_column_encoding(
            ColumnPath::from(column.as_str()),
            Encoding::DELTA_BINARY_PACKED,
        )
        .build();
    let outcome =
        parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))
            .and_then(|mut w| {
                for b in batches("unsupported_encoding", &schema) {
                    w.write(&b)?;
                }
                w.close()
            });
    let err = outcome.expect_err("DELTA_BINARY_PACKED is not an FLBA encoding");
    let message = err.to_string();
    assert!(message.contains(&format!("Column '{column}'")), "{message}");
    assert!(message.contains("DELTA_BINARY_PACKED"), "{message}");
}
