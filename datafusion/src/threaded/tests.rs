//! The engine path's file after a cancelled write: no more work, its
//! memory back to the pool.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use datafusion::arrow::array::{ArrayRef, Decimal128Array, FixedSizeBinaryArray, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::Result;
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation, UnboundedMemoryPool,
};
use datafusion::object_store::ObjectStoreExt;
use datafusion::object_store::buffered::BufWriter;
use datafusion::object_store::memory::InMemory;
use datafusion::object_store::path::Path;
use datafusion::physical_plan::metrics::Time;
use parquet_flba::ArrowWriterOptions;
use parquet_flba::parquet::file::properties::WriterProperties;
use tokio::sync::mpsc;

use super::{ThreadedFile, row_count_cuts};

/// A pool that counts every grow (fallible or not) of its reservations,
/// and the most reserved at once.
#[derive(Debug, Default)]
struct Counting {
    inner: UnboundedMemoryPool,
    grows: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    fn grows(&self) -> usize {
        self.grows.load(Ordering::SeqCst)
    }

    fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    fn grew(&self) {
        self.grows.fetch_add(1, Ordering::SeqCst);
        self.peak.fetch_max(self.inner.reserved(), Ordering::SeqCst);
    }
}

impl std::fmt::Display for Counting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("counting")
    }
}

impl MemoryPool for Counting {
    fn name(&self) -> &str {
        "counting"
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.inner.grow(reservation, additional);
        self.grew();
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.inner.shrink(reservation, shrink);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        self.inner.try_grow(reservation, additional)?;
        self.grew();
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.inner.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        MemoryLimit::Infinite
    }
}

/// Batch `n`: 4,096 rows of a UUID and a decimal column.
fn batch(n: u64) -> RecordBatch {
    let mut state = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let rows = 4_096;
    let ids = FixedSizeBinaryArray::try_from_iter(
        (0..rows).map(|_| [next().to_le_bytes(), next().to_le_bytes()].concat()),
    )
    .unwrap();
    let prices = Decimal128Array::from_iter_values((0..rows).map(|_| i128::from(next() >> 8)))
        .with_precision_and_scale(38, 4)
        .unwrap();
    RecordBatch::try_from_iter([
        ("id", Arc::new(ids) as ArrayRef),
        ("price", Arc::new(prices) as ArrayRef),
    ])
    .unwrap()
}

/// A file on 2 threads to `x.parquet` in `store` (buffered up to 64 MiB
/// before a multipart upload), reserving from `pool`; everything it is
/// given goes into one row group until the end.
fn file(pool: &Arc<Counting>, store: &Arc<InMemory>) -> ThreadedFile {
    let reservation =
        MemoryConsumer::new("ParquetSink[x]").register(&(Arc::clone(pool) as Arc<dyn MemoryPool>));
    let out = BufWriter::with_capacity(Arc::clone(store) as _, Path::from("x.parquet"), 64 << 20);
    let schema: SchemaRef = batch(0).schema();
    let props = row_count_cuts(WriterProperties::builder().build());
    let options = ArrowWriterOptions::new()
        .with_properties(props)
        .with_block_cache(false);
    ThreadedFile::new(out, schema, options, 2, reservation, Time::new()).unwrap()
}

/// Waits (at most a minute) for `done`.
async fn wait_for(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(60), "{what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// A write cancelled while its file waits for input (the query dropped:
/// DataFusion aborts the file's task, then the input's, whose end the file
/// then sees) does no more work: the row group it holds is not flushed,
/// encoded or compressed (nothing more is reserved from the pool, which
/// every output piece and every column that grows would do), and the
/// pool is back at 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_write_does_no_more_work() {
    let pool = Arc::new(Counting::default());
    let mut file = file(&pool, &Arc::new(InMemory::new()));
    let (input, batches) = mpsc::channel(1);
    let task = tokio::spawn(async move {
        let _ = file.encode(batches).await;
        file
    });
    for n in 0..8 {
        input.send(batch(n)).await.unwrap();
    }
    // Every batch taken by the file.
    wait_for("the file takes the batches", || {
        input.capacity() == input.max_capacity()
    })
    .await;
    assert!(pool.reserved() > 0, "nothing reserved");
    task.abort();
    assert!(matches!(task.await, Err(e) if e.is_cancelled()));
    let grows = pool.grows();
    // The input's end, as when DataFusion's demux task is aborted.
    drop(input);
    wait_for("the pool back at 0", || pool.reserved() == 0).await;
    assert_eq!(
        pool.grows(),
        grows,
        "the cancelled file reserved more memory: it went on encoding"
    );
}

/// Every output piece stays reserved until the object store lets go of it:
/// the upload buffers the whole file here (it is smaller than the buffer),
/// so once the row groups are written the reservation covers all of their
/// bytes, and just before the upload completes the whole file, footer
/// included; afterwards nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_output_is_reserved_until_the_store_has_it() {
    let pool = Arc::new(Counting::default());
    let store = Arc::new(InMemory::new());
    let mut file = file(&pool, &store);
    let (input, batches) = mpsc::channel(8);
    for n in 0..8 {
        input.send(batch(n)).await.unwrap();
    }
    drop(input);
    file.encode(batches).await.unwrap();
    let written = file.writer.as_ref().unwrap().bytes_written();
    assert!(written > 1 << 20, "{written} bytes");
    assert!(
        pool.reserved() >= written,
        "{} bytes reserved while the upload holds {written}",
        pool.reserved()
    );
    file.commit().await.unwrap();
    let size = store.head(&Path::from("x.parquet")).await.unwrap().size;
    assert!(
        pool.peak() as u64 >= size,
        "peak {} below the file's {size} bytes",
        pool.peak()
    );
    assert_eq!(pool.reserved(), 0);
}
