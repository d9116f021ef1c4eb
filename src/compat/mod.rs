//! Everything that differs between the parquet releases this crate can
//! write like, in one place: `v60.rs` for parquet 60.1 (feature
//! `parquet-60`, the default), `v59.rs` for parquet 59.3 (feature
//! `parquet-59`), `v58.rs` for parquet 58.4 (feature `parquet-58`). The
//! files export the same items; the rest of the crate reads them as
//! `compat::X` and never names a release.
//!
//! * Rules (`const`s, one per behaviour, each citing its row of
//!   `docs/releases.md`): the code tests them in plain `if`s, which the
//!   compiler folds, so a build pays nothing for the other release.
//! * Settings one release lacks: a getter that returns the value the other
//!   release behaves as.
//! * API adapters: the few calls whose signatures differ (NaN counts, the
//!   page-index model of the hybrid footer, column orders).
//!
//! Following a new release: the checklist in `docs/releases.md`.

#[cfg(feature = "parquet-60")]
mod v60;
#[cfg(feature = "parquet-60")]
pub(crate) use v60::*;

#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
mod v59;
#[cfg(all(feature = "parquet-59", not(feature = "parquet-60")))]
pub(crate) use v59::*;

#[cfg(all(
    feature = "parquet-58",
    not(any(feature = "parquet-59", feature = "parquet-60"))
))]
mod v58;
#[cfg(all(
    feature = "parquet-58",
    not(any(feature = "parquet-59", feature = "parquet-60"))
))]
pub(crate) use v58::*;

pub(crate) mod codecs;

#[cfg(not(feature = "parquet-60"))]
mod before_60_2;

#[cfg(not(feature = "parquet-58"))]
mod page_stores;
#[cfg(feature = "parquet-58")]
#[path = "page_stores_v58.rs"]
mod page_stores;
pub(crate) use page_stores::*;

/// The version of the `parquet` crate this build resolved (`"59.3.2"`),
/// read from its `DEFAULT_CREATED_BY`.
pub(crate) const RESOLVED_RELEASE: &str = {
    const PREFIX: &str = "parquet-rs version ";
    let created_by = parquet::file::properties::DEFAULT_CREATED_BY.as_bytes();
    assert!(created_by.len() > PREFIX.len());
    let (_, version) = created_by.split_at(PREFIX.len());
    match std::str::from_utf8(version) {
        Ok(version) => version,
        Err(_) => panic!("parquet's DEFAULT_CREATED_BY is not UTF-8"),
    }
};

/// Whether [`RESOLVED_RELEASE`] is one of the patch releases whose writer
/// this crate was checked against ([`VERIFIED_RELEASES`]). When it is not
/// (a patch published after this crate), every leaf goes to `parquet`'s
/// own column writer: the file is still exactly `parquet`'s, only not
/// written faster.
pub(crate) const RELEASE_VERIFIED: bool = {
    let mut i = 0;
    let mut found = false;
    while i < VERIFIED_RELEASES.len() {
        found |= str_eq(VERIFIED_RELEASES[i], RESOLVED_RELEASE);
        i += 1;
    }
    found
};

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `parquet`'s factory of column writers for `file`'s row groups over
/// `schema`. parquet 60.2 deprecates `new` for `try_new`, which 60.1 and
/// earlier lack; `new` reports the schema errors `try_new` returns from
/// `create_column_writers`, where this crate passes them on.
#[allow(deprecated)]
pub(crate) fn upstream_factory<W: std::io::Write + Send>(
    file: &parquet::file::writer::SerializedFileWriter<W>,
    schema: arrow_schema::SchemaRef,
) -> parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory {
    parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory::new(file, schema)
}

/// The page indexes of a file's chunks, per row group and column: what the
/// hybrid footer assembles, in a form both releases can take.
pub(crate) type PageIndexes = (
    Vec<Vec<Option<parquet::file::page_index::column_index::ColumnIndexMetaData>>>,
    Vec<Vec<Option<parquet::file::page_index::offset_index::OffsetIndexMetaData>>>,
);
