//! Content-defined chunking for tables that mix fast FLBA fields with others.
//!
//! `parquet` only inserts content-defined page breaks from inside its own
//! `ArrowWriter` (the chunked column write is private), so the fields this
//! crate does not encode go through an inner `parquet::arrow::ArrowWriter`
//! over their sub-schema, with the same properties and its chunkers kept
//! across row groups exactly as the outer writer would keep them. At each row
//! group, the inner writer is flushed and its column chunks (and bloom
//! filters) are spliced into the output between this crate's own chunks, in
//! schema order.
//!
//! The file writer cannot be handed page indexes after a chunk was appended,
//! and the inner writer only gives its page indexes up when it finishes, so
//! the footer is written here: bloom filters (if they go at the end), column
//! and offset indexes, then the file metadata, through `parquet`'s
//! [`ParquetMetaDataWriter`], in the same order and with the same offsets as
//! `SerializedFileWriter` writes them. The file writer's own footer goes to
//! a closed [`Gate`] and is dropped.

use crate::factory::FieldPlan;
use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_array::{
    ArrayRef, FixedSizeListArray, LargeListArray, LargeListViewArray, ListArray, ListViewArray,
    RecordBatch, RecordBatchOptions, StructArray,
};
use arrow_schema::{DataType, FieldRef, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_writer::{self as upstream, PageStoreFactory};
use parquet::basic::ColumnOrder;
use parquet::bloom_filter::Sbbf;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::page_index::{PageIndexBuilder, PageIndexProvider};
use parquet::file::metadata::{
    ColumnChunkMetaData, FileMetaData, KeyValue, ParquetMetaData, ParquetMetaDataBuilder,
    ParquetMetaDataReader, ParquetMetaDataWriter, RowGroupMetaData,
};
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::properties::{BloomFilterPosition, WriterProperties};
use parquet::file::reader::{ChunkReader, Length};
use parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter, TrackedWrite};
use parquet::schema::types::{SchemaDescriptor, Type, TypePtr};
use std::io::Write;
use std::sync::Arc;

/// The output writer behind the file writer in hybrid mode: passes bytes
/// through while open, drops them while closed (the file writer's own footer,
/// which this module replaces).
#[derive(Debug)]
pub(crate) struct Gate<W> {
    pub(crate) inner: W,
    pub(crate) open: bool,
    /// Bytes passed through to `inner`.
    pub(crate) passed: u64,
}

impl<W> Gate<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            inner,
            open: true,
            passed: 0,
        }
    }
}

impl<W: Write> Write for Gate<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.open {
            let n = self.inner.write(buf)?;
            self.passed += n as u64;
            Ok(n)
        } else {
            Ok(buf.len())
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if self.open {
            self.inner.write_all(buf)?;
            self.passed += buf.len() as u64;
            Ok(())
        } else {
            Ok(())
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.open {
            self.inner.flush()
        } else {
            Ok(())
        }
    }
}

/// Where the page indexes of one spliced column chunk come from.
enum IndexSource {
    /// A chunk of this crate: its indexes as closed (offsets rebased later).
    Own {
        column_index: Box<Option<ColumnIndexMetaData>>,
        offset_index: Option<OffsetIndexMetaData>,
    },
    /// A chunk of the inner writer: its row group and column there.
    Inner { row_group: usize, column: usize },
}

/// The inner `parquet` writer and what the footer needs to know.
pub(crate) struct Hybrid {
    inner: upstream::ArrowWriter<Vec<u8>>,
    /// How each top-level field is split.
    parts: Vec<Part>,
    /// For each leaf of the file: its index among the inner writer's leaves.
    inner_leaf: Vec<Option<usize>>,
    /// Bytes of the inner writer's output already taken out of its buffer.
    drained: u64,
    /// Row groups taken from the inner writer.
    taken: usize,
    /// For each flushed row group and column: where its page indexes are.
    indexes: Vec<Vec<IndexSource>>,
    /// With bloom filters at the end of the file: every chunk's filter.
    end_blooms: Option<Vec<Vec<Option<Sbbf>>>>,
    /// Key-value metadata appended through the writer.
    appended_kv: Vec<KeyValue>,
    /// Whether the footer has been written.
    pub(crate) finished: bool,
    /// Bytes the real footer differs in length from the dropped one.
    pub(crate) footer_adjust: isize,
}

impl std::fmt::Debug for Hybrid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hybrid")
            .field("parts", &self.parts)
            .field("taken", &self.taken)
            .finish_non_exhaustive()
    }
}

impl Hybrid {
    /// The inner writer for the inner side of `layout`.
    pub(crate) fn try_new(
        layout: Layout,
        props: &WriterProperties,
        page_store_factory: Option<Arc<dyn PageStoreFactory>>,
    ) -> Result<Self> {
        let Layout {
            parts,
            inner_leaf,
            sub_arrow,
            sub_root,
        } = layout;
        // Same properties (the row-count limit too, so bloom filter sizes
        // resolve alike; the outer writer's splits keep the inner one within
        // it), but bloom filters right after each row group, where they can
        // be read back as the row group is spliced, and no byte limit: only
        // the outer writer, which sees every column's estimate, splits row
        // groups by size.
        let inner_props = props
            .clone()
            .into_builder()
            .set_max_row_group_bytes(None)
            .set_bloom_filter_position(BloomFilterPosition::AfterRowGroup)
            .set_key_value_metadata(None)
            .set_sorting_columns(None)
            .build();
        let mut options = upstream::ArrowWriterOptions::new()
            .with_properties(inner_props)
            .with_skip_arrow_metadata(true)
            .with_parquet_schema(SchemaDescriptor::new(sub_root));
        if let Some(f) = page_store_factory {
            options = options.with_page_store_factory(f);
        }
        let inner = upstream::ArrowWriter::try_new_with_options(Vec::new(), sub_arrow, options)?;
        let end_blooms = (props.bloom_filter_position() == BloomFilterPosition::End).then(Vec::new);
        Ok(Self {
            inner,
            parts,
            inner_leaf,
            drained: 0,
            taken: 0,
            indexes: Vec::new(),
            end_blooms,
            appended_kv: Vec::new(),
            finished: false,
            footer_adjust: 0,
        })
    }

    /// Whether top-level field `field` is written by the inner writer whole.
    pub(crate) fn is_inner_field(&self, field: usize) -> bool {
        self.parts.get(field) == Some(&Part::Whole)
    }

    /// For a field split between both writers: which of its leaves the
    /// inner writer writes.
    pub(crate) fn inner_leaves_of(&self, field: usize) -> Option<&[bool]> {
        match self.parts.get(field) {
            Some(Part::Pruned(inner)) => Some(inner),
            _ => None,
        }
    }

    /// Whether leaf `leaf` of the file is written by the inner writer.
    pub(crate) fn is_inner_leaf(&self, leaf: usize) -> bool {
        self.inner_leaf.get(leaf).is_some_and(Option::is_some)
    }

    /// Writes the inner writer's fields of `part` (a slice of a validated
    /// batch that fits the current row group).
    pub(crate) fn write(&mut self, part: &RecordBatch) -> Result<()> {
        let mut columns = Vec::new();
        let mut fields = Vec::new();
        let schema = part.schema();
        for ((side, array), field) in self.parts.iter().zip(part.columns()).zip(schema.fields()) {
            let array = match side {
                Part::Outer => continue,
                Part::Whole => array.clone(),
                Part::Pruned(inner) => prune_array(array, inner, &mut 0)?.ok_or_else(|| {
                    ParquetError::General("a pruned field has no leaf left".into())
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
        let batch = RecordBatch::try_new_with_options(
            Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone())),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(part.num_rows())),
        )?;
        self.inner.write(&batch)
    }

    /// The inner writer's estimate of its in-progress row group.
    pub(crate) fn estimated_bytes(&self) -> usize {
        self.inner.in_progress_size()
    }

    /// Memory held by the inner writer.
    pub(crate) fn memory_size(&self) -> usize {
        self.inner.memory_size() + self.inner.inner().capacity()
    }

    /// Records key-value metadata appended to the file.
    pub(crate) fn append_key_value_metadata(&mut self, kv: KeyValue) {
        self.appended_kv.push(kv);
    }

    /// Key-value metadata appended through the writer.
    pub(crate) fn appended_key_value_metadata(&self) -> &[KeyValue] {
        &self.appended_kv
    }

    /// Flushes the inner writer's row group and takes its bytes.
    fn take_row_group(&mut self) -> Result<(InnerBytes, RowGroupMetaData)> {
        self.inner.flush()?;
        self.inner.sync()?;
        let flushed = self.inner.flushed_row_groups();
        if flushed.len() != self.taken + 1 {
            return Err(ParquetError::General(format!(
                "the inner writer has {} row groups, expected {}",
                flushed.len(),
                self.taken + 1
            )));
        }
        let metadata = flushed[self.taken].clone();
        self.taken += 1;
        let data = Bytes::from(std::mem::take(self.inner.inner_mut()));
        let bytes = InnerBytes {
            base: self.drained,
            data,
        };
        self.drained += bytes.data.len() as u64;
        Ok((bytes, metadata))
    }

    /// Writes one row group: `own[i]` is this crate's chunk for leaf `i`, or
    /// None for a leaf of the inner writer.
    pub(crate) fn write_row_group<W: Write + Send>(
        &mut self,
        writer: &mut SerializedFileWriter<W>,
        own: Vec<Option<crate::column::ArrowColumnChunk>>,
    ) -> Result<()> {
        let (bytes, inner_rg) = self.take_row_group()?;
        let row_group_index = self.indexes.len();
        let mut indexes = Vec::with_capacity(own.len());
        let mut blooms = Vec::with_capacity(own.len());
        let mut row_group: SerializedRowGroupWriter<'_, W> = writer.next_row_group()?;
        for (leaf, chunk) in own.into_iter().enumerate() {
            match chunk {
                Some(chunk) => {
                    let close = chunk.close();
                    indexes.push(IndexSource::Own {
                        column_index: Box::new(close.column_index.clone()),
                        offset_index: close.offset_index.clone(),
                    });
                    blooms.push(close.bloom_filter.clone());
                    chunk.append_to_row_group(&mut row_group)?;
                }
                None => {
                    let column = self.inner_leaf[leaf].ok_or_else(|| {
                        ParquetError::General(format!("leaf {leaf} has no column chunk"))
                    })?;
                    let metadata: ColumnChunkMetaData = inner_rg.column(column).clone();
                    let bloom_filter = Sbbf::read_from_column_chunk(&metadata, &bytes)?;
                    blooms.push(bloom_filter.clone());
                    indexes.push(IndexSource::Inner {
                        row_group: row_group_index,
                        column,
                    });
                    let close = ColumnCloseResult {
                        bytes_written: metadata.compressed_size() as u64,
                        rows_written: inner_rg.num_rows() as u64,
                        metadata,
                        bloom_filter,
                        column_index: None,
                        offset_index: None,
                    };
                    row_group.append_column(&bytes, close)?;
                }
            }
        }
        row_group.close()?;
        self.indexes.push(indexes);
        if let Some(end) = &mut self.end_blooms {
            end.push(blooms);
        }
        Ok(())
    }

    /// Writes the footer after the last row group (which must be flushed),
    /// in place of `writer`'s, and returns the file's metadata; `writer` is
    /// finished with its own footer dropped.
    pub(crate) fn finish<W: Write + Send>(
        &mut self,
        writer: &mut SerializedFileWriter<Gate<W>>,
    ) -> Result<ParquetMetaData> {
        if self.finished || writer.flushed_row_groups().is_empty() {
            // Finished already (an error, as in `parquet`), or nothing of the
            // inner writer is in the file, so the file writer's footer is the
            // right one.
            self.finished = true;
            return writer.finish();
        }
        let metadata = self.write_footer(writer)?;
        writer.inner_mut().open = false;
        let before = writer.bytes_written();
        let dropped = writer.finish();
        writer.inner_mut().open = true;
        dropped?;
        self.footer_adjust -= (writer.bytes_written() - before) as isize;
        Ok(metadata)
    }

    /// Writes the footer if it was not written yet and returns the output.
    pub(crate) fn finish_into_inner<W: Write + Send>(
        &mut self,
        mut writer: SerializedFileWriter<Gate<W>>,
    ) -> Result<W> {
        if !self.finished && !writer.flushed_row_groups().is_empty() {
            self.write_footer(&mut writer)?;
            // The file writer's footer, written on the way out, is dropped.
            writer.inner_mut().open = false;
        }
        Ok(writer.into_inner()?.inner)
    }

    /// Writes the footer straight to the output (bypassing `writer`, whose
    /// bytes are flushed first) and returns the file's metadata.
    fn write_footer<W: Write + Send>(
        &mut self,
        writer: &mut SerializedFileWriter<Gate<W>>,
    ) -> Result<ParquetMetaData> {
        self.finished = true;
        let inner_metadata = self.inner.finish()?;
        let inner_index = inner_metadata.page_index();
        writer.flush()?;
        let start = writer.bytes_written();
        let props = Arc::clone(writer.properties());
        let schema = Arc::new(writer.schema_descr().clone());

        let mut footer = Vec::new();
        let mut out = TrackedWrite::new(SkipWrite {
            skip: start,
            out: &mut footer,
        });
        skip(&mut out, start)?;
        let mut row_groups = writer.flushed_row_groups().to_vec();
        if let Some(end) = &mut self.end_blooms {
            for (row_group, blooms) in row_groups.iter_mut().zip(end.iter_mut()) {
                let mut columns = Vec::with_capacity(blooms.len());
                for (column, bloom) in row_group.columns().iter().zip(blooms.iter_mut()) {
                    let mut column = column.clone();
                    if let Some(bloom) = bloom.take() {
                        let at = out.bytes_written();
                        bloom.write(&mut out)?;
                        column = column
                            .into_builder()
                            .set_bloom_filter_offset(Some(at as i64))
                            .set_bloom_filter_length(Some((out.bytes_written() - at) as i32))
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
        }

        let mut page_index = PageIndexBuilder::new(row_groups.len(), schema.num_columns());
        for (rg, (row_group, sources)) in row_groups.iter().zip(&self.indexes).enumerate() {
            for (col, (chunk, source)) in row_group.columns().iter().zip(sources).enumerate() {
                let (column_index, offset_index) = match source {
                    IndexSource::Own {
                        column_index,
                        offset_index,
                    } => ((**column_index).clone(), offset_index.clone()),
                    IndexSource::Inner { row_group, column } => match inner_index {
                        Some(pi) => (
                            pi.column_index(*row_group, *column).cloned(),
                            pi.offset_index(*row_group, *column).cloned(),
                        ),
                        None => (None, None),
                    },
                };
                if let Some(ci) = column_index {
                    page_index.put_column_index(ci, rg, col);
                }
                if let Some(mut oi) = offset_index {
                    // Data pages follow each other from the first one.
                    let mut offset = chunk.data_page_offset();
                    for location in &mut oi.page_locations {
                        location.offset = offset;
                        offset += location.compressed_page_size as i64;
                    }
                    page_index.put_offset_index(oi, rg, col);
                }
            }
        }
        let page_index = page_index.build();

        let key_value_metadata = match props.key_value_metadata() {
            Some(kv) => Some(kv.iter().chain(&self.appended_kv).cloned().collect()),
            None if self.appended_kv.is_empty() => None,
            None => Some(self.appended_kv.clone()),
        };
        let column_orders = schema
            .columns()
            .iter()
            .map(|c| {
                ColumnOrder::column_order_for_type(
                    c.logical_type_ref(),
                    c.converted_type(),
                    c.physical_type(),
                )
            })
            .collect();
        let num_rows = row_groups.iter().map(|rg| rg.num_rows()).sum();
        let file_metadata = FileMetaData::new(
            props.writer_version().as_num(),
            num_rows,
            Some(props.created_by().to_string()),
            key_value_metadata,
            schema,
            Some(column_orders),
        );
        let has_page_index = page_index.has_column_indexes() || page_index.has_offset_indexes();
        let page_index: Option<Arc<dyn PageIndexProvider>> =
            has_page_index.then(|| Arc::new(page_index) as _);
        let metadata = ParquetMetaDataBuilder::new(file_metadata)
            .set_row_groups(row_groups)
            .set_page_index(page_index)
            .build();
        ParquetMetaDataWriter::new_with_tracked(out, &metadata)
            .with_write_path_in_schema(props.write_path_in_schema())
            .with_preserve_page_index_locations(false)
            .finish()?;
        let metadata = with_index_locations(metadata, &footer)?;

        writer.inner_mut().inner.write_all(&footer)?;
        self.footer_adjust = footer.len() as isize;
        Ok(metadata)
    }
}

/// A writer that drops the first `skip` bytes written to it and appends the
/// rest to `out`: behind a [`TrackedWrite`], it lets `parquet`'s metadata
/// writer record offsets as of a position in the real file.
struct SkipWrite<'a> {
    skip: usize,
    out: &'a mut Vec<u8>,
}

impl Write for SkipWrite<'_> {
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

/// Advances `out`'s byte count by `n` (bytes its [`SkipWrite`] drops).
fn skip(out: &mut TrackedWrite<SkipWrite<'_>>, mut n: usize) -> Result<()> {
    static ZEROS: [u8; 64 * 1024] = [0; 64 * 1024];
    while n > 0 {
        let step = n.min(ZEROS.len());
        out.write_all(&ZEROS[..step])?;
        n -= step;
    }
    Ok(())
}

/// `metadata` with the column and offset index locations that `footer`
/// (ending with the file metadata, its length and the magic) records.
fn with_index_locations(metadata: ParquetMetaData, footer: &[u8]) -> Result<ParquetMetaData> {
    let corrupt = || ParquetError::General("hybrid footer is malformed".into());
    let tail = footer.len().checked_sub(8).ok_or_else(corrupt)?;
    let len = u32::from_le_bytes(footer[tail..tail + 4].try_into().map_err(|_| corrupt())?);
    let start = tail.checked_sub(len as usize).ok_or_else(corrupt)?;
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

/// The inner writer's output for one row group, at its position in the inner
/// file.
struct InnerBytes {
    base: u64,
    data: Bytes,
}

impl InnerBytes {
    fn range(&self, start: u64, len: usize) -> Result<Bytes> {
        let from = start
            .checked_sub(self.base)
            .map(|s| s as usize)
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
        let len = (self.len().saturating_sub(start)) as usize;
        Ok(bytes::Buf::reader(self.range(start, len)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        self.range(start, length)
    }
}

/// How a top-level field is split between this crate and the inner writer.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    /// Every leaf on the fast path.
    Outer,
    /// The whole field through the inner writer.
    Whole,
    /// Nested FLBA leaves on the fast path, the others (`inner[i]` for the
    /// field's leaf `i`) through the inner writer, which gets the field with
    /// the fast leaves pruned away: a leaf's levels depend only on its own
    /// path, so they are the same in the pruned field.
    Pruned(Vec<bool>),
}

/// Which leaves go where, and the inner writer's schema.
pub(crate) struct Layout {
    parts: Vec<Part>,
    /// For each leaf of the file: its index among the inner writer's leaves.
    inner_leaf: Vec<Option<usize>>,
    sub_arrow: SchemaRef,
    sub_root: TypePtr,
}

impl Layout {
    /// The split of `plan`, or None if no leaf needs `parquet`'s writers or
    /// no leaf can be left to this crate.
    pub(crate) fn new(
        arrow_schema: &SchemaRef,
        root: &TypePtr,
        plan: &[FieldPlan],
    ) -> Result<Option<Self>> {
        let mut parts = Vec::with_capacity(plan.len());
        let mut arrow_fields = Vec::new();
        let mut parquet_fields = Vec::new();
        for (i, p) in plan.iter().enumerate() {
            let field = &arrow_schema.fields()[i];
            let ptype = &root.get_fields()[i];
            let part = match p {
                _ if !p.needs_upstream() => Part::Outer,
                FieldPlan::Leveled { fast, .. } if fast.iter().any(Option::is_some) => {
                    let inner: Vec<bool> = fast.iter().map(Option::is_none).collect();
                    let pruned = prune_type(field.data_type(), &inner, &mut 0).ok().flatten();
                    let ppruned = prune_parquet(ptype, &inner, &mut 0)?;
                    match (pruned, ppruned) {
                        (Some(t), Some(pt)) => {
                            arrow_fields.push(Arc::new(field.as_ref().clone().with_data_type(t)));
                            parquet_fields.push(pt);
                            Part::Pruned(inner)
                        }
                        _ => Part::Whole,
                    }
                }
                _ => Part::Whole,
            };
            if part == Part::Whole {
                arrow_fields.push(field.clone());
                parquet_fields.push(ptype.clone());
            }
            parts.push(part);
        }
        // Nothing for the inner writer, or nothing left for this crate.
        if parts.iter().all(|p| *p == Part::Outer) || parts.iter().all(|p| *p == Part::Whole) {
            return Ok(None);
        }
        let mut inner_leaf = Vec::new();
        let mut next = 0;
        for (p, part) in plan.iter().zip(&parts) {
            for leaf in 0..p.leaf_count() {
                let inner = match part {
                    Part::Outer => false,
                    Part::Whole => true,
                    Part::Pruned(inner) => inner[leaf],
                };
                if inner {
                    inner_leaf.push(Some(next));
                    next += 1;
                } else {
                    inner_leaf.push(None);
                }
            }
        }
        let sub_root = Arc::new(
            Type::group_type_builder(root.name())
                .with_fields(parquet_fields)
                .build()?,
        );
        let sub_arrow = Arc::new(Schema::new_with_metadata(
            arrow_fields,
            arrow_schema.metadata().clone(),
        ));
        Ok(Some(Self {
            parts,
            inner_leaf,
            sub_arrow,
            sub_root,
        }))
    }

    /// The file leaves the inner writer writes, in its order.
    pub(crate) fn inner_leaves(&self) -> Vec<usize> {
        (0..self.inner_leaf.len())
            .filter(|&l| self.inner_leaf[l].is_some())
            .collect()
    }
}

/// `data_type` without the leaves `inner[..]` marks false (leaf numbering
/// from `*pos`): `Ok(None)` if none is left, `Err(())` if the type cannot be
/// split (a map, dictionary or other type whose leaves are not all on one
/// side).
fn prune_type(
    data_type: &DataType,
    inner: &[bool],
    pos: &mut usize,
) -> Result<Option<DataType>, ()> {
    let child = |f: &FieldRef, t: DataType| Arc::new(f.as_ref().clone().with_data_type(t));
    match data_type {
        DataType::Struct(fields) => {
            let mut kept = Vec::new();
            for f in fields {
                if let Some(t) = prune_type(f.data_type(), inner, pos)? {
                    kept.push(child(f, t));
                }
            }
            Ok((!kept.is_empty()).then(|| DataType::Struct(kept.into())))
        }
        DataType::List(f) => {
            Ok(prune_type(f.data_type(), inner, pos)?.map(|t| DataType::List(child(f, t))))
        }
        DataType::LargeList(f) => {
            Ok(prune_type(f.data_type(), inner, pos)?.map(|t| DataType::LargeList(child(f, t))))
        }
        DataType::ListView(f) => {
            Ok(prune_type(f.data_type(), inner, pos)?.map(|t| DataType::ListView(child(f, t))))
        }
        DataType::LargeListView(f) => Ok(
            prune_type(f.data_type(), inner, pos)?.map(|t| DataType::LargeListView(child(f, t)))
        ),
        DataType::FixedSizeList(f, n) => Ok(prune_type(f.data_type(), inner, pos)?
            .map(|t| DataType::FixedSizeList(child(f, t), *n))),
        other => {
            let n = crate::factory::leaf_count(other).ok_or(())?;
            let sides = inner.get(*pos..*pos + n).ok_or(())?;
            *pos += n;
            if sides.iter().all(|&b| b) {
                Ok(Some(other.clone()))
            } else if sides.iter().all(|&b| !b) {
                Ok(None)
            } else {
                Err(())
            }
        }
    }
}

/// The Parquet type of a field without the leaves `inner[..]` marks false
/// (leaf numbering from `*pos`), None if none is left.
fn prune_parquet(t: &TypePtr, inner: &[bool], pos: &mut usize) -> Result<Option<TypePtr>> {
    if t.is_primitive() {
        let keep = inner.get(*pos).copied().unwrap_or(true);
        *pos += 1;
        return Ok(keep.then(|| t.clone()));
    }
    let mut kept = Vec::new();
    for f in t.get_fields() {
        if let Some(f) = prune_parquet(f, inner, pos)? {
            kept.push(f);
        }
    }
    if kept.is_empty() {
        return Ok(None);
    }
    let info = t.get_basic_info();
    let mut b = Type::group_type_builder(info.name())
        .with_converted_type(info.converted_type())
        .with_logical_type(info.logical_type_ref().cloned())
        .with_fields(kept);
    if info.has_repetition() {
        b = b.with_repetition(info.repetition());
    }
    if info.has_id() {
        b = b.with_id(Some(info.id()));
    }
    Ok(Some(Arc::new(b.build()?)))
}

/// `array` without the leaves `inner[..]` marks false (leaf numbering from
/// `*pos`), as [`prune_type`] prunes its type: None if no leaf is left.
fn prune_array(array: &ArrayRef, inner: &[bool], pos: &mut usize) -> Result<Option<ArrayRef>> {
    let child = |f: &FieldRef, a: &ArrayRef| {
        Arc::new(f.as_ref().clone().with_data_type(a.data_type().clone()))
    };
    // The pruned values of a list-like array, or return None.
    macro_rules! values {
        ($values:expr) => {
            match prune_array($values, inner, pos)? {
                Some(v) => v,
                None => return Ok(None),
            }
        };
    }
    let out: ArrayRef = match array.data_type() {
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut kept_fields = Vec::new();
            let mut kept = Vec::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                if let Some(c) = prune_array(c, inner, pos)? {
                    kept_fields.push(child(f, &c));
                    kept.push(c);
                }
            }
            if kept.is_empty() {
                return Ok(None);
            }
            Arc::new(StructArray::try_new_with_length(
                kept_fields.into(),
                kept,
                s.nulls().cloned(),
                s.len(),
            )?)
        }
        DataType::List(f) => {
            let l = array.as_list::<i32>();
            let v = values!(l.values());
            Arc::new(ListArray::try_new(
                child(f, &v),
                l.offsets().clone(),
                v,
                l.nulls().cloned(),
            )?)
        }
        DataType::LargeList(f) => {
            let l = array.as_list::<i64>();
            let v = values!(l.values());
            Arc::new(LargeListArray::try_new(
                child(f, &v),
                l.offsets().clone(),
                v,
                l.nulls().cloned(),
            )?)
        }
        DataType::ListView(f) => {
            let l = array.as_list_view::<i32>();
            let v = values!(l.values());
            Arc::new(ListViewArray::try_new(
                child(f, &v),
                l.offsets().clone(),
                l.sizes().clone(),
                v,
                l.nulls().cloned(),
            )?)
        }
        DataType::LargeListView(f) => {
            let l = array.as_list_view::<i64>();
            let v = values!(l.values());
            Arc::new(LargeListViewArray::try_new(
                child(f, &v),
                l.offsets().clone(),
                l.sizes().clone(),
                v,
                l.nulls().cloned(),
            )?)
        }
        DataType::FixedSizeList(f, n) => {
            let l = array.as_fixed_size_list();
            let v = values!(l.values());
            Arc::new(FixedSizeListArray::try_new_with_length(
                child(f, &v),
                *n,
                v,
                l.nulls().cloned(),
                l.len(),
            )?)
        }
        other => {
            // Kept or dropped whole, as `prune_type` decided for the schema.
            let n = crate::factory::leaf_count(other).unwrap_or(1);
            let sides = inner.get(*pos..*pos + n).unwrap_or_default();
            *pos += n;
            if !sides.iter().any(|&b| b) {
                return Ok(None);
            }
            if !sides.iter().all(|&b| b) {
                return Err(ParquetError::General(format!(
                    "a {other} field cannot be split between writers"
                )));
            }
            array.clone()
        }
    };
    Ok(Some(out))
}
