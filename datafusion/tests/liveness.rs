//! A `COPY ... PARTITIONED BY` with many more partitions than the runtime
//! has blocking threads completes, with the files DataFusion's own sink
//! writes. DataFusion keeps every partition's file open until the input
//! ends; a file that held a blocking thread while it waited for input
//! left the later partitions' files without one, and the write never
//! finished.

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::{batches, context, files, scratch};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::physical_plan::collect;
use datafusion::prelude::SessionContext;
use parquet_flba_datafusion::FlbaParquetSink;
use parquet_flba_datafusion::parquet_flba::LeafPath;

/// Distinct values of the partition column.
const PARTITIONS: usize = 1_000;

/// Far longer than the write takes (a few seconds in a debug build);
/// reached only if it hangs.
const LIMIT: Duration = Duration::from_secs(240);

/// Runs the partitioned `COPY` into a fresh directory; for parquet-flba's
/// sink returns how many files it wrote with the decimal and fixed-length
/// leaves on the fast path.
async fn copy(ctx: &SessionContext, registered: bool) -> (PathBuf, usize) {
    let dir = scratch("liveness");
    let sql = format!(
        "COPY (SELECT *, \"row\" % {PARTITIONS} AS part FROM t) TO '{}/' \
         STORED AS PARQUET PARTITIONED BY (part)",
        dir.display()
    );
    let plan = ctx
        .sql(&sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    collect(Arc::clone(&plan), ctx.task_ctx()).await.unwrap();
    let sink = plan.downcast_ref::<DataSinkExec>().unwrap().sink();
    let Some(ours) = sink.downcast_ref::<FlbaParquetSink>() else {
        assert!(!registered, "not parquet-flba's sink");
        return (dir, 0);
    };
    assert!(registered, "parquet-flba's sink on the stock context");
    let mut fast_files = 0;
    for (path, plan) in ours.written_plans() {
        let fast: Vec<String> = plan
            .leaves()
            .iter()
            .filter(|l| l.path() == LeafPath::Fast)
            .map(|l| l.column_path().string())
            .collect();
        assert!(fast.contains(&"price".to_string()), "{path}: {fast:?}");
        assert!(fast.contains(&"id".to_string()), "{path}: {fast:?}");
        fast_files += 1;
    }
    (dir, fast_files)
}

/// 1,000 partitions on a runtime of 8 blocking threads, on parquet-flba's
/// threaded engine (2 threads per file): every file is written, the same
/// as DataFusion's.
#[test]
fn a_thousand_partitions_on_eight_blocking_threads() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(8)
        .enable_all()
        .build()
        .unwrap();
    let data = batches(4, 5_000);
    let written = runtime.block_on(async {
        tokio::time::timeout(LIMIT, async {
            let stock = context(false, 1, &data).unwrap();
            let (stock_dir, _) = copy(&stock, false).await;
            let ours = context(true, 1, &data).unwrap();
            ours.sql("SET parquet_flba.threads = 2")
                .await
                .unwrap()
                .collect()
                .await
                .unwrap();
            let (ours_dir, fast_files) = copy(&ours, true).await;
            (stock_dir, ours_dir, fast_files)
        })
        .await
    });
    let Ok((stock_dir, ours_dir, fast_files)) = written else {
        // Blocking threads that never return must not hold up the test.
        runtime.shutdown_background();
        panic!("the partitioned COPY did not finish within {LIMIT:?}");
    };
    assert_eq!(fast_files, PARTITIONS);
    let (a, b) = (files(&stock_dir), files(&ours_dir));
    assert_eq!(a.len(), PARTITIONS, "stock's files");
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "file names");
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs ({} vs {} bytes)", x.len(), y.len());
    }
}
