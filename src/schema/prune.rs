//! A field with some of its leaves taken out, three ways that must agree:
//! its Arrow type ([`prune_type`]), its Parquet type ([`prune_parquet`]) and
//! an array of it ([`prune_array`]).
//!
//! `keep[i]` says whether leaf `i` of the field stays (numbering as in
//! [`leaf_types`](super::leaf_types), counted through `pos`). Structs lose
//! children and lists lose nothing but their item's leaves; any other node
//! (a leaf, a map, a dictionary) is kept or dropped whole. A struct or list
//! left with no leaf is dropped. Levels depend only on a leaf's own path, so
//! every kept leaf has the same levels in the pruned field.

use super::{leaf_count, list_item};
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, LargeListArray, LargeListViewArray, ListArray,
    ListViewArray, StructArray,
};
use arrow_schema::{DataType, FieldRef};
use parquet::errors::{ParquetError, Result};
use parquet::schema::types::{Type, TypePtr};
use std::sync::Arc;

/// `f` with its data type replaced.
fn retyped(f: &FieldRef, data_type: DataType) -> FieldRef {
    Arc::new(f.as_ref().clone().with_data_type(data_type))
}

/// Takes the next `n` leaves: whether they are all kept (`Some(true)`), all
/// dropped (`Some(false)`), or mixed (an error: the node cannot be split).
fn whole_node(keep: &[bool], pos: &mut usize, n: usize, what: &DataType) -> Result<bool> {
    let sides = keep.get(*pos..*pos + n).unwrap_or_default();
    *pos += n;
    match (sides.iter().all(|&k| k), sides.iter().any(|&k| k)) {
        (true, _) => Ok(true),
        (false, false) => Ok(false),
        (false, true) => Err(ParquetError::General(format!(
            "a {what} node cannot be split between two writers"
        ))),
    }
}

/// The Arrow type without the dropped leaves, None if no leaf is left.
pub(crate) fn prune_type(
    data_type: &DataType,
    keep: &[bool],
    pos: &mut usize,
) -> Result<Option<DataType>> {
    if let Some(item) = list_item(data_type) {
        let Some(t) = prune_type(item.data_type(), keep, pos)? else {
            return Ok(None);
        };
        let item = retyped(item, t);
        return Ok(Some(match data_type {
            DataType::List(_) => DataType::List(item),
            DataType::LargeList(_) => DataType::LargeList(item),
            DataType::ListView(_) => DataType::ListView(item),
            DataType::LargeListView(_) => DataType::LargeListView(item),
            DataType::FixedSizeList(_, n) => DataType::FixedSizeList(item, *n),
            _ => unreachable!("list_item only matches list types"),
        }));
    }
    if let DataType::Struct(fields) = data_type {
        let mut kept = Vec::with_capacity(fields.len());
        for f in fields {
            if let Some(t) = prune_type(f.data_type(), keep, pos)? {
                kept.push(retyped(f, t));
            }
        }
        return Ok((!kept.is_empty()).then(|| DataType::Struct(kept.into())));
    }
    let n = leaf_count(data_type).ok_or_else(|| {
        ParquetError::General(format!("{data_type} has no Parquet leaves to prune"))
    })?;
    Ok(whole_node(keep, pos, n, data_type)?.then(|| data_type.clone()))
}

/// The Parquet type without the dropped leaves, None if no leaf is left.
pub(crate) fn prune_parquet(
    t: &TypePtr,
    keep: &[bool],
    pos: &mut usize,
) -> Result<Option<TypePtr>> {
    if t.is_primitive() {
        let kept = keep.get(*pos).copied().unwrap_or(true);
        *pos += 1;
        return Ok(kept.then(|| t.clone()));
    }
    let mut kept = Vec::new();
    for f in t.get_fields() {
        kept.extend(prune_parquet(f, keep, pos)?);
    }
    if kept.is_empty() {
        return Ok(None);
    }
    let info = t.get_basic_info();
    let mut group = Type::group_type_builder(info.name())
        .with_converted_type(info.converted_type())
        .with_logical_type(info.logical_type_ref().cloned())
        .with_fields(kept);
    if info.has_repetition() {
        group = group.with_repetition(info.repetition());
    }
    if info.has_id() {
        group = group.with_id(Some(info.id()));
    }
    Ok(Some(Arc::new(group.build()?)))
}

/// The array without the dropped leaves (as [`prune_type`] prunes its
/// type), None if no leaf is left. Structs and fixed-size lists keep their
/// length and validity.
pub(crate) fn prune_array(
    array: &ArrayRef,
    keep: &[bool],
    pos: &mut usize,
) -> Result<Option<ArrayRef>> {
    match array.data_type() {
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut kept_fields = Vec::new();
            let mut kept = Vec::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                if let Some(c) = prune_array(c, keep, pos)? {
                    kept_fields.push(retyped(f, c.data_type().clone()));
                    kept.push(c);
                }
            }
            if kept.is_empty() {
                return Ok(None);
            }
            let pruned = StructArray::try_new_with_length(
                kept_fields.into(),
                kept,
                s.nulls().cloned(),
                s.len(),
            )?;
            Ok(Some(Arc::new(pruned)))
        }
        t if list_item(t).is_some() => prune_list(array, keep, pos),
        other => {
            let n = leaf_count(other).unwrap_or(1);
            Ok(whole_node(keep, pos, n, other)?.then(|| array.clone()))
        }
    }
}

/// [`prune_array`] for the list types: the same offsets (and sizes) and
/// validity over pruned values.
fn prune_list(array: &ArrayRef, keep: &[bool], pos: &mut usize) -> Result<Option<ArrayRef>> {
    let data_type = array.data_type();
    let item = list_item(data_type)
        .ok_or_else(|| ParquetError::General(format!("{data_type} is not a list type")))?;
    let values = match data_type {
        DataType::List(_) => array.as_list::<i32>().values(),
        DataType::LargeList(_) => array.as_list::<i64>().values(),
        DataType::ListView(_) => array.as_list_view::<i32>().values(),
        DataType::LargeListView(_) => array.as_list_view::<i64>().values(),
        _ => array.as_fixed_size_list().values(),
    };
    let Some(values) = prune_array(values, keep, pos)? else {
        return Ok(None);
    };
    let item = retyped(item, values.data_type().clone());
    let nulls = array.nulls().cloned();
    let pruned: ArrayRef = match data_type {
        DataType::List(_) => {
            let offsets = array.as_list::<i32>().offsets().clone();
            Arc::new(ListArray::try_new(item, offsets, values, nulls)?)
        }
        DataType::LargeList(_) => {
            let offsets = array.as_list::<i64>().offsets().clone();
            Arc::new(LargeListArray::try_new(item, offsets, values, nulls)?)
        }
        DataType::ListView(_) => {
            let l = array.as_list_view::<i32>();
            let (offsets, sizes) = (l.offsets().clone(), l.sizes().clone());
            Arc::new(ListViewArray::try_new(item, offsets, sizes, values, nulls)?)
        }
        DataType::LargeListView(_) => {
            let l = array.as_list_view::<i64>();
            let (offsets, sizes) = (l.offsets().clone(), l.sizes().clone());
            Arc::new(LargeListViewArray::try_new(
                item, offsets, sizes, values, nulls,
            )?)
        }
        DataType::FixedSizeList(_, n) => Arc::new(FixedSizeListArray::try_new_with_length(
            item,
            *n,
            values,
            nulls,
            array.len(),
        )?),
        _ => unreachable!("list_item only matches list types"),
    };
    Ok(Some(pruned))
}
