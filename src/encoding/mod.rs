//! Value encoders for fixed-width values: dictionary (with the fallback point
//! `parquet` uses), PLAIN, BYTE_STREAM_SPLIT and DELTA_BYTE_ARRAY.
//!
//! Every encoder takes values as one contiguous byte slice, `width` bytes per
//! value, already in their Parquet form. No value is ever boxed or allocated
//! on its own.

pub(crate) mod delta;
pub(crate) mod dictionary;
pub(crate) mod rle;

use delta::DeltaByteArray;
use dictionary::Dictionary;
use parquet::basic::Encoding;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::DeltaBinaryPackedEncoderOptions;

/// The encoder used when there is no dictionary, or after it falls back.
#[derive(Debug)]
pub(crate) enum Fallback {
    /// PLAIN: the values back to back.
    Plain(Vec<u8>),
    /// BYTE_STREAM_SPLIT: buffered plain, transposed when the page is cut.
    ByteStreamSplit(Vec<u8>),
    /// DELTA_BYTE_ARRAY.
    DeltaByteArray(Box<DeltaByteArray>),
}

impl Fallback {
    /// The encoder for `encoding`, or the error `parquet` gives for an encoding
    /// FIXED_LEN_BYTE_ARRAY columns cannot use.
    pub(crate) fn try_new(
        encoding: Encoding,
        width: usize,
        options: Option<DeltaBinaryPackedEncoderOptions>,
    ) -> Result<Self> {
        Ok(match encoding {
            Encoding::PLAIN => Self::Plain(Vec::new()),
            Encoding::BYTE_STREAM_SPLIT => Self::ByteStreamSplit(Vec::new()),
            Encoding::DELTA_BYTE_ARRAY => {
                Self::DeltaByteArray(Box::new(DeltaByteArray::new(width, options)))
            }
            other => {
                return Err(ParquetError::NYI(format!(
                    "Encoding {other} is not supported for FIXED_LEN_BYTE_ARRAY columns"
                )));
            }
        })
    }

    fn encoding(&self) -> Encoding {
        match self {
            Self::Plain(_) => Encoding::PLAIN,
            Self::ByteStreamSplit(_) => Encoding::BYTE_STREAM_SPLIT,
            Self::DeltaByteArray(_) => Encoding::DELTA_BYTE_ARRAY,
        }
    }

    fn put(&mut self, values: &[u8]) {
        match self {
            Self::Plain(buf) | Self::ByteStreamSplit(buf) => buf.extend_from_slice(values),
            Self::DeltaByteArray(enc) => enc.put(values),
        }
    }

    fn estimated_size(&self) -> usize {
        match self {
            Self::Plain(buf) | Self::ByteStreamSplit(buf) => buf.len(),
            Self::DeltaByteArray(enc) => enc.estimated_size(),
        }
    }

    fn memory_size(&self) -> usize {
        match self {
            Self::Plain(buf) | Self::ByteStreamSplit(buf) => buf.capacity(),
            Self::DeltaByteArray(enc) => enc.memory_size(),
        }
    }

    fn finish_into(&mut self, width: usize, dst: &mut Vec<u8>) {
        match self {
            Self::Plain(buf) => {
                dst.extend_from_slice(buf);
                buf.clear();
            }
            Self::ByteStreamSplit(buf) => {
                split_streams(buf, width, dst);
                buf.clear();
            }
            Self::DeltaByteArray(enc) => enc.finish_into(dst),
        }
    }
}

/// BYTE_STREAM_SPLIT: byte `j` of value `i` goes to `i + j * n`.
fn split_streams(values: &[u8], width: usize, dst: &mut Vec<u8>) {
    let n = values.len() / width;
    let start = dst.len();
    dst.resize(start + values.len(), 0);
    let out = &mut dst[start..];
    for (i, value) in values.chunks_exact(width).enumerate() {
        for (j, &b) in value.iter().enumerate() {
            out[i + j * n] = b;
        }
    }
}

/// A column's value encoder: a dictionary until it falls back, then the
/// fallback encoder.
#[derive(Debug)]
pub(crate) struct ValueEncoder {
    width: usize,
    dictionary: Option<Dictionary>,
    fallback: Fallback,
    /// Values buffered for the current page.
    buffered: usize,
    /// Encoded page, for encodings that are not their own buffer.
    out: Vec<u8>,
    /// Bytes of PLAIN values of the current page written outside the encoder.
    external: usize,
}

impl ValueEncoder {
    pub(crate) fn new(width: usize, dictionary: bool, fallback: Fallback) -> Self {
        Self {
            width,
            dictionary: dictionary.then(|| Dictionary::new(width)),
            fallback,
            buffered: 0,
            out: Vec::new(),
            external: 0,
        }
    }

    /// Buffers `values` (`width` bytes each) for the current page.
    pub(crate) fn put(&mut self, values: &[u8]) {
        self.buffered += values.len() / self.width.max(1);
        match &mut self.dictionary {
            Some(dict) => dict.put(values),
            None => self.fallback.put(values),
        }
    }

    /// Whether values currently go to the dictionary.
    pub(crate) fn has_dictionary(&self) -> bool {
        self.dictionary.is_some()
    }

    /// The dictionary's page size estimate, while there is one.
    pub(crate) fn estimated_dict_page_size(&self) -> Option<usize> {
        self.dictionary.as_ref().map(Dictionary::encoded_size)
    }

    /// `parquet`'s estimate of the encoded size of the buffered values.
    pub(crate) fn estimated_data_page_size(&self) -> usize {
        match &self.dictionary {
            Some(dict) => dict.estimated_data_page_size(),
            None => self.fallback.estimated_size() + self.external,
        }
    }

    /// True for non-dictionary DELTA_BYTE_ARRAY, whose values are stored
    /// against the value before them.
    pub(crate) fn compresses_against_previous_value(&self) -> bool {
        self.dictionary.is_none() && matches!(self.fallback, Fallback::DeltaByteArray(_))
    }

    /// Bytes held by the encoders.
    pub(crate) fn memory_size(&self) -> usize {
        self.dictionary.as_ref().map_or(0, Dictionary::memory_size)
            + self.fallback.memory_size()
            + self.out.capacity()
    }

    /// The buffer that PLAIN and BYTE_STREAM_SPLIT values are appended to
    /// as they are, when that is where values currently go. After appending
    /// to it, call [`Self::appended`].
    pub(crate) fn direct_buffer(&mut self) -> Option<&mut Vec<u8>> {
        match (&self.dictionary, &mut self.fallback) {
            (None, Fallback::Plain(buf) | Fallback::ByteStreamSplit(buf)) => Some(buf),
            _ => None,
        }
    }

    /// Whether values are PLAIN-encoded (no dictionary, PLAIN fallback), so
    /// they can be written straight where their page goes.
    pub(crate) fn is_plain(&self) -> bool {
        self.dictionary.is_none() && matches!(self.fallback, Fallback::Plain(_))
    }

    /// Records `n` PLAIN values (`bytes` bytes) written outside the encoder,
    /// straight into the page.
    pub(crate) fn appended_external(&mut self, n: usize, bytes: usize) {
        self.buffered += n;
        self.external += bytes;
    }

    /// Records `n` values appended through [`Self::direct_buffer`].
    pub(crate) fn appended(&mut self, n: usize) {
        self.buffered += n;
    }

    /// Encodes the current page's values; returns the page encoding and the
    /// encoded bytes, valid until [`Self::reset_page`].
    pub(crate) fn finish_page(&mut self) -> (Encoding, &[u8]) {
        self.buffered = 0;
        self.external = 0;
        self.out.clear();
        match &mut self.dictionary {
            Some(dict) => {
                dict.finish_page_into(&mut self.out);
                (Encoding::RLE_DICTIONARY, &self.out)
            }
            None => match &mut self.fallback {
                Fallback::Plain(buf) => (Encoding::PLAIN, buf),
                other => {
                    other.finish_into(self.width, &mut self.out);
                    (other.encoding(), &self.out)
                }
            },
        }
    }

    /// Clears the page encoded by [`Self::finish_page`].
    pub(crate) fn reset_page(&mut self) {
        self.out.clear();
        self.external = 0;
        if let (None, Fallback::Plain(buf)) = (&self.dictionary, &mut self.fallback) {
            buf.clear();
        }
    }

    /// Ends dictionary encoding, returning the dictionary; later values go to
    /// the fallback encoder. The current page must have been flushed.
    pub(crate) fn take_dictionary(&mut self) -> Option<Dictionary> {
        debug_assert_eq!(self.buffered, 0);
        self.dictionary.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::data_type::{FixedLenByteArray, FixedLenByteArrayType};
    use parquet::encodings::encoding::{Encoder, VariableWidthByteStreamSplitEncoder};

    #[test]
    fn byte_stream_split_matches_upstream() {
        for width in [1usize, 2, 3, 5, 8, 12, 16, 33] {
            let values: Vec<u8> = (0..width * 57).map(|i| (i * 31 % 251) as u8).collect();
            let flba: Vec<FixedLenByteArray> = values
                .chunks_exact(width)
                .map(|v| FixedLenByteArray::from(v.to_vec()))
                .collect();
            let mut up =
                VariableWidthByteStreamSplitEncoder::<FixedLenByteArrayType>::new(width as i32);
            up.put(&flba).unwrap();
            let mut ours = Fallback::ByteStreamSplit(Vec::new());
            ours.put(&values);
            let mut out = Vec::new();
            ours.finish_into(width, &mut out);
            assert_eq!(out, up.flush_buffer().unwrap().to_vec(), "width {width}");
        }
    }
}
