//! The process-wide cache of page blocks (`set_block_cache_limit`): the
//! blocks of a written chunk are kept, drawn on by the next file's column
//! writers (on the calling thread and on worker threads), bounded by the
//! limit, and freed when it is lowered; the files are `parquet`'s whatever
//! the limit.
//!
//! One test in this binary: the cache is shared by the whole process, so
//! another test writing files at the same time would change what it holds.

include!("../src/versions.rs");

use std::sync::Arc;

use arrow_array::{Decimal128Array, FixedSizeBinaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet_flba::{DEFAULT_BLOCK_CACHE_LIMIT, block_cache_bytes, set_block_cache_limit};

const ROWS: usize = 50_000;

fn batch() -> RecordBatch {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let decimals = Decimal128Array::from_iter_values(
        (0..ROWS).map(|_| (next() as i128) << 40 | next() as i128 >> 30),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let ids =
        FixedSizeBinaryArray::try_from_iter((0..ROWS).map(|_| next().to_le_bytes().repeat(2)))
            .unwrap();
    let schema = Schema::new(vec![
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("id", DataType::FixedSizeBinary(16), true),
    ]);
    RecordBatch::try_new(Arc::new(schema), vec![Arc::new(decimals), Arc::new(ids)]).unwrap()
}

fn parquet_file(batch: &RecordBatch) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
    out
}

/// A file written with parquet-flba on `threads` threads; `during` is
/// called after the write has been encoded, before `close`.
fn ours(batch: &RecordBatch, threads: usize, during: impl FnOnce()) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = parquet_flba::ArrowWriter::try_new(&mut out, batch.schema(), None)
        .unwrap()
        .with_threads(threads)
        .with_min_parallel_work(std::time::Duration::ZERO);
    w.write(batch).unwrap();
    // On several threads `write` only queues the columns' work on their
    // lanes; `in_progress_size` waits for it, so the blocks are drawn.
    assert!(w.in_progress_size() > 0);
    during();
    w.close().unwrap();
    out
}

#[test]
fn blocks_are_kept_reused_and_bounded() {
    let batch = batch();
    let expected = parquet_file(&batch);

    assert_eq!(set_block_cache_limit(0), DEFAULT_BLOCK_CACHE_LIMIT);
    assert_eq!(block_cache_bytes(), 0);
    // Off: nothing is kept.
    assert_eq!(ours(&batch, 1, || {}), expected);
    assert_eq!(block_cache_bytes(), 0);

    // On: the written chunks' blocks are kept...
    set_block_cache_limit(DEFAULT_BLOCK_CACHE_LIMIT);
    assert_eq!(ours(&batch, 1, || {}), expected);
    let kept = block_cache_bytes();
    assert!(
        kept >= ROWS * 16,
        "{kept} bytes kept, less than a column's values"
    );
    // ... and the next file's writers take them (on one thread and on two),
    // writing the same bytes into them.
    for threads in [1, 2] {
        let mut during = None;
        assert_eq!(
            ours(&batch, threads, || during = Some(block_cache_bytes())),
            expected,
            "{threads} threads"
        );
        let during = during.unwrap();
        assert!(
            during < kept,
            "{threads} threads: {during} bytes cached while writing, {kept} before: none taken"
        );
        // Every block taken is given back. On one thread the file asks for
        // the same sizes in the same order, so exactly the same blocks come
        // back; on two, a column may find a size taken by another column a
        // moment before (or given back early) and allocate one more.
        let after = block_cache_bytes();
        match threads {
            1 => assert_eq!(after, kept, "one thread: the same blocks back"),
            _ => assert!(
                after >= kept,
                "{threads} threads: {after} bytes back of {kept}"
            ),
        }
    }

    // A limit below what a file leaves: never more than the limit is kept.
    let small = 96 << 10;
    set_block_cache_limit(small);
    assert!(block_cache_bytes() <= small);
    assert_eq!(ours(&batch, 2, || {}), expected);
    assert!(block_cache_bytes() <= small);

    set_block_cache_limit(0);
    assert_eq!(block_cache_bytes(), 0);
    set_block_cache_limit(DEFAULT_BLOCK_CACHE_LIMIT);
}
