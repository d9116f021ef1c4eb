//! Memory accounting: reservations through a `MemoryListener` balance to zero
//! after close and after a drop mid-row-group, a refusal fails the write
//! before anything is buffered (and the writer keeps working), reservations
//! come in blocks, and the output is unchanged by accounting.

include!("../src/versions.rs");

use arrow_array::{ArrayRef, Decimal128Array, FixedSizeBinaryArray, Int64Array, RecordBatch};
use parquet::errors::{ParquetError, Result};
use parquet_flba::{ArrowWriter, MemoryListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

#[derive(Debug, Default)]
struct Pool {
    used: AtomicUsize,
    peak: AtomicUsize,
    limit: AtomicUsize,
    grows: AtomicU64,
    shrinks: AtomicU64,
}

impl Pool {
    /// Calls made to the listener so far.
    fn calls(&self) -> u64 {
        self.grows.load(Ordering::SeqCst) + self.shrinks.load(Ordering::SeqCst)
    }

    fn with_limit(limit: usize) -> Arc<Self> {
        let p = Pool::default();
        p.limit.store(limit, Ordering::SeqCst);
        Arc::new(p)
    }
}

impl MemoryListener for Pool {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        self.grows.fetch_add(1, Ordering::SeqCst);
        let used = self.used.load(Ordering::SeqCst) + bytes;
        if used > self.limit.load(Ordering::SeqCst) {
            return Err(ParquetError::General(format!("pool full: {used} bytes")));
        }
        self.used.store(used, Ordering::SeqCst);
        self.peak.fetch_max(used, Ordering::SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.shrinks.fetch_add(1, Ordering::SeqCst);
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }
}

fn batch(rows: usize, seed: i128) -> RecordBatch {
    let dec = Decimal128Array::from_iter_values((0..rows as i128).map(|i| i * 7919 + seed))
        .with_precision_and_scale(38, 10)
        .unwrap();
    let ids = FixedSizeBinaryArray::try_from_iter(
        (0..rows as u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) as u128 + seed as u128).to_le_bytes()),
    )
    .unwrap();
    let ts = Int64Array::from_iter_values(0..rows as i64);
    RecordBatch::try_from_iter([
        ("price", Arc::new(dec) as ArrayRef),
        ("id", Arc::new(ids) as ArrayRef),
        ("ts", Arc::new(ts) as ArrayRef),
    ])
    .unwrap()
}

#[test]
fn reservations_balance_after_close_and_cover_memory() {
    let pool = Pool::with_limit(usize::MAX);
    let b = batch(20_000, 0);
    let mut w = ArrowWriter::try_new(Vec::new(), b.schema(), None)
        .unwrap()
        .with_memory_listener(pool.clone());
    for i in 0..5 {
        w.write(&batch(20_000, i)).unwrap();
        assert!(w.reserved_memory() >= w.memory_size(), "after write {i}");
        assert_eq!(w.reserved_memory() % (1 << 20), 0, "whole blocks");
        assert_eq!(pool.used.load(Ordering::SeqCst), w.reserved_memory());
    }
    w.flush().unwrap();
    assert!(w.reserved_memory() >= w.memory_size());
    let calls = pool.calls();
    assert!(calls > 0);
    w.close().unwrap();
    assert_eq!(pool.used.load(Ordering::SeqCst), 0);
    assert!(pool.peak.load(Ordering::SeqCst) > 0);
}

#[test]
fn reservations_balance_after_drop_mid_row_group() {
    let pool = Pool::with_limit(usize::MAX);
    let b = batch(30_000, 1);
    let mut w = ArrowWriter::try_new(Vec::new(), b.schema(), None)
        .unwrap()
        .with_memory_listener(pool.clone());
    w.write(&b).unwrap();
    assert!(pool.used.load(Ordering::SeqCst) > 0);
    drop(w);
    assert_eq!(pool.used.load(Ordering::SeqCst), 0);
}

#[test]
fn refusal_fails_the_write_and_the_writer_recovers() {
    let b = batch(40_000, 2);
    let pool = Pool::with_limit(usize::MAX);
    let mut expected = Vec::new();
    {
        let mut w = parquet::arrow::ArrowWriter::try_new(&mut expected, b.schema(), None).unwrap();
        w.write(&b).unwrap();
        w.flush().unwrap();
        w.write(&b).unwrap();
        w.close().unwrap();
    }

    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, b.schema(), None)
        .unwrap()
        .with_memory_listener(pool.clone());
    w.write(&b).unwrap();
    let held = pool.used.load(Ordering::SeqCst);
    // Allow nothing more: the next write is refused before it buffers anything.
    pool.limit.store(held, Ordering::SeqCst);
    let rows = w.in_progress_rows();
    let err = w.write(&b).unwrap_err().to_string();
    assert!(err.contains("memory reservation refused"), "{err}");
    assert!(err.contains("asked for"), "{err}");
    assert_eq!(
        w.in_progress_rows(),
        rows,
        "nothing of the refused batch is buffered"
    );
    // Flushing releases the memory; the write then succeeds.
    w.flush().unwrap();
    pool.limit.store(usize::MAX, Ordering::SeqCst);
    w.write(&b).unwrap();
    w.close().unwrap();
    assert_eq!(out, expected);
    assert_eq!(pool.used.load(Ordering::SeqCst), 0);
}

#[test]
fn accounting_does_not_change_the_bytes_and_blocks_batch_calls() {
    let b = batch(10_000, 3);
    let mut plain = Vec::new();
    let mut w = ArrowWriter::try_new(&mut plain, b.schema(), None).unwrap();
    for _ in 0..8 {
        w.write(&b).unwrap();
    }
    w.close().unwrap();

    let pool = Pool::with_limit(usize::MAX);
    let mut accounted = Vec::new();
    let mut w = ArrowWriter::try_new(&mut accounted, b.schema(), None)
        .unwrap()
        .with_memory_listener(pool.clone())
        .with_memory_reservation_block(4 << 20);
    for _ in 0..8 {
        w.write(&b).unwrap();
    }
    let calls = pool.calls();
    w.close().unwrap();
    assert_eq!(plain, accounted);
    // Eight batches of ~320 KiB each into 4 MiB blocks: a handful of calls.
    assert!(calls <= 8, "{calls} listener calls");
}

/// The reservation block is the same whichever builder call comes first
/// (it was ignored when set before the listener).
#[test]
fn reservation_block_before_or_after_the_listener() {
    let b = batch(4096, 7);
    let reserved = |block_first: bool| {
        let pool = Pool::with_limit(usize::MAX);
        let w = ArrowWriter::try_new(Vec::new(), b.schema(), None).unwrap();
        let mut w = if block_first {
            w.with_memory_reservation_block(4 << 20)
                .with_memory_listener(pool.clone())
        } else {
            w.with_memory_listener(pool.clone())
                .with_memory_reservation_block(4 << 20)
        };
        w.write(&b).unwrap();
        let reserved = w.reserved_memory();
        w.close().unwrap();
        reserved
    };
    let (first, after) = (reserved(true), reserved(false));
    assert!(
        after > 0 && after % (4 << 20) == 0,
        "{after} bytes reserved"
    );
    assert_eq!(first, after);
}

/// A table of the shapes an engine writes: random decimals and UUIDs (PLAIN,
/// or a dictionary that falls back), mid-cardinality INT32 and INT64
/// decimals (dictionaries that stay), Decimal256 and Float16 with nulls.
fn mixed_batch(n: u64, rows: usize) -> RecordBatch {
    use arrow_array::{Decimal256Array, Float16Array};
    use arrow_buffer::i256;
    let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut r = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let price =
        Decimal128Array::from_iter_values((0..rows).map(|_| (r() % 10_000_000_000) as i128))
            .with_precision_and_scale(38, 10)
            .unwrap();
    let id = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..rows).map(|i| (i % 7 != 3).then(|| (r() as u128 * 0x1_0000_0001).to_le_bytes())),
        16,
    )
    .unwrap();
    let small = Decimal128Array::from_iter(
        (0..rows).map(|i| (i % 4 != 2).then(|| (r() % 9_999_999) as i128)),
    )
    .with_precision_and_scale(9, 2)
    .unwrap();
    let rate = Decimal128Array::from_iter(
        (0..rows).map(|i| (i % 11 != 0).then(|| (r() % 1_000_000) as i128)),
    )
    .with_precision_and_scale(12, 3)
    .unwrap();
    let big = Decimal256Array::from_iter(
        (0..rows)
            .map(|i| (i % 3 != 1).then(|| i256::from_i128(r() as i128 * 1_000_003 - (1 << 60)))),
    )
    .with_precision_and_scale(50, 5)
    .unwrap();
    let half = Float16Array::from_iter(
        (0..rows).map(|i| (i % 10 != 9).then(|| half::f16::from_f32((r() % 2000) as f32 / 8.0))),
    );
    RecordBatch::try_from_iter([
        ("price", Arc::new(price) as ArrayRef),
        ("id", Arc::new(id) as ArrayRef),
        ("small", Arc::new(small) as ArrayRef),
        ("rate", Arc::new(rate) as ArrayRef),
        ("big", Arc::new(big) as ArrayRef),
        ("half", Arc::new(half) as ArrayRef),
    ])
    .unwrap()
}

/// A pool just large enough for `parquet`'s writer is large enough for an
/// accounted one of this crate: with a listener, the writer keeps its
/// blocks and buffers tight (no doubling past what a write needs, the
/// compression buffers and unused room given back after each write), so
/// the most its `memory_size()` reaches over a row group is at most the
/// most `parquet`'s does, in DataFusion's default configuration (zstd(3)),
/// uncompressed, V2 and without dictionaries; the bytes are the same. (Before,
/// the accounted writer reached up to 1.8x `parquet`'s.)
#[test]
fn an_accounted_writer_needs_no_more_than_parquets_peak() {
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::{WriterProperties, WriterVersion};
    let zstd = Compression::ZSTD(ZstdLevel::try_new(3).unwrap());
    let configs = [
        ("zstd", WriterProperties::builder().set_compression(zstd)),
        ("uncompressed", WriterProperties::builder()),
        (
            "v2 zstd",
            WriterProperties::builder()
                .set_compression(zstd)
                .set_writer_version(WriterVersion::PARQUET_2_0),
        ),
        (
            "no dictionary",
            WriterProperties::builder().set_dictionary_enabled(false),
        ),
    ];
    let data: Vec<RecordBatch> = (0..12).map(|n| mixed_batch(n, 3_000)).collect();
    let schema = data[0].schema();
    for (name, props) in configs {
        let props = props.build();
        let mut upstream =
            parquet::arrow::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))
                .unwrap();
        let pool = Pool::with_limit(usize::MAX);
        let mut ours = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))
            .unwrap()
            .with_memory_listener(pool.clone());
        let (mut upstream_peak, mut our_peak) = (0, 0);
        for b in &data {
            upstream.write(b).unwrap();
            ours.write(b).unwrap();
            upstream_peak = upstream_peak.max(upstream.memory_size());
            our_peak = our_peak.max(ours.memory_size());
        }
        assert!(
            our_peak <= upstream_peak,
            "{name}: memory_size() reached {our_peak} bytes, parquet's {upstream_peak} ({:.2}x)",
            our_peak as f64 / upstream_peak as f64
        );
        assert!(
            our_peak > upstream_peak / 4,
            "{name}: {our_peak} vs {upstream_peak}"
        );
        // Every leaf on this crate's fast path (the accounting under test is
        // its writer's, not parquet's).
        ours.flush().unwrap();
        let chunks = ours.leaf_chunks();
        assert_eq!(chunks.len(), schema.fields().len(), "{name}");
        for (leaf, c) in chunks.iter().enumerate() {
            assert_eq!((c.fast_path, c.parquet_path), (1, 0), "{name}: leaf {leaf}");
        }
        let theirs = upstream.into_inner().unwrap();
        assert!(
            ours.into_inner().unwrap() == theirs,
            "{name}: the files differ"
        );
        assert_eq!(pool.used.load(Ordering::SeqCst), 0, "{name}");
    }
}

/// A memory pool that grants grows until it is told to refuse them, and
/// counts what it refused.
#[derive(Debug, Default)]
struct Gate {
    used: AtomicUsize,
    /// Grows granted so far.
    granted: AtomicUsize,
    /// The number of grants after which it refuses (`usize::MAX`: never).
    grants: AtomicUsize,
    refused: AtomicUsize,
}

impl Gate {
    /// Grants the first `grants` grows, then refuses.
    fn granting(grants: usize) -> Arc<Self> {
        let gate = Gate::default();
        gate.grants.store(grants, Ordering::SeqCst);
        Arc::new(gate)
    }

    fn grant_all(&self) {
        self.grants.store(usize::MAX, Ordering::SeqCst);
    }

    fn refused(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }

    fn used(&self) -> usize {
        self.used.load(Ordering::SeqCst)
    }
}

impl MemoryListener for Gate {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        if self.granted.load(Ordering::SeqCst) >= self.grants.load(Ordering::SeqCst) {
            self.refused.fetch_add(1, Ordering::SeqCst);
            return Err(ParquetError::General("the gate is shut".into()));
        }
        self.granted.fetch_add(1, Ordering::SeqCst);
        self.used.fetch_add(bytes, Ordering::SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }
}

/// `parquet`'s file of `batches`, a flush after each listed batch.
fn upstream_file(batches: &[&RecordBatch], flush_after: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batches[0].schema(), None).unwrap();
    for (i, b) in batches.iter().enumerate() {
        w.write(b).unwrap();
        if flush_after.contains(&i) {
            w.flush().unwrap();
        }
    }
    w.close().unwrap();
    out
}

/// The reservation after a write (what the write came to hold beyond what
/// it reserved before it began) is refused: the write has written its
/// rows, so it succeeds (it used to fail saying that nothing of the batch
/// was written, and a caller who wrote the batch again had its rows
/// twice). The refusal fails the next write, before anything of that
/// batch is written, and says so; a flush then releases the memory and the
/// file has every row once.
#[test]
fn a_write_refused_after_writing_succeeds_and_the_next_call_says_so() {
    let b = batch(20_000, 4);
    // The write's own reservation is granted, the one after it is not.
    let gate = Gate::granting(1);
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, b.schema(), None)
        .unwrap()
        .with_memory_listener(gate.clone())
        .with_memory_reservation_block(1);
    w.write(&b)
        .expect("a write whose rows were written failed on its reservation");
    assert_eq!(
        gate.refused(),
        1,
        "the reservation after the write was not refused"
    );
    assert_eq!(w.in_progress_rows(), 20_000);
    assert_eq!(w.reserved_memory(), gate.used());

    let e = w.write(&b).unwrap_err().to_string();
    assert!(e.contains("memory reservation refused"), "{e}");
    assert!(e.contains("after an earlier call"), "{e}");
    assert!(e.contains("nothing of this batch was written"), "{e}");
    assert_eq!(
        w.in_progress_rows(),
        20_000,
        "the refused batch was buffered"
    );
    // Reported once: the flush goes ahead and releases the memory.
    gate.grant_all();
    w.flush().unwrap();
    w.write(&b).unwrap();
    w.close().unwrap();
    assert_eq!(gate.used(), 0);
    assert!(out == upstream_file(&[&b, &b], &[0]), "the files differ");
}

/// Page stores whose store of the last column (2) fails (an error, not a
/// panic) at its first page once `armed` is set, and then sets `failed`.
#[cfg(not(feature = "parquet-58"))]
#[derive(Debug, Default)]
struct FailingStores {
    armed: std::sync::atomic::AtomicBool,
    failed: std::sync::atomic::AtomicBool,
}

#[cfg(not(feature = "parquet-58"))]
struct FailingStore {
    pages: Vec<Option<bytes::Bytes>>,
    /// The last column's store: the shared switches.
    switches: Option<Arc<FailingStores>>,
}

#[cfg(not(feature = "parquet-58"))]
impl parquet::arrow::arrow_writer::PageStore for FailingStore {
    fn put(&mut self, value: bytes::Bytes) -> Result<parquet::arrow::arrow_writer::PageKey> {
        if let Some(s) = self
            .switches
            .as_ref()
            .filter(|s| s.armed.load(Ordering::SeqCst))
        {
            s.failed.store(true, Ordering::SeqCst);
            return Err(ParquetError::General("the store is full".into()));
        }
        self.pages.push(Some(value));
        Ok(parquet::arrow::arrow_writer::PageKey::new(
            self.pages.len() as u64 - 1,
        ))
    }

    fn take(&mut self, key: parquet::arrow::arrow_writer::PageKey) -> Result<bytes::Bytes> {
        self.pages
            .get_mut(key.get() as usize)
            .and_then(Option::take)
            .ok_or_else(|| ParquetError::General(format!("no page {key:?}")))
    }
}

/// The factory, sharing its switches with the last column's stores.
#[cfg(not(feature = "parquet-58"))]
#[derive(Debug)]
struct FailingFactory(Arc<FailingStores>);

#[cfg(not(feature = "parquet-58"))]
impl parquet::arrow::arrow_writer::PageStoreFactory for FailingFactory {
    fn create(
        &self,
        args: &parquet::arrow::arrow_writer::PageStoreArgs<'_>,
    ) -> Result<Box<dyn parquet::arrow::arrow_writer::PageStore>> {
        Ok(Box::new(FailingStore {
            pages: Vec::new(),
            switches: (args.column_index() == 2).then(|| self.0.clone()),
        }))
    }
}

/// A writer whose last column's page store fails once armed, with small
/// pages, attached to `listener` (blocks of 1 byte).
#[cfg(not(feature = "parquet-58"))]
fn failing_writer(
    schema: arrow_schema::SchemaRef,
    listener: Arc<dyn MemoryListener>,
) -> (ArrowWriter<Vec<u8>>, Arc<FailingStores>) {
    let switches = Arc::new(FailingStores::default());
    // Writer version 2: the FLBA columns keep a dictionary under every
    // release (59.3 and 58.4 have none for them under version 1, D1), so
    // the columns hold more after a write than before it.
    let props = parquet::file::properties::WriterProperties::builder()
        .set_writer_version(parquet::file::properties::WriterVersion::PARQUET_2_0)
        .set_data_page_size_limit(4096)
        .build();
    let options = parquet_flba::ArrowWriterOptions::new()
        .with_properties(props)
        .with_page_store_factory(Arc::new(FailingFactory(switches.clone())));
    let w = ArrowWriter::try_new_with_options(Vec::new(), schema, options)
        .unwrap()
        .with_memory_listener(listener)
        .with_memory_reservation_block(1);
    (w, switches)
}

/// A write that fails half-way (a page store's error, in the last column:
/// the others have taken their rows, and hold more than the batch), after
/// which the reservation is refused too: the write's own error is returned (the
/// refusal used to replace it), and the refusal is reported by the next
/// call.
#[cfg(not(feature = "parquet-58"))]
#[test]
fn a_refused_reservation_does_not_hide_the_writes_error() {
    let first = batch(20_000, 5);
    let second = batch(20_000, 6);
    let gate = Gate::granting(usize::MAX);
    let (mut w, store) = failing_writer(first.schema(), gate.clone());
    w.write(&first).unwrap();
    // The write's own reservation is granted, none after it.
    gate.grants
        .store(gate.granted.load(Ordering::SeqCst) + 1, Ordering::SeqCst);
    store.armed.store(true, Ordering::SeqCst);
    let e = w.write(&second).unwrap_err().to_string();
    assert!(
        store.failed.load(Ordering::SeqCst),
        "the store did not fail"
    );
    assert!(
        gate.refused() >= 1,
        "the reservation after the write was not refused"
    );
    assert!(e.contains("the store is full"), "{e}");
    drop(w);
    assert_eq!(gate.used(), 0);
}

/// A finish that fails (here: a writer that a failed write left unable to
/// go on) keeps reserved what the writer still holds (it used to give the
/// whole reservation back while the row group's buffers were held until
/// the writer was dropped).
#[cfg(not(feature = "parquet-58"))]
#[test]
fn a_failed_finish_keeps_what_is_held_reserved() {
    let first = batch(20_000, 7);
    let gate = Gate::granting(usize::MAX);
    let (mut w, store) = failing_writer(first.schema(), gate.clone());
    w.write(&first).unwrap();
    store.armed.store(true, Ordering::SeqCst);
    assert!(w.write(&batch(20_000, 8)).is_err());
    assert!(store.failed.load(Ordering::SeqCst));
    let e = w.finish().unwrap_err().to_string();
    assert!(e.contains("cannot continue"), "{e}");
    let held = w.memory_size();
    assert!(held > 0, "the failed writer holds nothing");
    assert!(
        w.reserved_memory() >= held,
        "{} bytes reserved for {held} held",
        w.reserved_memory()
    );
    assert_eq!(gate.used(), w.reserved_memory());
    drop(w);
    assert_eq!(gate.used(), 0);
}
