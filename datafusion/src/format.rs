//! The `parquet` file format with parquet-flba's writer: DataFusion's
//! `ParquetFormat` for everything but the writer plan.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::{GetExt, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormatFactory;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory, FileMeta};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSinkConfig, FileSource};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::Result;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::physical_expr::LexOrdering;
use datafusion::physical_expr_common::sort_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;

use crate::config::FlbaOptions;
use crate::rule;

/// A [`FileFormatFactory`] for the `parquet` extension whose formats write
/// through parquet-flba ([`FlbaParquetFormat`]).
///
/// It wraps another parquet factory (DataFusion's `ParquetFormatFactory` by
/// default) and delegates option handling to it, so `OPTIONS (...)` of
/// `COPY TO` / `CREATE EXTERNAL TABLE` and the session's
/// `datafusion.execution.parquet.*` settings mean what they mean there.
///
/// Give it to `SessionStateBuilder::with_file_formats` (or use
/// [`crate::configure`] / [`crate::register`]). It covers the statements
/// that look the format up by extension; add [`crate::FlbaParquetSinkRule`]
/// too so that `DataFrame::write_parquet` (which names DataFusion's factory
/// directly) is covered as well.
pub struct FlbaParquetFormatFactory {
    inner: Arc<dyn FileFormatFactory>,
}

impl FlbaParquetFormatFactory {
    /// Wraps DataFusion's `ParquetFormatFactory::new()` (options from the
    /// session).
    pub fn new() -> Self {
        Self {
            inner: Arc::new(ParquetFormatFactory::new()),
        }
    }

    /// Wraps `ParquetFormatFactory::new_with_options(options)`.
    pub fn new_with_options(options: datafusion::config::TableParquetOptions) -> Self {
        Self {
            inner: Arc::new(ParquetFormatFactory::new_with_options(options)),
        }
    }

    /// Wraps `inner`, a factory for the `parquet` extension. The formats it
    /// creates are used for everything; only their writer plan is changed,
    /// and only where it is DataFusion's parquet sink.
    pub fn wrap(inner: Arc<dyn FileFormatFactory>) -> Self {
        Self { inner }
    }

    /// The factory to register in place of `current`: `None` if `current`
    /// already is one of ours.
    pub(crate) fn wrapping(current: Option<Arc<dyn FileFormatFactory>>) -> Option<Self> {
        match current {
            Some(f) if f.as_ref().is::<Self>() => None,
            Some(f) => Some(Self::wrap(f)),
            None => Some(Self::new()),
        }
    }
}

impl Default for FlbaParquetFormatFactory {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for FlbaParquetFormatFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlbaParquetFormatFactory")
            .field("inner", &self.inner)
            .finish()
    }
}

impl GetExt for FlbaParquetFormatFactory {
    fn get_ext(&self) -> String {
        self.inner.get_ext()
    }
}

impl FileFormatFactory for FlbaParquetFormatFactory {
    fn create(
        &self,
        state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let inner = self.inner.create(state, format_options)?;
        Ok(Arc::new(FlbaParquetFormat { inner }))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(FlbaParquetFormat {
            inner: self.inner.default(),
        })
    }
}

/// A [`FileFormat`] that is another parquet format (DataFusion's
/// `ParquetFormat`) in every respect but one: its writer plan writes
/// through [`crate::FlbaParquetSink`] (unless the session's
/// `parquet_flba.enabled` is off, see [`FlbaOptions`]).
#[derive(Debug)]
pub struct FlbaParquetFormat {
    inner: Arc<dyn FileFormat>,
}

impl FlbaParquetFormat {
    /// Wraps `inner` (e.g. `Arc::new(ParquetFormat::default())`).
    pub fn new(inner: Arc<dyn FileFormat>) -> Self {
        Self { inner }
    }

    /// The wrapped format.
    pub fn inner(&self) -> &Arc<dyn FileFormat> {
        &self.inner
    }
}

#[async_trait]
impl FileFormat for FlbaParquetFormat {
    fn get_ext(&self) -> String {
        self.inner.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.inner.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.inner.compression_type()
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.inner.infer_schema(state, store, objects).await
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        self.inner
            .infer_stats(state, store, table_schema, object)
            .await
    }

    async fn infer_ordering(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Option<LexOrdering>> {
        self.inner
            .infer_ordering(state, store, table_schema, object)
            .await
    }

    async fn infer_stats_and_ordering(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<FileMeta> {
        self.inner
            .infer_stats_and_ordering(state, store, table_schema, object)
            .await
    }

    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.create_physical_plan(state, conf).await
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = self
            .inner
            .create_writer_physical_plan(input, state, conf, order_requirements)
            .await?;
        let options = FlbaOptions::from_config(state.config_options());
        if !options.enabled {
            return Ok(plan);
        }
        Ok(rule::replace_sink(&plan, &options)?.unwrap_or(plan))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        self.inner.file_source(table_schema)
    }
}
