//! Content-defined chunking on tables that mix fast and `parquet` leaves,
//! behind one [`RowGroupSink`].
//!
//! `parquet` inserts content-defined page breaks only from inside its own
//! `ArrowWriter` (its chunked column write is crate-private), so the leaves
//! this crate does not encode go through an inner `parquet::arrow::ArrowWriter`
//! over a sub-schema ([`layout`]: whole fields, and fields pruned of their
//! fast leaves), with the file's properties, its chunkers kept across row
//! groups as the outer writer would keep them. At each row group the inner
//! writer is flushed and its column chunks (and bloom filters) are spliced
//! in between this crate's chunks, in schema order ([`SpliceSink`]); the
//! footer is assembled here ([`footer`]), and the file writer's own goes to
//! a closed [`Gate`](gate::Gate).

mod footer;
mod gate;
mod inner;
mod layout;

use crate::ArrowRowGroupWriterFactory;
use crate::column::ArrowColumnChunk;
use crate::compat::PageStoreFactory;
use crate::plan::ColumnPlan;
use crate::sink::RowGroupSink;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use footer::{Footer, IndexSource};
use gate::Gate;
use inner::{InnerBytes, InnerWriter};
use layout::Layout;
use parquet::bloom_filter::Sbbf;
use parquet::column::writer::ColumnCloseResult;
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::{BloomFilterPosition, WriterProperties};
use parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use parquet::schema::types::SchemaDescriptor;
use std::io::Write;
use std::sync::Arc;

/// The sink of a mixed table under content-defined chunking.
pub(crate) struct SpliceSink<W: Write> {
    file: SerializedFileWriter<Gate<W>>,
    inner: InnerWriter,
    /// For each leaf of the file: its index among the inner writer's leaves.
    inner_leaf: Vec<Option<usize>>,
    footer: Footer,
    /// Whether the footer has been written.
    finished: bool,
    /// How much longer the real footer is than the dropped one.
    footer_adjust: isize,
}

impl<W: Write + Send> std::fmt::Debug for SpliceSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hybrid")
            .field("writer", &self.file)
            .field("parts", &self.inner.parts)
            .finish_non_exhaustive()
    }
}

/// Opens a split file over `out`: the sink, and the factory of the
/// row-group writer's (fast) column writers.
pub(crate) fn open<W: Write + Send>(
    out: W,
    arrow_schema: SchemaRef,
    parquet: &SchemaDescriptor,
    props: WriterProperties,
    plan: ColumnPlan,
    page_stores: Option<Arc<dyn PageStoreFactory>>,
) -> Result<(Box<SpliceSink<W>>, ArrowRowGroupWriterFactory)> {
    let root = parquet.root_schema_ptr();
    let layout = Layout::new(&arrow_schema, &root, &plan)?;
    let end_blooms = (props.bloom_filter_position() == BloomFilterPosition::End).then(Vec::new);
    let file = SerializedFileWriter::new(Gate::new(out), root, Arc::new(props))?;
    let mut factory = ArrowRowGroupWriterFactory::with_plan(&file, arrow_schema, plan);
    let mut hand_off = None;
    if let Some(f) = page_stores {
        let (routed, inner_stores) = factory.route_page_stores(f, layout.inner_leaves());
        factory = routed;
        hand_off = Some(inner_stores);
    }
    let Layout {
        parts,
        inner_leaf,
        sub_arrow,
        sub_root,
    } = layout;
    let inner = InnerWriter::try_new(parts, sub_arrow, sub_root, file.properties(), hand_off)?;
    let footer = Footer {
        indexes: Vec::new(),
        end_blooms,
        appended_kv: Vec::new(),
    };
    let sink = SpliceSink {
        file,
        inner,
        inner_leaf,
        footer,
        finished: false,
        footer_adjust: 0,
    };
    Ok((Box::new(sink), factory))
}

impl<W: Write + Send> SpliceSink<W> {
    /// Appends the inner writer's chunk of its column `column` to the row
    /// group; returns its bloom filter.
    fn splice_inner(
        row_group: &mut SerializedRowGroupWriter<'_, Gate<W>>,
        bytes: &InnerBytes,
        inner_rg: &RowGroupMetaData,
        column: usize,
    ) -> Result<Option<Sbbf>> {
        let metadata = inner_rg.column(column).clone();
        let bloom_filter = Sbbf::read_from_column_chunk(&metadata, bytes)?;
        let close = ColumnCloseResult {
            bytes_written: metadata.compressed_size() as u64,
            rows_written: inner_rg.num_rows() as u64,
            metadata,
            bloom_filter: bloom_filter.clone(),
            column_index: None,
            offset_index: None,
        };
        row_group.append_column(bytes, close)?;
        Ok(bloom_filter)
    }

    /// Writes the footer straight to the output (the file writer's bytes
    /// flushed first) and returns the file's metadata.
    fn write_footer(&mut self) -> Result<ParquetMetaData> {
        self.finished = true;
        let inner = self.inner.finish()?;
        self.file.flush()?;
        let (footer, metadata) = self.footer.write(
            self.file.bytes_written(),
            self.file.flushed_row_groups().to_vec(),
            self.file.schema_descr(),
            self.file.properties(),
            &inner,
        )?;
        self.file.inner_mut().out.write_all(&footer)?;
        self.footer_adjust = footer.len() as isize;
        Ok(metadata)
    }
}

impl<W: Write + Send> RowGroupSink<W> for SpliceSink<W> {
    fn takes_parquet_leaves(&self) -> bool {
        true
    }

    fn write_rows(&mut self, part: &RecordBatch) -> Result<()> {
        self.inner.write(part)
    }

    fn estimated_bytes(&self) -> usize {
        self.inner.estimated_bytes()
    }

    fn memory_size(&self) -> usize {
        self.inner.memory_size()
    }

    fn append_row_group(
        &mut self,
        own: &mut dyn Iterator<Item = Result<(usize, ArrowColumnChunk)>>,
    ) -> Result<()> {
        let (bytes, inner_rg) = self.inner.take_row_group()?;
        let mut indexes = Vec::with_capacity(self.inner_leaf.len());
        let mut blooms = Vec::with_capacity(self.inner_leaf.len());
        let mut row_group = self.file.next_row_group()?;
        for (leaf, inner_column) in self.inner_leaf.iter().enumerate() {
            if let Some(column) = *inner_column {
                let row_group_index = self.footer.indexes.len();
                blooms.push(Self::splice_inner(
                    &mut row_group,
                    &bytes,
                    &inner_rg,
                    column,
                )?);
                indexes.push(IndexSource::Inner {
                    row_group: row_group_index,
                    column,
                });
                continue;
            }
            let mut chunk = match own.next().transpose()? {
                Some((l, chunk)) if l == leaf => chunk,
                _ => {
                    return Err(ParquetError::General(format!(
                        "no column chunk for leaf {leaf}"
                    )));
                }
            };
            let close = chunk.close_mut();
            // The footer written here takes the page indexes; the file
            // writer's (which is dropped) gets none, as for the inner
            // writer's chunks (parquet 59's file writer cannot finish with
            // some chunks indexed and others not).
            indexes.push(IndexSource::Own {
                column_index: Box::new(close.column_index.take()),
                offset_index: close.offset_index.take(),
            });
            blooms.push(close.bloom_filter.clone());
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        self.footer.indexes.push(indexes);
        if let Some(end) = &mut self.footer.end_blooms {
            end.push(blooms);
        }
        Ok(())
    }

    fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        self.file.flushed_row_groups()
    }

    fn bytes_written(&self) -> usize {
        self.file
            .bytes_written()
            .saturating_add_signed(self.footer_adjust)
    }

    fn inner(&self) -> &W {
        &self.file.inner().out
    }

    fn inner_mut(&mut self) -> &mut W {
        &mut self.file.inner_mut().out
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.file.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }

    fn append_key_value_metadata(&mut self, kv: KeyValue) {
        self.footer.appended_kv.push(kv.clone());
        self.file.append_key_value_metadata(kv)
    }

    /// The footer is written here when any row group was; with none, no
    /// inner chunk is in the file and the file writer's footer is right.
    fn finish(&mut self) -> Result<ParquetMetaData> {
        if self.finished || self.file.flushed_row_groups().is_empty() {
            // A second finish is an error, as in `parquet`.
            self.finished = true;
            return self.file.finish();
        }
        let metadata = self.write_footer()?;
        self.file.inner_mut().open = false;
        let before = self.file.bytes_written();
        let dropped = self.file.finish();
        self.file.inner_mut().open = true;
        dropped?;
        self.footer_adjust -= (self.file.bytes_written() - before) as isize;
        Ok(metadata)
    }

    fn into_inner(mut self) -> Result<W> {
        if !self.finished && !self.file.flushed_row_groups().is_empty() {
            self.write_footer()?;
            // The file writer's footer, written on the way out, is dropped.
            self.file.inner_mut().open = false;
        }
        Ok(self.file.into_inner()?.out)
    }

    /// Possible while nothing but the magic was written (the way
    /// column-level writers use it): the file writer is then rebuilt over
    /// the output, as `parquet`'s would be.
    fn into_serialized_writer(
        mut self,
        factory: ArrowRowGroupWriterFactory,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        let untouched = self.file.flushed_row_groups().is_empty()
            && self.file.bytes_written() == 4
            && self.file.inner().passed == 0;
        if !untouched {
            return Err(ParquetError::NYI(
                "into_serialized_writer after rows were written, with content-defined chunking \
                 on a table that mixes fast and parquet leaves"
                    .into(),
            ));
        }
        let props = Arc::clone(self.file.properties());
        let root = self.file.schema_descr().root_schema_ptr();
        // Nothing reached the output: drop the buffered magic.
        self.file.inner_mut().open = false;
        let out = self.file.into_inner()?.out;
        let mut writer = SerializedFileWriter::new(out, root, props)?;
        for kv in &self.footer.appended_kv {
            writer.append_key_value_metadata(kv.clone());
        }
        let mut rebuilt = ArrowRowGroupWriterFactory::new(&writer, factory.arrow_schema().clone())
            .with_block_cache(factory.block_cache());
        if let Some(f) = factory.page_store_factory() {
            rebuilt = rebuilt.with_page_stores(f);
        }
        Ok((writer, rebuilt))
    }
}
