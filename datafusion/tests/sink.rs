//! DataFusion with parquet-flba writes the same files as DataFusion alone:
//! the same SQL / DataFrame calls run on a stock `SessionContext` and on a
//! registered one, and the files are compared byte for byte, then read back.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::spy::Spy;
use common::{assert_fast, batches, context, files, schema, scratch};
use datafusion::arrow::array::{Array, RecordBatch};
use datafusion::arrow::compute::{concat_batches, sort_to_indices, take_record_batch};
use datafusion::config::TableParquetOptions;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::datasource::file_format::parquet::{ParquetFormat, ParquetSink};
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::memory_pool::GreedyMemoryPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext, col};
use parquet_flba_datafusion::FlbaParquetSink;

/// Which sink a planned statement writes with.
#[derive(Debug, PartialEq)]
enum Sink {
    /// None: the statement writes nothing.
    None,
    Stock,
    Flba,
}

/// The sinks anywhere in `plan`.
fn sinks_of(plan: &Arc<dyn ExecutionPlan>, out: &mut Vec<Arc<dyn ExecutionPlan>>) {
    if plan.downcast_ref::<DataSinkExec>().is_some() {
        out.push(Arc::clone(plan));
    }
    for child in plan.children() {
        sinks_of(child, out);
    }
}

fn kind(exec: &Arc<dyn ExecutionPlan>) -> Sink {
    let sink = exec.downcast_ref::<DataSinkExec>().unwrap().sink();
    if sink.downcast_ref::<FlbaParquetSink>().is_some() {
        Sink::Flba
    } else if sink.downcast_ref::<ParquetSink>().is_some() {
        Sink::Stock
    } else {
        panic!("unexpected sink")
    }
}

/// Plans `sql` on `ctx`, checks the sink it writes with (anywhere in the
/// plan), runs it; a write with parquet-flba's sink must have written its
/// files with it (byte identity with DataFusion's cannot show that).
async fn run_sql(ctx: &SessionContext, sql: &str, expect: Sink) -> Result<Vec<RecordBatch>> {
    let df = ctx.sql(sql).await?;
    let plan = df.create_physical_plan().await?;
    let mut sinks = Vec::new();
    sinks_of(&plan, &mut sinks);
    match expect {
        Sink::None => assert!(sinks.is_empty(), "{sql}: a sink"),
        _ => {
            assert!(!sinks.is_empty(), "{sql}: no sink in the plan");
            for sink in &sinks {
                assert_eq!(kind(sink), expect, "{sql}");
            }
        }
    }
    let batches = collect(plan, ctx.task_ctx()).await?;
    if expect == Sink::Flba {
        for exec in &sinks {
            let sink = exec.downcast_ref::<DataSinkExec>().unwrap().sink();
            let ours = sink.downcast_ref::<FlbaParquetSink>().unwrap();
            assert!(
                !ours.written_plans().is_empty(),
                "{sql}: parquet-flba's sink wrote no file"
            );
        }
    }
    Ok(batches)
}

/// Runs `sql` (with `{dir}` standing for an output directory) on a stock
/// and on a registered context over `data`; returns the two directories.
async fn both(
    name: &str,
    sql: &str,
    data: &[datafusion::arrow::array::RecordBatch],
) -> (std::path::PathBuf, std::path::PathBuf) {
    both_on(name, sql, data, 1).await
}

/// As [`both`], parquet-flba's context with `SET parquet_flba.threads`.
async fn both_on(
    name: &str,
    sql: &str,
    data: &[datafusion::arrow::array::RecordBatch],
    threads: usize,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let stock_dir = scratch(&format!("{name}-stock"));
    let ours_dir = scratch(&format!("{name}-flba"));
    let stock = context(false, 1, data).unwrap();
    let ours = context(true, 1, data).unwrap();
    ours.sql(&format!("SET parquet_flba.threads = {threads}"))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    run_sql(
        &stock,
        &sql.replace("{dir}", stock_dir.to_str().unwrap()),
        Sink::Stock,
    )
    .await
    .unwrap_or_else(|e| panic!("{name}: stock: {e}"));
    run_sql(
        &ours,
        &sql.replace("{dir}", ours_dir.to_str().unwrap()),
        Sink::Flba,
    )
    .await
    .unwrap_or_else(|e| panic!("{name}: ours: {e}"));
    (stock_dir, ours_dir)
}

/// The files under the two directories are the same, byte for byte, and
/// there are some.
fn assert_same_files(name: &str, stock: &Path, ours: &Path) -> usize {
    let (a, b) = (files(stock), files(ours));
    assert!(!a.is_empty(), "{name}: no files written");
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "{name}: file names");
    for ((n, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{name}: {n} differs ({} vs {} bytes)",
            x.len(),
            y.len()
        );
    }
    a.len()
}

/// Reads `path` back with DataFusion (stock reader) and checks it holds
/// `data`'s rows (sorted by `row`, partition columns left out of files
/// compared on the columns written).
async fn assert_reads_back(path: &Path, data: &[RecordBatch]) {
    let ctx = SessionContext::new();
    let df = ctx
        .read_parquet(path.to_str().unwrap(), ParquetReadOptions::default())
        .await
        .unwrap();
    let got = df
        .sort(vec![col("row").sort(true, false)])
        .unwrap()
        .collect()
        .await
        .unwrap();
    let got = concat_batches(&got[0].schema(), &got).unwrap();
    let want = concat_batches(&schema(), data).unwrap();
    let order = sort_to_indices(want.column(0), None, None).unwrap();
    let want = take_record_batch(&want, &order).unwrap();
    assert_eq!(got.num_rows(), want.num_rows(), "{path:?}: rows");
    for field in want.schema().fields() {
        let Some((i, _)) = got.schema().column_with_name(field.name()) else {
            assert_eq!(
                field.name(),
                "region",
                "{path:?}: column {} missing",
                field.name()
            );
            continue;
        };
        let (g, w) = (got.column(i), want.column_by_name(field.name()).unwrap());
        if g.data_type() == w.data_type() {
            assert_eq!(
                g.to_data(),
                w.to_data(),
                "{path:?}: column {}",
                field.name()
            );
        } else {
            // Partition columns come back dictionary-encoded.
            let g = datafusion::arrow::compute::cast(g, w.data_type()).unwrap();
            assert_eq!(
                g.to_data(),
                w.to_data(),
                "{path:?}: column {}",
                field.name()
            );
        }
    }
}

/// Option sets of `COPY ... OPTIONS (...)`: each a list of key/value pairs.
fn option_sets() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        ("default", vec![]),
        ("zstd", vec![("compression", "zstd(3)")]),
        (
            "snappy_gzip_columns",
            vec![("compression", "snappy"), ("compression::price", "gzip(6)")],
        ),
        (
            "lz4_brotli",
            vec![("compression", "lz4_raw"), ("compression::id", "brotli(2)")],
        ),
        ("no_dictionary", vec![("dictionary_enabled", "false")]),
        (
            "dictionary_off_for_id",
            vec![("dictionary_enabled::id", "false")],
        ),
        ("statistics_none", vec![("statistics_enabled", "none")]),
        (
            "statistics_chunk",
            vec![
                ("statistics_enabled", "chunk"),
                ("statistics_enabled::price", "page"),
            ],
        ),
        ("bloom_filters", vec![("bloom_filter_on_write", "true")]),
        (
            "bloom_filter_columns",
            vec![
                ("bloom_filter_enabled::id", "true"),
                ("bloom_filter_fpp::id", "0.01"),
                ("bloom_filter_ndv::id", "500"),
            ],
        ),
        ("writer_v2", vec![("writer_version", "2.0")]),
        (
            "writer_v2_encodings",
            vec![
                ("writer_version", "2.0"),
                ("dictionary_enabled", "false"),
                ("encoding::id", "delta_byte_array"),
                ("encoding::price", "byte_stream_split"),
            ],
        ),
        (
            "small_pages",
            vec![
                ("data_pagesize_limit", "512"),
                ("data_page_row_count_limit", "100"),
                ("write_batch_size", "64"),
            ],
        ),
        ("small_row_groups", vec![("max_row_group_size", "1000")]),
        // The sequential writer cuts by bytes too; the parallel path not.
        (
            "row_group_bytes",
            vec![
                ("max_row_group_size", "1500"),
                ("max_row_group_bytes", "20000"),
            ],
        ),
        (
            "dictionary_page_limit",
            vec![("dictionary_page_size_limit", "256")],
        ),
        (
            "no_page_index",
            vec![
                ("column_index_truncate_length", "8"),
                ("statistics_truncate_length", "6"),
            ],
        ),
        // One key: DataFusion keeps them in a HashMap, so with several the
        // order in the footer changes from run to run (stock runs differ too).
        (
            "metadata",
            vec![("metadata::owner", "team-a"), ("created_by", "someone")],
        ),
        ("skip_arrow_metadata", vec![("skip_arrow_metadata", "true")]),
        (
            "cdc",
            vec![
                ("format.content_defined_chunking.enabled", "true"),
                ("format.content_defined_chunking.min_chunk_size", "1024"),
                ("format.content_defined_chunking.max_chunk_size", "8192"),
            ],
        ),
        (
            "row_groups_in_flight",
            vec![
                ("max_row_group_size", "700"),
                ("maximum_parallel_row_group_writers", "3"),
                ("maximum_buffered_record_batches_per_stream", "1"),
            ],
        ),
    ]
}

fn options_sql(options: &[(&str, &str)], parallel: bool) -> String {
    let mut all: Vec<String> = options
        .iter()
        .map(|(k, v)| format!("'{k}' '{v}'"))
        .collect();
    all.push(format!("'allow_single_file_parallelism' '{parallel}'"));
    format!("OPTIONS ({})", all.join(", "))
}

/// `COPY TO` one file, for every option set, parallel (DataFusion's
/// layout, and parquet-flba's threaded engine with `parquet_flba.threads`
/// 2) and sequential.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_to_single_file_for_every_option_set() {
    let data = batches(5, 700);
    for (name, options) in option_sets() {
        for (parallel, threads) in [(true, 1), (true, 2), (false, 1)] {
            let case = format!(
                "{name}-{}-{threads}",
                if parallel { "parallel" } else { "sequential" }
            );
            let sql = format!(
                "COPY (SELECT * FROM t) TO '{{dir}}/out.parquet' STORED AS PARQUET {}",
                options_sql(&options, parallel)
            );
            let (stock, ours) = both_on(&case, &sql, &data, threads).await;
            assert_same_files(&case, &stock, &ours);
            assert_reads_back(&ours.join("out.parquet"), &data).await;
        }
    }
}

/// `COPY TO ... PARTITIONED BY`: one directory per region, same files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_to_partitioned() {
    let data = batches(4, 600);
    for (name, options) in [
        ("default", vec![]),
        (
            "zstd_small_groups",
            vec![("compression", "zstd(1)"), ("max_row_group_size", "300")],
        ),
    ] {
        for (parallel, threads) in [(true, 1), (true, 3), (false, 1)] {
            let case = format!("partitioned-{name}-{parallel}-{threads}");
            let sql = format!(
                "COPY (SELECT * FROM t) TO '{{dir}}/' STORED AS PARQUET PARTITIONED BY (region) {}",
                options_sql(&options, parallel)
            );
            let (stock, ours) = both_on(&case, &sql, &data, threads).await;
            assert_eq!(
                assert_same_files(&case, &stock, &ours),
                3,
                "{case}: one file per region"
            );
            assert_reads_back(&ours, &data).await;
        }
    }
}

/// `COPY TO` a directory (DataFusion names the file).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_to_directory() {
    let data = batches(3, 500);
    let (stock, ours) = both(
        "directory",
        "COPY (SELECT * FROM t) TO '{dir}/out/' STORED AS PARQUET",
        &data,
    )
    .await;
    assert_same_files("directory", &stock, &ours);
    assert_reads_back(&ours.join("out"), &data).await;
}

/// `INSERT INTO` a parquet table registered with a `ParquetFormat` built
/// directly (not looked up by extension: the optimizer rule's case), and
/// into one created by `CREATE EXTERNAL TABLE ... WITH ORDER` (sorting
/// columns in the files) with values cast to the table's types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_into_parquet_tables() {
    let data = batches(3, 400);
    let mut dirs = Vec::new();
    for registered in [false, true] {
        let dir = scratch(&format!("insert-{registered}"));
        let ctx = context(registered, 1, &data).unwrap();
        let expect = if registered { Sink::Flba } else { Sink::Stock };
        let listing = ListingOptions::new(Arc::new(
            ParquetFormat::default().with_options(TableParquetOptions::default()),
        ))
        .with_file_extension(".parquet");
        let url = ListingTableUrl::parse(format!("{}/listing/", dir.to_str().unwrap())).unwrap();
        std::fs::create_dir_all(dir.join("listing")).unwrap();
        ctx.register_listing_table("listing", url, listing, Some(schema()), None)
            .await
            .unwrap();
        run_sql(&ctx, "INSERT INTO listing SELECT * FROM t", expect)
            .await
            .unwrap();
        let ext = dir.join("external");
        std::fs::create_dir_all(&ext).unwrap();
        run_sql(
            &ctx,
            &format!(
                "CREATE EXTERNAL TABLE ext (row BIGINT NOT NULL, price DECIMAL(38, 10) NOT NULL, \
                 small DECIMAL(30, 6), name VARCHAR) STORED AS PARQUET WITH ORDER (price DESC) \
                 LOCATION '{}/'",
                ext.to_str().unwrap()
            ),
            Sink::None,
        )
        .await
        .unwrap();
        let expect = if registered { Sink::Flba } else { Sink::Stock };
        run_sql(
            &ctx,
            "INSERT INTO ext SELECT row, price, small, name FROM t",
            expect,
        )
        .await
        .unwrap();
        dirs.push(dir);
    }
    assert_same_files("insert", &dirs[0], &dirs[1]);
    assert_reads_back(&dirs[1].join("listing"), &data).await;
    // The ordered table's file carries its sorting column.
    use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
    let file = std::fs::read_dir(dirs[1].join("external"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
    let sorting = reader.metadata().row_group(0).sorting_columns().cloned();
    assert_eq!(
        sorting.map(|s| s.len()),
        Some(1),
        "sorting columns of the ordered table"
    );
}

/// `DataFrame::write_parquet` (which names DataFusion's format factory
/// directly), with and without writer options, sorted and partitioned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dataframe_write_parquet() {
    let data = batches(3, 500);
    let mut zstd = TableParquetOptions::default();
    zstd.global.compression = Some("zstd(2)".into());
    zstd.global.bloom_filter_on_write = true;
    let options = |name: &str| match name {
        "sorted" => DataFrameWriteOptions::new()
            .with_single_file_output(true)
            .with_sort_by(vec![col("price").sort(true, true)]),
        "partitioned" => DataFrameWriteOptions::new().with_partition_by(vec!["region".into()]),
        _ => DataFrameWriteOptions::new().with_single_file_output(true),
    };
    let cases = [
        ("plain", None),
        ("options", Some(zstd)),
        ("sorted", None),
        ("partitioned", None),
    ];
    for (name, writer_options) in cases {
        let mut dirs = Vec::new();
        for registered in [false, true] {
            let dir = scratch(&format!("df-{name}-{registered}"));
            let ctx = context(registered, 1, &data).unwrap();
            let spy = Spy::install(&ctx);
            let target = if name == "partitioned" {
                format!("{}/", dir.to_str().unwrap())
            } else {
                format!("{}/out.parquet", dir.to_str().unwrap())
            };
            ctx.table("t")
                .await
                .unwrap()
                .write_parquet(&target, options(name), writer_options.clone())
                .await
                .unwrap();
            if registered {
                assert_eq!(spy.sinks(), (0, 1), "{name}: (stock, ours) sinks");
                let files = assert_fast(name, spy.written().values());
                assert_eq!(files, if name == "partitioned" { 3 } else { 1 }, "{name}");
            } else {
                assert_eq!(spy.sinks(), (1, 0), "{name}: (stock, ours) sinks");
            }
            dirs.push(dir);
        }
        assert_same_files(name, &dirs[0], &dirs[1]);
        assert_reads_back(&dirs[1], &data).await;
    }
}

/// With several target partitions the input is repartitioned (row order
/// changes from run to run, so files are not compared): the registered
/// context still writes every row, single file and partitioned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_target_partitions_read_back() {
    let data = batches(6, 400);
    for (sql, file) in [
        (
            "COPY (SELECT * FROM t) TO '{dir}/out.parquet' STORED AS PARQUET",
            Some("out.parquet"),
        ),
        (
            "COPY (SELECT * FROM t) TO '{dir}/' STORED AS PARQUET PARTITIONED BY (region)",
            None,
        ),
        (
            "COPY (SELECT * FROM t) TO '{dir}/' STORED AS PARQUET OPTIONS ('allow_single_file_parallelism' 'false')",
            None,
        ),
    ] {
        let dir = scratch("many-partitions");
        let ctx = context(true, 4, &data).unwrap();
        // Spread the table over 4 partitions.
        let table = datafusion::datasource::MemTable::try_new(
            schema(),
            data.chunks(2).map(|c| c.to_vec()).collect(),
        )
        .unwrap();
        ctx.deregister_table("t").unwrap();
        ctx.register_table("t", Arc::new(table)).unwrap();
        run_sql(
            &ctx,
            &sql.replace("{dir}", dir.to_str().unwrap()),
            Sink::Flba,
        )
        .await
        .unwrap();
        let path = file.map_or(dir.clone(), |f| dir.join(f));
        assert_reads_back(&path, &data).await;
    }
}

/// `register` twice changes nothing more; `configure` on a builder works
/// like `register`; the sink shows in `EXPLAIN`; metrics count rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_configure_and_explain() {
    let data = batches(2, 300);
    let ctx = context(true, 1, &data).unwrap();
    parquet_flba_datafusion::register(&ctx).unwrap();
    let rules = ctx
        .state()
        .physical_optimizers()
        .iter()
        .filter(|r| r.name() == "parquet_flba_sink")
        .count();
    assert_eq!(rules, 1);
    let dir = scratch("explain");
    let explain = ctx
        .sql(&format!(
            "EXPLAIN COPY t TO '{}/x.parquet' STORED AS PARQUET",
            dir.to_str().unwrap()
        ))
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&explain)
        .unwrap()
        .to_string();
    assert!(text.contains("FlbaParquetSink"), "{text}");

    let state = parquet_flba_datafusion::configure(
        SessionStateBuilder::new()
            .with_config(SessionConfig::new().with_target_partitions(1))
            .with_default_features(),
    )
    .build();
    let built = SessionContext::new_with_state(state);
    built
        .register_table(
            "t",
            Arc::new(
                datafusion::datasource::MemTable::try_new(schema(), vec![data.clone()]).unwrap(),
            ),
        )
        .unwrap();
    let out = scratch("configure");
    let sql = format!(
        "COPY t TO '{}/x.parquet' STORED AS PARQUET",
        out.to_str().unwrap()
    );
    let df = built.sql(&sql).await.unwrap();
    let plan = df.create_physical_plan().await.unwrap();
    assert_eq!(kind(&plan), Sink::Flba);
    let counts = collect(Arc::clone(&plan), built.task_ctx()).await.unwrap();
    let written = counts[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::UInt64Array>()
        .unwrap()
        .value(0);
    assert_eq!(written, 600);
    let metrics = plan.metrics().unwrap();
    assert_eq!(
        metrics.sum_by_name("rows_written").map(|m| m.as_usize()),
        Some(600)
    );
    assert_reads_back(&out.join("x.parquet"), &data).await;
}

/// The memory pool sees the writers: a pool too small for the write makes
/// it fail with `ResourcesExhausted` on both paths (as DataFusion's sink
/// does), and a large enough pool changes nothing in the files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_pool_accounting() {
    let data = batches(4, 2000);
    for parallel in [true, false] {
        let mut results = Vec::new();
        for (registered, pool) in [
            (false, 64 << 10),
            (true, 64 << 10),
            (false, 512 << 20),
            (true, 512 << 20),
        ] {
            let runtime = RuntimeEnvBuilder::new()
                .with_memory_pool(Arc::new(GreedyMemoryPool::new(pool)))
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
            ctx.register_table(
                "t",
                Arc::new(
                    datafusion::datasource::MemTable::try_new(schema(), vec![data.clone()])
                        .unwrap(),
                ),
            )
            .unwrap();
            let dir = scratch("memory");
            let sql = format!(
                "COPY t TO '{}/x.parquet' STORED AS PARQUET OPTIONS ('allow_single_file_parallelism' '{parallel}')",
                dir.to_str().unwrap()
            );
            // Planned with the sink expected, and (if it succeeds) the file
            // written by it.
            let expect = if registered { Sink::Flba } else { Sink::Stock };
            let result = run_sql(&ctx, &sql, expect).await;
            results.push((registered, pool, result.map(|_| dir)));
        }
        for (registered, pool, result) in &results[..2] {
            match result {
                Err(e) => assert!(
                    matches!(e.find_root(), DataFusionError::ResourcesExhausted(_)),
                    "parallel={parallel} registered={registered} pool={pool}: {e}"
                ),
                Ok(_) => panic!(
                    "parallel={parallel} registered={registered}: a {pool}-byte pool should refuse the write"
                ),
            }
        }
        let stock = results[2].2.as_ref().unwrap();
        let ours = results[3].2.as_ref().unwrap();
        assert_same_files(&format!("memory-{parallel}"), stock, ours);
    }
}

/// Errors reach the caller as errors: a column setting parquet cannot
/// honour (DELTA_BINARY_PACKED for an FLBA column — parquet 59.2's own
/// encoder panics there, taking DataFusion's sink with it, so only the
/// registered context is run), and a failing input stream (both contexts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_propagate() {
    let data = batches(2, 300);
    for parallel in [true, false] {
        let cases = [
            (
                format!(
                    "COPY t TO '{{dir}}/x.parquet' STORED AS PARQUET OPTIONS \
                     ('encoding::price' 'delta_binary_packed', 'allow_single_file_parallelism' '{parallel}')"
                ),
                vec![true],
            ),
            (
                format!(
                    "COPY (SELECT row, id, CAST(CASE WHEN row > 400 THEN 'x' ELSE '1' END AS INT) AS bad \
                     FROM t) TO '{{dir}}/x.parquet' STORED AS PARQUET OPTIONS \
                     ('allow_single_file_parallelism' '{parallel}')"
                ),
                vec![false, true],
            ),
        ];
        for (sql, contexts) in cases {
            for registered in contexts {
                let dir = scratch("errors");
                let ctx = context(registered, 1, &data).unwrap();
                let result = match ctx.sql(&sql.replace("{dir}", dir.to_str().unwrap())).await {
                    Ok(df) => df.collect().await.map(|_| ()),
                    Err(e) => Err(e),
                };
                let e = result.expect_err(&format!("registered={registered}: {sql} should fail"));
                if registered && sql.contains("delta_binary_packed") {
                    assert!(
                        e.to_string().contains("price"),
                        "the error names the column: {e}"
                    );
                }
            }
        }
    }
}

/// The decimal and fixed-length leaves of the test table (decimals of every
/// precision, INT32 and INT64 ones too) take parquet-flba's fast path (what
/// makes the registered context faster); the others are parquet's.
#[test]
fn flba_leaves_are_on_the_fast_path() {
    let writer =
        parquet_flba_datafusion::parquet_flba::ArrowWriter::try_new(Vec::new(), schema(), None)
            .unwrap();
    let plan = writer.column_plan();
    let text = plan.to_string();
    for leaf in plan.leaves() {
        let path = leaf.column_path().string();
        let flba = [
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
        ]
        .contains(&path.as_str());
        let fast = leaf.path() == parquet_flba_datafusion::parquet_flba::LeafPath::Fast;
        assert_eq!(fast, flba, "{path}\n{text}");
    }
}

/// Any object store: `COPY TO` an in-memory store gives the same bytes as
/// the stock sink, on both paths.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn object_store_output() {
    use datafusion::execution::object_store::ObjectStoreUrl;
    use datafusion::object_store::memory::InMemory;
    use datafusion::object_store::path::Path as StorePath;
    use datafusion::object_store::{ObjectStore, ObjectStoreExt};
    let data = batches(3, 500);
    for parallel in [true, false] {
        let mut written = Vec::new();
        for registered in [false, true] {
            let ctx = context(registered, 1, &data).unwrap();
            let store = Arc::new(InMemory::new());
            let url = ObjectStoreUrl::parse("memory://").unwrap();
            ctx.runtime_env()
                .register_object_store(url.as_ref(), Arc::clone(&store) as Arc<dyn ObjectStore>);
            let sql = format!(
                "COPY t TO 'memory:///out/x.parquet' STORED AS PARQUET \
                 OPTIONS ('allow_single_file_parallelism' '{parallel}')"
            );
            run_sql(
                &ctx,
                &sql,
                if registered { Sink::Flba } else { Sink::Stock },
            )
            .await
            .unwrap();
            let bytes = store
                .get(&StorePath::from("out/x.parquet"))
                .await
                .unwrap()
                .bytes()
                .await
                .unwrap();
            written.push(bytes);
        }
        assert!(
            written[0] == written[1],
            "parallel={parallel}: the stored files differ"
        );
    }
}

/// Cancellation: dropping a running write (here by a timeout) stops its
/// tasks without a panic, and the same context writes normally afterwards.
///
/// The second write goes to a file of its own: a cancelled upload to a
/// local store can still finish its last step (object_store renames the
/// staged file in a blocking task that a cancel does not stop), so a second
/// write to the *same* path could be replaced under the read-back — with
/// the stock sink as well. That is object_store's behaviour, not the
/// sink's, and this test is about the sink.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_write_leaves_the_context_usable() {
    let data = batches(40, 2000);
    let small = batches(2, 100);
    for parallel in [true, false] {
        let ctx = context(true, 1, &data).unwrap();
        let table = datafusion::datasource::MemTable::try_new(schema(), vec![small.clone()]);
        ctx.register_table("small", Arc::new(table.unwrap()))
            .unwrap();
        let dir = scratch("cancel");
        let copy = |table: &str, file: &str| {
            format!(
                "COPY {table} TO '{}/{file}' STORED AS PARQUET OPTIONS ('allow_single_file_parallelism' '{parallel}')",
                dir.to_str().unwrap()
            )
        };
        let df = ctx.sql(&copy("t", "x.parquet")).await.unwrap();
        let outcome =
            tokio::time::timeout(std::time::Duration::from_millis(20), df.collect()).await;
        // Usually cancelled; if the machine was fast enough it finished.
        if let Ok(done) = outcome {
            done.unwrap();
        }
        run_sql(&ctx, &copy("small", "y.parquet"), Sink::Flba)
            .await
            .unwrap();
        assert_reads_back(&dir.join("y.parquet"), &small).await;
    }
}
