//! Checks a whole batch before any of it is written, so a failed
//! [`ArrowWriter::write`](crate::ArrowWriter::write) leaves the writer as it
//! was.
//!
//! `parquet` finds some errors only while writing a leaf — after earlier
//! columns of the same batch were already buffered, which leaves its row group
//! inconsistent. Here the same conditions are detected up front: the batch's
//! column count, each array's type against its field (the rule `parquet` uses:
//! dictionary and run-end-encoded wrappers are looked through, string and
//! binary layouts are interchangeable), and nulls that the writer would reach
//! in a non-nullable field (following `parquet`'s traversal: nulls under a
//! null parent are not reached).

mod decimal;
mod map_keys;
mod nodes;

pub(crate) use map_keys::check_map_keys;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use nodes::Node;
use parquet::errors::{ParquetError, Result};

/// Which batch row an index of a nested array belongs to.
#[derive(Clone, Copy)]
enum Row {
    /// Indices are rows (top level, or below structs only).
    Same,
    /// Everything below one list slot belongs to this row.
    At(usize),
}

impl Row {
    /// The batch row of element `index`.
    fn of(self, index: usize) -> usize {
        match self {
            Row::Same => index,
            Row::At(row) => row,
        }
    }
}

/// Checks `batch` against `schema`: column count, types, reachable nulls in
/// non-nullable fields, reachable decimals too wide for their column. Fields
/// for which `checked_elsewhere(i)` holds only get the type check (their
/// column writer validates the rest).
pub(crate) fn validate_batch(
    schema: &Schema,
    batch: &RecordBatch,
    checked_elsewhere: impl Fn(usize) -> bool,
) -> Result<()> {
    if batch.num_columns() != schema.fields().len() {
        return Err(ParquetError::ArrowError(format!(
            "Incompatible batch: the writer's schema has {} columns, the batch has {}",
            schema.fields().len(),
            batch.num_columns()
        )));
    }
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        check_types(field, array)?;
    }
    for (i, (field, array)) in schema.fields().iter().zip(batch.columns()).enumerate() {
        if !checked_elsewhere(i) && needs_value_check(field, array) {
            check_values(field, array)?;
        }
    }
    Ok(())
}

/// The first half of [`validate_batch`]: the column count and each array's
/// type against its field.
pub(crate) fn validate_structure(schema: &Schema, batch: &RecordBatch) -> Result<()> {
    validate_batch(schema, batch, |_| true)
}

/// Whether [`check_values`] has anything to look at in `array`: nulls it
/// could reach in a non-nullable field, or decimals narrower than their type.
pub(crate) fn needs_value_check(field: &Field, array: &ArrayRef) -> bool {
    (crate::compat::REQUIRED_NULLS_REJECTED && may_reach_null(field, array.as_ref()))
        || has_narrow_decimal(field.data_type())
}

/// The second half of [`validate_batch`], for one field whose array has the
/// field's type: reachable nulls in non-nullable fields, reachable decimals
/// too wide for their column.
pub(crate) fn check_values(field: &Field, array: &ArrayRef) -> Result<()> {
    let node = Node::build(field, array, field.name())?;
    node.visit(0..array.len(), Row::Same)
}

/// Checks one field's array for decimals too wide for their column (and
/// what else [`validate_batch`] checks on the way), for a leaf of this crate
/// that a `parquet` column writer gets through the column-level API:
/// `parquet` would write such a decimal's low bytes.
pub(crate) fn validate_field(field: &Field, array: &ArrayRef) -> Result<()> {
    if has_narrow_decimal(field.data_type()) {
        let node = Node::build(field, array, field.name())?;
        node.visit(0..array.len(), Row::Same)?;
    }
    Ok(())
}

/// The type under any dictionary and run-end-encoded layers of
/// `data_type`, and whether a run-end-encoded layer's value field is
/// nullable (which makes the values nullable whatever the field says).
pub(super) fn logical_type(data_type: &DataType) -> (&DataType, bool) {
    match data_type {
        DataType::Dictionary(_, value) => logical_type(value),
        DataType::RunEndEncoded(_, values) => {
            let (plain, nullable) = logical_type(values.data_type());
            (plain, nullable || values.is_nullable())
        }
        plain => (plain, false),
    }
}

/// Which interchangeable family of byte layouts a type belongs to: string
/// layouts (0) or binary layouts (1).
fn byte_family(data_type: &DataType) -> Option<u8> {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Some(0),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Some(1),
        _ => None,
    }
}

/// The child field of a list-like or map type.
fn nested_child(data_type: &DataType) -> Option<&arrow_schema::FieldRef> {
    match data_type {
        DataType::Map(entries, _) => Some(entries),
        t => crate::schema::list_item(t),
    }
}

/// Whether an array of type `right` may be written to a field of type
/// `left`, by the selected `parquet` release's rule.
pub(crate) fn types_compatible(left: &DataType, right: &DataType) -> bool {
    match crate::compat::NESTED_TYPE_COMPATIBILITY {
        true => logically_compatible(left, right),
        false => types_compatible_at_node(left, right),
    }
}

/// parquet 60's rule: dictionary and run-end-encoded layers do not count
/// at any depth, string (and binary) layouts are interchangeable, nested
/// types must have the same shape with compatible children.
fn logically_compatible(left: &DataType, right: &DataType) -> bool {
    let (left, _) = logical_type(left);
    let (right, _) = logical_type(right);
    if let (Some(l), Some(r)) = (byte_family(left), byte_family(right)) {
        return l == r;
    }
    let same_kind = std::mem::discriminant(left) == std::mem::discriminant(right);
    match (left, right) {
        (DataType::Struct(l), DataType::Struct(r)) => {
            let children = l.iter().zip(r.iter());
            l.len() == r.len()
                && children
                    .into_iter()
                    .all(|(a, b)| logically_compatible(a.data_type(), b.data_type()))
        }
        (DataType::FixedSizeList(_, l), DataType::FixedSizeList(_, r)) if l != r => false,
        (DataType::Map(_, l), DataType::Map(_, r)) if l != r => false,
        _ => match (nested_child(left), nested_child(right)) {
            (Some(l), Some(r)) if same_kind => logically_compatible(l.data_type(), r.data_type()),
            _ => left.equals_datatype(right),
        },
    }
}

/// parquet 59's rule, applied at every node of the walk (so below the top
/// only equal types pass): equal types, a dictionary and its value type, or
/// two layouts of strings (of binaries).
fn types_compatible_at_node(left: &DataType, right: &DataType) -> bool {
    if left.equals_datatype(right) {
        return true;
    }
    let (left, right) = match (left, right) {
        (DataType::Dictionary(_, l), DataType::Dictionary(_, r)) => (l.as_ref(), r.as_ref()),
        (DataType::Dictionary(_, l), r) => (l.as_ref(), r),
        (l, DataType::Dictionary(_, r)) => (l, r.as_ref()),
        pair => pair,
    };
    left == right || matches!((byte_family(left), byte_family(right)), (Some(l), Some(r)) if l == r)
}

fn check_types(field: &Field, array: &ArrayRef) -> Result<()> {
    let field_type = match crate::compat::NESTED_TYPE_COMPATIBILITY {
        true => logical_type(field.data_type()).0,
        false => field.data_type(),
    };
    if !types_compatible(field_type, array.data_type()) {
        return Err(ParquetError::ArrowError(format!(
            "Incompatible type. Field '{}' has type {}, array has type {}",
            field.name(),
            field_type,
            array.data_type(),
        )));
    }
    if !crate::compat::FAST_UNDER_DICTIONARY_OR_RUN_ENDS
        && plain_for_dictionary_of_fsb(field_type, array.data_type())
    {
        return Err(ParquetError::ArrowError(format!(
            "Field '{}' has type {}, array has type {}: parquet 59.2 writes a \
             Dictionary(_, FixedSizeBinary) field with its byte-array writer, which cannot \
             take a FixedSizeBinary array (it panics); pass a dictionary array",
            field.name(),
            field_type,
            array.data_type(),
        )));
    }
    if !crate::compat::DICTIONARY_OF_VIEWS && crate::arrays::dictionary_of_views(array.data_type())
    {
        return Err(ParquetError::ArrowError(format!(
            "Field '{}': parquet {} cannot write an array of type {} (its byte-array writer \
             has no Dictionary(_, Utf8View) or Dictionary(_, BinaryView) and panics)",
            field.name(),
            crate::compat::RESOLVED_RELEASE,
            array.data_type(),
        )));
    }
    Ok(())
}

/// Whether an array of type `right`, written to a field of type `left`,
/// holds a plain array where the field is a dictionary of
/// `FixedSizeBinary` (at any depth).
fn plain_for_dictionary_of_fsb(left: &DataType, right: &DataType) -> bool {
    match (left, right) {
        (DataType::Dictionary(_, v), r) if matches!(v.as_ref(), DataType::FixedSizeBinary(_)) => {
            !matches!(r, DataType::Dictionary(_, _))
        }
        (DataType::Struct(l), DataType::Struct(r)) => l
            .iter()
            .zip(r.iter())
            .any(|(a, b)| plain_for_dictionary_of_fsb(a.data_type(), b.data_type())),
        (DataType::RunEndEncoded(_, l), DataType::RunEndEncoded(_, r)) => {
            plain_for_dictionary_of_fsb(l.data_type(), r.data_type())
        }
        _ => match (nested_child(left), nested_child(right)) {
            (Some(l), Some(r)) => plain_for_dictionary_of_fsb(l.data_type(), r.data_type()),
            _ => false,
        },
    }
}

/// Whether a decimal leaf below this type is stored in fewer bytes than Arrow
/// holds it, so a value could be too wide for its column.
pub(super) fn has_narrow_decimal(data_type: &DataType) -> bool {
    match data_type {
        DataType::Decimal64(p, _) => crate::values::decimal_stored_width(*p) < 8,
        DataType::Decimal128(p, _) => crate::values::decimal_stored_width(*p) < 16,
        DataType::Decimal256(p, _) => crate::values::decimal_stored_width(*p) < 32,
        DataType::Dictionary(_, v) => has_narrow_decimal(v),
        DataType::RunEndEncoded(_, v) => has_narrow_decimal(v.data_type()),
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => has_narrow_decimal(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| has_narrow_decimal(f.data_type())),
        _ => false,
    }
}

/// Cheap pre-check: could any non-nullable field below `field` hold a null?
fn may_reach_null(field: &Field, array: &dyn Array) -> bool {
    let (data_type, ree_nullable) = logical_type(field.data_type());
    if !field.is_nullable() && !ree_nullable && array.logical_null_count() > 0 {
        return true;
    }
    let array = match array.data_type() {
        DataType::Dictionary(_, _) => array.as_any_dictionary().values().as_ref(),
        DataType::RunEndEncoded(_, _) => return children_of_ree_may_reach(data_type, array),
        _ => array,
    };
    match (data_type, array.data_type()) {
        (DataType::Struct(fields), DataType::Struct(_)) => {
            let s = array.as_struct();
            fields
                .iter()
                .zip(s.columns())
                .any(|(f, a)| may_reach_null(f, a.as_ref()))
        }
        (
            DataType::List(f)
            | DataType::LargeList(f)
            | DataType::FixedSizeList(f, _)
            | DataType::ListView(f)
            | DataType::LargeListView(f)
            | DataType::Map(f, _),
            _,
        ) => match child_values(array) {
            Some(values) => may_reach_null(f, values.as_ref()),
            None => false,
        },
        _ => false,
    }
}

fn children_of_ree_may_reach(data_type: &DataType, array: &dyn Array) -> bool {
    // Run-end-encoded nested values are rare; be conservative.
    matches!(
        data_type,
        DataType::Struct(_)
            | DataType::List(_)
            | DataType::LargeList(_)
            | DataType::FixedSizeList(_, _)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::Map(_, _)
    ) || array.logical_null_count() > 0
}

pub(super) fn child_values(array: &dyn Array) -> Option<ArrayRef> {
    Some(match array.data_type() {
        DataType::List(_) => array.as_list::<i32>().values().clone(),
        DataType::LargeList(_) => array.as_list::<i64>().values().clone(),
        DataType::FixedSizeList(_, _) => array.as_fixed_size_list().values().clone(),
        DataType::ListView(_) => array.as_list_view::<i32>().values().clone(),
        DataType::LargeListView(_) => array.as_list_view::<i64>().values().clone(),
        DataType::Map(_, _) => std::sync::Arc::new(array.as_map().entries().clone()),
        _ => return None,
    })
}
