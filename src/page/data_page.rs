//! A data page as it is stored: what its header says ([`DataPageHead`]),
//! the header's bytes, and its size after compression (a V2 page stays
//! uncompressed unless compression saves enough).

use super::header::{PageKind, write_page_header};
use super::metrics::PageCounters;
use super::settings::ColumnSettings;
use super::statistics::HeaderMinMax;
use parquet::basic::Encoding;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterVersion;

/// What a data page header says, besides sizes and the levels.
#[derive(Debug)]
pub(crate) struct DataPageHead {
    /// Levels (values and nulls).
    pub num_levels: u32,
    /// Nulls.
    pub num_nulls: u64,
    /// Rows.
    pub num_rows: u32,
    /// Value encoding.
    pub encoding: Encoding,
    /// Length of the repetition levels within the page's levels.
    pub rep_len: usize,
    /// Header statistics (min / max), if written.
    pub statistics: Option<HeaderMinMax>,
}

impl DataPageHead {
    /// The header's page type and fields, for a page with `levels_len`
    /// bytes of levels, `compressed` or not.
    fn kind(&self, version: WriterVersion, levels_len: usize, compressed: bool) -> PageKind<'_> {
        let statistics = self
            .statistics
            .as_ref()
            .map(|m| m.with_nulls(self.num_nulls));
        match version {
            WriterVersion::PARQUET_1_0 => PageKind::DataV1 {
                num_values: self.num_levels as i32,
                encoding: self.encoding,
                statistics,
            },
            WriterVersion::PARQUET_2_0 => PageKind::DataV2 {
                num_values: self.num_levels as i32,
                num_nulls: self.num_nulls as u32 as i32,
                num_rows: self.num_rows as i32,
                encoding: self.encoding,
                def_levels_len: (levels_len - self.rep_len) as i32,
                rep_levels_len: self.rep_len as i32,
                is_compressed: compressed,
                statistics,
            },
        }
    }
}

/// What the page builder records of a data page once it is stored.
#[derive(Debug)]
pub(crate) struct PageTag {
    /// Value encoding.
    pub encoding: Encoding,
    /// The page's counters.
    pub counters: PageCounters,
}

/// The size after its header of a page of `uncompressed` bytes (levels and
/// values, `levels` of them levels), and whether it is stored compressed,
/// given `compressed` bytes of compressed values (V1: levels and values):
/// V2 pages stay uncompressed unless compression saves enough.
pub(super) fn stored_size(
    s: &ColumnSettings,
    uncompressed: usize,
    levels: usize,
    compressed: usize,
) -> (usize, bool) {
    let saves = (compressed as f64) < uncompressed as f64 * s.v2_compression_threshold;
    match s.version == WriterVersion::PARQUET_1_0 || saves {
        true => (compressed_len(s, levels, compressed), true),
        false => (uncompressed, false),
    }
}

/// The size after its header of a compressed page with `levels` bytes of
/// levels and `compressed` bytes of compressed values (V1: levels and
/// values; V2 keeps its levels uncompressed, in front).
pub(super) fn compressed_len(s: &ColumnSettings, levels: usize, compressed: usize) -> usize {
    match s.version {
        WriterVersion::PARQUET_1_0 => compressed,
        WriterVersion::PARQUET_2_0 => levels + compressed,
    }
}

/// Writes the header of a data page with `head` and `levels_len` bytes of
/// levels into `out`; `sizes`: uncompressed and stored sizes, and whether
/// the page is compressed.
pub(super) fn header_into(
    out: &mut Vec<u8>,
    s: &ColumnSettings,
    head: &DataPageHead,
    levels_len: usize,
    (uncompressed, stored, compressed): (usize, usize, bool),
) -> Result<()> {
    write_page_header(
        out,
        checked_i32(uncompressed)?,
        checked_i32(stored)?,
        &head.kind(s.version, levels_len, compressed),
    );
    Ok(())
}

/// `size` as a page header size, or an error if it does not fit.
pub(super) fn checked_i32(size: usize) -> Result<i32> {
    i32::try_from(size)
        .map_err(|_| ParquetError::General(format!("Page size overflow: {size} bytes")))
}
