//! The fast path for a top-level FIXED_LEN_BYTE_ARRAY leaf: levels from the
//! validity bitmap, mini-batches cut as `parquet` cuts them, values converted
//! straight from the Arrow buffers into the page builder.
//!
//! `parquet` writes a leaf in mini-batches: `data_page_row_count_limit` levels
//! when the levels are uniform (no null buffer, or all null), otherwise
//! `write_batch_size`; and when a batch of fixed-width values could overflow a
//! page or dictionary byte budget, in smaller windows. Pages are only cut
//! between mini-batches, so the same cuts are needed for the same pages.

use crate::cdc::Chunker;
use crate::chunk::{FlbaChunk, PageSink};
use crate::levels::{LeafLevels, LevelData};
use crate::page::{MiniBatchLevels, PageBuilder};
use crate::values::{BitmapValues, FlbaKind, IndexValues, NativeValues, RangeValues};
use arrow_array::cast::AsArray;
use arrow_array::types::RunEndIndexType;
use arrow_array::{Array, ArrayRef, downcast_run_array};
use arrow_array::{Int32Array, RunArray};
use arrow_buffer::NullBuffer;
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_schema::{DataType, FieldRef};
use parquet::arrow::arrow_writer::PageStore;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;
use std::collections::HashSet;
use std::sync::Arc;
use twox_hash::XxHash64;

/// A leaf column that is a whole top-level field.
#[derive(Debug, Clone)]
pub(crate) struct FlatLeaf {
    pub(crate) field: FieldRef,
    pub(crate) array: ArrayRef,
}

/// A leaf array resolved to plain values plus its logical nulls.
struct Resolved {
    values: ArrayRef,
    nulls: Option<NullBuffer>,
}

/// How the definition levels of a whole write are represented; decides the
/// mini-batch size exactly as `parquet`'s `LevelData` does.
#[derive(Clone, Copy)]
enum Levels<'a> {
    Absent,
    Uniform(i16),
    Bitmap(&'a NullBuffer),
}

enum SubBatch {
    Levels(usize),
    Values(usize),
}

/// Writes the column chunk of one FLBA leaf.
pub(crate) struct FlbaColumnWriter {
    kind: FlbaKind,
    width: usize,
    builder: PageBuilder,
    distinct: Option<HashSet<u64>>,
    repeated_ancestor_def_level: i16,
}

impl std::fmt::Debug for FlbaColumnWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlbaColumnWriter")
            .field("kind", &self.kind)
            .field("builder", &self.builder)
            .finish_non_exhaustive()
    }
}

impl FlbaColumnWriter {
    pub(crate) fn try_new(
        descr: ColumnDescPtr,
        props: &WriterProperties,
        kind: FlbaKind,
        store: Option<Box<dyn PageStore>>,
    ) -> Result<Self> {
        let width = descr.type_length() as usize;
        let repeated_ancestor_def_level = descr.repeated_ancestor_def_level();
        let builder = PageBuilder::try_new(descr, props, kind.order(), PageSink::new(store))?;
        Ok(Self {
            kind,
            width,
            builder,
            distinct: props
                .write_row_group_number_distinct_values()
                .then(HashSet::new),
            repeated_ancestor_def_level,
        })
    }

    fn resolve(&self, leaf: &FlatLeaf) -> Result<Resolved> {
        resolve(leaf)
    }

    fn check(&self, leaf: &FlatLeaf, r: &Resolved) -> Result<()> {
        let shape = LeafShape {
            kind: self.kind,
            width: self.width,
            max_def: self.builder.settings().max_def,
        };
        shape.check(leaf, r)
    }
}

/// What validation needs to know about an FLBA leaf column.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeafShape {
    pub(crate) kind: FlbaKind,
    pub(crate) width: usize,
    pub(crate) max_def: i16,
}

/// Resolves a leaf's array to plain values (expanding a dictionary or
/// run-end-encoded array) and its logical nulls.
fn resolve(leaf: &FlatLeaf) -> Result<Resolved> {
    let array = &leaf.array;
    let field_type = leaf.field.data_type();
    match array.data_type() {
        DataType::Dictionary(_, value) if value.as_ref() == field_type => {
            let dict = array.as_any_dictionary();
            let values = arrow_select::take::take(dict.values().as_ref(), dict.keys(), None)?;
            Ok(Resolved {
                nulls: array.logical_nulls(),
                values,
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

impl LeafShape {
    /// Checks a leaf without writing it: type, nulls in a required field,
    /// decimals that do not fit the column's width.
    pub(crate) fn validate(&self, leaf: &FlatLeaf) -> Result<()> {
        let resolved = resolve(leaf)?;
        self.check(leaf, &resolved)
    }

    fn check(&self, leaf: &FlatLeaf, r: &Resolved) -> Result<()> {
        let len = r.values.len();
        if self.max_def == 0
            && let Some(nulls) = r.nulls.as_ref().filter(|n| n.null_count() > 0)
        {
            let index = (0..len).find(|&i| nulls.is_null(i)).unwrap_or(0);
            return Err(ParquetError::ArrowError(format!(
                "Found null at index {index} for required field '{}'",
                leaf.field.name()
            )));
        }
        let values = NativeValues::new(self.kind, self.width, r.values.as_ref())?;
        let unfit = match &r.nulls {
            Some(nulls) => values.first_unfit_decimal(len, |i| nulls.is_valid(i)),
            None => values.first_unfit_decimal(len, |_| true),
        };
        if let Some(row) = unfit {
            let precision = match leaf.field.data_type() {
                DataType::Decimal128(p, _) | DataType::Decimal256(p, _) => *p,
                _ => 0,
            };
            return Err(ParquetError::General(format!(
                "Column '{}', row {row}: decimal value {} does not fit the {} bytes of a \
                 FIXED_LEN_BYTE_ARRAY column for precision {precision}; parquet would write a \
                 truncated, wrong value",
                leaf.field.name(),
                values.format_decimal(row),
                self.width,
            )));
        }
        Ok(())
    }
}

impl FlbaColumnWriter {
    /// Validates and writes a leaf; nothing is buffered if validation fails.
    pub(crate) fn write(&mut self, leaf: &FlatLeaf) -> Result<()> {
        let resolved = self.resolve(leaf)?;
        self.check(leaf, &resolved)?;
        self.write_resolved(&resolved)
    }

    /// Writes a leaf already validated with [`LeafShape::validate`].
    pub(crate) fn write_unchecked(&mut self, leaf: &FlatLeaf) -> Result<()> {
        let resolved = self.resolve(leaf)?;
        self.write_resolved(&resolved)
    }

    fn write_resolved(&mut self, r: &Resolved) -> Result<()> {
        self.write_resolved_chunked(r, None)
    }

    /// Validates nothing; writes `leaf` in content-defined chunks, cutting a
    /// page after every chunk but the last (`parquet`'s `write_with_chunker`).
    pub(crate) fn write_chunked_unchecked(
        &mut self,
        leaf: &FlatLeaf,
        chunker: &mut Chunker,
    ) -> Result<()> {
        let resolved = self.resolve(leaf)?;
        self.write_resolved_chunked(&resolved, Some((chunker, &leaf.array)))
    }

    fn write_resolved_chunked(
        &mut self,
        r: &Resolved,
        chunker: Option<(&mut Chunker, &ArrayRef)>,
    ) -> Result<()> {
        let len = r.values.len();
        let values = NativeValues::new(self.kind, self.width, r.values.as_ref())?;
        if let Some(seen) = &mut self.distinct {
            match &r.nulls {
                Some(nulls) => {
                    for i in nulls.valid_indices() {
                        seen.insert(XxHash64::oneshot(0, values.native(i)));
                    }
                }
                None => {
                    for i in 0..len {
                        seen.insert(XxHash64::oneshot(0, values.native(i)));
                    }
                }
            }
        }
        let max_def = self.builder.settings().max_def;
        let levels = if max_def == 0 {
            Levels::Absent
        } else {
            match &r.nulls {
                None => Levels::Uniform(max_def),
                Some(n) if len > 0 && n.null_count() == n.len() => Levels::Uniform(max_def - 1),
                Some(n) => Levels::Bitmap(n),
            }
        };
        match chunker {
            None => self.write_range(&values, levels, 0, len),
            Some((chunker, original)) => {
                let chunks = match original.data_type() {
                    // A dictionary array is chunked by its keys.
                    DataType::Dictionary(_, _) => {
                        let keys = original.as_any_dictionary().keys().to_data();
                        let width = keys.data_type().primitive_width().unwrap_or(1);
                        let bytes = &keys.buffers()[0].as_slice()[keys.offset() * width..];
                        chunker.chunks_fixed(len, max_def > 0, r.nulls.as_ref(), bytes, width)
                    }
                    _ => chunker.chunks_fixed(
                        len,
                        max_def > 0,
                        r.nulls.as_ref(),
                        values.native_bytes(),
                        values.native_width(),
                    ),
                };
                let last = chunks.len().saturating_sub(1);
                for (k, chunk) in chunks.iter().enumerate() {
                    self.write_range(&values, levels, chunk.offset, chunk.len)?;
                    if k < last {
                        self.builder.add_data_page()?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Writes levels `[start, start + len)` as one `parquet` write call:
    /// mini-batches restart at `start`.
    fn write_range(
        &mut self,
        values: &NativeValues<'_>,
        levels: Levels<'_>,
        start: usize,
        len: usize,
    ) -> Result<()> {
        let s = self.builder.settings();
        let compact = !matches!(levels, Levels::Bitmap(_));
        let base = if compact && s.max_def > 0 {
            s.data_page_row_count_limit
        } else {
            s.write_batch_size
        }
        .max(1);
        let per_batch = self.width.saturating_mul(base);
        let fits_page = per_batch <= s.data_page_size_limit;
        let fits_dict = per_batch <= s.dictionary_page_size_limit;

        let end_all = start + len;
        let mut offset = start;
        while offset < end_all {
            let end = end_all.min(offset + base);
            let chunk = end - offset;
            match self.pick_sub_batch(levels, offset, chunk, fits_page, fits_dict) {
                None => self.mini_batch(values, levels, offset, chunk)?,
                Some(SubBatch::Levels(n)) => {
                    let mut start = 0;
                    while start < chunk {
                        let stop = (start + n).min(chunk);
                        self.mini_batch(values, levels, offset + start, stop - start)?;
                        start = stop;
                    }
                }
                Some(SubBatch::Values(n)) => {
                    let mut start = 0;
                    while start < chunk {
                        let stop = window_end_for_values(levels, offset, chunk, start, n);
                        self.mini_batch(values, levels, offset + start, stop - start)?;
                        start = stop;
                    }
                }
            }
            offset = end;
        }
        Ok(())
    }

    /// Writes a leaf of a nested (or dictionary-typed) field from its levels,
    /// validating it first; with a chunker, in content-defined chunks.
    pub(crate) fn write_leveled(
        &mut self,
        levels: &LeafLevels,
        chunker: Option<&mut Chunker>,
    ) -> Result<()> {
        if let Some(message) = &levels.validation_error {
            return Err(ParquetError::ArrowError(message.clone()));
        }
        let array = match levels.array.data_type() {
            DataType::Dictionary(_, _) => {
                let dict = levels.array.as_any_dictionary();
                arrow_select::take::take(dict.values().as_ref(), dict.keys(), None)?
            }
            _ => levels.array.clone(),
        };
        let values = NativeValues::new(self.kind, self.width, array.as_ref())?;
        let indices = &levels.non_null_indices;
        if let Some(&i) = indices.iter().find(|&&i| values.first_unfit_decimal_at(i)) {
            return Err(ParquetError::General(format!(
                "Column '{}', index {i}: decimal value {} does not fit the {} bytes of a \
                 FIXED_LEN_BYTE_ARRAY column; parquet would write a truncated, wrong value",
                self.builder.column_name(),
                values.format_decimal(i),
                self.width,
            )));
        }
        if let Some(seen) = &mut self.distinct {
            for &i in indices {
                seen.insert(XxHash64::oneshot(0, values.native(i)));
            }
        }
        let num_levels = levels.def.len().max(levels.rep.len());
        let num_levels = if num_levels == 0 {
            indices.len()
        } else {
            num_levels
        };
        match chunker {
            None => self.write_leveled_range(levels, &values, 0, num_levels, 0),
            Some(chunker) => {
                let chunks = match levels.array.data_type() {
                    // A dictionary array is chunked by its keys.
                    DataType::Dictionary(_, _) => {
                        let keys = levels.array.as_any_dictionary().keys().to_data();
                        let width = keys.data_type().primitive_width().unwrap_or(1);
                        let bytes = &keys.buffers()[0].as_slice()[keys.offset() * width..];
                        chunker.chunks_leveled(
                            &levels.def,
                            &levels.rep,
                            levels.max_def,
                            levels.max_rep,
                            self.repeated_ancestor_def_level,
                            num_levels,
                            |i| &bytes[i * width..(i + 1) * width],
                        )
                    }
                    _ => chunker.chunks_leveled(
                        &levels.def,
                        &levels.rep,
                        levels.max_def,
                        levels.max_rep,
                        self.repeated_ancestor_def_level,
                        num_levels,
                        |i| values.native(i),
                    ),
                };
                let last = chunks.len().saturating_sub(1);
                for (k, c) in chunks.iter().enumerate() {
                    self.write_leveled_range(
                        levels,
                        &values,
                        c.level_offset,
                        c.num_levels,
                        c.value_offset,
                    )?;
                    if k < last {
                        self.builder.add_data_page()?;
                    }
                }
                Ok(())
            }
        }
    }

    /// `parquet`'s `write_batch_internal` over levels `[start, start + len)`,
    /// whose values start at `non_null_indices[values_start]`.
    fn write_leveled_range(
        &mut self,
        levels: &LeafLevels,
        values: &NativeValues<'_>,
        start: usize,
        len: usize,
        values_start: usize,
    ) -> Result<()> {
        let s = self.builder.settings();
        let materialized = |l: &LevelData| matches!(l, LevelData::Materialized(_));
        let both_compact = !materialized(&levels.def) && !materialized(&levels.rep);
        let has_levels =
            !matches!(levels.def, LevelData::Absent) || !matches!(levels.rep, LevelData::Absent);
        let base = if both_compact && has_levels {
            s.data_page_row_count_limit
        } else {
            s.write_batch_size
        }
        .max(1);
        let per_batch = self.width.saturating_mul(base);
        let fits_page = per_batch <= s.data_page_size_limit;
        let fits_dict = per_batch <= s.dictionary_page_size_limit;
        let max_def = levels.max_def;
        let end_all = start + len;
        let record_end = |mut end: usize| {
            if let LevelData::Materialized(rep) = &levels.rep {
                while end < end_all && rep[end] != 0 {
                    end += 1;
                }
            }
            end
        };
        let mut offset = start;
        let mut vo = values_start;
        while offset < end_all {
            let end = record_end(end_all.min(offset + base));
            let chunk = end - offset;
            let sub = self.pick_sub_batch_with(chunk, fits_page, fits_dict, || {
                count_level_values(&levels.def, max_def, offset, chunk)
            });
            match sub {
                None => vo = self.leveled_mini_batch(levels, values, offset, chunk, vo)?,
                Some(sub) => {
                    let mut w = 0;
                    while w < chunk {
                        let window_end = match sub {
                            SubBatch::Levels(n) => (w + n).min(chunk),
                            SubBatch::Values(n) => {
                                leveled_window_end(&levels.def, max_def, offset, chunk, w, n)
                            }
                        };
                        let stop = record_end(offset + window_end) - offset;
                        vo = self.leveled_mini_batch(levels, values, offset + w, stop - w, vo)?;
                        w = stop;
                    }
                }
            }
            offset = end;
        }
        Ok(())
    }

    /// One mini-batch of a leveled leaf; returns the next value position.
    fn leveled_mini_batch(
        &mut self,
        levels: &LeafLevels,
        values: &NativeValues<'_>,
        offset: usize,
        len: usize,
        vo: usize,
    ) -> Result<usize> {
        fn slice(l: &LevelData, offset: usize, len: usize) -> MiniBatchLevels<'_> {
            match l {
                LevelData::Absent => MiniBatchLevels::Absent,
                LevelData::Uniform { value, .. } => MiniBatchLevels::Uniform(*value),
                LevelData::Materialized(v) => MiniBatchLevels::Slice(&v[offset..offset + len]),
            }
        }
        let n =
            if matches!(levels.def, LevelData::Absent) && matches!(levels.rep, LevelData::Absent) {
                len
            } else {
                count_level_values(&levels.def, levels.max_def, offset, len)
            };
        let src = IndexValues {
            values,
            indices: &levels.non_null_indices[vo..vo + n],
        };
        self.builder.write_mini_batch_nested(
            len,
            slice(&levels.def, offset, len),
            slice(&levels.rep, offset, len),
            &src,
        )?;
        Ok(vo + n)
    }

    /// `parquet`'s `ByteBudgetChunker::pick_sub_batch` for fixed-width values.
    fn pick_sub_batch(
        &self,
        levels: Levels<'_>,
        offset: usize,
        chunk: usize,
        fits_page: bool,
        fits_dict: bool,
    ) -> Option<SubBatch> {
        self.pick_sub_batch_with(chunk, fits_page, fits_dict, || {
            count_values(levels, offset, chunk)
        })
    }

    /// `pick_sub_batch` given a way to count the chunk's values.
    fn pick_sub_batch_with(
        &self,
        chunk: usize,
        fits_page: bool,
        fits_dict: bool,
        count: impl FnOnce() -> usize,
    ) -> Option<SubBatch> {
        if chunk == 0 {
            return None;
        }
        let s = self.builder.settings();
        let (budget, exact) = if self.builder.has_dictionary() {
            if fits_dict {
                return None;
            }
            let used = self.builder.estimated_dict_page_size()?;
            (s.dictionary_page_size_limit.saturating_sub(used), false)
        } else {
            if fits_page {
                return None;
            }
            (
                s.data_page_size_limit,
                self.builder.compresses_against_previous_value(),
            )
        };
        let values = count();
        if values == 0 {
            return None;
        }
        let fit = match self.width {
            0 => values,
            w => values.min((budget / w).saturating_add(1)),
        };
        if fit >= values {
            return None;
        }
        let fit = fit.max(1);
        Some(if exact {
            SubBatch::Values(fit)
        } else {
            let levels = if values == chunk {
                fit
            } else {
                (fit * chunk).div_ceil(values).max(1)
            };
            SubBatch::Levels(chunk.min(levels))
        })
    }

    fn mini_batch(
        &mut self,
        values: &NativeValues<'_>,
        levels: Levels<'_>,
        offset: usize,
        len: usize,
    ) -> Result<()> {
        match levels {
            Levels::Absent | Levels::Uniform(1..) => {
                let mini = match levels {
                    Levels::Uniform(l) => MiniBatchLevels::Uniform(l),
                    _ => MiniBatchLevels::Absent,
                };
                let src = RangeValues {
                    values,
                    start: offset,
                    end: offset + len,
                };
                self.builder.write_mini_batch(len, mini, &src)
            }
            Levels::Uniform(l) => {
                self.builder
                    .write_mini_batch(len, MiniBatchLevels::Uniform(l), &RangeValues::EMPTY)
            }
            Levels::Bitmap(nulls) => {
                let bits = nulls.inner();
                let bit_offset = bits.offset() + offset;
                let src = BitmapValues {
                    values,
                    bits: bits.values(),
                    bit_offset,
                    offset,
                    len,
                    count: bits.slice(offset, len).count_set_bits(),
                };
                self.builder.write_mini_batch(
                    len,
                    MiniBatchLevels::Bitmap(bits.values(), bit_offset),
                    &src,
                )
            }
        }
    }

    /// Heap bytes held by the writer, including the (boxed) writer itself.
    pub(crate) fn memory_size(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.builder.memory_size()
            + self.distinct.as_ref().map_or(0, |s| s.capacity() * 9)
    }

    /// `parquet`'s estimate of the chunk's encoded size so far.
    pub(crate) fn estimated_total_bytes(&self) -> usize {
        self.builder.estimated_total_bytes() as usize
    }

    /// Finishes the column chunk.
    pub(crate) fn close(self) -> Result<FlbaChunk> {
        let distinct = self
            .distinct
            .as_ref()
            .filter(|s| !s.is_empty())
            .map(|s| s.len() as u64);
        self.builder.close(distinct)
    }
}

fn count_values(levels: Levels<'_>, offset: usize, len: usize) -> usize {
    match levels {
        Levels::Absent => len,
        Levels::Uniform(0) => 0,
        Levels::Uniform(_) => len,
        Levels::Bitmap(nulls) => nulls.inner().slice(offset, len).count_set_bits(),
    }
}

/// Number of values (levels equal to `max_def`) in `[offset, offset + len)`.
fn count_level_values(def: &LevelData, max_def: i16, offset: usize, len: usize) -> usize {
    match def {
        LevelData::Absent => len,
        LevelData::Uniform { value, .. } => {
            if *value == max_def {
                len
            } else {
                0
            }
        }
        LevelData::Materialized(v) => v[offset..offset + len]
            .iter()
            .filter(|&&l| l == max_def)
            .count(),
    }
}

/// [`window_end_for_values`] for leveled leaves.
fn leveled_window_end(
    def: &LevelData,
    max_def: i16,
    offset: usize,
    chunk: usize,
    start: usize,
    max_values: usize,
) -> usize {
    match def {
        LevelData::Absent => (start + max_values).min(chunk),
        LevelData::Uniform { value, .. } => {
            if *value == max_def {
                (start + max_values).min(chunk)
            } else {
                chunk
            }
        }
        LevelData::Materialized(v) => {
            let mut seen = 0;
            let mut end = start;
            while end < chunk && seen < max_values {
                if v[offset + end] == max_def {
                    seen += 1;
                }
                end += 1;
            }
            end
        }
    }
}

/// One past the level that holds the `max_values`-th value of a window
/// starting at `start` (relative to the chunk at `offset`), clamped to the
/// chunk.
fn window_end_for_values(
    levels: Levels<'_>,
    offset: usize,
    chunk: usize,
    start: usize,
    max_values: usize,
) -> usize {
    match levels {
        Levels::Absent | Levels::Uniform(1..) => (start + max_values).min(chunk),
        Levels::Uniform(_) => chunk,
        Levels::Bitmap(nulls) => {
            let bits = nulls.inner();
            let mut seen = 0;
            for (s, e) in
                BitSliceIterator::new(bits.values(), bits.offset() + offset + start, chunk - start)
            {
                let run = e - s;
                if seen + run >= max_values {
                    return start + s + (max_values - seen);
                }
                seen += run;
            }
            chunk
        }
    }
}

/// Expands a run-end encoded array to its logical values, as `parquet` does.
fn expand_run_end_encoded(array: &ArrayRef) -> Result<ArrayRef> {
    fn expand<R: RunEndIndexType>(run: &RunArray<R>) -> Result<ArrayRef> {
        let run_ends = run.run_ends();
        let indices: Int32Array = (0..run.len())
            .map(|i| run_ends.get_physical_index(i) as i32)
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

/// Wraps an array as the leaf of `field`.
pub(crate) fn flat_leaf(field: &FieldRef, array: &ArrayRef) -> FlatLeaf {
    FlatLeaf {
        field: Arc::clone(field),
        array: Arc::clone(array),
    }
}
