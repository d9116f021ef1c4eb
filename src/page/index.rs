//! The column index and offset index of a column chunk, an entry per page,
//! and the boundary order the column index declares.

use super::metrics::PageCounters;
use super::settings::ColumnSettings;
use super::truncate::{truncate_max, truncate_min};
use crate::compat;
use crate::encoding::min_max::MinMax;
use crate::values::ValueOrder;
use parquet::basic::BoundaryOrder;
use parquet::errors::Result;
use parquet::file::metadata::{ColumnIndexBuilder, LevelHistogram, OffsetIndexBuilder};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::properties::EnabledStatistics;
use std::cmp::Ordering::Greater;

/// Builders of the column chunk's page indexes.
pub(crate) struct PageIndexes {
    column_index: ColumnIndexBuilder,
    offset_index: Option<OffsetIndexBuilder>,
    /// Whether page min/max so far never decrease (resp. increase).
    ascending: bool,
    descending: bool,
    /// Min/max of the last page with statistics.
    last_page: MinMax,
}

impl std::fmt::Debug for PageIndexes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageIndexes")
            .field("column_index", &self.column_index.valid())
            .field("offset_index", &self.offset_index.is_some())
            .finish_non_exhaustive()
    }
}

impl PageIndexes {
    /// Empty indexes; the column index only with page statistics.
    pub(crate) fn new(s: &ColumnSettings) -> Self {
        let mut column_index = ColumnIndexBuilder::new(s.physical);
        if s.statistics != EnabledStatistics::Page {
            column_index.to_invalid();
        }
        Self {
            column_index,
            offset_index: s.offset_index.then(OffsetIndexBuilder::new),
            ascending: true,
            descending: true,
            last_page: MinMax::default(),
        }
    }

    /// Entries for the page being cut: `min_max` when it has page statistics,
    /// `nans` as its encoder counted them, `(rep, def)` its level histograms.
    pub(crate) fn add_page(
        &mut self,
        s: &ColumnSettings,
        page: &PageCounters,
        min_max: Option<&MinMax>,
        (nans, variable_length_bytes): (Option<u64>, Option<i64>),
        (rep, def): (Option<LevelHistogram>, Option<LevelHistogram>),
    ) {
        // A page of nulls only: 60.2 compares the nulls with the levels,
        // earlier releases with the rows, which a list's page can match
        // while it holds values (D28).
        let null_page = match compat::NULL_PAGE_BY_LEVELS {
            true => page.levels as u64 == page.nulls,
            false => page.rows as u64 == page.nulls,
        };
        let nan_count = (compat::NAN_COUNTS && s.floating).then(|| nans.unwrap_or(0) as i64);
        if self.column_index.valid() {
            let nulls = page.nulls as i64;
            match min_max.and_then(|m| m.min().zip(m.max())) {
                _ if null_page => compat::column_index_append(
                    &mut self.column_index,
                    true,
                    (vec![], vec![]),
                    nulls,
                    nan_count,
                ),
                None => self.column_index.to_invalid(),
                Some((min, max)) => {
                    self.track_order(s.order, min, max);
                    let (min, max) = match s.truncatable {
                        true => (
                            truncate_min(min, s.column_index_truncate_length, s.utf8).0,
                            truncate_max(max, s.column_index_truncate_length, s.utf8).0,
                        ),
                        false => (min.to_vec(), max.to_vec()),
                    };
                    compat::column_index_append(
                        &mut self.column_index,
                        false,
                        (min, max),
                        nulls,
                        nan_count,
                    );
                }
            }
        }
        self.column_index.append_histograms(&rep, &def);
        if let Some(index) = &mut self.offset_index {
            index.append_row_count(page.rows as i64);
            index.append_unencoded_byte_array_data_bytes(variable_length_bytes);
        }
    }

    /// Updates the boundary order with a page's min and max.
    fn track_order(&mut self, order: ValueOrder, min: &[u8], max: &[u8]) {
        if let (Some(last_min), Some(last_max)) = (self.last_page.min(), self.last_page.max()) {
            if self.ascending
                && (order.cmp(last_min, min) == Greater || order.cmp(last_max, max) == Greater)
            {
                self.ascending = false;
            }
            if self.descending
                && (order.cmp(min, last_min) == Greater || order.cmp(max, last_max) == Greater)
            {
                self.descending = false;
            }
        }
        self.last_page.clear();
        self.last_page.update(ValueOrder::Unsigned, min, max);
    }

    /// The offset index entry of a page written at `offset`, `len` bytes.
    pub(crate) fn add_location(&mut self, offset: u64, len: usize) {
        if let Some(index) = &mut self.offset_index {
            index.append_offset_and_size(offset as i64, len as i32);
        }
    }

    /// The finished column index (if valid) and offset index (if kept).
    pub(crate) fn finish(
        mut self,
    ) -> Result<(Option<ColumnIndexMetaData>, Option<OffsetIndexMetaData>)> {
        self.column_index
            .set_boundary_order(match (self.ascending, self.descending) {
                (true, _) => BoundaryOrder::ASCENDING,
                (false, true) => BoundaryOrder::DESCENDING,
                (false, false) => BoundaryOrder::UNORDERED,
            });
        let column_index = match self.column_index.valid() {
            true => Some(self.column_index.build()?),
            false => None,
        };
        Ok((
            column_index,
            self.offset_index.map(OffsetIndexBuilder::build),
        ))
    }
}
