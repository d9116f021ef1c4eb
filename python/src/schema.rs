//! The Arrow schema the file is written with, from the input's, as pyarrow's
//! keywords ask.
//!
//! - `use_compliant_nested_type=True` (pyarrow's default): the element of
//!   every list is named `element` (Parquet's `LogicalTypes.md` layout, as
//!   pyarrow writes it); with `False` the Arrow name is kept (`item` for
//!   pyarrow's and polars' lists).
//! - A map's repeated group is named `key_value`, as pyarrow names it
//!   (parquet would take the Arrow entries field's name, `entries`).
//! - `write_time_adjusted_to_utc=True`: TIME columns are marked adjusted to
//!   UTC (parquet's schema converter reads that from the field's
//!   `adjusted_to_utc` metadata key).
//! - Seconds, which Parquet has no unit for, become milliseconds, as
//!   pyarrow's `coerce_timestamps=None` does: `Timestamp(s)` is written
//!   as `TIMESTAMP(MILLIS)` and `Time32(s)` as `TIME(MILLIS)` (parquet would
//!   write plain integers that readers do not take for times).
//!
//! Renaming copies no values; seconds are multiplied by 1000, and a value
//! that overflows is an error, never a silently wrong or null value.

use crate::errors::{Failure, Result};
use crate::versions::{
    ArrayRef, DataType, Field, FieldRef, Fields, RecordBatch, RecordBatchOptions, Schema,
    SchemaRef, TimeUnit,
};
use crate::versions::{CastOptions, cast_with_options};
use std::sync::Arc;

/// How the input's schema is adjusted before writing.
#[derive(Debug, Clone, Copy)]
pub struct SchemaRules {
    /// Name list elements `element` (`use_compliant_nested_type`).
    pub compliant_nested: bool,
    /// Mark TIME columns adjusted to UTC (`write_time_adjusted_to_utc`).
    pub time_utc: bool,
}

impl SchemaRules {
    /// The schema written for input of `schema`.
    pub fn target(&self, schema: &Schema) -> Schema {
        let fields: Fields = schema.fields().iter().map(|f| self.field(f)).collect();
        Schema::new_with_metadata(fields, schema.metadata().clone())
    }

    fn field(&self, field: &FieldRef) -> FieldRef {
        let data_type = self.data_type(field.data_type());
        let mut out = field.as_ref().clone().with_data_type(data_type);
        if self.time_utc && is_time_with_unit(field.data_type()) {
            out.metadata_mut().insert("adjusted_to_utc", "");
        }
        Arc::new(out)
    }

    fn element(&self, field: &FieldRef) -> FieldRef {
        let inner = self.field(field);
        if self.compliant_nested && inner.name() != "element" {
            Arc::new(inner.as_ref().clone().with_name("element"))
        } else {
            inner
        }
    }

    fn data_type(&self, data_type: &DataType) -> DataType {
        match data_type {
            DataType::List(f) => DataType::List(self.element(f)),
            DataType::LargeList(f) => DataType::LargeList(self.element(f)),
            DataType::FixedSizeList(f, n) => DataType::FixedSizeList(self.element(f), *n),
            DataType::Struct(fields) => {
                DataType::Struct(fields.iter().map(|f| self.field(f)).collect())
            }
            DataType::Map(entries, sorted) => {
                let entries = self.field(entries);
                let entries = Arc::new(entries.as_ref().clone().with_name("key_value"));
                DataType::Map(entries, *sorted)
            }
            DataType::Timestamp(TimeUnit::Second, tz) => {
                DataType::Timestamp(TimeUnit::Millisecond, tz.clone())
            }
            DataType::Time32(TimeUnit::Second) => DataType::Time32(TimeUnit::Millisecond),
            other => other.clone(),
        }
    }
}

/// TIME types that carry a unit in Parquet (seconds do not).
fn is_time_with_unit(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Time32(_) | DataType::Time64(_))
}

/// `batch` as a batch of `target` (from [`SchemaRules::target`] of its
/// schema): columns whose type changed are cast (names only: no values
/// are copied).
pub fn conform(batch: RecordBatch, target: &SchemaRef) -> Result<RecordBatch> {
    if batch.schema_ref().fields() == target.fields() {
        return Ok(batch);
    }
    let rows = batch.num_rows();
    let columns = batch
        .columns()
        .iter()
        .zip(target.fields())
        .map(|(column, field)| retype(column, field))
        .collect::<Result<Vec<_>>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        target.clone(),
        columns,
        &options,
    )?)
}

fn retype(column: &ArrayRef, field: &Field) -> Result<ArrayRef> {
    if column.data_type() == field.data_type() {
        return Ok(column.clone());
    }
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    cast_with_options(column, field.data_type(), &options).map_err(|e| {
        Failure::Data(format!(
            "column {:?}: cannot write {} as {}: {e}",
            field.name(),
            column.data_type(),
            field.data_type()
        ))
    })
}

/// Checks that `schema` (a batch's, or a `ParquetWriter`'s) is the one
/// `expected`: the same fields, names, types and nullability (metadata
/// aside), as pyarrow's `ParquetWriter.write_table` checks.
pub fn check_same(schema: &Schema, expected: &Schema) -> Result<()> {
    let same = schema.fields().len() == expected.fields().len()
        && schema
            .fields()
            .iter()
            .zip(expected.fields())
            .all(|(a, b)| fields_equal(a, b));
    if same {
        return Ok(());
    }
    Err(Failure::Value(format!(
        "the data's schema does not match the writer's:\ndata:\n{}\nwriter:\n{}",
        describe(schema),
        describe(expected)
    )))
}

fn fields_equal(a: &Field, b: &Field) -> bool {
    a.name() == b.name()
        && a.is_nullable() == b.is_nullable()
        && a.data_type().equals_datatype(b.data_type())
}

fn describe(schema: &Schema) -> String {
    schema
        .fields()
        .iter()
        .map(|f| {
            let null = if f.is_nullable() { "" } else { " not null" };
            format!("  {}: {}{null}", f.name(), f.data_type())
        })
        .collect::<Vec<_>>()
        .join("\n")
}
