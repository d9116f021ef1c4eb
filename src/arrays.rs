//! Arrow array helpers shared by the stages that look through dictionary and
//! run-end-encoded arrays (levels, leaf, validate): they depend on no stage.

use arrow_array::cast::AsArray;
use arrow_array::types::RunEndIndexType;
use arrow_array::{Array, ArrayRef, RunArray, UInt64Array, downcast_run_array};
use arrow_schema::DataType;
use parquet::errors::{ParquetError, Result};

/// The dictionary `array` with its keys looked up (one value per row; a null
/// key gives a null).
pub(crate) fn expand_dictionary(array: &ArrayRef) -> Result<ArrayRef> {
    let dict = array.as_any_dictionary();
    Ok(arrow_select::take::take(
        dict.values().as_ref(),
        dict.keys(),
        None,
    )?)
}

/// The run-end-encoded `array` expanded to one value per logical row.
pub(crate) fn expand_run_end_encoded(array: &ArrayRef) -> Result<ArrayRef> {
    fn typed<R: RunEndIndexType>(runs: &RunArray<R>) -> Result<ArrayRef> {
        let ends = runs.run_ends();
        let physical = (0..runs.len()).map(|row| ends.get_physical_index(row) as u64);
        let indices = UInt64Array::from_iter_values(physical);
        Ok(arrow_select::take::take(
            runs.values().as_ref(),
            &indices,
            None,
        )?)
    }
    downcast_run_array!(
        array => typed(array),
        t => Err(ParquetError::ArrowError(format!("expected a run-end encoded array, got {t}"))),
    )
}

/// Whether `data_type` holds a dictionary of `Utf8View` or `BinaryView` at
/// any depth (which parquet 59 and 58 cannot write).
pub(crate) fn dictionary_of_views(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary(_, v) => {
            matches!(v.as_ref(), DataType::Utf8View | DataType::BinaryView)
                || dictionary_of_views(v)
        }
        DataType::Struct(fields) => fields.iter().any(|f| dictionary_of_views(f.data_type())),
        DataType::RunEndEncoded(_, v) => dictionary_of_views(v.data_type()),
        DataType::Map(f, _)
        | DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => dictionary_of_views(f.data_type()),
        _ => false,
    }
}
