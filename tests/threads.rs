//! `ArrowWriter::with_threads`: column chunks encoded on several threads,
//! the file byte-identical to `parquet::arrow::ArrowWriter`'s and to the
//! single-threaded one's, for a wide mixed table (decimals of several
//! widths, UUIDs, Float16, strings, integers, nulls, nested leaves) in the
//! standard configurations, with page stores and content-defined chunking;
//! errors and panics on worker threads; memory reservations.

include!("../src/versions.rs");

mod common;

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::{ArrayRef, Decimal128Array, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use bytes::Bytes;
use common::*;
#[cfg(not(feature = "parquet-58"))]
use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::basic::Compression;
use parquet::errors::Result as PqResult;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder, WriterVersion};
use parquet::schema::types::ColumnPath;
#[cfg(not(feature = "parquet-58"))]
use parquet_flba::SpillPageStoreFactory;
use parquet_flba::{ArrowWriter, MemoryListener};

/// Thread counts: the caller alone, two, four, and more than the table's
/// 13 leaves. On four threads writes too small to hand out stay on the
/// caller (the default `with_min_parallel_work`: in these small tables,
/// some writes of a file go to the threads and some do not); on two and
/// twenty, every write is handed out.
const THREADS: [usize; 4] = [1, 2, 4, 20];

/// `with_min_parallel_work` on `threads` threads (see [`THREADS`]);
/// `None`: the default.
fn min_parallel_work(threads: usize) -> Option<Duration> {
    (threads != 4).then_some(Duration::ZERO)
}

/// The wide mixed table: fast leaves of every width class, `parquet`
/// leaves, required and nullable, and leaves inside a struct and lists.
fn wide_schema() -> SchemaRef {
    let list_of = |dt: DataType| DataType::List(Arc::new(Field::new("item", dt, true)));
    Arc::new(Schema::new(vec![
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("amount", DataType::Decimal128(20, 4), true),
        Field::new("big", DataType::Decimal256(76, 10), true),
        Field::new("mid", DataType::Decimal256(45, 3), true),
        Field::new("id", DataType::FixedSizeBinary(16), true),
        Field::new("half", DataType::Float16, true),
        Field::new("symbol", DataType::Utf8, true),
        Field::new("ts", DataType::Int64, false),
        Field::new("qty", DataType::Int32, true),
        Field::new("small", DataType::Decimal128(9, 2), true),
        Field::new(
            "order",
            DataType::Struct(Fields::from(vec![
                Field::new("legs", list_of(DataType::Decimal128(25, 3)), true),
                Field::new("venue", DataType::Int32, true),
            ])),
            true,
        ),
        Field::new("tags", list_of(DataType::FixedSizeBinary(16)), true),
    ]))
}

/// A few batches of uneven sizes (one of a single row).
fn wide_batches(name: &str) -> Vec<RecordBatch> {
    let schema = wide_schema();
    let mut g = Gen::new(name);
    [700, 1, 333, 1200]
        .into_iter()
        .map(|rows| g.batch(&schema, rows, &Spec::new(Nulls::Density(0.15))))
        .collect()
}

/// The configurations: the standard ones, dictionary off, small pages and
/// row groups, a byte limit on row groups.
fn configurations() -> Vec<(&'static str, WriterPropertiesBuilder)> {
    let mut all = configs();
    all.push((
        "dictionary_off",
        WriterProperties::builder().set_dictionary_enabled(false),
    ));
    all.push((
        "small_pages_row_groups",
        small_pages(WriterProperties::builder()).set_max_row_group_row_count(Some(500)),
    ));
    all.push((
        "small_zstd_v2",
        small_pages(WriterProperties::builder())
            .set_compression(Compression::ZSTD(Default::default()))
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_bloom_filter_enabled(true)
            .set_max_row_group_row_count(Some(900)),
    ));
    all.push((
        "row_group_bytes",
        WriterProperties::builder()
            .set_max_row_group_row_count(None)
            .set_max_row_group_bytes(Some(40_000)),
    ));
    all.push((
        "cdc_small_pages",
        small_pages(config("cdc_small")).set_max_row_group_row_count(Some(800)),
    ));
    all
}

/// What one write of a file with this crate gives.
struct Written {
    bytes: Vec<u8>,
    /// After each write: in-progress size, rows, bytes written, memory
    /// size, row groups flushed.
    steps: Vec<(usize, usize, usize, usize, usize)>,
}

/// Writes `batches` with this crate on `threads` threads (see [`THREADS`]).
fn write_ours(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    opts: &Opts,
    threads: usize,
) -> Result<Written, String> {
    let mut bytes = Vec::new();
    let mut w = flba::writer(&mut bytes, schema, opts)
        .map_err(|e| format!("try_new: {e}"))?
        .with_threads(threads);
    if let Some(work) = min_parallel_work(threads) {
        w = w.with_min_parallel_work(work);
    }
    // The threads must carry the fast path: every FLBA leaf takes it here
    // (under parquet 59, leaves under a dictionary type are parquet's by
    // design; these tables have none).
    for leaf in w.column_plan().leaves() {
        let flba = leaf.physical_type() == parquet::basic::Type::FIXED_LEN_BYTE_ARRAY;
        let wrapped = leaf.reason() == Some(parquet_flba::DelegateReason::WrappedUnderParquet59);
        if flba && !wrapped {
            assert_eq!(
                leaf.path(),
                parquet_flba::LeafPath::Fast,
                "{} should take the fast path",
                leaf.column_path()
            );
        }
    }
    let mut steps = Vec::new();
    for (i, b) in batches.iter().enumerate() {
        w.write(b).map_err(|e| format!("write {i}: {e}"))?;
        steps.push((
            w.in_progress_size(),
            w.in_progress_rows(),
            w.bytes_written(),
            w.memory_size(),
            w.flushed_row_groups().len(),
        ));
    }
    let md = w.finish().map_err(|e| format!("close: {e}"))?;
    // What ran on the threads is what the plan says.
    w.ran_as_planned(md.num_row_groups())?;
    drop(w);
    Ok(Written { bytes, steps })
}

/// Writes with `parquet` and with this crate on every thread count: every
/// file equals `parquet`'s, the writer's state after each write is the
/// single-threaded writer's, and the file reads back.
fn check_threads(
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    opts: &Opts,
) -> Result<(), String> {
    // Compressed pages go to the pool's threads with buffers of their own,
    // so `memory_size()` is not the one-thread value there.
    let compressed = opts.props.compression(&ColumnPath::new(Vec::new()));
    check_threads_with(
        name,
        schema,
        batches,
        opts,
        compressed == Compression::UNCOMPRESSED,
    )
}

/// [`check_threads`]; `exact_memory`: `memory_size()` after each write too
/// (not with a spilling store, whose budget is shared by the columns, so
/// which pages spill depends on the order the threads store them in, nor
/// with compression, whose pages are compressed in buffers of their own).
fn check_threads_with(
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    opts: &Opts,
    exact_memory: bool,
) -> Result<(), String> {
    let up = up::write(schema, batches, opts).map_err(|e| format!("{name}: upstream: {e}"))?;
    let one =
        write_ours(schema, batches, opts, 1).map_err(|e| format!("{name}: threads=1: {e}"))?;
    if let Some(diff) = compare_files(&up.bytes, &one.bytes) {
        return Err(format!("{name}: threads=1 differs from parquet: {diff}"));
    }
    for threads in THREADS.into_iter().skip(1) {
        let many = write_ours(schema, batches, opts, threads)
            .map_err(|e| format!("{name}: threads={threads}: {e}"))?;
        if let Some(diff) = compare_files(&up.bytes, &many.bytes) {
            return Err(format!(
                "{name}: threads={threads} differs from parquet: {diff}"
            ));
        }
        // After each write: the same in-progress size, rows and bytes
        // written. A row group that a write filled is spliced into the
        // output by a later call on several threads (while the next one is
        // encoded): `flushed_row_groups()` may lag one thread's by that
        // row group, whose chunks `memory_size()` then counts; with none
        // waiting, the memory held is one thread's too (but for the
        // exceptions of `exact_memory`).
        for (step, (m, o)) in many.steps.iter().zip(&one.steps).enumerate() {
            let lag = o.4.checked_sub(m.4);
            let memory_differs = exact_memory && lag == Some(0) && m.3 != o.3;
            if (m.0, m.1, m.2) != (o.0, o.1, o.2) || lag.is_none_or(|l| l > 1) || memory_differs {
                return Err(format!(
                    "{name}: threads={threads}: writer state after write {step} {m:?}, with one thread {o:?}"
                ));
            }
        }
    }
    if release::round_trips(schema) {
        check_round_trip_with(
            schema,
            batches,
            &one.bytes,
            opts.skip_arrow_metadata,
            opts.props.coerce_types(),
        )
        .map_err(|e| format!("{name}: round trip: {e}"))?;
    }
    Ok(())
}

#[test]
fn wide_table_is_identical_on_any_number_of_threads() {
    let schema = wide_schema();
    let mut failures = Failures::new();
    for (name, props) in configurations() {
        let batches = wide_batches(name);
        let opts = Opts::props(props.build());
        failures.check(check_threads(name, &schema, &batches, &opts));
    }
    failures.finish();
}

/// Only fast leaves (every leaf chunked by this crate under CDC, no inner
/// `parquet` writer), and only `parquet` leaves (threads run `parquet`'s
/// column writers; with CDC the whole file is `parquet`'s and threads do
/// not apply).
#[test]
fn all_fast_and_all_parquet_tables() {
    let fast = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Decimal128(38, 10), true),
        Field::new("b", DataType::FixedSizeBinary(16), false),
        Field::new("c", DataType::Float16, true),
        Field::new("d", DataType::Decimal256(50, 0), true),
    ]));
    let theirs = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, false),
        Field::new("c", DataType::Int32, true),
    ]));
    let mut failures = Failures::new();
    for (label, schema) in [("fast", fast), ("parquet", theirs)] {
        let mut g = Gen::new(label);
        let batches: Vec<_> = [900, 50, 1500]
            .into_iter()
            .map(|n| g.batch(&schema, n, &Spec::new(Nulls::Density(0.3))))
            .collect();
        for name in ["default", "cdc_small", "zstd_parquet_2"] {
            let opts = Opts::props(small_pages(config(name)).build());
            failures.check(check_threads(
                &format!("{label}/{name}"),
                &schema,
                &batches,
                &opts,
            ));
        }
    }
    failures.finish();
}

/// A user's page store (every store created once, in file order, whatever
/// the thread count) and the spilling store, on a mixed table with and
/// without content-defined chunking.
#[cfg(not(feature = "parquet-58"))]
#[test]
fn page_stores_work_on_worker_threads() {
    let schema = wide_schema();
    let mut failures = Failures::new();
    for name in ["default", "cdc_small", "zstd"] {
        let batches = wide_batches(name);
        let props = small_pages(config(name))
            .set_max_row_group_row_count(Some(1000))
            .build();
        let recording = Arc::new(RecordingPageStoreFactory::default());
        let opts = Opts {
            props: props.clone(),
            page_store: PageStoreChoice::Custom(recording.clone()),
            ..Default::default()
        };
        failures.check(check_threads(
            &format!("recording/{name}"),
            &schema,
            &batches,
            &opts,
        ));
        // Five writes per thread count (parquet's, then 1, 2, 4, 20): each
        // created the same stores in the same order.
        let created = recording.created();
        let per_file = created.len() / 5;
        failures.check(
            if per_file > 0 && created.chunks(per_file).all(|c| c == &created[..per_file]) {
                Ok(())
            } else {
                Err(format!("{name}: stores created {created:?}"))
            },
        );

        let spill = Arc::new(SpillPageStoreFactory::new(4096));
        let opts = Opts {
            props,
            page_store: PageStoreChoice::Custom(spill.clone()),
            ..Default::default()
        };
        let label = format!("spill/{name}");
        failures.check(check_threads_with(&label, &schema, &batches, &opts, false));
        failures.check(
            if (
                spill.spill_files(),
                spill.spilled_bytes(),
                spill.resident_bytes(),
            ) == (0, 0, 0)
            {
                Ok(())
            } else {
                Err(format!("{name}: the spill store still holds something"))
            },
        );
    }
    failures.finish();
}

/// `Decimal128(20, 4)` values that do not fit its 9 bytes.
fn too_wide(rows: usize, bad_row: usize) -> ArrayRef {
    let values = (0..rows).map(|i| {
        if i == bad_row {
            Some(10_i128.pow(30))
        } else {
            Some(i as i128)
        }
    });
    Arc::new(
        values
            .collect::<Decimal128Array>()
            .with_precision_and_scale(20, 4)
            .unwrap(),
    )
}

/// An error found on a worker thread (a decimal too wide for its column,
/// found while the workers check the batch) is the error one thread
/// returns, names the column and row, and leaves the writer usable: the
/// file equals `parquet`'s for the good batches alone.
#[test]
fn worker_errors_surface_and_the_writer_stays_usable() {
    let schema = wide_schema();
    let good = wide_batches("worker_errors");
    let amount = schema.index_of("amount").unwrap();
    let mut bad_columns = good[2].columns().to_vec();
    bad_columns[amount] = too_wide(good[2].num_rows(), 17);
    let bad = RecordBatch::try_new(schema.clone(), bad_columns).unwrap();
    // Two bad columns: the error is the first column's, as with one thread.
    let small = schema.index_of("small").unwrap();
    let mut two_bad = bad.columns().to_vec();
    two_bad[small] = Arc::new(
        std::iter::repeat_n(Some(10_i128.pow(12)), bad.num_rows())
            .collect::<Decimal128Array>()
            .with_precision_and_scale(9, 2)
            .unwrap(),
    );
    let two_bad = RecordBatch::try_new(schema.clone(), two_bad).unwrap();

    for name in ["default", "cdc_small"] {
        let opts = Opts::props(small_pages(config(name)).build());
        let up = up::write(&schema, &good, &opts).unwrap();
        let mut errors = Vec::new();
        for threads in THREADS {
            let mut bytes = Vec::new();
            let mut w = flba::writer(&mut bytes, &schema, &opts)
                .unwrap()
                .with_threads(threads)
                .with_min_parallel_work(Duration::ZERO);
            w.write(&good[0]).unwrap();
            w.write(&good[1]).unwrap();
            let rows = w.in_progress_rows();
            let e = w.write(&bad).unwrap_err().to_string();
            assert!(
                e.contains("amount") && contains_number(&e, 17),
                "{name}/{threads}: {e}"
            );
            let e2 = w.write(&two_bad).unwrap_err().to_string();
            errors.push((e, e2));
            assert_eq!(w.in_progress_rows(), rows, "{name}/{threads}");
            w.write(&good[2]).unwrap();
            w.write(&good[3]).unwrap();
            w.close().unwrap();
            assert!(
                compare_files(&up.bytes, &bytes).is_none(),
                "{name}/{threads}"
            );
        }
        assert!(errors.iter().all(|e| e == &errors[0]), "{name}: {errors:?}");
    }
}

/// A page store that panics on its `trigger`-th page of column `column`,
/// or fails instead of panicking.
#[cfg(not(feature = "parquet-58"))]
#[derive(Debug)]
struct FaultyStores {
    column: usize,
    trigger: usize,
    panic: bool,
}

/// A [`VecPageStore`] that fails (or panics) at its `fail_at`-th page.
#[cfg(not(feature = "parquet-58"))]
struct FaultyStore {
    inner: VecPageStore,
    stored: usize,
    fail_at: Option<usize>,
    panic: bool,
}

#[cfg(not(feature = "parquet-58"))]
impl PageStore for FaultyStore {
    fn put(&mut self, value: Bytes) -> PqResult<PageKey> {
        if Some(self.stored) == self.fail_at {
            if self.panic {
                panic!("the store broke");
            }
            return Err(parquet::errors::ParquetError::General(
                "the store is full".into(),
            ));
        }
        self.stored += 1;
        self.inner.put(value)
    }

    fn take(&mut self, key: PageKey) -> PqResult<Bytes> {
        self.inner.take(key)
    }
}

#[cfg(not(feature = "parquet-58"))]
impl PageStoreFactory for FaultyStores {
    fn create(&self, args: &PageStoreArgs<'_>) -> PqResult<Box<dyn PageStore>> {
        Ok(Box::new(FaultyStore {
            inner: VecPageStore::default(),
            stored: 0,
            fail_at: (args.column_index() == self.column).then_some(self.trigger),
            panic: self.panic,
        }))
    }
}

/// A panic while a column is encoded (in a page store) is returned as an
/// error naming the column, not a panic, on any number of threads (one
/// included); the writer then refuses to go on, as it does when a store
/// fails; a store's error is the same error on any number of threads.
/// Also with row groups of 500 rows, where the first batch's first 500
/// rows fill a row group (closed on the columns' lanes while the rest of
/// the batch is encoded).
#[cfg(not(feature = "parquet-58"))]
#[test]
fn worker_panics_become_errors() {
    for max_rows in [None, Some(500)] {
        worker_panics_become_errors_with(max_rows);
    }
}

#[cfg(not(feature = "parquet-58"))]
fn worker_panics_become_errors_with(max_rows: Option<usize>) {
    let schema = wide_schema();
    let batches = wide_batches("worker_panics");
    let mut props = small_pages(WriterProperties::builder());
    if max_rows.is_some() {
        props = props.set_max_row_group_row_count(max_rows);
    }
    let props = props.build();
    let big = schema.index_of("big").unwrap();
    let mut store_errors = Vec::new();
    for threads in THREADS {
        for panic in [true, false] {
            let opts = Opts {
                props: props.clone(),
                page_store: PageStoreChoice::Custom(Arc::new(FaultyStores {
                    column: big,
                    trigger: 3,
                    panic,
                })),
                ..Default::default()
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut w = flba::writer(Vec::new(), &schema, &opts)
                    .unwrap()
                    .with_threads(threads)
                    .with_min_parallel_work(Duration::ZERO);
                // On several threads, a column's failure is reported by the
                // writer's next call: a later write, or the flush.
                let e = batches
                    .iter()
                    .find_map(|b| w.write(b).err())
                    .or_else(|| w.flush().err())
                    .expect("the store never failed");
                let after = w.write(&batches[0]).unwrap_err().to_string();
                (e.to_string(), after)
            }));
            let Ok((e, after)) = outcome else {
                panic!("threads={threads} {max_rows:?}: a column's panic reached the caller")
            };
            assert!(after.contains("cannot continue"), "{after}");
            if panic {
                // The same on any number of threads, one included.
                assert!(
                    e.contains("'big'") && e.contains("panicked") && e.contains("the store broke"),
                    "threads={threads}: {e}"
                );
            } else {
                store_errors.push(e);
            }
        }
    }
    assert!(
        store_errors
            .iter()
            .all(|e| e == &store_errors[0] && e.contains("the store is full")),
        "{max_rows:?}: {store_errors:?}"
    );
}

/// A memory pool that records the most it lent.
#[derive(Debug, Default)]
struct Pool {
    used: AtomicUsize,
    peak: Mutex<usize>,
}

impl MemoryListener for Pool {
    fn try_grow(&self, bytes: usize) -> PqResult<()> {
        let used = self.used.fetch_add(bytes, SeqCst) + bytes;
        let mut peak = self.peak.lock().unwrap();
        *peak = (*peak).max(used);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.used.fetch_sub(bytes, SeqCst);
    }
}

/// With a memory listener, the reservation covers what the writer holds
/// after every write (on several threads once their queued work is done:
/// the columns reserve what they hold beyond the writer's reservation
/// themselves), the writer holds what one thread holds (the same
/// `memory_size()` after every write), and everything is given back at
/// close. Compressed, the pages compressed on the
/// pool's threads hold buffers of their own: the reservation still covers
/// `memory_size()` and returns to zero.
#[test]
fn memory_reservation_returns_to_zero() {
    let schema = wide_schema();
    let batches = wide_batches("memory");
    for compression in [
        Compression::UNCOMPRESSED,
        Compression::ZSTD(Default::default()),
    ] {
        let opts = Opts::props(
            small_pages(WriterProperties::builder())
                .set_compression(compression)
                .set_max_row_group_row_count(Some(1000))
                .build(),
        );
        let mut reserved = Vec::new();
        for threads in THREADS {
            let pool = Arc::new(Pool::default());
            let mut bytes = Vec::new();
            let mut w = flba::writer(&mut bytes, &schema, &opts)
                .unwrap()
                .with_memory_listener(pool.clone())
                .with_memory_reservation_block(16 << 10)
                .with_threads(threads)
                .with_min_parallel_work(Duration::ZERO);
            let mut steps = Vec::new();
            for b in &batches {
                w.write(b).unwrap();
                // Waits for the columns' queued work (on several threads).
                let held = w.memory_size();
                assert_eq!(w.reserved_memory(), pool.used.load(SeqCst));
                assert!(
                    w.reserved_memory() >= held,
                    "threads={threads}: {} reserved, {held} held",
                    w.reserved_memory()
                );
                steps.push(held);
            }
            w.close().unwrap();
            assert_eq!(pool.used.load(SeqCst), 0, "threads={threads}");
            assert!(*pool.peak.lock().unwrap() > 0);
            reserved.push(steps);
        }
        // The writer holds what one thread holds after every write.
        if compression == Compression::UNCOMPRESSED {
            assert!(reserved.iter().all(|r| r == &reserved[0]), "{reserved:?}");
        }
    }
}

/// The number of pages sent to the pool's threads to compress, and how
/// many of them a worker (not the waiting column's thread) compressed.
fn pages_compressed_on_threads<W: std::io::Write + Send>(w: &ArrowWriter<W>) -> (usize, usize) {
    let work = w.thread_work();
    (work.pages_sent, work.pages_on_workers)
}

/// One wide compressed column on several threads: its pages are compressed
/// on the pool's threads, out of order with its encoding, and the file is
/// parquet's, for every codec and both page versions, with a dictionary
/// that falls back half-way, with pages kept in a spilling store, and in
/// content-defined chunks; with one thread, or no compression, no page is
/// sent.
#[test]
fn one_compressed_column_uses_the_threads() {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "d",
        DataType::Decimal128(38, 10),
        true,
    )]));
    let mut g = Gen::new("one_column");
    // The first batch repeats a few values (a dictionary), the later ones
    // are random: the dictionary falls back in the second.
    let low = Spec {
        distinct: Some(20),
        ..Spec::new(Nulls::Density(0.1))
    };
    let batches = vec![
        g.batch(&schema, 3000, &low),
        g.batch(&schema, 20_000, &Spec::new(Nulls::Density(0.1))),
        g.batch(&schema, 1, &Spec::new(Nulls::Absent)),
        g.batch(&schema, 7000, &Spec::new(Nulls::Density(0.5))),
    ];
    let codecs = [
        Compression::ZSTD(Default::default()),
        Compression::SNAPPY,
        Compression::LZ4_RAW,
        Compression::GZIP(Default::default()),
        Compression::UNCOMPRESSED,
    ];
    let mut failures = Failures::new();
    for codec in codecs {
        for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
            for cdc in [false, true] {
                let mut props = WriterProperties::builder()
                    .set_compression(codec)
                    .set_writer_version(version)
                    .set_data_page_size_limit(8 << 10)
                    .set_dictionary_page_size_limit(64 << 10)
                    .set_max_row_group_row_count(Some(12_000));
                if cdc {
                    props = props.set_content_defined_chunking(Some(small_cdc()));
                }
                let name = format!("{codec:?}/{version:?}/cdc={cdc}");
                let opts = Opts::props(props.build());
                failures.check(check_threads(&name, &schema, &batches, &opts));
                for threads in [1, 2, 3] {
                    let mut w = flba::writer(Vec::new(), &schema, &opts)
                        .unwrap()
                        .with_threads(threads)
                        .with_min_parallel_work(Duration::ZERO);
                    for b in &batches {
                        w.write(b).unwrap();
                    }
                    let (sent, _) = pages_compressed_on_threads(&w);
                    w.close().unwrap();
                    let expect_sent = threads > 1 && codec != Compression::UNCOMPRESSED;
                    if expect_sent != (sent > 0) {
                        failures.check(Err(format!(
                            "{name}: threads={threads}: {sent} pages sent to the threads"
                        )));
                    }
                }
            }
        }
    }
    // With a spilling store too (parquet 59 and later).
    #[cfg(not(feature = "parquet-58"))]
    let opts = Opts {
        props: WriterProperties::builder()
            .set_compression(Compression::ZSTD(Default::default()))
            .set_data_page_size_limit(8 << 10)
            .build(),
        page_store: PageStoreChoice::Custom(Arc::new(SpillPageStoreFactory::new(16 << 10))),
        ..Default::default()
    };
    #[cfg(not(feature = "parquet-58"))]
    failures.check(check_threads_with("spill", &schema, &batches, &opts, false));
    failures.finish();

    // Large enough pages that a worker takes some (the caller would
    // otherwise compress each page itself while it waits).
    let mut w = flba::writer(
        Vec::new(),
        &schema,
        &Opts::props(
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(Default::default()))
                .set_data_page_size_limit(4 << 10)
                .build(),
        ),
    )
    .unwrap()
    .with_threads(2)
    .with_min_parallel_work(Duration::ZERO);
    let mut on_workers = 0;
    for _ in 0..20 {
        for b in &batches {
            w.write(b).unwrap();
        }
        on_workers = pages_compressed_on_threads(&w).1;
        if on_workers > 0 {
            break;
        }
    }
    w.close().unwrap();
    assert!(on_workers > 0, "no page was compressed by a worker");
}

/// `with_threads(0)` is one thread; `thread_work` reports the setting.
#[test]
fn zero_threads_is_one() {
    let schema = wide_schema();
    let batches = wide_batches("zero");
    let opts = Opts::default();
    let one = write_ours(&schema, &batches, &opts, 1).unwrap();
    let zero = write_ours(&schema, &batches, &opts, 0).unwrap();
    assert_eq!(one.bytes, zero.bytes);
    let w = ArrowWriter::try_new(Vec::new(), schema, None)
        .unwrap()
        .with_threads(3);
    assert_eq!(w.thread_work().threads, 3);
}

/// `with_threads(usize::MAX)` (a count nobody checked, e.g. from a
/// setting) is clamped to 65,536, not an overflow: compressed pages
/// (whose count out at once is derived from the threads) and the file
/// are as on two threads.
#[test]
fn a_huge_thread_count_is_clamped() {
    let schema = schema1("v", DataType::Decimal128(38, 10), true);
    let mut g = Gen::new("huge_threads");
    let batches: Vec<RecordBatch> = (0..3)
        .map(|_| g.batch(&schema, 4000, &Spec::new(Nulls::Density(0.1))))
        .collect();
    let opts = Opts::props(
        small_pages(WriterProperties::builder())
            .set_compression(Compression::SNAPPY)
            .build(),
    );
    let two = write_ours(&schema, &batches, &opts, 2).unwrap();
    let huge = write_ours(&schema, &batches, &opts, usize::MAX).unwrap();
    assert!(two.bytes == huge.bytes, "the files differ");
    let w = ArrowWriter::try_new(Vec::new(), schema, None)
        .unwrap()
        .with_threads(usize::MAX);
    assert_eq!(w.thread_work().threads, 1 << 16);
}

/// Writes handed to the threads and kept on the caller.
fn writes_on_threads<W: std::io::Write + Send>(w: &ArrowWriter<W>) -> (usize, usize) {
    let work = w.thread_work();
    (work.writes_on_threads, work.writes_on_caller)
}

/// `with_min_parallel_work`: writes whose estimated work is below it stay
/// on the calling thread, the others go to the threads, and the file is
/// parquet's either way. A first write of a few rows stays on the caller
/// by default (its work is guessed from the column types); every write
/// does with `Duration::MAX`, none with `Duration::ZERO`.
#[test]
fn small_writes_stay_on_the_caller() {
    let schema = wide_schema();
    // The single-row batch first.
    let mut batches = wide_batches("inline");
    batches.swap(0, 1);
    let opts = Opts::default();
    let up = up::write(&schema, &batches, &opts).unwrap();
    // (setting, after the first write, after all four)
    let cases = [
        (Some(Duration::ZERO), (1, 0), Some((4, 0))),
        (Some(Duration::MAX), (0, 1), Some((0, 4))),
        // The later writes' costs are measured: where they go depends on
        // the machine.
        (None, (0, 1), None),
    ];
    for (work, first, all) in cases {
        let mut bytes = Vec::new();
        let mut w = flba::writer(&mut bytes, &schema, &opts)
            .unwrap()
            .with_threads(2);
        if let Some(work) = work {
            w = w.with_min_parallel_work(work);
        }
        w.write(&batches[0]).unwrap();
        assert_eq!(writes_on_threads(&w), first, "{work:?}");
        for b in &batches[1..] {
            w.write(b).unwrap();
        }
        if let Some(all) = all {
            assert_eq!(writes_on_threads(&w), all, "{work:?}");
        }
        w.close().unwrap();
        assert!(compare_files(&up.bytes, &bytes).is_none(), "{work:?}");
    }
    // One thread: nothing is handed out or counted.
    let w = flba::writer(Vec::new(), &schema, &opts).unwrap();
    assert_eq!(writes_on_threads(&w), (0, 0));
}

/// Records the bytes an async writer hands over, call by call.
#[cfg(feature = "async")]
#[derive(Debug, Default)]
struct Recorder {
    calls: Vec<Bytes>,
}

#[cfg(feature = "async")]
impl parquet_flba::AsyncFileWriter for Recorder {
    fn write(
        &mut self,
        bs: Bytes,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = PqResult<()>> + Send + '_>> {
        self.calls.push(bs);
        Box::pin(async { Ok(()) })
    }

    fn complete(
        &mut self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = PqResult<()>> + Send + '_>> {
        Box::pin(async { Ok(()) })
    }
}

/// The async writer forwards the setting: the same bytes in the same calls.
#[cfg(feature = "async")]
#[tokio::test]
async fn async_writer_with_threads() {
    use parquet_flba::AsyncArrowWriter;
    let schema = wide_schema();
    let batches = wide_batches("async");
    let props = small_pages(WriterProperties::builder())
        .set_max_row_group_row_count(Some(800))
        .build();
    let mut calls = Vec::new();
    for threads in [1, 3] {
        let mut w =
            AsyncArrowWriter::try_new(Recorder::default(), schema.clone(), Some(props.clone()))
                .unwrap()
                .with_threads(threads)
                .with_min_parallel_work(Duration::ZERO);
        for b in &batches {
            w.write(b).await.unwrap();
        }
        w.finish().await.unwrap();
        calls.push(w.into_inner().calls);
    }
    assert_eq!(calls[0], calls[1]);
    let up = up::write(&schema, &batches, &Opts::props(props)).unwrap();
    assert!(compare_files(&up.bytes, &calls[1].concat()).is_none());
}

/// A page store that records the names of the threads that store pages.
#[cfg(not(feature = "parquet-58"))]
#[derive(Debug, Default)]
struct ThreadNames(Arc<Mutex<Vec<String>>>);

#[cfg(not(feature = "parquet-58"))]
struct NamingStore {
    names: Arc<Mutex<Vec<String>>>,
    inner: VecPageStore,
}

#[cfg(not(feature = "parquet-58"))]
impl PageStore for NamingStore {
    fn put(&mut self, value: Bytes) -> PqResult<PageKey> {
        let name = std::thread::current().name().unwrap_or("").to_string();
        self.names.lock().unwrap().push(name);
        self.inner.put(value)
    }

    fn take(&mut self, key: PageKey) -> PqResult<Bytes> {
        self.inner.take(key)
    }
}

#[cfg(not(feature = "parquet-58"))]
impl PageStoreFactory for ThreadNames {
    fn create(&self, _args: &PageStoreArgs<'_>) -> PqResult<Box<dyn PageStore>> {
        Ok(Box::new(NamingStore {
            names: self.0.clone(),
            inner: VecPageStore::default(),
        }))
    }
}

/// The work does go to the pool's threads (and with one thread, stays on
/// the caller's). Which thread takes a column's work is timing: on a
/// loaded machine the writer's own thread may take all of one file's, so
/// the file is written again (up to 50 times) until a worker stored a page.
#[cfg(not(feature = "parquet-58"))]
#[test]
fn pages_are_encoded_on_worker_threads() {
    let schema = wide_schema();
    let batches = wide_batches("worker_threads");
    for threads in [1, 4] {
        let mut attempts = 0;
        loop {
            attempts += 1;
            let names = ThreadNames::default();
            let seen = names.0.clone();
            let opts = Opts {
                props: small_pages(WriterProperties::builder()).build(),
                page_store: PageStoreChoice::Custom(Arc::new(names)),
                ..Default::default()
            };
            write_ours(&schema, &batches, &opts, threads).unwrap();
            let seen = seen.lock().unwrap();
            let workers = seen
                .iter()
                .filter(|n| n.starts_with("parquet-flba-"))
                .count();
            assert!(!seen.is_empty());
            if threads == 1 {
                assert_eq!(workers, 0);
                break;
            }
            if workers > 0 {
                break;
            }
            assert!(
                attempts < 50,
                "no page stored by a worker in {attempts} files: {seen:?}"
            );
        }
    }
}

/// With several threads, `AsyncArrowWriter` encodes on the pool's worker
/// threads and its futures wait for them without blocking the executor
/// thread: the first poll of a large write returns `Pending`, and the
/// executor can run other tasks meanwhile (one thread: the write encodes
/// in its first poll, as `parquet`'s does).
#[cfg(feature = "async")]
#[test]
fn async_writes_do_not_block_the_executor() {
    use parquet_flba::AsyncArrowWriter;
    use std::future::Future;
    use std::task::{Context, Poll, Waker};
    let schema = wide_schema();
    let mut g = Gen::new("async_pending");
    let batch = g.batch(&schema, 20_000, &Spec::new(Nulls::Density(0.1)));
    let mut files = Vec::new();
    for threads in [1, 2] {
        let mut w = AsyncArrowWriter::try_new(Recorder::default(), schema.clone(), None)
            .unwrap()
            .with_threads(threads);
        let mut cx = Context::from_waker(Waker::noop());
        let mut polls = 0;
        {
            let mut write = std::pin::pin!(w.write(&batch));
            loop {
                polls += 1;
                match write.as_mut().poll(&mut cx) {
                    Poll::Ready(result) => break result.unwrap(),
                    Poll::Pending => std::thread::sleep(Duration::from_millis(1)),
                }
            }
        }
        match threads {
            1 => assert_eq!(polls, 1),
            _ => assert!(
                polls > 1,
                "threads={threads}: the write blocked its first poll"
            ),
        }
        {
            let mut close = std::pin::pin!(w.finish());
            loop {
                if let Poll::Ready(result) = close.as_mut().poll(&mut cx) {
                    result.unwrap();
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        files.push(w.into_inner().calls.concat());
    }
    assert_eq!(files[0], files[1]);
}
