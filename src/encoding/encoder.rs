//! [`ColumnEncoder`]: everything about one column's values, between the
//! value sources and the page builder.
//!
//! It pulls each mini-batch's values from a [`ValueSource`], encodes them
//! (dictionary until it falls back, then PLAIN, BYTE_STREAM_SPLIT or
//! DELTA_BYTE_ARRAY), folds them into the page's min/max and the bloom
//! filter, and estimates the sizes the page builder cuts pages by. When a
//! page is cut, [`ColumnEncoder::flush_data_page`] hands over its encoded
//! values with that page's min/max; the dictionary page and the bloom filter
//! are flushed the same way. The encoder owns every buffer it writes: a PLAIN
//! page's block can be lent to it ([`ColumnEncoder::lend_page_block`]) and
//! comes back, values in place, when the page is flushed.

use super::block::PageBlock;
use super::bloom::BloomFilter;
use super::dictionary::Dictionary;
use super::fallback::Fallback;
use super::min_max::{MinMax, batch_min_max};
use super::page::{CutBuffer, DataPageValues, DictionaryPage};
use crate::values::{Slots, ValueOrder, ValueSource};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::bloom_filter::Sbbf;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnDescPtr;

/// Min/max (and, for floats, NaN count) of the current page's values.
#[derive(Debug)]
struct PageExtremes {
    order: ValueOrder,
    /// Whether min/max are gathered at all.
    enabled: bool,
    floating: bool,
    current: MinMax,
    /// The last flushed page's, lent out by `flush_data_page`.
    flushed: MinMax,
    nans: Option<u64>,
}

impl PageExtremes {
    /// Folds `values` in, given the positions of their min and max if known.
    fn observe(&mut self, values: Slots<'_>, extremes: Option<(usize, usize)>) {
        let found = match extremes {
            _ if !self.enabled => None,
            Some((lo, hi)) => Some((lo, hi, 0)),
            None => batch_min_max(self.order, values),
        };
        if let Some((lo, hi, nans)) = found {
            self.current
                .update(self.order, values.get(lo), values.get(hi));
            if self.floating && crate::compat::NAN_COUNTS {
                *self.nans.get_or_insert(0) += nans;
            }
        }
    }

    /// Ends the page: its min/max and NaN count; the next page starts empty.
    fn flush(&mut self) -> (&MinMax, Option<u64>) {
        std::mem::swap(&mut self.current, &mut self.flushed);
        self.current.clear();
        if self.floating && !crate::compat::FLOAT_TOTAL_ORDER {
            self.flushed.replace_float_zeros();
        }
        (&self.flushed, self.nans.take())
    }
}

/// One column's value encoder.
#[derive(Debug)]
pub(crate) struct ColumnEncoder {
    /// The column's dotted path, for errors.
    column: String,
    width: usize,
    dictionary: Option<Dictionary>,
    fallback: Fallback,
    extremes: PageExtremes,
    bloom: Option<BloomFilter>,
    /// Values buffered for the current page.
    num_values: usize,
    /// Encoded page of the encodings that are not their own buffer.
    out: Vec<u8>,
    /// Values converted for encoders that cannot take them in place.
    scratch: Vec<u8>,
}

impl ColumnEncoder {
    /// The encoder used without a dictionary (or after it falls back),
    /// for the column's encoding or the writer version's default; an error
    /// for an encoding the column cannot take.
    fn fallback(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<Fallback> {
        let path = descr.path();
        let physical = descr.physical_type();
        let encoding = props
            .encoding(path)
            .unwrap_or_else(|| Fallback::default_encoding(physical, props.writer_version()));
        Fallback::try_new(
            encoding,
            physical,
            crate::values::value_width(descr).unwrap_or(0),
            crate::compat::delta_options(props, path),
            &path.string(),
        )
    }

    /// Fails as [`Self::try_new`] fails for these settings (the encoding),
    /// without building the encoder.
    pub(crate) fn check_settings(descr: &ColumnDescPtr, props: &WriterProperties) -> Result<()> {
        Self::fallback(descr, props).map(drop)
    }

    /// The encoder of `descr`'s values (ordered by `order`), as `props` set it
    /// up: dictionary, fallback encoding, statistics, bloom filter.
    pub(crate) fn try_new(
        descr: &ColumnDescPtr,
        props: &WriterProperties,
        order: ValueOrder,
    ) -> Result<Self> {
        let path = descr.path();
        let width = crate::values::value_width(descr).unwrap_or(0);
        let physical = descr.physical_type();
        let fallback = Self::fallback(descr, props)?;
        let bloom = props
            .bloom_filter_properties(path)
            .map(BloomFilter::try_new)
            .transpose()?;
        Ok(Self {
            column: path.string(),
            width,
            dictionary: (props.dictionary_enabled(path)
                && has_dictionary_support(physical, props.writer_version()))
            .then(|| {
                // The entries of a full dictionary page, plus one batch
                // that may cross the limit before the fallback.
                let expected = (props.column_dictionary_page_size_limit(path) / width.max(1))
                    .saturating_add(props.write_batch_size())
                    .saturating_add(1);
                let dictionary = Dictionary::with_expected(width, expected);
                match physical {
                    PhysicalType::FLOAT | PhysicalType::DOUBLE => dictionary.for_floats(),
                    _ => dictionary,
                }
            }),
            fallback,
            extremes: PageExtremes {
                order,
                enabled: props.statistics_enabled(path) != EnabledStatistics::None
                    && order != ValueOrder::Undefined,
                floating: order == ValueOrder::Float,
                current: MinMax::default(),
                flushed: MinMax::default(),
                nans: None,
            },
            bloom,
            num_values: 0,
            out: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// A mini-batch starts, with or without values (RLE booleans start
    /// their page's encoder there, as `parquet` does).
    pub(crate) fn start_mini_batch(&mut self) {
        if let (None, Fallback::RleBooleans(enc)) = (&self.dictionary, &mut self.fallback) {
            enc.start();
        }
    }

    /// Encodes the values of `src`, folding them into the page's min/max and
    /// (unless a dictionary collects them) the bloom filter.
    pub(crate) fn write(&mut self, src: &impl ValueSource) -> Result<()> {
        let n = src.count();
        if n == 0 {
            return Ok(());
        }
        if self.dictionary.is_none() {
            self.fallback.takes_values()?;
        }
        self.num_values += n;
        let want = self.extremes.enabled;
        let bloom = match self.dictionary {
            Some(_) => None,
            None => self.bloom.as_mut(),
        };
        let raw = match self.dictionary {
            Some(_) => None,
            None => self.fallback.raw_buffer(),
        };
        if let Some(buf) = raw {
            let start = buf.len();
            let extremes = match src.borrowed() {
                Some(values) => {
                    buf.extend_from_slice(values);
                    None
                }
                None => src.append_to(buf, want),
            };
            let values = Slots::fixed(&buf[start..], self.width);
            self.extremes.observe(values, extremes);
            return insert_into(bloom, values);
        }
        let (values, extremes) = match src.borrowed() {
            Some(values) => (values, None),
            None => {
                self.scratch.clear();
                let extremes = src.append_to(&mut self.scratch, want);
                (self.scratch.as_slice(), extremes)
            }
        };
        let values = Slots::fixed(values, self.width);
        self.extremes.observe(values, extremes);
        insert_into(bloom, values)?;
        match &mut self.dictionary {
            Some(dict) => dict.put(values),
            None => self.fallback.put(values),
        }
        Ok(())
    }

    /// Whether values currently go to a dictionary.
    pub(crate) fn has_dictionary(&self) -> bool {
        self.dictionary.is_some()
    }

    /// True for non-dictionary DELTA_BYTE_ARRAY, whose values are stored
    /// against the value before them (as `parquet` counts it: not
    /// DELTA_BINARY_PACKED).
    pub(crate) fn compresses_against_previous_value(&self) -> bool {
        self.dictionary.is_none() && matches!(self.fallback, Fallback::DeltaByteArray(_))
    }

    /// Heap bytes held: dictionary, encoders, buffers, bloom filter.
    pub(crate) fn memory_size(&self) -> usize {
        self.dictionary.as_ref().map_or(0, Dictionary::memory_size)
            + self.fallback.memory_size()
            + self.bloom.as_ref().map_or(0, BloomFilter::memory_size)
            + self.out.capacity()
            + self.scratch.capacity()
    }

    /// The dictionary page size estimate, while there is a dictionary.
    pub(crate) fn estimated_dict_page_size(&self) -> Option<usize> {
        self.dictionary.as_ref().map(Dictionary::encoded_size)
    }

    /// `parquet`'s estimate of the encoded size of the buffered values.
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        match &self.dictionary {
            Some(dict) => dict.estimated_data_page_size(),
            None => self.fallback.estimated_size(),
        }
    }

    /// Whether values go to a PLAIN page that has no block yet: one may be
    /// lent with [`Self::lend_page_block`] before the next write, or the
    /// encoder opens a buffer of its own.
    pub(crate) fn wants_page_block(&self) -> bool {
        self.dictionary.is_none() && matches!(self.fallback, Fallback::Plain(None))
    }

    /// Gives back the room the current PLAIN page's block and the output
    /// buffers have left (a writer whose memory a host accounts, after a
    /// write).
    pub(crate) fn trim(&mut self) {
        if let (None, Fallback::Plain(Some(block))) = (&self.dictionary, &mut self.fallback) {
            block.buffer().shrink_to_fit();
        }
        if let Some(dictionary) = &mut self.dictionary {
            dictionary.trim();
        }
        self.out = Vec::new();
        self.scratch = Vec::new();
    }

    /// The current PLAIN page's block, while there is one.
    pub(crate) fn page_block(&self) -> Option<&PageBlock> {
        match (&self.dictionary, &self.fallback) {
            (None, Fallback::Plain(block)) => block.as_ref(),
            _ => None,
        }
    }

    /// Gives the encoder `block` to write the next PLAIN page at the end of,
    /// after `headroom` bytes. Returns the block if the encoder has no use
    /// for it (not PLAIN, or a page block already held).
    pub(crate) fn lend_page_block(&mut self, block: Vec<u8>, headroom: usize) -> Option<Vec<u8>> {
        match (&self.dictionary, &mut self.fallback) {
            (None, Fallback::Plain(slot @ None)) => {
                *slot = Some(PageBlock::new(block, headroom));
                None
            }
            _ => Some(block),
        }
    }

    /// Moves the current PLAIN page to the end of `fresh` (a block with more
    /// room) and returns the block it was in, without it. Returns `fresh` if
    /// there is no such page.
    pub(crate) fn move_page_block(&mut self, fresh: Vec<u8>) -> Vec<u8> {
        match (&self.dictionary, &mut self.fallback) {
            (None, Fallback::Plain(Some(block))) => block.move_to(fresh),
            _ => fresh,
        }
    }

    /// At most how many bytes the current page's values take once they are
    /// written out at the cut (dictionary indices, DELTA_BINARY_PACKED,
    /// BYTE_STREAM_SPLIT); `None` for a PLAIN page (it has its block) and
    /// the encoders that are not written that way.
    fn values_bound(&self) -> Option<usize> {
        match (&self.dictionary, &self.fallback) {
            (Some(dict), _) => Some(dict.indices_bound()),
            (None, Fallback::DeltaInt32(enc)) => Some(enc.finished_bound()),
            (None, Fallback::DeltaInt64(enc)) => Some(enc.finished_bound()),
            (None, Fallback::ByteStreamSplit(buf)) => Some(buf.len()),
            _ => None,
        }
    }

    /// Ends the current data page: its encoding, encoded values and min/max.
    /// Values written out at the cut go into the block `lend` gives for at
    /// most so many bytes (a block of the sink, where the page stays), or
    /// without one into the encoder's buffer, valid until the next flush.
    pub(crate) fn flush_data_page(
        &mut self,
        lend: impl FnOnce(usize) -> Result<Option<PageBlock>>,
    ) -> Result<DataPageValues<'_>> {
        let mut cut = CutBuffer::new(self.values_bound(), lend)?;
        self.num_values = 0;
        self.out.clear();
        let dst = cut.buffer(&mut self.out);
        let (encoding, plain) = match (&mut self.dictionary, &mut self.fallback) {
            (Some(dict), _) => {
                dict.finish_page_into(dst);
                (Encoding::RLE_DICTIONARY, None)
            }
            (None, Fallback::Plain(block)) => {
                (Encoding::PLAIN, Some(block.take().unwrap_or_default()))
            }
            (None, other) => {
                other
                    .finish_into(self.width, dst)
                    .map_err(|e| with_column(e, &self.column))?;
                (other.encoding(), None)
            }
        };
        let bytes = cut.into_bytes(plain, &self.out);
        let (min_max, nan_count) = self.extremes.flush();
        Ok(DataPageValues {
            encoding,
            bytes,
            min_max,
            nan_count,
            variable_length_bytes: None,
        })
    }

    /// Ends dictionary encoding: the dictionary page, if there was a
    /// dictionary, with its values added to the bloom filter. Later values
    /// go to the fallback encoder. The data page must have been flushed.
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
        insert_into(self.bloom.as_mut(), dict.values())?;
        Ok(Some(DictionaryPage {
            num_values: dict.len(),
            values: dict.into_values(),
        }))
    }

    /// The bloom filter, folded for the file, if there is one; later values
    /// are not added to any filter.
    pub(crate) fn flush_bloom_filter(&mut self) -> Option<Sbbf> {
        self.bloom.take().map(BloomFilter::finish)
    }
}

/// `e` with the name of the column it happened in.
fn with_column(e: ParquetError, column: &str) -> ParquetError {
    match e {
        ParquetError::General(message) => {
            ParquetError::General(format!("Column '{column}': {message}"))
        }
        other => other,
    }
}

/// Adds `values` to the bloom filter, if there is one.
fn insert_into(bloom: Option<&mut BloomFilter>, values: Slots<'_>) -> Result<()> {
    match bloom {
        Some(bloom) => bloom.insert_all(values),
        None => Ok(()),
    }
}

/// Whether a column of `physical` type gets a dictionary (when the
/// properties enable one), as `parquet` decides it: never for BOOLEAN, and
/// for FIXED_LEN_BYTE_ARRAY under `PARQUET_1_0` only where the release
/// allows it (D1: 59 and 58 do not).
fn has_dictionary_support(physical: PhysicalType, version: WriterVersion) -> bool {
    match physical {
        PhysicalType::BOOLEAN => false,
        PhysicalType::FIXED_LEN_BYTE_ARRAY => {
            crate::compat::FLBA_DICTIONARY_UNDER_V1 || version == WriterVersion::PARQUET_2_0
        }
        _ => true,
    }
}
