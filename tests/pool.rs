//! The process-wide worker pool: writers share it, and it never runs more
//! worker threads than its cap, however many writers use
//! `ArrowWriter::with_threads` at once. Its own test binary, as the cap
//! is process-wide.

include!("../src/versions.rs");

mod common;

use std::sync::{Arc, Barrier};

use arrow_schema::{DataType, Field, Schema};
use common::*;
use parquet_flba::ArrowWriter;

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
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
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
