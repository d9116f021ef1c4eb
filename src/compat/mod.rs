//! Everything that differs between the parquet releases this crate can
//! write like, in one place: `v60.rs` for parquet 60.1.0 (feature
//! `parquet-60`, the default), `v59.rs` for parquet 59.2.0 (feature
//! `parquet-59`). Both files export the same items; the rest of the crate
//! reads them as `compat::X` and never names a release.
//!
//! * Rules (`const`s, one per behaviour, each citing its row of
//!   `docs/parquet-59.md`): the code tests them in plain `if`s, which the
//!   compiler folds, so a build pays nothing for the other release.
//! * Settings one release lacks: a getter that returns the value the other
//!   release behaves as.
//! * API adapters: the few calls whose signatures differ (NaN counts, the
//!   page-index model of the hybrid footer, column orders).
//!
//! Following a new release: `docs/parquet-59.md` section (d).

#[cfg(feature = "parquet-60")]
mod v60;
#[cfg(feature = "parquet-60")]
pub(crate) use v60::*;

#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
mod v59;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
pub(crate) use v59::*;

/// The page indexes of a file's chunks, per row group and column: what the
/// hybrid footer assembles, in a form both releases can take.
pub(crate) type PageIndexes = (
    Vec<Vec<Option<parquet::file::page_index::column_index::ColumnIndexMetaData>>>,
    Vec<Vec<Option<parquet::file::page_index::offset_index::OffsetIndexMetaData>>>,
);
