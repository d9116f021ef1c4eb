//! A drop-in replacement for `parquet::arrow::ArrowWriter` that writes
//! Arrow columns several times faster, with no per-value heap allocation,
//! and produces byte-for-byte the same file.
//!
//! The columns it encodes itself: integers of every width, signed and
//! unsigned, dates, times, timestamps and durations (INT32 / INT64);
//! floating point (`Float16`, `Float32`, `Float64`) and booleans; strings
//! and binary (`Utf8`, `LargeUtf8`, `Utf8View`, `Binary`, `LargeBinary`,
//! `BinaryView`); decimals of every precision (`Decimal32`/`Decimal64`/
//! `Decimal128`/`Decimal256`, stored as INT32, INT64 or
//! FIXED_LEN_BYTE_ARRAY as `parquet` stores them), `FixedSizeBinary`
//! (UUIDs) and intervals; at top level or nested, plain, dictionary-typed
//! or run-end encoded. Every other column (and every case the fast path
//! does not cover, listed with its [`DelegateReason`]) is written by
//! `parquet`'s own column writer, untouched.
//!
//! # Switching
//!
//! Change one `use` line; nothing else about your files changes:
//!
//! ```rust,ignore
//! // use parquet::arrow::ArrowWriter;
//! use parquet_flba::ArrowWriter;
//! ```
//!
//! The writer takes the selected `parquet` release's own types
//! (`RecordBatch`, `WriterProperties`, `ParquetError`); [`parquet`],
//! [`arrow_array`] and [`arrow_schema`] re-export them.
//!
//! # Example
//!
//! The same batch written by `parquet`'s writer and by this crate gives
//! the same bytes; [`ArrowWriter::column_plan`] says which leaves took the
//! fast path:
//!
//! ```
//! use parquet_flba::arrow_array::{ArrayRef, Decimal128Array, Int64Array, NullArray, RecordBatch};
//! use parquet_flba::{ArrowWriter, LeafPath, parquet};
//! use std::sync::Arc;
//!
//! let price = Decimal128Array::from(vec![1_i128, 2, -3])
//!     .with_precision_and_scale(38, 2)
//!     .unwrap();
//! let batch = RecordBatch::try_from_iter_with_nullable([
//!     ("price", Arc::new(price) as ArrayRef, false),
//!     ("qty", Arc::new(Int64Array::from(vec![3, 4, 5])) as ArrayRef, false),
//!     ("note", Arc::new(NullArray::new(3)) as ArrayRef, true),
//! ])
//! .unwrap();
//!
//! let mut ours = ArrowWriter::try_new(Vec::new(), batch.schema(), None).unwrap();
//! let plan = ours.column_plan();
//! assert_eq!(plan.leaves()[0].path(), LeafPath::Fast); // the decimal
//! assert_eq!(plan.leaves()[1].path(), LeafPath::Fast); // the integer
//! assert_eq!(plan.leaves()[2].path(), LeafPath::Parquet); // the Null column
//! println!("{plan}");
//! ours.write(&batch).unwrap();
//!
//! let mut theirs =
//!     parquet::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), None).unwrap();
//! theirs.write(&batch).unwrap();
//!
//! assert_eq!(ours.into_inner().unwrap(), theirs.into_inner().unwrap());
//! ```
//!
//! # The main types
//!
//! - [`ArrowWriter`] and [`ArrowWriterOptions`]: the writer, as `parquet`'s;
//!   `AsyncArrowWriter` (feature `async`) for `AsyncFileWriter`s.
//! - [`ArrowRowGroupWriterFactory`], [`ArrowColumnWriter`],
//!   [`ArrowColumnChunk`], [`ArrowLeafColumn`], [`compute_leaves`]: the
//!   column-level API that parallel writers use, as `parquet`'s.
//! - [`ColumnPlan`], [`LeafPath`], [`DelegateReason`]: which path each leaf
//!   takes, and why a leaf is left to `parquet`.
//! - [`MemoryListener`]: memory accounting (e.g. over a query engine's
//!   pool); `SpillPageStoreFactory` (not with `parquet-58`) keeps a row
//!   group's pages within a memory budget and spills the rest to disk.
//! - [`PARQUET_RELEASE`] and [`VERIFIED_PARQUET_RELEASES`]: the release a
//!   build writes like, and the patch releases the fast path is verified
//!   against (on any other, every leaf goes to `parquet`).
//!
//! # Feature flags
//!
//! - `parquet-60` (default), `parquet-59`, `parquet-58`: the `parquet`
//!   release to write like (60.1 or 60.2, 59.3, 58.4); exactly one must be on, and
//!   it must be the release the rest of the program uses.
//! - `async`: `AsyncArrowWriter`, drop-in for `parquet`'s.
//! - `encryption`: `parquet`'s modular encryption (encrypted columns are
//!   written by `parquet`'s own column writer).
//! - `cli` (default): the `parquet-flba` demo binary (`cargo run --release`).
//!
//! # More
//!
//! The repository's `README.md` is the front page, and its `docs/` folder
//! (index: `docs/README.md`) has the rest: choosing the release
//! (`docs/usage.md`), every case left to `parquet` (`docs/fast-path.md`),
//! benchmarks and the commands behind them (`docs/performance.md`),
//! threads, memory, DataFusion and Ballista.
//!
//! # How it works
//!
//! ```text
//! RecordBatch
//!  └─ ArrowWriter::write ── validate, split into row groups (as parquet does)
//!       └─ ColumnPlan, per leaf (top level or nested; plain, dictionary or
//!          run-end encoded): a fixed-width type (FIXED_LEN_BYTE_ARRAY,
//!          a decimal, an integer, date, time, timestamp or duration), with
//!          the descriptor the schema converter makes? ── no ──> parquet's
//!          ArrowColumnWriter
//!            │ yes
//!            ▼
//!       levels    validity and nesting → definition/repetition levels
//!       leaf      mini-batches as parquet cuts them (content-defined
//!                 chunks with CDC)
//!       values    Arrow buffers → Parquet bytes, a contiguous run at a time
//!       encoding  dictionary (fixed-width keys) | plain | byte_stream_split |
//!                 delta_byte_array | delta_binary_packed (INT32 / INT64)
//!       page      statistics, page cuts, V1/V2 pages, compression, indexes, bloom filter
//!       chunk     pages + ColumnCloseResult
//!            ▼
//!       RowGroupSink: SerializedRowGroupWriter::append_column, or (CDC on a
//!       table mixing both paths) spliced with the chunks of an inner
//!       parquet ArrowWriter that writes the other leaves
//! ```
//!
//! [`ColumnPlan`] is the one place that decides a leaf's path, and says
//! why (see [`ArrowWriter::column_plan`]). The modules follow the flow:
//! `plan` → `levels` → `leaf` → `values` → `encoding` → `page` → `chunk`,
//! with `column`, `factory`, `sink`, `hybrid` and `writer` providing the
//! drop-in API on top.

#![warn(missing_docs)]

include!("versions.rs");

mod arrays;
mod cdc;
mod chunk;
mod column;
mod compat;
mod cpu;
mod encoding;
mod factory;
mod hybrid;
mod leaf;
mod levels;
mod memory;
mod page;
mod plan;
mod pool;
mod schema;
mod sink;
#[cfg(not(feature = "parquet-58"))]
mod spill;
mod validate;
mod values;
mod writer;

pub use chunk::{DEFAULT_BLOCK_CACHE_LIMIT, block_cache_bytes, set_block_cache_limit};
pub use column::{ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, compute_leaves};
pub use factory::ArrowRowGroupWriterFactory;
pub use memory::{DEFAULT_RESERVATION_BLOCK, MemoryListener};
/// `parquet`'s page store API (parquet 59 and later; not with the
/// `parquet-58` feature).
#[cfg(not(feature = "parquet-58"))]
pub use parquet::arrow::arrow_writer::{
    InMemoryPageStore, InMemoryPageStoreFactory, PageKey, PageStore, PageStoreArgs,
    PageStoreFactory,
};
pub use plan::{ColumnPlan, DelegateReason, LeafKind, LeafPath, LeafPlan};
pub use pool::{set_worker_threads, worker_threads, worker_threads_started};
#[cfg(not(feature = "parquet-58"))]
pub use spill::SpillPageStoreFactory;
pub use writer::{ArrowWriter, ArrowWriterOptions, LeafChunks, ThreadWork};

/// The `parquet` release this build resolved, whose `ArrowWriter` it
/// matches byte for byte and whose types its API takes: a 60.1 or 60.2
/// release with the `parquet-60` feature (the default), 59.3 with `parquet-59`, 58.4
/// with `parquet-58`.
pub const PARQUET_RELEASE: &str = compat::RESOLVED_RELEASE;

/// The patch releases of the selected line that this build's fast path was
/// checked against. If [`PARQUET_RELEASE`] is not one of them (a patch
/// published after this crate), every leaf goes to `parquet`'s own column
/// writer ([`DelegateReason::UnverifiedRelease`]): the files stay exactly
/// `parquet`'s, only without the speed-up.
pub const VERIFIED_PARQUET_RELEASES: &[&str] = compat::VERIFIED_RELEASES;

#[cfg(feature = "async")]
mod async_writer;
#[cfg(feature = "async")]
pub use async_writer::AsyncArrowWriter;
#[cfg(feature = "async")]
pub use parquet::arrow::async_writer::AsyncFileWriter;

#[cfg(test)]
mod smoke_tests;
