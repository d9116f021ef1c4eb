//! Where a batch is cut into row groups, as `parquet`'s `ArrowWriter::write`
//! cuts it: by the row limit, and by the byte limit against the row
//! group's estimated size.

use super::RowGroupWriter;
use std::io::Write;

/// What to do with the rest of a batch.
pub(super) enum Step {
    /// The row group is full: flush it first.
    Flush,
    /// Write this many rows into the row group (all that are left if None).
    Write(Option<usize>),
}

impl<W: Write + Send> RowGroupWriter<W> {
    /// Where the next part of a batch of `left` rows ends, by the row and
    /// byte limits; `buffered` rows are in the row group already.
    pub(super) fn next_step(&self, buffered: usize, left: usize) -> Step {
        let by_rows = self
            .max_rows
            .filter(|&max| buffered + left > max)
            .map(|max| max - buffered);
        if by_rows.is_some() && !crate::compat::ROW_GROUP_SPLIT_MEASURES_TRIMMED_ROWS {
            // parquet 59 splits by the row limit alone first; the byte limit
            // then splits the first piece on its own (D18).
            return Step::Write(by_rows);
        }
        if buffered == 0 {
            // Nothing to measure a row by yet: 60.2 writes one row first so
            // that the byte limit applies to the rest of the batch (D29).
            let first_alone = crate::compat::ROW_GROUP_BYTES_FIRST_ROW_ALONE
                && self.max_bytes.is_some()
                && by_rows.unwrap_or(left) > 1;
            return Step::Write(if first_alone { Some(1) } else { by_rows });
        }
        let Some(max_bytes) = self.max_bytes else {
            return Step::Write(by_rows);
        };
        let current = self.estimated_bytes();
        if current >= max_bytes {
            return Step::Flush;
        }
        let per_row = current / buffered;
        match (max_bytes - current).checked_div(per_row) {
            Some(0) => Step::Flush,
            Some(fit) if fit < by_rows.unwrap_or(left) => Step::Write(Some(fit)),
            _ => Step::Write(by_rows),
        }
    }

    /// Whether the row group has reached a limit.
    pub(super) fn is_full(&self, rows: usize) -> bool {
        self.max_rows.is_some_and(|max| rows >= max)
            || self
                .max_bytes
                .is_some_and(|max| self.estimated_bytes() >= max)
    }

    /// Estimated encoded bytes of the row group, over every column (once
    /// the lanes are idle).
    pub(super) fn estimated_bytes(&self) -> usize {
        let own = self.in_progress.as_ref().map_or(0, |rg| {
            rg.writers
                .iter()
                .map(|(_, w)| w.get_estimated_total_bytes())
                .sum::<usize>()
                + self.estimated_on_lanes()
        });
        own + self.sink.get().estimated_bytes()
    }
}
