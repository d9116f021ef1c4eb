//! [`ValueEncoder`]: the one value encoder the page builder drives, for
//! fixed-width values ([`ColumnEncoder`]) or byte arrays ([`ByteEncoder`]):
//! the same operations, the same page and dictionary-page hand-over.

use super::block::PageBlock;
use super::bytes::encoder::ByteEncoder;
use super::encoder::ColumnEncoder;
use super::page::{DataPageValues, DictionaryPage};
use crate::values::{ValueOrder, ValueSource};
use parquet::basic::Type as PhysicalType;
use parquet::bloom_filter::Sbbf;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnDescPtr;

/// One column's value encoder (boxed: one allocation per column chunk,
/// and the enum stays a pointer wide whichever it is).
#[derive(Debug)]
pub(crate) enum ValueEncoder {
    /// Values of one width (FIXED_LEN_BYTE_ARRAY, INT32, INT64, ...).
    Fixed(Box<ColumnEncoder>),
    /// Byte arrays (BYTE_ARRAY).
    Bytes(Box<ByteEncoder>),
}

/// Calls the same method on whichever encoder it is.
macro_rules! each {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            ValueEncoder::Fixed($e) => $body,
            ValueEncoder::Bytes($e) => $body,
        }
    };
}

impl ValueEncoder {
    /// The encoder of `descr`'s values as `props` set it up.
    pub(crate) fn try_new(
        descr: &ColumnDescPtr,
        props: &WriterProperties,
        order: ValueOrder,
    ) -> Result<Self> {
        Ok(match descr.physical_type() {
            PhysicalType::BYTE_ARRAY => Self::Bytes(Box::new(ByteEncoder::try_new(descr, props)?)),
            _ => Self::Fixed(Box::new(ColumnEncoder::try_new(descr, props, order)?)),
        })
    }

    /// Fails as [`Self::try_new`] fails for these settings (the fallback
    /// encoding), without building the encoder's buffers where it can.
    pub(crate) fn check_settings(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<()> {
        match descr.physical_type() {
            PhysicalType::BYTE_ARRAY => ByteEncoder::try_new(descr, props).map(drop),
            _ => ColumnEncoder::check_settings(descr, props),
        }
    }

    /// A write begins (an Arrow dictionary's keys are mapped anew).
    pub(crate) fn begin_write(&mut self) {
        if let Self::Bytes(e) = self {
            e.begin_write();
        }
    }

    /// A mini-batch starts, with or without values.
    pub(crate) fn start_mini_batch(&mut self) {
        if let Self::Fixed(e) = self {
            e.start_mini_batch();
        }
    }

    /// Encodes the values of `src`.
    pub(crate) fn write(&mut self, src: &impl ValueSource) -> Result<()> {
        match self {
            Self::Fixed(e) => e.write(src),
            Self::Bytes(e) => match src.byte_source() {
                Some(bytes) => e.write(&bytes),
                None => Err(ParquetError::General(
                    "byte-array column given fixed-width values".into(),
                )),
            },
        }
    }

    /// Whether values currently go to a dictionary.
    pub(crate) fn has_dictionary(&self) -> bool {
        each!(self, e => e.has_dictionary())
    }

    /// True for non-dictionary DELTA_BYTE_ARRAY.
    pub(crate) fn compresses_against_previous_value(&self) -> bool {
        each!(self, e => e.compresses_against_previous_value())
    }

    /// Heap bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        each!(self, e => e.memory_size())
    }

    /// The dictionary page size estimate, while there is a dictionary.
    pub(crate) fn estimated_dict_page_size(&self) -> Option<usize> {
        each!(self, e => e.estimated_dict_page_size())
    }

    /// `parquet`'s estimate of the encoded size of the buffered values.
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        each!(self, e => e.estimated_data_page_size())
    }

    /// Whether values go to a PLAIN page that has no block yet.
    pub(crate) fn wants_page_block(&self) -> bool {
        each!(self, e => e.wants_page_block())
    }

    /// Gives back the room the buffers have left.
    pub(crate) fn trim(&mut self) {
        each!(self, e => e.trim())
    }

    /// The current PLAIN page's block, while there is one.
    pub(crate) fn page_block(&self) -> Option<&PageBlock> {
        each!(self, e => e.page_block())
    }

    /// Gives the encoder `block` for the next PLAIN page.
    pub(crate) fn lend_page_block(&mut self, block: Vec<u8>, headroom: usize) -> Option<Vec<u8>> {
        each!(self, e => e.lend_page_block(block, headroom))
    }

    /// Moves the current PLAIN page to the end of `fresh`.
    pub(crate) fn move_page_block(&mut self, fresh: Vec<u8>) -> Vec<u8> {
        each!(self, e => e.move_page_block(fresh))
    }

    /// Ends the current data page, its values in the block `lend` gives
    /// where the encoding writes them at the cut.
    pub(crate) fn flush_data_page(
        &mut self,
        lend: impl FnOnce(usize) -> Result<Option<PageBlock>>,
    ) -> Result<DataPageValues<'_>> {
        each!(self, e => e.flush_data_page(lend))
    }

    /// Ends dictionary encoding: the dictionary page, if there was one.
    pub(crate) fn flush_dict_page(&mut self) -> Result<Option<DictionaryPage>> {
        each!(self, e => e.flush_dict_page())
    }

    /// The bloom filter, folded for the file, if there is one.
    pub(crate) fn flush_bloom_filter(&mut self) -> Option<Sbbf> {
        each!(self, e => e.flush_bloom_filter())
    }
}
