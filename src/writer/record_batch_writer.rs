//! [`ArrowWriter`] as arrow's `RecordBatchWriter`, as parquet's is.

use super::ArrowWriter;
use arrow_array::{RecordBatch, RecordBatchWriter};
use arrow_schema::ArrowError;
use std::io::Write;

impl<W: Write + Send> RecordBatchWriter for ArrowWriter<W> {
    fn write(&mut self, batch: &RecordBatch) -> std::result::Result<(), ArrowError> {
        self.write(batch).map_err(|e| e.into())
    }

    fn close(self) -> std::result::Result<(), ArrowError> {
        self.close()?;
        Ok(())
    }
}
