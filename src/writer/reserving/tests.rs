//! The reservation's cover of the lanes, with a column publishing more
//! at the worst moment: right after the writer read the lanes' figure.

use super::AFTER_READING;
use crate::{ArrowWriter, MemoryListener};
use arrow_array::{ArrayRef, Decimal128Array, Int64Array, RecordBatch};
use parquet::errors::Result;
use parquet::file::properties::{CdcOptions, WriterProperties};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// A listener that grants everything and counts what it holds.
#[derive(Debug, Default)]
struct Counter(AtomicUsize);

impl MemoryListener for Counter {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        self.0.fetch_add(bytes, SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.0.fetch_sub(bytes, SeqCst);
    }
}

fn batch(rows: usize, seed: i128) -> RecordBatch {
    let values = (0..rows as i128).map(|i| i * 7_919 + seed);
    let prices = Decimal128Array::from_iter_values(values)
        .with_precision_and_scale(38, 10)
        .unwrap();
    let ids = Decimal128Array::from_iter_values((0..rows as i128).map(|i| i ^ seed))
        .with_precision_and_scale(38, 0)
        .unwrap();
    let n = Int64Array::from_iter_values((0..rows as i64).map(|i| i * 31 + seed as i64));
    RecordBatch::try_from_iter([
        ("price", Arc::new(prices) as ArrayRef),
        ("id", Arc::new(ids) as ArrayRef),
        ("n", Arc::new(n) as ArrayRef),
    ])
    .unwrap()
}

/// What the reservation must cover at any time: what the writer holds
/// outside its lanes and what the lanes published.
fn to_cover(w: &ArrowWriter<Vec<u8>>) -> usize {
    let engine = w.engine.get();
    let lanes = engine.lane_memory().map_or(0, |l| l.published());
    engine.memory_outside_lanes() + lanes
}

/// Each time the writer has read the lanes' figure (before and after
/// each write), a column publishes 4 MiB more, as one on another thread
/// may at that moment: the reservation (the writer's and what the lanes
/// reserved themselves) still covers everything published. It used to
/// set the lanes' allowance from a second reading of their figure, so
/// that the bytes published in between counted as room (d3a3878's
/// correction then reserved nothing for them), and the reservation fell
/// short by that much.
#[test]
fn a_column_publishing_while_the_writer_reads_is_covered() {
    const MORE: usize = 4 << 20;
    let listener = Arc::new(Counter::default());
    let first = batch(2_000, 0);
    // Content-defined chunking on a mixed table: the Int64 column goes to
    // an inner `parquet` writer on the writer's own thread, so the writer
    // holds memory outside its lanes too.
    let props = WriterProperties::builder()
        .set_content_defined_chunking(Some(CdcOptions::default()))
        .build();
    let mut w = ArrowWriter::try_new(Vec::new(), first.schema(), Some(props))
        .unwrap()
        .with_threads(2)
        .with_min_parallel_work(std::time::Duration::ZERO)
        .with_memory_listener(listener.clone())
        .with_memory_reservation_block(4096);
    let published = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&published);
    AFTER_READING.with_borrow_mut(|hook| {
        *hook = Some(Box::new(move |lanes| {
            lanes.change(0, MORE);
            seen.fetch_add(MORE, SeqCst);
        }))
    });
    let mut checks = Vec::new();
    for i in 0..4 {
        w.write(&batch(2_000, i)).unwrap();
        // Covered now, and once the lanes' work is done.
        checks.push((w.reserved_memory(), to_cover(&w)));
        let _ = w.memory_size();
        checks.push((w.reserved_memory(), to_cover(&w)));
    }
    AFTER_READING.with_borrow_mut(|hook| *hook = None);
    assert!(published.load(SeqCst) >= 8 * MORE, "the hook did not run");
    assert!(
        w.engine.get().memory_size() > w.engine.get().memory_outside_lanes(),
        "nothing on the lanes"
    );
    for (at, (reserved, held)) in checks.into_iter().enumerate() {
        assert!(
            reserved >= held,
            "check {at}: {reserved} bytes reserved, {held} held"
        );
    }
    assert_eq!(listener.0.load(SeqCst), w.reserved_memory());
    // The simulated bytes go away, and everything is given back.
    if let Some(lanes) = w.engine.get().lane_memory() {
        lanes.change(published.load(SeqCst), 0);
    }
    w.close().unwrap();
    assert_eq!(listener.0.load(SeqCst), 0);
}

/// Without a listener nothing is published (the lanes' columns skip it:
/// nobody reads it); a listener attached while the lanes hold column
/// writers has what they hold published at once (the next call), and the
/// reservation covers it.
#[test]
fn lanes_publish_once_a_listener_is_attached() {
    let listener = Arc::new(Counter::default());
    let mut w = ArrowWriter::try_new(Vec::new(), batch(10, 0).schema(), None)
        .unwrap()
        .with_threads(2)
        .with_min_parallel_work(std::time::Duration::ZERO);
    w.write(&batch(3_000, 1)).unwrap();
    let held = w.memory_size();
    let lanes = Arc::clone(w.engine.get().lane_memory().expect("lanes"));
    assert!(
        held > w.engine.get().memory_outside_lanes(),
        "nothing on the lanes"
    );
    assert_eq!(lanes.published(), 0, "published without a listener");
    let mut w = w.with_memory_listener(listener.clone());
    w.write(&batch(3_000, 2)).unwrap();
    let held = w.memory_size();
    assert!(lanes.published() > 0);
    assert_eq!(
        lanes.published() + w.engine.get().memory_outside_lanes(),
        held,
        "what is published is what is held, once the lanes are idle"
    );
    assert!(w.reserved_memory() >= held);
    assert_eq!(listener.0.load(SeqCst), w.reserved_memory());
    w.close().unwrap();
    assert_eq!(listener.0.load(SeqCst), 0);
}
