//! Chunking a top-level byte-array leaf (strings, binary) straight from its
//! values and validity bitmap.
//!
//! Every item is a definition level (if the leaf is nullable) and, if
//! valid, the value's bytes, whatever their length (an empty value adds
//! nothing). Once the chunk has reached the minimum and no match is
//! pending, every later piece of an item is hashed, so a whole item is
//! hashed at once and checked once ([`Cursor::end_item`]); before that,
//! items go piece by piece under the literal rule.

use super::{Chunk, Chunker, Cuts};
use arrow_buffer::NullBuffer;

impl Chunker {
    /// Chunks of a top-level leaf of `len` values, value `i` being
    /// `value(i)`. `nullable` says whether the leaf has definition levels;
    /// `nulls` is its validity, if any value may be null.
    pub(crate) fn chunks_bytes<'a>(
        &mut self,
        len: usize,
        nullable: bool,
        nulls: Option<&NullBuffer>,
        value: impl Fn(usize) -> &'a [u8],
    ) -> Vec<Chunk> {
        let mut c = self.cursor();
        let mut cuts = Cuts::default();
        for i in 0..len {
            let level = match (nullable, nulls) {
                (false, _) => None,
                (true, None) => Some(true),
                (true, Some(n)) => Some(n.is_valid(i)),
            };
            let closes = if c.hashing() {
                let mut lowest = u64::MAX;
                if let Some(valid) = level {
                    c.size += 2;
                    lowest = c.mix_level(i16::from(valid));
                }
                if level != Some(false) {
                    let v = value(i);
                    c.size += v.len() as i64;
                    lowest = lowest.min(c.mix_slice(v));
                }
                c.end_item(lowest)
            } else {
                if let Some(valid) = level {
                    c.piece_level(i16::from(valid));
                }
                if level != Some(false) {
                    c.piece(value(i));
                }
                c.close_item()
            };
            if closes {
                cuts.cut(i);
            }
        }
        self.keep(&c);
        cuts.finish(len)
    }
}

#[cfg(test)]
mod tests {
    use super::super::cases::{Rng, random_options};
    use super::super::model::{self, Item, Model};
    use super::*;

    /// Random batches of values of random lengths (empty ones included),
    /// through one chunker, against the model.
    #[test]
    fn bytes_match_the_model() {
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        let mut closed_by = (0, 0);
        for _round in 0..40 {
            let o = random_options(&mut rng);
            let mut chunker = Chunker::try_new(&o).unwrap();
            let mut m = Model::default();
            for _batch in 0..4 {
                let len = rng.below(1500) as usize;
                let nullable = rng.chance(60);
                let nulls = (nullable && rng.chance(70)).then(|| {
                    let p = [0, 10, 50, 90, 100][rng.below(5) as usize];
                    let skip = rng.below(70) as usize;
                    let bits: Vec<bool> = (0..skip + len).map(|_| rng.chance(p)).collect();
                    NullBuffer::from(bits).slice(skip, len)
                });
                let longest = [1, 5, 40, 300][rng.below(4) as usize];
                let values: Vec<Vec<u8>> = (0..len)
                    .map(|_| {
                        let n = rng.below(longest) as usize;
                        rng.bytes(n)
                    })
                    .collect();
                let items: Vec<Item> = (0..len)
                    .map(|i| {
                        let valid = nulls.as_ref().is_none_or(|n| n.is_valid(i));
                        let mut pieces = vec![];
                        if nullable {
                            pieces.push(i16::from(valid).to_le_bytes().to_vec());
                        }
                        if valid {
                            pieces.push(values[i].clone());
                        }
                        Item {
                            pieces,
                            may_end: true,
                            has_value: valid,
                        }
                    })
                    .collect();
                let want = model::flat_chunks(&m.closings(&o, &items), len);
                let got = chunker.chunks_bytes(len, nullable, nulls.as_ref(), |i| &values[i]);
                assert_eq!(got, want, "{o:?}");
                assert_eq!(chunker.carry.size, m.size);
                assert_eq!(chunker.carry.hash, m.hash);
            }
            closed_by.0 += m.closed_by.0;
            closed_by.1 += m.closed_by.1;
        }
        assert!(closed_by.0 > 50 && closed_by.1 > 50, "{closed_by:?}");
    }
}
