//! parquet-flba (scaffold)
pub use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn,
    ArrowRowGroupWriterFactory, ArrowWriter, ArrowWriterOptions,
};
