//! Phase 1: the nested structure of a field and its array, as a flat list of
//! nodes plus, for every leaf, the chain of nodes above it.

use super::is_leaf;
use crate::arrays::{expand_dictionary, expand_run_end_encoded};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef};
use parquet::errors::{ParquetError, Result};
use std::sync::Arc;

/// A null found in a non-nullable field is reported under this name.
#[derive(Debug)]
pub(super) struct Required {
    /// The field's logical validity (has at least one null).
    pub(super) nulls: NullBuffer,
    /// The field's name.
    pub(super) name: String,
}

/// How a nested node maps its slots to its child's slots.
#[derive(Debug)]
pub(super) enum Kind {
    /// Slot `i` is child slot `i` (of every child).
    Struct,
    /// Slot `i` is child slots `offsets[i]..offsets[i + 1]` (lists and maps).
    List(OffsetBuffer<i32>),
    /// As [`Kind::List`], with 64-bit offsets.
    LargeList(OffsetBuffer<i64>),
    /// Slot `i` is child slots `i * n..(i + 1) * n`.
    FixedList(usize),
    /// Slot `i` is child slots `offsets[i]..offsets[i] + sizes[i]`.
    View(ScalarBuffer<i32>, ScalarBuffer<i32>),
    /// As [`Kind::View`], with 64-bit offsets and sizes.
    LargeView(ScalarBuffer<i64>, ScalarBuffer<i64>),
}

/// A struct, list or map above some leaves.
#[derive(Debug)]
pub(super) struct Node {
    /// How slots map to child slots.
    pub(super) kind: Kind,
    /// The node's own validity.
    pub(super) nulls: Option<NullBuffer>,
    /// Definition level of a valid slot (an empty list's level).
    pub(super) def: i16,
    /// Repetition level of a slot that opens no enclosing list.
    pub(super) rep: i16,
    /// Set when the field is non-nullable but the array has nulls.
    pub(super) required: Option<Required>,
}

/// A leaf and what its levels depend on.
#[derive(Debug)]
pub(super) struct LeafShape {
    /// Indices in [`Shape::nodes`] of the nodes above the leaf, outermost first.
    pub(super) path: Vec<usize>,
    /// The leaf array.
    pub(super) array: ArrayRef,
    /// The leaf's logical validity (only computed for tracked leaves).
    pub(super) nulls: Option<NullBuffer>,
    /// Definition level of a present value.
    pub(super) max_def: i16,
    /// Repetition level of a value that continues the innermost list.
    pub(super) max_rep: i16,
    /// Set when the field is non-nullable but the array has nulls.
    pub(super) required: Option<Required>,
    /// Whether the caller asked for this leaf's levels.
    pub(super) tracked: bool,
}

/// Every node and leaf of one field.
#[derive(Debug, Default)]
pub(super) struct Shape {
    /// Nested nodes, in depth-first order.
    pub(super) nodes: Vec<Node>,
    /// Leaves, in depth-first order.
    pub(super) leaves: Vec<LeafShape>,
}

/// Levels in effect where a field sits: those of its parent's valid slot.
#[derive(Debug, Clone, Copy)]
struct Depth {
    def: i16,
    rep: i16,
}

impl Shape {
    /// Walks `field` and `array`; `track(i)` says whether leaf `i` (in
    /// depth-first order) needs levels.
    pub(super) fn of(
        field: &Field,
        array: &ArrayRef,
        track: &dyn Fn(usize) -> bool,
    ) -> Result<Self> {
        let mut walk = Walk {
            shape: Shape::default(),
            above: Vec::new(),
            track,
        };
        walk.field(field, array, Depth { def: 0, rep: 0 })?;
        Ok(walk.shape)
    }
}

/// State of the depth-first walk.
struct Walk<'t> {
    shape: Shape,
    /// Nodes above the current field.
    above: Vec<usize>,
    track: &'t dyn Fn(usize) -> bool,
}

impl Walk<'_> {
    fn field(&mut self, field: &Field, array: &ArrayRef, at: Depth) -> Result<()> {
        let (logical, wrapped_nullable) = unwrap_type(field.data_type());
        let nullable = field.is_nullable() || wrapped_nullable;
        let array = unwrap_array(array)?;
        let def = at.def + nullable as i16;
        let required = || {
            if nullable {
                return None;
            }
            let nulls = array.logical_nulls().filter(|n| n.null_count() > 0)?;
            Some(Required {
                nulls,
                name: field.name().clone(),
            })
        };
        let data_type = array.data_type();
        if is_leaf(data_type) || matches!(data_type, DataType::Dictionary(_, v) if is_leaf(v)) {
            let tracked = (self.track)(self.shape.leaves.len());
            let required = required();
            self.shape.leaves.push(LeafShape {
                path: self.above.clone(),
                nulls: if tracked { array.logical_nulls() } else { None },
                array,
                max_def: def,
                max_rep: at.rep,
                required,
                tracked,
            });
            return Ok(());
        }
        let mismatch = || type_mismatch(field.name(), logical, data_type);
        let (kind, children) = match (data_type, logical) {
            (DataType::Struct(_), DataType::Struct(fields)) => {
                let columns = array.as_struct().columns().to_vec();
                let pairs = fields.iter().cloned().zip(columns);
                (Kind::Struct, pairs.collect::<Vec<_>>())
            }
            (DataType::Struct(_), _) => return Err(mismatch()),
            _ if list_child(data_type).is_none() => {
                return Err(ParquetError::NYI(format!(
                    "Datatype {data_type} is not yet supported"
                )));
            }
            _ => {
                let child = list_child(logical).ok_or_else(mismatch)?;
                let (kind, values) = list_parts(&array);
                (kind, vec![(child.clone(), values)])
            }
        };
        let inner = match kind {
            Kind::Struct => Depth { def, rep: at.rep },
            _ => Depth {
                def: def + 1,
                rep: at.rep + 1,
            },
        };
        self.above.push(self.shape.nodes.len());
        self.shape.nodes.push(Node {
            kind,
            nulls: array.nulls().cloned(),
            def,
            rep: at.rep,
            required: required(),
        });
        for (child, values) in &children {
            self.field(child, values, inner)?;
        }
        self.above.pop();
        Ok(())
    }
}

/// The type under dictionary and run-end-encoding wrappers, and whether a
/// run-end-encoded wrapper declares its values nullable.
pub(crate) fn unwrap_type(mut data_type: &DataType) -> (&DataType, bool) {
    let mut nullable = false;
    loop {
        data_type = match data_type {
            DataType::Dictionary(_, values) => values,
            DataType::RunEndEncoded(_, values) => {
                nullable |= values.is_nullable();
                values.data_type()
            }
            _ => return (data_type, nullable),
        }
    }
}

/// Expands run-end-encoded arrays and dictionaries of non-leaf values until
/// the array is a leaf, a dictionary of leaf values, or a nested array.
fn unwrap_array(array: &ArrayRef) -> Result<ArrayRef> {
    let mut array = array.clone();
    loop {
        array = match array.data_type() {
            DataType::RunEndEncoded(_, _) => expand_run_end_encoded(&array)?,
            DataType::Dictionary(_, values) if !is_leaf(values) => expand_dictionary(&array)?,
            _ => return Ok(array),
        }
    }
}

/// The element field of a list-like type (lists and list views of both
/// offset widths, fixed-size lists, maps).
fn list_child(data_type: &DataType) -> Option<&FieldRef> {
    use DataType::*;
    match data_type {
        List(item) | LargeList(item) | ListView(item) | LargeListView(item) => Some(item),
        FixedSizeList(item, _) | Map(item, _) => Some(item),
        _ => None,
    }
}

/// The slot mapping and the child values of a list-like array.
fn list_parts(array: &ArrayRef) -> (Kind, ArrayRef) {
    match array.data_type() {
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>();
            (
                Kind::LargeList(list.offsets().clone()),
                list.values().clone(),
            )
        }
        DataType::Map(_, _) => {
            let map = array.as_map();
            let entries = Arc::new(map.entries().clone()) as ArrayRef;
            (Kind::List(map.offsets().clone()), entries)
        }
        DataType::FixedSizeList(_, n) => {
            let list = array.as_fixed_size_list();
            (Kind::FixedList(*n as usize), list.values().clone())
        }
        DataType::ListView(_) => {
            let list = array.as_list_view::<i32>();
            let kind = Kind::View(list.offsets().clone(), list.sizes().clone());
            (kind, list.values().clone())
        }
        DataType::LargeListView(_) => {
            let list = array.as_list_view::<i64>();
            let kind = Kind::LargeView(list.offsets().clone(), list.sizes().clone());
            (kind, list.values().clone())
        }
        _ => {
            let list = array.as_list::<i32>();
            (Kind::List(list.offsets().clone()), list.values().clone())
        }
    }
}

fn type_mismatch(name: &str, field_type: &DataType, array_type: &DataType) -> ParquetError {
    ParquetError::ArrowError(format!(
        "Incompatible type. Field '{name}' has type {field_type}, array has type {array_type}"
    ))
}
