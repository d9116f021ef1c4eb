//! Cutting a leaf write into mini-batches exactly as `parquet` 60.1 does
//! (`GenericColumnWriter::write_batch_internal` with its
//! `ByteBudgetChunker`), and the content-defined chunk loop on top.
//!
//! A write call is cut into batches of `base` levels, `base` being
//! `data_page_row_count_limit` when the levels are compact and
//! `write_batch_size` otherwise, each extended to a record boundary. A batch
//! whose fixed-width values could overflow the page (or dictionary) byte
//! budget is written in smaller windows instead. Pages are only cut between
//! mini-batches, so the same cuts give the same pages. (parquet 58 has
//! neither rule: its batches are always `write_batch_size` levels, D19 and
//! D20.)

use super::values::LeafValues;
use super::view::{ChunkBytes, LevelView, Span};
use crate::cdc::Chunker;
use crate::compat;
use crate::page::PageBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::errors::{ParquetError, Result};
use std::ops::Range;

/// How a batch too large for the byte budget is cut into windows.
#[derive(Debug, Clone, Copy)]
enum Windows {
    /// Windows of this many levels, each holding at most `max_values`
    /// values (60.2, D30; `usize::MAX` before).
    Levels { levels: usize, max_values: usize },
    /// Windows of this many values.
    Values(usize),
}

/// The batch size of one write call and whether a whole batch of values
/// always fits the page and dictionary budgets.
struct Budget {
    base: usize,
    /// Bytes per value; None for byte arrays, which never fit statically.
    width: Option<usize>,
    /// Every physical type but the byte arrays: `parquet` sizes a window by
    /// whole values (the budget divided by the width), where for
    /// FIXED_LEN_BYTE_ARRAY it also takes the value that crosses the budget.
    whole_values: bool,
    fits_page: bool,
    fits_dict: bool,
}

impl Budget {
    fn new(b: &PageBuilder, width: Option<usize>, by_row_limit: bool) -> Self {
        let s = b.settings();
        let base = match by_row_limit && compat::COMPACT_LEVELS_BATCHED_BY_ROW_LIMIT {
            true => s.data_page_row_count_limit,
            false => s.write_batch_size,
        }
        .max(1);
        let per_batch = width.map(|w| w.saturating_mul(base));
        // Without byte budget windows (D20) every batch is written whole.
        let budgeted = compat::BYTE_BUDGET_WINDOWS;
        Self {
            base,
            width,
            whole_values: !matches!(
                s.physical,
                PhysicalType::FIXED_LEN_BYTE_ARRAY | PhysicalType::BYTE_ARRAY
            ),
            fits_page: !budgeted || per_batch.is_some_and(|p| p <= s.data_page_size_limit),
            fits_dict: !budgeted || per_batch.is_some_and(|p| p <= s.dictionary_page_size_limit),
        }
    }

    /// The bytes a batch may add (what is left of the dictionary page's
    /// budget while the column has a dictionary, else the data page's), and
    /// whether windows then count values exactly rather than levels; `None`
    /// when every batch fits whatever its content.
    fn budget(&self, b: &PageBuilder) -> Option<(usize, bool)> {
        let s = b.settings();
        match b.has_dictionary() {
            true if self.fits_dict => None,
            true => {
                let used = b.estimated_dict_page_size()?;
                Some((s.dictionary_page_size_limit.saturating_sub(used), false))
            }
            false if self.fits_page => None,
            false => Some((
                s.data_page_size_limit,
                compat::DELTA_WINDOWS_BY_VALUES && b.compresses_against_previous_value(),
            )),
        }
    }

    /// `parquet`'s `ByteBudgetChunker::pick_sub_batch` for a batch of
    /// `levels` levels holding `count()` values, of which `bytes_fit(n,
    /// budget)` fit a budget when they are byte arrays: `None` writes the
    /// batch whole.
    fn windows(
        &self,
        b: &PageBuilder,
        levels: usize,
        count: impl FnOnce() -> usize,
        bytes_fit: impl FnOnce(usize) -> usize,
    ) -> Option<Windows> {
        if levels == 0 {
            return None;
        }
        let (budget, exact) = self.budget(b)?;
        let values = count();
        if values == 0 {
            return None;
        }
        // The value that crosses the budget is included (FIXED_LEN_BYTE_ARRAY
        // and byte arrays).
        let fit = match self.width {
            None => bytes_fit(budget),
            Some(0) => values,
            Some(w) if self.whole_values => values.min(budget / w),
            Some(w) => values.min((budget / w).saturating_add(1)),
        };
        if fit >= values {
            return None;
        }
        let fit = fit.max(1);
        let max_values = match compat::LEVEL_WINDOWS_CAPPED_BY_VALUES {
            true => fit.saturating_mul(2),
            false => usize::MAX,
        };
        Some(match exact {
            true => Windows::Values(fit),
            false if values == levels => Windows::Levels {
                levels: fit,
                max_values,
            },
            false => Windows::Levels {
                levels: levels.min((fit * levels).div_ceil(values).max(1)),
                max_values,
            },
        })
    }
}

/// Writes `span` of a leaf as one `parquet` write call: batches restart at
/// its first level.
pub(super) fn write_span<V: LevelView>(
    b: &mut PageBuilder,
    width: Option<usize>,
    view: &V,
    values: &LeafValues<'_>,
    span: Span,
) -> Result<()> {
    let budget = Budget::new(b, width, view.batches_by_row_limit());
    let end_all = span.levels.end;
    let mut next_value = span.first_value;
    let mut start = span.levels.start;
    while start < end_all {
        let end = view.record_end(end_all.min(start.saturating_add(budget.base)), end_all);
        let fit = |budget| bytes_fit(view, values, (start, end), next_value, budget);
        next_value = match budget.windows(b, end - start, || view.values_in(start, end), fit) {
            None => next_value + view.write_mini_batch(b, values, start, end, next_value)?,
            Some(w) => write_windows(b, view, values, start..end, w, next_value)?,
        };
        start = end;
    }
    Ok(())
}

/// How many of the byte arrays among levels `[start, end)` (the first
/// being the write's `first_value`-th value) fit `budget`, as `parquet`
/// counts them; every value of an Arrow dictionary array fits.
fn bytes_fit<V: LevelView>(
    view: &V,
    values: &LeafValues<'_>,
    (start, end): (usize, usize),
    first_value: usize,
    budget: usize,
) -> usize {
    let picks = view.picks(start, end, first_value);
    match values {
        LeafValues::Bytes { values, keys: None } => values.count_within_budget(&picks, budget),
        _ => picks.count(),
    }
}

/// Writes `batch` in windows (`parquet`'s `write_granular_chunk`), each
/// extended to a record boundary; returns the next value index.
fn write_windows<V: LevelView>(
    b: &mut PageBuilder,
    view: &V,
    values: &LeafValues<'_>,
    batch: Range<usize>,
    windows: Windows,
    mut next_value: usize,
) -> Result<usize> {
    let mut start = batch.start;
    while start < batch.end {
        let end = match windows {
            Windows::Levels { levels, max_values } => {
                let end = batch.end.min(start + levels);
                match max_values {
                    usize::MAX => end,
                    n => view.end_of_values(start, end, n),
                }
            }
            Windows::Values(n) => view.end_of_values(start, batch.end, n),
        };
        let end = view.record_end(end, batch.end);
        next_value += view.write_mini_batch(b, values, start, end, next_value)?;
        start = end;
    }
    Ok(next_value)
}

/// Writes a whole leaf in content-defined chunks, cutting a page after every
/// chunk but the last (`parquet`'s `write_with_chunker`). `array` is the
/// leaf as given: a dictionary array is chunked by its keys, anything else
/// by its values' Arrow bytes.
pub(super) fn write_content_defined<V: LevelView>(
    b: &mut PageBuilder,
    width: Option<usize>,
    view: &V,
    values: &LeafValues<'_>,
    chunker: &mut Chunker,
    array: &ArrayRef,
) -> Result<()> {
    let spans = match (array.data_type(), values) {
        (DataType::Dictionary(_, _), _) => {
            let keys = array.as_any_dictionary().keys().to_data();
            let key_width = keys.data_type().primitive_width().unwrap_or(1);
            let bytes = &keys.buffers()[0].as_slice()[keys.offset() * key_width..];
            view.content_chunks(chunker, ChunkBytes::Fixed(bytes, key_width))
        }
        // A boolean is hashed as the byte 0 or 1.
        (_, LeafValues::Fixed(v)) if v.is_bits() => {
            let bytes = v.bits_as_bytes(array.len());
            view.content_chunks(chunker, ChunkBytes::Fixed(&bytes, 1))
        }
        (_, LeafValues::Fixed(v)) => view.content_chunks(
            chunker,
            ChunkBytes::Fixed(v.native_bytes(), v.native_width()),
        ),
        (_, bytes) => view.content_chunks(chunker, ChunkBytes::Bytes(*bytes)),
    };
    if spans.iter().any(|span| view.values_out_of_order(span)) {
        return Err(ParquetError::General(format!(
            "Column '{}': parquet {} cannot chunk this write by content: a chunk's values are \
             out of order in the array (a list view's), and parquet slices a chunk's values \
             from its first to its last one (it panics: index out of bounds); write the column \
             as a List, or without content-defined chunking",
            b.column_name(),
            compat::RESOLVED_RELEASE
        )));
    }
    let last = spans.len().saturating_sub(1);
    b.expect_cuts(last);
    for (k, span) in spans.into_iter().enumerate() {
        write_span(b, width, view, values, span)?;
        if k < last {
            b.add_data_page()?;
        }
    }
    Ok(())
}
