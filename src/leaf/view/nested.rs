//! [`NestedLevels`]: the levels of a leaf inside a nested (or
//! dictionary-typed) field, as a [`LevelView`].

use super::{ChunkBytes, LevelView, Span};
use crate::cdc::Chunker;
use crate::leaf::values::LeafValues;
use crate::levels::{LeafLevels, LevelData};
use crate::page::{MiniBatchLevels, PageBuilder};
use crate::values::IndexValues;
use crate::values::bytes::Picks;
use parquet::errors::Result;
/// The levels of a leaf inside a nested (or dictionary-typed) field.
pub(in crate::leaf) struct NestedLevels<'a> {
    levels: &'a LeafLevels,
    num_levels: usize,
    repeated_ancestor_def_level: i16,
}

impl<'a> NestedLevels<'a> {
    /// Views `levels` of a column whose repeated ancestor has definition
    /// level `repeated_ancestor_def_level`.
    pub(in crate::leaf) fn new(levels: &'a LeafLevels, repeated_ancestor_def_level: i16) -> Self {
        // `parquet` counts the longer of the two; with neither, the values.
        let num_levels = match levels.def.len().max(levels.rep.len()) {
            0 => levels.non_null_indices.len(),
            n => n,
        };
        Self {
            levels,
            num_levels,
            repeated_ancestor_def_level,
        }
    }

    /// The record (top-level row) that level `at` belongs to.
    pub(in crate::leaf) fn record_of(&self, at: usize) -> usize {
        match &self.levels.rep {
            LevelData::Materialized(rep) => rep[..=at]
                .iter()
                .filter(|&&r| r == 0)
                .count()
                .saturating_sub(1),
            _ => at,
        }
    }
}

/// `levels[start..end]` as the page builder takes them.
fn mini_batch_levels(levels: &LevelData, start: usize, end: usize) -> MiniBatchLevels<'_> {
    match levels {
        LevelData::Absent => MiniBatchLevels::Absent,
        LevelData::Uniform { value, .. } => MiniBatchLevels::Uniform(*value),
        LevelData::Materialized(v) => MiniBatchLevels::Slice(&v[start..end]),
    }
}

impl LevelView for NestedLevels<'_> {
    fn num_levels(&self) -> usize {
        self.num_levels
    }

    fn num_positions(&self) -> usize {
        self.levels.array.len()
    }

    fn batches_by_row_limit(&self) -> bool {
        let (def, rep) = (&self.levels.def, &self.levels.rep);
        let materialized = |l: &LevelData| matches!(l, LevelData::Materialized(_));
        let absent = |l: &LevelData| matches!(l, LevelData::Absent);
        let compact = !materialized(def) && !materialized(rep);
        let present = !absent(def) || !absent(rep);
        compact && present
    }

    fn values_in(&self, start: usize, end: usize) -> usize {
        let max_def = self.levels.max_def;
        match &self.levels.def {
            LevelData::Absent => end - start,
            LevelData::Uniform { value, .. } if *value == max_def => end - start,
            LevelData::Uniform { .. } => 0,
            LevelData::Materialized(v) => v[start..end].iter().filter(|&&l| l == max_def).count(),
        }
    }

    fn end_of_values(&self, start: usize, end: usize, n: usize) -> usize {
        let max_def = self.levels.max_def;
        match &self.levels.def {
            LevelData::Absent => end.min(start.saturating_add(n)),
            LevelData::Uniform { value, .. } if *value == max_def => {
                end.min(start.saturating_add(n))
            }
            LevelData::Uniform { .. } => end,
            LevelData::Materialized(v) => {
                let mut seen = 0;
                for (i, &l) in v[start..end].iter().enumerate() {
                    seen += usize::from(l == max_def);
                    if seen == n {
                        return start + i + 1;
                    }
                }
                end
            }
        }
    }

    fn record_end(&self, mut at: usize, end: usize) -> usize {
        if let LevelData::Materialized(rep) = &self.levels.rep {
            while at < end && rep[at] != 0 {
                at += 1;
            }
        }
        at
    }

    fn for_each_value(&self, f: impl FnMut(usize)) {
        self.levels.non_null_indices.iter().copied().for_each(f)
    }

    fn picks(&self, start: usize, end: usize, first_value: usize) -> Picks<'_> {
        let n = self.values_in(start, end);
        Picks::Indices(&self.levels.non_null_indices[first_value..first_value + n])
    }

    fn write_mini_batch(
        &self,
        builder: &mut PageBuilder,
        values: &LeafValues<'_>,
        start: usize,
        end: usize,
        first_value: usize,
    ) -> Result<usize> {
        let picks = self.picks(start, end, first_value);
        let n = picks.count();
        let def = mini_batch_levels(&self.levels.def, start, end);
        let rep = mini_batch_levels(&self.levels.rep, start, end);
        match (values, picks) {
            (LeafValues::Fixed(values), Picks::Indices(indices)) => {
                let src = IndexValues { values, indices };
                builder.write_mini_batch_nested(end - start, def, rep, &src)?;
            }
            (bytes, picks) => match bytes.byte_source(picks) {
                Some(src) => builder.write_mini_batch_nested(end - start, def, rep, &src)?,
                None => unreachable!("nested picks are indices"),
            },
        }
        Ok(n)
    }

    fn values_out_of_order(&self, span: &Span) -> bool {
        let n = self.values_in(span.levels.start, span.levels.end);
        let indices = &self.levels.non_null_indices[span.first_value..span.first_value + n];
        match (indices.first(), indices.last()) {
            (Some(&first), Some(&last)) => indices.iter().any(|&i| i < first || i > last),
            _ => false,
        }
    }

    fn content_chunks(&self, chunker: &mut Chunker, bytes: ChunkBytes<'_>) -> Vec<Span> {
        let l = self.levels;
        let chunks = chunker.chunks_leveled(
            &l.def,
            &l.rep,
            l.max_def,
            l.max_rep,
            self.repeated_ancestor_def_level,
            self.num_levels,
            |i| bytes.at(i),
        );
        chunks
            .into_iter()
            .map(|c| Span {
                levels: c.level_offset..c.level_offset + c.num_levels,
                first_value: c.value_offset,
            })
            .collect()
    }
}
