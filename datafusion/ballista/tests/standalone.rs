//! parquet-flba on an in-process Ballista cluster (scheduler and executor
//! talking gRPC over localhost, `SessionContext::standalone_with_state`):
//! each statement runs on a stock cluster and on one prepared by
//! `parquet_flba_ballista::prepare` (same shape), the files are compared
//! byte for byte, and the plan the executor ran is checked for the sink.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use ballista::prelude::SessionConfigExt;
use ballista::prelude::SessionContextExt;
use datafusion::arrow::array::{Decimal128Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::config::{ConfigField, TableParquetOptions};
use datafusion::execution::SessionStateBuilder;
use datafusion::parquet::basic::Compression;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
use datafusion::prelude::SessionConfig;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use std::sync::Arc;
use support::{
    Cluster, assert_sink, register, run, run_df, standalone_with, write_ipc, write_parquet,
};

/// A stock cluster and a parquet-flba one, both with table `t` over the
/// same Arrow IPC file (one partition).
struct Pair {
    stock: Cluster,
    flba: Cluster,
    input: PathBuf,
}

async fn pair(data: &[RecordBatch]) -> Pair {
    pair_with(data, support::config()).await
}

async fn pair_with(data: &[RecordBatch], config: SessionConfig) -> Pair {
    let input = common::scratch("input").join("t.arrow");
    write_ipc(&input, data);
    let pair = Pair {
        stock: standalone_with(false, config.clone()).await,
        flba: standalone_with(true, config).await,
        input,
    };
    register(&pair.stock.ctx, "t", &pair.input).await;
    register(&pair.flba.ctx, "t", &pair.input).await;
    pair
}

/// Runs `sql` (`{dir}` standing for a fresh output directory) on `cluster`,
/// checks the sink the executor ran and the rows it reported; returns the
/// directory.
async fn write(cluster: &Cluster, name: &str, sql: &str, rows: usize) -> PathBuf {
    let flba = cluster.decoded.is_some();
    let dir = common::scratch(&format!("{name}-{}", if flba { "flba" } else { "stock" }));
    let before = cluster.decoded.as_ref().map(|d| d.load(Ordering::SeqCst));
    let ran = run(&cluster.ctx, &sql.replace("{dir}", dir.to_str().unwrap()))
        .await
        .unwrap_or_else(|e| panic!("{name} (flba: {flba}): {e}"));
    assert_sink(&ran, flba, rows);
    if let (Some(decoded), Some(before)) = (&cluster.decoded, before) {
        assert!(
            decoded.load(Ordering::SeqCst) > before,
            "{name}: the codec decoded no FlbaParquetSink"
        );
    }
    dir
}

/// Runs `sql` on both clusters; returns (stock, flba) output directories.
async fn both(pair: &Pair, name: &str, sql: &str, rows: usize) -> (PathBuf, PathBuf) {
    let stock = write(&pair.stock, name, sql, rows).await;
    let flba = write(&pair.flba, name, sql, rows).await;
    (stock, flba)
}

/// The files under two directories are the same, byte for byte; returns
/// how many there are.
fn assert_same_files(name: &str, a: &Path, b: &Path) -> usize {
    let (fa, fb) = (common::files(a), common::files(b));
    let names = |f: &[(String, Vec<u8>)]| {
        f.iter()
            .map(|(n, bytes)| format!("{n} ({} bytes)", bytes.len()))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&fa), names(&fb), "{name}: file listings");
    for ((n, x), (_, y)) in fa.iter().zip(&fb) {
        assert!(x == y, "{name}: {n} differs");
    }
    assert!(!fa.is_empty(), "{name}: no files written");
    fa.len()
}

/// Reads `path` back with DataFusion (locally) and counts its rows.
async fn rows_read_back(path: &Path) -> usize {
    let ctx = SessionContext::new();
    let df = ctx
        .read_parquet(path.to_str().unwrap(), ParquetReadOptions::default())
        .await
        .unwrap();
    df.count().await.unwrap()
}

/// A local DataFusion context (no Ballista) with table `t` over the same
/// Arrow IPC file: the reference where stock Ballista loses a setting.
async fn local(input: &Path) -> SessionContext {
    let ctx = SessionContext::new_with_config(support::config());
    register(&ctx, "t", input).await;
    ctx
}

/// The compression codec of the first column chunk of a parquet file.
fn compression_of(file: &Path) -> Compression {
    let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
    reader.metadata().row_group(0).column(0).compression()
}

/// `COPY TO` one file, a directory, and partitioned directories.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_to_file_directory_partitioned() {
    let data = common::batches(4, 600);
    let pair = pair(&data).await;
    let cases = [
        (
            "file",
            "COPY (SELECT * FROM t) TO '{dir}/out.parquet' STORED AS PARQUET",
            "out.parquet",
            1,
        ),
        (
            "directory",
            "COPY (SELECT * FROM t) TO '{dir}/out/' STORED AS PARQUET",
            "out",
            4,
        ),
        (
            "partitioned",
            "COPY (SELECT * FROM t) TO '{dir}/' STORED AS PARQUET PARTITIONED BY (region)",
            "",
            3,
        ),
    ];
    for (name, sql, output, files) in cases {
        let (stock, flba) = both(&pair, name, sql, 2400).await;
        assert_eq!(assert_same_files(name, &stock, &flba), files, "{name}");
        assert_eq!(rows_read_back(&flba.join(output)).await, 2400, "{name}");
    }
}

/// With Ballista's adaptive planner off (its static planner runs the
/// session's physical optimizer rules), the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_planner() {
    let data = common::batches(3, 500);
    let config = support::config().with_ballista_adaptive_query_planner(false);
    let pair = pair_with(&data, config).await;
    let sql = "COPY (SELECT * FROM t) TO '{dir}/' STORED AS PARQUET PARTITIONED BY (region)";
    let (stock, flba) = both(&pair, "static", sql, 1500).await;
    assert_eq!(assert_same_files("static", &stock, &flba), 3);
}

/// Ballista 55 drops `COPY ... OPTIONS (...)` on the way to the scheduler
/// (DataFusion 55.2's protobuf `CopyToNode` has no field for them, and the
/// parquet format travels with default options), so a stock cluster writes
/// such a file with the default settings; so does parquet-flba's. Pinned
/// here: if it starts failing, Ballista carries the options, and the option
/// sets of `write_parquet_with_options` can move to `COPY`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_options_do_not_reach_the_cluster() {
    let data = common::batches(2, 500);
    let pair = pair(&data).await;
    let sql = "COPY (SELECT * FROM t) TO '{dir}/out.parquet' STORED AS PARQUET OPTIONS \
               ('compression' 'snappy', 'metadata::owner' 'team-a', \
               'encoding::price' 'delta_binary_packed')";
    let (stock, flba) = both(&pair, "copy-options", sql, 1000).await;
    assert_same_files("copy-options", &stock, &flba);
    let file = flba.join("out.parquet");
    // The default codec (a reader sees no level), not the one asked for.
    assert!(matches!(compression_of(&file), Compression::ZSTD(_)));
    let bytes = std::fs::read(&file).unwrap();
    assert!(!bytes.windows(6).any(|w| w == b"team-a"), "no metadata");
}

/// `DataFrame::write_parquet` with writer options (they travel in the
/// parquet format of the logical plan), for option sets that reach every
/// part of the writer: parallel and sequential paths, encodings, limits,
/// bloom filters, content-defined chunking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_parquet_with_options() {
    let data = common::batches(4, 700);
    let rows = 4 * 700;
    let pair = pair(&data).await;
    let sets: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("default", vec![]),
        (
            "sequential",
            vec![("allow_single_file_parallelism", "false")],
        ),
        (
            "v2_encodings",
            vec![
                ("writer_version", "2.0"),
                ("compression", "snappy"),
                ("dictionary_enabled", "false"),
                ("encoding::id", "delta_byte_array"),
                ("encoding::price", "byte_stream_split"),
            ],
        ),
        (
            "row_groups_bloom",
            vec![
                ("max_row_group_size", "1000"),
                ("bloom_filter_on_write", "true"),
                ("statistics_enabled::price", "chunk"),
                ("data_page_row_count_limit", "300"),
                ("compression::amount", "gzip(6)"),
            ],
        ),
        (
            "cdc",
            vec![
                ("content_defined_chunking.enabled", "true"),
                ("content_defined_chunking.min_chunk_size", "1024"),
                ("content_defined_chunking.max_chunk_size", "8192"),
            ],
        ),
    ];
    for (name, settings) in sets {
        let mut options = TableParquetOptions::default();
        for (k, v) in &settings {
            options.set(k, v).unwrap();
        }
        let mut dirs = Vec::new();
        for cluster in [&pair.stock, &pair.flba] {
            let flba = cluster.decoded.is_some();
            let dir = common::scratch(&format!("{name}-{flba}"));
            let path = format!("{}/out.parquet", dir.display());
            let df = write_parquet(&cluster.ctx, &path, options.clone())
                .await
                .unwrap();
            let ran = run_df(&cluster.ctx, df)
                .await
                .unwrap_or_else(|e| panic!("{name} (flba: {flba}): {e}"));
            assert_sink(&ran, flba, rows);
            dirs.push(dir);
        }
        assert_same_files(name, &dirs[0], &dirs[1]);
        let file = dirs[1].join("out.parquet");
        assert_eq!(rows_read_back(&file).await, rows);
        if name == "v2_encodings" {
            // The options reached the executor.
            assert_eq!(compression_of(&file), Compression::SNAPPY);
        }
    }
}

/// `INSERT INTO` listing tables created with `CREATE EXTERNAL TABLE ...
/// STORED AS PARQUET`: one whose schema is inferred from a file written
/// there first (every column of the test table), with table options,
/// inserted into twice; and one declared `WITH ORDER`, whose files carry
/// sorting columns. Those stock Ballista loses (its codec for DataFusion's
/// `ParquetSink` has no field for them), parquet-flba's codec carries them:
/// that file is compared with the one DataFusion writes without Ballista.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_into_listing_tables() {
    let data = common::batches(3, 400);
    let pair = pair(&data).await;
    let local = local(&pair.input).await;
    let mut dirs = Vec::new();
    for (ctx, flba) in [
        (&pair.stock.ctx, Some(false)),
        (&pair.flba.ctx, Some(true)),
        (&local, None),
    ] {
        let dir = common::scratch(&format!("insert-{flba:?}"));
        let (all, ordered) = (dir.join("all"), dir.join("ordered"));
        std::fs::create_dir_all(&ordered).unwrap();
        let seed = format!(
            "COPY (SELECT * FROM t) TO '{}/seed.parquet' STORED AS PARQUET",
            all.display()
        );
        let statements = [
            format!(
                "CREATE EXTERNAL TABLE t_all STORED AS PARQUET LOCATION '{}/' OPTIONS \
                 ('format.max_row_group_size' '100', 'format.writer_version' '2.0', \
                 'format.dictionary_enabled::id' 'false')",
                all.display()
            ),
            format!(
                "CREATE EXTERNAL TABLE t_ordered (row BIGINT NOT NULL, price DECIMAL(38, 10) NOT NULL, \
                 amount DECIMAL(20, 4), big DECIMAL(50, 5), small DECIMAL(9, 2), name VARCHAR) \
                 STORED AS PARQUET WITH ORDER (price DESC) LOCATION '{}/'",
                ordered.display()
            ),
        ];
        let inserts = [
            "INSERT INTO t_all SELECT * FROM t",
            "INSERT INTO t_all SELECT * FROM t",
            "INSERT INTO t_ordered SELECT row, price, amount, big, small, name FROM t",
        ];
        match flba {
            Some(flba) => {
                assert_sink(&run(ctx, &seed).await.unwrap(), flba, 1200);
                for sql in &statements {
                    ctx.sql(sql).await.unwrap().collect().await.unwrap();
                }
                for sql in inserts {
                    assert_sink(&run(ctx, sql).await.unwrap(), flba, 1200);
                }
            }
            None => {
                for sql in [&seed].into_iter().chain(&statements) {
                    ctx.sql(sql).await.unwrap().collect().await.unwrap();
                }
                for sql in inserts {
                    ctx.sql(sql).await.unwrap().collect().await.unwrap();
                }
            }
        }
        dirs.push(dir);
    }
    let (stock, flba, local) = (&dirs[0], &dirs[1], &dirs[2]);
    assert_eq!(
        assert_same_files("insert", &stock.join("all"), &flba.join("all")),
        7
    );
    assert_same_files("insert", &local.join("all"), &flba.join("all"));
    assert_eq!(rows_read_back(&flba.join("all")).await, 3600);
    // The table's options reached the executor.
    let inserted = std::fs::read_dir(flba.join("all"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| !p.ends_with("seed.parquet"))
        .unwrap();
    let reader = SerializedFileReader::new(std::fs::File::open(inserted).unwrap()).unwrap();
    assert!(reader.metadata().num_row_groups() > 1, "max_row_group_size");
    assert_eq!(
        assert_same_files("ordered", &local.join("ordered"), &flba.join("ordered")),
        1
    );
    let sorting = |dir: &Path| {
        let file = std::fs::read_dir(dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let reader = SerializedFileReader::new(std::fs::File::open(file).unwrap()).unwrap();
        reader
            .metadata()
            .row_group(0)
            .sorting_columns()
            .map(|s| s.len())
    };
    assert_eq!(sorting(&flba.join("ordered")), Some(1), "sorting columns");
    assert_eq!(
        sorting(&stock.join("ordered")),
        None,
        "stock Ballista now writes sorting columns: compare with it again"
    );
}

/// A failing write comes back to the client as an error naming the column,
/// and the cluster runs the next statement: a column setting parquet cannot
/// honour (DELTA_BINARY_PACKED for an FLBA column, in the table's options;
/// parquet 59's own encoder panics there, so the stock cluster is not
/// asked), and a decimal that does not fit its column (stock parquet would
/// write a truncated value).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_reach_the_client() {
    let data = common::batches(2, 300);
    let pair = pair(&data).await;
    let ctx = &pair.flba.ctx;
    let bad = common::scratch("unfit").join("bad.arrow");
    write_ipc(&bad, &[unfit_decimals()]);
    register(ctx, "bad", &bad).await;
    let out = common::scratch("errors");
    std::fs::create_dir_all(out.join("enc")).unwrap();
    let create = format!(
        "CREATE EXTERNAL TABLE bad_encoding (row BIGINT NOT NULL, price DECIMAL(38, 10) NOT NULL) \
         STORED AS PARQUET LOCATION '{}/enc/' OPTIONS ('format.encoding::price' 'delta_binary_packed')",
        out.display()
    );
    ctx.sql(&create).await.unwrap().collect().await.unwrap();
    let cases = [
        (
            "INSERT INTO bad_encoding SELECT row, price FROM t".to_string(),
            vec!["price"],
        ),
        (
            format!(
                "COPY bad TO '{}/y.parquet' STORED AS PARQUET",
                out.display()
            ),
            vec!["Column 'small', row 5", "does not fit"],
        ),
    ];
    for (sql, expected) in cases {
        let e = run(ctx, &sql)
            .await
            .err()
            .unwrap_or_else(|| panic!("{sql} should fail"));
        for text in expected {
            assert!(e.to_string().contains(text), "'{text}' in the error: {e}");
        }
        let sql = "COPY (SELECT * FROM t) TO '{dir}/after.parquet' STORED AS PARQUET";
        let (stock, flba) = both(&pair, "after-error", sql, 600).await;
        assert_same_files("after an error", &stock, &flba);
    }
}

/// A client session on which `parquet_flba_datafusion` wrapped the parquet
/// format cannot send a `COPY` or a parquet `ListingTable` to Ballista
/// (DataFusion's protobuf encoders know only DataFusion's own parquet
/// format, and Ballista's codec sends an unknown format as Arrow);
/// `prepare` puts DataFusion's format back, and the same session then
/// writes through parquet-flba on the cluster.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prepare_makes_a_registered_session_serializable() {
    let data = common::batches(1, 300);
    let input = common::scratch("serializable-input").join("t.arrow");
    write_ipc(&input, &data);
    let registered = || {
        let builder = SessionStateBuilder::new()
            .with_config(support::config())
            .with_default_features();
        parquet_flba_ballista::parquet_flba_datafusion::configure(builder).build()
    };
    let dir = common::scratch("serializable");
    let copy = format!(
        "COPY (SELECT * FROM t) TO '{}/out.parquet' STORED AS PARQUET",
        dir.display()
    );
    let insert = "INSERT INTO t_out SELECT * FROM t";
    let create = format!(
        "CREATE EXTERNAL TABLE t_out STORED AS PARQUET LOCATION '{}/'",
        dir.display()
    );

    let unprepared = SessionContext::standalone_with_state(registered())
        .await
        .unwrap();
    register(&unprepared, "t", &input).await;
    let e = run(&unprepared, &copy)
        .await
        .err()
        .expect("COPY should fail");
    // Ballista's logical codec sends the wrapped format as an Arrow format
    // (its Arrow entry accepts any factory); the scheduler's Arrow sink then
    // has no protobuf form.
    assert!(e.to_string().contains("Unsupported plan node"), "{e}");

    let prepared =
        SessionContext::standalone_with_state(parquet_flba_ballista::prepare(registered()))
            .await
            .unwrap();
    register(&prepared, "t", &input).await;
    assert_sink(&run(&prepared, &copy).await.unwrap(), true, 300);
    for ctx in [&unprepared, &prepared] {
        ctx.sql(&create).await.unwrap().collect().await.unwrap();
    }
    let e = run(&unprepared, insert)
        .await
        .err()
        .expect("INSERT should fail");
    assert!(e.to_string().contains("unknown file format"), "{e}");
    assert_sink(&run(&prepared, insert).await.unwrap(), true, 300);
}

/// An executor without the codec (stock Ballista's) under a parquet-flba
/// scheduler cannot decode the write: the job fails, and no file is written
/// with another sink.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_executor_without_the_codec_fails_the_job() {
    use ballista_core::serde::BallistaCodec;
    use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;

    let data = common::batches(1, 300);
    let input = common::scratch("stock-executor-input").join("t.arrow");
    write_ipc(&input, &data);
    let (state, _) = support::state(true);
    let address = ballista_scheduler::standalone::new_standalone_scheduler_from_state(&state)
        .await
        .unwrap();
    let url = format!("http://localhost:{}", address.port());
    let scheduler = loop {
        match SchedulerGrpcClient::connect(url.clone()).await {
            Ok(client) => break client,
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    };
    ballista_executor::new_standalone_executor(scheduler, 2, BallistaCodec::default())
        .await
        .unwrap();
    let client = SessionStateBuilder::new()
        .with_config(support::config())
        .with_default_features()
        .build();
    let ctx =
        SessionContext::remote_with_state(&format!("df://localhost:{}", address.port()), client)
            .await
            .unwrap();
    register(&ctx, "t", &input).await;
    let dir = common::scratch("stock-executor");
    let sql = format!(
        "COPY t TO '{}/out.parquet' STORED AS PARQUET",
        dir.display()
    );
    let e = run(&ctx, &sql).await.err().expect("the job should fail");
    assert!(e.to_string().contains("Could not deserialize"), "{e}");
    assert!(!dir.join("out.parquet").exists());
}

/// Ten rows of `Decimal128(9, 2)` (INT32 in parquet), the sixth too large
/// for 32 bits.
fn unfit_decimals() -> RecordBatch {
    let values = (0..10).map(|i| if i == 5 { 1i128 << 40 } else { i * 100 });
    let small = Decimal128Array::from_iter_values(values)
        .with_precision_and_scale(9, 2)
        .unwrap();
    let schema = Schema::new(vec![Field::new("small", DataType::Decimal128(9, 2), false)]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(small)]).unwrap()
}
