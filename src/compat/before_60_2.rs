//! The write rules parquet 60.2 changed (D27-D32 of `docs/releases.md`),
//! as 60.1, 59 and 58 have them: one copy for `v59.rs` and `v58.rs`
//! (`v60.rs` reads the resolved minor release instead).

/// D27: RLE is listed among every chunk's encodings.
pub(crate) const RLE_LISTED_ONLY_WITH_LEVELS: bool = false;
/// D28: a null page has as many nulls as rows.
pub(crate) const NULL_PAGE_BY_LEVELS: bool = false;
/// D29: a byte limit on row groups does not write a first row alone.
pub(crate) const ROW_GROUP_BYTES_FIRST_ROW_ALONE: bool = false;
/// D30: level windows are not capped by values.
pub(crate) const LEVEL_WINDOWS_CAPPED_BY_VALUES: bool = false;
/// D31: empty data pages (and a 0-row chunk's dictionary page) are written.
pub(crate) const EMPTY_PAGES_SKIPPED: bool = false;
/// D32: only the schema converter refuses nullable map keys.
pub(crate) const MAP_KEYS_CHECKED_FIRST: bool = false;
