//! Write throughput: upstream `parquet::arrow::ArrowWriter` (of the selected
//! release: parquet 60.1.0, or 59.2.0 with `--no-default-features --features
//! parquet-59`) against `parquet_flba::ArrowWriter`, on the same batch in the
//! same run.
//!
//! # What is measured
//!
//! One benchmark group per workload × configuration, named
//! `<workload>/<config>`, each with one function per writer:
//!
//! ```text
//! decimal_nonnull/default/parquet         parquet::arrow::ArrowWriter
//! decimal_nonnull/default/parquet-flba    parquet_flba::ArrowWriter
//! decimal_nonnull/plain_nostats/memcpy    reference copy of the value bytes
//! nested/default/parquet-flba             struct<decimal, list<fsb>>, nulls at every level
//! setup/default/parquet                   500 files × 1,000 rows (mixed schema)
//! ```
//!
//! An iteration is one whole file: `try_new` into a pre-allocated `Vec<u8>`
//! (cleared, capacity reused, so no page faults are timed), `write(&batch)`,
//! `close()`. Batches are built once per workload, outside the timing
//! (1,048,576 rows each; see `benches/workloads/mod.rs` for the generators and
//! the writer configurations). Throughput is in value bytes: the non-null
//! values as Parquet stores them (FLBA width × non-null count; for mixed tables
//! every column's raw value bytes).
//!
//! `memcpy` (only in the `plain_nostats` groups) copies the same value bytes
//! into a pre-allocated buffer, byte-swapping decimals to big-endian truncated
//! to the column width: a floor for any writer, so ratios to it can be quoted.
//!
//! The figure that counts is the ratio between the two writers of a group; do
//! not read much into differences under ~10% on a noisy machine.
//!
//! # How to run
//!
//! ```text
//! cargo bench --bench write -- --list                  # every benchmark ID
//! cargo bench --bench write                            # everything: 121 functions, ~11 min
//! cargo bench --bench write -- 'decimal_nonnull/'      # one workload, all configs
//! cargo bench --bench write -- 'decimal_nonnull/default|fsb/default'   # one regex
//! cargo bench --bench write -- '/zstd/'                # one config, all workloads
//! cargo bench --bench write -- 'plain_nostats'         # includes the memcpy references
//! cargo bench --bench write -- 'setup/'
//! cargo bench --bench write -- 'nested/'
//! cargo bench --bench write -- 'tables/'                   # whole tables: mixed4, prims, each type alone
//! cargo bench --bench write -- 'tables/prims/'             # one table, every configuration
//! cargo bench --bench write -- 'delegated/'               # a leaf left to parquet's writer by both
//! cargo bench --bench write -- 'accounting/'               # MemoryListener overhead
//! cargo bench --bench write -- 'threads/'                  # with_threads(1) vs with_threads(2)
//! cargo bench --bench write -- 'block_cache/'              # with the page-block cache...
//! PARQUET_FLBA_BLOCK_CACHE_LIMIT=0 cargo bench --bench write -- 'block_cache/'  # ...and without
//! ```
//!
//! `PARQUET_FLBA_BLOCK_CACHE_LIMIT` (bytes) sets the process-wide page-block
//! cache's limit (`set_block_cache_limit`) before anything runs; unset, the
//! default (64 MiB) holds. At 0 every writer behaves as one that keeps out of
//! the cache (`ArrowWriterOptions::with_block_cache(false)`, or a
//! `MemoryListener`: `accounting/`'s `listener` writers never use it). The
//! `block_cache/` groups (both writers, 1, 16 and 128 batches per file) are
//! meant to be run with and without it.
//!
//! Defaults are set for a 2-core noisy machine: 10 samples, flat sampling,
//! 1 s warm-up and 3 s measurement per function (criterion stretches the
//! measurement when 10 iterations take longer than that). Criterion's own
//! flags override them, e.g. `-- --sample-size 20 --measurement-time 10`.
//! Set `CARGO_TARGET_DIR` to keep bench builds apart from other builds.

include!("../src/versions.rs");

use std::hint::black_box;
use std::time::Duration;

use parquet::file::properties::WriterProperties;

use arrow_array::RecordBatch;
use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_main};

mod workloads;

use workloads::tables::{TABLE_BATCHES, TABLE_ROWS, TABLES};
use workloads::{
    CONFIG_NAMES, DEFAULT_ROWS, NESTED, SETUP_FILES, SETUP_ROWS, WORKLOADS, Writer, config,
    reference_copy, setup_batches, value_bytes, write_file,
};

/// One function per writer in `group`, each timing a whole file of
/// `batches` into `sink` (cleared, its capacity reused).
fn bench_both_writers(
    group: &mut BenchmarkGroup<'_, WallTime>,
    sink: &mut Vec<u8>,
    batches: &[RecordBatch],
    props: &WriterProperties,
) {
    let schema = batches[0].schema();
    for writer in Writer::BOTH {
        group.bench_function(writer.name(), |b| {
            b.iter(|| {
                sink.clear();
                write_file(writer, &mut *sink, schema.clone(), batches, props.clone())
                    .expect("write succeeds");
                black_box(sink.len())
            })
        });
    }
}

/// Capacity to reserve for one output file of `value_bytes` value bytes.
fn sink_capacity(value_bytes: u64) -> usize {
    value_bytes as usize + value_bytes as usize / 4 + (4 << 20)
}

/// The configurations whole tables are timed under.
const TABLE_CONFIGS: [&str; 4] = ["default", "bloom_filter", "parquet_2", "zstd"];

/// Whole tables (`workloads::tables`: 2,097,152 rows in 64 batches, one
/// file): both writers, one thread, under each of [`TABLE_CONFIGS`].
fn bench_tables(c: &mut Criterion) {
    for table in &TABLES {
        let batches = table.build(TABLE_ROWS, TABLE_BATCHES);
        let bytes: u64 = batches.iter().map(value_bytes).sum();
        let mut sink = Vec::with_capacity(sink_capacity(bytes));
        for config_name in TABLE_CONFIGS {
            let props = config(config_name).expect("known configuration");
            let mut group = c.benchmark_group(format!("tables/{}/{config_name}", table.name));
            group.throughput(Throughput::Bytes(bytes));
            bench_both_writers(&mut group, &mut sink, &batches, &props);
            group.finish();
        }
    }
}

/// The `int64` table with its leaf delegated to `parquet`'s column writer
/// by both writers (`workloads::delegated`): this crate's cost where it
/// does not encode. Checks the plan and that both files are identical
/// before timing.
fn bench_delegated(c: &mut Criterion) {
    use workloads::delegated::{DelegatedWriter, schema_with_logical_int64, write_delegated};
    let table = workloads::tables::table("int64").expect("int64 table");
    let batches = table.build(TABLE_ROWS, TABLE_BATCHES);
    let name = batches[0].schema().field(0).name().clone();
    let descr = schema_with_logical_int64(&name);
    let bytes: u64 = batches.iter().map(value_bytes).sum();
    for config_name in ["default", "zstd"] {
        let props = config(config_name).expect("known configuration");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        write_delegated(
            DelegatedWriter::Parquet,
            &mut a,
            &batches,
            &descr,
            &props,
            false,
        );
        write_delegated(
            DelegatedWriter::Flba,
            &mut b,
            &batches,
            &descr,
            &props,
            true,
        );
        assert!(a == b, "delegated/int64/{config_name}: the files differ");
        let mut sink = Vec::with_capacity(sink_capacity(bytes));
        let mut group = c.benchmark_group(format!("delegated/int64/{config_name}"));
        group.throughput(Throughput::Bytes(bytes));
        for (label, writer) in [
            ("parquet", DelegatedWriter::Parquet),
            ("parquet-flba", DelegatedWriter::Flba),
        ] {
            group.bench_function(label, |b| {
                b.iter(|| {
                    sink.clear();
                    write_delegated(writer, &mut sink, &batches, &descr, &props, false);
                    black_box(sink.len())
                })
            });
        }
        group.finish();
    }
}

/// Every workload × configuration: both writers, plus `memcpy` for `plain_nostats`.
fn bench_workloads(c: &mut Criterion) {
    for workload in &WORKLOADS {
        let batch = workload.build(DEFAULT_ROWS);
        let bytes = value_bytes(&batch);
        let mut sink = Vec::with_capacity(sink_capacity(bytes));

        for config_name in CONFIG_NAMES {
            let props = config(config_name).expect("known configuration");
            let mut group = c.benchmark_group(format!("{}/{config_name}", workload.name));
            group
                .throughput(Throughput::Bytes(bytes))
                .sampling_mode(SamplingMode::Flat);
            bench_both_writers(&mut group, &mut sink, std::slice::from_ref(&batch), &props);
            if config_name == "plain_nostats" {
                let mut out = Vec::new();
                reference_copy(&batch, &mut out); // sizes and faults `out` once
                group.bench_function("memcpy", |b| {
                    b.iter(|| black_box(reference_copy(black_box(&batch), &mut out)))
                });
            }
            group.finish();
        }
    }
}

/// A nested field (`nested/default`): FLBA leaves inside a struct and a list,
/// whose levels this crate computes itself.
fn bench_nested(c: &mut Criterion) {
    let batch = NESTED.build(DEFAULT_ROWS);
    let bytes = value_bytes(&batch);
    let mut sink = Vec::with_capacity(sink_capacity(bytes));
    let props = config("default").expect("known configuration");
    let mut group = c.benchmark_group("nested/default");
    group
        .throughput(Throughput::Bytes(bytes))
        .sampling_mode(SamplingMode::Flat);
    bench_both_writers(&mut group, &mut sink, std::slice::from_ref(&batch), &props);
    group.finish();
}

/// Per-file overhead: 500 small files of 1,000 rows, default configuration.
fn bench_setup(c: &mut Criterion) {
    let batches = setup_batches(SETUP_FILES, SETUP_ROWS);
    let schema = batches[0].schema();
    let bytes: u64 = batches.iter().map(value_bytes).sum();
    let props = config("default").expect("known configuration");
    let mut sink = Vec::with_capacity(sink_capacity(bytes / SETUP_FILES as u64));

    let mut group = c.benchmark_group("setup/default");
    group
        .throughput(Throughput::Bytes(bytes))
        .sampling_mode(SamplingMode::Flat);
    for writer in Writer::BOTH {
        group.bench_function(writer.name(), |b| {
            b.iter(|| {
                for batch in &batches {
                    sink.clear();
                    write_file(
                        writer,
                        &mut sink,
                        schema.clone(),
                        std::slice::from_ref(batch),
                        props.clone(),
                    )
                    .expect("write succeeds");
                    black_box(sink.len());
                }
            })
        });
    }
    group.finish();
}

/// A listener that grants everything and counts calls.
#[derive(Debug, Default)]
struct CountingListener {
    calls: std::sync::atomic::AtomicU64,
}

impl parquet_flba::MemoryListener for CountingListener {
    fn try_grow(&self, _bytes: usize) -> parquet::errors::Result<()> {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    fn shrink(&self, _bytes: usize) {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Cost of block-batched memory accounting: parquet-flba with and without a
/// `MemoryListener`, on 16 batches of 65,536 rows (one reservation check per
/// batch). Prints the listener calls per MiB of value bytes.
fn bench_accounting(c: &mut Criterion) {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    for name in ["decimal_nonnull", "uuid", "fsb"] {
        let workload = WORKLOADS.iter().find(|w| w.name == name).expect("workload");
        let batch = workload.build(DEFAULT_ROWS);
        let batches: Vec<_> = (0..16).map(|i| batch.slice(i * 65_536, 65_536)).collect();
        let schema = batch.schema();
        let bytes = value_bytes(&batch);
        let props = config("default").expect("known configuration");
        let mut sink = Vec::with_capacity(sink_capacity(bytes));
        let listener = Arc::new(CountingListener::default());

        let mut group = c.benchmark_group(format!("accounting/{name}"));
        group
            .throughput(Throughput::Bytes(bytes))
            .sampling_mode(SamplingMode::Flat);
        for with_listener in [false, true] {
            let id = if with_listener { "listener" } else { "none" };
            group.bench_function(id, |b| {
                b.iter(|| {
                    sink.clear();
                    let mut w = parquet_flba::ArrowWriter::try_new(
                        &mut sink,
                        schema.clone(),
                        Some(props.clone()),
                    )
                    .expect("writer");
                    if with_listener {
                        w = w.with_memory_listener(listener.clone());
                    }
                    for b in &batches {
                        w.write(b).expect("write succeeds");
                    }
                    w.close().expect("close succeeds");
                })
            });
        }
        group.finish();
        let before = listener.calls.load(Ordering::Relaxed);
        let mut w = parquet_flba::ArrowWriter::try_new(&mut sink, schema.clone(), Some(props))
            .expect("writer")
            .with_memory_listener(listener.clone());
        for b in &batches {
            w.write(b).expect("write succeeds");
        }
        w.close().expect("close succeeds");
        let calls = listener.calls.load(Ordering::Relaxed) - before;
        println!(
            "accounting/{name}: {calls} listener calls for {:.1} MiB of values ({:.2} per MiB)",
            bytes as f64 / (1 << 20) as f64,
            calls as f64 / (bytes as f64 / (1 << 20) as f64)
        );
    }
}

/// The page-block cache: `parquet` and parquet-flba on one file of
/// 1,048,576 rows written as one batch, as 16 batches of 65,536 and as 128
/// of 8,192 (DataFusion's batch size, where blocks are many and small),
/// default configuration. Run once as is and once with
/// `PARQUET_FLBA_BLOCK_CACHE_LIMIT=0`: with the limit at 0, parquet-flba's
/// writer takes and keeps no block, as every writer of a process whose
/// writers keep out of the cache (a listener, `with_block_cache(false)`).
/// Both settings cannot be compared in one process: blocks cached by one
/// run pin the allocator's heap and spare the next run its page faults.
fn bench_block_cache(c: &mut Criterion) {
    for name in ["decimal_nonnull", "uuid"] {
        let workload = WORKLOADS.iter().find(|w| w.name == name).expect("workload");
        let batch = workload.build(DEFAULT_ROWS);
        let split = |n: usize| -> Vec<_> {
            let rows = DEFAULT_ROWS / n;
            (0..n).map(|i| batch.slice(i * rows, rows)).collect()
        };
        let (p16, p128) = (split(16), split(128));
        let bytes = value_bytes(&batch);
        let props = config("default").expect("known configuration");
        let mut sink = Vec::with_capacity(sink_capacity(bytes));
        let shapes = [
            ("1x", std::slice::from_ref(&batch)),
            ("16x", &p16[..]),
            ("128x", &p128[..]),
        ];
        for (shape, batches) in shapes {
            let mut group = c.benchmark_group(format!("block_cache/{name}/{shape}"));
            group
                .throughput(Throughput::Bytes(bytes))
                .sampling_mode(SamplingMode::Flat);
            bench_both_writers(&mut group, &mut sink, batches, &props);
            group.finish();
        }
    }
}

/// `ArrowWriter::with_threads`: parquet-flba on 1 and 2 threads (and
/// `parquet` for reference) on `decimal_nonnull` (two FLBA columns) and
/// on the 4-column mixed table of `setup/` (UUID, nullable decimal, Int64,
/// Utf8) at 1,048,576 rows, default configuration; each file written as
/// one batch (`/1x`) and as 16 batches of 65,536 rows (`/16x`).
fn bench_threads(c: &mut Criterion) {
    let decimal = WORKLOADS
        .iter()
        .find(|w| w.name == "decimal_nonnull")
        .expect("workload")
        .build(DEFAULT_ROWS);
    let mixed = setup_batches(1, DEFAULT_ROWS).remove(0);
    let props = config("default").expect("known configuration");
    for (name, batch) in [("decimal_nonnull", decimal), ("mixed4", mixed)] {
        let schema = batch.schema();
        let bytes = value_bytes(&batch);
        let mut sink = Vec::with_capacity(sink_capacity(bytes));
        let pieces: Vec<_> = (0..16)
            .map(|i| batch.slice(i * (DEFAULT_ROWS / 16), DEFAULT_ROWS / 16))
            .collect();
        for (shape, batches) in [("1x", std::slice::from_ref(&batch)), ("16x", &pieces[..])] {
            let mut group = c.benchmark_group(format!("threads/{name}/{shape}"));
            group
                .throughput(Throughput::Bytes(bytes))
                .sampling_mode(SamplingMode::Flat);
            group.bench_function("parquet", |b| {
                b.iter(|| {
                    sink.clear();
                    let writer = Writer::Parquet;
                    write_file(writer, &mut sink, schema.clone(), batches, props.clone())
                        .expect("write succeeds");
                    black_box(sink.len())
                })
            });
            for threads in [1, 2] {
                group.bench_function(format!("parquet-flba/{threads}"), |b| {
                    b.iter(|| {
                        sink.clear();
                        let mut w = parquet_flba::ArrowWriter::try_new(
                            &mut sink,
                            schema.clone(),
                            Some(props.clone()),
                        )
                        .expect("writer")
                        .with_threads(threads);
                        for b in batches {
                            w.write(b).expect("write succeeds");
                        }
                        w.close().expect("close succeeds");
                        black_box(sink.len())
                    })
                });
            }
            group.finish();
        }
    }
}

/// Defaults for a small noisy machine; command-line flags override them.
/// Applies `PARQUET_FLBA_BLOCK_CACHE_LIMIT` (see the module docs).
fn criterion_config() -> Criterion {
    if let Ok(limit) = std::env::var("PARQUET_FLBA_BLOCK_CACHE_LIMIT") {
        let bytes = limit
            .parse()
            .expect("PARQUET_FLBA_BLOCK_CACHE_LIMIT: a number of bytes");
        parquet_flba::set_block_cache_limit(bytes);
    }
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

mod harness {
    use super::{
        bench_accounting, bench_block_cache, bench_delegated, bench_nested, bench_setup,
        bench_tables, bench_threads, bench_workloads, criterion_config,
    };
    criterion::criterion_group! {
        name = benches;
        config = criterion_config();
        targets = bench_workloads, bench_tables, bench_nested, bench_setup, bench_accounting, bench_block_cache,
            bench_threads, bench_delegated
    }
}
criterion_main!(harness::benches);
