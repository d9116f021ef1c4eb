//! Chunking a leaf given by its definition and repetition levels
//! (`parquet`'s general path), with values hashed through a callback.
//!
//! Three kinds of leaf: without levels (every item a value), with
//! definition levels only (every item a level, and a value when the level is
//! the maximum), and with repetition levels too. For the last kind a chunk can
//! only end where a record starts (repetition level 0), so a match is carried
//! over the items of a record until its end is checked, and values are looked
//! up by their position among the leaf slots (every item whose definition
//! level reaches the nearest repeated ancestor has one, null or not).

use super::cursor::Cursor;
use super::{Chunker, LeveledChunk};
use crate::levels::LevelData;

impl Chunker {
    /// Chunks of a leaf of `num_levels` items with levels `def` and `rep`
    /// (missing levels read as 0). `value(i)` gives the bytes hashed for
    /// leaf slot `i`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn chunks_leveled<'a>(
        &mut self,
        def: &LevelData,
        rep: &LevelData,
        max_def: i16,
        max_rep: i16,
        repeated_ancestor_def_level: i16,
        num_levels: usize,
        value: impl Fn(usize) -> &'a [u8],
    ) -> Vec<LeveledChunk> {
        let mut cursor = self.cursor();
        let mut cuts = LevelCuts::default();
        let values = if max_rep > 0 {
            let slot_level = repeated_ancestor_def_level;
            records(
                &mut cursor,
                &mut cuts,
                (def, rep),
                (max_def, slot_level),
                num_levels,
                value,
            )
        } else if max_def > 0 {
            optional(&mut cursor, &mut cuts, def, max_def, num_levels, value)
        } else {
            for i in 0..num_levels {
                cursor.piece(value(i));
                if cursor.close_item() {
                    cuts.cut(i, i);
                }
            }
            num_levels
        };
        self.keep(&cursor);
        cuts.finish(num_levels, values)
    }
}

/// Items with definition levels only; returns the number of values.
fn optional<'a>(
    cursor: &mut Cursor,
    cuts: &mut LevelCuts,
    def: &LevelData,
    max_def: i16,
    num_levels: usize,
    value: impl Fn(usize) -> &'a [u8],
) -> usize {
    let mut values = 0;
    for i in 0..num_levels {
        let level = def.get(i).unwrap_or(0);
        let present = level == max_def;
        cursor.piece_level(level);
        if present {
            cursor.piece(value(i));
        }
        if cursor.close_item() {
            cuts.cut(i, values);
        }
        values += usize::from(present);
    }
    values
}

/// Items with definition and repetition levels; returns the number of
/// values. `(max_def, slot_level)`: the definition level of a value and the
/// one from which an item takes a leaf slot.
fn records<'a>(
    cursor: &mut Cursor,
    cuts: &mut LevelCuts,
    (def, rep): (&LevelData, &LevelData),
    (max_def, slot_level): (i16, i16),
    num_levels: usize,
    value: impl Fn(usize) -> &'a [u8],
) -> usize {
    let mut values = 0;
    let mut slot = 0;
    for i in 0..num_levels {
        let (d, r) = (def.get(i).unwrap_or(0), rep.get(i).unwrap_or(0));
        let present = d == max_def;
        cursor.piece_level(d);
        cursor.piece_level(r);
        if present {
            cursor.piece(value(slot));
        }
        // The chunk state moves at every record start, even where no chunk
        // can be cut (the first item of a call).
        if r == 0 && cursor.close_item() && i > cuts.start.0 {
            cuts.cut(i, values);
        }
        values += usize::from(present);
        slot += usize::from(d >= slot_level);
    }
    values
}

/// Collects the [`LeveledChunk`]s of one call.
#[derive(Default)]
struct LevelCuts {
    out: Vec<LeveledChunk>,
    /// Where the open chunk starts: (level, value).
    start: (usize, usize),
}

impl LevelCuts {
    /// The open chunk closes before level `level`, at value `value`.
    fn cut(&mut self, level: usize, value: usize) {
        let (level0, value0) = self.start;
        self.out.push(LeveledChunk {
            num_levels: level - level0,
            level_offset: level0,
            num_values: value - value0,
            value_offset: value0,
        });
        self.start = (level, value);
    }

    /// All chunks, the last one ending at `levels` and `values` (if it has
    /// levels).
    fn finish(mut self, levels: usize, values: usize) -> Vec<LeveledChunk> {
        if levels > self.start.0 {
            self.cut(levels, values);
        }
        self.out
    }
}
