//! The writer's memory reservation around each write and flush (see
//! [`ArrowWriter::with_memory_listener`]).
//!
//! On one thread the reservation is what the writer holds after each call.
//! On several, a write returns with its columns' work still queued, and
//! waiting for it to measure `memory_size()` would make every write a
//! barrier. So a write reserves from what the columns last published on
//! their lanes (after each of their operations) plus the batch, and keeps
//! the batch's size reserved afterwards as room for the work it queued;
//! the part of the reservation left for the lanes is their allowance, and
//! a column that holds more reserves the rest itself, as it goes
//! ([`LaneMemory`]), so the reservation covers `memory_size()` at any
//! time. The writer takes those bytes over at its next call; a refusal a
//! column met fails the next write before anything of it is written. A
//! flush or close waits for the lanes anyway and settles to
//! `memory_size()` exactly.

use super::ArrowWriter;
use crate::memory::{LaneMemory, Reservation};
use arrow_array::RecordBatch;
use parquet::errors::Result;
use std::io::Write;
use std::sync::Arc;

impl<W: Write + Send> ArrowWriter<W> {
    /// Before a write: makes sure the reservation covers what the writer
    /// holds plus `batch`, so that a refusal writes nothing.
    pub(super) fn reserve_for(&mut self, batch: &RecordBatch) -> Result<()> {
        let lanes = self.engine.get().lane_memory().cloned();
        let Some(r) = &mut self.reservation else {
            return Ok(());
        };
        if let Some(lanes) = &lanes {
            let (listener, block) = r.listener();
            lanes.attach(listener, block);
            r.absorb(lanes.take_extra());
            if let Some(refused) = lanes.take_refusal() {
                return Err(refused);
            }
        }
        if batch.num_rows() > 0 {
            let (held, _) = self.engine.get().memory_estimate();
            r.ensure(held + batch.get_array_memory_size())?;
            allow(r, lanes.as_ref(), held);
        }
        Ok(())
    }

    /// After a write of `batch` (`ok`: it succeeded): with a reservation,
    /// copies a full row group out (so that what is held is what one
    /// thread holds), then brings the reservation in line with what the
    /// writer holds, with room for the batch's queued work on several
    /// threads.
    pub(super) fn settle_after_write(&mut self, batch: &RecordBatch, ok: bool) -> Result<()> {
        if self.reservation.is_none() {
            return Ok(());
        }
        if ok {
            self.engine.get_mut().settle()?;
        }
        let (held, estimated) = self.engine.get().memory_estimate();
        let room = if estimated {
            batch.get_array_memory_size()
        } else {
            0
        };
        self.settle_to(held + room)
    }

    /// Brings the reservation in line with the memory now held (waiting,
    /// on several threads, for the columns' queued work): grows it if
    /// encoding needed more than predicted, gives back unneeded blocks.
    pub(super) fn settle_reservation(&mut self) -> Result<()> {
        if self.reservation.is_some() {
            let held = self.engine.get().memory_size();
            self.settle_to(held)?;
        }
        Ok(())
    }

    /// Gives everything back (the writer holds nothing any more).
    pub(super) fn release_reservation(&mut self) {
        let lanes = self.engine.get().lane_memory().cloned();
        if let Some(r) = &mut self.reservation {
            if let Some(lanes) = &lanes {
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

    fn settle_to(&mut self, held: usize) -> Result<()> {
        let lanes = self.engine.get().lane_memory().cloned();
        if let Some(r) = &mut self.reservation {
            if let Some(lanes) = &lanes {
                r.absorb(lanes.take_extra());
            }
            r.ensure(held)?;
            r.settle(held);
            allow(r, lanes.as_ref(), held);
        }
        Ok(())
    }
}

/// Sets the lanes' allowance: the reservation beyond what the writer
/// holds outside them (`held` includes what they published).
fn allow(r: &Reservation, lanes: Option<&Arc<LaneMemory>>, held: usize) {
    if let Some(lanes) = lanes {
        let outside = held.saturating_sub(lanes.published());
        lanes.set_allowance(r.reserved().saturating_sub(outside));
    }
}
