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

use crate::levels::is_leaf;
use arrow_array::cast::AsArray;
use arrow_array::types::RunEndIndexType;
use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, RunArray, downcast_run_array};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Schema};
use parquet::errors::{ParquetError, Result};
use std::ops::Range;

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
        if checked_elsewhere(i) {
            continue;
        }
        if may_reach_null(field, array.as_ref()) || has_narrow_decimal(field.data_type()) {
            let node = Node::build(field, array, field.name())?;
            node.visit(0..array.len(), Row::Same)
                .map_err(ParquetError::ArrowError)?;
        }
    }
    Ok(())
}

/// Unwraps dictionary and run-end-encoded types; the flag says whether a
/// run-end-encoded value field makes the result nullable.
fn logical_type(mut data_type: &DataType) -> (&DataType, bool) {
    let mut nullable = false;
    loop {
        match data_type {
            DataType::Dictionary(_, value) => data_type = value,
            DataType::RunEndEncoded(_, value) => {
                nullable |= value.is_nullable();
                data_type = value.data_type();
            }
            _ => return (data_type, nullable),
        }
    }
}

/// `parquet`'s compatibility rule between a field's type and an array's.
pub(crate) fn types_compatible(left: &DataType, right: &DataType) -> bool {
    let (left, _) = logical_type(left);
    let (right, _) = logical_type(right);
    match (left, right) {
        (DataType::Struct(l), DataType::Struct(r)) => {
            l.len() == r.len()
                && l.iter()
                    .zip(r)
                    .all(|(a, b)| types_compatible(a.data_type(), b.data_type()))
        }
        (DataType::List(l), DataType::List(r))
        | (DataType::LargeList(l), DataType::LargeList(r))
        | (DataType::ListView(l), DataType::ListView(r))
        | (DataType::LargeListView(l), DataType::LargeListView(r)) => {
            types_compatible(l.data_type(), r.data_type())
        }
        (DataType::FixedSizeList(l, ln), DataType::FixedSizeList(r, rn)) if ln == rn => {
            types_compatible(l.data_type(), r.data_type())
        }
        (DataType::Map(l, ls), DataType::Map(r, rs)) if ls == rs => {
            types_compatible(l.data_type(), r.data_type())
        }
        (
            DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8,
            DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8,
        )
        | (
            DataType::Binary | DataType::BinaryView | DataType::LargeBinary,
            DataType::Binary | DataType::BinaryView | DataType::LargeBinary,
        ) => true,
        _ => left.equals_datatype(right),
    }
}

fn check_types(field: &Field, array: &ArrayRef) -> Result<()> {
    let (field_type, _) = logical_type(field.data_type());
    if !types_compatible(field_type, array.data_type()) {
        return Err(ParquetError::ArrowError(format!(
            "Incompatible type. Field '{}' has type {}, array has type {}",
            field.name(),
            field_type,
            array.data_type(),
        )));
    }
    Ok(())
}

/// Whether a decimal leaf below this type is stored in fewer bytes than Arrow
/// holds it, so a value could be too wide for its column.
fn has_narrow_decimal(data_type: &DataType) -> bool {
    match data_type {
        DataType::Decimal128(p, _) => *p >= 19 && crate::values::decimal_width(*p) < 16,
        DataType::Decimal256(p, _) => *p >= 19 && crate::values::decimal_width(*p) < 32,
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

fn child_values(array: &dyn Array) -> Option<ArrayRef> {
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

/// Which batch row an index of a nested array belongs to.
#[derive(Clone, Copy)]
enum Row {
    /// Indices are rows (top level, or below structs only).
    Same,
    /// Everything below one list slot belongs to this row.
    At(usize),
}

impl Row {
    fn of(self, index: usize) -> usize {
        match self {
            Row::Same => index,
            Row::At(row) => row,
        }
    }
}

/// The shape `parquet`'s level builder gives a field, reduced to what decides
/// which nulls it reaches.
enum Node {
    Required(NullBuffer, String, Box<Node>),
    Leaf,
    /// A decimal leaf stored in fewer bytes than Arrow holds it.
    Decimal(NarrowDecimal),
    List(Vec<usize>, Option<NullBuffer>, Box<Node>),
    FixedSizeList(usize, Option<NullBuffer>, Box<Node>),
    ListView(Vec<usize>, Vec<usize>, Option<NullBuffer>, Box<Node>),
    Struct(Vec<Node>, Option<NullBuffer>),
}

fn expand_ree(array: &ArrayRef) -> Result<ArrayRef> {
    fn expand<R: RunEndIndexType>(run: &RunArray<R>) -> Result<ArrayRef> {
        let ends = run.run_ends();
        let indices: Int32Array = (0..run.len())
            .map(|i| ends.get_physical_index(i) as i32)
            .collect();
        Ok(arrow_select::take::take(
            run.values().as_ref(),
            &indices,
            None,
        )?)
    }
    downcast_run_array!(
        array => expand(array),
        t => Err(ParquetError::ArrowError(format!("expected a run-end encoded array, got {t}"))),
    )
}

impl Node {
    fn build(field: &Field, array: &ArrayRef, path: &str) -> Result<Node> {
        let node = Self::build_inner(field, array, path)?;
        let (_, ree_nullable) = logical_type(field.data_type());
        let wrap = !field.is_nullable()
            && !ree_nullable
            && match array.data_type() {
                DataType::RunEndEncoded(_, _) => false,
                DataType::Dictionary(_, v) => is_leaf(v),
                _ => true,
            };
        if wrap && let Some(nulls) = array.logical_nulls().filter(|n| n.null_count() != 0) {
            return Ok(Node::Required(nulls, path.to_string(), Box::new(node)));
        }
        Ok(node)
    }

    fn build_inner(field: &Field, array: &ArrayRef, path: &str) -> Result<Node> {
        let (data_type, nullable) = logical_type(field.data_type());
        if data_type != field.data_type() {
            let field = field
                .clone()
                .with_data_type(data_type.clone())
                .with_nullable(field.is_nullable() || nullable);
            return Self::build(&field, array, path);
        }
        match array.data_type() {
            DataType::Decimal128(p, _) | DataType::Decimal256(p, _)
                if has_narrow_decimal(array.data_type()) =>
            {
                Ok(Node::Decimal(NarrowDecimal::new(path, array.clone(), *p)))
            }
            DataType::Dictionary(_, v) if has_narrow_decimal(v) => {
                let (DataType::Decimal128(p, _) | DataType::Decimal256(p, _)) = v.as_ref() else {
                    return Ok(Node::Leaf);
                };
                let dict = array.as_any_dictionary();
                let flat = arrow_select::take::take(dict.values().as_ref(), dict.keys(), None)?;
                Ok(Node::Decimal(NarrowDecimal::new(path, flat, *p)))
            }
            d if is_leaf(d) => Ok(Node::Leaf),
            DataType::Dictionary(_, v) if is_leaf(v) => Ok(Node::Leaf),
            DataType::RunEndEncoded(_, _) => Self::build(field, &expand_ree(array)?, path),
            DataType::Dictionary(_, _) => {
                let dict = array.as_any_dictionary();
                let flat = arrow_select::take::take(dict.values().as_ref(), dict.keys(), None)?;
                Self::build(field, &flat, path)
            }
            DataType::Struct(_) => {
                let DataType::Struct(children) = field.data_type() else {
                    return Ok(Node::Leaf);
                };
                let s = array.as_struct();
                let nodes = children
                    .iter()
                    .zip(s.columns())
                    .map(|(f, a)| Self::build(f, a, &format!("{path}.{}", f.name())))
                    .collect::<Result<_>>()?;
                Ok(Node::Struct(nodes, s.nulls().cloned()))
            }
            DataType::List(_)
            | DataType::LargeList(_)
            | DataType::Map(_, _)
            | DataType::FixedSizeList(_, _)
            | DataType::ListView(_)
            | DataType::LargeListView(_) => {
                let (DataType::List(child)
                | DataType::LargeList(child)
                | DataType::Map(child, _)
                | DataType::FixedSizeList(child, _)
                | DataType::ListView(child)
                | DataType::LargeListView(child)) = field.data_type()
                else {
                    return Ok(Node::Leaf);
                };
                let values = child_values(array.as_ref()).unwrap();
                let inner = Box::new(Self::build(
                    child,
                    &values,
                    &format!("{path}.{}", child.name()),
                )?);
                Ok(match array.data_type() {
                    DataType::List(_) => {
                        let l = array.as_list::<i32>();
                        Node::List(
                            l.offsets().iter().map(|&o| o as usize).collect(),
                            l.nulls().cloned(),
                            inner,
                        )
                    }
                    DataType::LargeList(_) => {
                        let l = array.as_list::<i64>();
                        Node::List(
                            l.offsets().iter().map(|&o| o as usize).collect(),
                            l.nulls().cloned(),
                            inner,
                        )
                    }
                    DataType::Map(_, _) => {
                        let m = array.as_map();
                        Node::List(
                            m.offsets().iter().map(|&o| o as usize).collect(),
                            m.nulls().cloned(),
                            inner,
                        )
                    }
                    DataType::FixedSizeList(_, size) => {
                        let l = array.as_fixed_size_list();
                        Node::FixedSizeList(*size as usize, l.nulls().cloned(), inner)
                    }
                    DataType::ListView(_) => {
                        let l = array.as_list_view::<i32>();
                        Node::ListView(
                            l.offsets().iter().map(|&o| o as usize).collect(),
                            l.sizes().iter().map(|&o| o as usize).collect(),
                            l.nulls().cloned(),
                            inner,
                        )
                    }
                    _ => {
                        let l = array.as_list_view::<i64>();
                        Node::ListView(
                            l.offsets().iter().map(|&o| o as usize).collect(),
                            l.sizes().iter().map(|&o| o as usize).collect(),
                            l.nulls().cloned(),
                            inner,
                        )
                    }
                })
            }
            _ => Ok(Node::Leaf),
        }
    }

    /// Visits `range` as `parquet`'s level builder writes it; the first null
    /// reached in a required field is an error.
    fn visit(&self, range: Range<usize>, row: Row) -> std::result::Result<(), String> {
        if range.is_empty() {
            return Ok(());
        }
        match self {
            Node::Required(nulls, name, child) => {
                if let Some(index) = range.clone().find(|&i| nulls.is_null(i)) {
                    return Err(format!(
                        "Found null at index {index} for required field '{name}' (row {})",
                        row.of(index)
                    ));
                }
                child.visit(range, row)
            }
            Node::Leaf => Ok(()),
            Node::Decimal(d) => d.check(range, row),
            Node::List(offsets, nulls, child) => {
                if nulls.as_ref().is_some_and(|n| n.null_count() == n.len()) {
                    return Ok(());
                }
                for i in range {
                    if nulls.as_ref().is_none_or(|n| n.is_valid(i)) && offsets[i] < offsets[i + 1] {
                        child.visit(offsets[i]..offsets[i + 1], Row::At(row.of(i)))?;
                    }
                }
                Ok(())
            }
            Node::FixedSizeList(size, nulls, child) => {
                if nulls.as_ref().is_some_and(|n| n.null_count() == n.len()) || *size == 0 {
                    return Ok(());
                }
                for i in range {
                    if nulls.as_ref().is_none_or(|n| n.is_valid(i)) {
                        child.visit(i * size..(i + 1) * size, Row::At(row.of(i)))?;
                    }
                }
                Ok(())
            }
            Node::ListView(offsets, sizes, nulls, child) => {
                for i in range {
                    if nulls.as_ref().is_none_or(|n| n.is_valid(i)) && sizes[i] > 0 {
                        child.visit(offsets[i]..offsets[i] + sizes[i], Row::At(row.of(i)))?;
                    }
                }
                Ok(())
            }
            Node::Struct(children, nulls) => {
                if nulls.as_ref().is_some_and(|n| n.null_count() == n.len()) {
                    return Ok(());
                }
                match nulls {
                    None => {
                        for c in children {
                            c.visit(range.clone(), row)?;
                        }
                    }
                    Some(n) => {
                        let mut start = None;
                        for i in range.clone() {
                            match (n.is_valid(i), start) {
                                (true, None) => start = Some(i),
                                (false, Some(s)) => {
                                    for c in children {
                                        c.visit(s..i, row)?;
                                    }
                                    start = None;
                                }
                                _ => {}
                            }
                        }
                        if let Some(s) = start {
                            for c in children {
                                c.visit(s..range.end, row)?;
                            }
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

/// A decimal array whose values must fit `width` bytes.
struct NarrowDecimal {
    name: String,
    array: ArrayRef,
    precision: u8,
    width: usize,
}

impl NarrowDecimal {
    fn new(path: &str, array: ArrayRef, precision: u8) -> Self {
        Self {
            name: path.to_string(),
            array,
            precision,
            width: crate::values::decimal_width(precision),
        }
    }

    fn check(&self, range: Range<usize>, row: Row) -> std::result::Result<(), String> {
        let bits = 8 * self.width as u32;
        let unfit = match self.array.data_type() {
            DataType::Decimal128(_, _) => {
                let a = self
                    .array
                    .as_primitive::<arrow_array::types::Decimal128Type>();
                let lo = -(1i128 << (bits - 1));
                let hi = (1i128 << (bits - 1)) - 1;
                range
                    .clone()
                    .find(|&i| a.is_valid(i) && !(lo..=hi).contains(&a.value(i)))
                    .map(|i| (i, a.value(i).to_string()))
            }
            DataType::Decimal256(_, _) => {
                let a = self
                    .array
                    .as_primitive::<arrow_array::types::Decimal256Type>();
                let w = self.width;
                let fits = |v: arrow_buffer::i256| {
                    let b = v.to_le_bytes();
                    let fill = if b[w - 1] & 0x80 != 0 { 0xFF } else { 0 };
                    b[w..].iter().all(|&x| x == fill)
                };
                range
                    .clone()
                    .find(|&i| a.is_valid(i) && !fits(a.value(i)))
                    .map(|i| (i, a.value(i).to_string()))
            }
            _ => None,
        };
        match unfit {
            Some((i, v)) => Err(format!(
                "Column '{}', row {}: decimal value {v} (element {i} of the column's values) \
                 does not fit the {} bytes of a FIXED_LEN_BYTE_ARRAY column for precision {}; \
                 parquet would write a truncated, wrong value",
                self.name,
                row.of(i),
                self.width,
                self.precision
            )),
            None => Ok(()),
        }
    }
}
