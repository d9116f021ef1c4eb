//! A write that fails abandons every upload it started: on an object store
//! no multipart upload is left open (neither completed nor aborted, its
//! parts kept, and billed, until a lifecycle rule removes them).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::store::Uploads;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::DataFusionError;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;
use futures::stream::BoxStream;

/// A partition whose stream is made once, by the test.
struct Once {
    stream: Mutex<Option<BoxStream<'static, datafusion::error::Result<RecordBatch>>>>,
}

impl std::fmt::Debug for Once {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Once")
    }
}

impl PartitionStream for Once {
    fn schema(&self) -> &SchemaRef {
        static SCHEMA: std::sync::OnceLock<SchemaRef> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(common::schema)
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let stream = self.stream.lock().unwrap().take().expect("executed once");
        Box::pin(RecordBatchStreamAdapter::new(common::schema(), stream))
    }
}

fn once(stream: BoxStream<'static, datafusion::error::Result<RecordBatch>>) -> Arc<Once> {
    Arc::new(Once {
        stream: Mutex::new(Some(stream)),
    })
}

/// `plan_to_parquet` with two partitions: the first writes row groups (its
/// upload becomes multipart: 1 KiB buffers) and then waits for input that
/// never comes; the second fails once the first's upload has started. The
/// write fails with the second's error, and the first's upload is aborted
/// (it was dropped, left open).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_to_parquet_aborts_the_other_partitions_uploads() {
    let store = Uploads::new();
    let config =
        SessionConfig::new().set_usize("datafusion.execution.objectstore_writer_buffer_size", 1024);
    let ctx = SessionContext::new_with_config(config);
    parquet_flba_datafusion::register(&ctx).unwrap();
    let url = ObjectStoreUrl::parse("memory://").unwrap();
    ctx.register_object_store(url.as_ref(), Arc::clone(&store) as _);

    let writing = futures::stream::iter(common::batches(3, 1_000).into_iter().map(Ok))
        .chain(futures::stream::pending())
        .boxed();
    let waiting = Arc::clone(&store);
    let failing = futures::stream::once(async move {
        waiting.wait_for_start().await;
        Err(DataFusionError::Execution("partition 1 failed".into()))
    })
    .boxed();
    let plan: Arc<dyn ExecutionPlan> = Arc::new(
        StreamingTableExec::try_new(
            common::schema(),
            vec![once(writing) as _, once(failing) as _],
            None,
            vec![],
            false,
            None,
        )
        .unwrap(),
    );
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1_000))
        .build();
    let written = tokio::time::timeout(
        Duration::from_secs(60),
        parquet_flba_datafusion::plan_to_parquet(
            ctx.task_ctx(),
            plan,
            "memory:///out",
            Some(props),
        ),
    )
    .await
    .expect("the write ends");
    let e = written.expect_err("partition 1 fails");
    assert!(e.to_string().contains("partition 1 failed"), "{e}");
    assert_eq!(store.started(), 1, "the first partition's multipart upload");
    assert_eq!(store.completed(), 0);
    assert_eq!(
        store.aborted(),
        1,
        "the first partition's upload is left open"
    );
}
