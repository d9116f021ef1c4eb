//! What an encoder hands over when a page is cut: a data page's values
//! ([`DataPageValues`], where its bytes are: [`PageBytes`]) and the
//! dictionary page ([`DictionaryPage`]); where values written out at the
//! cut go ([`CutBuffer`]).

use super::block::PageBlock;
use super::min_max::MinMax;
use parquet::basic::Encoding;
use parquet::errors::Result;

/// A data page's values, as an encoder's `flush_data_page` hands them over.
#[derive(Debug)]
pub(crate) struct DataPageValues<'a> {
    /// The page encoding.
    pub encoding: Encoding,
    /// The encoded values.
    pub bytes: PageBytes<'a>,
    /// The page's min and max (unset without statistics or values).
    pub min_max: &'a MinMax,
    /// NaNs seen by the statistics (floating-point columns), if any were
    /// gathered.
    pub nan_count: Option<u64>,
    /// The total length of the page's values, for byte arrays
    /// (`unencoded_byte_array_data_bytes`).
    pub variable_length_bytes: Option<i64>,
}

/// Where a flushed page's encoded values are.
#[derive(Debug)]
pub(crate) enum PageBytes<'a> {
    /// In the encoder, until its next flush.
    Encoded(&'a [u8]),
    /// At the end of their block, handed over with it: PLAIN values, and
    /// values written out at the cut into a block of the sink.
    Block(PageBlock),
}

impl PageBytes<'_> {
    /// The page's encoded values.
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            PageBytes::Encoded(bytes) => bytes,
            PageBytes::Block(block) => block.values(),
        }
    }
}

/// The dictionary page's body (the distinct values, PLAIN) and entry count.
#[derive(Debug)]
pub(crate) struct DictionaryPage {
    /// The distinct values, back to back in key order.
    pub values: Vec<u8>,
    /// Number of distinct values.
    pub num_values: usize,
}

/// Where an encoder writes a page's values out when the page is cut: a
/// block lent for them (a block of the chunk's sink, where the page then
/// stays), or else the encoder's own buffer.
#[derive(Debug)]
pub(crate) struct CutBuffer {
    lent: Option<PageBlock>,
}

impl CutBuffer {
    /// The block `lend` gives for at most `bound` bytes of values; `None`
    /// (no bound: a PLAIN page, which has its own block, or an encoder not
    /// written out this way) asks for none.
    pub(crate) fn new(
        bound: Option<usize>,
        lend: impl FnOnce(usize) -> Result<Option<PageBlock>>,
    ) -> Result<Self> {
        let lent = match bound {
            Some(bound) => lend(bound)?,
            None => None,
        };
        Ok(Self { lent })
    }

    /// The buffer to write into: the lent block's, or `out`.
    pub(crate) fn buffer<'a>(&'a mut self, out: &'a mut Vec<u8>) -> &'a mut Vec<u8> {
        match &mut self.lent {
            Some(block) => block.buffer(),
            None => out,
        }
    }

    /// The page's bytes: a PLAIN page's own block (`plain`; such a page
    /// has no bound, so nothing was lent besides), else the lent block,
    /// else `out`.
    pub(crate) fn into_bytes(self, plain: Option<PageBlock>, out: &[u8]) -> PageBytes<'_> {
        match (plain, self.lent) {
            (Some(block), _) | (None, Some(block)) => PageBytes::Block(block),
            (None, None) => PageBytes::Encoded(out),
        }
    }
}
