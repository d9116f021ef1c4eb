//! Schema helpers shared by the plan, the column API and the hybrid writer:
//! how many Parquet leaves an Arrow type makes, their Arrow types in leaf
//! order, and (in [`prune`]) the same type, Parquet type or array with some
//! leaves taken out.
//!
//! Leaves are numbered depth first, in the order `parquet`'s Arrow writer
//! enumerates them (struct children in order, a map's key before its value);
//! dictionary and run-end-encoded wrappers are looked through.

pub(crate) mod prune;

use arrow_schema::DataType;
use parquet::schema::types::Type;

/// The child field of a list-like type (list, large list, fixed-size list,
/// list view, large list view), if it is one.
pub(crate) fn list_item(data_type: &DataType) -> Option<&arrow_schema::FieldRef> {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => Some(f),
        _ => None,
    }
}

/// Whether a dictionary with these values is a single byte-array leaf.
fn is_byte_array(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::Utf8View
            | DataType::BinaryView
    )
}

/// Number of Parquet leaves that `parquet`'s Arrow writer makes of a data
/// type, or None for a type it cannot write (a union, a map whose entries
/// are not a key-value struct, ...).
pub(crate) fn leaf_count(data_type: &DataType) -> Option<usize> {
    if let Some(item) = list_item(data_type) {
        return leaf_count(item.data_type());
    }
    match data_type {
        DataType::Struct(fields) => fields.iter().map(|f| leaf_count(f.data_type())).sum(),
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                Some(leaf_count(kv[0].data_type())? + leaf_count(kv[1].data_type())?)
            }
            _ => None,
        },
        DataType::Dictionary(_, v) if is_byte_array(v) => Some(1),
        DataType::Dictionary(_, v) => leaf_count(v),
        DataType::RunEndEncoded(_, v) => leaf_count(v.data_type()),
        t if t.is_primitive() || is_byte_array(t) => Some(1),
        DataType::FixedSizeBinary(_) | DataType::Boolean | DataType::Null => Some(1),
        _ => None,
    }
}

/// Appends the Arrow types of `data_type`'s leaves to `out`, in leaf order.
pub(crate) fn leaf_types<'a>(data_type: &'a DataType, out: &mut Vec<&'a DataType>) {
    if let Some(item) = list_item(data_type) {
        return leaf_types(item.data_type(), out);
    }
    match data_type {
        DataType::Struct(fields) => fields.iter().for_each(|f| leaf_types(f.data_type(), out)),
        DataType::Map(entries, _) => {
            if let DataType::Struct(kv) = entries.data_type() {
                kv.iter().for_each(|f| leaf_types(f.data_type(), out));
            }
        }
        DataType::Dictionary(_, v) => leaf_types(v, out),
        DataType::RunEndEncoded(_, v) => leaf_types(v.data_type(), out),
        leaf => out.push(leaf),
    }
}

/// For each leaf under `data_type` (in [`leaf_types`] order), whether a
/// dictionary or run-end-encoded layer is on its path (`wrapped` for the
/// layers above `data_type`).
pub(crate) fn leaf_wrapped(data_type: &DataType, wrapped: bool, out: &mut Vec<bool>) {
    if let Some(item) = list_item(data_type) {
        return leaf_wrapped(item.data_type(), wrapped, out);
    }
    match data_type {
        DataType::Struct(fields) => fields
            .iter()
            .for_each(|f| leaf_wrapped(f.data_type(), wrapped, out)),
        DataType::Map(entries, _) => {
            if let DataType::Struct(kv) = entries.data_type() {
                kv.iter()
                    .for_each(|f| leaf_wrapped(f.data_type(), wrapped, out));
            }
        }
        DataType::Dictionary(_, v) => leaf_wrapped(v, true, out),
        DataType::RunEndEncoded(_, v) => leaf_wrapped(v.data_type(), true, out),
        _ => out.push(wrapped),
    }
}

/// Number of primitive (leaf) columns under a Parquet type.
pub(crate) fn parquet_leaf_count(t: &Type) -> usize {
    match t {
        Type::PrimitiveType { .. } => 1,
        Type::GroupType { fields, .. } => fields.iter().map(|f| parquet_leaf_count(f)).sum(),
    }
}

/// Whether a node under `data_type` that cannot be pruned (a map, which
/// cannot lose its keys or its values, or a dictionary or run-end-encoded
/// nested value) has leaves on both sides of `side` (leaf numbering from
/// `*pos`): such a field cannot be split between two writers.
pub(crate) fn mixes_unprunable(data_type: &DataType, side: &[bool], pos: &mut usize) -> bool {
    if let Some(item) = list_item(data_type) {
        return mixes_unprunable(item.data_type(), side, pos);
    }
    match data_type {
        DataType::Struct(fields) => {
            let mut mixed = false;
            for f in fields {
                mixed |= mixes_unprunable(f.data_type(), side, pos);
            }
            mixed
        }
        other => {
            let n = leaf_count(other).unwrap_or(1);
            let sides = side.get(*pos..*pos + n).unwrap_or_default();
            *pos += n;
            sides.iter().any(|&b| b) && !sides.iter().all(|&b| b)
        }
    }
}
