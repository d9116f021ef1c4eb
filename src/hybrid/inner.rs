//! The inner `parquet` writer of the hybrid sink: the leaves this crate does
//! not encode, written with `parquet`'s own content-defined chunking, one
//! row group at a time in lockstep with the outer writer.

use super::layout::Part;
use crate::compat::PageStoreFactory;
use crate::schema::prune::prune_array;
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::{BloomFilterPosition, WriterProperties};
use parquet::file::reader::{ChunkReader, Length};
use parquet::schema::types::{SchemaDescriptor, TypePtr};
use std::sync::Arc;

/// The inner writer and how far its output has been taken.
pub(super) struct InnerWriter {
    writer: upstream::ArrowWriter<Vec<u8>>,
    /// How each top-level field of the file is split.
    pub(super) parts: Vec<Part>,
    /// Bytes of the inner file already taken out of its buffer.
    drained: u64,
    /// Row groups taken.
    taken: usize,
    /// The inner writer's leaves, for messages.
    columns: String,
    /// The error of a panic of the inner writer (its state is unknown
    /// after one: every later call fails with it).
    broken: Option<String>,
    /// The inner writer's properties (to find which column panicked).
    props: WriterProperties,
}

impl InnerWriter {
    /// An inner writer over the sub-schema, with the file's properties
    /// except: no byte limit (the outer writer, which sees every column's
    /// estimate, splits row groups), bloom filters after each row group
    /// (read back as it is spliced), and no footer-only metadata.
    pub(super) fn try_new(
        parts: Vec<Part>,
        sub_arrow: SchemaRef,
        sub_root: TypePtr,
        props: &WriterProperties,
        page_stores: Option<Arc<dyn PageStoreFactory>>,
    ) -> Result<Self> {
        let props = props
            .clone()
            .into_builder()
            .set_max_row_group_bytes(None)
            .set_bloom_filter_position(BloomFilterPosition::AfterRowGroup)
            .set_key_value_metadata(None)
            .set_sorting_columns(None)
            .build();
        let sub_schema = SchemaDescriptor::new(sub_root);
        let columns: Vec<String> = sub_schema
            .columns()
            .iter()
            .map(|c| c.path().string())
            .collect();
        let mut options = upstream::ArrowWriterOptions::new()
            .with_properties(props.clone())
            .with_skip_arrow_metadata(true)
            .with_parquet_schema(sub_schema);
        if let Some(f) = page_stores {
            options = crate::compat::options_with_page_stores(options, f);
        }
        let writer = upstream::ArrowWriter::try_new_with_options(Vec::new(), sub_arrow, options)?;
        Ok(Self {
            writer,
            parts,
            drained: 0,
            taken: 0,
            columns: columns.join("', '"),
            broken: None,
            props,
        })
    }

    /// Runs `f` on the inner writer: a panic (`parquet` panics on some
    /// inputs it accepts) is an error naming the inner writer's columns,
    /// and breaks the writer.
    ///
    /// After a panic writing `batch`, the column is the first field that
    /// panics alone (else every column of the inner writer is named).
    fn run<T>(
        &mut self,
        doing: &str,
        batch: Option<&RecordBatch>,
        f: impl FnOnce(&mut upstream::ArrowWriter<Vec<u8>>) -> Result<T>,
    ) -> Result<T> {
        if let Some(e) = &self.broken {
            return Err(ParquetError::General(e.clone()));
        }
        let writer = &mut self.writer;
        match crate::pool::run_caught(|| f(writer)) {
            Ok(result) => result,
            Err(message) => {
                let column = batch.and_then(|b| crate::column::panicking_field(b, &self.props));
                let column = column.as_deref().unwrap_or(&self.columns);
                let e = crate::column::panic_error(column, doing, &message);
                self.broken = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// Writes the inner writer's part of `part` (a slice of a validated
    /// batch that fits the current row group).
    pub(super) fn write(&mut self, part: &RecordBatch) -> Result<()> {
        let mut columns = Vec::new();
        let mut fields = Vec::new();
        let schema = part.schema();
        for ((side, array), field) in self.parts.iter().zip(part.columns()).zip(schema.fields()) {
            let array = match side {
                Part::Outer => continue,
                Part::Whole => array.clone(),
                Part::Pruned(inner) => prune_array(array, inner, &mut 0)?.ok_or_else(|| {
                    ParquetError::General(format!("field '{}' has no leaf left", field.name()))
                })?,
            };
            // The batch's own field (its nested names may differ from the
            // writer schema's, as `parquet` allows), with the pruned type.
            fields.push(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(array.data_type().clone()),
            );
            columns.push(array);
        }
        let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
        let options = RecordBatchOptions::new().with_row_count(Some(part.num_rows()));
        let batch = RecordBatch::try_new_with_options(Arc::new(schema), columns, &options)?;
        self.run("writing", Some(&batch), |w| w.write(&batch))
    }

    /// The inner writer's estimate of its in-progress row group.
    pub(super) fn estimated_bytes(&self) -> usize {
        self.writer.in_progress_size()
    }

    /// Memory held by the inner writer and its output buffer.
    pub(super) fn memory_size(&self) -> usize {
        self.writer.memory_size() + self.writer.inner().capacity()
    }

    /// Flushes the inner writer's row group and takes its bytes.
    pub(super) fn take_row_group(&mut self) -> Result<(InnerBytes, RowGroupMetaData)> {
        self.run("flushing a row group", None, |w| {
            w.flush()?;
            Ok(w.sync()?)
        })?;
        let flushed = self.writer.flushed_row_groups();
        let metadata = flushed.get(self.taken).cloned().ok_or_else(|| {
            ParquetError::General(format!(
                "the inner writer has {} row groups, expected {}",
                flushed.len(),
                self.taken + 1
            ))
        })?;
        self.taken += 1;
        let data = Bytes::from(std::mem::take(self.writer.inner_mut()));
        let bytes = InnerBytes {
            base: self.drained,
            data,
        };
        self.drained += bytes.data.len() as u64;
        Ok((bytes, metadata))
    }

    /// Finishes the inner file (whose bytes are not used) for its page
    /// indexes.
    pub(super) fn finish(&mut self) -> Result<ParquetMetaData> {
        self.run("finishing", None, |w| w.finish())
    }
}

/// The inner writer's output for one row group, at its position in the
/// inner file: column chunks and bloom filters are read from it.
pub(super) struct InnerBytes {
    base: u64,
    data: Bytes,
}

impl InnerBytes {
    fn range(&self, start: u64, len: usize) -> Result<Bytes> {
        let from = start
            .checked_sub(self.base)
            .and_then(|s| usize::try_from(s).ok())
            .filter(|&s| s.saturating_add(len) <= self.data.len())
            .ok_or_else(|| {
                ParquetError::General(format!(
                    "inner writer bytes {start}..+{len} are not in the row group's output"
                ))
            })?;
        Ok(self.data.slice(from..from + len))
    }
}

impl Length for InnerBytes {
    fn len(&self) -> u64 {
        self.base + self.data.len() as u64
    }
}

impl ChunkReader for InnerBytes {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> Result<Self::T> {
        let len = self.len().saturating_sub(start) as usize;
        Ok(bytes::Buf::reader(self.range(start, len)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.range(start, length)
    }
}
