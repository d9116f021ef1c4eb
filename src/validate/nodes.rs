//! The shape `parquet`'s level builder gives a field, reduced to what
//! decides which nulls (and decimals) it reaches, and the walk over it.

use super::decimal::NarrowDecimal;
use super::{Row, child_values, has_narrow_decimal, logical_type};
use crate::arrays::{expand_dictionary, expand_run_end_encoded};
use crate::levels::is_leaf;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, FieldRef};
use parquet::errors::{ParquetError, Result};
use std::ops::Range;

/// Where the children of each slot of a list-like array are.
pub(super) enum Slots {
    /// Slot `i` spans `bounds[i]..bounds[i + 1]`.
    Offsets(Vec<usize>),
    /// Slot `i` spans `i * size..(i + 1) * size`.
    Fixed(usize),
    /// Slot `i` spans `starts[i]..starts[i] + lens[i]`.
    Views(Vec<usize>, Vec<usize>),
}

impl Slots {
    fn of(array: &ArrayRef) -> Option<Self> {
        fn widen<T: Copy + TryInto<usize>>(v: &[T]) -> Vec<usize> {
            v.iter().map(|&x| x.try_into().unwrap_or(0)).collect()
        }
        Some(match array.data_type() {
            DataType::List(_) => Slots::Offsets(widen(array.as_list::<i32>().offsets())),
            DataType::LargeList(_) => Slots::Offsets(widen(array.as_list::<i64>().offsets())),
            DataType::Map(_, _) => Slots::Offsets(widen(array.as_map().offsets())),
            DataType::FixedSizeList(_, n) => Slots::Fixed(usize::try_from(*n).unwrap_or(0)),
            DataType::ListView(_) => {
                let l = array.as_list_view::<i32>();
                Slots::Views(widen(l.offsets()), widen(l.sizes()))
            }
            DataType::LargeListView(_) => {
                let l = array.as_list_view::<i64>();
                Slots::Views(widen(l.offsets()), widen(l.sizes()))
            }
            _ => return None,
        })
    }

    /// The child range of slot `i` (empty for an empty slot).
    fn range(&self, i: usize) -> Range<usize> {
        match self {
            Slots::Offsets(bounds) => bounds[i]..bounds[i + 1],
            Slots::Fixed(size) => i * size..(i + 1) * size,
            Slots::Views(starts, lens) => starts[i]..starts[i] + lens[i],
        }
    }
}

/// A node of the walk.
pub(super) enum Node {
    /// A non-nullable field: a null reached here is an error.
    Required(NullBuffer, String, Box<Node>),
    Leaf,
    /// A decimal leaf stored in fewer bytes than Arrow holds it.
    Decimal(NarrowDecimal),
    /// A list-like array: its slots, validity and item.
    List(Slots, Option<NullBuffer>, Box<Node>),
    Struct(Vec<Node>, Option<NullBuffer>),
}

/// `field` with the dictionary and run-end-encoded layers of its type taken
/// off (nullable if a run-end-encoded value field is), None if it has none.
fn without_wrappers(field: &Field) -> Option<Field> {
    let (plain, ree_nullable) = logical_type(field.data_type());
    let nullable = field.is_nullable() || ree_nullable;
    (plain != field.data_type()).then(|| {
        Field::new(field.name(), plain.clone(), nullable).with_metadata(field.metadata().clone())
    })
}

/// The item field of a list-like or map field type.
fn item_field(data_type: &DataType) -> Option<&FieldRef> {
    match data_type {
        DataType::Map(entries, _) => Some(entries),
        t => crate::schema::list_item(t),
    }
}

impl Node {
    pub(super) fn build(field: &Field, array: &ArrayRef, path: &str) -> Result<Node> {
        let node = Self::build_inner(field, array, path)?;
        let (_, ree_nullable) = logical_type(field.data_type());
        let checked_here = match array.data_type() {
            DataType::RunEndEncoded(_, _) => false,
            DataType::Dictionary(_, v) => is_leaf(v),
            _ => true,
        };
        if crate::compat::REQUIRED_NULLS_REJECTED
            && !field.is_nullable()
            && !ree_nullable
            && checked_here
            && let Some(nulls) = array.logical_nulls().filter(|n| n.null_count() != 0)
        {
            return Ok(Node::Required(nulls, path.to_string(), Box::new(node)));
        }
        Ok(node)
    }

    fn build_inner(field: &Field, array: &ArrayRef, path: &str) -> Result<Node> {
        if let Some(plain) = without_wrappers(field) {
            return Self::build(&plain, array, path);
        }
        let array_type = array.data_type();
        if let (
            DataType::Decimal64(p, _) | DataType::Decimal128(p, _) | DataType::Decimal256(p, _),
            true,
        ) = (array_type, has_narrow_decimal(array_type))
        {
            return Ok(Node::Decimal(NarrowDecimal::new(path, array.clone(), *p)));
        }
        match array_type {
            DataType::Dictionary(_, v) if has_narrow_decimal(v) => match v.as_ref() {
                DataType::Decimal64(p, _)
                | DataType::Decimal128(p, _)
                | DataType::Decimal256(p, _) => Ok(Node::Decimal(NarrowDecimal::new(
                    path,
                    expand_dictionary(array)?,
                    *p,
                ))),
                _ => Ok(Node::Leaf),
            },
            t if is_leaf(t) => Ok(Node::Leaf),
            DataType::Dictionary(_, v) if is_leaf(v) => Ok(Node::Leaf),
            DataType::RunEndEncoded(_, _) => {
                Self::build(field, &expand_run_end_encoded(array)?, path)
            }
            DataType::Dictionary(_, _) => Self::build(field, &expand_dictionary(array)?, path),
            DataType::Struct(_) => Self::build_struct(field, array, path),
            _ => Self::build_list(field, array, path),
        }
    }

    fn build_struct(field: &Field, array: &ArrayRef, path: &str) -> Result<Node> {
        let DataType::Struct(children) = field.data_type() else {
            return Ok(Node::Leaf);
        };
        let s = array.as_struct();
        let mut nodes = Vec::with_capacity(children.len());
        for (child, column) in children.iter().zip(s.columns()) {
            nodes.push(Self::build(
                child,
                column,
                &format!("{path}.{}", child.name()),
            )?);
        }
        Ok(Node::Struct(nodes, s.nulls().cloned()))
    }

    fn build_list(field: &Field, array: &ArrayRef, path: &str) -> Result<Node> {
        let (Some(item), Some(slots), Some(values)) = (
            item_field(field.data_type()),
            Slots::of(array),
            child_values(array.as_ref()),
        ) else {
            return Ok(Node::Leaf);
        };
        let item_path = format!("{path}.{}", item.name());
        let inner = Self::build(item, &values, &item_path)?;
        Ok(Node::List(slots, array.nulls().cloned(), Box::new(inner)))
    }

    /// Visits `range` as `parquet`'s level builder writes it; the first null
    /// reached in a required field (or decimal too wide) is an error.
    pub(super) fn visit(&self, range: Range<usize>, row: Row) -> Result<()> {
        if range.is_empty() {
            return Ok(());
        }
        match self {
            Node::Required(nulls, name, child) => {
                if let Some(index) = range.clone().find(|&i| nulls.is_null(i)) {
                    return Err(ParquetError::ArrowError(format!(
                        "Found null at index {index} for required field '{name}' (row {})",
                        row.of(index)
                    )));
                }
                child.visit(range, row)
            }
            Node::Leaf => Ok(()),
            Node::Decimal(d) => d.check(range, row),
            Node::List(slots, nulls, child) => {
                if all_null(nulls) {
                    return Ok(());
                }
                for i in range.filter(|&i| is_valid(nulls, i)) {
                    child.visit(slots.range(i), Row::At(row.of(i)))?;
                }
                Ok(())
            }
            Node::Struct(children, nulls) => {
                if all_null(nulls) {
                    return Ok(());
                }
                for run in valid_runs(nulls, range) {
                    for c in children {
                        c.visit(run.clone(), row)?;
                    }
                }
                Ok(())
            }
        }
    }
}

fn all_null(nulls: &Option<NullBuffer>) -> bool {
    nulls.as_ref().is_some_and(|n| n.null_count() == n.len())
}

fn is_valid(nulls: &Option<NullBuffer>, i: usize) -> bool {
    nulls.as_ref().is_none_or(|n| n.is_valid(i))
}

/// The maximal runs of valid slots within `range`.
fn valid_runs(nulls: &Option<NullBuffer>, range: Range<usize>) -> Vec<Range<usize>> {
    let Some(nulls) = nulls else {
        return vec![range];
    };
    let mut runs = Vec::new();
    let mut start = None;
    for i in range.clone() {
        match (nulls.is_valid(i), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    runs.extend(start.map(|s| s..range.end));
    runs
}
