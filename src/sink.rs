//! [`RowGroupSink`]: where a row group's column chunks go once its column
//! writers are closed, and everything else the file writer behind it owns
//! (flushed row groups, byte counts, footer).
//!
//! Two sinks: [`FileSink`] appends the chunks to a `SerializedFileWriter`;
//! the hybrid sink (`hybrid::SpliceSink`, content-defined chunking on a table
//! that mixes fast and `parquet` leaves) also runs an inner `parquet` writer
//! for the leaves the row-group writer leaves to it and splices its chunks
//! in. The row-group writer does not know which it has.

use crate::ArrowRowGroupWriterFactory;
use crate::column::ArrowColumnChunk;
use arrow_array::RecordBatch;
use parquet::errors::Result;
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::writer::SerializedFileWriter;
use std::io::Write;

/// Where the row-group writer sends what it encodes.
pub(crate) trait RowGroupSink<W: Write>: std::fmt::Debug + Send {
    /// Whether the row-group writer encodes only the fast leaves (the sink
    /// encodes the others from [`Self::write_rows`]); else it encodes all.
    fn takes_parquet_leaves(&self) -> bool;

    /// Rows of the current row group, for the leaves the sink encodes.
    fn write_rows(&mut self, part: &RecordBatch) -> Result<()>;

    /// Estimated encoded bytes the sink buffers for the current row group.
    fn estimated_bytes(&self) -> usize;

    /// Memory the sink holds, in bytes.
    fn memory_size(&self) -> usize;

    /// Writes a row group: `chunks` are the row-group writer's, with their
    /// leaf indices, in leaf order.
    fn append_row_group(
        &mut self,
        chunks: &mut dyn Iterator<Item = Result<(usize, ArrowColumnChunk)>>,
    ) -> Result<()>;

    /// Metadata of the row groups written so far.
    fn flushed_row_groups(&self) -> &[RowGroupMetaData];

    /// Bytes of the file written to the output so far.
    fn bytes_written(&self) -> usize;

    /// The output.
    fn inner(&self) -> &W;

    /// The output, mutably.
    fn inner_mut(&mut self) -> &mut W;

    /// Writes `buf` to the output through the file's byte count.
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()>;

    /// Flushes the output.
    fn flush(&mut self) -> std::io::Result<()>;

    /// Adds key-value metadata to the footer.
    fn append_key_value_metadata(&mut self, kv: KeyValue);

    /// Writes the footer.
    fn finish(&mut self) -> Result<ParquetMetaData>;

    /// Writes the footer if not yet written and returns the output.
    fn into_inner(self) -> Result<W>
    where
        Self: Sized;

    /// The file writer, to go on at the column level; `factory` is the
    /// row-group writer's, to rebuild if the sink's file writer changes.
    fn into_serialized_writer(
        self,
        factory: ArrowRowGroupWriterFactory,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)>
    where
        Self: Sized;
}

/// The plain sink: chunks appended to the file writer in order.
pub(crate) struct FileSink<W: Write>(pub(crate) SerializedFileWriter<W>);

impl<W: Write + Send> std::fmt::Debug for FileSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<W: Write + Send> RowGroupSink<W> for FileSink<W> {
    fn takes_parquet_leaves(&self) -> bool {
        false
    }

    fn write_rows(&mut self, _part: &RecordBatch) -> Result<()> {
        Ok(())
    }

    fn estimated_bytes(&self) -> usize {
        0
    }

    fn memory_size(&self) -> usize {
        0
    }

    fn append_row_group(
        &mut self,
        chunks: &mut dyn Iterator<Item = Result<(usize, ArrowColumnChunk)>>,
    ) -> Result<()> {
        let mut row_group = self.0.next_row_group()?;
        for chunk in chunks {
            let (_, chunk) = chunk?;
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        Ok(())
    }

    fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.0.flushed_row_groups()
    }

    fn bytes_written(&self) -> usize {
        self.0.bytes_written()
    }

    fn inner(&self) -> &W {
        self.0.inner()
    }

    fn inner_mut(&mut self) -> &mut W {
        self.0.inner_mut()
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }

    fn append_key_value_metadata(&mut self, kv: KeyValue) {
        self.0.append_key_value_metadata(kv)
    }

    fn finish(&mut self) -> Result<ParquetMetaData> {
        self.0.finish()
    }

    fn into_inner(self) -> Result<W> {
        self.0.into_inner()
    }

    fn into_serialized_writer(
        self,
        factory: ArrowRowGroupWriterFactory,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        Ok((self.0, factory))
    }
}
