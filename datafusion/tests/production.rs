//! Production-sized writes: over a million rows, several row groups,
//! dictionary fallback (the UUID and decimal columns outgrow the 1 MiB
//! dictionary page), through `COPY` to one file, `COPY ... PARTITIONED BY`
//! and `INSERT INTO`, on the parallel and the sequential path. Each is
//! compared byte for byte with DataFusion's own sink on the same
//! statement, and every written file's decimal and fixed-length leaves
//! are asserted to have taken parquet-flba's fast path.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::{batches, context, files, scratch};
use datafusion::arrow::array::RecordBatch;
use datafusion::config::TableParquetOptions;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::parquet::basic::Encoding;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
use datafusion::physical_plan::collect;
use datafusion::prelude::SessionContext;
use parquet_flba_datafusion::FlbaParquetSink;
use parquet_flba_datafusion::parquet_flba::LeafPath;

/// 1,048,576 rows in batches of 8,192.
fn data() -> Vec<RecordBatch> {
    batches(128, 8_192)
}

/// The leaves of the test table (all of them take the fast path).
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

/// Runs `sql` on `ctx`; for parquet-flba's sink, checks that every file it
/// wrote took the fast path for exactly the decimal and fixed-length
/// leaves. Returns the number of files written.
async fn run(ctx: &SessionContext, sql: &str, registered: bool) -> usize {
    let plan = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    collect(Arc::clone(&plan), ctx.task_ctx()).await.unwrap();
    let sink = plan.downcast_ref::<DataSinkExec>().unwrap().sink();
    let Some(ours) = sink.downcast_ref::<FlbaParquetSink>() else {
        assert!(!registered, "{sql}: not parquet-flba's sink");
        return 0;
    };
    assert!(registered);
    let plans = ours.written_plans();
    for (path, plan) in &plans {
        for leaf in plan.leaves() {
            let name = leaf.column_path().string();
            let fast = leaf.path() == LeafPath::Fast;
            assert_eq!(fast, FAST.contains(&name.as_str()), "{path}: {name}");
        }
    }
    plans.len()
}

/// The files under `a` and `b` are the same, byte for byte; returns how
/// many there are, and checks each has at least `row_groups` row groups
/// and a dictionary fallback (a PLAIN page after dictionary pages in the
/// `id` column).
fn assert_same(case: &str, a: &Path, b: &Path, row_groups: usize) -> usize {
    let (x, y) = (files(a), files(b));
    assert!(!x.is_empty(), "{case}: no files");
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&x), names(&y), "{case}: file names");
    for ((name, p), (_, q)) in x.iter().zip(&y) {
        assert!(
            p == q,
            "{case}: {name} differs ({} vs {} bytes)",
            p.len(),
            q.len()
        );
        let reader = SerializedFileReader::new(bytes::Bytes::from(p.clone())).unwrap();
        let meta = reader.metadata();
        assert!(
            meta.num_row_groups() >= row_groups,
            "{case}: {name}: {} row groups",
            meta.num_row_groups()
        );
        let id = meta
            .row_group(0)
            .columns()
            .iter()
            .find(|c| c.column_path().string() == "id")
            .unwrap();
        // The data pages' encodings (the reader keeps them as a mask).
        let plain = id
            .page_encoding_stats_mask()
            .is_some_and(|mask| mask.is_set(Encoding::PLAIN));
        assert!(plain, "{case}: {name}: no dictionary fallback in `id`");
    }
    x.len()
}

fn options(parallel: bool) -> String {
    format!("OPTIONS ('max_row_group_size' '262144', 'allow_single_file_parallelism' '{parallel}')")
}

/// `COPY` to one file: four row groups of 262,144 rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_a_million_rows_to_one_file() {
    let data = data();
    for parallel in [true, false] {
        let case = format!("parallel={parallel}");
        let mut dirs: Vec<PathBuf> = Vec::new();
        for registered in [false, true] {
            let dir = scratch("prod-copy");
            let ctx = context(registered, 1, &data).unwrap();
            let sql = format!(
                "COPY t TO '{}/x.parquet' STORED AS PARQUET {}",
                dir.display(),
                options(parallel)
            );
            let written = run(&ctx, &sql, registered).await;
            assert_eq!(written, usize::from(registered), "{case}");
            dirs.push(dir);
        }
        assert_same(&case, &dirs[0], &dirs[1], 4);
    }
}

/// `COPY ... PARTITIONED BY (region)`: three files of about 350,000 rows,
/// two row groups each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_a_million_rows_partitioned() {
    let data = data();
    for parallel in [true, false] {
        let case = format!("partitioned parallel={parallel}");
        let mut dirs: Vec<PathBuf> = Vec::new();
        for registered in [false, true] {
            let dir = scratch("prod-partitioned");
            let ctx = context(registered, 1, &data).unwrap();
            let sql = format!(
                "COPY t TO '{}/' STORED AS PARQUET PARTITIONED BY (region) {}",
                dir.display(),
                options(parallel)
            );
            let written = run(&ctx, &sql, registered).await;
            assert_eq!(written, if registered { 3 } else { 0 }, "{case}");
            dirs.push(dir);
        }
        assert_eq!(assert_same(&case, &dirs[0], &dirs[1], 2), 3, "{case}");
    }
}

/// `INSERT INTO` a listing table whose `ParquetFormat` was built directly
/// (the optimizer rule's case): DataFusion spreads the rows over four
/// files (`minimum_parallel_output_files`), 100,000-row row groups.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_a_million_rows() {
    let data = data();
    for parallel in [true, false] {
        let case = format!("insert parallel={parallel}");
        let mut dirs: Vec<PathBuf> = Vec::new();
        for registered in [false, true] {
            let dir = scratch("prod-insert");
            let ctx = context(registered, 1, &data).unwrap();
            let mut parquet = TableParquetOptions::default();
            parquet.global.max_row_group_size = 100_000;
            parquet.global.allow_single_file_parallelism = parallel;
            let listing =
                ListingOptions::new(Arc::new(ParquetFormat::default().with_options(parquet)))
                    .with_file_extension(".parquet");
            let url = ListingTableUrl::parse(format!("{}/", dir.display())).unwrap();
            ctx.register_listing_table("target", url, listing, Some(common::schema()), None)
                .await
                .unwrap();
            let written = run(&ctx, "INSERT INTO target SELECT * FROM t", registered).await;
            assert_eq!(written, if registered { 4 } else { 0 }, "{case}");
            dirs.push(dir);
        }
        assert_eq!(assert_same(&case, &dirs[0], &dirs[1], 2), 4, "{case}");
    }
}
