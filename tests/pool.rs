//! The process-wide worker pool: writers share it, and it never runs more
//! worker threads than its cap, however many writers use
//! `ArrowWriter::with_threads` at once. Its own test binary, as the cap
//! is process-wide.

include!("../src/versions.rs");

mod common;

use std::sync::{Arc, Barrier, Mutex, MutexGuard};

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use common::*;
use parquet_flba::ArrowWriter;

/// The tests of this binary change the process-wide cap: one at a time,
/// each putting the default back when it ends (or fails).
fn serial() -> Serial {
    static SERIAL: Mutex<()> = Mutex::new(());
    Serial(SERIAL.lock().unwrap_or_else(|e| e.into_inner()))
}

/// The lock of [`serial`].
struct Serial(#[allow(dead_code)] MutexGuard<'static, ()>);

impl Drop for Serial {
    fn drop(&mut self) {
        parquet_flba::set_worker_threads(cores());
    }
}

/// The default cap (the machine's cores).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Threads of this process whose name starts with the pool's prefix.
fn pool_threads() -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("parquet-flba-"))
        .count()
}

/// Writes one file with `threads` threads on each of `writers` threads at
/// once, all writers open together, and returns the most pool threads
/// seen while they were.
fn writers_at_once(writers: usize, threads: usize) -> usize {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Decimal128(38, 10), true),
        Field::new("b", DataType::FixedSizeBinary(16), false),
        Field::new("c", DataType::Decimal256(50, 0), true),
        Field::new("d", DataType::Int64, true),
    ]));
    let mut g = Gen::new("pool");
    let batches: Vec<_> = (0..4)
        .map(|_| g.batch(&schema, 5000, &Spec::new(Nulls::Density(0.1))))
        .collect();
    let open = Arc::new(Barrier::new(writers + 1));
    let written = Arc::new(Barrier::new(writers + 1));
    let handles: Vec<_> = (0..writers)
        .map(|_| {
            let (schema, batches) = (schema.clone(), batches.clone());
            let (open, written) = (open.clone(), written.clone());
            std::thread::spawn(move || {
                let mut w = ArrowWriter::try_new(Vec::new(), schema, None)
                    .unwrap()
                    .with_threads(threads)
                    .with_min_parallel_work(std::time::Duration::ZERO);
                open.wait();
                for b in &batches {
                    w.write(b).unwrap();
                }
                written.wait();
                w.close().unwrap();
            })
        })
        .collect();
    open.wait();
    written.wait();
    // Every writer has written and is still open.
    let seen = pool_threads();
    for h in handles {
        h.join().unwrap();
    }
    seen
}

/// Waits (up to 10 s) until at most `n` pool threads run: workers above
/// a lowered cap end once idle.
fn wait_for_at_most(n: usize) {
    let start = std::time::Instant::now();
    while pool_threads() > n {
        assert!(
            start.elapsed().as_secs() < 10,
            "{} pool threads after the cap went down to {n}",
            pool_threads()
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Eight writers on eight threads each share the process's workers: no
/// more run than the cap (the machine's cores by default; each writer
/// used to start its own seven); lowering the cap ends workers above it,
/// and the files stay the same whatever it is.
#[test]
fn writers_share_a_capped_pool() {
    let _serial = serial();
    let cores = cores();
    assert_eq!(parquet_flba::worker_threads(), cores);
    let seen = writers_at_once(8, 8);
    assert!(
        seen <= cores,
        "{seen} pool threads for 8 writers on a {cores}-core machine"
    );
    assert!(parquet_flba::worker_threads_started() <= cores);

    parquet_flba::set_worker_threads(1);
    wait_for_at_most(1);
    let seen = writers_at_once(3, 4);
    assert!(seen <= 1, "{seen} pool threads with a cap of 1");
    assert!(parquet_flba::worker_threads_started() <= 1);

    // No worker at all: every writer on its own thread.
    parquet_flba::set_worker_threads(0);
    wait_for_at_most(0);
    assert_eq!(writers_at_once(2, 4), 0);
    parquet_flba::set_worker_threads(cores);
}

/// Polls `future` on this thread until it is ready or `limit` has passed
/// (`None`); a wake only shortens the wait.
#[cfg(feature = "async")]
fn poll_for<F: std::future::Future>(
    future: std::pin::Pin<&mut F>,
    limit: std::time::Duration,
) -> Option<F::Output> {
    let mut future = future;
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let start = std::time::Instant::now();
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return Some(out);
        }
        if start.elapsed() > limit {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// A memory listener whose first call from a pool worker blocks (saying
/// so on `blocked`) until `release` is sent to: it keeps that worker busy.
#[cfg(feature = "async")]
#[derive(Debug)]
struct BlockingListener {
    gate: Mutex<Option<(std::sync::mpsc::Sender<()>, std::sync::mpsc::Receiver<()>)>>,
}

#[cfg(feature = "async")]
impl parquet_flba::MemoryListener for BlockingListener {
    fn try_grow(&self, _bytes: usize) -> parquet::errors::Result<()> {
        let on_worker = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("parquet-flba-"));
        let gate = self.gate.lock().unwrap().take().filter(|_| on_worker);
        if let Some((blocked, release)) = gate {
            blocked.send(()).unwrap();
            release.recv().unwrap();
        }
        Ok(())
    }

    fn shrink(&self, _bytes: usize) {}
}

/// `AsyncArrowWriter` on several threads completes when no worker can run
/// its call: with a cap of 0 from the start, and when the cap drops to 0
/// after its call was queued behind a busy worker (that worker ends once
/// its job is done; the queued call used to wait forever): the call runs
/// on the awaiting task, and the file is parquet's.
#[cfg(feature = "async")]
#[test]
fn async_writer_completes_without_workers() {
    use parquet_flba::AsyncArrowWriter;
    let _serial = serial();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Decimal128(38, 10), true),
        Field::new("b", DataType::FixedSizeBinary(16), false),
    ]));
    let batch = Gen::new("no_workers").batch(&schema, 3000, &Spec::new(Nulls::Density(0.1)));
    let mut expected = Vec::new();
    let mut up = parquet::arrow::ArrowWriter::try_new(&mut expected, schema.clone(), None).unwrap();
    up.write(&batch).unwrap();
    up.close().unwrap();
    let patience = std::time::Duration::from_secs(20);
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    };

    // A cap of 0 before the call.
    parquet_flba::set_worker_threads(0);
    wait_for_at_most(0);
    let mut out = Vec::new();
    runtime().block_on(async {
        let mut w = AsyncArrowWriter::try_new(&mut out, schema.clone(), None)
            .unwrap()
            .with_threads(4);
        w.write(&batch).await.unwrap();
        w.close().await.unwrap();
    });
    assert!(out == expected, "cap 0: the files differ");

    // One worker, kept busy by writer A's call (its listener blocks).
    parquet_flba::set_worker_threads(1);
    let (blocked_tx, blocked) = std::sync::mpsc::channel();
    let (release, release_rx) = std::sync::mpsc::channel();
    let listener = Arc::new(BlockingListener {
        gate: Mutex::new(Some((blocked_tx, release_rx))),
    });
    let a = {
        let (schema, batch) = (schema.clone(), batch.clone());
        std::thread::spawn(move || {
            let mut out = Vec::new();
            runtime().block_on(async {
                let mut w = AsyncArrowWriter::try_new(&mut out, schema, None)
                    .unwrap()
                    .with_threads(2)
                    .with_memory_listener(listener);
                w.write(&batch).await.unwrap();
                w.close().await.unwrap();
            });
            out
        })
    };
    blocked
        .recv_timeout(patience)
        .expect("writer A's call never reached a worker");
    // Writer B's call is queued behind it (polled once, here)...
    let mut out = Vec::new();
    {
        let mut b = AsyncArrowWriter::try_new(&mut out, schema.clone(), None)
            .unwrap()
            .with_threads(2);
        {
            let write = b.write(&batch);
            let mut write = std::pin::pin!(write);
            assert!(
                poll_for(write.as_mut(), std::time::Duration::ZERO).is_none(),
                "the only worker is busy"
            );
            // ...then the cap drops to 0 and A's call ends: the worker ends.
            parquet_flba::set_worker_threads(0);
            release.send(()).unwrap();
            assert!(a.join().unwrap() == expected, "writer A: the files differ");
            let written = poll_for(write.as_mut(), patience);
            assert!(
                matches!(written, Some(Ok(()))),
                "the call queued before the last worker ended never completed: {written:?}"
            );
        }
        let close = b.close();
        let mut close = std::pin::pin!(close);
        assert!(matches!(poll_for(close.as_mut(), patience), Some(Ok(_))));
    }
    assert!(out == expected, "writer B: the files differ");
}

/// Page stores that panic on every page of column `.0`, counting the
/// pages they were asked to store (in `.1`).
#[cfg(not(feature = "parquet-58"))]
#[derive(Debug)]
struct PanickingStores(usize, Arc<std::sync::atomic::AtomicUsize>);

#[cfg(not(feature = "parquet-58"))]
impl parquet::arrow::arrow_writer::PageStoreFactory for PanickingStores {
    fn create(
        &self,
        args: &parquet::arrow::arrow_writer::PageStoreArgs<'_>,
    ) -> parquet::errors::Result<Box<dyn parquet::arrow::arrow_writer::PageStore>> {
        Ok(Box::new(PanickingStore {
            inner: VecPageStore::default(),
            asked: (args.column_index() == self.0).then(|| self.1.clone()),
        }))
    }
}

#[cfg(not(feature = "parquet-58"))]
struct PanickingStore {
    inner: VecPageStore,
    asked: Option<Arc<std::sync::atomic::AtomicUsize>>,
}

#[cfg(not(feature = "parquet-58"))]
impl parquet::arrow::arrow_writer::PageStore for PanickingStore {
    fn put(
        &mut self,
        value: bytes::Bytes,
    ) -> parquet::errors::Result<parquet::arrow::arrow_writer::PageKey> {
        if let Some(asked) = &self.asked {
            asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            panic!("the store broke");
        }
        self.inner.put(value)
    }

    fn take(
        &mut self,
        key: parquet::arrow::arrow_writer::PageKey,
    ) -> parquet::errors::Result<bytes::Bytes> {
        self.inner.take(key)
    }
}

/// A column whose queued work panicked is not written to again by the
/// same write: with no worker (a cap of 0) a write's columns run when the
/// writer waits for them, here in the next write, which is kept on the
/// calling thread and writes its leaves there once the lanes are idle.
/// The column that panicked (its writer half-changed) used to be handed
/// that write's rows all the same (its store was asked for pages again);
/// now the write fails with the panic, naming the column, before it writes
/// any leaf, and the writer cannot go on.
#[cfg(not(feature = "parquet-58"))]
#[test]
fn a_panicked_column_is_not_written_again() {
    use parquet::file::properties::WriterProperties;
    use parquet_flba::ArrowWriterOptions;
    use std::time::Duration;
    let _serial = serial();
    parquet_flba::set_worker_threads(0);
    wait_for_at_most(0);
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Decimal128(38, 10), true),
        Field::new("b", DataType::FixedSizeBinary(16), false),
    ]));
    let mut g = Gen::new("panicked_lane");
    let batch = g.batch(&schema, 20_000, &Spec::new(Nulls::Density(0.1)));
    let props = WriterProperties::builder()
        .set_data_page_size_limit(1024)
        .set_dictionary_enabled(false)
        .build();
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let options = ArrowWriterOptions::new()
        .with_properties(props)
        .with_page_store_factory(Arc::new(PanickingStores(1, asked.clone())));
    let mut w = ArrowWriter::try_new_with_options(Vec::new(), schema, options)
        .unwrap()
        .with_threads(2)
        .with_min_parallel_work(Duration::ZERO);
    // Queued on the lanes; nothing runs it yet.
    w.write(&batch).unwrap();
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 0);
    // The next write stays on the calling thread.
    let mut w = w.with_min_parallel_work(Duration::MAX);
    let e = w
        .write(&batch)
        .expect_err("the write after the panic succeeded")
        .to_string();
    let work = w.thread_work();
    assert_eq!((work.writes_on_threads, work.writes_on_caller), (1, 1));
    assert!(
        e.contains("'b'") && e.contains("panicked") && e.contains("the store broke"),
        "{e}"
    );
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        1,
        "the column was written to after it panicked"
    );
    let after = w.write(&batch).unwrap_err().to_string();
    assert!(after.contains("cannot continue"), "{after}");
}

/// A memory pool that grants every grow while it is open, counting what
/// it holds and what it refused.
#[derive(Debug, Default)]
struct Gate {
    used: std::sync::atomic::AtomicUsize,
    shut: std::sync::atomic::AtomicBool,
    refused: std::sync::atomic::AtomicUsize,
}

impl Gate {
    fn used(&self) -> usize {
        self.used.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn refused(&self) -> usize {
        self.refused.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn shut(&self, shut: bool) {
        self.shut.store(shut, std::sync::atomic::Ordering::SeqCst);
    }
}

impl parquet_flba::MemoryListener for Gate {
    fn try_grow(&self, bytes: usize) -> parquet::errors::Result<()> {
        use std::sync::atomic::Ordering::SeqCst;
        if self.shut.load(SeqCst) {
            self.refused.fetch_add(1, SeqCst);
            return Err(parquet::errors::ParquetError::General(
                "the gate is shut".into(),
            ));
        }
        self.used.fetch_add(bytes, SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.used
            .fetch_sub(bytes, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Two FLBA columns, `rows` rows from `g`.
fn two_columns(g: &mut Gen, rows: usize) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Decimal128(38, 10), true),
        Field::new("b", DataType::FixedSizeBinary(16), false),
    ]));
    g.batch(&schema, rows, &Spec::new(Nulls::Density(0.1)))
}

/// A refusal met by the lanes while they encode the last write's work
/// (here, with no worker, when the writer waits for it) is reported by
/// the flush or finish that follows, before it does anything, and says
/// so; it used to be lost (and an engine's listener that remembers a
/// refusal would then blame it for a later, unrelated error). Reported
/// once: the call goes through when made again, and the file is
/// parquet's.
#[test]
fn a_refusal_in_the_last_write_is_reported_by_flush_and_finish() {
    let _serial = serial();
    parquet_flba::set_worker_threads(0);
    wait_for_at_most(0);
    let mut g = Gen::new("refusal_before_close");
    let (first, second) = (two_columns(&mut g, 20_000), two_columns(&mut g, 20_000));
    let gate = Arc::new(Gate::default());
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, first.schema(), None)
        .unwrap()
        .with_threads(2)
        .with_min_parallel_work(std::time::Duration::ZERO)
        .with_memory_listener(gate.clone())
        .with_memory_reservation_block(1);
    for (batch, finish) in [(&first, false), (&second, true)] {
        w.write(batch).unwrap();
        gate.shut(true);
        let refused = gate.refused();
        let e = match finish {
            false => w.flush().unwrap_err(),
            true => w.finish().map(drop).unwrap_err(),
        }
        .to_string();
        assert!(gate.refused() > refused, "nothing was refused");
        assert!(e.contains("memory reservation refused"), "{e}");
        assert!(e.contains("columns encoded on other threads"), "{e}");
        let said = match finish {
            false => "nothing was flushed",
            true => "the file was not finished",
        };
        assert!(e.contains(said), "{e}");
        gate.shut(false);
        match finish {
            false => w.flush().unwrap(),
            true => drop(w.finish().unwrap()),
        }
    }
    drop(w);
    assert_eq!(gate.used(), 0);
    let mut expected = Vec::new();
    let mut up = parquet::arrow::ArrowWriter::try_new(&mut expected, first.schema(), None).unwrap();
    up.write(&first).unwrap();
    up.flush().unwrap();
    up.write(&second).unwrap();
    up.close().unwrap();
    assert!(out == expected, "the files differ");
}
