//! The map-key rule `parquet`'s `ArrowWriter::try_new` checks before it
//! builds anything (60.2, D32): a map's key may not be nullable, nor hold
//! nullable values under a run-end-encoded layer; dictionary layers are
//! looked through. Before 60.2 only the schema converter applied the rule,
//! so an explicit Parquet schema skipped it.

use crate::levels::unwrap_type;
use arrow_schema::{DataType, Field};
use parquet::errors::{ParquetError, Result};

/// The first map of `data_type` (at any depth) whose key breaks the rule,
/// as `parquet`'s error.
pub(crate) fn check_map_keys(data_type: &DataType) -> Result<()> {
    match data_type {
        DataType::Map(entries, _) => {
            let DataType::Struct(fields) = entries.data_type() else {
                return Err(arrow_error(
                    "DataType::Map should contain a struct field child",
                ));
            };
            if fields.len() != 2 {
                return Err(arrow_error("DataType::Map entries must contain two fields"));
            }
            if key_may_be_null(&fields[0]) {
                return Err(arrow_error(&format!(
                    "Map key field '{}' must be non-nullable, including its encoded values",
                    fields[0].name()
                )));
            }
            check_map_keys(entries.data_type())
        }
        DataType::Struct(fields) => fields
            .iter()
            .try_for_each(|f| check_map_keys(f.data_type())),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::RunEndEncoded(_, f) => check_map_keys(f.data_type()),
        DataType::Dictionary(_, value) => check_map_keys(value),
        _ => Ok(()),
    }
}

/// Whether a map key field admits a null: itself, or the values of a
/// run-end-encoded layer on the way down to its values.
fn key_may_be_null(key: &Field) -> bool {
    key.is_nullable() || unwrap_type(key.data_type()).1
}

fn arrow_error(message: &str) -> ParquetError {
    ParquetError::ArrowError(message.to_string())
}
