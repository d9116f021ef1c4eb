//! A write that fails ends within the row group where it failed, reports
//! the real error, and leaves no file behind: neither a new one nor an
//! empty or partial one over the file that was at the target. Inputs of
//! 200,000 rows, made as the query pulls them, on both the parallel and
//! the sequential path.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::lazy::{Fault, Lazy};
use common::{context, files, scratch};
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;

/// Rows per batch and batches: 200,000 rows.
const ROWS: usize = 4_000;
const BATCHES: usize = 50;
/// Rows per row group in these tests: ten batches.
const ROW_GROUP: usize = 40_000;
/// The row where the write fails: in the first batch of the fourth row
/// group, so that a row group that stops counting the rows it is given
/// once a column has failed (the bug this pins) would never be full.
const BAD_ROW: usize = 120_011;

/// A context (stock or parquet-flba) whose table `t` is `input`.
fn with_input(registered: bool, input: &Arc<Lazy>) -> SessionContext {
    let ctx = context(registered, 1, &[]).unwrap();
    ctx.deregister_table("t").unwrap();
    ctx.register_table("t", input.table()).unwrap();
    ctx
}

/// As [`with_input`] (parquet-flba's), its files encoded on `threads`
/// threads (`SET parquet_flba.threads`): on the parallel path, above 1,
/// parquet-flba's threaded engine instead of DataFusion's layout.
async fn with_threads(input: &Arc<Lazy>, threads: usize) -> SessionContext {
    let ctx = with_input(true, input);
    run(&ctx, &format!("SET parquet_flba.threads = {threads}"))
        .await
        .unwrap();
    ctx
}

/// The paths the tests run: (parallel, threads).
const PATHS: [(bool, usize); 3] = [(true, 1), (true, 3), (false, 1)];

async fn run(ctx: &SessionContext, sql: &str) -> Result<()> {
    ctx.sql(sql).await?.collect().await.map(|_| ())
}

fn options(parallel: bool) -> String {
    format!(
        "OPTIONS ('max_row_group_size' '{ROW_GROUP}', 'allow_single_file_parallelism' '{parallel}')"
    )
}

/// The error is the decimal's, naming its column and (unless the input was
/// split into partitions) its row in the batch, not a late
/// `ResourcesExhausted` or a closed channel.
fn assert_wide_decimal_error(e: &DataFusionError, case: &str, row: bool) {
    let text = e.to_string();
    assert!(
        !matches!(e.find_root(), DataFusionError::ResourcesExhausted(_)),
        "{case}: {text}"
    );
    assert!(
        text.contains("small"),
        "{case}: the column is named: {text}"
    );
    if row {
        let named = format!("row {}", BAD_ROW % ROWS);
        assert!(text.contains(&named), "{case}: {named} is named: {text}");
    }
}

/// Input rows that may be pulled past the failing one: the row group it
/// is in, and the batches queued on the way (demux channel, column
/// channels).
fn assert_ended_early(input: &Lazy, case: &str) {
    let limit = BAD_ROW + ROW_GROUP + 8 * ROWS;
    assert!(
        input.pulled() <= limit,
        "{case}: {} rows pulled after a failure at row {BAD_ROW} (at most {limit})",
        input.pulled()
    );
}

/// A column that fails (a decimal too wide for its INT32 column) ends the
/// write within its row group with its own error, and no file is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_column_ends_the_write_within_its_row_group() {
    for (parallel, threads) in PATHS {
        let case = format!("parallel={parallel} threads={threads}");
        let input = Lazy::new(BATCHES, ROWS, Fault::WideDecimal(BAD_ROW));
        let ctx = with_threads(&input, threads).await;
        let dir = scratch("column-fails");
        let sql = format!(
            "COPY t TO '{}/x.parquet' STORED AS PARQUET {}",
            dir.display(),
            options(parallel)
        );
        let e = run(&ctx, &sql).await.expect_err("the write must fail");
        assert_wide_decimal_error(&e, &case, true);
        assert_ended_early(&input, &case);
        assert!(
            files(&dir).is_empty(),
            "{case}: files left: {:?}",
            names(&dir)
        );
    }
}

/// An input that fails after 150,000 rows: DataFusion's own sink completes
/// the file with the rows it had (a valid, partial file); parquet-flba's
/// leaves none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_input_leaves_no_file() {
    for (parallel, threads) in PATHS {
        for registered in [false, true] {
            let case = format!("parallel={parallel} threads={threads} registered={registered}");
            let input = Lazy::new(BATCHES, ROWS, Fault::InputError(150_000));
            let ctx = if registered {
                with_threads(&input, threads).await
            } else {
                with_input(false, &input)
            };
            let dir = scratch("input-fails");
            let sql = format!(
                "COPY t TO '{}/x.parquet' STORED AS PARQUET {}",
                dir.display(),
                options(parallel)
            );
            let e = run(&ctx, &sql).await.expect_err("the write must fail");
            assert!(
                e.to_string().contains("the input failed at row 150000"),
                "{case}: {e}"
            );
            if registered {
                assert!(
                    files(&dir).is_empty(),
                    "{case}: files left: {:?}",
                    names(&dir)
                );
            } else {
                // What DataFusion does (not a requirement of this crate).
                assert_eq!(names(&dir), ["x.parquet"], "{case}");
            }
        }
    }
}

/// A failed `COPY` over an existing file leaves that file as it was, for
/// a failing column and a failing input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_copy_keeps_the_file_that_was_there() {
    for parallel in [true, false] {
        for fault in [Fault::WideDecimal(BAD_ROW), Fault::InputError(BAD_ROW)] {
            let case = format!("parallel={parallel} {fault:?}");
            let dir = scratch("keep");
            let target = dir.join("x.parquet");
            let sql = format!(
                "COPY t TO '{}' STORED AS PARQUET {}",
                target.display(),
                options(parallel)
            );
            let good = Lazy::new(5, ROWS, Fault::None);
            run(&with_input(true, &good), &sql).await.unwrap();
            let before = std::fs::read(&target).unwrap();

            let bad = Lazy::new(BATCHES, ROWS, fault);
            run(&with_input(true, &bad), &sql)
                .await
                .expect_err("the write must fail");
            let after = std::fs::read(&target).unwrap();
            assert!(before == after, "{case}: the file at the target changed");
            assert_eq!(names(&dir), ["x.parquet"], "{case}");
        }
    }
}

/// A partitioned `COPY` that fails leaves no partition's file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_partitioned_copy_leaves_no_file() {
    for parallel in [true, false] {
        for fault in [Fault::WideDecimal(BAD_ROW), Fault::InputError(BAD_ROW)] {
            let case = format!("parallel={parallel} {fault:?}");
            let input = Lazy::new(BATCHES, ROWS, fault);
            let ctx = with_input(true, &input);
            let dir = scratch("partitioned-fails");
            let sql = format!(
                "COPY t TO '{}/' STORED AS PARQUET PARTITIONED BY (region) {}",
                dir.display(),
                options(parallel)
            );
            let e = run(&ctx, &sql).await.expect_err("the write must fail");
            if fault == Fault::WideDecimal(BAD_ROW) {
                assert_wide_decimal_error(&e, &case, false);
            }
            assert!(
                files(&dir).is_empty(),
                "{case}: files left: {:?}",
                names(&dir)
            );
        }
    }
}

/// A failed `INSERT INTO` a listing table adds no file to it: the table
/// reads as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_insert_adds_no_file() {
    for parallel in [true, false] {
        for fault in [Fault::WideDecimal(BAD_ROW), Fault::InputError(BAD_ROW)] {
            let case = format!("parallel={parallel} {fault:?}");
            let dir = scratch("insert-fails");
            let mut parquet = datafusion::config::TableParquetOptions::default();
            parquet.global.allow_single_file_parallelism = parallel;
            parquet.global.max_row_group_size = ROW_GROUP;
            let listing =
                ListingOptions::new(Arc::new(ParquetFormat::default().with_options(parquet)))
                    .with_file_extension(".parquet");
            let url = ListingTableUrl::parse(format!("{}/", dir.display())).unwrap();
            let input = Lazy::new(BATCHES, ROWS, fault);
            let ctx = with_input(true, &input);
            ctx.register_listing_table("target", url, listing, Some(common::schema()), None)
                .await
                .unwrap();
            let good = Lazy::new(2, ROWS, Fault::None);
            ctx.register_table("good", good.table()).unwrap();
            run(&ctx, "INSERT INTO target SELECT * FROM good")
                .await
                .unwrap();
            let before = names(&dir);
            assert!(!before.is_empty(), "{case}");

            run(&ctx, "INSERT INTO target SELECT * FROM t")
                .await
                .expect_err("the insert must fail");
            assert_eq!(names(&dir), before, "{case}: files of the table");
            let count = ctx
                .sql("SELECT count(*) FROM target")
                .await
                .unwrap()
                .collect()
                .await
                .unwrap();
            let count = count[0]
                .column(0)
                .as_any()
                .downcast_ref::<datafusion::arrow::array::Int64Array>()
                .expect("count(*) is an Int64")
                .value(0);
            assert_eq!(count, (2 * ROWS) as i64, "{case}: rows of the table");
        }
    }
}

fn names(dir: &Path) -> Vec<String> {
    files(dir).into_iter().map(|(name, _)| name).collect()
}
