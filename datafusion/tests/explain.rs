//! What the sink shows: `EXPLAIN` lists the table's files as DataFusion's
//! sink does (at most five but in `EXPLAIN VERBOSE`) and says which leaves
//! take parquet-flba's fast path; the metrics count them; the sink keeps
//! the plan of every file it wrote.

mod common;

use std::sync::Arc;

use common::{batches, context, scratch};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::physical_plan::collect;
use datafusion::prelude::SessionContext;
use parquet_flba_datafusion::FlbaParquetSink;
use parquet_flba_datafusion::parquet_flba::LeafPath;

/// The leaves of the test table that parquet-flba writes: every leaf
/// (integers, strings, decimals, fixed-length), nested ones included.
const FAST: [&str; 12] = [
    "row",
    "id",
    "price",
    "amount",
    "big",
    "small",
    "half",
    "name",
    "region",
    "tags.list.item",
    "detail.code",
    "detail.rate",
];

/// The sink's line of `EXPLAIN [VERBOSE] sql`.
async fn sink_line(ctx: &SessionContext, sql: &str, verbose: bool) -> String {
    let explain = if verbose {
        "EXPLAIN VERBOSE"
    } else {
        "EXPLAIN"
    };
    let out = ctx
        .sql(&format!("{explain} {sql}"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let text = pretty_format_batches(&out).unwrap().to_string();
    let line = text
        .lines()
        .find(|l| l.contains("DataSinkExec"))
        .unwrap_or_else(|| panic!("no sink in {text}"));
    line.to_string()
}

/// The `file_groups=[...]` part of a sink line.
fn file_list(line: &str) -> &str {
    let start = line.find("file_groups=[").expect("a file group");
    let end = start + line[start..].find(']').unwrap();
    &line[start..=end]
}

/// A context whose `target` table (a listing table) holds 12 files.
async fn table_of_twelve_files(registered: bool, dir: &std::path::Path) -> SessionContext {
    let ctx = context(registered, 1, &batches(1, 50)).unwrap();
    let first = dir.join("f00.parquet");
    let copy = format!("COPY t TO '{}' STORED AS PARQUET", first.display());
    ctx.sql(&copy).await.unwrap().collect().await.unwrap();
    for n in 1..12 {
        std::fs::copy(&first, dir.join(format!("f{n:02}.parquet"))).unwrap();
    }
    let listing =
        ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    let url = ListingTableUrl::parse(format!("{}/", dir.display())).unwrap();
    ctx.register_listing_table("target", url, listing, Some(common::schema()), None)
        .await
        .unwrap();
    ctx
}

/// `EXPLAIN INSERT INTO` a table of 12 files lists five and `...`, exactly
/// as DataFusion's sink; `EXPLAIN VERBOSE` lists all 12, as there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_lists_files_as_datafusion_does() {
    let sql = "INSERT INTO target SELECT * FROM t";
    let mut lines = Vec::new();
    for registered in [false, true] {
        let dir = scratch("explain-files");
        let ctx = table_of_twelve_files(registered, &dir).await;
        let default = sink_line(&ctx, sql, false).await;
        let verbose = sink_line(&ctx, sql, true).await;
        let kind = if registered {
            "FlbaParquetSink"
        } else {
            "ParquetSink"
        };
        assert!(default.contains(kind), "{default}");
        assert_eq!(
            file_list(&default).matches(".parquet").count(),
            5,
            "{default}"
        );
        assert!(file_list(&default).ends_with(", ...]"), "{default}");
        assert_eq!(
            file_list(&verbose).matches(".parquet").count(),
            12,
            "{verbose}"
        );
        // Paths differ by directory only.
        let strip =
            |l: &str| file_list(l).replace(dir.to_str().unwrap().trim_start_matches('/'), "");
        lines.push((strip(&default), strip(&verbose)));
    }
    assert_eq!(lines[0], lines[1]);
}

/// The sink's line says how many leaves take the fast path and names the
/// others (with the reason in `EXPLAIN VERBOSE`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn explain_shows_the_leaves_on_the_fast_path() {
    let ctx = context(true, 1, &batches(1, 10)).unwrap();
    let dir = scratch("explain-leaves");
    // A Null column: the one kind of leaf parquet-flba leaves to parquet here.
    let sql = format!(
        "COPY (SELECT *, NULL AS note FROM t) TO '{}/x.parquet' STORED AS PARQUET",
        dir.display()
    );
    let line = sink_line(&ctx, &sql, false).await;
    assert!(
        line.contains("fast_path=12/13 leaves, parquet=[note]"),
        "{line}"
    );
    let verbose = sink_line(&ctx, &sql, true).await;
    assert!(verbose.contains("parquet=[note: "), "{verbose}");
}

/// After a partitioned `COPY` (three files), the metrics count 11 fast and
/// 1 `parquet` leaf (a Null column) per file and split the bytes written between them;
/// `written_plans` holds each file's plan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_and_plans_of_the_written_files() {
    let ctx = context(true, 1, &batches(3, 2_000)).unwrap();
    let dir = scratch("metrics");
    let sql = format!(
        "COPY (SELECT *, NULL AS note FROM t) TO '{}/' STORED AS PARQUET PARTITIONED BY (region)",
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
    let metrics = plan.metrics().unwrap();
    let sum = |name: &str| metrics.sum_by_name(name).map(|m| m.as_usize());
    assert_eq!(sum("fast_path_leaves"), Some(33));
    assert_eq!(sum("parquet_path_leaves"), Some(3));
    let (fast, other) = (
        sum("fast_path_bytes").unwrap(),
        sum("parquet_path_bytes").unwrap(),
    );
    assert!(fast > other && other > 0, "{fast} {other}");
    assert_eq!(Some(fast + other), sum("bytes_written"));

    let sink = plan
        .downcast_ref::<DataSinkExec>()
        .unwrap()
        .sink()
        .downcast_ref::<FlbaParquetSink>()
        .unwrap();
    let plans = sink.written_plans();
    assert_eq!(plans.len(), 3);
    for (path, plan) in plans {
        for leaf in plan.leaves() {
            let name = leaf.column_path().string();
            let fast = leaf.path() == LeafPath::Fast;
            assert_eq!(fast, FAST.contains(&name.as_str()), "{path}: {name}");
        }
    }
}
