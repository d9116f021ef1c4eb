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

/// The types of the leaves under `data_type`, in the Parquet schema's order.
pub(crate) fn leaf_types<'a>(data_type: &'a DataType, out: &mut Vec<&'a DataType>) {
    visit_leaves(data_type, Layers::default(), &mut |leaf, _| out.push(leaf));
}

/// The dictionary and run-end-encoded layers above a leaf.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Layers {
    /// A dictionary or run-end-encoded type is on the leaf's path.
    pub(crate) wrapped: bool,
    /// The leaf's type is directly the value type of a dictionary.
    pub(crate) in_dictionary: bool,
}

/// Calls `f` with each leaf type under `data_type` (in the Parquet schema's
/// order) and the layers above it (`layers`: those above `data_type`).
pub(crate) fn visit_leaves<'a>(
    data_type: &'a DataType,
    layers: Layers,
    f: &mut impl FnMut(&'a DataType, Layers),
) {
    let below = Layers {
        in_dictionary: false,
        ..layers
    };
    if let Some(item) = list_item(data_type) {
        return visit_leaves(item.data_type(), below, f);
    }
    match data_type {
        DataType::Struct(fields) => fields
            .iter()
            .for_each(|c| visit_leaves(c.data_type(), below, f)),
        DataType::Map(entries, _) => {
            if let DataType::Struct(kv) = entries.data_type() {
                kv.iter()
                    .for_each(|c| visit_leaves(c.data_type(), below, f));
            }
        }
        DataType::Dictionary(_, v) => {
            let layers = Layers {
                wrapped: true,
                in_dictionary: true,
            };
            visit_leaves(v, layers, f)
        }
        DataType::RunEndEncoded(_, v) => {
            let layers = Layers {
                wrapped: true,
                in_dictionary: false,
            };
            visit_leaves(v.data_type(), layers, f)
        }
        leaf => f(leaf, layers),
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
