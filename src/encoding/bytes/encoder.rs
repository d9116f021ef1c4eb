//! [`ByteEncoder`]: the value encoder of a byte-array column, as `parquet`'s
//! `ByteArrayEncoder` behaves: a dictionary while it lasts (its key remap
//! for Arrow dictionary arrays), then PLAIN, DELTA_LENGTH_BYTE_ARRAY or
//! DELTA_BYTE_ARRAY; page min/max, the bloom filter, and the page's
//! unencoded byte count (`unencoded_byte_array_data_bytes`).
//!
//! Values are read straight from the Arrow buffers at the mini-batch's
//! positions ([`ByteSource`]); a PLAIN page is written into a block lent by
//! the chunk, as for fixed-width values.

use super::dictionary::ByteDictionary;
use super::fallback::{
    DeltaByteArray, DeltaLengthByteArray, append_plain, append_plain_seen, picked_bytes,
};
use super::min_max::{Extremes, PageKeys};
use super::remap::KeyRemap;
use crate::encoding::block::PageBlock;
use crate::encoding::bloom::BloomFilter;
use crate::encoding::min_max::MinMax;
use crate::encoding::page::{CutBuffer, DataPageValues, DictionaryPage};
use crate::values::ValueOrder;
use crate::values::bytes::{ByteSource, Picks};
use parquet::basic::Encoding;
use parquet::bloom_filter::Sbbf;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnDescPtr;

/// The encoder used without a dictionary, or after it falls back.
#[derive(Debug)]
enum Fallback {
    /// PLAIN, in the current page's block (none until its first value).
    Plain(Option<PageBlock>),
    DeltaLength(Box<DeltaLengthByteArray>),
    Delta(Box<DeltaByteArray>),
}

/// One byte-array column's value encoder.
#[derive(Debug)]
pub(crate) struct ByteEncoder {
    dictionary: Option<ByteDictionary>,
    remap: KeyRemap,
    /// The remap was made in an earlier write: it is checked against this
    /// write's Arrow dictionary (kept if the values are the same).
    remap_stale: bool,
    keys: Vec<u32>,
    page_keys: PageKeys,
    fallback: Fallback,
    statistics: bool,
    current: MinMax,
    flushed: MinMax,
    bloom: Option<BloomFilter>,
    num_values: usize,
    variable_length_bytes: i64,
    out: Vec<u8>,
}

impl ByteEncoder {
    /// The encoder of `descr`'s values as `props` set it up. An encoding
    /// `parquet` has no byte-array encoder for is an error naming the column.
    pub(crate) fn try_new(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<Self> {
        let path = descr.path();
        let encoding = props
            .encoding(path)
            .unwrap_or(match props.writer_version() {
                WriterVersion::PARQUET_1_0 => Encoding::PLAIN,
                WriterVersion::PARQUET_2_0 => Encoding::DELTA_BYTE_ARRAY,
            });
        let fallback = match encoding {
            Encoding::PLAIN => Fallback::Plain(None),
            Encoding::DELTA_LENGTH_BYTE_ARRAY => Fallback::DeltaLength(Box::default()),
            Encoding::DELTA_BYTE_ARRAY => Fallback::Delta(Box::default()),
            other => {
                return Err(ParquetError::General(format!(
                    "Column '{}': unsupported encoding {other} for byte array",
                    path.string()
                )));
            }
        };
        let bloom = props
            .bloom_filter_properties(path)
            .map(BloomFilter::try_new)
            .transpose()?;
        Ok(Self {
            dictionary: props.dictionary_enabled(path).then(ByteDictionary::new),
            remap: KeyRemap::default(),
            remap_stale: true,
            keys: Vec::new(),
            page_keys: PageKeys::default(),
            fallback,
            statistics: props.statistics_enabled(path) != EnabledStatistics::None,
            current: MinMax::default(),
            flushed: MinMax::default(),
            bloom,
            num_values: 0,
            variable_length_bytes: 0,
            out: Vec::new(),
        })
    }

    /// A new write begins: an Arrow dictionary's keys are mapped anew unless
    /// it brings the values of the last one.
    pub(crate) fn begin_write(&mut self) {
        self.remap_stale = true;
    }

    /// Encodes the values of `src`, folding them into the page's min/max and
    /// (unless a dictionary collects them) the bloom filter.
    pub(crate) fn write(&mut self, src: &ByteSource<'_>) -> Result<()> {
        if src.picks.count() == 0 {
            return Ok(());
        }
        let mut keys = std::mem::take(&mut self.keys);
        let written = self.write_with(src, &mut keys);
        self.keys = keys;
        written
    }

    /// [`Self::write`], with a buffer for the keys of an Arrow dictionary.
    fn write_with(&mut self, src: &ByteSource<'_>, keys: &mut Vec<u32>) -> Result<()> {
        let values = &src.values;
        // An Arrow dictionary's values are read by key.
        let picks = match &src.keys {
            None => src.picks,
            Some(k) => {
                keys.clear();
                k.gather(&src.picks, values.len(), keys)?;
                Picks::Keys(keys)
            }
        };
        self.num_values += picks.count();
        if let Some(dict) = &mut self.dictionary {
            let before = dict.buffered();
            let bytes = match src.keys {
                // The remap knows each value's length.
                Some(_) => {
                    if std::mem::take(&mut self.remap_stale) {
                        self.remap.begin(values);
                    }
                    self.remap.put(dict, values, keys)
                }
                None => {
                    dict.put(values, &picks);
                    picked_bytes(values, &picks)
                }
            };
            self.variable_length_bytes += bytes as i64;
            if self.statistics {
                self.page_keys.observe(dict, &dict.indices()[before..]);
            }
            return Ok(());
        }
        if let Some(bloom) = &mut self.bloom {
            bloom.insert_each(picks.iter().map(|i| values.value(i)));
        }
        // Each encoding folds the page's min/max in as it copies the
        // values (one pass over them, not two).
        let mut extremes = Extremes::default();
        let bytes = match (&mut self.fallback, self.statistics) {
            (Fallback::Plain(block), true) => {
                let buf = block.get_or_insert_default().buffer();
                append_plain_seen(buf, values, &picks, |i, v| extremes.fold(i, v))
            }
            (Fallback::Plain(block), false) => {
                append_plain(block.get_or_insert_default().buffer(), values, &picks)
            }
            (Fallback::DeltaLength(enc), true) => {
                enc.put(values, &picks, |i, v| extremes.fold(i, v))
            }
            (Fallback::DeltaLength(enc), false) => enc.put(values, &picks, |_, _| {}),
            (Fallback::Delta(enc), true) => enc.put(values, &picks, |i, v| extremes.fold(i, v)),
            (Fallback::Delta(enc), false) => enc.put(values, &picks, |_, _| {}),
        };
        self.variable_length_bytes += bytes as i64;
        if let Some((lo, hi)) = extremes.positions() {
            let order = ValueOrder::Unsigned;
            self.current
                .update(order, values.value(lo), values.value(hi));
        }
        Ok(())
    }

    /// Whether values currently go to a dictionary.
    pub(crate) fn has_dictionary(&self) -> bool {
        self.dictionary.is_some()
    }

    /// True for non-dictionary DELTA_BYTE_ARRAY.
    pub(crate) fn compresses_against_previous_value(&self) -> bool {
        self.dictionary.is_none() && matches!(self.fallback, Fallback::Delta(_))
    }

    /// Heap bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        let fallback = match &self.fallback {
            Fallback::Plain(block) => block.as_ref().map_or(0, PageBlock::capacity),
            Fallback::DeltaLength(enc) => enc.memory_size(),
            Fallback::Delta(enc) => enc.memory_size(),
        };
        self.dictionary
            .as_ref()
            .map_or(0, ByteDictionary::memory_size)
            + self.remap.memory_size()
            + self.keys.capacity() * 4
            + self.page_keys.memory_size()
            + fallback
            + self.bloom.as_ref().map_or(0, BloomFilter::memory_size)
            + self.out.capacity()
    }

    /// The dictionary page size estimate, while there is a dictionary.
    pub(crate) fn estimated_dict_page_size(&self) -> Option<usize> {
        self.dictionary.as_ref().map(ByteDictionary::encoded_size)
    }

    /// `parquet`'s estimate of the encoded size of the buffered values.
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        match (&self.dictionary, &self.fallback) {
            (Some(dict), _) => dict.estimated_data_page_size(),
            (None, Fallback::Plain(block)) => block.as_ref().map_or(0, |b| b.values().len()),
            (None, Fallback::DeltaLength(enc)) => enc.estimated_size(),
            (None, Fallback::Delta(enc)) => enc.estimated_size(),
        }
    }

    /// Whether values go to a PLAIN page that has no block yet.
    pub(crate) fn wants_page_block(&self) -> bool {
        self.dictionary.is_none() && matches!(self.fallback, Fallback::Plain(None))
    }

    /// Gives back the room the buffers have left (an accounted writer,
    /// after a write).
    pub(crate) fn trim(&mut self) {
        if let (None, Fallback::Plain(Some(block))) = (&self.dictionary, &mut self.fallback) {
            block.buffer().shrink_to_fit();
        }
        if let Some(dictionary) = &mut self.dictionary {
            dictionary.trim();
        }
        self.keys = Vec::new();
        self.out = Vec::new();
    }

    /// The current PLAIN page's block, while there is one.
    pub(crate) fn page_block(&self) -> Option<&PageBlock> {
        match (&self.dictionary, &self.fallback) {
            (None, Fallback::Plain(block)) => block.as_ref(),
            _ => None,
        }
    }

    /// Gives the encoder `block` for the next PLAIN page, after `headroom`
    /// bytes; returns it if the encoder has no use for it.
    pub(crate) fn lend_page_block(&mut self, block: Vec<u8>, headroom: usize) -> Option<Vec<u8>> {
        match (&self.dictionary, &mut self.fallback) {
            (None, Fallback::Plain(slot @ None)) => {
                *slot = Some(PageBlock::new(block, headroom));
                None
            }
            _ => Some(block),
        }
    }

    /// Moves the current PLAIN page to the end of `fresh` and returns the
    /// block it was in; returns `fresh` if there is no such page.
    pub(crate) fn move_page_block(&mut self, fresh: Vec<u8>) -> Vec<u8> {
        match (&self.dictionary, &mut self.fallback) {
            (None, Fallback::Plain(Some(block))) => block.move_to(fresh),
            _ => fresh,
        }
    }

    /// Ends the current data page: its encoding, values, min/max and byte
    /// count. Values written out at the cut (all but PLAIN's) go into the
    /// block `lend` gives for at most so many bytes (a block of the sink, where the page stays), or
    /// without one into the encoder's buffer, valid until the next flush.
    pub(crate) fn flush_data_page(
        &mut self,
        lend: impl FnOnce(usize) -> Result<Option<PageBlock>>,
    ) -> Result<DataPageValues<'_>> {
        let bound = match (&self.dictionary, &self.fallback) {
            (Some(dict), _) => Some(dict.indices_bound()),
            (None, Fallback::DeltaLength(enc)) => Some(enc.finished_bound()),
            (None, Fallback::Delta(enc)) => Some(enc.finished_bound()),
            (None, Fallback::Plain(_)) => None,
        };
        let mut cut = CutBuffer::new(bound, lend)?;
        self.num_values = 0;
        self.out.clear();
        let dst = cut.buffer(&mut self.out);
        let (encoding, plain) = match (&mut self.dictionary, &mut self.fallback) {
            (Some(dict), _) => {
                if let Some((lo, hi)) = self.page_keys.min_max() {
                    let order = ValueOrder::Unsigned;
                    self.current.update(order, dict.entry(lo), dict.entry(hi));
                }
                self.page_keys.clear();
                dict.finish_page_into(dst);
                (Encoding::RLE_DICTIONARY, None)
            }
            (None, Fallback::Plain(block)) => {
                (Encoding::PLAIN, Some(block.take().unwrap_or_default()))
            }
            (None, Fallback::DeltaLength(enc)) => {
                enc.finish_into(dst);
                (Encoding::DELTA_LENGTH_BYTE_ARRAY, None)
            }
            (None, Fallback::Delta(enc)) => {
                enc.finish_into(dst);
                (Encoding::DELTA_BYTE_ARRAY, None)
            }
        };
        let bytes = cut.into_bytes(plain, &self.out);
        std::mem::swap(&mut self.current, &mut self.flushed);
        self.current.clear();
        Ok(DataPageValues {
            encoding,
            bytes,
            min_max: &self.flushed,
            nan_count: None,
            variable_length_bytes: Some(std::mem::take(&mut self.variable_length_bytes)),
        })
    }

    /// Ends dictionary encoding: the dictionary page body and entry count,
    /// if there was a dictionary, its entries added to the bloom filter.
    /// The data page must have been flushed.
    pub(crate) fn flush_dict_page(&mut self) -> Result<Option<DictionaryPage>> {
        if self.num_values > 0 {
            return Err(ParquetError::General(format!(
                "dictionary page flushed with {} values of a data page buffered",
                self.num_values
            )));
        }
        let Some(dict) = self.dictionary.take() else {
            return Ok(None);
        };
        if let Some(bloom) = &mut self.bloom {
            bloom.insert_each(dict.entries());
        }
        self.remap = KeyRemap::default();
        self.page_keys = PageKeys::default();
        let (values, num_values) = dict.into_page();
        Ok(Some(DictionaryPage { values, num_values }))
    }

    /// The bloom filter, folded for the file, if there is one.
    pub(crate) fn flush_bloom_filter(&mut self) -> Option<Sbbf> {
        self.bloom.take().map(BloomFilter::finish)
    }
}
