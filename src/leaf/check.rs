//! Resolution of a leaf's array to plain values (dictionary and
//! run-end-encoded arrays are expanded, as `parquet` expands them) and the
//! checks made before anything is written: the array's type, nulls in a
//! required field, decimals too wide for the column's byte width.

use super::FlatLeaf;
use super::view::{LevelView, NestedLevels};
use crate::arrays::{expand_dictionary, expand_run_end_encoded};
use crate::levels::LeafLevels;
use crate::values::{LeafKind, NativeValues, decimal_precision};
use arrow_array::{Array, ArrayRef};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;
use parquet::errors::{ParquetError, Result};

/// A leaf array resolved to plain values plus its logical nulls.
pub(super) struct Resolved {
    pub(super) values: ArrayRef,
    pub(super) nulls: Option<NullBuffer>,
}

/// What validation needs to know about an FLBA leaf column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeafShape {
    /// The Arrow type of the leaf's values.
    pub(crate) kind: LeafKind,
    /// The column's FIXED_LEN_BYTE_ARRAY width.
    pub(crate) width: usize,
    /// The column's maximum definition level (0: required).
    pub(crate) max_def: i16,
}

/// Resolves a top-level leaf's array to plain values (expanding a dictionary
/// or run-end-encoded array of the field's type) and its logical nulls. A
/// dictionary of byte arrays stays one: its keys are mapped, not its rows
/// expanded.
pub(super) fn resolve(leaf: &FlatLeaf, kind: LeafKind) -> Result<Resolved> {
    let array = &leaf.array;
    let field_type = leaf.field.data_type();
    match array.data_type() {
        // A dictionary array of the field's value type, or of the field's
        // own dictionary type.
        t @ DataType::Dictionary(_, value) if value.as_ref() == field_type || t == field_type => {
            Ok(Resolved {
                nulls: array.logical_nulls(),
                values: match kind.is_byte_array() {
                    true => array.clone(),
                    false => expand_dictionary(array)?,
                },
            })
        }
        DataType::RunEndEncoded(_, value) if value.data_type() == field_type => {
            let values = expand_run_end_encoded(array)?;
            Ok(Resolved {
                nulls: values.logical_nulls(),
                values,
            })
        }
        t if t == field_type => Ok(Resolved {
            nulls: array.logical_nulls(),
            values: array.clone(),
        }),
        t => Err(ParquetError::ArrowError(format!(
            "Incompatible type. Field '{}' has type {}, array has type {}",
            leaf.field.name(),
            field_type,
            t
        ))),
    }
}

/// The plain values of a nested leaf's array (a dictionary is expanded,
/// unless it holds byte arrays; the level builder already expanded run-end
/// encoding), unless its level builder found an error.
pub(super) fn resolve_leveled(levels: &LeafLevels, kind: LeafKind) -> Result<ArrayRef> {
    if let Some(message) = &levels.validation_error {
        return Err(ParquetError::ArrowError(message.clone()));
    }
    match levels.array.data_type() {
        DataType::Dictionary(_, _) if !kind.is_byte_array() => expand_dictionary(&levels.array),
        _ => Ok(levels.array.clone()),
    }
}

impl LeafShape {
    /// Checks a leaf without writing it: type, nulls in a required field,
    /// decimals that do not fit the column's width.
    pub(crate) fn validate(&self, leaf: &FlatLeaf) -> Result<()> {
        let resolved = resolve(leaf, self.kind)?;
        self.check(leaf, &resolved)
    }

    /// Checks a resolved top-level leaf: nulls in a required field, decimals
    /// that do not fit the column's width.
    pub(super) fn check(&self, leaf: &FlatLeaf, r: &Resolved) -> Result<()> {
        let len = r.values.len();
        if crate::compat::REQUIRED_NULLS_REJECTED
            && self.max_def == 0
            && let Some(nulls) = r.nulls.as_ref().filter(|n| n.null_count() > 0)
        {
            let index = (0..len).find(|&i| nulls.is_null(i)).unwrap_or(0);
            return Err(ParquetError::ArrowError(format!(
                "Found null at index {index} for required field '{}'",
                leaf.field.name()
            )));
        }
        if self.kind.is_byte_array() {
            return Ok(());
        }
        let values = NativeValues::new(self.kind, self.width, r.values.as_ref())?;
        // In a required column every slot is a value (parquet 59 writes a
        // null slot's stored bytes there, D15).
        let unfit = match &r.nulls {
            Some(nulls) if self.max_def > 0 => {
                values.first_unfit_decimal(len, |i| nulls.is_valid(i))
            }
            _ => values.first_unfit_decimal(len, |_| true),
        };
        match unfit {
            Some(row) => Err(decimal_overflow(
                leaf.field.name(),
                row,
                &values,
                row,
                r.values.data_type(),
            )),
            None => Ok(()),
        }
    }
}

/// Checks a nested leaf for decimals that do not fit the column's width.
/// `column` names the column's path.
pub(super) fn check_leveled(
    levels: &LeafLevels,
    view: &NestedLevels<'_>,
    values: &NativeValues<'_>,
    data_type: &DataType,
    column: impl FnOnce() -> String,
) -> Result<()> {
    let indices = &levels.non_null_indices;
    let Some(k) = values.first_unfit_decimal_among(indices) else {
        return Ok(());
    };
    // The level that holds the (k + 1)-th value, and the record it is in.
    let level = view.end_of_values(0, view.num_levels(), k + 1) - 1;
    let row = view.record_of(level);
    Err(decimal_overflow(
        &column(),
        row,
        values,
        indices[k],
        data_type,
    ))
}

/// The error for the decimal at array position `i`, in `row` of `column`,
/// that does not fit the column's byte width.
fn decimal_overflow(
    column: &str,
    row: usize,
    values: &NativeValues<'_>,
    i: usize,
    data_type: &DataType,
) -> ParquetError {
    ParquetError::General(format!(
        "Column '{column}', row {row}: decimal value {} does not fit the {} bytes of a \
         {} column for precision {}; parquet would write a truncated, wrong value",
        values.format_decimal(i),
        values.width(),
        crate::values::decimal_physical_name(decimal_precision(data_type)),
        decimal_precision(data_type),
    ))
}
