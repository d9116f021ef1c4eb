#![doc = include_str!("../README.md")]
//!
//! # How it works
//!
//! ```text
//! RecordBatch
//!  └─ ArrowWriter::write ── validate, split into row groups (as parquet does)
//!       └─ per leaf: top-level FIXED_LEN_BYTE_ARRAY? ── no ──> parquet's ArrowColumnWriter
//!            │ yes
//!            ▼
//!       leaf      validity bitmap → definition levels; mini-batches as parquet cuts them
//!       values    Arrow buffers → Parquet bytes, a contiguous run at a time
//!       encoding  dictionary (fixed-width keys) | plain | byte_stream_split | delta_byte_array
//!       page      statistics, page cuts, V1/V2 pages, compression, indexes, bloom filter
//!       chunk     pages + ColumnCloseResult → SerializedRowGroupWriter::append_column
//! ```
//!
//! The modules follow that flow: [`values`](crate) → `leaf` → `encoding` →
//! `page` → `chunk`, with `column`, `factory` and `writer` providing the
//! drop-in API.

#![warn(missing_docs)]

mod cdc;
mod chunk;
mod column;
mod encoding;
mod factory;
mod hybrid;
mod leaf;
mod levels;
mod memory;
mod page;
mod spill;
mod validate;
mod values;
mod writer;

pub use column::{ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, compute_leaves};
pub use factory::ArrowRowGroupWriterFactory;
pub use memory::{DEFAULT_RESERVATION_BLOCK, MemoryListener};
pub use parquet::arrow::arrow_writer::{
    InMemoryPageStore, InMemoryPageStoreFactory, PageKey, PageStore, PageStoreArgs,
    PageStoreFactory,
};
pub use spill::SpillPageStoreFactory;
pub use writer::{ArrowWriter, ArrowWriterOptions};

#[cfg(feature = "async")]
mod async_writer;
#[cfg(feature = "async")]
pub use async_writer::AsyncArrowWriter;
#[cfg(feature = "async")]
pub use parquet::arrow::async_writer::AsyncFileWriter;

#[cfg(test)]
mod smoke_tests;
