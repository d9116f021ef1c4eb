//! An in-memory object store that counts multipart uploads: started,
//! completed and aborted (an upload dropped without either stays open on a
//! real store, its parts billed until a lifecycle rule removes them).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use datafusion::object_store::memory::InMemory;
use datafusion::object_store::path::Path;
use datafusion::object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, Result, UploadPart,
};
use futures::stream::BoxStream;
use tokio::sync::watch;

#[derive(Debug, Default)]
struct Counts {
    completed: AtomicUsize,
    aborted: AtomicUsize,
}

/// The counting store.
#[derive(Debug)]
pub struct Uploads {
    inner: InMemory,
    counts: Arc<Counts>,
    /// Multipart uploads started so far.
    started: watch::Sender<usize>,
}

impl Uploads {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: InMemory::new(),
            counts: Arc::default(),
            started: watch::channel(0).0,
        })
    }

    /// Multipart uploads started so far.
    pub fn started(&self) -> usize {
        *self.started.borrow()
    }

    /// Waits until a multipart upload has started.
    pub async fn wait_for_start(&self) {
        let mut started = self.started.subscribe();
        let _ = started.wait_for(|n| *n > 0).await;
    }

    pub fn completed(&self) -> usize {
        self.counts.completed.load(Ordering::SeqCst)
    }

    pub fn aborted(&self) -> usize {
        self.counts.aborted.load(Ordering::SeqCst)
    }
}

impl fmt::Display for Uploads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uploads({})", self.inner)
    }
}

/// An upload of the inner store, counted when completed or aborted.
#[derive(Debug)]
struct Counted {
    inner: Box<dyn MultipartUpload>,
    counts: Arc<Counts>,
}

#[async_trait]
impl MultipartUpload for Counted {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        self.inner.put_part(data)
    }

    async fn complete(&mut self) -> Result<PutResult> {
        let done = self.inner.complete().await?;
        self.counts.completed.fetch_add(1, Ordering::SeqCst);
        Ok(done)
    }

    async fn abort(&mut self) -> Result<()> {
        self.inner.abort().await?;
        self.counts.aborted.fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
}

#[async_trait]
impl ObjectStore for Uploads {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        let inner = self.inner.put_multipart_opts(location, opts).await?;
        self.started.send_modify(|n| *n += 1);
        Ok(Box::new(Counted {
            inner,
            counts: Arc::clone(&self.counts),
        }))
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
