//! The files of one write, all or nothing: each file is encoded up to its
//! footer while its upload stays incomplete, and the files are completed
//! only once every one of them and the whole input have succeeded.
//!
//! DataFusion's sink completes each file as soon as its own stream ends,
//! so a write that fails (a column that cannot be encoded, an error in the
//! input) can leave files behind, a valid but partial or empty one even
//! over the file that was at the target before. Here a failed write
//! abandons every upload: on an object store nothing appears (multipart
//! uploads are aborted), and a file that was at the target is left as it
//! was.

use std::future::Future;
use std::pin::pin;

use datafusion::arrow::array::RecordBatch;
use datafusion::common::runtime::{JoinSet, SpawnedTask};
use datafusion::error::{DataFusionError, Result};
use datafusion::object_store::path::Path;
use datafusion::physical_plan::metrics::{ElapsedComputeFutureExt, Time};
use futures::future::{Either, select};
use parquet_flba::ColumnPlan;
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use tokio::sync::mpsc::Receiver;
use tokio::sync::watch;

use crate::parallel::ParallelFile;
use crate::sequential::SequentialFile;
use crate::threaded::ThreadedFile;

/// One output file, open: its upload is not complete, so nothing of it is
/// visible at its path yet.
pub(crate) struct OpenFile {
    pub(crate) path: Path,
    writer: Writer,
    /// Elapsed compute of the sequential path, which (as DataFusion's)
    /// counts the time its file task is polled.
    compute: Option<Time>,
}

enum Writer {
    Sequential(Box<SequentialFile>),
    Parallel(Box<ParallelFile>),
    Threaded(Box<ThreadedFile>),
}

/// A file written and completed, with the plan of its leaves.
pub(crate) struct Finished {
    pub(crate) path: Path,
    pub(crate) plan: ColumnPlan,
    pub(crate) metadata: ParquetMetaData,
}

impl OpenFile {
    /// A file written sequentially; `compute` counts the time spent in it.
    pub(crate) fn sequential(path: Path, file: SequentialFile, compute: Time) -> Self {
        Self {
            path,
            writer: Writer::Sequential(Box::new(file)),
            compute: Some(compute),
        }
    }

    /// A file encoded in parallel (its tasks count their own time).
    pub(crate) fn parallel(path: Path, file: ParallelFile) -> Self {
        Self {
            path,
            writer: Writer::Parallel(Box::new(file)),
            compute: None,
        }
    }

    /// A file written on parquet-flba's threads (it times its own calls).
    pub(crate) fn threaded(path: Path, file: ThreadedFile) -> Self {
        Self {
            path,
            writer: Writer::Threaded(Box::new(file)),
            compute: None,
        }
    }

    fn plan(&self) -> ColumnPlan {
        match &self.writer {
            Writer::Sequential(w) => w.plan().clone(),
            Writer::Parallel(w) => w.plan().clone(),
            Writer::Threaded(w) => w.plan().clone(),
        }
    }

    async fn encode(&mut self, batches: Receiver<RecordBatch>) -> Result<()> {
        let compute = self.compute.clone();
        let work = async {
            match &mut self.writer {
                Writer::Sequential(w) => w.encode(batches).await,
                Writer::Parallel(w) => w.encode(batches).await,
                Writer::Threaded(w) => w.encode(batches).await,
            }
        };
        timed(work, compute).await
    }

    /// Writes the footer and completes the upload.
    async fn commit(self) -> Result<Finished> {
        let plan = self.plan();
        let metadata = match self.writer {
            Writer::Sequential(w) => timed(w.commit(), self.compute).await?,
            Writer::Parallel(w) => w.commit().await?,
            Writer::Threaded(w) => w.commit().await?,
        };
        Ok(Finished {
            path: self.path,
            plan,
            metadata,
        })
    }

    /// Abandons the upload.
    async fn abort(self) {
        match self.writer {
            Writer::Sequential(w) => w.abort().await,
            Writer::Parallel(w) => w.abort().await,
            Writer::Threaded(w) => w.abort().await,
        }
    }
}

async fn timed<T>(work: impl Future<Output = T>, compute: Option<Time>) -> T {
    match compute {
        Some(time) => work.with_elapsed_compute(time).await,
        None => work.await,
    }
}

/// The files of one write, being encoded.
pub(crate) struct Files {
    tasks: JoinSet<std::result::Result<OpenFile, Failure>>,
    /// Tells the files still encoding that the write has failed.
    cancel: watch::Sender<bool>,
}

/// How a file's task ended without its file (whose upload it abandoned).
enum Failure {
    /// The file's own error.
    Failed(DataFusionError),
    /// Stopped because another file or the input failed.
    Cancelled,
}

impl Files {
    pub(crate) fn new() -> Self {
        Self {
            tasks: JoinSet::new(),
            cancel: watch::channel(false).0,
        }
    }

    /// Encodes `batches` into `file` on a task of its own. If it fails, or
    /// the write is cancelled meanwhile, its upload is abandoned (and its
    /// encoding stops where it is: the file's work is dropped).
    pub(crate) fn spawn(&mut self, mut file: OpenFile, batches: Receiver<RecordBatch>) {
        let mut cancelled = self.cancel.subscribe();
        self.tasks.spawn(async move {
            let outcome = {
                let work = pin!(file.encode(batches));
                let stop = pin!(cancelled.wait_for(|c| *c));
                match select(work, stop).await {
                    Either::Left((Ok(()), _)) => Ok(()),
                    Either::Left((Err(e), _)) => Err(Failure::Failed(e)),
                    Either::Right(_) => Err(Failure::Cancelled),
                }
            };
            match outcome {
                Ok(()) => Ok(file),
                Err(failure) => {
                    file.abort().await;
                    Err(failure)
                }
            }
        });
    }

    /// Waits for every file, then for the input (`demux`); if all
    /// succeeded, completes the files and returns them. Otherwise every
    /// upload is abandoned and the first error is returned: a file's (or
    /// `failed`: one that could not be opened), or the input's.
    ///
    /// The input is waited for only once the files have ended: when a file
    /// fails, the input fails too (it can no longer hand that file its
    /// batches), and the file's error is the one to report. A file that
    /// saw its stream end because the input failed has flushed its last
    /// row group by then; that is all it does, before the write returns.
    pub(crate) async fn finish(
        mut self,
        demux: SpawnedTask<Result<()>>,
        failed: Option<DataFusionError>,
    ) -> Result<Vec<Finished>> {
        let mut open = Vec::new();
        let mut error = failed;
        if error.is_some() {
            self.cancel.send_replace(true);
        }
        while let Some(joined) = self.tasks.join_next().await {
            match joined {
                Ok(Ok(file)) if error.is_none() => open.push(file),
                Ok(Ok(file)) => file.abort().await,
                Ok(Err(Failure::Cancelled)) => {}
                Ok(Err(Failure::Failed(e))) => {
                    if error.is_none() {
                        error = Some(e);
                        self.cancel.send_replace(true);
                    }
                }
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => {
                    if error.is_none() {
                        error = Some(DataFusionError::ExecutionJoin(Box::new(e)));
                        self.cancel.send_replace(true);
                    }
                }
            }
        }
        if error.is_none() {
            // The input: a file that saw its stream end may only have seen
            // the input fail. (After a file's failure it is not waited for:
            // it may be waiting for its own input.)
            match demux.join_unwind().await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => error = Some(e),
                Err(e) => error = Some(DataFusionError::ExecutionJoin(Box::new(e))),
            }
        }
        if let Some(e) = error {
            for file in open {
                file.abort().await;
            }
            return Err(e);
        }
        commit_all(open).await
    }
}

/// Completes every file, concurrently. A failure here (the store refusing
/// to complete an upload) can leave the files completed before it.
async fn commit_all(open: Vec<OpenFile>) -> Result<Vec<Finished>> {
    let mut commits = JoinSet::new();
    for file in open {
        commits.spawn(file.commit());
    }
    let mut finished = Vec::with_capacity(commits.len());
    while let Some(joined) = commits.join_next().await {
        match joined {
            Ok(done) => finished.push(done?),
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(e) => return Err(DataFusionError::ExecutionJoin(Box::new(e))),
        }
    }
    Ok(finished)
}
