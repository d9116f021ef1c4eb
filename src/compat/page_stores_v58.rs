//! Page stores under parquet 58, which has none (`PageStore` and
//! `PageStoreFactory` came with parquet 59): crate-private stand-ins with
//! the same names, so that the store plumbing of the chunk, factory and
//! hybrid stages compiles unchanged. No public API of this crate takes a
//! store under 58 (`with_page_store_factory` and `SpillPageStoreFactory`
//! are left out), so none is ever created: every `Option` of a store or a
//! factory is `None`, and the functions below are never reached (hence
//! the allowance for code the compiler sees is never called).
#![allow(dead_code)]

use bytes::Bytes;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};
use std::sync::Arc;

/// Where a stored page is (never made under 58).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PageKey(());

/// A column chunk's page store (no implementation reaches a writer under 58).
pub(crate) trait PageStore: Send {
    /// Keeps `value`.
    fn put(&mut self, value: Bytes) -> Result<PageKey>;
    /// Gives back the page kept under `key`.
    fn take(&mut self, key: PageKey) -> Result<Bytes>;
    /// Heap bytes held.
    fn memory_size(&self) -> usize;
}

/// What a factory is told about the store it creates (never made under 58).
pub(crate) struct PageStoreArgs<'a>(std::marker::PhantomData<&'a ()>, Never);

/// No value.
enum Never {}

impl PageStoreArgs<'_> {
    /// The column's index in the file.
    pub(crate) fn column_index(&self) -> usize {
        match self.1 {}
    }
}

/// Creates page stores (never given under 58).
pub(crate) trait PageStoreFactory: Send + Sync + std::fmt::Debug {
    /// A store for the column `args` describes.
    fn create(&self, args: &PageStoreArgs<'_>) -> Result<Box<dyn PageStore>>;
}

/// The store a routed `parquet` writer gets in place of a kept one; there
/// is no routing under 58, so it refuses pages.
#[derive(Debug, Default)]
pub(crate) struct InMemoryPageStore(());

fn none() -> ParquetError {
    ParquetError::General("parquet 58 has no page stores".into())
}

impl PageStore for InMemoryPageStore {
    fn put(&mut self, _value: Bytes) -> Result<PageKey> {
        Err(none())
    }
    fn take(&mut self, _key: PageKey) -> Result<Bytes> {
        Err(none())
    }
    fn memory_size(&self) -> usize {
        0
    }
}

/// `options` unchanged: parquet 58's writer takes no page stores.
pub(crate) fn options_with_page_stores(
    options: upstream::ArrowWriterOptions,
    _f: Arc<dyn PageStoreFactory>,
) -> upstream::ArrowWriterOptions {
    options
}

/// `factory` unchanged: parquet 58's writer takes no page stores.
pub(crate) fn factory_with_page_stores(
    factory: upstream::ArrowRowGroupWriterFactory,
    _f: Arc<dyn PageStoreFactory>,
) -> upstream::ArrowRowGroupWriterFactory {
    factory
}
