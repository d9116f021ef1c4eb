#![allow(dead_code)]
//! Definition and repetition levels of FIXED_LEN_BYTE_ARRAY leaves inside
//! nested fields (structs, lists, maps, and combinations of them).
//!
//! A field's array is walked depth-first, as `parquet` 60.1's level builder
//! walks it, and for every leaf that is tracked the levels and the positions
//! of its non-null values are recorded. The *representation* of the levels
//! matters as much as their values: `parquet` picks a leaf's mini-batch size
//! from whether its levels are uniform runs or a materialized buffer, so the
//! same rules decide here when a buffer is materialized (the first run stays
//! uniform; another value, or any per-element extension, materializes it).
//!
//! Leaves that are not tracked (other types, written by `parquet` itself) are
//! walked but record nothing.

use arrow_array::cast::AsArray;
use arrow_array::types::RunEndIndexType;
use arrow_array::{Array, ArrayRef, Int32Array, OffsetSizeTrait, RunArray, downcast_run_array};
use arrow_buffer::bit_iterator::BitIndexIterator;
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};
use parquet::errors::{ParquetError, Result};
use std::ops::Range;

/// Level values in one of three representations (`parquet`'s `LevelData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LevelData {
    /// The column has no such levels (max level 0).
    Absent,
    /// `count` copies of `value`.
    Uniform { value: i16, count: usize },
    /// A buffer of levels.
    Materialized(Vec<i16>),
}

impl LevelData {
    fn new(present: bool) -> Self {
        match present {
            true => Self::Materialized(Vec::new()),
            false => Self::Absent,
        }
    }

    /// Number of levels.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Absent => 0,
            Self::Uniform { count, .. } => *count,
            Self::Materialized(v) => v.len(),
        }
    }

    /// Level `i`.
    pub(crate) fn get(&self, i: usize) -> Option<i16> {
        match self {
            Self::Absent => None,
            Self::Uniform { value, count } => (i < *count).then_some(*value),
            Self::Materialized(v) => v.get(i).copied(),
        }
    }

    fn append_run(&mut self, value: i16, count: usize) {
        if count == 0 {
            return;
        }
        match self {
            Self::Absent => {}
            Self::Materialized(values) if values.is_empty() => {
                *self = Self::Uniform { value, count };
            }
            Self::Materialized(values) => values.extend(std::iter::repeat_n(value, count)),
            Self::Uniform { value: v, count: c } if *v == value => *c += count,
            Self::Uniform { .. } => {
                self.materialize_mut()
                    .unwrap()
                    .extend(std::iter::repeat_n(value, count));
            }
        }
    }

    fn extend_from_iter(&mut self, iter: impl IntoIterator<Item = i16>) {
        if let Some(values) = self.materialize_mut() {
            values.extend(iter);
        }
    }

    fn materialize_mut(&mut self) -> Option<&mut Vec<i16>> {
        match self {
            Self::Absent => None,
            Self::Materialized(values) => Some(values),
            Self::Uniform { value, count } => {
                *self = Self::Materialized(vec![*value; *count]);
                match self {
                    Self::Materialized(values) => Some(values),
                    _ => unreachable!(),
                }
            }
        }
    }
}

/// The levels of one leaf column for one batch.
#[derive(Debug, Clone)]
pub(crate) struct LeafLevels {
    pub(crate) def: LevelData,
    pub(crate) rep: LevelData,
    /// Positions in `array` of the values to write, in level order.
    pub(crate) non_null_indices: Vec<usize>,
    pub(crate) max_def: i16,
    pub(crate) max_rep: i16,
    /// The leaf array (dictionary and run-end-encoded wrappers of a leaf
    /// type are kept; `parquet` writes the dictionary's keys for CDC).
    pub(crate) array: ArrayRef,
    logical_nulls: Option<NullBuffer>,
    /// A null reached in a non-nullable field, as `parquet` reports it.
    pub(crate) validation_error: Option<String>,
    tracked: bool,
}

impl LeafLevels {
    fn new(ctx: Ctx, nullable: bool, array: ArrayRef, tracked: bool) -> Self {
        let max_rep = ctx.rep_level;
        let max_def = if nullable {
            ctx.def_level + 1
        } else {
            ctx.def_level
        };
        let logical_nulls = if tracked { array.logical_nulls() } else { None };
        Self {
            def: LevelData::new(max_def != 0),
            rep: LevelData::new(max_rep != 0),
            non_null_indices: Vec::new(),
            max_def,
            max_rep,
            array,
            logical_nulls,
            validation_error: None,
            tracked,
        }
    }

    fn extend_uniform(&mut self, def: i16, rep: i16, count: usize) {
        self.def.append_run(def, count);
        self.rep.append_run(rep, count);
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Ctx {
    rep_level: i16,
    def_level: i16,
}

enum Builder {
    Required(Box<Builder>, NullBuffer, String),
    Primitive(Box<LeafLevels>),
    List(
        Box<Builder>,
        Ctx,
        OffsetBuffer<i32>,
        Option<NullBuffer>,
        bool,
    ),
    LargeList(
        Box<Builder>,
        Ctx,
        OffsetBuffer<i64>,
        Option<NullBuffer>,
        bool,
    ),
    FixedSizeList(Box<Builder>, Ctx, usize, Option<NullBuffer>),
    ListView(
        Box<Builder>,
        Ctx,
        ScalarBuffer<i32>,
        ScalarBuffer<i32>,
        Option<NullBuffer>,
    ),
    LargeListView(
        Box<Builder>,
        Ctx,
        ScalarBuffer<i64>,
        ScalarBuffer<i64>,
        Option<NullBuffer>,
    ),
    Struct(Vec<Builder>, Ctx, Option<NullBuffer>),
}

/// Computes the levels of every leaf of `field` whose depth-first index `i`
/// has `track(i)`; other leaves are `None`.
pub(crate) fn compute_levels(
    field: &Field,
    array: &ArrayRef,
    track: &dyn Fn(usize) -> bool,
) -> Result<Vec<Option<LeafLevels>>> {
    let mut next_leaf = 0;
    let mut builder = Builder::try_new(field, Ctx::default(), array, track, &mut next_leaf)?;
    builder.write(0..array.len());
    let mut out = Vec::new();
    builder.finish(&mut out);
    Ok(out)
}

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

pub(crate) fn is_leaf(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Null
            | DataType::Boolean
            | DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
            | DataType::Float16
            | DataType::Float32
            | DataType::Float64
            | DataType::Utf8
            | DataType::Utf8View
            | DataType::LargeUtf8
            | DataType::Timestamp(_, _)
            | DataType::Date32
            | DataType::Date64
            | DataType::Time32(_)
            | DataType::Time64(_)
            | DataType::Duration(_)
            | DataType::Interval(_)
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::Decimal32(_, _)
            | DataType::Decimal64(_, _)
            | DataType::Decimal128(_, _)
            | DataType::Decimal256(_, _)
            | DataType::FixedSizeBinary(_)
    )
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

impl Builder {
    fn try_new(
        field: &Field,
        ctx: Ctx,
        array: &ArrayRef,
        track: &dyn Fn(usize) -> bool,
        next_leaf: &mut usize,
    ) -> Result<Self> {
        let builder = Self::build(field, ctx, array, track, next_leaf)?;
        let (_, nullable) = logical_type(field.data_type());
        let required = !field.is_nullable() && !nullable;
        let wrap = required
            && match array.data_type() {
                DataType::RunEndEncoded(_, _) => false,
                DataType::Dictionary(_, v) => is_leaf(v),
                _ => true,
            };
        if wrap && let Some(nulls) = array.logical_nulls().filter(|n| n.null_count() != 0) {
            return Ok(Self::Required(
                Box::new(builder),
                nulls,
                field.name().clone(),
            ));
        }
        Ok(builder)
    }

    fn build(
        field: &Field,
        ctx: Ctx,
        array: &ArrayRef,
        track: &dyn Fn(usize) -> bool,
        next_leaf: &mut usize,
    ) -> Result<Self> {
        let (data_type, nullable) = logical_type(field.data_type());
        if data_type != field.data_type() {
            let field = field
                .clone()
                .with_data_type(data_type.clone())
                .with_nullable(field.is_nullable() || nullable);
            return Self::try_new(&field, ctx, array, track, next_leaf);
        }
        let is_nullable = field.is_nullable();
        let leaf = |next_leaf: &mut usize| {
            let i = *next_leaf;
            *next_leaf += 1;
            Ok(Self::Primitive(Box::new(LeafLevels::new(
                ctx,
                is_nullable,
                array.clone(),
                track(i),
            ))))
        };
        match array.data_type() {
            d if is_leaf(d) => leaf(next_leaf),
            DataType::Dictionary(_, v) if is_leaf(v.as_ref()) => leaf(next_leaf),
            DataType::RunEndEncoded(_, _) => {
                let flat = expand_ree(array)?;
                Self::try_new(field, ctx, &flat, track, next_leaf)
            }
            DataType::Dictionary(_, _) => {
                let dict = array.as_any_dictionary();
                let flat = arrow_select::take::take(dict.values().as_ref(), dict.keys(), None)?;
                Self::try_new(field, ctx, &flat, track, next_leaf)
            }
            DataType::Struct(_) => {
                let DataType::Struct(children) = field.data_type() else {
                    return Err(type_error(field, array));
                };
                let array = array.as_struct();
                let ctx = Ctx {
                    rep_level: ctx.rep_level,
                    def_level: ctx.def_level + is_nullable as i16,
                };
                let children = children
                    .iter()
                    .zip(array.columns())
                    .map(|(f, a)| Self::try_new(f, ctx, a, track, next_leaf))
                    .collect::<Result<_>>()?;
                Ok(Self::Struct(children, ctx, array.nulls().cloned()))
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
                    return Err(type_error(field, array));
                };
                let ctx = Ctx {
                    rep_level: ctx.rep_level + 1,
                    def_level: ctx.def_level + 1 + is_nullable as i16,
                };
                Ok(match array.data_type() {
                    DataType::List(_) => {
                        let list = array.as_list::<i32>();
                        let c = Self::try_new(child, ctx, list.values(), track, next_leaf)?;
                        let last = c.child_has_no_nested_rep();
                        Self::List(
                            Box::new(c),
                            ctx,
                            list.offsets().clone(),
                            list.nulls().cloned(),
                            last,
                        )
                    }
                    DataType::LargeList(_) => {
                        let list = array.as_list::<i64>();
                        let c = Self::try_new(child, ctx, list.values(), track, next_leaf)?;
                        let last = c.child_has_no_nested_rep();
                        Self::LargeList(
                            Box::new(c),
                            ctx,
                            list.offsets().clone(),
                            list.nulls().cloned(),
                            last,
                        )
                    }
                    DataType::Map(_, _) => {
                        let map = array.as_map();
                        let entries = std::sync::Arc::new(map.entries().clone()) as ArrayRef;
                        let c = Self::try_new(child, ctx, &entries, track, next_leaf)?;
                        let last = c.child_has_no_nested_rep();
                        Self::List(
                            Box::new(c),
                            ctx,
                            map.offsets().clone(),
                            map.nulls().cloned(),
                            last,
                        )
                    }
                    DataType::FixedSizeList(_, size) => {
                        let list = array.as_fixed_size_list();
                        let c = Self::try_new(child, ctx, list.values(), track, next_leaf)?;
                        Self::FixedSizeList(Box::new(c), ctx, *size as usize, list.nulls().cloned())
                    }
                    DataType::ListView(_) => {
                        let list = array.as_list_view::<i32>();
                        let c = Self::try_new(child, ctx, list.values(), track, next_leaf)?;
                        Self::ListView(
                            Box::new(c),
                            ctx,
                            list.offsets().clone(),
                            list.sizes().clone(),
                            list.nulls().cloned(),
                        )
                    }
                    _ => {
                        let list = array.as_list_view::<i64>();
                        let c = Self::try_new(child, ctx, list.values(), track, next_leaf)?;
                        Self::LargeListView(
                            Box::new(c),
                            ctx,
                            list.offsets().clone(),
                            list.sizes().clone(),
                            list.nulls().cloned(),
                        )
                    }
                })
            }
            d => Err(ParquetError::NYI(format!(
                "Datatype {d} is not yet supported"
            ))),
        }
    }

    fn finish(self, out: &mut Vec<Option<LeafLevels>>) {
        match self {
            Self::Required(c, _, _) => c.finish(out),
            Self::Primitive(l) => out.push(l.tracked.then_some(*l)),
            Self::List(c, ..)
            | Self::LargeList(c, ..)
            | Self::FixedSizeList(c, ..)
            | Self::ListView(c, ..)
            | Self::LargeListView(c, ..) => c.finish(out),
            Self::Struct(children, _, _) => {
                for c in children {
                    c.finish(out)
                }
            }
        }
    }

    /// Calls `visit` on every tracked leaf below.
    fn visit_leaves(&mut self, visit: &mut impl FnMut(&mut LeafLevels)) {
        match self {
            Self::Required(c, _, _) => c.visit_leaves(visit),
            Self::Primitive(l) => {
                if l.tracked {
                    visit(l)
                }
            }
            Self::List(c, ..)
            | Self::LargeList(c, ..)
            | Self::FixedSizeList(c, ..)
            | Self::ListView(c, ..)
            | Self::LargeListView(c, ..) => c.visit_leaves(visit),
            Self::Struct(children, _, _) => {
                for c in children {
                    c.visit_leaves(visit)
                }
            }
        }
    }

    fn child_has_no_nested_rep(&self) -> bool {
        match self {
            Self::Required(c, _, _) => c.child_has_no_nested_rep(),
            Self::Primitive(_) => true,
            Self::Struct(children, _, _) => children.iter().all(|c| c.child_has_no_nested_rep()),
            _ => false,
        }
    }

    fn write(&mut self, range: Range<usize>) {
        match self {
            Self::Required(child, nulls, name) => {
                if let Some(index) = range.clone().find(|&i| nulls.is_null(i)) {
                    let message =
                        format!("Found null at index {index} for required field '{name}'");
                    child.visit_leaves(&mut |leaf| {
                        if leaf.validation_error.is_none() {
                            leaf.validation_error = Some(message.clone());
                        }
                    });
                }
                child.write(range);
            }
            Self::Primitive(info) => write_leaf(info, range),
            Self::List(child, ctx, offsets, nulls, last) => {
                write_list(child, *ctx, offsets, nulls.as_ref(), range, *last)
            }
            Self::LargeList(child, ctx, offsets, nulls, last) => {
                write_list(child, *ctx, offsets, nulls.as_ref(), range, *last)
            }
            Self::FixedSizeList(child, ctx, size, nulls) => {
                write_fixed_size_list(child, *ctx, *size, nulls.as_ref(), range)
            }
            Self::ListView(child, ctx, offsets, sizes, nulls) => {
                write_list_view(child, *ctx, offsets, sizes, nulls.as_ref(), range)
            }
            Self::LargeListView(child, ctx, offsets, sizes, nulls) => {
                write_list_view(child, *ctx, offsets, sizes, nulls.as_ref(), range)
            }
            Self::Struct(children, ctx, nulls) => {
                write_struct(children, *ctx, nulls.as_ref(), range)
            }
        }
    }
}

fn type_error(field: &Field, array: &ArrayRef) -> ParquetError {
    ParquetError::ArrowError(format!(
        "Incompatible type. Field '{}' has type {}, array has type {}",
        field.name(),
        field.data_type(),
        array.data_type()
    ))
}

/// Values at or below which null ranges are filled element by element rather
/// than in bulk (`parquet`'s threshold; it only changes speed, not levels).
const BULK_FILL_MIN_LEN: usize = 64;

fn write_leaf(info: &mut LeafLevels, range: Range<usize>) {
    if !info.tracked {
        return;
    }
    let len = range.end - range.start;
    if let Some(nulls) = &info.logical_nulls
        && !matches!(info.def, LevelData::Absent)
        && nulls.null_count() == nulls.len()
    {
        let (def, rep) = (info.max_def - 1, info.max_rep);
        info.extend_uniform(def, rep, len);
        return;
    }
    if matches!(info.def, LevelData::Absent) {
        info.non_null_indices.extend(range.clone());
    } else {
        let max_def = info.max_def;
        match &info.logical_nulls {
            Some(nulls) => {
                if len >= BULK_FILL_MIN_LEN && nulls.null_count() * 2 >= nulls.len() {
                    let range_nulls = nulls.slice(range.start, len);
                    let buf = info
                        .def
                        .materialize_mut()
                        .expect("definition levels present");
                    let base = buf.len();
                    buf.resize(base + len, max_def - 1);
                    for i in range_nulls.valid_indices() {
                        buf[base + i] = max_def;
                    }
                    info.non_null_indices
                        .extend(range_nulls.valid_indices().map(|i| i + range.start));
                } else {
                    let bits = nulls.inner();
                    info.def
                        .extend_from_iter(range.clone().map(|i| max_def - (!bits.value(i) as i16)));
                    info.non_null_indices.extend(
                        BitIndexIterator::new(bits.inner(), bits.offset() + range.start, len)
                            .map(|i| i + range.start),
                    );
                }
            }
            None => {
                info.def.append_run(max_def, len);
                info.non_null_indices.extend(range.clone());
            }
        }
    }
    if !matches!(info.rep, LevelData::Absent) {
        let max_rep = info.max_rep;
        info.rep.append_run(max_rep, len);
    }
}

fn write_list<O: OffsetSizeTrait>(
    child: &mut Builder,
    ctx: Ctx,
    offsets: &[O],
    nulls: Option<&NullBuffer>,
    range: Range<usize>,
    is_last_level: bool,
) {
    if nulls.is_some_and(|n| n.null_count() == n.len()) {
        let count = range.end - range.start;
        child.visit_leaves(&mut |leaf| {
            leaf.extend_uniform(ctx.def_level - 2, ctx.rep_level - 1, count)
        });
        return;
    }
    let list_start_rep = ctx.rep_level - 1;
    let null_offset = range.start;
    let offsets = &offsets[range.start..range.end + 1];
    let num_slots = offsets.len() - 1;
    if num_slots == 0 {
        return;
    }

    #[derive(Clone, Copy, PartialEq)]
    enum Slot {
        Null,
        Empty,
        NonEmpty,
    }
    let classify = |i: usize| {
        if nulls.is_some_and(|n| n.null_count() > 0 && !n.is_valid(i + null_offset)) {
            Slot::Null
        } else if offsets[i] == offsets[i + 1] {
            Slot::Empty
        } else {
            Slot::NonEmpty
        }
    };
    let flush = |child: &mut Builder, kind: Slot, start: usize, end: usize| match kind {
        Slot::Null => child.visit_leaves(&mut |leaf| {
            leaf.rep.append_run(list_start_rep, end - start);
            leaf.def.append_run(ctx.def_level - 2, end - start);
        }),
        Slot::Empty => child.visit_leaves(&mut |leaf| {
            leaf.rep.append_run(list_start_rep, end - start);
            leaf.def.append_run(ctx.def_level - 1, end - start);
        }),
        Slot::NonEmpty => {
            let run = &offsets[start..end + 1];
            let values_start = run[0].as_usize();
            let values_end = run[run.len() - 1].as_usize();
            child.write(values_start..values_end);
            child.visit_leaves(&mut |leaf| {
                let rep_levels = leaf.rep.materialize_mut().unwrap();
                if is_last_level || leaf.max_rep == ctx.rep_level {
                    let batch_len = values_end - values_start;
                    let base = rep_levels.len() - batch_len;
                    for slot in &run[..run.len() - 1] {
                        rep_levels[base + (slot.as_usize() - values_start)] = list_start_rep;
                    }
                } else {
                    // Count element starts backwards, stamping slot boundaries.
                    let mut bounds = run[..run.len() - 1].iter().rev();
                    let mut next_stamp = values_end - bounds.next().unwrap().as_usize();
                    let mut seen = 0usize;
                    for rep in rep_levels.iter_mut().rev() {
                        if *rep <= ctx.rep_level {
                            seen += 1;
                            if seen == next_stamp {
                                *rep = list_start_rep;
                                match bounds.next() {
                                    Some(o) => next_stamp = values_end - o.as_usize(),
                                    None => break,
                                }
                            }
                        }
                    }
                }
            });
        }
    };
    let mut kind = classify(0);
    let mut start = 0;
    for i in 1..num_slots {
        let k = classify(i);
        if k != kind {
            flush(child, kind, start, i);
            kind = k;
            start = i;
        }
    }
    flush(child, kind, start, num_slots);
}

fn write_list_view<O: OffsetSizeTrait>(
    child: &mut Builder,
    ctx: Ctx,
    offsets: &[O],
    sizes: &[O],
    nulls: Option<&NullBuffer>,
    range: Range<usize>,
) {
    let offsets = &offsets[range.clone()];
    let sizes = &sizes[range.clone()];
    for (idx, (offset, size)) in offsets.iter().zip(sizes).enumerate() {
        let valid = nulls.is_none_or(|n| n.is_valid(idx + range.start));
        let start = offset.as_usize();
        let size = size.as_usize();
        if !valid {
            child.visit_leaves(&mut |leaf| {
                leaf.rep.append_run(ctx.rep_level - 1, 1);
                leaf.def.append_run(ctx.def_level - 2, 1);
            })
        } else if size == 0 {
            child.visit_leaves(&mut |leaf| {
                leaf.rep.append_run(ctx.rep_level - 1, 1);
                leaf.def.append_run(ctx.def_level - 1, 1);
            })
        } else {
            child.write(start..start + size);
            child.visit_leaves(&mut |leaf| {
                let rep_levels = leaf.rep.materialize_mut().unwrap();
                let mut remaining = size;
                for rep in rep_levels.iter_mut().rev() {
                    if *rep > ctx.rep_level {
                        continue;
                    }
                    remaining -= 1;
                    if remaining == 0 {
                        *rep = ctx.rep_level - 1;
                        break;
                    }
                }
            })
        }
    }
}

fn write_struct(
    children: &mut [Builder],
    ctx: Ctx,
    nulls: Option<&NullBuffer>,
    range: Range<usize>,
) {
    let write_null = |children: &mut [Builder], range: Range<usize>| {
        for child in children {
            child.visit_leaves(&mut |leaf| {
                leaf.extend_uniform(ctx.def_level - 1, ctx.rep_level, range.end - range.start)
            })
        }
    };
    if nulls.is_some_and(|n| n.null_count() == n.len()) {
        write_null(children, range);
        return;
    }
    let write_non_null = |children: &mut [Builder], range: Range<usize>| {
        for child in children {
            child.write(range.clone())
        }
    };
    match nulls {
        Some(validity) => {
            let mut last_non_null = None;
            let mut last_null = None;
            for i in range.clone() {
                if validity.is_valid(i) {
                    if let Some(start) = last_null.take() {
                        write_null(children, start..i)
                    }
                    last_non_null.get_or_insert(i);
                } else {
                    if let Some(start) = last_non_null.take() {
                        write_non_null(children, start..i)
                    }
                    last_null.get_or_insert(i);
                }
            }
            if let Some(start) = last_null.take() {
                write_null(children, start..range.end)
            }
            if let Some(start) = last_non_null.take() {
                write_non_null(children, start..range.end)
            }
        }
        None => write_non_null(children, range),
    }
}

fn write_fixed_size_list(
    child: &mut Builder,
    ctx: Ctx,
    fixed_size: usize,
    nulls: Option<&NullBuffer>,
    range: Range<usize>,
) {
    if nulls.is_some_and(|n| n.null_count() == n.len()) {
        let count = range.end - range.start;
        child.visit_leaves(&mut |leaf| {
            leaf.extend_uniform(ctx.def_level - 2, ctx.rep_level - 1, count)
        });
        return;
    }
    let write_rows = |child: &mut Builder, start: usize, end: usize| {
        if fixed_size == 0 {
            child.visit_leaves(&mut |leaf| {
                leaf.rep.append_run(ctx.rep_level - 1, end - start);
                leaf.def.append_run(ctx.def_level - 1, end - start);
            });
            return;
        }
        let (values_start, values_end) = (start * fixed_size, end * fixed_size);
        child.write(values_start..values_end);
        child.visit_leaves(&mut |leaf| {
            let rep_levels = leaf.rep.materialize_mut().unwrap();
            let row_indices = (0..fixed_size)
                .rev()
                .cycle()
                .take(values_end - values_start);
            rep_levels
                .iter_mut()
                .rev()
                .filter(|r| **r == ctx.rep_level)
                .zip(row_indices)
                .for_each(|(r, idx)| {
                    if idx == 0 {
                        *r = ctx.rep_level - 1;
                    }
                });
        })
    };
    match nulls {
        Some(nulls) => {
            let mut start = None;
            for idx in range.clone() {
                if nulls.is_valid(idx) {
                    start.get_or_insert(idx);
                } else {
                    if let Some(s) = start.take() {
                        write_rows(child, s, idx);
                    }
                    child.visit_leaves(&mut |leaf| {
                        leaf.rep.append_run(ctx.rep_level - 1, 1);
                        leaf.def.append_run(ctx.def_level - 2, 1);
                    })
                }
            }
            if let Some(s) = start.take() {
                write_rows(child, s, range.end);
            }
        }
        None => write_rows(child, range.start, range.end),
    }
}
