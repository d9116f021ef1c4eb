//! The hybrid file's footer. The file writer cannot take page indexes after
//! a chunk was appended, and the inner writer gives its page indexes up only
//! when it finishes, so the footer is assembled here: bloom filters (when
//! they go at the end), column and offset indexes, then the file metadata,
//! through `parquet`'s [`ParquetMetaDataWriter`], in the order and at the
//! offsets `SerializedFileWriter` would use.

use crate::compat::{self, PageIndexes};
use bytes::Bytes;
use parquet::bloom_filter::Sbbf;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{
    FileMetaData, KeyValue, ParquetMetaData, ParquetMetaDataBuilder, ParquetMetaDataReader,
    RowGroupMetaData,
};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::TrackedWrite;
use parquet::schema::types::SchemaDescriptor;
use std::io::Write;
use std::sync::Arc;

/// Where the page indexes of one spliced column chunk come from.
pub(super) enum IndexSource {
    /// A chunk of this crate: its indexes as closed (offsets rebased later).
    Own {
        column_index: Box<Option<ColumnIndexMetaData>>,
        offset_index: Option<OffsetIndexMetaData>,
    },
    /// A chunk of the inner writer: its row group and column there.
    Inner { row_group: usize, column: usize },
}

/// What the footer needs that the file writer does not keep.
pub(super) struct Footer {
    /// Per flushed row group and column: where its page indexes are.
    pub(super) indexes: Vec<Vec<IndexSource>>,
    /// With bloom filters at the end of the file: every chunk's filter.
    pub(super) end_blooms: Option<Vec<Vec<Option<Sbbf>>>>,
    /// Key-value metadata appended through the writer.
    pub(super) appended_kv: Vec<KeyValue>,
}

/// A writer that counts the first `skip` bytes written to it without
/// keeping them and appends the rest to `out`: behind a [`TrackedWrite`],
/// `parquet`'s metadata writer then records offsets in the real file.
struct Offset<'a> {
    skip: usize,
    out: &'a mut Vec<u8>,
}

impl Write for Offset<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let dropped = self.skip.min(buf.len());
        self.skip -= dropped;
        self.out.extend_from_slice(&buf[dropped..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A tracked writer positioned at byte `start` of the file, writing to `out`.
fn positioned(start: usize, out: &mut Vec<u8>) -> Result<TrackedWrite<Offset<'_>>> {
    static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];
    let mut tracked = TrackedWrite::new(Offset { skip: start, out });
    let mut left = start;
    while left > 0 {
        let step = left.min(ZEROS.len());
        tracked.write_all(&ZEROS[..step])?;
        left -= step;
    }
    Ok(tracked)
}

impl Footer {
    /// The footer bytes of a file whose row groups (`row_groups`, ending at
    /// byte `start`) are written, and its metadata; `inner` is the inner
    /// writer's finished metadata.
    pub(super) fn write(
        &mut self,
        start: usize,
        mut row_groups: Vec<RowGroupMetaData>,
        schema: &SchemaDescriptor,
        props: &WriterProperties,
        inner: &ParquetMetaData,
    ) -> Result<(Bytes, ParquetMetaData)> {
        let mut footer = Vec::new();
        let mut out = positioned(start, &mut footer)?;
        self.write_end_blooms(&mut out, &mut row_groups)?;
        let page_indexes = self.page_indexes(&row_groups, inner);
        let file_metadata = self.file_metadata(&row_groups, schema, props);
        let builder = ParquetMetaDataBuilder::new(file_metadata).set_row_groups(row_groups);
        let metadata = compat::set_page_indexes(builder, page_indexes)?.build();
        compat::write_footer(out, &metadata, props)?;
        let metadata = with_index_locations(metadata, &footer)?;
        Ok((Bytes::from(footer), metadata))
    }

    /// Writes the bloom filters kept for the end of the file and records
    /// their offsets in the row groups' column metadata.
    fn write_end_blooms<O: Write + Send>(
        &mut self,
        out: &mut TrackedWrite<O>,
        row_groups: &mut [RowGroupMetaData],
    ) -> Result<()> {
        let Some(end) = &mut self.end_blooms else {
            return Ok(());
        };
        for (row_group, blooms) in row_groups.iter_mut().zip(end.iter_mut()) {
            let mut columns = Vec::with_capacity(blooms.len());
            for (column, bloom) in row_group.columns().iter().zip(blooms.iter_mut()) {
                let mut column = column.clone();
                if let Some(bloom) = bloom.take() {
                    let at = out.bytes_written();
                    bloom.write(&mut *out)?;
                    let len = i32::try_from(out.bytes_written() - at)
                        .map_err(|_| ParquetError::General("bloom filter too large".into()))?;
                    column = column
                        .into_builder()
                        .set_bloom_filter_offset(Some(at as i64))
                        .set_bloom_filter_length(Some(len))
                        .build()?;
                }
                columns.push(column);
            }
            *row_group = row_group
                .clone()
                .into_builder()
                .set_column_metadata(columns)
                .build()?;
        }
        Ok(())
    }

    /// The page indexes of every chunk: this crate's with their page
    /// offsets moved to where the chunk landed, the inner writer's as it
    /// wrote them.
    fn page_indexes(
        &self,
        row_groups: &[RowGroupMetaData],
        inner: &ParquetMetaData,
    ) -> PageIndexes {
        let mut column_indexes = Vec::with_capacity(row_groups.len());
        let mut offset_indexes = Vec::with_capacity(row_groups.len());
        for (row_group, sources) in row_groups.iter().zip(&self.indexes) {
            let mut cis = Vec::with_capacity(sources.len());
            let mut ois = Vec::with_capacity(sources.len());
            for (chunk, source) in row_group.columns().iter().zip(sources) {
                let (column_index, offset_index) = match source {
                    IndexSource::Own {
                        column_index,
                        offset_index,
                    } => ((**column_index).clone(), offset_index.clone()),
                    IndexSource::Inner { row_group, column } => {
                        compat::inner_page_index(inner, *row_group, *column)
                    }
                };
                cis.push(column_index);
                ois.push(offset_index.map(|mut oi| {
                    // The chunk's data pages are contiguous from its first.
                    let mut at = chunk.data_page_offset();
                    for page in &mut oi.page_locations {
                        page.offset = at;
                        at += i64::from(page.compressed_page_size);
                    }
                    oi
                }));
            }
            column_indexes.push(cis);
            offset_indexes.push(ois);
        }
        (column_indexes, offset_indexes)
    }

    /// The file-level metadata, as the file writer would make it.
    fn file_metadata(
        &self,
        row_groups: &[RowGroupMetaData],
        schema: &SchemaDescriptor,
        props: &WriterProperties,
    ) -> FileMetaData {
        let key_value_metadata = match (props.key_value_metadata(), self.appended_kv.is_empty()) {
            (Some(kv), _) => Some(kv.iter().chain(&self.appended_kv).cloned().collect()),
            (None, true) => None,
            (None, false) => Some(self.appended_kv.clone()),
        };
        let column_orders = schema
            .columns()
            .iter()
            .map(|c| compat::column_order(c))
            .collect();
        FileMetaData::new(
            props.writer_version().as_num(),
            row_groups.iter().map(|rg| rg.num_rows()).sum(),
            Some(props.created_by().to_string()),
            key_value_metadata,
            Arc::new(schema.clone()),
            Some(column_orders),
        )
    }
}

/// `metadata` with the column and offset index locations that `footer`
/// (ending with the file metadata, its length and the magic) records.
fn with_index_locations(metadata: ParquetMetaData, footer: &[u8]) -> Result<ParquetMetaData> {
    let corrupt = || ParquetError::General("the hybrid footer is malformed".into());
    let tail = footer.len().checked_sub(8).ok_or_else(corrupt)?;
    let len_bytes: [u8; 4] = footer[tail..tail + 4].try_into().map_err(|_| corrupt())?;
    let start = tail
        .checked_sub(u32::from_le_bytes(len_bytes) as usize)
        .ok_or_else(corrupt)?;
    let written = ParquetMetaDataReader::decode_metadata(&footer[start..tail])?;
    let mut builder = metadata.into_builder();
    let mut row_groups = builder.take_row_groups();
    for (ours, theirs) in row_groups.iter_mut().zip(written.row_groups()) {
        for (column, written) in ours.columns_mut().iter_mut().zip(theirs.columns()) {
            *column = column
                .clone()
                .into_builder()
                .set_column_index_offset(written.column_index_offset())
                .set_column_index_length(written.column_index_length())
                .set_offset_index_offset(written.offset_index_offset())
                .set_offset_index_length(written.offset_index_length())
                .build()?;
        }
    }
    Ok(builder.set_row_groups(row_groups).build())
}
