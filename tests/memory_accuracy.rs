//! `ArrowWriter::memory_size()` against the heap the writer actually holds,
//! measured with a counting global allocator, after every batch and after a
//! flush: within 3% (or 4 KiB, for a writer that holds little), as the
//! README says. Workloads: 32,768-row batches of random `Decimal128(38,10)`,
//! `Decimal256(76,10)`, 16-byte UUIDs, 16-byte values 90% null, a
//! 1,000-value decimal and `Float16`; one column per file, several in one
//! file, nested in a struct and a list; uncompressed and compressed (codec
//! state is not counted by `memory_size`, as in `parquet`, so compressed
//! writers are measured once warm).
//!
//! Also: `flush()` gives the memory reservation back (a memory listener's
//! limit unchanged).
//!
//! This test binary has its own global allocator; it runs its cases one at a
//! time (a mutex) so that live-byte deltas belong to the case being measured.

include!("../src/versions.rs");

use arrow_array::{
    Array, ArrayRef, Decimal128Array, Decimal256Array, FixedSizeBinaryArray, Float16Array,
    ListArray, RecordBatch, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer, i256};
use arrow_schema::{Field, Fields};
use parquet::basic::Compression;
#[cfg(feature = "zstd")]
use parquet::basic::ZstdLevel;
use parquet::errors::ParquetError;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet_flba::{ArrowWriter, MemoryListener};
// The compression crates of the selected release, as the crate's codecs
// get them (`codecs/v<release>`), to measure a codec's own state.
#[cfg(all(
    feature = "parquet-58",
    not(any(feature = "parquet-59", feature = "parquet-60")),
    feature = "lz4",
    feature = "zstd"
))]
use codecs_58::{lz4_flex, zstd};
#[cfg(all(
    feature = "parquet-59",
    not(feature = "parquet-60"),
    feature = "lz4",
    feature = "zstd"
))]
use codecs_59::{lz4_flex, zstd};
#[cfg(all(feature = "parquet-60", feature = "lz4", feature = "zstd"))]
use codecs_60::{lz4_flex, zstd};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Bytes requested by allocations plus the growth of reallocations.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

std::thread_local! {
    /// Whether this thread's allocations are counted: only the test that
    /// holds [`serial`]'s lock, so that other test threads of the harness
    /// (starting, printing, ending) do not show up in its measurements.
    static TRACKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn tracked() -> bool {
    TRACKED.try_with(std::cell::Cell::get).unwrap_or(false)
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if tracked() {
            LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
            ALLOCATED.fetch_add(layout.size(), Ordering::SeqCst);
        }
        // SAFETY: same contract as `GlobalAlloc::alloc`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if tracked() {
            LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
            ALLOCATED.fetch_add(layout.size(), Ordering::SeqCst);
        }
        // SAFETY: same contract as `GlobalAlloc::alloc_zeroed`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if tracked() {
            LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        }
        // SAFETY: same contract as `GlobalAlloc::dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if tracked() {
            LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
            ALLOCATED.fetch_add(new_size.saturating_sub(layout.size()), Ordering::SeqCst);
        }
        // SAFETY: same contract as `GlobalAlloc::realloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static SERIAL: Mutex<()> = Mutex::new(());

/// Live heap outside the block cache: blocks a writer gives back when its
/// row group is written stay allocated, kept for reuse by the next chunk
/// (`parquet_flba::set_block_cache_limit`), and no longer belong to the
/// writer; blocks taken from the cache become the writer's again.
fn held() -> isize {
    LIVE.load(Ordering::SeqCst) - parquet_flba::block_cache_bytes() as isize
}

/// Tests of this binary run one at a time (the allocator's count is
/// process-wide): each holds this lock for its whole run, data generation
/// included, and only its own thread's allocations are counted.
///
/// The first holder also writes one small file, so that what parquet and
/// this crate allocate once per process (lazily initialised statics) is not
/// counted against the first writer measured.
fn serial() -> Serial {
    static WARM: std::sync::Once = std::sync::Once::new();
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    TRACKED.with(|t| t.set(true));
    WARM.call_once(|| {
        let b = workload("fsb_nulls", 99);
        let mut w = ArrowWriter::try_new(Vec::new(), b.schema(), None).unwrap();
        w.write(&b).unwrap();
        w.flush().unwrap();
        w.close().unwrap();
        println!("warm-up done");
    });
    Serial(guard)
}

/// The lock of [`serial`]; this thread's allocations are counted while it
/// is held.
struct Serial(#[allow(dead_code)] std::sync::MutexGuard<'static, ()>);

impl Drop for Serial {
    fn drop(&mut self) {
        TRACKED.with(|t| t.set(false));
    }
}

const ROWS: usize = 32_768;
const BATCHES: usize = 4;

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn workload(name: &str, seed: u64) -> RecordBatch {
    let mut r = rng(seed);
    let col: ArrayRef = match name {
        "decimal128" => Arc::new(
            Decimal128Array::from_iter_values((0..ROWS).map(|_| (r() as i128) << 20))
                .with_precision_and_scale(38, 10)
                .unwrap(),
        ),
        "decimal256" => Arc::new(
            Decimal256Array::from_iter_values(
                (0..ROWS).map(|_| i256::from_parts(r() as u128 | ((r() as u128) << 64), 7)),
            )
            .with_precision_and_scale(76, 10)
            .unwrap(),
        ),
        "uuid" => Arc::new(
            FixedSizeBinaryArray::try_from_iter(
                (0..ROWS).map(|_| ((r() as u128) << 64 | r() as u128).to_le_bytes()),
            )
            .unwrap(),
        ),
        "fsb_nulls" => Arc::new(
            FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                (0..ROWS).map(|_| {
                    let v = r();
                    v.is_multiple_of(10)
                        .then(|| ((v as u128) << 64 | r() as u128).to_le_bytes())
                }),
                16,
            )
            .unwrap(),
        ),
        "lowcard" => Arc::new(
            Decimal128Array::from_iter_values((0..ROWS).map(|_| (r() % 1000) as i128 * 1_000_003))
                .with_precision_and_scale(38, 2)
                .unwrap(),
        ),
        "float16" => Arc::new(Float16Array::from_iter_values(
            (0..ROWS).map(|_| half::f16::from_bits(r() as u16 & 0x7bff)),
        )),
        _ => unreachable!(),
    };
    RecordBatch::try_from_iter([("v", col)]).unwrap()
}

/// The README's claim: `memory_size()` is within 3% of the live heap the
/// writer holds...
const TOLERANCE: f64 = 0.03;

/// ...give or take a few fixed-size bookkeeping allocations that are not
/// counted (a few KiB per writer, which matter only while it holds little).
const SLACK: f64 = 4096.0;

/// Whether `reported` is within the claim of `live`.
fn within_claim(reported: f64, live: f64) -> bool {
    (reported - live).abs() <= (TOLERANCE * live).max(SLACK)
}

fn check(name: &str, props: WriterProperties) {
    let batches: Vec<RecordBatch> = (0..BATCHES as u64).map(|s| workload(name, s)).collect();
    check_batches(name, &batches, props);
}

/// Writes `batches` and compares `memory_size()` with the live heap after
/// every write, and after a final `flush()` (which must leave nothing held).
fn check_batches(name: &str, batches: &[RecordBatch], props: WriterProperties) {
    let props_bloom = props
        .bloom_filter_properties(&parquet::schema::types::ColumnPath::from("v"))
        .is_some()
        || batches[0].num_columns() > 1 && props.bloom_filter_properties(&"a".into()).is_some();
    let mut out = Vec::with_capacity(64 << 20);
    // Measurements are stored in a vector allocated up front and printed at
    // the end: printing in the loop would grow the captured-output buffer,
    // which counts as live heap.
    let mut seen: Vec<(f64, f64)> = Vec::with_capacity(batches.len() + 1);
    let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    // The file writer's own buffer and schema are not column memory (and, as
    // in `parquet`, not part of `memory_size`): measure from here.
    let before = held();
    for b in batches {
        w.write(b).unwrap();
        let live = (held() - before) as f64;
        seen.push((live, w.memory_size() as f64));
    }
    let (in_progress, flushed_before) = (w.in_progress_rows(), w.flushed_row_groups().len());
    w.flush().unwrap();
    // What the flushed row group left behind: its metadata (kept by the file
    // writer, as in `parquet`) is not column memory, so allow the slack.
    let live = (held() - before) as f64;
    seen.push((live, w.memory_size() as f64));
    let out_leaves = w
        .close()
        .unwrap()
        .file_metadata()
        .schema_descr()
        .num_columns();
    let bloom = props_bloom;
    for (i, &(live, reported)) in seen.iter().enumerate() {
        let at = if i < batches.len() {
            format!("batch {i}")
        } else {
            "flush".to_string()
        };
        if i == batches.len() {
            // The file writer keeps the row group's bloom filters until the
            // footer is written: not column memory.
            let leaves = out_leaves as f64;
            assert!(
                bloom || live <= FLUSHED_PER_COLUMN * leaves,
                "{name}: {live} bytes live after flush ({leaves} columns)"
            );
            continue;
        }
        let error = (reported - live).abs() / live.max(1.0);
        println!(
            "{name} {at}: live {live} reported {reported} ({:.1}%)",
            error * 100.0
        );
        assert!(
            within_claim(reported, live),
            "{name} after {at}: memory_size() {reported} vs live {live} ({:.1}% off)",
            error * 100.0
        );
    }
    assert!(
        in_progress > 0 || flushed_before > 0,
        "{name}: nothing written"
    );
    assert_eq!(
        seen[batches.len()].1,
        0.0,
        "{name}: memory_size() after flush"
    );
}

/// Live heap after a flush: the row group's metadata, column and offset
/// indexes, which the file writer keeps until the footer (not column
/// memory, as in `parquet`), about 2 KiB per column here.
const FLUSHED_PER_COLUMN: f64 = 4096.0;

#[test]
fn default_configuration() {
    let _serial = serial();
    for name in [
        "decimal128",
        "decimal256",
        "uuid",
        "fsb_nulls",
        "lowcard",
        "float16",
    ] {
        check(name, WriterProperties::default());
    }
}

#[test]
fn plain_v2_and_bloom() {
    let _serial = serial();
    for name in ["decimal128", "uuid", "fsb_nulls"] {
        check(
            name,
            WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .build(),
        );
        check(
            name,
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .build(),
        );
        check(
            name,
            WriterProperties::builder()
                .set_bloom_filter_enabled(true)
                .build(),
        );
    }
}

#[test]
fn setup_overhead() {
    let _serial = serial();
    let b = workload("fsb_nulls", 1);
    let before = held();
    let w = ArrowWriter::try_new(Vec::new(), b.schema(), None).unwrap();
    let after = held();
    println!("setup live {} reported {}", after - before, w.memory_size());
    assert_eq!(w.memory_size(), 0, "nothing buffered yet, as in parquet");
}

/// Several FLBA columns of different widths and null densities in one
/// writer: the per-column figures add up.
#[test]
fn multi_column() {
    let _serial = serial();
    let batches: Vec<RecordBatch> = (0..BATCHES as u64)
        .map(|s| {
            let cols = ["decimal128", "uuid", "fsb_nulls", "float16", "decimal256"]
                .iter()
                .zip(["a", "b", "c", "d", "e"])
                .map(|(w, n)| (n, workload(w, s).column(0).clone()));
            RecordBatch::try_from_iter(cols).unwrap()
        })
        .collect();
    check_batches("multi_column", &batches, WriterProperties::default());
    check_batches(
        "multi_column_v2_plain",
        &batches,
        WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_dictionary_enabled(false)
            .build(),
    );
}

/// FLBA leaves inside a struct and a list (levels are buffered too).
#[test]
fn nested() {
    let _serial = serial();
    let batches: Vec<RecordBatch> = (0..BATCHES as u64)
        .map(|s| {
            let dec = workload("decimal128", s).column(0).clone();
            let uuid = workload("fsb_nulls", s).column(0).clone();
            let fields = Fields::from(vec![
                Field::new("d", dec.data_type().clone(), false),
                Field::new("u", uuid.data_type().clone(), true),
            ]);
            let nulls = NullBuffer::from((0..ROWS).map(|i| i % 7 != 0).collect::<Vec<bool>>());
            let st: ArrayRef = Arc::new(StructArray::new(
                fields,
                vec![dec, uuid.clone()],
                Some(nulls),
            ));
            // Lists of 0..=3 UUIDs.
            let lens: Vec<usize> = (0..ROWS / 2).map(|i| i % 4).collect();
            let total: usize = lens.iter().sum();
            let item = Arc::new(Field::new("item", uuid.data_type().clone(), true));
            let list: ArrayRef = Arc::new(ListArray::new(
                item,
                OffsetBuffer::from_lengths(lens),
                uuid.slice(0, total),
                None,
            ));
            let list = list.slice(0, ROWS / 2);
            let st = st.slice(0, ROWS / 2);
            RecordBatch::try_from_iter([("s", st), ("l", list)]).unwrap()
        })
        .collect();
    check_batches("nested", &batches, WriterProperties::default());
}

/// Compressed pages: what is buffered is the compressed bytes. The codec's
/// own state is not column memory (`parquet` does not count it either), so
/// the writer is warmed up with one batch and flushed before measuring.
#[test]
#[cfg(all(feature = "snap", feature = "lz4", feature = "zstd"))]
fn compressed() {
    let _serial = serial();
    for (name, codec) in [
        ("snappy", Compression::SNAPPY),
        ("lz4_raw", Compression::LZ4_RAW),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
    ] {
        for workload_name in ["decimal128", "fsb_nulls", "lowcard"] {
            let batches: Vec<RecordBatch> = (0..BATCHES as u64)
                .map(|s| workload(workload_name, s))
                .collect();
            check_warm(
                &format!("{workload_name}_{name}"),
                &batches,
                WriterProperties::builder().set_compression(codec).build(),
            );
        }
    }
}

/// Heap a codec keeps between calls (hash tables, contexts): created and
/// used once on a page-sized input.
#[cfg(all(feature = "snap", feature = "lz4", feature = "zstd"))]
fn codec_state(codec: Compression) -> f64 {
    let input: Vec<u8> = {
        let mut r = rng(7);
        (0..1 << 20)
            .map(|i| if i % 3 == 0 { r() as u8 } else { 0 })
            .collect()
    };
    let mut output = Vec::with_capacity(2 << 20);
    let before = held();
    let state = match codec {
        Compression::SNAPPY => {
            let mut c = snap::raw::Encoder::new();
            output.resize(snap::raw::max_compress_len(input.len()), 0);
            c.compress(&input, &mut output).unwrap();
            held() - before
        }
        Compression::LZ4_RAW => {
            output.resize(lz4_flex::block::get_maximum_output_size(input.len()), 0);
            lz4_flex::block::compress_into(&input, &mut output).unwrap();
            held() - before
        }
        Compression::ZSTD(level) => {
            let mut c = zstd::bulk::Compressor::new(level.compression_level()).unwrap();
            c.compress_to_buffer(&input, &mut output).unwrap();
            held() - before
        }
        other => panic!("no codec state measured for {other}"),
    };
    state as f64
}

/// Like [`check_batches`] for a compressed file: `memory_size()` does not
/// count the codec's working state (as in `parquet`), one per column writer;
/// with it added, the figure is within the claim. A first batch is written
/// and flushed before the measurement starts.
#[cfg(all(feature = "snap", feature = "lz4", feature = "zstd"))]
fn check_warm(name: &str, batches: &[RecordBatch], props: WriterProperties) {
    let codec = codec_state(props.compression(&"v".into()));
    let mut out = Vec::with_capacity(64 << 20);
    let mut seen: Vec<(f64, f64)> = Vec::with_capacity(batches.len());
    let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    w.write(&batches[0]).unwrap();
    w.flush().unwrap();
    let before = held();
    for b in batches {
        w.write(b).unwrap();
        let live = (held() - before) as f64;
        seen.push((live, w.memory_size() as f64));
    }
    w.close().unwrap();
    for (i, &(live, reported)) in seen.iter().enumerate() {
        let reported = reported + codec;
        let error = (reported - live).abs() / live.max(1.0);
        println!(
            "{name} batch {i}: live {live} reported {reported} incl. codec state {codec} \
             ({:.1}%)",
            error * 100.0
        );
        assert!(
            within_claim(reported, live),
            "{name} after batch {i}: memory_size() {reported} vs live {live} ({:.1}% off)",
            error * 100.0
        );
    }
}

/// A memory pool with a limit, counting what it has granted and its peak.
#[derive(Debug, Default)]
struct Pool {
    used: AtomicUsize,
    peak: AtomicUsize,
    limit: AtomicUsize,
}

impl MemoryListener for Pool {
    fn try_grow(&self, bytes: usize) -> parquet::errors::Result<()> {
        let used = self.used.load(Ordering::SeqCst) + bytes;
        if used > self.limit.load(Ordering::SeqCst) {
            return Err(ParquetError::General(format!("pool limit: {used} bytes")));
        }
        self.used.store(used, Ordering::SeqCst);
        self.peak.fetch_max(used, Ordering::SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::SeqCst);
    }
}

/// `flush()` gives the row group's reservation back: with the pool's limit
/// unchanged, a write refused because the buffered row group holds the
/// memory succeeds once the row group is flushed, and the file is
/// parquet's.
#[test]
fn flush_releases_the_reservation_under_the_same_limit() {
    let _serial = serial();
    let b = workload("decimal128", 1);
    let block = 4096;
    let pool = Arc::new(Pool::default());
    pool.limit.store(usize::MAX, Ordering::SeqCst);
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, b.schema(), None)
        .unwrap()
        .with_memory_listener(pool.clone())
        .with_memory_reservation_block(block);
    w.write(&b).unwrap();
    // Exactly what one batch into an empty row group needed, at its peak.
    let limit = pool.peak.load(Ordering::SeqCst);
    pool.limit.store(limit, Ordering::SeqCst);
    let held = pool.used.load(Ordering::SeqCst);
    assert!(held > 0 && held <= limit);
    let err = w.write(&b).unwrap_err().to_string();
    assert!(err.contains("memory reservation refused"), "{err}");
    assert_eq!(
        w.in_progress_rows(),
        b.num_rows(),
        "refused batch not buffered"
    );

    w.flush().unwrap();
    assert_eq!(w.memory_size(), 0);
    assert_eq!(w.reserved_memory(), 0, "flush gives the reservation back");
    assert_eq!(pool.used.load(Ordering::SeqCst), 0);

    // Same limit: the batch now fits, twice over (flushing in between).
    w.write(&b).unwrap();
    assert!(pool.peak.load(Ordering::SeqCst) <= limit);
    w.flush().unwrap();
    w.write(&b).unwrap();
    w.close().unwrap();
    assert_eq!(pool.used.load(Ordering::SeqCst), 0);

    let mut expected = Vec::new();
    let mut up = parquet::arrow::ArrowWriter::try_new(&mut expected, b.schema(), None).unwrap();
    for _ in 0..3 {
        up.write(&b).unwrap();
        up.flush().unwrap();
    }
    up.close().unwrap();
    assert_eq!(out, expected, "the file is parquet's");
}

/// A writer whose memory is accounted (a listener, or the block cache
/// turned off) holds what `memory_size()` says in the live heap as it is,
/// with no block cache to subtract, even after another writer has filled
/// the cache; its blocks are freed, not cached, when its row group is
/// written, and its file is parquet's. (Before accounted writers kept out
/// of the cache, they took its blocks: their `memory_size()` grew while the
/// heap did not.)
#[test]
fn accounted_writers_hold_what_they_report_with_the_cache_full() {
    let _serial = serial();
    let batches: Vec<RecordBatch> = (0..BATCHES as u64)
        .map(|s| workload("decimal128", s))
        .collect();
    let schema = batches[0].schema();
    let mut expected = Vec::new();
    let mut up = parquet::arrow::ArrowWriter::try_new(&mut expected, schema.clone(), None).unwrap();
    for b in &batches {
        up.write(b).unwrap();
    }
    up.close().unwrap();
    for listener in [true, false] {
        // A plain writer leaves its blocks in the cache.
        let mut out = Vec::with_capacity(expected.len() * 2);
        let mut w = ArrowWriter::try_new(&mut out, schema.clone(), None).unwrap();
        for b in &batches {
            w.write(b).unwrap();
        }
        w.close().unwrap();
        let cached = parquet_flba::block_cache_bytes();
        assert!(cached >= ROWS * 16, "{cached} bytes cached");

        let pool = Arc::new(Pool::default());
        pool.limit.store(usize::MAX, Ordering::SeqCst);
        let options = parquet_flba::ArrowWriterOptions::new().with_block_cache(listener);
        let mut out = Vec::with_capacity(expected.len() * 2);
        let mut seen = Vec::with_capacity(BATCHES);
        let mut w = ArrowWriter::try_new_with_options(&mut out, schema.clone(), options).unwrap();
        if listener {
            w = w.with_memory_listener(pool.clone());
        }
        let before = LIVE.load(Ordering::SeqCst);
        for b in &batches {
            w.write(b).unwrap();
            let live = (LIVE.load(Ordering::SeqCst) - before) as f64;
            seen.push((live, w.memory_size() as f64));
        }
        w.close().unwrap();
        assert_eq!(parquet_flba::block_cache_bytes(), cached, "cache changed");
        for (i, (live, reported)) in seen.into_iter().enumerate() {
            assert!(
                within_claim(reported, live),
                "listener {listener}, batch {i}: memory_size() {reported} vs live {live}"
            );
        }
        if listener {
            assert_eq!(pool.used.load(Ordering::SeqCst), 0);
            assert!(pool.peak.load(Ordering::SeqCst) >= ROWS * BATCHES * 16);
        }
        assert!(out == expected, "listener {listener}: file differs");
    }
}

/// Bytes allocated (allocations plus reallocation growth) while `write`
/// runs.
fn allocated_by(write: impl FnOnce()) -> usize {
    let before = ALLOCATED.load(Ordering::SeqCst);
    write();
    ALLOCATED.load(Ordering::SeqCst) - before
}

/// One file of 1,048,576 non-null values, default configuration, written
/// whole and in 8 and 128 batches: the bytes this crate allocates from
/// `try_new` to `close` (into a pre-sized output, so the output buffer is not
/// counted) stay within 1.25× the value bytes, the leaf is on the fast path
/// and the file is `parquet`'s (whose allocations are printed beside).
#[test]
fn bytes_allocated_per_file() {
    let _serial = serial();
    const N: usize = 1 << 20;
    let mut r = rng(7);
    let d128 = Decimal128Array::from_iter_values(
        (0..N).map(|_| ((r() as i128) << 64 | r() as i128) % 10i128.pow(38)),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let uuids = FixedSizeBinaryArray::try_from_iter((0..N).map(|_| {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&r().to_le_bytes());
        b[8..].copy_from_slice(&r().to_le_bytes());
        b
    }))
    .unwrap();
    let cases: [(&str, ArrayRef); 2] = [("d128", Arc::new(d128)), ("uuid", Arc::new(uuids))];
    for (name, array) in cases {
        let value_bytes = N * 16;
        let batch = RecordBatch::try_from_iter([(name, array)]).unwrap();
        for batches in [1usize, 8, 128] {
            let parts: Vec<RecordBatch> = (0..batches)
                .map(|k| batch.slice(k * N / batches, N / batches))
                .collect();
            // One file with either writer (same API): its bytes and the bytes
            // allocated to write it; `$check` sees the open writer.
            macro_rules! measure {
                ($writer:ty, $check:expr) => {{
                    let mut out = Vec::with_capacity(value_bytes * 2);
                    let allocated = allocated_by(|| {
                        let mut w = <$writer>::try_new(&mut out, batch.schema(), None).unwrap();
                        $check(&w);
                        for b in &parts {
                            w.write(b).unwrap();
                        }
                        w.close().unwrap();
                    });
                    (out, allocated)
                }};
            }
            let (ours_file, ours) = measure!(ArrowWriter<&mut Vec<u8>>, |w: &ArrowWriter<_>| {
                for leaf in w.column_plan().leaves() {
                    assert_eq!(leaf.path(), parquet_flba::LeafPath::Fast, "{name}");
                }
            });
            let (theirs_file, theirs) = measure!(parquet::arrow::ArrowWriter<&mut Vec<u8>>, |_| ());
            assert!(
                ours_file == theirs_file,
                "{name}, {batches} batch(es): files differ"
            );
            if batches == 1 {
                let back: Vec<RecordBatch> =
                    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                        bytes::Bytes::from(ours_file),
                    )
                    .unwrap()
                    .with_batch_size(N)
                    .build()
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                assert_eq!(back, std::slice::from_ref(&batch), "{name}: read back");
            }
            let ratio = ours as f64 / value_bytes as f64;
            println!(
                "{name}, {batches} batch(es): parquet-flba {:.2} MiB ({ratio:.2}× the values), parquet {:.2} MiB",
                ours as f64 / 1048576.0,
                theirs as f64 / 1048576.0
            );
            assert!(
                ratio <= 1.25,
                "{name}, {batches} batch(es): {ours} bytes allocated for {value_bytes} bytes of values ({ratio:.2}×)"
            );
        }
    }
}

/// What a writer on several threads holds besides its columns (its lanes,
/// their queues, the main codec of each compressed column, which the
/// helpers' codecs stand in for): a few KiB per column, not counted.
const THREADS_SLACK: f64 = 16384.0;

/// Runs `f` with no pool worker (a cap of 0): a writer on several threads
/// then does all its work on this thread, when it waits for it (its
/// `memory_size()` does), so the counting allocator sees all of it; pages
/// handed out to compress are compressed only when their column needs
/// them back. The cap is put back afterwards.
fn without_workers<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            parquet_flba::set_worker_threads(self.0);
        }
    }
    let _restore = Restore(parquet_flba::worker_threads());
    parquet_flba::set_worker_threads(0);
    let start = std::time::Instant::now();
    while parquet_flba::worker_threads_started() > 0 {
        assert!(start.elapsed().as_secs() < 10, "workers did not end");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    f()
}

/// Writes `batches` on two threads (no worker) and compares
/// `memory_size()` with the live heap after every write; `check` sees the
/// writer after the last one.
fn check_two_threads(
    name: &str,
    batches: &[RecordBatch],
    props: WriterProperties,
    check: impl FnOnce(&ArrowWriter<&mut Vec<u8>>),
) {
    without_workers(|| {
        let mut out = Vec::with_capacity(64 << 20);
        let mut seen: Vec<(f64, f64)> = Vec::with_capacity(batches.len());
        let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props))
            .unwrap()
            .with_threads(2)
            .with_min_parallel_work(std::time::Duration::ZERO);
        let before = held();
        for b in batches {
            w.write(b).unwrap();
            // Waits for (here: does) the lanes' work.
            let reported = w.memory_size() as f64;
            seen.push(((held() - before) as f64, reported));
        }
        check(&w);
        w.close().unwrap();
        for (i, &(live, reported)) in seen.iter().enumerate() {
            let error = (reported - live).abs() / live.max(1.0);
            println!(
                "{name} batch {i}: live {live} reported {reported} ({:.1}%)",
                error * 100.0
            );
            assert!(
                (reported - live).abs() <= (TOLERANCE * live).max(THREADS_SLACK),
                "{name} after batch {i}: memory_size() {reported} vs live {live} ({:.1}% off)",
                error * 100.0
            );
        }
    });
}

/// Pages out on the pool being compressed (with two threads, up to three
/// per column, left out between writes) hold their levels, a copy of the
/// page, an output buffer and a codec each: all counted (only the page's
/// size was). With codecs that keep no state between pages (a snappy
/// codec's table comes with its first page, which a page left out has not
/// been compressed yet without workers; zstd's context is not on the
/// counted heap).
#[test]
fn pages_out_on_helper_threads_are_counted() {
    let _serial = serial();
    let codecs = [
        ("lz4_raw", Compression::LZ4_RAW),
        ("gzip", Compression::GZIP(Default::default())),
    ];
    for (codec_name, codec) in codecs {
        for workload_name in ["decimal128", "fsb_nulls"] {
            let batches: Vec<RecordBatch> = (0..BATCHES as u64)
                .map(|s| workload(workload_name, s))
                .collect();
            let props = WriterProperties::builder()
                .set_compression(codec)
                .set_dictionary_enabled(false)
                .set_data_page_size_limit(64 << 10)
                .build();
            check_two_threads(
                &format!("{workload_name}_{codec_name} on 2 threads"),
                &batches,
                props,
                |w| {
                    let work = w.thread_work();
                    assert!(work.pages_sent > 4, "{work:?}");
                    assert_eq!(work.pages_on_workers, 0, "{work:?}");
                },
            );
        }
    }
}

/// A full row group closed on the lanes waits to be spliced while the next
/// one is written: its chunks are counted with their bloom filters (they
/// were left out), and, with content-defined chunking (where the next row
/// group's columns go on on the same lanes), the open column writers once
/// (they were counted twice).
#[test]
fn a_row_group_waiting_to_be_spliced_is_counted_once() {
    let _serial = serial();
    let batches: Vec<RecordBatch> = (0..BATCHES as u64)
        .map(|s| workload("decimal128", s))
        .collect();
    let rows = Some(ROWS + ROWS / 4);
    let configs = [
        (
            "cdc",
            WriterProperties::builder().set_content_defined_chunking(Some(
                parquet::file::properties::CdcOptions::default(),
            )),
        ),
        (
            "bloom filter",
            // Each row group's filters written after it (at the end of the
            // file, the file writer would keep them: not column memory).
            WriterProperties::builder()
                .set_bloom_filter_enabled(true)
                .set_bloom_filter_position(
                    parquet::file::properties::BloomFilterPosition::AfterRowGroup,
                ),
        ),
    ];
    for (name, props) in configs {
        let props = props.set_max_row_group_row_count(rows).build();
        check_two_threads(name, &batches, props, |w| {
            assert!(!w.flushed_row_groups().is_empty() || w.bytes_written() > 0);
        });
    }
}

/// With a listener, on two threads (no worker: the lanes' work runs only
/// when the writer waits for it), the reservation covers what the writer
/// makes the process hold after every write, measured, before that work is
/// done: its columns' buffers, and the batches whose work is queued (the
/// caller drops its own reference to each batch once written). It used to
/// cover the last batch only, while every batch written since the lanes
/// last caught up stayed alive; a write now also waits (helping) while
/// the lanes hold more than its own work.
#[test]
fn the_reservation_covers_the_batches_queued_for_the_lanes() {
    let _serial = serial();
    without_workers(|| {
        let pool = Arc::new(Pool::default());
        pool.limit.store(usize::MAX, Ordering::SeqCst);
        let schema = workload("decimal128", 0).schema();
        let mut out = Vec::with_capacity(64 << 20);
        let mut w = ArrowWriter::try_new(&mut out, schema, None)
            .unwrap()
            .with_threads(2)
            .with_min_parallel_work(std::time::Duration::ZERO)
            .with_memory_listener(pool.clone())
            .with_memory_reservation_block(4096);
        let mut seen: Vec<(f64, f64)> = Vec::with_capacity(BATCHES * 2);
        let before = held();
        for s in 0..BATCHES as u64 * 2 {
            let b = workload("decimal128", s);
            w.write(&b).unwrap();
            drop(b);
            seen.push(((held() - before) as f64, w.reserved_memory() as f64));
        }
        assert!(w.thread_work().writes_on_threads > 0);
        w.close().unwrap();
        assert_eq!(pool.used.load(Ordering::SeqCst), 0);
        for (i, &(live, reserved)) in seen.iter().enumerate() {
            println!("write {i}: live {live} reserved {reserved}");
            assert!(
                reserved + THREADS_SLACK >= live,
                "after write {i}: {reserved} bytes reserved, {live} held"
            );
        }
    });
}
