//! `COPY TO` end to end, stock DataFusion vs parquet-flba registered, on the
//! same in-memory table in one run: a decimal- and UUID-heavy table, parallel
//! (DataFusion's default) and sequential single-file writes, with
//! DataFusion's default codec (zstd(3)) and uncompressed
//! (`copy_to/uncompressed/...`); on the parallel path parquet-flba runs its
//! threaded engine (the default) and, as `.../parallel/flba-layout`,
//! DataFusion's layout of one task per column (`parquet_flba.threads = 1`).
//! `copy_to/whole/...`: every column of the table (with its Int64, two
//! Utf8, a list and a struct), at DataFusion's defaults.
//!
//! `cargo bench --bench copy_to` (inside `datafusion/`); 262,144 rows, or
//! `PARQUET_FLBA_COPY_ROWS` (rounded down to batches of 8,192).

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{Criterion, criterion_main};

const SELECT: &str = "SELECT row, id, price, amount, big, small, half FROM t";
const WHOLE: &str = "SELECT * FROM t";
const BATCH_ROWS: usize = 8192;

fn copy_to(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let rows = std::env::var("PARQUET_FLBA_COPY_ROWS")
        .ok()
        .and_then(|r| r.parse::<usize>().ok())
        .unwrap_or(32 * BATCH_ROWS);
    let data = common::batches((rows / BATCH_ROWS).max(1), BATCH_ROWS);
    let dir = common::scratch("copy_to-bench");
    let mut group = c.benchmark_group("copy_to");
    group.sample_size(15);
    // DataFusion's default codec (zstd(3)), and none: without compression
    // zstd no longer hides the writers' own share.
    for (codec, extra) in [
        ("", ""),
        ("uncompressed/", ", 'compression' 'uncompressed'"),
    ] {
        for parallel in [true, false] {
            let mode = if parallel { "parallel" } else { "sequential" };
            // parquet-flba at its defaults (on the parallel path its own
            // threaded engine), and on the parallel path also with
            // `parquet_flba.threads = 1`: DataFusion's layout of one task
            // per column on parquet-flba's column writers.
            for (registered, layout) in [(false, false), (true, false), (true, true)] {
                if layout && !parallel {
                    continue;
                }
                let ctx = common::context(registered, 1, &data).unwrap();
                let writer = match (registered, layout) {
                    (false, _) => "stock",
                    (true, false) => "flba",
                    (true, true) => "flba-layout",
                };
                if layout {
                    runtime.block_on(async {
                        let set = "SET parquet_flba.threads = 1";
                        ctx.sql(set).await.unwrap().collect().await.unwrap();
                    });
                }
                let sql = format!(
                    "COPY ({SELECT}) TO '{}/{writer}-{mode}.parquet' STORED AS PARQUET \
                     OPTIONS ('allow_single_file_parallelism' '{parallel}'{extra})",
                    dir.display()
                );
                group.bench_function(format!("{codec}{mode}/{writer}"), |b| {
                    b.to_async(&runtime)
                        .iter(|| async { ctx.sql(&sql).await.unwrap().collect().await.unwrap() })
                });
            }
        }
    }
    // The whole table at DataFusion's defaults (parallel, zstd(3)).
    for registered in [false, true] {
        let ctx = common::context(registered, 1, &data).unwrap();
        let writer = if registered { "flba" } else { "stock" };
        let sql = format!(
            "COPY ({WHOLE}) TO '{}/{writer}-whole.parquet' STORED AS PARQUET",
            dir.display()
        );
        group.bench_function(format!("whole/parallel/{writer}"), |b| {
            b.to_async(&runtime)
                .iter(|| async { ctx.sql(&sql).await.unwrap().collect().await.unwrap() })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

// In a private module: `criterion_group!` makes a public function.
mod harness {
    use super::copy_to;
    criterion::criterion_group!(benches, copy_to);
}
criterion_main!(harness::benches);
