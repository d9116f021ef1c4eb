//! The writer's memory reservation around each call (see
//! [`ArrowWriter::with_memory_listener`]).
//!
//! On one thread the reservation is what the writer holds after each call.
//! On several, a write returns with its columns' work still queued, and
//! waiting for it to measure `memory_size()` would make every write a
//! barrier. So the reservation is made of two parts: the writer's own,
//! which covers what it holds outside the lanes (read on its own thread)
//! plus the lanes' allowance, and what the lanes reserve themselves
//! beyond that allowance as they publish their memory ([`LaneMemory`]:
//! each column after each operation, each closed chunk waiting to be
//! spliced, each batch whose work is queued). The allowance is set from
//! the writer's own figures alone, and the lanes compare every total they
//! publish with it, so the two parts cover `memory_size()` at all times by
//! construction, whatever the threads do meanwhile. The writer takes the
//! lanes' part over at its next call. A flush or finish waits for the
//! lanes anyway and settles to `memory_size()` exactly.
//!
//! A refusal fails a call only before the call does anything, and its
//! error says so: a write's own reservation (the batch on top of what is
//! held) is asked for before anything of the batch is written. A refusal
//! met afterwards (the reservation after a write or flush, which cannot be
//! undone, or a lane's while encoding) is carried to the writer's next
//! `write`, `flush` or `finish`, which reports it before it does anything;
//! `flush` and `finish` wait for the lanes' queued work first, so nothing
//! it meets goes unreported.

use super::ArrowWriter;
use crate::memory::{LaneMemory, MemoryListener, Refusal, Reservation};
use arrow_array::RecordBatch;
use parquet::errors::Result;
use std::io::Write;
use std::sync::Arc;

/// What a write refused before it began did (and did not) do.
const WRITE: &str = "nothing of this batch was written (the rows of earlier writes are kept): \
                     flush() to write out the buffered row group and release its memory, then \
                     write the batch again";
/// What a flush refused before it began did (and did not) do.
pub(super) const FLUSH: &str = "nothing was flushed (the buffered rows are kept): flush() again \
                                to write them out and release their memory";
/// What a finish refused before it began did (and did not) do.
pub(super) const FINISH: &str = "the file was not finished (the buffered rows are kept, no footer \
                                 was written): finish() again to write them out and the footer";

impl<W: Write + Send> ArrowWriter<W> {
    /// Attaches a [`MemoryListener`] that the writer reserves the memory it
    /// holds from, in blocks of [`DEFAULT_RESERVATION_BLOCK`](crate::DEFAULT_RESERVATION_BLOCK) (see
    /// [`Self::with_memory_reservation_block`]).
    ///
    /// Before each [`Self::write`], the writer makes sure its reservation
    /// covers the memory it holds plus the batch's size; if the listener
    /// refuses, `write` fails before anything of the batch is written, with
    /// an error naming the requested and held sizes, and the writer stays
    /// usable (call [`Self::flush`] to release the buffered row group's
    /// memory). After each write and flush, the reservation is brought in
    /// line with what the writer holds (blocks no longer needed are given
    /// back); everything is given back when the writer is closed or
    /// dropped.
    ///
    /// A call fails on a refusal only before it does anything, and says
    /// so. A refusal met once a call has done its work (the reservation
    /// after a write, which has written its rows; on several threads, a
    /// column's while it encodes) does not fail that call: the writer's
    /// next `write`, `flush` or `finish` reports it before doing anything
    /// ("nothing of this batch was written", "nothing was flushed", "the
    /// file was not finished"), once; called again, it goes ahead. A
    /// failed `finish` keeps reserved what the writer still holds.
    ///
    /// The writer then keeps out of the process-wide block cache, as with
    /// [`ArrowWriterOptions::with_block_cache`](crate::ArrowWriterOptions::with_block_cache)`(false)`: its page blocks
    /// are its own, so its reservation covers what it makes the process
    /// hold. Attach it before the first write (a row group already started
    /// keeps its setting).
    pub fn with_memory_listener(mut self, listener: Arc<dyn MemoryListener>) -> Self {
        self.reservation = Some(Reservation::new(listener, self.reservation_block));
        self.engine.get_mut().set_block_cache(false);
        self
    }

    /// Sets the block size of memory reservations (default 1 MiB), before
    /// or after [`Self::with_memory_listener`].
    pub fn with_memory_reservation_block(mut self, bytes: usize) -> Self {
        self.reservation_block = bytes;
        if let Some(r) = &mut self.reservation {
            r.set_block(bytes);
        }
        self
    }

    /// Bytes currently reserved from the [`MemoryListener`] (0 without one).
    pub fn reserved_memory(&self) -> usize {
        self.reserved_bytes()
    }

    /// Before a call: with a reservation, attaches the lanes' cover (the
    /// first time), takes over what the lanes reserved, and returns a
    /// refusal met since the last call (carried, or a lane's) as this
    /// call's error, `consequence` saying what the call did not do. With
    /// `wait`, the lanes' queued work is done first.
    pub(super) fn report_refusals(&mut self, consequence: &str, wait: bool) -> Result<()> {
        let Some(r) = &mut self.reservation else {
            return Ok(());
        };
        let engine = self.engine.get();
        let mut refused = self.carried.take();
        if let Some(lanes) = engine.lane_memory() {
            let (listener, block) = r.listener();
            if lanes.attach(listener, block) {
                engine.republish_lanes();
            }
            if wait {
                engine.sync_lanes();
            }
            r.absorb(lanes.take_extra());
            let lane_refusal = lanes.take_refusal();
            refused = refused.or(lane_refusal);
        }
        if let Some(refusal) = refused {
            return Err(refusal.into_error(consequence));
        }
        if wait {
            self.lend_to_lanes();
        }
        Ok(())
    }

    /// Before a flush or finish, the lanes idle: the reservation settles to
    /// what is held (what was kept for queued work, the batches, goes
    /// back), and its part for the lanes is handed over to them, so that
    /// it goes down, block by block, as the row group's chunks are spliced
    /// into the output (which may reserve its own) rather than at the end.
    fn lend_to_lanes(&mut self) {
        self.settle_reservation();
        let engine = self.engine.get();
        let (Some(r), Some(lanes)) = (&mut self.reservation, engine.lane_memory()) else {
            return;
        };
        let outside = engine.memory_outside_lanes();
        let keep = r.round_up(outside);
        let lent = r.lend(r.reserved().saturating_sub(keep));
        lanes.lend(lent, keep.saturating_sub(outside));
    }

    /// Before a write: makes sure the reservation covers what the writer
    /// holds plus `batch`, so that a refusal writes nothing.
    pub(super) fn reserve_for(&mut self, batch: &RecordBatch) -> Result<()> {
        self.report_refusals(WRITE, false)?;
        let Some(r) = &mut self.reservation else {
            return Ok(());
        };
        if batch.num_rows() > 0 {
            let engine = self.engine.get();
            let lanes = engine.lane_memory();
            let outside = engine.memory_outside_lanes();
            let published = lanes.map_or(0, |l| l.published());
            after_reading(lanes);
            let want = outside + published + batch.get_array_memory_size();
            r.ensure(want)
                .map_err(|refusal| refusal.into_error(WRITE))?;
            if let Some(lanes) = lanes {
                // What published since is the lanes' to cover.
                lanes.set_allowance(r.reserved().saturating_sub(outside));
            }
        }
        Ok(())
    }

    /// After a write that ended with `written`: with a reservation, copies
    /// a full row group out (so that what is held is what one thread
    /// holds), then brings the reservation in line with what the writer
    /// holds. A refusal then is carried to the next call: the write's
    /// outcome is what it returns.
    pub(super) fn settle_after_write(&mut self, written: Result<()>) -> Result<()> {
        if self.reservation.is_none() {
            return written;
        }
        let settled = match written {
            Ok(()) => self.engine.get_mut().settle(),
            Err(e) => Err(e),
        };
        let engine = self.engine.get();
        let outside = engine.memory_outside_lanes();
        let published = engine.lane_memory().map_or(0, |l| l.published());
        after_reading(engine.lane_memory());
        self.settle_to(outside + published, outside);
        settled
    }

    /// Brings the reservation in line with the memory now held, waiting
    /// (on several threads) for the columns' queued work: grows it if
    /// encoding needed more than predicted, gives back unneeded blocks. A
    /// refusal is carried to the next call.
    pub(super) fn settle_reservation(&mut self) {
        if self.reservation.is_some() {
            let engine = self.engine.get();
            let held = engine.memory_size();
            let outside = engine.memory_outside_lanes();
            self.settle_to(held, outside);
        }
    }

    /// Gives everything back (the writer holds nothing any more).
    pub(super) fn release_reservation(&mut self) {
        let lanes = self.engine.get().lane_memory();
        if let Some(r) = &mut self.reservation {
            if let Some(lanes) = lanes {
                r.absorb(lanes.take_extra());
                lanes.set_allowance(0);
            }
            r.settle(0);
        }
    }

    /// Bytes reserved: the writer's and what its lanes reserved since.
    pub(super) fn reserved_bytes(&self) -> usize {
        let lanes = self
            .engine
            .get()
            .lane_memory()
            .map_or(0, |l| l.extra_so_far());
        self.reservation
            .as_ref()
            .map_or(0, |r| r.reserved() + lanes)
    }

    /// Makes the reservation `held` bytes (in whole blocks), of which
    /// `outside` are held outside the lanes: grows it first (a refusal is
    /// carried), then sets the lanes' allowance (they cover what they hold
    /// beyond it), then gives back what is not needed.
    fn settle_to(&mut self, held: usize, outside: usize) {
        let lanes = self.engine.get().lane_memory();
        let Some(r) = &mut self.reservation else {
            return;
        };
        if let Some(lanes) = lanes {
            r.absorb(lanes.take_extra());
        }
        let target = match r.ensure(held) {
            Ok(()) => r.round_up(held),
            Err(refusal) => {
                carry(&mut self.carried, refusal);
                r.reserved()
            }
        };
        if let Some(lanes) = lanes {
            lanes.set_allowance(target.saturating_sub(outside));
        }
        r.settle(held);
    }
}

/// Keeps `refusal` for the next call (the first one met).
fn carry(carried: &mut Option<Refusal>, refusal: Refusal) {
    carried.get_or_insert(refusal.earlier());
}

/// Tests: what runs right after the writer read what the lanes published
/// (where a column on another thread may publish more at any moment).
#[cfg(test)]
type Hook = Box<dyn FnMut(&LaneMemory)>;

#[cfg(test)]
thread_local! {
    static AFTER_READING: std::cell::RefCell<Option<Hook>> = const { std::cell::RefCell::new(None) };
}

/// Runs the test hook, if any, after the writer read `lanes`' figure.
#[cfg(test)]
fn after_reading(lanes: Option<&std::sync::Arc<LaneMemory>>) {
    if let Some(lanes) = lanes {
        AFTER_READING.with_borrow_mut(|hook| {
            if let Some(hook) = hook {
                hook(lanes);
            }
        });
    }
}

#[cfg(not(test))]
#[inline(always)]
fn after_reading(_: Option<&std::sync::Arc<LaneMemory>>) {}

#[cfg(test)]
mod tests;
