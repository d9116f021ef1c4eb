//! `ArrowWriter::memory_size()` against the heap the writer actually holds,
//! measured with a counting global allocator, after every batch, for the
//! FIXED_LEN_BYTE_ARRAY workloads of DESIGN.md (uncompressed; codec state is
//! not counted by `memory_size`, as in `parquet`).
//!
//! This test binary has its own global allocator; it runs its cases one at a
//! time (a mutex) so that live-byte deltas belong to the case being measured.

use arrow_array::{
    ArrayRef, Decimal128Array, Decimal256Array, FixedSizeBinaryArray, Float16Array, RecordBatch,
};
use arrow_buffer::i256;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet_flba::ArrowWriter;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: same contract as `GlobalAlloc::alloc`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: same contract as `GlobalAlloc::alloc_zeroed`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: same contract as `GlobalAlloc::dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        // SAFETY: same contract as `GlobalAlloc::realloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

static SERIAL: Mutex<()> = Mutex::new(());

const ROWS: usize = 32_768;
const BATCHES: usize = 4;

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn workload(name: &str, seed: u64) -> RecordBatch {
    let mut r = rng(seed);
    let col: ArrayRef = match name {
        "decimal128" => Arc::new(
            Decimal128Array::from_iter_values((0..ROWS).map(|_| (r() as i128) << 20))
                .with_precision_and_scale(38, 10)
                .unwrap(),
        ),
        "decimal256" => Arc::new(
            Decimal256Array::from_iter_values(
                (0..ROWS).map(|_| i256::from_parts(r() as u128 | ((r() as u128) << 64), 7)),
            )
            .with_precision_and_scale(76, 10)
            .unwrap(),
        ),
        "uuid" => Arc::new(
            FixedSizeBinaryArray::try_from_iter(
                (0..ROWS).map(|_| ((r() as u128) << 64 | r() as u128).to_le_bytes()),
            )
            .unwrap(),
        ),
        "fsb_nulls" => Arc::new(
            FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                (0..ROWS).map(|_| {
                    let v = r();
                    v.is_multiple_of(10)
                        .then(|| ((v as u128) << 64 | r() as u128).to_le_bytes())
                }),
                16,
            )
            .unwrap(),
        ),
        "lowcard" => Arc::new(
            Decimal128Array::from_iter_values((0..ROWS).map(|_| (r() % 1000) as i128 * 1_000_003))
                .with_precision_and_scale(38, 2)
                .unwrap(),
        ),
        "float16" => Arc::new(Float16Array::from_iter_values(
            (0..ROWS).map(|_| half::f16::from_bits(r() as u16 & 0x7bff)),
        )),
        _ => unreachable!(),
    };
    RecordBatch::try_from_iter([("v", col)]).unwrap()
}

fn check(name: &str, props: WriterProperties) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let batches: Vec<RecordBatch> = (0..BATCHES as u64).map(|s| workload(name, s)).collect();
    let mut out = Vec::with_capacity(64 << 20);
    let mut w = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    // The file writer's own buffer and schema are not column memory (and, as
    // in `parquet`, not part of `memory_size`): measure from here.
    let before = LIVE.load(Ordering::SeqCst);
    for (i, b) in batches.iter().enumerate() {
        w.write(b).unwrap();
        let live = (LIVE.load(Ordering::SeqCst) - before) as f64;
        let reported = w.memory_size() as f64;
        let error = (reported - live).abs() / live;
        println!(
            "{name} batch {i}: live {live} reported {reported} ({:.1}%)",
            error * 100.0
        );
        assert!(
            error <= 0.10,
            "{name} after batch {i}: memory_size() {reported} vs live {live} ({:.1}% off)",
            error * 100.0
        );
    }
    w.close().unwrap();
}

#[test]
fn default_configuration() {
    for name in [
        "decimal128",
        "decimal256",
        "uuid",
        "fsb_nulls",
        "lowcard",
        "float16",
    ] {
        check(name, WriterProperties::default());
    }
}

#[test]
fn plain_v2_and_bloom() {
    for name in ["decimal128", "uuid", "fsb_nulls"] {
        check(
            name,
            WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .build(),
        );
        check(
            name,
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .build(),
        );
        check(
            name,
            WriterProperties::builder()
                .set_bloom_filter_enabled(true)
                .build(),
        );
    }
}

#[test]
fn setup_overhead() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = workload("fsb_nulls", 1);
    let before = LIVE.load(Ordering::SeqCst);
    let w = ArrowWriter::try_new(Vec::new(), b.schema(), None).unwrap();
    let after = LIVE.load(Ordering::SeqCst);
    println!("setup live {} reported {}", after - before, w.memory_size());
    assert_eq!(w.memory_size(), 0, "nothing buffered yet, as in parquet");
}
