//! [`ArrowRowGroupWriterFactory`]: creates the column writers of each row
//! group as the [`ColumnPlan`] routes the leaves: this crate's
//! FIXED_LEN_BYTE_ARRAY writer for fast leaves, `parquet`'s own column
//! writers (from a `parquet` factory, so their output is unchanged) for the
//! others.

mod stores;

pub(crate) use stores::HandOff;

use crate::column::{ArrowColumnWriter, Delegated, WriterInner, panic_error};
use crate::compat::{self, PageStore, PageStoreFactory};
use crate::leaf::{FlbaColumnWriter, LeafShape};
use crate::plan::{ColumnPlan, LeafKind};
use crate::pool::{PageHelpers, run_caught};
use arrow_schema::{Schema, SchemaRef};
use parquet::arrow::arrow_writer as upstream;
use parquet::basic::Compression;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterPropertiesPtr;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnDescPtr, Type, TypePtr};
use std::io::Write;
use std::sync::Arc;
use stores::Router;

/// Creates the column writers of each row group, see [`ArrowColumnWriter`].
///
/// Same as `parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory`: create
/// it from the file writer with [`Self::new`] (or get it from
/// [`ArrowWriter::into_serialized_writer`](crate::ArrowWriter::into_serialized_writer)).
/// [`Self::column_plan`] says which leaves take the fast path.
pub struct ArrowRowGroupWriterFactory {
    plan: ColumnPlan,
    columns: Vec<ColumnDescPtr>,
    /// The file's Parquet schema (for `parquet` factories over some fields).
    root: TypePtr,
    props: WriterPropertiesPtr,
    arrow_schema: SchemaRef,
    /// `parquet`'s factory over the whole file (encryptor included).
    whole: upstream::ArrowRowGroupWriterFactory,
    /// `parquet`'s factory over the fields with a `parquet` leaf, when some
    /// field has none (else `whole` serves them).
    /// (An error building it is reported by every `create_column_writers`.)
    partial: Result<Option<upstream::ArrowRowGroupWriterFactory>>,
    /// The leaves `partial` (or else `whole`) creates writers for, in order.
    parquet_leaves: Vec<usize>,
    /// With a user's page store factory and a fast leaf: every row group's
    /// writers come from `whole`, whose stores this routes.
    router: Option<Arc<Router>>,
    /// With [`ArrowWriter::with_threads`](crate::ArrowWriter::with_threads)
    /// and compression: the threads fast writers compress pages on.
    page_helpers: Option<PageHelpers>,
    /// Whether fast writers' page blocks go through the process-wide block
    /// cache (see [`Self::with_block_cache`]).
    block_cache: bool,
}

impl std::fmt::Debug for ArrowRowGroupWriterFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowRowGroupWriterFactory")
            .field("arrow_schema", &self.arrow_schema)
            .field("fast_leaves", &self.plan.fast_count())
            .field("router", &self.router)
            .finish_non_exhaustive()
    }
}

impl ArrowRowGroupWriterFactory {
    /// A factory for the row groups of `file`, whose columns hold `schema`;
    /// its [`ColumnPlan`] judges each leaf on its own.
    pub fn new<W: Write + Send>(file: &SerializedFileWriter<W>, schema: SchemaRef) -> Self {
        let plan = ColumnPlan::for_columns(&schema, file.schema_descr(), file.properties());
        Self::with_plan(file, schema, plan)
    }

    /// A factory for the row groups of `file` (see [`Self::new`]) that
    /// returns at once the schema errors `parquet` 60.2's `try_new` returns:
    /// a nullable map key, or an Arrow schema whose leaves are not the
    /// file's columns ([`Self::new`] reports them from
    /// [`Self::create_column_writers`]). Available under every release.
    pub fn try_new<W: Write + Send>(
        file: &SerializedFileWriter<W>,
        schema: SchemaRef,
    ) -> Result<Self> {
        let mut leaves = 0;
        for field in schema.fields() {
            crate::validate::check_map_keys(field.data_type())?;
            let empty = arrow_array::new_empty_array(field.data_type());
            leaves += crate::compute_leaves(field, &empty)?.len();
        }
        let columns = file.schema_descr().num_columns();
        if leaves != columns {
            return Err(ParquetError::General(format!(
                "Arrow schema maps to {leaves} leaf columns but Parquet schema has {columns}"
            )));
        }
        Ok(Self::new(file, schema))
    }

    /// A factory that follows `plan` (made for this file writer's schema).
    pub(crate) fn with_plan<W: Write + Send>(
        file_writer: &SerializedFileWriter<W>,
        arrow_schema: SchemaRef,
        plan: ColumnPlan,
    ) -> Self {
        let props = Arc::clone(file_writer.properties());
        let whole = compat::upstream_factory(file_writer, arrow_schema.clone());
        let (partial, parquet_leaves) = partial_factory(&plan, &arrow_schema, file_writer);
        Self {
            columns: file_writer.schema_descr().columns().to_vec(),
            root: file_writer.schema_descr().root_schema_ptr(),
            plan,
            props,
            arrow_schema,
            whole,
            partial,
            parquet_leaves,
            router: None,
            page_helpers: None,
            block_cache: true,
        }
    }

    /// Sets the [`PageStoreFactory`](parquet::arrow::arrow_writer::PageStoreFactory)
    /// that holds each column chunk's finished pages until the row group is
    /// written (default: in memory). Not with the `parquet-58` feature:
    /// parquet 58 has no page stores.
    #[cfg(not(feature = "parquet-58"))]
    pub fn with_page_store_factory(self, page_store_factory: Arc<dyn PageStoreFactory>) -> Self {
        self.with_page_stores(page_store_factory)
    }

    /// Sets the page store factory (see `with_page_store_factory`).
    pub(crate) fn with_page_stores(self, page_store_factory: Arc<dyn PageStoreFactory>) -> Self {
        self.route_page_stores(page_store_factory, Vec::new()).0
    }

    /// Sets the page store factory, keeping the stores of `hand_off` (file
    /// leaves written by another, inner `parquet` writer, whose leaf `i` is
    /// `hand_off[i]`) for that writer, which gets them from the returned
    /// factory.
    pub(crate) fn route_page_stores(
        mut self,
        page_store_factory: Arc<dyn PageStoreFactory>,
        hand_off: Vec<usize>,
    ) -> (Self, Arc<dyn PageStoreFactory>) {
        if self.plan.fast_count() == 0 && hand_off.is_empty() {
            self.whole = compat::factory_with_page_stores(self.whole, page_store_factory.clone());
            return (self, page_store_factory);
        }
        let mut kept: Vec<usize> = (0..self.columns.len())
            .filter(|&l| self.plan.is_fast(l))
            .collect();
        kept.extend(&hand_off);
        let router = Arc::new(Router::new(page_store_factory, kept));
        self.whole = compat::factory_with_page_stores(self.whole, router.clone());
        self.router = Some(router.clone());
        let hand_off = Arc::new(HandOff {
            router,
            leaves: hand_off,
        });
        (self, hand_off)
    }

    /// Whether the column writers created from now on keep their page
    /// blocks in the process-wide block cache (default `true`; see
    /// [`set_block_cache_limit`](crate::set_block_cache_limit)).
    ///
    /// With `false`, a fast leaf's writer neither takes blocks from the
    /// cache nor gives its blocks to it when its chunk is dropped: every
    /// block it holds is a fresh allocation, counted in its
    /// [`ArrowColumnWriter::memory_size`] (and so in any reservation kept
    /// at that size, as DataFusion's parallel writer keeps one) and freed
    /// with the chunk. Turn it off where the writers' memory is accounted
    /// to a host; it costs the page faults the cache saves (see
    /// `docs/memory.md`). The bytes written are the same either way.
    /// [`ArrowWriterOptions::with_block_cache`](crate::ArrowWriterOptions::with_block_cache)
    /// sets it for the factory of
    /// [`ArrowWriter::into_serialized_writer`](crate::ArrowWriter::into_serialized_writer).
    pub fn with_block_cache(mut self, block_cache: bool) -> Self {
        self.block_cache = block_cache;
        self
    }

    /// Sets [`Self::with_block_cache`] in place.
    pub(crate) fn set_block_cache(&mut self, block_cache: bool) {
        self.block_cache = block_cache;
    }

    /// Whether column writers created now use the block cache.
    pub(crate) fn block_cache(&self) -> bool {
        self.block_cache
    }

    /// The plan this factory follows: per leaf, this crate's writer or
    /// `parquet`'s, and why.
    pub fn column_plan(&self) -> &ColumnPlan {
        &self.plan
    }

    /// Creates the column writers of row group `row_group_index`, one per
    /// Parquet leaf, in schema order.
    pub fn create_column_writers(&self, row_group_index: usize) -> Result<Vec<ArrowColumnWriter>> {
        let writers = self.create_writers(row_group_index, false)?;
        Ok(writers.into_iter().map(|(_, w)| w).collect())
    }

    /// The writers of row group `row_group_index` with their leaf indices:
    /// of every leaf, or with `only_fast`, of the fast leaves only.
    pub(crate) fn create_writers(
        &self,
        row_group_index: usize,
        only_fast: bool,
    ) -> Result<Vec<(usize, ArrowColumnWriter)>> {
        self.plan.check_writable()?;
        // This crate's leaves first: settings they cannot take are refused
        // before `parquet`'s writers, which panic on some, are made.
        for (leaf, descr) in self.columns.iter().enumerate() {
            if self.plan.is_fast(leaf) {
                FlbaColumnWriter::check_settings(descr, &self.props)?;
            }
        }
        let _creating = self.router.as_ref().map(|r| r.creating()).transpose()?;
        let mut theirs = match run_caught(|| self.parquet_writers(row_group_index, only_fast)) {
            Ok(writers) => writers?,
            Err(message) => {
                let column = self.panicking_field(row_group_index);
                return Err(panic_error(&column, "being created", &message));
            }
        };
        let mut out = Vec::with_capacity(self.columns.len());
        for leaf in 0..self.columns.len() {
            let writer = match self.plan.fast_kind(leaf) {
                Some(kind) => {
                    let store = self.router.as_ref().map(|r| r.take(leaf)).transpose()?;
                    self.fast_writer(kind, leaf, store)?
                }
                None if only_fast => continue,
                None => {
                    let writer = theirs.get_mut(leaf).and_then(Option::take).ok_or_else(|| {
                        ParquetError::General(format!("no parquet writer for column {leaf}"))
                    })?;
                    let column = self.columns[leaf].path().string();
                    ArrowColumnWriter(WriterInner::Parquet(Delegated::new(writer, column)))
                }
            };
            debug_assert_eq!(
                writer.path(),
                self.plan.leaves()[leaf].path(),
                "column {leaf} does not take the path its plan gives"
            );
            out.push((leaf, writer));
        }
        Ok(out)
    }

    /// `parquet`'s writers, by leaf: every leaf's when stores are routed
    /// (so the user's factory sees all of them created), else those of
    /// `parquet_leaves` (none with `only_fast`).
    fn parquet_writers(
        &self,
        row_group_index: usize,
        only_fast: bool,
    ) -> Result<Vec<Option<upstream::ArrowColumnWriter>>> {
        let partial = self.partial.as_ref().map_err(|e| {
            ParquetError::General(format!("no parquet factory for the delegated fields: {e}"))
        })?;
        if self.router.is_some() || (partial.is_none() && !only_fast) {
            if self.router.is_none() && self.parquet_leaves.is_empty() {
                return Ok(Vec::new());
            }
            let all = self.whole.create_column_writers(row_group_index)?;
            return Ok(all.into_iter().map(Some).collect());
        }
        let mut out: Vec<Option<upstream::ArrowColumnWriter>> =
            (0..self.columns.len()).map(|_| None).collect();
        if let (Some(partial), false) = (partial, only_fast) {
            let writers = partial.create_column_writers(row_group_index)?;
            for (leaf, writer) in self.parquet_leaves.iter().zip(writers) {
                out[*leaf] = Some(writer);
            }
        }
        Ok(out)
    }

    /// After `parquet`'s factory panicked creating the delegated leaves'
    /// writers: the leaves of the first field whose writers panic when
    /// created alone (all delegated leaves if none does, or the fields are
    /// not known).
    fn panicking_field(&self, row_group_index: usize) -> String {
        let delegated = |leaves: &mut dyn Iterator<Item = usize>| -> String {
            let names: Vec<String> = leaves
                .filter(|&l| !self.plan.is_fast(l))
                .map(|l| self.columns[l].path().string())
                .collect();
            names.join("', '")
        };
        let Some(fields) = self.plan.fields() else {
            return delegated(&mut (0..self.columns.len()));
        };
        for (field, span) in fields.iter().enumerate() {
            if span.leaves().all(|l| self.plan.is_fast(l)) {
                continue;
            }
            let alone = sub_factory(&self.root, &self.arrow_schema, &self.props, &[field]);
            let panics = alone
                .is_ok_and(|f| run_caught(|| f.create_column_writers(row_group_index)).is_err());
            if panics {
                return delegated(&mut span.leaves());
            }
        }
        delegated(&mut (0..self.columns.len()))
    }

    fn fast_writer(
        &self,
        kind: LeafKind,
        leaf: usize,
        store: Option<Box<dyn PageStore>>,
    ) -> Result<ArrowColumnWriter> {
        let descr = self.columns[leaf].clone();
        let helpers = self.page_helpers.clone();
        let cache = self.block_cache;
        let writer = FlbaColumnWriter::try_new(descr, &self.props, kind, store, helpers, cache)?;
        Ok(ArrowColumnWriter(WriterInner::Flba(Box::new(writer))))
    }

    /// Whether some fast leaf's pages are compressed.
    pub(crate) fn compresses_fast_leaves(&self) -> bool {
        (0..self.columns.len()).any(|leaf| {
            self.plan.is_fast(leaf)
                && self.props.compression(self.columns[leaf].path()) != Compression::UNCOMPRESSED
        })
    }

    /// Fast writers created from now on compress their data pages on
    /// `helpers`' threads (if their column is compressed).
    pub(crate) fn set_page_helpers(&mut self, helpers: Option<PageHelpers>) {
        self.page_helpers = helpers;
    }

    /// The Arrow schema the factory writes.
    pub(crate) fn arrow_schema(&self) -> &SchemaRef {
        &self.arrow_schema
    }

    /// The user's page store factory, if one was set.
    pub(crate) fn page_store_factory(&self) -> Option<Arc<dyn PageStoreFactory>> {
        self.router.as_ref().map(|r| Arc::clone(&r.user))
    }

    /// The dotted column path of leaf `leaf`, for messages.
    pub(crate) fn column_path(&self, leaf: usize) -> Option<String> {
        self.columns.get(leaf).map(|c| c.path().string())
    }

    /// What validation needs to know about fast leaf `leaf` (None if the
    /// leaf is `parquet`'s).
    pub(crate) fn shape(&self, leaf: usize) -> Option<LeafShape> {
        let kind = self.plan.fast_kind(leaf)?;
        let descr = &self.columns[leaf];
        Some(LeafShape {
            kind,
            width: crate::values::value_width(descr).unwrap_or(0),
            max_def: descr.max_def_level(),
        })
    }
}

/// `parquet`'s factory over just the fields that have a `parquet` leaf,
/// and those fields' leaves; no factory when that is every field (the
/// whole-file factory serves) or none.
fn partial_factory<W: Write + Send>(
    plan: &ColumnPlan,
    arrow_schema: &SchemaRef,
    file_writer: &SerializedFileWriter<W>,
) -> (
    Result<Option<upstream::ArrowRowGroupWriterFactory>>,
    Vec<usize>,
) {
    let Some(fields) = plan.fields() else {
        return (Ok(None), (0..plan.leaves().len()).collect());
    };
    let keep: Vec<usize> = (0..fields.len())
        .filter(|&i| fields[i].leaves().any(|l| !plan.is_fast(l)))
        .collect();
    let leaves: Vec<usize> = keep.iter().flat_map(|&i| fields[i].leaves()).collect();
    if keep.len() == fields.len() || keep.is_empty() {
        return (Ok(None), leaves);
    }
    let root = file_writer.schema_descr().root_schema_ptr();
    let factory = sub_factory(&root, arrow_schema, file_writer.properties(), &keep).map(Some);
    (factory, leaves)
}

/// `parquet`'s factory over the top-level fields `keep` of the file (of
/// Parquet schema `root`).
///
/// `parquet`'s `ArrowRowGroupWriterFactory::new` takes a
/// `SerializedFileWriter` and nothing else, so a factory over a sub-schema
/// needs a file writer over that sub-schema: one over `io::sink()`,
/// dropped at once (it buffers the 4-byte magic, nothing more).
fn sub_factory(
    root: &TypePtr,
    arrow_schema: &SchemaRef,
    props: &WriterPropertiesPtr,
    keep: &[usize],
) -> Result<upstream::ArrowRowGroupWriterFactory> {
    let sub_root = Type::GroupType {
        basic_info: root.get_basic_info().clone(),
        fields: keep.iter().map(|&i| root.get_fields()[i].clone()).collect(),
    };
    let sub_arrow = Arc::new(Schema::new_with_metadata(
        keep.iter()
            .map(|&i| arrow_schema.fields()[i].clone())
            .collect::<Vec<_>>(),
        arrow_schema.metadata().clone(),
    ));
    let sink = SerializedFileWriter::new(std::io::sink(), Arc::new(sub_root), Arc::clone(props))?;
    Ok(compat::upstream_factory(&sink, sub_arrow))
}
