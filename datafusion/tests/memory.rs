//! Memory is reserved from the query's pool as DataFusion's own sink
//! reserves it: the same consumers, resized at the same points to the
//! writers' own `memory_size()`; a pool just large enough for DataFusion's
//! sink is large enough for parquet-flba's; and the pool is back at 0 after
//! every write, failed or not.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::lazy::{Fault, Lazy};
use common::pool::{Event, Recording};
use common::{batches, files, schema, scratch};
use datafusion::arrow::array::RecordBatch;
use datafusion::config::TableParquetOptions;
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::memory_pool::MemoryPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::parquet::file::properties::WriterPropertiesBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use parquet_flba_datafusion::parquet_flba::{ArrowWriter, ArrowWriterOptions, block_cache_bytes};

/// A context over `pool` whose table `t` is `data` (or `input`).
fn context(registered: bool, pool: &Arc<Recording>, data: &[RecordBatch]) -> SessionContext {
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::clone(pool) as Arc<dyn MemoryPool>)
        .build_arc()
        .unwrap();
    let state = SessionStateBuilder::new()
        .with_config(SessionConfig::new().with_target_partitions(1))
        .with_runtime_env(runtime)
        .with_default_features()
        .build();
    let ctx = SessionContext::new_with_state(state);
    if registered {
        parquet_flba_datafusion::register(&ctx).unwrap();
    }
    let table = MemTable::try_new(schema(), vec![data.to_vec()]).unwrap();
    ctx.register_table("t", Arc::new(table)).unwrap();
    ctx
}

/// `COPY t TO <dir>/x.parquet` on the given path with `options`.
async fn copy(
    ctx: &SessionContext,
    dir: &std::path::Path,
    parallel: bool,
    options: &str,
) -> Result<()> {
    let sql = format!(
        "COPY t TO '{}/x.parquet' STORED AS PARQUET OPTIONS \
         ('allow_single_file_parallelism' '{parallel}'{options})",
        dir.display()
    );
    ctx.sql(&sql).await?.collect().await.map(|_| ())
}

/// Waits (a little) for the pool to be empty: tasks of a failed write are
/// cancelled, and drop their reservations, shortly after it returns.
async fn assert_pool_empty(pool: &Recording, case: &str) {
    for _ in 0..100 {
        if pool.reserved() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{case}: {} bytes still reserved", pool.reserved());
}

/// Every reservation of the sink's consumers (`ParquetSink[<path>]`) was
/// one the pool could refuse: none grew by `MemoryReservation::grow`, so a
/// bounded pool was never exceeded.
fn assert_refusable(pool: &Recording, case: &str) {
    let grows = pool.infallible_grows("ParquetSink[");
    assert!(
        grows.is_empty(),
        "{case}: {} grows the pool could not refuse, by {:?}",
        grows.len(),
        grows.first()
    );
}

/// The sizes a consumer named `name` (a prefix) went through, in order.
fn sizes_of(events: &[Event], name: &str) -> Vec<usize> {
    events
        .iter()
        .filter(|e| e.name.starts_with(name))
        .map(|e| e.size)
        .collect()
}

/// `memory_size()` after each batch, skipping repeats: what DataFusion's
/// rule (`try_resize(writer.memory_size())` after each write) reserves.
fn memory_sizes(data: &[RecordBatch], mut write: impl FnMut(&RecordBatch) -> usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut last = 0;
    for batch in data {
        let size = write(batch);
        if size != last {
            out.push(size);
            last = size;
        }
    }
    out
}

/// Sequential path: the file's consumer (`ParquetSink[<path>]`) is resized
/// to the writer's `memory_size()` after every batch, for DataFusion's sink
/// (`parquet`'s writer) and for parquet-flba's (its own writer); the files
/// are the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_reservation_is_the_writer_memory_size_after_each_batch() {
    let data = batches(12, 3_000);
    let props = || {
        let mut options = TableParquetOptions::default();
        options.arrow_schema(&schema());
        WriterPropertiesBuilder::try_from(&options).unwrap().build()
    };
    let mut stock =
        datafusion::parquet::arrow::ArrowWriter::try_new(Vec::new(), schema(), Some(props()))
            .unwrap();
    let stock_sizes = memory_sizes(&data, |b| {
        stock.write(b).unwrap();
        stock.memory_size()
    });
    // As the sink builds its writers: out of the block cache.
    let mut ours = parquet_flba_datafusion::parquet_flba::ArrowWriter::try_new_with_options(
        Vec::new(),
        schema(),
        ArrowWriterOptions::new()
            .with_properties(props())
            .with_block_cache(false),
    )
    .unwrap();
    let our_sizes = memory_sizes(&data, |b| {
        ours.write(b).unwrap();
        ours.memory_size()
    });

    let mut dirs = Vec::new();
    for (registered, expected) in [(false, &stock_sizes), (true, &our_sizes)] {
        let pool = Recording::new(None);
        let ctx = context(registered, &pool, &data);
        let dir = scratch("sequential-memory");
        copy(&ctx, &dir, false, "").await.unwrap();
        let got = sizes_of(&pool.events(), "ParquetSink[");
        assert!(
            got.len() >= expected.len() && &got[..expected.len()] == expected.as_slice(),
            "registered={registered}: reserved {got:?}, memory_size {expected:?}"
        );
        assert_eq!(got.last(), Some(&0), "registered={registered}");
        assert_pool_empty(&pool, "sequential").await;
        dirs.push(dir);
    }
    assert!(files(&dirs[0]) == files(&dirs[1]), "the files differ");
}

/// Parallel path, DataFusion's layout (`parquet_flba.threads` 1): a column
/// writer keeps its reservation
/// (`ParquetSink(ArrowColumnWriter)`) until the row group's reservation
/// (`ParquetSink(SerializedRowGroupWriter)`) has grown by the column's
/// estimated size, as DataFusion's sink does; every consumer ends at 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_column_reservation_is_kept_until_the_row_group_holds_it() {
    let data = batches(12, 3_000);
    let leaves = 12;
    for registered in [false, true] {
        let case = format!("registered={registered}");
        let pool = Recording::new(None);
        let ctx = context(registered, &pool, &data);
        // DataFusion's layout of the parallel path (parquet-flba's engine
        // is the default; see `threaded_parallel_path_reserves_per_file`).
        if registered {
            set_threads(&ctx, 1).await;
        }
        let dir = scratch("parallel-memory");
        copy(&ctx, &dir, true, ", 'max_row_group_size' '10000'")
            .await
            .unwrap();
        assert_pool_empty(&pool, &case).await;

        let consumers = pool.consumers();
        let ids = |name: &str| -> Vec<usize> {
            consumers
                .iter()
                .filter(|(_, n)| n == name)
                .map(|(id, _)| *id)
                .collect()
        };
        let columns = ids("ParquetSink(ArrowColumnWriter)");
        let groups = ids("ParquetSink(SerializedRowGroupWriter)");
        assert_eq!(ids("ParquetSink(SerializedFileWriter)").len(), 1, "{case}");
        // Four row groups: three of 10,000 rows and one of 6,000.
        assert_eq!(groups.len(), 4, "{case}");
        assert_eq!(columns.len(), leaves * 4, "{case}");

        // Replay: at each grow of row group k's reservation (the i-th),
        // column i of row group k still holds its reservation.
        let mut sizes = std::collections::HashMap::new();
        let mut grows = std::collections::HashMap::new();
        for event in pool.events() {
            let before = sizes.insert(event.id, event.size).unwrap_or(0);
            if let Some(k) = groups.iter().position(|&id| id == event.id)
                && event.size > before
            {
                let i = grows.entry(k).or_insert(0usize);
                let column = columns[k * leaves + *i];
                *i += 1;
                let held = sizes.get(&column).copied().unwrap_or(0);
                assert!(
                    held > 0,
                    "{case}: row group {k}, column {}: released before the row group held it",
                    *i - 1
                );
            }
        }
        for (_, size) in sizes {
            assert_eq!(size, 0, "{case}: a consumer ends above 0");
        }
    }
}

/// A pool just large enough for DataFusion's sink writes the file with
/// parquet-flba's too, the same file, by bounds that do not depend on
/// timing: on the sequential path (one writer on the file's task, so both
/// peaks are the same in every run) exactly DataFusion's peak; on the
/// parallel path (parquet-flba's engine), where both sinks' peaks depend on
/// how far the columns run ahead, DataFusion's sequential peak for the same
/// data plus what the engine may hold besides ([`engine_extra`]: the input
/// it has taken but not encoded yet, the output while the upload holds it,
/// which DataFusion counts none of, and its reservations' rounding).
/// Every reservation
/// of the sink can be refused (no `grow`, which a bounded pool cannot
/// refuse), so the pool is never exceeded; it is empty afterwards. The
/// sink's writers keep out of the block cache and so keep their blocks and
/// buffers tight (parquet-flba's `docs/memory.md`): on this table the
/// sequential peak is 0.91-0.92x DataFusion's, zstd and uncompressed; the
/// ratios to DataFusion's parallel peak are printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_just_large_enough_for_datafusion_is_enough() {
    let data = batches(12, 3_000);
    let uncompressed = ", 'compression' 'uncompressed'";
    for options in [OPTS, uncompressed] {
        // DataFusion's sink on both paths: its peaks, and its files.
        let mut stock = Vec::new();
        for parallel in [false, true] {
            let pool = Recording::new(None);
            let dir = scratch("enough-stock");
            copy(&context(false, &pool, &data), &dir, parallel, options)
                .await
                .unwrap();
            stock.push((pool.peak(), dir));
        }
        let (sequential_peak, sequential_dir) = &stock[0];
        let extra = engine_extra(&data, files(sequential_dir)[0].1.len());
        for (parallel, (stock_peak, stock_dir)) in [false, true].into_iter().zip(&stock) {
            let case = format!("parallel={parallel}{options}");
            let limit = if parallel {
                sequential_peak + extra
            } else {
                *sequential_peak
            };
            let pool = Recording::new(Some(limit));
            let ctx = context(true, &pool, &data);
            if parallel {
                // The engine, whatever the machine's cores.
                set_threads(&ctx, 2).await;
            }
            let dir = scratch("enough-flba");
            copy(&ctx, &dir, parallel, options)
                .await
                .unwrap_or_else(|e| panic!("{case}: a pool of {limit} bytes: {e}"));
            eprintln!(
                "{case}: peak {} bytes, {:.2}x DataFusion's on this path, limit {limit}",
                pool.peak(),
                pool.peak() as f64 / *stock_peak as f64
            );
            assert_refusable(&pool, &case);
            assert!(pool.peak() <= limit, "{case}");
            assert!(files(stock_dir) == files(&dir), "{case}: the files differ");
            assert_pool_empty(&pool, &case).await;
        }
    }
}

/// What parquet-flba's engine may hold beyond what one writer holds after
/// each batch, for `data` written to a file of `file` bytes: every batch
/// taken but not encoded yet (a write queues its columns' work and
/// returns), the file while the upload holds it, and a reservation block
/// (64 KiB) of rounding per leaf, for the writer and for the pieces.
fn engine_extra(data: &[RecordBatch], file: usize) -> usize {
    let input: usize = data.iter().map(RecordBatch::get_array_memory_size).sum();
    let leaves = 12;
    input + file + (leaves + 2) * (64 << 10)
}

/// `SET parquet_flba.threads = threads` on `ctx`.
async fn set_threads(ctx: &SessionContext, threads: usize) {
    let sql = format!("SET parquet_flba.threads = {threads}");
    ctx.sql(&sql).await.unwrap().collect().await.unwrap();
}

/// The parallel path on parquet-flba's threaded engine
/// (`parquet_flba.threads` 3): one consumer per file, `ParquetSink[<path>]`
/// (none of DataFusion's per-column ones), reserved before each write
/// through the writer's memory listener and covering the output on its way
/// to the upload too; the file is DataFusion's; the
/// pool ends at 0; and a pool too small for it fails the write with
/// DataFusion's `ResourcesExhausted`, leaving the pool at 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threaded_parallel_path_reserves_per_file() {
    let data = batches(12, 3_000);
    let options = ", 'max_row_group_size' '10000'";
    let stock_pool = Recording::new(None);
    let stock_dir = scratch("threaded-memory-stock");
    copy(
        &context(false, &stock_pool, &data),
        &stock_dir,
        true,
        options,
    )
    .await
    .unwrap();

    let pool = Recording::new(None);
    let ctx = context(true, &pool, &data);
    set_threads(&ctx, 3).await;
    let dir = scratch("threaded-memory");
    copy(&ctx, &dir, true, options).await.unwrap();
    assert!(files(&stock_dir) == files(&dir), "the files differ");
    assert_pool_empty(&pool, "threaded").await;
    let names: Vec<String> = pool.consumers().into_iter().map(|(_, n)| n).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("ParquetSink["), "{names:?}");
    eprintln!(
        "threaded: peak {} bytes, {:.2}x DataFusion's",
        pool.peak(),
        pool.peak() as f64 / stock_pool.peak() as f64
    );
    let sizes = sizes_of(&pool.events(), "ParquetSink[");
    assert!(sizes.iter().any(|&s| s > 0), "nothing reserved: {sizes:?}");
    assert_refusable(&pool, "threaded");
    assert_eq!(sizes.last(), Some(&0));

    let small = Recording::new(Some(pool.peak() / 4));
    let ctx = context(true, &small, &data);
    set_threads(&ctx, 3).await;
    let e = copy(&ctx, &scratch("threaded-memory-small"), true, options)
        .await
        .expect_err("a quarter of the peak must not be enough");
    assert!(
        matches!(
            e.find_root(),
            datafusion::error::DataFusionError::ResourcesExhausted(_)
        ),
        "{e}"
    );
    assert_pool_empty(&small, "threaded, small pool").await;
}

/// DataFusion's default compression (zstd(3)).
const OPTS: &str = "";

/// With parquet-flba's process-wide block cache full (a plain writer in
/// the same process wrote first), the sink neither takes page blocks from
/// it nor gives any back, on both paths: everything its writers hold is in
/// the pool's reservations, and the same COPY runs again under a bounded
/// pool, with the same file: of its own first peak on the sequential path
/// (the same in every run), of the sequential peak plus [`engine_extra`] on
/// the engine's parallel path (whose peak depends on timing; see
/// [`a_pool_just_large_enough_for_datafusion_is_enough`]), every
/// reservation one the pool can refuse. Fails when the sink's writers use
/// the cache (the cache's size changes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sink_stays_out_of_the_block_cache() {
    let data = batches(12, 3_000);
    let mut plain = ArrowWriter::try_new(Vec::new(), schema(), None).unwrap();
    for b in &data {
        plain.write(b).unwrap();
    }
    plain.close().unwrap();
    let cached = block_cache_bytes();
    assert!(cached > 0, "the plain writer left nothing in the cache");
    let mut sequential = None;
    for parallel in [false, true] {
        let case = format!("parallel={parallel}");
        let pool = Recording::new(None);
        let ctx = context(true, &pool, &data);
        if parallel {
            // The engine, whatever the machine's cores.
            set_threads(&ctx, 2).await;
        }
        let first = scratch("cache-first");
        copy(&ctx, &first, parallel, OPTS).await.unwrap();
        assert_eq!(block_cache_bytes(), cached, "{case}: the cache changed");
        let limit = match sequential {
            None => pool.peak(),
            Some(peak) => peak + engine_extra(&data, files(&first)[0].1.len()),
        };
        sequential.get_or_insert(pool.peak());
        let small = Recording::new(Some(limit));
        let ctx = context(true, &small, &data);
        if parallel {
            set_threads(&ctx, 2).await;
        }
        let second = scratch("cache-second");
        copy(&ctx, &second, parallel, OPTS)
            .await
            .unwrap_or_else(|e| panic!("{case}: a pool of {limit} bytes: {e}"));
        assert_refusable(&small, &case);
        assert!(small.peak() <= limit, "{case}");
        assert_eq!(block_cache_bytes(), cached, "{case}: the cache changed");
        assert!(files(&first) == files(&second), "{case}: the files differ");
        assert_pool_empty(&small, &case).await;
    }
}

/// After a failed write the pool is back at 0, on both paths (and on the
/// parallel path on parquet-flba's threaded engine).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_is_empty_after_a_failed_write() {
    for (parallel, threads) in [(true, 1), (true, 3), (false, 1)] {
        let case = format!("parallel={parallel} threads={threads}");
        let pool = Recording::new(None);
        let ctx = context(true, &pool, &[]);
        set_threads(&ctx, threads).await;
        let input = Lazy::new(20, 4_000, Fault::WideDecimal(30_017));
        ctx.deregister_table("t").unwrap();
        ctx.register_table("t", input.table()).unwrap();
        let dir = scratch("failed-memory");
        copy(&ctx, &dir, parallel, ", 'max_row_group_size' '10000'")
            .await
            .expect_err("the write must fail");
        assert!(pool.peak() > 0, "{case}");
        assert_pool_empty(&pool, &case).await;
    }
}
