//! `SpillPageStoreFactory`: files identical to `parquet`'s, bounded heap, and
//! spill files created lazily and always cleaned up.
//!
//! This binary has a counting global allocator, so its tests run one at a
//! time (see [`serial`]) and peak heap figures are those of the test that
//! measures them.

// parquet 58 has no page stores (`SpillPageStoreFactory` needs parquet 59+).
#![cfg(not(feature = "parquet-58"))]

include!("../src/versions.rs");

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use arrow_array::{
    Array, ArrayRef, Decimal128Array, FixedSizeBinaryArray, Int32Array, Int64Array, ListArray,
    RecordBatch, StringArray, StructArray,
};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::properties::WriterProperties;
use parquet_flba::{ArrowWriter, ArrowWriterOptions, SpillPageStoreFactory};

// ---------------------------------------------------------------------------
// Counting allocator
// ---------------------------------------------------------------------------

/// The system allocator, counting live bytes and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let live = LIVE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters are
// updated around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak live heap, in bytes above what was live when it started, of `f`.
fn peak_heap_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

/// Tests of this binary run one at a time, so that heap measurements and
/// spill-file counts are not disturbed by another test.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::FixedSizeBinary(16), false),
        Field::new("amount", DataType::Decimal128(38, 4), true),
        Field::new("ts", DataType::Int64, false),
        Field::new("symbol", DataType::Utf8, true),
    ]))
}

/// SplitMix64, so the data is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Batch number `n` of `rows` random rows (incompressible, high cardinality,
/// so every column falls back from dictionary to PLAIN and the pages take
/// about as much room as the values).
fn batch(n: u64, rows: usize) -> RecordBatch {
    let mut rng = Rng(n.wrapping_mul(0x1234_5678_9ABC_DEF1) ^ 0xF1BA);
    let ids = FixedSizeBinaryArray::try_from_iter((0..rows).map(|_| {
        let mut v = [0u8; 16];
        v[..8].copy_from_slice(&rng.next().to_le_bytes());
        v[8..].copy_from_slice(&rng.next().to_le_bytes());
        v
    }))
    .unwrap();
    let amounts = Decimal128Array::from_iter((0..rows).map(|i| {
        let r = rng.next();
        (i % 7 != 0).then_some(((r as i128) << 20) ^ (r as i128 >> 3))
    }))
    .with_precision_and_scale(38, 4)
    .unwrap();
    let ts = Int64Array::from_iter_values((0..rows).map(|_| rng.next() as i64));
    let symbols = StringArray::from_iter((0..rows).map(|i| {
        let r = rng.next();
        (i % 11 != 0).then(|| format!("{:x}", r >> (r % 32)))
    }));
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(ids) as ArrayRef,
            Arc::new(amounts),
            Arc::new(ts),
            Arc::new(symbols),
        ],
    )
    .unwrap()
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A fresh directory for one test, under the system temp dir; removed (with
/// whatever is left in it) when dropped.
struct TestDir(PathBuf);

impl TestDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "parquet-flba-test-spill-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Names of the spill files in `dir` (none if it does not exist).
fn spill_files(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("parquet-flba-spill-"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Writes batches `0..n` with `parquet`'s own writer, no page store.
fn upstream_file(n: u64, rows: usize, props: &WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut out, schema(), Some(props.clone())).unwrap();
    for i in 0..n {
        w.write(&batch(i, rows)).unwrap();
    }
    w.close().unwrap();
    out
}

fn options(props: &WriterProperties, spill: Option<&SpillPageStoreFactory>) -> ArrowWriterOptions {
    let options = ArrowWriterOptions::new().with_properties(props.clone());
    match spill {
        Some(s) => options.with_page_store_factory(Arc::new(s.clone())),
        None => options,
    }
}

fn read_rows(file: Vec<u8>) -> usize {
    ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum()
}

const MIB: usize = 1024 * 1024;

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

/// Pages small enough that the pages of a row group, not the per-column
/// working state (current page, dictionary), make up most of the memory an
/// in-memory write needs.
fn small_pages() -> WriterProperties {
    WriterProperties::builder()
        .set_max_row_group_row_count(Some(1 << 20))
        .set_data_page_size_limit(64 * 1024)
        .set_dictionary_page_size_limit(64 * 1024)
        .build()
}

/// Writes batches `0..n` with our writer into a file (not a `Vec`, which
/// would count as heap); returns the file's bytes and the peak heap while
/// writing.
fn write_measured(
    path: &Path,
    n: u64,
    props: &WriterProperties,
    spill: Option<&SpillPageStoreFactory>,
) -> (Vec<u8>, usize) {
    let ((), peak) = peak_heap_of(|| {
        let file = BufWriter::new(File::create(path).unwrap());
        let mut w =
            ArrowWriter::try_new_with_options(file, schema(), options(props, spill)).unwrap();
        for i in 0..n {
            w.write(&batch(i, ROWS)).unwrap();
            if let Some(s) = spill {
                assert!(s.resident_bytes() <= s.memory_budget());
            }
        }
        if let Some(s) = spill {
            assert!(s.spill_files() > 0, "nothing was spilled");
            assert_eq!(spill_files(s.spill_dir()).len(), s.spill_files());
        }
        w.close().unwrap();
    });
    (std::fs::read(path).unwrap(), peak)
}

const ROWS: usize = 4096;

/// Row groups several times the budget: the files are byte-identical to
/// `parquet`'s (written without a page store), and the peak heap while
/// writing with spilling stays flat as the row group triples, whereas the
/// in-memory write needs at least the whole row group.
#[test]
fn spilled_row_group_is_identical_and_heap_is_bounded() {
    let _serial = serial();
    const BUDGET: usize = MIB;
    // Four fast columns (id, amount, ts, symbol) keep about 8 MB of working
    // state (open pages, blocks, dictionaries) whatever the row group: the
    // large row group must dwarf it.
    let (small, large) = (24, 120);
    let props = small_pages();
    let dir = TestDir::new("bounded");
    let spill = SpillPageStoreFactory::new(BUDGET).with_spill_dir(dir.path().join("spill"));

    let expected = upstream_file(large, ROWS, &props);
    let (in_memory, peak_in_memory) =
        write_measured(&dir.path().join("a.parquet"), large, &props, None);
    let (spilled, peak_spilled) =
        write_measured(&dir.path().join("b.parquet"), large, &props, Some(&spill));
    let spilled_bytes = spill.total_spilled_bytes();
    let (small_file, peak_spilled_small) =
        write_measured(&dir.path().join("c.parquet"), small, &props, Some(&spill));

    let (rg_large, rg_small) = (expected.len(), small_file.len());
    eprintln!(
        "budget {BUDGET} bytes; row group of {rg_large} bytes: peak heap {peak_in_memory} bytes \
         in memory, {peak_spilled} bytes spilling ({spilled_bytes} bytes spilled); row group of \
         {rg_small} bytes: peak heap {peak_spilled_small} bytes spilling"
    );
    assert!(
        expected == in_memory,
        "in-memory file differs from parquet's"
    );
    assert!(expected == spilled, "spilled file differs from parquet's");
    assert!(
        rg_large > 10 * BUDGET,
        "the row group must dwarf the budget"
    );
    assert!(spilled_bytes as usize > rg_large - 2 * BUDGET);
    assert!(peak_in_memory > rg_large);

    // Bounded: tripling the row group barely moves the spilling peak...
    let growth = peak_spilled.saturating_sub(peak_spilled_small);
    assert!(
        growth < (rg_large - rg_small) / 8,
        "the spilling peak grew by {growth} bytes ({peak_spilled_small} -> {peak_spilled}) \
         when the row group grew by {} bytes",
        rg_large - rg_small
    );
    // ... and it is a fraction of the row group.
    assert!(
        peak_spilled < rg_large / 2,
        "spilling peak {peak_spilled} for a row group of {rg_large} bytes"
    );

    // Everything given back.
    assert_eq!(spill.resident_bytes(), 0);
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.spill_files(), 0);
    assert!(spill_files(spill.spill_dir()).is_empty());
    assert_eq!(read_rows(spilled), large as usize * ROWS);
}

/// Every page spilled, under several writer configurations: the file does
/// not change.
#[test]
fn identical_with_every_page_spilled() {
    let _serial = serial();
    let dir = TestDir::new("configs");
    let configs = [
        ("default", WriterProperties::builder()),
        (
            "plain",
            WriterProperties::builder().set_dictionary_enabled(false),
        ),
        (
            "zstd_parquet_2",
            WriterProperties::builder()
                .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
                .set_writer_version(parquet::file::properties::WriterVersion::PARQUET_2_0),
        ),
        (
            "bloom_filter_small_pages",
            WriterProperties::builder()
                .set_bloom_filter_enabled(true)
                .set_data_page_size_limit(2048)
                .set_max_row_group_row_count(Some(2500)),
        ),
    ];
    for (name, builder) in configs {
        let props = builder.build();
        let expected = upstream_file(3, 2000, &props);
        for budget in [0, 16 * 1024] {
            let spill = SpillPageStoreFactory::new(budget).with_spill_dir(dir.path());
            let mut out = Vec::new();
            let mut w = ArrowWriter::try_new_with_options(
                &mut out,
                schema(),
                options(&props, Some(&spill)),
            )
            .unwrap();
            for i in 0..3 {
                w.write(&batch(i, 2000)).unwrap();
            }
            w.close().unwrap();
            assert!(expected == out, "{name}, budget {budget}: file differs");
            assert!(spill.total_spilled_bytes() > 0, "{name}: nothing spilled");
            assert_eq!(spill.spill_files(), 0);
            assert_eq!(spill.resident_bytes(), 0);
        }
    }
    assert!(spill_files(dir.path()).is_empty());
}

/// `parquet`'s own writer works with the store too, and its file does not
/// change either.
#[test]
fn works_with_parquets_writer() {
    let _serial = serial();
    let dir = TestDir::new("upstream");
    let props = WriterProperties::builder()
        .set_data_page_size_limit(8 * 1024)
        .build();
    let expected = upstream_file(3, 2000, &props);
    let spill = SpillPageStoreFactory::new(16 * 1024).with_spill_dir(dir.path());
    let mut out = Vec::new();
    let options = parquet::arrow::arrow_writer::ArrowWriterOptions::new()
        .with_properties(props)
        .with_page_store_factory(Arc::new(spill.clone()));
    let mut w =
        parquet::arrow::ArrowWriter::try_new_with_options(&mut out, schema(), options).unwrap();
    for i in 0..3 {
        w.write(&batch(i, 2000)).unwrap();
    }
    assert!(!spill_files(dir.path()).is_empty());
    w.close().unwrap();
    assert!(spill.total_spilled_bytes() > 0);
    assert!(expected == out, "file differs");
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.resident_bytes(), 0);
}

/// A write that fits the budget creates no file, and not even the spill
/// directory.
#[test]
fn no_spill_creates_nothing() {
    let _serial = serial();
    let dir = TestDir::new("lazy");
    let spill_dir = dir.path().join("not").join("yet");
    let spill = SpillPageStoreFactory::new(64 * MIB).with_spill_dir(&spill_dir);
    let props = WriterProperties::default();
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new_with_options(&mut out, schema(), options(&props, Some(&spill)))
            .unwrap();
    for i in 0..3 {
        w.write(&batch(i, 1000)).unwrap();
        w.flush().unwrap();
    }
    w.write(&batch(3, 1000)).unwrap();
    assert!(!spill_dir.exists());
    assert!(!dir.path().join("not").exists());
    w.close().unwrap();
    assert!(!dir.path().join("not").exists());
    assert_eq!(spill.total_spilled_bytes(), 0);
    assert_eq!(spill.resident_bytes(), 0);
    // Same file as `parquet` writes with the same flushes.
    let mut expected = Vec::new();
    let mut u = parquet::arrow::ArrowWriter::try_new(&mut expected, schema(), Some(props)).unwrap();
    for i in 0..3 {
        u.write(&batch(i, 1000)).unwrap();
        u.flush().unwrap();
    }
    u.write(&batch(3, 1000)).unwrap();
    u.close().unwrap();
    assert!(out == expected, "file differs");
}

/// Spill everything (budget 0), with small pages: several files live while
/// the row group is open.
fn spill_all(dir: &Path) -> (SpillPageStoreFactory, WriterProperties) {
    let spill = SpillPageStoreFactory::new(0).with_spill_dir(dir);
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(4 * 1024)
        .build();
    (spill, props)
}

#[test]
fn files_are_removed_after_close() {
    let _serial = serial();
    let dir = TestDir::new("close");
    let (spill, props) = spill_all(dir.path());
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new_with_options(&mut out, schema(), options(&props, Some(&spill)))
            .unwrap();
    w.write(&batch(0, 1500)).unwrap();
    w.write(&batch(1, 1500)).unwrap();
    // One file per spilling column chunk.
    assert_eq!(spill_files(dir.path()).len(), 4);
    assert_eq!(spill.spill_files(), 4);
    assert!(spill.spilled_bytes() > 0);
    assert_eq!(spill.resident_bytes(), 0);
    // What is left in memory: each column's open page and buffers (a fast
    // leaf's block, about 80 KiB, is the most of it), not its pages.
    assert!(w.memory_size() < 4 * 100 * 1024, "{}", w.memory_size());
    w.flush().unwrap();
    // The row group is written: its files are gone.
    assert!(spill_files(dir.path()).is_empty());
    w.write(&batch(2, 1500)).unwrap();
    assert_eq!(spill_files(dir.path()).len(), 4);
    w.close().unwrap();
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.spill_files(), 0);
    assert_eq!(read_rows(out), 4500);
}

#[test]
fn files_are_removed_when_dropped_without_close() {
    let _serial = serial();
    let dir = TestDir::new("drop");
    let (spill, props) = spill_all(dir.path());
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new_with_options(&mut out, schema(), options(&props, Some(&spill)))
            .unwrap();
    w.write(&batch(0, 1500)).unwrap();
    assert_eq!(spill_files(dir.path()).len(), 4);
    drop(w);
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.spill_files(), 0);
}

/// A batch that fails half-way through a row group: the files of the rows
/// already buffered stay until the row group is written, then go; and
/// dropping the writer after an error removes them too.
#[test]
fn files_are_removed_after_a_failed_write() {
    let _serial = serial();
    let dir = TestDir::new("failed");
    let (spill, props) = spill_all(dir.path());
    let wrong = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(FixedSizeBinaryArray::try_from_iter([[0u8; 16]].into_iter()).unwrap())
                as ArrayRef,
        ),
        ("amount", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
        ("ts", Arc::new(Int64Array::from(vec![1])) as ArrayRef),
        ("symbol", Arc::new(StringArray::from(vec!["x"])) as ArrayRef),
    ])
    .unwrap();

    // Error, then close: the file is complete and the spill files are gone.
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new_with_options(&mut out, schema(), options(&props, Some(&spill)))
            .unwrap();
    w.write(&batch(0, 1500)).unwrap();
    assert!(w.write(&wrong).is_err());
    assert_eq!(spill_files(dir.path()).len(), 4);
    w.close().unwrap();
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(read_rows(out), 1500);

    // Error, then drop.
    let mut w =
        ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
            .unwrap();
    w.write(&batch(0, 1500)).unwrap();
    assert!(w.write(&wrong).is_err());
    drop(w);
    assert!(spill_files(dir.path()).is_empty());

    // The output fails while the row group is being written out.
    let mut w = ArrowWriter::try_new_with_options(
        FailAfter(10_000),
        schema(),
        options(&props, Some(&spill)),
    )
    .unwrap();
    w.write(&batch(0, 1500)).unwrap();
    assert_eq!(spill_files(dir.path()).len(), 4);
    let err = w.flush().unwrap_err().to_string();
    assert!(err.contains("disk full"), "{err}");
    drop(w);
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.spill_files(), 0);
    assert_eq!(spill.resident_bytes(), 0);
}

/// A writer that takes `.0` bytes, then fails.
struct FailAfter(usize);

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.0 {
            return Err(std::io::Error::other("disk full"));
        }
        self.0 -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn spill_limit_gives_a_clear_error() {
    let _serial = serial();
    let dir = TestDir::new("limit");
    let spill = SpillPageStoreFactory::new(0)
        .with_spill_dir(dir.path())
        .with_max_spill_bytes(Some(50_000));
    assert_eq!(spill.max_spill_bytes(), Some(50_000));
    let props = WriterProperties::builder()
        .set_data_page_size_limit(4 * 1024)
        .build();
    let mut w =
        ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
            .unwrap();
    let mut error = None;
    for i in 0..20 {
        if let Err(e) = w.write(&batch(i, 1000)) {
            error = Some(e.to_string());
            break;
        }
        assert!(spill.spilled_bytes() <= 50_000);
    }
    let error = error.expect("the spill limit was never hit");
    assert!(error.contains("spill limit"), "{error}");
    assert!(error.contains("50000 bytes"), "{error}");
    let requested = error
        .split("a page of ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("the error does not name the page size: {error}"));
    assert!(requested > 0);
    assert!(spill.spilled_bytes() + requested > 50_000);
    assert!(!spill_files(dir.path()).is_empty());
    drop(w);
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spilled_bytes(), 0);
}

// ---------------------------------------------------------------------------
// Edges: unwinding, failures to create or write, per-chunk removal, nested
// and mixed-CDC files
// ---------------------------------------------------------------------------

/// A sink that panics once it has taken `.0` bytes.
struct PanicAfter(usize);

impl Write for PanicAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.0 {
            panic!("sink panicked");
        }
        self.0 -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A panic while spill files exist (in the caller, and in the sink while the
/// row group is being written out, some chunks appended and some not):
/// unwinding drops the writer, which removes every file.
#[test]
fn files_are_removed_on_unwind() {
    let _serial = serial();
    let dir = TestDir::new("unwind");
    let (spill, props) = spill_all(dir.path());
    let caller = std::panic::catch_unwind(|| {
        let mut w =
            ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
                .unwrap();
        w.write(&batch(0, 1500)).unwrap();
        assert_eq!(spill_files(dir.path()).len(), 4);
        panic!("caller panicked");
    });
    let sink = std::panic::catch_unwind(|| {
        let mut w = ArrowWriter::try_new_with_options(
            PanicAfter(20_000),
            schema(),
            options(&props, Some(&spill)),
        )
        .unwrap();
        w.write(&batch(0, 1500)).unwrap();
        assert_eq!(spill_files(dir.path()).len(), 4);
        let _ = w.flush();
    });
    assert!(
        caller.is_err() && sink.is_err(),
        "both should have panicked"
    );
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spill_files(), 0);
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.resident_bytes(), 0);
}

/// A spill directory that cannot be created (its parent is a file): the
/// write fails with an error naming the directory, and nothing is created.
#[test]
fn uncreatable_spill_dir_gives_a_clear_error() {
    let _serial = serial();
    let dir = TestDir::new("uncreatable");
    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, b"x").unwrap();
    let spill_dir = file.join("spill");
    let (_, props) = spill_all(dir.path());
    let spill = SpillPageStoreFactory::new(0).with_spill_dir(&spill_dir);
    let mut w =
        ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
            .unwrap();
    let err = w.write(&batch(0, 1500)).unwrap_err().to_string();
    assert!(
        err.contains("cannot create the spill directory") && err.contains("not-a-directory"),
        "{err}"
    );
    drop(w);
    assert!(!spill_dir.exists());
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("not-a-directory")]);
    assert_eq!(spill.spill_files(), 0);
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.resident_bytes(), 0);
}

/// A spill write that fails (the file-size limit of the process,
/// `RLIMIT_FSIZE`, makes it fail with EFBIG): the write fails with an error
/// naming the spill file, and dropping the writer removes every file.
///
/// The limit is the whole process's: set here, it would also fail the test
/// harness's own write of another test's result line whenever this binary's
/// output goes to a file already past the limit (a CI log), and the binary
/// would exit 101 with no word of why. So the test body runs in a child
/// process (this binary, this test alone), whose output is a pipe.
#[cfg(target_os = "linux")]
#[test]
fn failed_spill_write_gives_a_clear_error() {
    const CHILD: &str = "PARQUET_FLBA_TEST_EFBIG_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["failed_spill_write_gives_a_clear_error", "--exact"])
            .args(["--test-threads", "1"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("test result: ok. 1 passed"),
            "the child failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let _serial = serial();
    let dir = TestDir::new("write-fails");
    let (spill, props) = spill_all(dir.path());
    let mut w =
        ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
            .unwrap();
    let limit = 64 * 1024;
    let old = {
        let mut old = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain libc calls on valid pointers; SIGXFSZ ignored so a
        // write past the limit fails with EFBIG instead of killing us.
        unsafe {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            assert_eq!(libc::getrlimit(libc::RLIMIT_FSIZE, &mut old), 0);
            let new = libc::rlimit {
                rlim_cur: limit,
                rlim_max: old.rlim_max,
            };
            assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &new), 0);
        }
        old
    };
    let mut error = None;
    for i in 0..40 {
        if let Err(e) = w.write(&batch(i, 1500)) {
            error = Some(e.to_string());
            break;
        }
    }
    // SAFETY: as above; restores the limit.
    unsafe {
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &old), 0);
    }
    let error = error.expect("no spill write failed");
    assert!(
        error.contains("cannot write to the spill file") && error.contains("parquet-flba-spill-"),
        "{error}"
    );
    drop(w);
    assert!(spill_files(dir.path()).is_empty());
    assert_eq!(spill.spill_files(), 0);
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.resident_bytes(), 0);
}

/// With the column-level API, each column chunk's spill file goes as soon
/// as that chunk is appended to the row group, the others staying; the
/// file is `parquet`'s.
#[test]
fn each_file_goes_with_its_column_chunk() {
    let _serial = serial();
    let dir = TestDir::new("per-chunk");
    let (spill, props) = spill_all(dir.path());
    let b = batch(0, 1500);
    let w = ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
        .unwrap();
    let (mut file_writer, factory) = w.into_serialized_writer().unwrap();
    let mut writers = factory.create_column_writers(0).unwrap();
    for ((field, col), writer) in schema().fields().iter().zip(b.columns()).zip(&mut writers) {
        for leaf in parquet_flba::compute_leaves(field, col).unwrap() {
            writer.write(&leaf).unwrap();
        }
    }
    let chunks: Vec<_> = writers.into_iter().map(|w| w.close().unwrap()).collect();
    assert_eq!(spill_files(dir.path()).len(), 4);
    let mut rg = file_writer.next_row_group().unwrap();
    for (i, chunk) in chunks.into_iter().enumerate() {
        chunk.append_to_row_group(&mut rg).unwrap();
        assert_eq!(
            spill_files(dir.path()).len(),
            3 - i,
            "after appending column chunk {i}"
        );
        assert_eq!(spill.spill_files(), 3 - i);
    }
    rg.close().unwrap();
    file_writer.finish().unwrap();
    let out = file_writer.inner().clone();

    let mut expected = Vec::new();
    let mut u = parquet::arrow::ArrowWriter::try_new(&mut expected, schema(), Some(props)).unwrap();
    u.write(&b).unwrap();
    u.close().unwrap();
    assert!(out == expected, "file differs");
    assert_eq!(spill.spilled_bytes(), 0);
}

/// Writes `batches` with every page spilled, checks that files existed
/// while the row group was open and are all gone after close, and that the
/// file is `parquet`'s (written without a page store).
fn spilled_identical(name: &str, batches: &[RecordBatch], props: WriterProperties) {
    let dir = TestDir::new(name);
    let spill = SpillPageStoreFactory::new(0).with_spill_dir(dir.path());
    let schema = batches[0].schema();
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new_with_options(&mut out, schema.clone(), options(&props, Some(&spill)))
            .unwrap();
    let mut most = 0;
    for b in batches {
        w.write(b).unwrap();
        most = most.max(spill_files(dir.path()).len());
    }
    assert!(most > 0, "{name}: nothing was spilled");
    let md = w.finish().unwrap();
    // What ran: every FIXED_LEN_BYTE_ARRAY leaf's chunks from the fast
    // writer (the one that stores pages in the spill store).
    if let Err(e) =
        common::check_ran_as_planned(w.column_plan(), &w.leaf_chunks(), md.num_row_groups())
    {
        panic!("{name}: {e}");
    }
    drop(w);
    assert!(spill_files(dir.path()).is_empty(), "{name}: files left");
    assert_eq!(spill.spill_files(), 0);
    assert_eq!(spill.spilled_bytes(), 0);
    assert_eq!(spill.resident_bytes(), 0);

    let mut expected = Vec::new();
    let mut u = parquet::arrow::ArrowWriter::try_new(&mut expected, schema, Some(props)).unwrap();
    for b in batches {
        u.write(b).unwrap();
    }
    u.close().unwrap();
    assert!(out == expected, "{name}: file differs");
}

/// FLBA leaves in a struct (next to an Int64) and in a list.
#[test]
fn nested_file_spills_and_cleans_up() {
    let _serial = serial();
    let batches: Vec<RecordBatch> = (0..3)
        .map(|n| {
            let b = batch(n, 1500);
            let fields = Fields::from(vec![
                Field::new("id", DataType::FixedSizeBinary(16), false),
                Field::new("ts", DataType::Int64, false),
            ]);
            let st = StructArray::new(fields, vec![b.column(0).clone(), b.column(2).clone()], None);
            let lens: Vec<usize> = (0..500).map(|i| i % 4).collect();
            let total: usize = lens.iter().sum();
            let item = Arc::new(Field::new("item", DataType::Decimal128(38, 4), true));
            let list = ListArray::new(
                item,
                OffsetBuffer::from_lengths(lens),
                b.column(1).slice(0, total),
                None,
            );
            RecordBatch::try_from_iter([
                ("s", Arc::new(st.slice(0, 500)) as ArrayRef),
                ("l", Arc::new(list) as ArrayRef),
            ])
            .unwrap()
        })
        .collect();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_data_page_size_limit(4 * 1024)
        .build();
    spilled_identical("nested", &batches, props);
}

/// Content-defined chunking on a mixed table (the FLBA columns chunked
/// here, the others by an inner `parquet` writer that also gets the store).
#[test]
fn mixed_cdc_file_spills_and_cleans_up() {
    let _serial = serial();
    let batches: Vec<RecordBatch> = (0..3).map(|n| batch(n, 1500)).collect();
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_content_defined_chunking(Some(parquet::file::properties::CdcOptions {
            min_chunk_size: 1024,
            max_chunk_size: 8 * 1024,
            norm_level: 0,
        }))
        .build();
    spilled_identical("mixed_cdc", &batches, props);
}

/// Spill files are readable and writable by their owner only: they hold
/// the user's data in a shared temporary directory.
#[cfg(unix)]
#[test]
fn spill_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let _serial = serial();
    let dir = TestDir::new("private");
    let (spill, props) = spill_all(dir.path());
    let mut w =
        ArrowWriter::try_new_with_options(Vec::new(), schema(), options(&props, Some(&spill)))
            .unwrap();
    w.write(&batch(0, 1500)).unwrap();
    let files = spill_files(dir.path());
    assert!(!files.is_empty());
    for name in files {
        let mode = std::fs::metadata(dir.path().join(&name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name}: mode {:o}", mode & 0o777);
    }
    w.close().unwrap();
}
