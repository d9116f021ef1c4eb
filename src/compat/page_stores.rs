//! Page stores, parquet 59 and later: `parquet`'s own traits, and the two
//! calls that hand a user's factory to `parquet`'s writer. parquet 58 has
//! none (`page_stores_v58.rs`).

use parquet::arrow::arrow_writer as upstream;
pub(crate) use parquet::arrow::arrow_writer::{
    InMemoryPageStore, PageKey, PageStore, PageStoreArgs, PageStoreFactory,
};
use std::sync::Arc;

/// `options` with `parquet`'s page store factory `f`.
pub(crate) fn options_with_page_stores(
    options: upstream::ArrowWriterOptions,
    f: Arc<dyn PageStoreFactory>,
) -> upstream::ArrowWriterOptions {
    options.with_page_store_factory(f)
}

/// `factory` with `parquet`'s page store factory `f`.
pub(crate) fn factory_with_page_stores(
    factory: upstream::ArrowRowGroupWriterFactory,
    f: Arc<dyn PageStoreFactory>,
) -> upstream::ArrowRowGroupWriterFactory {
    factory.with_page_store_factory(f)
}
