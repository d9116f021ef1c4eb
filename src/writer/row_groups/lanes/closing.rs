//! A full row group on its lanes: each column's close leaves its chunk in
//! a [`ChunkSlot`], and the [`Closing`] row group hands the chunks out in
//! leaf order, each once it is in, for the writer to splice.

use super::{Lanes, panicked};
use crate::column::ArrowColumnChunk;
use crate::memory::Share;
use crate::pool::Take;
use parquet::errors::{ParquetError, Result};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What a closing column left in its slot.
struct Filled {
    chunk: Result<ArrowColumnChunk>,
    /// The chunk's memory ([`chunk_memory`]).
    memory: usize,
    /// Its published share, given back when the chunk leaves the slot.
    share: Share,
}

/// Where a closing column leaves its chunk.
#[derive(Default)]
pub(super) struct ChunkSlot(Mutex<Option<Filled>>);

impl ChunkSlot {
    fn lock(&self) -> MutexGuard<'_, Option<Filled>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Leaves `chunk`, of `memory` bytes, published as `share`.
    pub(super) fn fill(&self, chunk: Result<ArrowColumnChunk>, memory: usize, share: Share) {
        *self.lock() = Some(Filled {
            chunk,
            memory,
            share,
        });
    }

    fn is_filled(&self) -> bool {
        self.lock().is_some()
    }

    /// The chunk, which takes its memory along (its share is given back).
    fn take(&self) -> Option<Result<ArrowColumnChunk>> {
        let filled = self.lock().take()?;
        Some(filled.chunk)
    }

    /// The memory of the chunk in the slot (0 if none).
    fn memory(&self) -> usize {
        self.lock().as_ref().map_or(0, |f| f.memory)
    }

    /// Publishes the chunk's memory, if it is not (a listener attached
    /// after it was closed).
    fn republish(&self) {
        if let Some(f) = &mut *self.lock() {
            f.share.publish(f.memory);
        }
    }

    /// The chunk's bytes in the file, if it is in; with `bloom`, its
    /// bloom filter's too (written after its row group).
    fn bytes(&self, bloom: bool) -> usize {
        let slot = self.lock();
        let Some(Filled {
            chunk: Ok(chunk), ..
        }) = &*slot
        else {
            return 0;
        };
        let close = chunk.close();
        let data = usize::try_from(close.metadata.compressed_size()).unwrap_or(0);
        let filter = match (&close.bloom_filter, bloom) {
            (Some(filter), true) => {
                let mut counted = Counted(0);
                // Writing to a counter cannot fail.
                let _ = filter.write(&mut counted);
                counted.0
            }
            _ => 0,
        };
        data + filter
    }
}

/// Counts the bytes written to it.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A row group whose columns are closing (or closed), not yet spliced.
pub(in crate::writer::row_groups) struct Closing {
    /// The lanes its columns close on.
    pub(super) lanes: Arc<Lanes>,
    /// Per lane: its leaf and the slot its chunk comes to.
    pub(super) slots: Vec<(usize, Arc<ChunkSlot>)>,
}

impl Closing {
    /// The lanes its columns close on.
    pub(in crate::writer::row_groups) fn lanes(&self) -> &Lanes {
        &self.lanes
    }

    /// Whether every chunk is in (or its lane stopped).
    pub(in crate::writer::row_groups) fn is_closed(&self) -> bool {
        self.slots
            .iter()
            .zip(&self.lanes.lanes)
            .all(|((_, slot), lane)| slot.is_filled() || lane.is_idle())
    }

    /// The chunks, in leaf order, each once it is in (helping with the
    /// lanes meanwhile, the ones needed first first).
    pub(in crate::writer::row_groups) fn chunks(
        self,
    ) -> impl Iterator<Item = Result<(usize, ArrowColumnChunk)>> {
        let lanes = self.lanes;
        self.slots
            .into_iter()
            .enumerate()
            .map(move |(at, (leaf, slot))| {
                let lane = &lanes.lanes[at];
                lanes.pool.help_until(Take::Needed(lane.index()), || {
                    slot.is_filled() || lane.is_idle()
                });
                match slot.take() {
                    Some(Ok(chunk)) => Ok((leaf, chunk)),
                    // The column's own error, once its lane is idle.
                    Some(Err(e)) => {
                        lanes.sync();
                        Err(lane.with(|c| c.error.take()).flatten().unwrap_or(e))
                    }
                    None => {
                        let name = lane.with(|c| c.name.clone()).unwrap_or_default();
                        Err(match lane.panicked() {
                            Some(message) => panicked(&format!("writing column {name}"), message),
                            None => ParquetError::General(format!("column {name} was not closed")),
                        })
                    }
                }
            })
    }

    /// The bytes the chunks will take in the file, once they are in
    /// (waiting, and helping, until they are); with `bloom`, with their
    /// bloom filters (written after their row group).
    pub(in crate::writer::row_groups) fn bytes(&self, bloom: bool) -> usize {
        self.lanes
            .pool
            .help_until(Take::Needed(self.lanes.first_index()), || self.is_closed());
        self.slots.iter().map(|(_, s)| s.bytes(bloom)).sum()
    }

    /// Memory held (once its lanes are idle) by its chunks, and by the
    /// column writers open on its lanes unless they are
    /// `current` (with content-defined chunking, the next row group's
    /// columns go on on the same lanes: counted once, as theirs).
    pub(in crate::writer::row_groups) fn memory(&self, current: Option<&Arc<Lanes>>) -> usize {
        let shared = current.is_some_and(|c| Arc::ptr_eq(c, &self.lanes));
        // Once idle (the chunks are in their slots only then).
        let writers = match shared {
            true => {
                self.lanes.sync();
                0
            }
            false => self.lanes.sum(|w| w.memory_size()),
        };
        let chunks: usize = self.slots.iter().map(|(_, s)| s.memory()).sum();
        chunks + writers
    }

    /// Publishes what it holds (a listener attached while it closes):
    /// its chunks, and its lanes' column writers unless they are
    /// `current`'s (see [`Self::memory`]).
    pub(in crate::writer::row_groups) fn republish(&self, current: Option<&Arc<Lanes>>) {
        if !current.is_some_and(|c| Arc::ptr_eq(c, &self.lanes)) {
            self.lanes.republish();
        }
        self.lanes.sync();
        for (_, slot) in &self.slots {
            slot.republish();
        }
    }
}
