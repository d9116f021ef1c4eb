//! Reading a file back: opening it with its indexes, reading its rows as
//! Arrow, and comparing them column by column with the batches written.
//!
//! Shared with the main crate's integration tests (`tests/common`, with
//! `#[path]`): it uses only crates the main crate depends on, and no other
//! module of the harness.

use arrow_array::cast::AsArray;
use arrow_array::types::RunEndIndexType;
use arrow_array::{
    Array, ArrayRef, Int32Array, RecordBatch, RecordBatchReader, RunArray, downcast_run_array,
};
use arrow_schema::{DataType, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::serialized_reader::ReadOptionsBuilder;

/// Open `bytes` with bloom filters, encoding statistics and, when every
/// column chunk has an offset index, the page index.
pub fn open_with_indexes(bytes: &[u8]) -> Result<SerializedFileReader<Bytes>, String> {
    let data = Bytes::copy_from_slice(bytes);
    let plain = SerializedFileReader::new(data.clone()).map_err(|e| format!("open: {e}"))?;
    let all_indexed = plain
        .metadata()
        .row_groups()
        .iter()
        .flat_map(|rg| rg.columns())
        .all(|c| c.offset_index_offset().is_some());
    let mut options = ReadOptionsBuilder::new()
        .with_encoding_stats_as_mask(false)
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .set_read_page_statistics(true)
                .build(),
        );
    if all_indexed {
        options = options.with_page_index();
    }
    SerializedFileReader::new_with_options(data, options.build())
        .map_err(|e| format!("open with page index and bloom filters: {e}"))
}

/// Every row of `bytes` as one batch: read as the schema the file embeds,
/// or as `schema` where given (what the reader can produce: dictionaries
/// of fixed-width values read as their values, for one).
pub fn read_all(bytes: &[u8], schema: Option<SchemaRef>) -> Result<RecordBatch, String> {
    let data = Bytes::copy_from_slice(bytes);
    let reader = match schema {
        Some(schema) => ParquetRecordBatchReaderBuilder::try_new_with_options(
            data,
            ArrowReaderOptions::new().with_schema(schema),
        )
        .and_then(|b| b.with_batch_size(1024).build()),
        None => ParquetRecordBatchReader::try_new(data, 1024),
    }
    .map_err(|e| format!("opening the arrow reader: {e}"))?;
    let read_schema = reader.schema();
    let read: Vec<RecordBatch> = reader
        .collect::<Result<_, _>>()
        .map_err(|e| format!("reading: {e}"))?;
    arrow_select::concat::concat_batches(&read_schema, &read)
        .map_err(|e| format!("concatenating what was read: {e}"))
}

/// A dictionary or run-end encoded array expanded to its values' type;
/// other arrays unchanged.
pub fn materialize(a: &ArrayRef) -> ArrayRef {
    if let Some(d) = a.as_any_dictionary_opt() {
        return arrow_select::take::take(d.values().as_ref(), d.keys(), None)
            .expect("take dictionary values");
    }
    if matches!(a.data_type(), DataType::RunEndEncoded(..)) {
        fn expand<R: RunEndIndexType>(r: &RunArray<R>) -> ArrayRef {
            let idx: Int32Array = (0..r.len())
                .map(|i| r.run_ends().get_physical_index(i) as i32)
                .collect();
            arrow_select::take::take(r.values().as_ref(), &idx, None).expect("take run values")
        }
        return downcast_run_array!(
            a => expand(a),
            t => unreachable!("not run-end encoded: {t}"),
        );
    }
    a.clone()
}

/// `a` relabelled as `target` when the layouts agree (nested field names
/// or nullability differ); unchanged otherwise.
pub fn relabel(a: ArrayRef, target: &DataType) -> ArrayRef {
    if a.data_type() == target {
        return a;
    }
    a.to_data()
        .into_builder()
        .data_type(target.clone())
        .build()
        .map(arrow_array::make_array)
        .unwrap_or(a)
}

/// Compare `read` with the concatenation of `batches` (written with the
/// writer schema `schema`), column by column, dictionaries and run-end
/// encodings expanded. Both sides are relabelled as `target(i)` where it
/// gives a type, and what is read as the type written where only nested
/// field names differ (`coerce_types` renames list items, for one).
pub fn compare_columns(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    read: &RecordBatch,
    target: impl Fn(usize) -> Option<DataType>,
) -> Result<(), String> {
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if read.num_rows() != rows {
        return Err(format!("read {} rows, wrote {rows}", read.num_rows()));
    }
    if read.num_columns() != schema.fields().len() {
        return Err(format!(
            "read {} columns, the schema has {}",
            read.num_columns(),
            schema.fields().len()
        ));
    }
    for (i, field) in schema.fields().iter().enumerate() {
        let target = target(i);
        let as_target = |a: ArrayRef| match &target {
            Some(t) => relabel(a, t),
            None => a,
        };
        let parts: Vec<ArrayRef> = batches
            .iter()
            .map(|b| as_target(materialize(b.column(i))))
            .collect();
        let mut actual = as_target(materialize(read.column(i)));
        let expected = if parts.is_empty() {
            arrow_array::new_empty_array(actual.data_type())
        } else {
            let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
            arrow_select::concat::concat(&refs).map_err(|e| format!("concat input: {e}"))?
        };
        if expected.data_type().equals_datatype(actual.data_type()) {
            actual = relabel(actual, expected.data_type());
        }
        same_column(i, field.name(), &expected, &actual)?;
    }
    Ok(())
}

/// Column `i` (`name`) read back as `actual` where `expected` was written:
/// the same type and values, or which row first differs.
pub fn same_column(
    i: usize,
    name: &str,
    expected: &ArrayRef,
    actual: &ArrayRef,
) -> Result<(), String> {
    if expected.data_type() != actual.data_type() {
        return Err(format!(
            "column {i} ({name}): read back as {}, written as {}",
            actual.data_type(),
            expected.data_type()
        ));
    }
    if expected.as_ref() != actual.as_ref() {
        let row = (0..expected.len())
            .find(|&r| expected.slice(r, 1).as_ref() != actual.slice(r, 1).as_ref())
            .unwrap_or(0);
        return Err(format!(
            "column {i} ({name}) differs at row {row}: wrote {:?}, read {:?}",
            expected.slice(row, 1),
            actual.slice(row, 1)
        ));
    }
    Ok(())
}
