//! The process-wide cache of page blocks (`set_block_cache_limit`).
//!
//! A plain writer's chunks give their blocks to it, the next file's column
//! writers (on the calling thread and on worker threads) draw on it, it is
//! bounded by the limit and freed when the limit is lowered.
//!
//! Writers whose memory is accounted keep out of it: a writer with a `MemoryListener`, one
//! whose options turn the cache off, and the column writers of a row-group
//! factory with the cache off neither take blocks from it nor give blocks
//! to it, on one thread or several, in memory or through a page store;
//! their files are `parquet`'s, and their leaves take the fast path.
//!
//! The cache is shared by the whole process: the tests here take a lock so
//! that no two of them write at once (no other test binary shares it).

include!("../src/versions.rs");

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use arrow_array::{Decimal128Array, FixedSizeBinaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use common::{RanAsPlanned, assert_kinds_fast};
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use parquet_flba::{
    ArrowRowGroupWriterFactory, ArrowWriter, ArrowWriterOptions, DEFAULT_BLOCK_CACHE_LIMIT,
    MemoryListener, block_cache_bytes, compute_leaves, set_block_cache_limit,
};

const ROWS: usize = 40_000;
/// Two row groups per file, so a chunk is dropped (its blocks given back or
/// freed) while the writer goes on.
const ROW_GROUP: usize = 20_000;

/// One test at a time in this binary.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn batch() -> RecordBatch {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let decimals = Decimal128Array::from_iter_values(
        (0..ROWS).map(|_| (next() as i128) << 40 | next() as i128 >> 30),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let ids =
        FixedSizeBinaryArray::try_from_iter((0..ROWS).map(|_| next().to_le_bytes().repeat(2)))
            .unwrap();
    let schema = Schema::new(vec![
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("id", DataType::FixedSizeBinary(16), true),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(decimals), Arc::new(ids)]).unwrap()
}

fn props() -> WriterProperties {
    WriterProperties::builder()
        .set_max_row_group_row_count(Some(ROW_GROUP))
        .set_dictionary_enabled(false)
        .build()
}

/// `batch` written by parquet's writer with `props` (its defaults: `None`).
fn parquet_with(batch: &RecordBatch, props: Option<WriterProperties>) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), props).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    out
}

fn parquet_file(batch: &RecordBatch) -> Vec<u8> {
    parquet_with(batch, Some(props()))
}

/// A listener that grants everything and remembers its peak.
#[derive(Debug, Default)]
struct Peak {
    used: AtomicUsize,
    peak: AtomicUsize,
}

impl MemoryListener for Peak {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        let used = self.used.fetch_add(bytes, Ordering::SeqCst) + bytes;
        self.peak.fetch_max(used, Ordering::SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }
}

/// With or without a page store (parquet 58 has none).
const PAGE_STORES: &[bool] = if cfg!(feature = "parquet-58") {
    &[false]
} else {
    &[false, true]
};

/// `options` with pages kept by a page store large enough never to spill.
#[cfg(not(feature = "parquet-58"))]
fn with_page_store(options: ArrowWriterOptions) -> ArrowWriterOptions {
    let store = parquet_flba::SpillPageStoreFactory::new(1 << 30);
    options.with_page_store_factory(Arc::new(store))
}

#[cfg(feature = "parquet-58")]
fn with_page_store(_: ArrowWriterOptions) -> ArrowWriterOptions {
    unreachable!("parquet 58 has no page stores")
}

/// How one file is written.
#[derive(Debug, Clone, Copy)]
struct Setup {
    threads: usize,
    listener: bool,
    /// `ArrowWriterOptions::with_block_cache(false)`.
    opt_out: bool,
    /// Pages kept by a page store (one large enough never to spill).
    page_store: bool,
}

/// What writing one file saw.
struct Seen {
    file: Vec<u8>,
    /// `block_cache_bytes()` after the first row group was written (its
    /// chunks dropped) and half of the second one encoded.
    cached_during: usize,
    /// The writer's `memory_size()` then.
    held_during: usize,
    /// The listener's peak, if there was one.
    peak: Option<usize>,
}

/// Writes the batch in two halves (one row group each) as `setup` says.
fn write(batch: &RecordBatch, setup: Setup) -> Seen {
    let mut options = ArrowWriterOptions::new()
        .with_properties(props())
        .with_block_cache(!setup.opt_out);
    if setup.page_store {
        options = with_page_store(options);
    }
    let mut w = ArrowWriter::try_new_with_options(Vec::new(), batch.schema(), options)
        .unwrap()
        .with_threads(setup.threads)
        .with_min_parallel_work(std::time::Duration::ZERO);
    let listener = setup.listener.then(|| Arc::new(Peak::default()));
    if let Some(l) = &listener {
        w = w.with_memory_listener(l.clone());
    }
    // The first row group whole, then half of the second one.
    let half = ROW_GROUP + ROW_GROUP / 2;
    w.write(&batch.slice(0, ROW_GROUP)).unwrap();
    w.write(&batch.slice(ROW_GROUP, half - ROW_GROUP)).unwrap();
    // On several threads `memory_size` waits for the queued work, so the
    // second row group's blocks are drawn (and the first one's spliced).
    let held_during = w.memory_size();
    let cached_during = block_cache_bytes();
    w.write(&batch.slice(half, ROWS - half)).unwrap();
    w.flush().unwrap();
    w.ran_as_planned(2).unwrap();
    let file = w.into_inner().unwrap();
    let peak = listener.map(|l| {
        assert_eq!(
            l.used.load(Ordering::SeqCst),
            0,
            "{setup:?}: all given back"
        );
        l.peak.load(Ordering::SeqCst)
    });
    Seen {
        file,
        cached_during,
        held_during,
        peak,
    }
}

/// Fills the cache with what a plain writer leaves and returns its bytes.
fn fill_cache(batch: &RecordBatch, expected: &[u8]) -> usize {
    set_block_cache_limit(0);
    set_block_cache_limit(DEFAULT_BLOCK_CACHE_LIMIT);
    let plain = Setup {
        threads: 1,
        listener: false,
        opt_out: false,
        page_store: false,
    };
    assert_eq!(write(batch, plain).file, expected);
    let kept = block_cache_bytes();
    assert!(kept >= ROW_GROUP * 16, "{kept} bytes cached");
    kept
}

/// Checks a writer that must keep out of the cache: the cache holds the
/// same bytes during and after its write, the file is `parquet`'s, and
/// (with a listener) the reservation covered what the writer held.
fn keeps_out(batch: &RecordBatch, expected: &[u8], setup: Setup) {
    let kept = fill_cache(batch, expected);
    let seen = write(batch, setup);
    assert!(seen.file == expected, "{setup:?}: file differs");
    assert_eq!(
        seen.cached_during, kept,
        "{setup:?}: cache used while writing"
    );
    assert_eq!(
        block_cache_bytes(),
        kept,
        "{setup:?}: cache changed by the write"
    );
    // Its memory is its own blocks: at least half a row group's values of
    // one column (the page store holds them resident, and counts them).
    assert!(
        seen.held_during >= ROW_GROUP / 2 * 16,
        "{setup:?}: {} bytes held",
        seen.held_during
    );
    if let Some(peak) = seen.peak {
        assert!(
            peak >= seen.held_during,
            "{setup:?}: listener peak {peak} below the {} bytes held",
            seen.held_during
        );
    }
}

fn setups() -> Vec<Setup> {
    let mut all = Vec::new();
    for threads in [1, 2] {
        for (listener, opt_out) in [(true, false), (false, true), (true, true)] {
            for &page_store in PAGE_STORES {
                all.push(Setup {
                    threads,
                    listener,
                    opt_out,
                    page_store,
                });
            }
        }
    }
    all
}

#[test]
fn the_leaves_are_on_the_fast_path() {
    assert_kinds_fast("block cache", &batch().schema(), &props());
}

/// Fails before writers with a listener kept out of the cache: the second
/// row group's blocks were taken from it (and the first's given to it).
#[test]
fn a_writer_with_a_listener_neither_takes_nor_gives() {
    let _serial = serial();
    let batch = batch();
    let expected = parquet_file(&batch);
    for threads in [1, 2] {
        let setup = Setup {
            threads,
            listener: true,
            opt_out: false,
            page_store: false,
        };
        keeps_out(&batch, &expected, setup);
    }
}

#[test]
fn opting_out_and_page_stores_keep_out_too() {
    let _serial = serial();
    let batch = batch();
    let expected = parquet_file(&batch);
    for setup in setups() {
        keeps_out(&batch, &expected, setup);
    }
}

/// The control: a plain writer does draw on the cache (so the checks above
/// can tell), and gives its blocks back.
#[test]
fn a_plain_writer_uses_the_cache() {
    let _serial = serial();
    let batch = batch();
    let expected = parquet_file(&batch);
    for threads in [1, 2] {
        let kept = fill_cache(&batch, &expected);
        let setup = Setup {
            threads,
            listener: false,
            opt_out: false,
            page_store: false,
        };
        let seen = write(&batch, setup);
        assert!(seen.file == expected, "{setup:?}: file differs");
        assert!(
            seen.cached_during < kept,
            "{setup:?}: {} bytes cached while writing, {kept} before",
            seen.cached_during
        );
        assert!(block_cache_bytes() >= seen.cached_during);
    }
}

/// The column-level API: a factory with the cache off (set on it, or
/// carried from the options through `into_serialized_writer`) makes column
/// writers that keep out of it; the file is `parquet`'s.
#[test]
fn row_group_factories_keep_out_when_told() {
    let _serial = serial();
    let batch = batch();
    let expected = parquet_file(&batch);
    for from_options in [false, true] {
        let kept = fill_cache(&batch, &expected);
        let options = ArrowWriterOptions::new()
            .with_properties(props())
            .with_block_cache(!from_options);
        let w = ArrowWriter::try_new_with_options(Vec::new(), batch.schema(), options).unwrap();
        let (mut file, factory) = w.into_serialized_writer().unwrap();
        let factory = match from_options {
            true => factory,
            false => factory.with_block_cache(false),
        };
        for (index, rows) in [(0, 0..ROW_GROUP), (1, ROW_GROUP..ROWS)] {
            let part = batch.slice(rows.start, rows.len());
            let chunks = column_chunks(&factory, index, &part);
            assert_eq!(block_cache_bytes(), kept, "row group {index}: cache used");
            let mut rg = file.next_row_group().unwrap();
            for chunk in chunks {
                chunk.append_to_row_group(&mut rg).unwrap();
            }
            rg.close().unwrap();
            assert_eq!(
                block_cache_bytes(),
                kept,
                "row group {index}: cache given to"
            );
        }
        file.finish().unwrap();
        assert!(file.inner() == &expected, "from options: {from_options}");
    }
}

/// Row group `index` of `part` through `factory`'s column writers, each of
/// them on the fast path.
fn column_chunks(
    factory: &ArrowRowGroupWriterFactory,
    index: usize,
    part: &RecordBatch,
) -> Vec<parquet_flba::ArrowColumnChunk> {
    let mut writers = factory.create_column_writers(index).unwrap();
    for ((field, col), writer) in part
        .schema()
        .fields()
        .iter()
        .zip(part.columns())
        .zip(&mut writers)
    {
        for leaf in compute_leaves(field, col).unwrap() {
            writer.write(&leaf).unwrap();
        }
    }
    assert!(
        writers.iter().all(|w| w.memory_size() >= ROW_GROUP),
        "each writer holds its pages"
    );
    assert_eq!(factory.column_plan().fast_count(), writers.len());
    writers.into_iter().map(|w| w.close().unwrap()).collect()
}

/// A file written with parquet-flba on `threads` threads; `during` is
/// called after the write has been encoded, before `close`.
fn plain(batch: &RecordBatch, threads: usize, during: impl FnOnce()) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet_flba::ArrowWriter::try_new(&mut out, batch.schema(), None)
        .unwrap()
        .with_threads(threads)
        .with_min_parallel_work(std::time::Duration::ZERO);
    w.write(batch).unwrap();
    // On several threads `write` only queues the columns' work on their
    // lanes; `in_progress_size` waits for it, so the blocks are drawn.
    assert!(w.in_progress_size() > 0);
    during();
    w.close().unwrap();
    out
}

#[test]
fn blocks_are_kept_reused_and_bounded() {
    let _serial = serial();
    let batch = batch();
    let expected = parquet_with(&batch, None);

    assert_eq!(set_block_cache_limit(0), DEFAULT_BLOCK_CACHE_LIMIT);
    assert_eq!(block_cache_bytes(), 0);
    // Off: nothing is kept.
    assert_eq!(plain(&batch, 1, || {}), expected);
    assert_eq!(block_cache_bytes(), 0);

    // On: the written chunks' blocks are kept...
    set_block_cache_limit(DEFAULT_BLOCK_CACHE_LIMIT);
    assert_eq!(plain(&batch, 1, || {}), expected);
    let kept = block_cache_bytes();
    assert!(
        kept >= ROWS * 16,
        "{kept} bytes kept, less than a column's values"
    );
    // ... and the next file's writers take them (on one thread and on two),
    // writing the same bytes into them.
    for threads in [1, 2] {
        let mut during = None;
        assert_eq!(
            plain(&batch, threads, || during = Some(block_cache_bytes())),
            expected,
            "{threads} threads"
        );
        let during = during.unwrap();
        assert!(
            during < kept,
            "{threads} threads: {during} bytes cached while writing, {kept} before: none taken"
        );
        // Every block taken is given back. On one thread the file asks for
        // the same sizes in the same order, so exactly the same blocks come
        // back; on two, a column may find a size taken by another column a
        // moment before (or given back early) and allocate one more.
        let after = block_cache_bytes();
        match threads {
            1 => assert_eq!(after, kept, "one thread: the same blocks back"),
            _ => assert!(
                after >= kept,
                "{threads} threads: {after} bytes back of {kept}"
            ),
        }
    }

    // A limit below what a file leaves: never more than the limit is kept.
    let small = 96 << 10;
    set_block_cache_limit(small);
    assert!(block_cache_bytes() <= small);
    assert_eq!(plain(&batch, 2, || {}), expected);
    assert!(block_cache_bytes() <= small);

    set_block_cache_limit(0);
    assert_eq!(block_cache_bytes(), 0);
    set_block_cache_limit(DEFAULT_BLOCK_CACHE_LIMIT);
}
