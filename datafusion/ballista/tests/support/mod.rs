//! Shared by the Ballista tests and the example: in-process clusters (stock
//! and with parquet-flba), the input table as an Arrow IPC file, and the
//! plan that executed on the cluster.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::execution_plans::DistributedQueryExec;
use datafusion::arrow::array::{Array, RecordBatch, UInt64Array};
use datafusion::arrow::ipc::writer::FileWriter;
use datafusion::common::Result;
use datafusion::config::TableParquetOptions;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::file_format::format_as_file_type;
use datafusion::datasource::file_format::options::ArrowReadOptions;
use datafusion::datasource::file_format::parquet::ParquetFormatFactory;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::execution::{SessionState, SessionStateBuilder, TaskContext};
use datafusion::logical_expr::{AggregateUDF, LogicalPlanBuilder, ScalarUDF, WindowUDF};
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use datafusion_proto::protobuf::LogicalPlanNode;
use parquet_flba_ballista::{FlbaCodec, FlbaParquetSink};

/// A cluster's client context, and (with parquet-flba) how many
/// `FlbaParquetSink`s its codec has decoded so far.
pub struct Cluster {
    pub ctx: SessionContext,
    pub decoded: Option<Arc<AtomicUsize>>,
}

/// The session config of every cluster here: one partition per scan (rows
/// in input order, so two runs write the same bytes), two task slots.
pub fn config() -> SessionConfig {
    SessionConfig::new_with_ballista()
        .with_target_partitions(1)
        .with_ballista_standalone_parallelism(2)
}

/// A Ballista session over [`config`]; with `flba`, prepared by
/// `parquet_flba_ballista::prepare`, its codec counting what it decodes.
pub fn state(flba: bool) -> (SessionState, Option<Arc<AtomicUsize>>) {
    state_with(flba, config())
}

/// As [`state`], over `config`.
pub fn state_with(flba: bool, config: SessionConfig) -> (SessionState, Option<Arc<AtomicUsize>>) {
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    if !flba {
        return (state, None);
    }
    let state = parquet_flba_ballista::prepare(state);
    let decoded = Arc::new(AtomicUsize::new(0));
    let counting = Counting {
        inner: FlbaCodec::new(),
        sinks: Arc::clone(&decoded),
    };
    let config = state
        .config()
        .clone()
        .with_ballista_physical_extension_codec(Arc::new(counting));
    let state = SessionStateBuilder::new_from_existing(state)
        .with_config(config)
        .build();
    (state, Some(decoded))
}

/// An in-process cluster (`SessionContext::standalone_with_state`): stock
/// Ballista, or with parquet-flba.
pub async fn standalone(flba: bool) -> Cluster {
    standalone_with(flba, config()).await
}

/// As [`standalone`], over `config`.
pub async fn standalone_with(flba: bool, config: SessionConfig) -> Cluster {
    let (state, decoded) = state_with(flba, config);
    let ctx = SessionContext::standalone_with_state(state).await.unwrap();
    Cluster { ctx, decoded }
}

/// Writes `data` to `path` as an Arrow IPC file.
pub fn write_ipc(path: &Path, data: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = FileWriter::try_new(file, &data[0].schema()).unwrap();
    for batch in data {
        writer.write(batch).unwrap();
    }
    writer.finish().unwrap();
}

/// Registers the Arrow IPC file `path` as table `name`.
pub async fn register(ctx: &SessionContext, name: &str, path: &Path) {
    ctx.register_arrow(name, path.to_str().unwrap(), ArrowReadOptions::default())
        .await
        .unwrap();
}

/// What running a statement on a cluster shows.
pub struct Ran {
    /// The result batches.
    pub batches: Vec<RecordBatch>,
    /// The physical plan that executed on the cluster, with the metrics
    /// the executors reported (as `EXPLAIN ANALYZE` shows it).
    pub executed: String,
}

/// Runs `sql` on `ctx` through Ballista and fetches the plan it executed.
pub async fn run(ctx: &SessionContext, sql: &str) -> Result<Ran> {
    run_df(ctx, ctx.sql(sql).await?).await
}

/// Runs `df` on `ctx`'s cluster and fetches the plan it executed.
pub async fn run_df(ctx: &SessionContext, df: DataFrame) -> Result<Ran> {
    let plan = df.create_physical_plan().await?;
    let batches = collect(Arc::clone(&plan), ctx.task_ctx()).await?;
    let query = plan
        .downcast_ref::<DistributedQueryExec<LogicalPlanNode>>()
        .unwrap_or_else(|| panic!("not run on the cluster: {}", plan.name()));
    let executed = query
        .explain_executed_plan(ctx.state().config(), true)
        .await?;
    Ok(Ran { batches, executed })
}

/// `DataFrame::write_parquet(path, default options, Some(options))` of
/// table `t`, as a `DataFrame` to run (the plan `write_parquet` builds).
pub async fn write_parquet(
    ctx: &SessionContext,
    path: &str,
    options: TableParquetOptions,
) -> Result<DataFrame> {
    let input = ctx.table("t").await?.into_unoptimized_plan();
    let format = Arc::new(ParquetFormatFactory::new_with_options(options));
    let plan = LogicalPlanBuilder::copy_to(
        input,
        path.to_string(),
        format_as_file_type(format),
        HashMap::new(),
        vec![],
    )?
    .build()?;
    ctx.execute_logical_plan(plan).await
}

/// Checks that the executed plan of `ran` wrote with parquet-flba's sink
/// (`flba`) or DataFusion's, with the sink's metrics reported by the
/// executor, and that the statement wrote `rows` rows.
pub fn assert_sink(ran: &Ran, flba: bool, rows: usize) {
    let plan = &ran.executed;
    let line = plan
        .lines()
        .find(|l| l.trim_start().starts_with("DataSinkExec"))
        .unwrap_or_else(|| panic!("no DataSinkExec in the executed plan:\n{plan}"));
    let sink = if flba {
        "FlbaParquetSink("
    } else {
        "ParquetSink("
    };
    assert!(
        line.contains(&format!("sink={sink}")),
        "expected {sink}..) in the executed plan:\n{plan}"
    );
    assert!(
        line.contains("rows_written="),
        "the executor reported the sink's metrics:\n{plan}"
    );
    // parquet-flba's sink on the executor wrote the fast-path leaves (its
    // metric, which DataFusion's sink does not have).
    let fast = metric(line, "fast_path_leaves");
    if flba {
        assert!(
            fast.is_some_and(|n| n > 0),
            "the executor's fast_path_leaves:\n{plan}"
        );
    } else {
        assert_eq!(
            fast, None,
            "fast_path_leaves from DataFusion's sink:\n{plan}"
        );
    }
    let count = ran.batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<UInt64Array>()
        .expect("a count")
        .value(0);
    assert_eq!(count, rows as u64, "rows written");
}

/// The value of metric `name` on a line of an executed plan
/// (`name=<value>`), if it is there.
fn metric(line: &str, name: &str) -> Option<u64> {
    let at = line.find(&format!("{name}="))? + name.len() + 1;
    let digits: String = line[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// `FlbaCodec`, counting the `FlbaParquetSink`s it decodes: proof that the
/// executor's plan holds parquet-flba's sink, as only the codec builds it
/// there.
#[derive(Debug)]
struct Counting {
    inner: FlbaCodec,
    sinks: Arc<AtomicUsize>,
}

impl PhysicalExtensionCodec for Counting {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self.inner.try_decode(buf, inputs, ctx, converter)?;
        let ours = plan
            .downcast_ref::<DataSinkExec>()
            .is_some_and(|e| e.sink().downcast_ref::<FlbaParquetSink>().is_some());
        if ours {
            self.sinks.fetch_add(1, Ordering::SeqCst);
        }
        Ok(plan)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        self.inner.try_encode(node, buf, converter)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}
