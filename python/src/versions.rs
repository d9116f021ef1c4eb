//! The parquet and arrow crates of the crate's default release (60.2),
//! under the names the rest of the package uses.

pub use arrow_array_60::ffi::{FFI_ArrowArray, FFI_ArrowSchema, from_ffi_and_data_type};
pub use arrow_array_60::ffi_stream::FFI_ArrowArrayStream;
pub use arrow_array_60::{ArrayRef, RecordBatch, RecordBatchOptions, StructArray};
pub use arrow_cast_60::{CastOptions, cast_with_options};
pub use arrow_schema_60::{
    ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit,
};
pub use parquet_60 as parquet;
pub use parquet_60::errors::ParquetError;
