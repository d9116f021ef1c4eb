//! `parquet_flba.*` settings (`SET parquet_flba.enabled`, `threads`), what
//! `register` keeps of the session, and `plan_to_parquet` (what
//! `SessionContext::write_parquet(plan, ...)` does, through parquet-flba).

mod common;

use std::sync::Arc;

use common::{assert_fast, batches, context, files, schema, scratch};
use datafusion::datasource::MemTable;
use datafusion::datasource::file_format::parquet::{ParquetFormat, ParquetSink};
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::physical_plan::ExecutionPlanProperties;
use datafusion::prelude::SessionContext;
use parquet_flba_datafusion::{FlbaOptions, FlbaParquetSink};

/// The sink of a planned write: Some(threads) for parquet-flba's, None for
/// DataFusion's.
async fn sink_of(ctx: &SessionContext, sql: &str) -> Option<usize> {
    let plan = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let exec = plan.downcast_ref::<DataSinkExec>().expect("a sink plan");
    if let Some(ours) = exec.sink().downcast_ref::<FlbaParquetSink>() {
        Some(ours.threads())
    } else {
        assert!(exec.sink().downcast_ref::<ParquetSink>().is_some());
        None
    }
}

async fn set(ctx: &SessionContext, sql: &str) {
    ctx.sql(sql).await.unwrap().collect().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_keeps_the_session_id_and_settings() {
    let ctx = context(false, 1, &[]).unwrap();
    set(&ctx, "SET datafusion.execution.batch_size = 1234").await;
    let id = ctx.session_id();
    assert_eq!(ctx.state().session_id(), id);
    parquet_flba_datafusion::register(&ctx).unwrap();
    // The context's own copy, its state's (which main lost) and the tasks'.
    assert_eq!(ctx.session_id(), id);
    assert_eq!(ctx.state().session_id(), id);
    assert_eq!(ctx.task_ctx().session_id(), id);
    let options = ctx.copied_config().options().clone();
    assert_eq!(options.execution.batch_size.to_string(), "1234");
    assert!(FlbaOptions::from_config(&options).enabled);
    // The table registered before is still there.
    ctx.table("t").await.unwrap();
}

/// `SET parquet_flba.enabled = false` gives the statements planned
/// afterwards DataFusion's own sink: `COPY` (the format), `INSERT INTO` a
/// table whose `ParquetFormat` was built directly (the optimizer rule) and
/// `INSERT INTO` an external table (the format); `SET ... = true` brings
/// parquet-flba back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_enabled_switches_between_the_sinks() {
    let dir = scratch("switch");
    let ctx = context(true, 1, &batches(1, 10)).unwrap();
    let listing =
        ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    let url = ListingTableUrl::parse(format!("{}/listing/", dir.display())).unwrap();
    ctx.register_listing_table("listing", url, listing, Some(schema()), None)
        .await
        .unwrap();
    set(
        &ctx,
        &format!(
            "CREATE EXTERNAL TABLE ext (row BIGINT NOT NULL, price DECIMAL(38, 10) NOT NULL) \
             STORED AS PARQUET LOCATION '{}/ext/'",
            dir.display()
        ),
    )
    .await;
    let statements = [
        format!("COPY t TO '{}/x.parquet' STORED AS PARQUET", dir.display()),
        "INSERT INTO listing SELECT * FROM t".to_string(),
        "INSERT INTO ext SELECT row, price FROM t".to_string(),
    ];
    for (setting, expect) in [
        (None, Some(0)),
        (Some("false"), None),
        (Some("true"), Some(0)),
    ] {
        if let Some(value) = setting {
            set(&ctx, &format!("SET parquet_flba.enabled = {value}")).await;
            let options = FlbaOptions::from_config(ctx.copied_config().options());
            assert_eq!(options.enabled.to_string(), value);
        }
        for sql in &statements {
            assert_eq!(
                sink_of(&ctx, sql).await,
                expect,
                "enabled={setting:?}: {sql}"
            );
        }
    }
}

/// `SET parquet_flba.threads = 3`: the sinks planned afterwards encode
/// each file on 3 threads (shown in `EXPLAIN`): a sequentially written
/// file's writer, and on the parallel path parquet-flba's threaded engine;
/// the file is DataFusion's, byte for byte, on both paths.
/// `SET parquet_flba.send_encryption_keys` reaches the sink planned
/// afterwards (off by default), for Ballista's codec to read; a setting of
/// more threads than [`FlbaParquetSink::MAX_THREADS`] is taken as that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_encryption_keys_and_threads_reach_the_sink() {
    let ctx = context(true, 1, &batches(1, 10)).unwrap();
    let dir = scratch("keys-setting");
    let sql = format!("COPY t TO '{}/x.parquet' STORED AS PARQUET", dir.display());
    let planned = |ctx: SessionContext, sql: String| async move {
        let plan = ctx
            .sql(&sql)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        let exec = plan.downcast_ref::<DataSinkExec>().expect("a sink plan");
        let ours = exec.sink().downcast_ref::<FlbaParquetSink>().unwrap();
        (ours.encryption_keys_sent(), ours.threads())
    };
    assert_eq!(planned(ctx.clone(), sql.clone()).await, (false, 0));
    set(&ctx, "SET parquet_flba.send_encryption_keys = true").await;
    set(&ctx, "SET parquet_flba.threads = 100000").await;
    assert_eq!(
        planned(ctx.clone(), sql).await,
        (true, FlbaParquetSink::MAX_THREADS)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threads_setting_reaches_the_sink() {
    let data = batches(4, 3_000);
    for parallel in [false, true] {
        let sql = |dir: &std::path::Path| {
            format!(
                "COPY t TO '{}/x.parquet' STORED AS PARQUET \
                 OPTIONS ('allow_single_file_parallelism' '{parallel}', 'max_row_group_size' '5000')",
                dir.display()
            )
        };
        let stock_dir = scratch("threads-stock");
        let stock = context(false, 1, &data).unwrap();
        set(&stock, &sql(&stock_dir)).await;

        let ours = context(true, 1, &data).unwrap();
        set(&ours, "SET parquet_flba.threads = 3").await;
        let dir = scratch("threads-flba");
        assert_eq!(sink_of(&ours, &sql(&dir)).await, Some(3));
        let explain = ours
            .sql(&format!("EXPLAIN {}", sql(&dir)))
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let explain = datafusion::arrow::util::pretty::pretty_format_batches(&explain)
            .unwrap()
            .to_string();
        assert!(
            explain.contains("threads=3"),
            "parallel={parallel}: {explain}"
        );
        set(&ours, &sql(&dir)).await;
        assert!(
            files(&stock_dir) == files(&dir),
            "parallel={parallel}: the files differ"
        );
    }
}

/// `plan_to_parquet` writes what `SessionContext::write_parquet(plan, ...)`
/// writes (one file per partition of the plan), byte for byte, with and
/// without writer properties; with `parquet_flba.enabled` off it is
/// DataFusion's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_to_parquet_writes_what_write_parquet_writes() {
    let data = batches(6, 2_000);
    let zstd = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(2).unwrap()))
        .set_max_row_group_row_count(Some(2_500))
        .build();
    for (name, props) in [("default", None), ("zstd", Some(zstd))] {
        for enabled in [true, false] {
            let case = format!("{name} enabled={enabled}");
            let ctx = context(true, 3, &[]).unwrap();
            ctx.deregister_table("t").unwrap();
            let partitions = data.chunks(2).map(<[_]>::to_vec).collect();
            let table = MemTable::try_new(schema(), partitions).unwrap();
            ctx.register_table("t", Arc::new(table)).unwrap();
            set(&ctx, &format!("SET parquet_flba.enabled = {enabled}")).await;
            let plan = ctx
                .table("t")
                .await
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap();
            assert_eq!(plan.output_partitioning().partition_count(), 3);

            let stock_dir = scratch("plan-stock");
            ctx.write_parquet(
                Arc::clone(&plan),
                stock_dir.to_str().unwrap(),
                props.clone(),
            )
            .await
            .unwrap();
            let dir = scratch("plan-flba");
            let plans = parquet_flba_datafusion::plan_to_parquet_with_plans(
                ctx.task_ctx(),
                Arc::clone(&plan),
                dir.to_str().unwrap(),
                props.clone(),
            )
            .await
            .unwrap();
            // parquet-flba wrote the files (none when it is off: DataFusion
            // did).
            if enabled {
                assert_eq!(assert_fast(&case, plans.values()), 3, "{case}");
            } else {
                assert!(plans.is_empty(), "{case}");
            }
            let (a, b) = (files(&stock_dir), files(&dir));
            assert_eq!(a.len(), 3, "{case}: one file per partition");
            assert!(a == b, "{case}: the files differ");
        }
    }
    // A plan that fails leaves no file.
    let ctx = context(true, 1, &batches(2, 300)).unwrap();
    let plan = ctx
        .sql("SELECT row, CAST(CASE WHEN row > 400 THEN 'x' ELSE '1' END AS INT) AS bad FROM t")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let dir = scratch("plan-fails");
    parquet_flba_datafusion::plan_to_parquet(ctx.task_ctx(), plan, dir.to_str().unwrap(), None)
        .await
        .expect_err("the plan fails");
    assert!(files(&dir).is_empty());
}
