//! [`ArrowWriter`], drop-in for `parquet::arrow::ArrowWriter`: row-group
//! splitting by row count and estimated bytes exactly as `parquet` does it,
//! columns written through [`ArrowColumnWriter`]s from this crate's
//! [`ArrowRowGroupWriterFactory`].

use crate::cdc::Chunker;
use crate::column::{
    ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn, LeafInner, leveled_leaves, tracked_leaves,
};
use crate::factory::{ArrowRowGroupWriterFactory, FieldPlan};
use crate::hybrid::{Gate, Hybrid, Layout};
use crate::leaf::flat_leaf;
use crate::memory::{DEFAULT_RESERVATION_BLOCK, MemoryListener, Reservation};
use crate::validate::validate_batch;
use arrow_array::{RecordBatch, RecordBatchWriter};
use arrow_schema::{ArrowError, SchemaRef};
use parquet::arrow::ArrowSchemaConverter;
use parquet::arrow::arrow_writer::{self as upstream, PageStoreFactory};
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::{KeyValue, ParquetMetaData, RowGroupMetaData};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{SchemaDescriptor, TypePtr};
use std::io::Write;
use std::sync::Arc;

/// Arrow-specific settings for writing Parquet files.
///
/// Same as `parquet::arrow::arrow_writer::ArrowWriterOptions`.
#[derive(Debug, Clone, Default)]
pub struct ArrowWriterOptions {
    properties: WriterProperties,
    skip_arrow_metadata: bool,
    schema_root: Option<String>,
    schema_descr: Option<SchemaDescriptor>,
    page_store_factory: Option<Arc<dyn PageStoreFactory>>,
}

impl ArrowWriterOptions {
    /// Options with the default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the [`WriterProperties`].
    pub fn with_properties(self, properties: WriterProperties) -> Self {
        Self { properties, ..self }
    }

    /// Sets the [`PageStoreFactory`] that buffers finished pages until their
    /// row group is written (default: in memory).
    pub fn with_page_store_factory(self, page_store_factory: Arc<dyn PageStoreFactory>) -> Self {
        Self {
            page_store_factory: Some(page_store_factory),
            ..self
        }
    }

    /// Skips embedding the Arrow schema in the file's metadata.
    pub fn with_skip_arrow_metadata(self, skip_arrow_metadata: bool) -> Self {
        Self {
            skip_arrow_metadata,
            ..self
        }
    }

    /// Sets the name of the root Parquet schema element (default `"arrow_schema"`).
    pub fn with_schema_root(self, schema_root: String) -> Self {
        Self {
            schema_root: Some(schema_root),
            ..self
        }
    }

    /// Uses an explicit Parquet schema instead of converting the Arrow schema.
    pub fn with_parquet_schema(self, schema_descr: SchemaDescriptor) -> Self {
        Self {
            schema_descr: Some(schema_descr),
            ..self
        }
    }

    fn into_upstream(self) -> upstream::ArrowWriterOptions {
        let mut o = upstream::ArrowWriterOptions::new()
            .with_properties(self.properties)
            .with_skip_arrow_metadata(self.skip_arrow_metadata);
        if let Some(root) = self.schema_root {
            o = o.with_schema_root(root);
        }
        if let Some(schema) = self.schema_descr {
            o = o.with_parquet_schema(schema);
        }
        if let Some(f) = self.page_store_factory {
            o = o.with_page_store_factory(f);
        }
        o
    }
}

/// Encodes [`RecordBatch`]es to Parquet, byte-for-byte as
/// `parquet::arrow::ArrowWriter` does, with a fast FIXED_LEN_BYTE_ARRAY path.
///
/// Switching is a one-line change:
/// `use parquet::arrow::ArrowWriter` → `use parquet_flba::ArrowWriter`.
///
/// ```
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Decimal128Array, RecordBatch};
/// use parquet_flba::ArrowWriter;
///
/// let prices = Decimal128Array::from(vec![12_345, -6_789, 0])
///     .with_precision_and_scale(38, 10)
///     .unwrap();
/// let batch = RecordBatch::try_from_iter([("price", Arc::new(prices) as ArrayRef)]).unwrap();
///
/// let mut buffer = Vec::new();
/// let mut writer = ArrowWriter::try_new(&mut buffer, batch.schema(), None).unwrap();
/// writer.write(&batch).unwrap();
/// writer.close().unwrap();
/// ```
///
/// # Differences from `parquet`
///
/// * A decimal whose value does not fit the column's FIXED_LEN_BYTE_ARRAY
///   width (outside its declared precision by enough to overflow the width)
///   makes [`Self::write`] fail with an error naming the column and row;
///   `parquet` would silently write a truncated, wrong value.
/// * A failed [`Self::write`] leaves the writer as it was before the call:
///   batches are validated (column count, types, nulls in non-nullable
///   fields, decimal widths) before any row is buffered.
pub struct ArrowWriter<W: Write> {
    inner: Inner<W>,
    /// Memory reserved from a [`MemoryListener`], if one is attached.
    reservation: Option<Reservation>,
}

enum Inner<W: Write> {
    Own(Box<OwnWriter<W>>),
    /// Content-defined chunking with fields this crate does not encode: those
    /// through an inner `parquet` writer, the footer written by [`Hybrid`].
    Hybrid(Box<OwnWriter<Gate<W>>>),
    /// Content-defined chunking where no field is all on the fast path: the
    /// whole file through `parquet`.
    Upstream(
        Box<upstream::ArrowWriter<W>>,
        SchemaRef,
        Option<Arc<dyn PageStoreFactory>>,
    ),
}

struct OwnWriter<S: Write> {
    writer: SerializedFileWriter<S>,
    in_progress: Option<RowGroup>,
    arrow_schema: SchemaRef,
    factory: ArrowRowGroupWriterFactory,
    max_row_group_row_count: Option<usize>,
    max_row_group_bytes: Option<usize>,
    /// Set when a write failed half-way; the writer then refuses to go on
    /// rather than produce a broken file.
    poisoned: Option<String>,
    /// Content-defined chunkers, one per leaf, kept across row groups.
    cdc: Option<Vec<Chunker>>,
    /// In hybrid mode: the inner writer of the other fields.
    hybrid: Option<Box<Hybrid>>,
}

struct RowGroup {
    /// The column writers, one per leaf (in hybrid mode, one per leaf this
    /// crate writes, see `slots`).
    writers: Vec<ArrowColumnWriter>,
    /// In hybrid mode: the leaf of each writer.
    slots: Option<Vec<usize>>,
    buffered_rows: usize,
}

impl RowGroup {
    fn estimated_bytes(&self) -> usize {
        self.writers
            .iter()
            .map(|w| w.get_estimated_total_bytes())
            .sum()
    }

    fn memory_size(&self) -> usize {
        self.writers.iter().map(|w| w.memory_size()).sum()
    }
}

impl<W: Write + Send> std::fmt::Debug for ArrowWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Inner::Own(w) => f
                .debug_struct("ArrowWriter")
                .field("writer", &w.writer)
                .field(
                    "in_progress_size",
                    &format_args!("{} bytes", self.in_progress_size()),
                )
                .field("in_progress_rows", &self.in_progress_rows())
                .field("arrow_schema", &w.arrow_schema)
                .field("max_row_group_row_count", &w.max_row_group_row_count)
                .field("max_row_group_bytes", &w.max_row_group_bytes)
                .finish(),
            Inner::Hybrid(w) => f
                .debug_struct("ArrowWriter")
                .field("writer", &w.writer)
                .field("hybrid", &w.hybrid)
                .field("in_progress_rows", &self.in_progress_rows())
                .field("arrow_schema", &w.arrow_schema)
                .finish(),
            Inner::Upstream(w, ..) => w.fmt(f),
        }
    }
}

impl<W: Write + Send> ArrowWriter<W> {
    /// Creates a writer with the given properties (default if `None`).
    pub fn try_new(
        writer: W,
        arrow_schema: SchemaRef,
        props: Option<WriterProperties>,
    ) -> Result<Self> {
        let options = ArrowWriterOptions::new().with_properties(props.unwrap_or_default());
        Self::try_new_with_options(writer, arrow_schema, options)
    }

    /// Creates a writer with [`ArrowWriterOptions`].
    pub fn try_new_with_options(
        writer: W,
        arrow_schema: SchemaRef,
        options: ArrowWriterOptions,
    ) -> Result<Self> {
        let mut layout = None;
        if options.properties.content_defined_chunking().is_some() {
            // `parquet` keeps its chunked column writes private: leaves not
            // on the fast path go through an inner `parquet` writer, and if
            // no leaf is (or the schema cannot be split), the whole file does.
            let all_fast = match field_plan(&arrow_schema, &options)? {
                Some((plan, _)) if plan.iter().all(FieldPlan::all_fast) => true,
                Some((plan, root)) => {
                    layout = Layout::new(&arrow_schema, &root, &plan)?;
                    false
                }
                None => false,
            };
            if !all_fast && layout.is_none() {
                let store = options.page_store_factory.clone();
                let w = upstream::ArrowWriter::try_new_with_options(
                    writer,
                    arrow_schema.clone(),
                    options.into_upstream(),
                )?;
                return Ok(Self {
                    inner: Inner::Upstream(Box::new(w), arrow_schema, store),
                    reservation: None,
                });
            }
        }
        let inner = if let Some(layout) = layout {
            let gate = Gate::new(writer);
            let page_store_factory = options.page_store_factory.clone();
            let mut own = OwnWriter::try_new(gate, arrow_schema.clone(), options)?;
            // The inner writer's page stores are the ones created for its
            // leaves (with their true indices) by this writer's factory.
            let stores = page_store_factory
                .is_some()
                .then(|| own.factory.hand_off_page_stores(layout.inner_leaves()))
                .flatten();
            own.hybrid = Some(Box::new(Hybrid::try_new(
                layout,
                own.writer.properties(),
                stores,
            )?));
            Inner::Hybrid(Box::new(own))
        } else {
            Inner::Own(Box::new(OwnWriter::try_new(writer, arrow_schema, options)?))
        };
        Ok(Self {
            inner,
            reservation: None,
        })
    }

    /// Metadata of the row groups flushed so far.
    pub fn flushed_row_groups(&self) -> &[RowGroupMetaData] {
        match &self.inner {
            Inner::Own(w) => w.writer.flushed_row_groups(),
            Inner::Hybrid(w) => w.writer.flushed_row_groups(),
            Inner::Upstream(w, ..) => w.flushed_row_groups(),
        }
    }

    /// Estimated memory held by the writer, in bytes: the sum of
    /// [`ArrowColumnWriter::memory_size`] over the in-progress row group.
    pub fn memory_size(&self) -> usize {
        match &self.inner {
            Inner::Own(w) => w.memory_size(),
            Inner::Hybrid(w) => w.memory_size(),
            Inner::Upstream(w, ..) => w.memory_size(),
        }
    }

    /// Estimated encoded size of the in-progress row group, in bytes (equal
    /// to `parquet`'s estimate).
    pub fn in_progress_size(&self) -> usize {
        match &self.inner {
            Inner::Own(w) => w.estimated_bytes(),
            Inner::Hybrid(w) => w.estimated_bytes(),
            Inner::Upstream(w, ..) => w.in_progress_size(),
        }
    }

    /// Number of rows buffered in the in-progress row group.
    pub fn in_progress_rows(&self) -> usize {
        match &self.inner {
            Inner::Own(w) => w.in_progress.as_ref().map_or(0, |rg| rg.buffered_rows),
            Inner::Hybrid(w) => w.in_progress.as_ref().map_or(0, |rg| rg.buffered_rows),
            Inner::Upstream(w, ..) => w.in_progress_rows(),
        }
    }

    /// Number of bytes written to the underlying writer so far.
    pub fn bytes_written(&self) -> usize {
        match &self.inner {
            Inner::Own(w) => w.writer.bytes_written(),
            Inner::Hybrid(w) => w.bytes_written(),
            Inner::Upstream(w, ..) => w.bytes_written(),
        }
    }

    /// Encodes `batch`, splitting it across row groups when it would exceed
    /// `max_row_group_row_count` rows or `max_row_group_bytes` estimated bytes.
    ///
    /// The batch is validated first; on error nothing of it is written and
    /// the writer can be used as before.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.reservation.is_some() && batch.num_rows() > 0 {
            // Reserve for the worst case first, so a refusal writes nothing.
            let predicted = self.memory_size() + batch.get_array_memory_size();
            if let Some(r) = &mut self.reservation {
                r.ensure(predicted)?;
            }
        }
        let written = self.write_batch(batch);
        self.settle_reservation()?;
        written
    }

    fn write_batch(&mut self, batch: &RecordBatch) -> Result<()> {
        match &mut self.inner {
            Inner::Own(w) => w.write(batch),
            Inner::Hybrid(w) => w.write(batch),
            Inner::Upstream(w, schema, ..) => {
                if batch.num_rows() > 0 {
                    validate_batch(schema, batch, |_| false)?;
                }
                w.write(batch)
            }
        }
    }

    /// Writes `buf` to the underlying writer, through its byte counter.
    pub fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.inner {
            Inner::Own(w) => w.writer.write_all(buf),
            Inner::Hybrid(w) => w.writer.write_all(buf),
            Inner::Upstream(w, ..) => w.write_all(buf),
        }
    }

    /// Flushes the underlying writer.
    pub fn sync(&mut self) -> std::io::Result<()> {
        match &mut self.inner {
            Inner::Own(w) => w.writer.flush(),
            Inner::Hybrid(w) => w.writer.flush(),
            Inner::Upstream(w, ..) => w.sync(),
        }
    }

    /// Flushes all buffered rows into a new row group.
    pub fn flush(&mut self) -> Result<()> {
        let flushed = match &mut self.inner {
            Inner::Own(w) => w.flush(),
            Inner::Hybrid(w) => w.flush(),
            Inner::Upstream(w, ..) => w.flush(),
        };
        self.settle_reservation()?;
        flushed
    }

    /// Attaches a [`MemoryListener`] that the writer reserves the memory it
    /// holds from, in blocks of [`DEFAULT_RESERVATION_BLOCK`] (see
    /// [`Self::with_memory_reservation_block`]).
    ///
    /// Before each [`Self::write`], the writer makes sure its reservation
    /// covers the memory it holds plus the batch's size; if the listener
    /// refuses, `write` fails before anything of the batch is written, with
    /// an error naming the requested and held sizes, and the writer stays
    /// usable (call [`Self::flush`] to release the buffered row group's
    /// memory). After each write and flush, blocks no longer needed are given
    /// back; everything is given back when the writer is closed or dropped.
    pub fn with_memory_listener(mut self, listener: Arc<dyn MemoryListener>) -> Self {
        let block = self
            .reservation
            .as_ref()
            .map_or(DEFAULT_RESERVATION_BLOCK, |r| r.block());
        self.reservation = Some(Reservation::new(listener, block));
        self
    }

    /// Sets the block size of memory reservations (default 1 MiB).
    pub fn with_memory_reservation_block(mut self, bytes: usize) -> Self {
        if let Some(r) = &mut self.reservation {
            r.set_block(bytes);
        }
        self
    }

    /// Bytes currently reserved from the [`MemoryListener`] (0 without one).
    pub fn reserved_memory(&self) -> usize {
        self.reservation.as_ref().map_or(0, Reservation::reserved)
    }

    /// Number of calls made to the [`MemoryListener`] so far.
    pub fn memory_listener_calls(&self) -> u64 {
        self.reservation.as_ref().map_or(0, Reservation::calls)
    }

    /// Brings the reservation in line with the memory now held: grows it if
    /// encoding needed more than predicted, gives back unneeded blocks.
    fn settle_reservation(&mut self) -> Result<()> {
        let held = self.memory_size();
        if let Some(r) = &mut self.reservation {
            r.ensure(held)?;
            r.settle(held);
        }
        Ok(())
    }

    /// Adds key-value metadata to the file footer.
    pub fn append_key_value_metadata(&mut self, kv_metadata: KeyValue) {
        match &mut self.inner {
            Inner::Own(w) => w.writer.append_key_value_metadata(kv_metadata),
            Inner::Hybrid(w) => {
                if let Some(h) = &mut w.hybrid {
                    h.append_key_value_metadata(kv_metadata.clone());
                }
                w.writer.append_key_value_metadata(kv_metadata)
            }
            Inner::Upstream(w, ..) => w.append_key_value_metadata(kv_metadata),
        }
    }

    /// The underlying writer.
    pub fn inner(&self) -> &W {
        match &self.inner {
            Inner::Own(w) => w.writer.inner(),
            Inner::Hybrid(w) => &w.writer.inner().inner,
            Inner::Upstream(w, ..) => w.inner(),
        }
    }

    /// The underlying writer, mutably. Writing to it directly corrupts the
    /// file; use [`Self::write_all`].
    pub fn inner_mut(&mut self) -> &mut W {
        match &mut self.inner {
            Inner::Own(w) => w.writer.inner_mut(),
            Inner::Hybrid(w) => &mut w.writer.inner_mut().inner,
            Inner::Upstream(w, ..) => w.inner_mut(),
        }
    }

    /// Flushes buffered rows, writes the footer and returns the underlying
    /// writer.
    pub fn into_inner(self) -> Result<W> {
        match self.inner {
            Inner::Own(mut w) => {
                w.flush()?;
                w.writer.into_inner()
            }
            Inner::Hybrid(w) => w.into_inner(),
            Inner::Upstream(w, ..) => w.into_inner(),
        }
    }

    /// Flushes buffered rows and writes the footer, without consuming the
    /// writer. Writing afterwards is an error.
    pub fn finish(&mut self) -> Result<ParquetMetaData> {
        let finished = match &mut self.inner {
            Inner::Own(w) => w.flush().and_then(|_| w.writer.finish()),
            Inner::Hybrid(w) => w.finish(),
            Inner::Upstream(w, ..) => w.finish(),
        };
        if let Some(r) = &mut self.reservation {
            r.settle(0);
        }
        finished
    }

    /// Flushes buffered rows, writes the footer and closes the writer.
    pub fn close(mut self) -> Result<ParquetMetaData> {
        self.finish()
    }

    /// Flushes buffered rows and splits the writer into the file writer and
    /// the row-group factory, to continue at the column level (e.g. encoding
    /// columns in parallel).
    ///
    /// # Errors
    ///
    /// With content-defined chunking on a schema where some fields are
    /// FIXED_LEN_BYTE_ARRAY only and others are not, rows already written
    /// are held partly by an inner `parquet` writer whose footer data cannot
    /// be handed to a [`SerializedFileWriter`]: this returns
    /// [`ParquetError::NYI`] once any row was written (before, it works as
    /// in `parquet`).
    pub fn into_serialized_writer(
        self,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        match self.inner {
            Inner::Own(mut w) => {
                w.flush()?;
                Ok((w.writer, w.factory))
            }
            Inner::Hybrid(w) => w.into_serialized_writer(),
            Inner::Upstream(w, schema, store) => {
                let (writer, _) = w.into_serialized_writer()?;
                let mut factory = ArrowRowGroupWriterFactory::new(&writer, schema);
                if let Some(store) = store {
                    factory = factory.with_page_store_factory(store);
                }
                Ok((writer, factory))
            }
        }
    }
}

impl<S: Write + Send> OwnWriter<S> {
    fn try_new(sink: S, arrow_schema: SchemaRef, options: ArrowWriterOptions) -> Result<Self> {
        let mut props = options.properties;
        let schema = match options.schema_descr {
            Some(descr) => descr,
            None => {
                let mut converter =
                    ArrowSchemaConverter::new().with_coerce_types(props.coerce_types());
                if let Some(root) = &options.schema_root {
                    converter = converter.schema_root(root);
                }
                converter.convert(&arrow_schema)?
            }
        };
        if !options.skip_arrow_metadata {
            parquet::arrow::schema::add_encoded_arrow_schema_to_metadata(&arrow_schema, &mut props);
        }
        let max_row_group_row_count = props.max_row_group_row_count();
        let max_row_group_bytes = props.max_row_group_bytes();
        let file_writer =
            SerializedFileWriter::new(sink, schema.root_schema_ptr(), Arc::new(props))?;
        let mut factory = ArrowRowGroupWriterFactory::new(&file_writer, arrow_schema.clone());
        if let Some(f) = options.page_store_factory {
            factory = factory.with_page_store_factory(f);
        }
        let cdc = file_writer
            .properties()
            .content_defined_chunking()
            .map(|opts| {
                file_writer
                    .schema_descr()
                    .columns()
                    .iter()
                    .map(|_| Chunker::try_new(opts))
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?;
        Ok(Self {
            writer: file_writer,
            in_progress: None,
            arrow_schema,
            factory,
            max_row_group_row_count,
            max_row_group_bytes,
            poisoned: None,
            cdc,
            hybrid: None,
        })
    }

    /// Estimated bytes of the in-progress row group, as `parquet` sums them
    /// over every column writer.
    fn estimated_bytes(&self) -> usize {
        self.in_progress
            .as_ref()
            .map_or(0, RowGroup::estimated_bytes)
            + self.hybrid.as_ref().map_or(0, |h| h.estimated_bytes())
    }

    /// Memory held by the in-progress row group's writers.
    fn memory_size(&self) -> usize {
        self.in_progress.as_ref().map_or(0, RowGroup::memory_size)
            + self.hybrid.as_ref().map_or(0, |h| h.memory_size())
    }

    fn check_usable(&self) -> Result<()> {
        match &self.poisoned {
            Some(why) => Err(ParquetError::General(format!(
                "the writer cannot continue after a failed write: {why}"
            ))),
            None => Ok(()),
        }
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        self.check_usable()?;
        let plan = self.factory.plan();
        validate_batch(&self.arrow_schema, batch, |i| {
            plan.is_some_and(|p| matches!(p[i], FieldPlan::Fast { .. }))
        })?;
        self.validate_fast_columns(batch)?;

        let mut remaining = batch.clone();
        loop {
            if self.in_progress.is_none() {
                let index = self.writer.flushed_row_groups().len();
                self.in_progress = Some(match &self.hybrid {
                    None => RowGroup {
                        writers: self.factory.create_column_writers(index)?,
                        slots: None,
                        buffered_rows: 0,
                    },
                    Some(h) => {
                        // The inner writer's fields are not written here.
                        let (slots, writers) = self
                            .factory
                            .create_column_writers_of(index, |leaf| !h.is_inner_leaf(leaf))?
                            .into_iter()
                            .unzip();
                        RowGroup {
                            writers,
                            slots: Some(slots),
                            buffered_rows: 0,
                        }
                    }
                });
            }
            let buffered_rows = self.in_progress.as_ref().unwrap().buffered_rows;

            let mut split_at = match self.max_row_group_row_count {
                Some(max) if buffered_rows + remaining.num_rows() > max => {
                    Some(max - buffered_rows)
                }
                _ => None,
            };
            let candidate = split_at.unwrap_or_else(|| remaining.num_rows());
            if let Some(max_bytes) = self.max_row_group_bytes
                && buffered_rows > 0
            {
                let current = self.estimated_bytes();
                if current >= max_bytes {
                    self.flush()?;
                    continue;
                }
                let avg = current / buffered_rows;
                if let Some(fit) = (max_bytes - current).checked_div(avg)
                    && candidate > fit
                {
                    if fit > 0 {
                        split_at = Some(fit);
                    } else {
                        self.flush()?;
                        continue;
                    }
                }
            }

            let rest = split_at.map(|n| {
                let rest = remaining.slice(n, remaining.num_rows() - n);
                remaining = remaining.slice(0, n);
                rest
            });

            if let Err(e) = self.write_row_group_part(&remaining) {
                self.poisoned = Some(e.to_string());
                return Err(e);
            }

            let buffered_rows = self.in_progress.as_ref().unwrap().buffered_rows;
            let should_flush = self
                .max_row_group_row_count
                .is_some_and(|max| buffered_rows >= max)
                || self
                    .max_row_group_bytes
                    .is_some_and(|max| self.estimated_bytes() >= max);
            if should_flush {
                self.flush()?;
            }
            match rest {
                Some(rest) => remaining = rest,
                None => return Ok(()),
            }
        }
    }

    /// Validates the fast columns of the whole batch (decimal widths, required
    /// nulls) before anything is written.
    fn validate_fast_columns(&self, batch: &RecordBatch) -> Result<()> {
        let Some(plan) = self.factory.plan() else {
            return Ok(());
        };
        for ((field, array), p) in self
            .arrow_schema
            .fields()
            .iter()
            .zip(batch.columns())
            .zip(plan)
        {
            if let FieldPlan::Fast { kind, leaf } = p {
                self.factory
                    .shape(*kind, *leaf)
                    .validate(&flat_leaf(field, array))?;
            }
        }
        Ok(())
    }

    /// Writes one slice of a validated batch into the in-progress row group:
    /// all leaves are computed before any is written.
    fn write_row_group_part(&mut self, part: &RecordBatch) -> Result<()> {
        let plan = self.factory.plan();
        let mut leaves: Vec<ArrowLeafColumn> = Vec::new();
        for (i, (field, array)) in self
            .arrow_schema
            .fields()
            .iter()
            .zip(part.columns())
            .enumerate()
        {
            if let Some(h) = &self.hybrid {
                if h.is_inner_field(i) {
                    continue;
                }
                if let Some(inner) = h.inner_leaves_of(i) {
                    // The fast leaves of a field split with the inner writer.
                    leaves.extend(tracked_leaves(field, array, &|l| {
                        !inner.get(l).copied().unwrap_or(true)
                    })?);
                    continue;
                }
            }
            match plan.map(|p| &p[i]) {
                Some(FieldPlan::Fast { .. }) => {
                    leaves.push(ArrowLeafColumn(LeafInner::Flat(flat_leaf(field, array))))
                }
                Some(FieldPlan::Leveled { fast, .. }) => leaves.extend(leveled_leaves(
                    field,
                    array,
                    &|i| fast.get(i).is_some_and(Option::is_some),
                    fast.len(),
                )?),
                _ => leaves.extend(
                    upstream::compute_leaves(field, array)?
                        .into_iter()
                        .map(|l| ArrowLeafColumn(LeafInner::Upstream(l))),
                ),
            }
        }
        let in_progress = self.in_progress.as_mut().unwrap();
        if leaves.len() != in_progress.writers.len() {
            return Err(ParquetError::General(format!(
                "batch has {} leaf columns, the schema {}",
                leaves.len(),
                in_progress.writers.len()
            )));
        }
        match &mut self.cdc {
            None => {
                for (writer, leaf) in in_progress.writers.iter_mut().zip(&leaves) {
                    writer.write_validated(leaf)?;
                }
            }
            Some(chunkers) => match &in_progress.slots {
                None => {
                    for ((writer, leaf), chunker) in
                        in_progress.writers.iter_mut().zip(&leaves).zip(chunkers)
                    {
                        writer.write_chunked(leaf, chunker)?;
                    }
                }
                Some(slots) => {
                    for ((writer, leaf), &slot) in
                        in_progress.writers.iter_mut().zip(&leaves).zip(slots)
                    {
                        writer.write_chunked(leaf, &mut chunkers[slot])?;
                    }
                }
            },
        }
        if let Some(h) = &mut self.hybrid {
            h.write(part)?;
        }
        in_progress.buffered_rows += part.num_rows();
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.check_usable()?;
        let Some(in_progress) = self.in_progress.take() else {
            return Ok(());
        };
        if in_progress.buffered_rows == 0 {
            // Writers created only to validate a batch that then failed.
            return Ok(());
        }
        let chunks = in_progress
            .writers
            .into_iter()
            .map(ArrowColumnWriter::close)
            .collect::<Result<Vec<ArrowColumnChunk>>>()?;
        if let (Some(h), Some(slots)) = (&mut self.hybrid, &in_progress.slots) {
            let leaves = self.writer.schema_descr().num_columns();
            let mut own: Vec<Option<ArrowColumnChunk>> = (0..leaves).map(|_| None).collect();
            for (chunk, &slot) in chunks.into_iter().zip(slots) {
                own[slot] = Some(chunk);
            }
            if let Err(e) = h.write_row_group(&mut self.writer, own) {
                self.poisoned = Some(e.to_string());
                return Err(e);
            }
            return Ok(());
        }
        let mut row_group = self.writer.next_row_group()?;
        for chunk in chunks {
            chunk.append_to_row_group(&mut row_group)?;
        }
        row_group.close()?;
        Ok(())
    }
}

impl<W: Write + Send> OwnWriter<Gate<W>> {
    /// Flushes and writes the footer (see [`Hybrid::finish`]).
    fn finish(&mut self) -> Result<ParquetMetaData> {
        self.flush()?;
        match &mut self.hybrid {
            Some(h) => h.finish(&mut self.writer),
            None => self.writer.finish(),
        }
    }

    /// Bytes written to the output.
    fn bytes_written(&self) -> usize {
        let adjust = self.hybrid.as_ref().map_or(0, |h| h.footer_adjust);
        self.writer.bytes_written().saturating_add_signed(adjust)
    }

    /// [`ArrowWriter::into_serialized_writer`]: possible while nothing but
    /// the magic has been written, which is how column-level (parallel)
    /// writers use it; the file writer is then rebuilt over the output, in
    /// the state `parquet`'s would be in.
    fn into_serialized_writer(
        mut self,
    ) -> Result<(SerializedFileWriter<W>, ArrowRowGroupWriterFactory)> {
        self.flush()?;
        let untouched = self.writer.flushed_row_groups().is_empty()
            && self.writer.bytes_written() == 4
            && self.writer.inner().passed == 0;
        if !untouched {
            return Err(ParquetError::NYI(
                "into_serialized_writer after rows were written, with content-defined chunking \
                 on a table whose fields are not all on the FLBA fast path"
                    .into(),
            ));
        }
        let props = Arc::clone(self.writer.properties());
        let root = self.writer.schema_descr().root_schema_ptr();
        // Nothing reached the output: drop the file writer's bytes.
        self.writer.inner_mut().open = false;
        let out = self.writer.into_inner()?.inner;
        let mut writer = SerializedFileWriter::new(out, root, props)?;
        if let Some(h) = &self.hybrid {
            for kv in h.appended_key_value_metadata() {
                writer.append_key_value_metadata(kv.clone());
            }
        }
        let mut factory = ArrowRowGroupWriterFactory::new(&writer, self.arrow_schema.clone());
        if let Some(f) = self.factory.page_store_factory() {
            factory = factory.with_page_store_factory(f);
        }
        Ok((writer, factory))
    }

    /// Flushes, writes the footer if not yet written and returns the output.
    fn into_inner(mut self) -> Result<W> {
        self.flush()?;
        match &mut self.hybrid {
            Some(h) => h.finish_into_inner(self.writer),
            None => Ok(self.writer.into_inner()?.inner),
        }
    }
}

/// How each field of the schema would be written (None if this crate does
/// not map the schema field by field, e.g. with encryption).
fn field_plan(
    arrow_schema: &SchemaRef,
    options: &ArrowWriterOptions,
) -> Result<Option<(Vec<FieldPlan>, TypePtr)>> {
    let props = &options.properties;
    let schema = match &options.schema_descr {
        Some(descr) => descr.clone(),
        None => {
            let mut converter = ArrowSchemaConverter::new().with_coerce_types(props.coerce_types());
            if let Some(root) = &options.schema_root {
                converter = converter.schema_root(root);
            }
            converter.convert(arrow_schema)?
        }
    };
    let writer = SerializedFileWriter::new(
        std::io::sink(),
        schema.root_schema_ptr(),
        Arc::new(props.clone()),
    )?;
    let factory = ArrowRowGroupWriterFactory::new(&writer, arrow_schema.clone());
    Ok(factory
        .plan()
        .map(|plan| (plan.to_vec(), schema.root_schema_ptr())))
}

impl<W: Write + Send> RecordBatchWriter for ArrowWriter<W> {
    fn write(&mut self, batch: &RecordBatch) -> std::result::Result<(), ArrowError> {
        self.write(batch).map_err(|e| e.into())
    }

    fn close(self) -> std::result::Result<(), ArrowError> {
        self.close()?;
        Ok(())
    }
}
