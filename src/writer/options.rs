//! [`ArrowWriterOptions`], drop-in for `parquet`'s.

use crate::compat::PageStoreFactory;
use arrow_schema::Schema;
use parquet::arrow::ArrowSchemaConverter;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::Result;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::SchemaDescriptor;
use std::sync::Arc;

/// Arrow-specific settings for writing Parquet files.
///
/// Same as `parquet::arrow::arrow_writer::ArrowWriterOptions`.
#[derive(Debug, Clone, Default)]
pub struct ArrowWriterOptions {
    pub(super) properties: WriterProperties,
    pub(super) page_store_factory: Option<Arc<dyn PageStoreFactory>>,
    /// The Parquet schema given instead of converting the Arrow one.
    explicit_schema: Option<SchemaDescriptor>,
    /// Name of the converted schema's root element.
    root_name: Option<String>,
    skip_arrow_metadata: bool,
    /// Set by `with_block_cache(false)`.
    no_block_cache: bool,
}

impl ArrowWriterOptions {
    /// Options with the default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the [`WriterProperties`].
    pub fn with_properties(mut self, properties: WriterProperties) -> Self {
        self.properties = properties;
        self
    }

    /// Sets the [`PageStoreFactory`](parquet::arrow::arrow_writer::PageStoreFactory)
    /// that buffers finished pages until their row group is written
    /// (default: in memory; see
    /// [`SpillPageStoreFactory`](crate::SpillPageStoreFactory) to spill them
    /// to disk). Not with the `parquet-58` feature: parquet 58 has no page
    /// stores.
    #[cfg(not(feature = "parquet-58"))]
    pub fn with_page_store_factory(
        mut self,
        page_store_factory: Arc<dyn PageStoreFactory>,
    ) -> Self {
        self.page_store_factory = Some(page_store_factory);
        self
    }

    /// Leaves the Arrow schema out of the file's key-value metadata when
    /// `true` (by default it is embedded, so readers restore Arrow types).
    pub fn with_skip_arrow_metadata(mut self, skip_arrow_metadata: bool) -> Self {
        self.skip_arrow_metadata = skip_arrow_metadata;
        self
    }

    /// Whether the fast leaves' column writers keep their page blocks in
    /// the process-wide block cache (default `true`; see
    /// [`set_block_cache_limit`](crate::set_block_cache_limit)). Not in
    /// `parquet`'s options.
    ///
    /// With `false`, the writer neither takes blocks from the cache nor
    /// gives its blocks to it: every block it holds is its own allocation,
    /// counted in [`ArrowWriter::memory_size`](crate::ArrowWriter::memory_size),
    /// and freed once its row group is written, so the process holds no
    /// memory on its behalf after it is dropped. This costs a page fault
    /// per 4 KiB of page blocks that the cache would have saved
    /// (`docs/memory.md` has figures). A writer with a
    /// [`MemoryListener`](crate::MemoryListener) never uses the cache,
    /// whatever this says. The setting carries over to the factory of
    /// [`ArrowWriter::into_serialized_writer`](crate::ArrowWriter::into_serialized_writer)
    /// (see [`ArrowRowGroupWriterFactory::with_block_cache`](crate::ArrowRowGroupWriterFactory::with_block_cache)).
    /// The bytes written are the same either way.
    pub fn with_block_cache(mut self, block_cache: bool) -> Self {
        self.no_block_cache = !block_cache;
        self
    }

    /// Whether the writer's page blocks go through the block cache.
    pub(super) fn block_cache(&self) -> bool {
        !self.no_block_cache
    }

    /// Names the root element of the converted Parquet schema (default
    /// `"arrow_schema"`); ignored with [`Self::with_parquet_schema`].
    pub fn with_schema_root(mut self, schema_root: String) -> Self {
        self.root_name = Some(schema_root);
        self
    }

    /// Writes with this Parquet schema rather than the one converted from
    /// the Arrow schema. Leaves whose descriptor is not what the converter
    /// would make go to `parquet`'s writer (see
    /// [`ColumnPlan`](crate::ColumnPlan)).
    pub fn with_parquet_schema(mut self, schema_descr: SchemaDescriptor) -> Self {
        self.explicit_schema = Some(schema_descr);
        self
    }

    /// The Parquet schema of the file: the explicit one, or the Arrow
    /// schema converted as `parquet` converts it.
    pub(super) fn parquet_schema(&self, arrow_schema: &Schema) -> Result<SchemaDescriptor> {
        if crate::compat::MAP_KEYS_CHECKED_FIRST {
            for field in arrow_schema.fields() {
                crate::validate::check_map_keys(field.data_type())?;
            }
        }
        if let Some(explicit) = &self.explicit_schema {
            return Ok(explicit.clone());
        }
        let converter =
            ArrowSchemaConverter::new().with_coerce_types(self.properties.coerce_types());
        match &self.root_name {
            Some(root) => converter.schema_root(root).convert(arrow_schema),
            None => converter.convert(arrow_schema),
        }
    }

    /// The file's properties, with the Arrow schema added to the key-value
    /// metadata unless skipped.
    pub(super) fn file_properties(&self, arrow_schema: &Schema) -> WriterProperties {
        let mut props = self.properties.clone();
        if !self.skip_arrow_metadata {
            parquet::arrow::add_encoded_arrow_schema_to_metadata(arrow_schema, &mut props);
        }
        props
    }

    /// The same options for `parquet`'s writer.
    pub(super) fn into_upstream(self) -> upstream::ArrowWriterOptions {
        let mut options = upstream::ArrowWriterOptions::new()
            .with_properties(self.properties)
            .with_skip_arrow_metadata(self.skip_arrow_metadata);
        if let Some(root) = self.root_name {
            options = options.with_schema_root(root);
        }
        if let Some(schema) = self.explicit_schema {
            options = options.with_parquet_schema(schema);
        }
        if let Some(f) = self.page_store_factory {
            options = crate::compat::options_with_page_stores(options, f);
        }
        options
    }
}
