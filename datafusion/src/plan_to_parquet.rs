//! [`plan_to_parquet`]: `SessionContext::write_parquet(plan, ...)` through
//! parquet-flba.

use std::collections::HashMap;
use std::pin::pin;
use std::sync::Arc;

use datafusion::common::runtime::JoinSet;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::SendableRecordBatchStream;
use datafusion::execution::TaskContext;
use datafusion::object_store::buffered::BufWriter;
use datafusion::object_store::path::Path;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};
use futures::StreamExt;
use futures::future::{Either, select};
use parquet_flba::parquet::file::properties::WriterProperties;
use parquet_flba::{AsyncArrowWriter, ColumnPlan};
use tokio::sync::watch;

use crate::config::FlbaOptions;
use crate::memory::into_datafusion;
use crate::sink::FlbaParquetSink;

/// Executes `plan` and writes each of its output partitions to
/// `<path>/part-<n>.parquet`, as DataFusion's `plan_to_parquet` (what
/// `SessionContext::write_parquet(plan, path, props)` calls) does, with the
/// same files, through parquet-flba's `AsyncArrowWriter`.
///
/// `SessionContext::write_parquet` is a method of DataFusion's context that
/// calls `parquet`'s writer directly; neither the parquet format nor the
/// optimizer rule that [`crate::register`] installs reaches it. Call this
/// function instead (`ctx.task_ctx()` for `task_ctx`). With the session's
/// `parquet_flba.enabled` off it calls DataFusion's own. Its
/// `parquet_flba.threads` applies to every file.
///
/// If any partition fails, the others stop and no file is completed: every
/// upload is aborted (DataFusion's completes those that finished before,
/// and drops the others' unfinished).
pub async fn plan_to_parquet(
    task_ctx: Arc<TaskContext>,
    plan: Arc<dyn ExecutionPlan>,
    path: impl AsRef<str>,
    writer_properties: Option<WriterProperties>,
) -> Result<()> {
    plan_to_parquet_with_plans(task_ctx, plan, path, writer_properties)
        .await
        .map(|_| ())
}

/// As [`plan_to_parquet`], returning which writer encoded each leaf of the
/// files written, by path (as `FlbaParquetSink::written_plans`): empty
/// when `parquet_flba.enabled` is off and DataFusion's writer wrote them.
pub async fn plan_to_parquet_with_plans(
    task_ctx: Arc<TaskContext>,
    plan: Arc<dyn ExecutionPlan>,
    path: impl AsRef<str>,
    writer_properties: Option<WriterProperties>,
) -> Result<HashMap<Path, ColumnPlan>> {
    let settings = FlbaOptions::from_config(task_ctx.session_config().options());
    if !settings.enabled {
        datafusion::datasource::physical_plan::parquet::plan_to_parquet(
            task_ctx,
            plan,
            path,
            writer_properties,
        )
        .await?;
        return Ok(HashMap::new());
    }
    let parsed = ListingTableUrl::parse(path.as_ref())?;
    let store = task_ctx.runtime_env().object_store(parsed.object_store())?;
    let buffer_size = task_ctx
        .session_config()
        .options()
        .execution
        .objectstore_writer_buffer_size;
    let threads = settings.threads.clamp(1, FlbaParquetSink::MAX_THREADS);
    let cancel = watch::channel(false).0;
    let mut partitions = JoinSet::new();
    for i in 0..plan.output_partitioning().partition_count() {
        let file = Path::parse(format!("{}/part-{i}.parquet", parsed.prefix()))?;
        let out = BufWriter::with_capacity(Arc::clone(&store), file.clone(), buffer_size);
        let mut writer = AsyncArrowWriter::try_new(out, plan.schema(), writer_properties.clone())?
            .with_threads(threads);
        let mut stream = plan.execute(i, Arc::clone(&task_ctx))?;
        let mut cancelled = cancel.subscribe();
        partitions.spawn(async move {
            let outcome = {
                let work = pin!(write_partition(&mut writer, &mut stream));
                let stop = pin!(cancelled.wait_for(|c| *c));
                match select(work, stop).await {
                    Either::Left((Ok(()), _)) => Ok(()),
                    Either::Left((Err(e), _)) => Err(Some(e)),
                    // Another partition failed.
                    Either::Right(_) => Err(None),
                }
            };
            match outcome {
                Ok(()) => Ok((file, writer)),
                Err(e) => {
                    let _ = writer.into_inner().abort().await;
                    Err(e)
                }
            }
        });
    }
    // Every partition ends (the others stopped after the first failure) and
    // abandons its upload unless all succeeded.
    let mut finished = Vec::new();
    let mut error = None;
    while let Some(joined) = partitions.join_next().await {
        match joined {
            Ok(Ok(done)) => finished.push(done),
            Ok(Err(None)) => {}
            Ok(Err(Some(e))) => {
                if error.is_none() {
                    error = Some(e);
                    cancel.send_replace(true);
                }
            }
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => {
                if error.is_none() {
                    error = Some(DataFusionError::ExecutionJoin(Box::new(e)));
                    cancel.send_replace(true);
                }
            }
        }
    }
    if let Some(e) = error {
        for (_, writer) in finished {
            let _ = writer.into_inner().abort().await;
        }
        return Err(e);
    }
    let mut plans = HashMap::with_capacity(finished.len());
    let mut finished = finished.into_iter();
    while let Some((file, mut writer)) = finished.next() {
        // A writer whose completion failed is dropped, not aborted (its
        // upload may have been completing); the ones after it are aborted.
        if let Err(e) = writer.finish().await {
            for (_, rest) in finished {
                let _ = rest.into_inner().abort().await;
            }
            return Err(into_datafusion(e));
        }
        plans.insert(file, writer.column_plan().clone());
    }
    Ok(plans)
}

/// Writes every batch of `stream` and flushes the last row group: only the
/// footer is left.
async fn write_partition(
    writer: &mut AsyncArrowWriter<BufWriter>,
    stream: &mut SendableRecordBatchStream,
) -> Result<()> {
    while let Some(batch) = stream.next().await {
        writer.write(&batch?).await.map_err(into_datafusion)?;
    }
    writer.flush().await.map_err(into_datafusion)
}
