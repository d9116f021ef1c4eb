//! [`plan_to_parquet`]: `SessionContext::write_parquet(plan, ...)` through
//! parquet-flba.

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
use parquet_flba::AsyncArrowWriter;
use parquet_flba::parquet::file::properties::WriterProperties;

use crate::config::FlbaOptions;
use crate::memory::into_datafusion;

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
/// If any partition fails, no file is completed: the uploads are abandoned
/// (DataFusion's completes those that finished before).
pub async fn plan_to_parquet(
    task_ctx: Arc<TaskContext>,
    plan: Arc<dyn ExecutionPlan>,
    path: impl AsRef<str>,
    writer_properties: Option<WriterProperties>,
) -> Result<()> {
    let settings = FlbaOptions::from_config(task_ctx.session_config().options());
    if !settings.enabled {
        return datafusion::datasource::physical_plan::parquet::plan_to_parquet(
            task_ctx,
            plan,
            path,
            writer_properties,
        )
        .await;
    }
    let parsed = ListingTableUrl::parse(path.as_ref())?;
    let store = task_ctx.runtime_env().object_store(parsed.object_store())?;
    let buffer_size = task_ctx
        .session_config()
        .options()
        .execution
        .objectstore_writer_buffer_size;
    let mut partitions = JoinSet::new();
    for i in 0..plan.output_partitioning().partition_count() {
        let file = Path::parse(format!("{}/part-{i}.parquet", parsed.prefix()))?;
        let out = BufWriter::with_capacity(Arc::clone(&store), file, buffer_size);
        let mut writer = AsyncArrowWriter::try_new(out, plan.schema(), writer_properties.clone())?
            .with_threads(settings.threads.max(1));
        let mut stream = plan.execute(i, Arc::clone(&task_ctx))?;
        partitions.spawn(async move {
            match write_partition(&mut writer, &mut stream).await {
                Ok(()) => Ok(writer),
                Err(e) => {
                    let _ = writer.into_inner().abort().await;
                    Err(e)
                }
            }
        });
    }
    let mut finished = Vec::new();
    while let Some(joined) = partitions.join_next().await {
        let outcome = match joined {
            Ok(outcome) => outcome,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => Err(DataFusionError::ExecutionJoin(Box::new(e))),
        };
        match outcome {
            Ok(writer) => finished.push(writer),
            Err(e) => {
                for writer in finished {
                    let _ = writer.into_inner().abort().await;
                }
                return Err(e);
            }
        }
    }
    for mut writer in finished {
        writer.finish().await.map_err(into_datafusion)?;
    }
    Ok(())
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
