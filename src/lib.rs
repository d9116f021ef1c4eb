#![doc = include_str!("../README.md")]
//!
//! # How it works
//!
//! ```text
//! RecordBatch
//!  └─ ArrowWriter::write ── validate, split into row groups (as parquet does)
//!       └─ ColumnPlan, per leaf (top level or nested; plain, dictionary or
//!          run-end encoded): a FIXED_LEN_BYTE_ARRAY type or a decimal
//!          (INT32 / INT64 up to precision 18), with the descriptor the
//!          schema converter makes? ── no ──> parquet's ArrowColumnWriter
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
pub use writer::{ArrowWriter, ArrowWriterOptions};

/// The `parquet` release this build resolved, whose `ArrowWriter` it
/// matches byte for byte and whose types its API takes: a 60.1 release with
/// the `parquet-60` feature (the default), 59.3 with `parquet-59`, 58.4
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
