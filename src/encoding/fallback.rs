//! The encoders used without a dictionary, or after it falls back: PLAIN,
//! BYTE_STREAM_SPLIT, DELTA_BYTE_ARRAY (FIXED_LEN_BYTE_ARRAY),
//! DELTA_BINARY_PACKED (INT32 / INT64), and for BOOLEAN PLAIN (bit-packed)
//! and RLE.

use super::block::PageBlock;
use super::boolean::{PlainBooleans, RleBooleans};
use super::delta::{DeltaBinaryPacked, DeltaByteArray};
use crate::compat::DeltaOptions;
use crate::values::Slots;
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterVersion;

/// The encoder used when there is no dictionary, or after it falls back.
#[derive(Debug)]
pub(crate) enum Fallback {
    /// PLAIN: the values back to back, in the current page's block (none
    /// until the page's first value).
    Plain(Option<PageBlock>),
    /// BYTE_STREAM_SPLIT: buffered plain, transposed when the page is cut.
    ByteStreamSplit(Vec<u8>),
    /// DELTA_BYTE_ARRAY.
    DeltaByteArray(Box<DeltaByteArray>),
    /// DELTA_BINARY_PACKED of INT32 values.
    DeltaInt32(Box<DeltaBinaryPacked<i32>>),
    /// DELTA_BINARY_PACKED of INT64 values.
    DeltaInt64(Box<DeltaBinaryPacked<i64>>),
    /// PLAIN BOOLEAN values, bit-packed.
    PlainBooleans(PlainBooleans),
    /// RLE BOOLEAN values.
    RleBooleans(Box<RleBooleans>),
    /// An encoding the column's type cannot take that parquet 59 and 58
    /// accept when the writer is created (D26): the first value (or, see
    /// [`Deferred`], the first page) given to it fails, where those
    /// releases panic.
    Refused(Box<Deferred>),
}

/// What [`Fallback::Refused`] can still write, and the error for the rest.
#[derive(Debug)]
pub(crate) struct Deferred {
    encoding: Encoding,
    physical: PhysicalType,
    column: String,
    /// DELTA_LENGTH_BYTE_ARRAY on FIXED_LEN_BYTE_ARRAY: parquet 59 and 58
    /// fail on a value but write a page of nulls only (the lengths of no
    /// values: a DELTA_BINARY_PACKED header); `None` when every page fails.
    lengths: Option<DeltaBinaryPacked<i32>>,
}

impl Deferred {
    fn error(&self) -> ParquetError {
        ParquetError::NYI(format!(
            "Column '{}': Encoding {} is not supported for {} columns (parquet {} takes \
             it for the column, and panics at the first value to encode with it, once \
             the dictionary has fallen back or without one)",
            self.column,
            self.encoding,
            self.physical,
            crate::compat::RESOLVED_RELEASE
        ))
    }
}

impl Fallback {
    /// The encoding a column of `physical` type falls back to (or has,
    /// without a dictionary) when the properties name none, as `parquet`
    /// picks it per writer version.
    pub(crate) fn default_encoding(physical: PhysicalType, version: WriterVersion) -> Encoding {
        match (version, physical) {
            (WriterVersion::PARQUET_1_0, _) => Encoding::PLAIN,
            (_, PhysicalType::BOOLEAN) => Encoding::RLE,
            (_, PhysicalType::INT32 | PhysicalType::INT64) => Encoding::DELTA_BINARY_PACKED,
            (_, PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY) => {
                Encoding::DELTA_BYTE_ARRAY
            }
            (_, PhysicalType::FLOAT | PhysicalType::DOUBLE | PhysicalType::INT96) => {
                Encoding::PLAIN
            }
        }
    }

    /// The encoder for `encoding` of a `physical` column of `width`-byte
    /// values, or an error for an encoding such a column cannot use (the
    /// message names `column`).
    pub(crate) fn try_new(
        encoding: Encoding,
        physical: PhysicalType,
        width: usize,
        options: Option<DeltaOptions>,
        column: &str,
    ) -> Result<Self> {
        Ok(match (encoding, physical) {
            (Encoding::PLAIN, PhysicalType::BOOLEAN) => Self::PlainBooleans(Default::default()),
            (Encoding::RLE, PhysicalType::BOOLEAN) => Self::RleBooleans(Default::default()),
            (Encoding::PLAIN, _) => Self::Plain(None),
            (Encoding::BYTE_STREAM_SPLIT, t) if t != PhysicalType::BOOLEAN => {
                Self::ByteStreamSplit(Vec::new())
            }
            (Encoding::DELTA_BYTE_ARRAY, PhysicalType::FIXED_LEN_BYTE_ARRAY) => {
                Self::DeltaByteArray(Box::new(DeltaByteArray::new(width, options)))
            }
            (Encoding::DELTA_BINARY_PACKED, PhysicalType::INT32) => {
                Self::DeltaInt32(Box::new(DeltaBinaryPacked::new(options)))
            }
            (Encoding::DELTA_BINARY_PACKED, PhysicalType::INT64) => {
                Self::DeltaInt64(Box::new(DeltaBinaryPacked::new(options)))
            }
            // D26: parquet 59 and 58 create an encoder for these on any
            // type; it fails only once it is given values.
            (Encoding::RLE | Encoding::DELTA_LENGTH_BYTE_ARRAY, _)
            | (Encoding::DELTA_BYTE_ARRAY, PhysicalType::INT32 | PhysicalType::INT64)
                if !crate::compat::FALLBACK_ENCODING_CHECKED_AT_CREATION =>
            {
                let lengths = (encoding == Encoding::DELTA_LENGTH_BYTE_ARRAY
                    && physical == PhysicalType::FIXED_LEN_BYTE_ARRAY)
                    .then(|| DeltaBinaryPacked::new(None));
                Self::Refused(Box::new(Deferred {
                    encoding,
                    physical,
                    column: column.to_string(),
                    lengths,
                }))
            }
            (other, physical) => {
                return Err(ParquetError::NYI(format!(
                    "Column '{column}': Encoding {other} is not supported for {physical} columns"
                )));
            }
        })
    }

    /// The page encoding.
    pub(crate) fn encoding(&self) -> Encoding {
        match self {
            Self::Refused(deferred) => deferred.encoding,
            Self::Plain(_) => Encoding::PLAIN,
            Self::ByteStreamSplit(_) => Encoding::BYTE_STREAM_SPLIT,
            Self::DeltaByteArray(_) => Encoding::DELTA_BYTE_ARRAY,
            Self::DeltaInt32(_) | Self::DeltaInt64(_) => Encoding::DELTA_BINARY_PACKED,
            Self::PlainBooleans(_) => Encoding::PLAIN,
            Self::RleBooleans(_) => Encoding::RLE,
        }
    }

    /// The buffer values are appended to as they are (PLAIN and
    /// BYTE_STREAM_SPLIT), with a PLAIN page opened in a buffer of its own
    /// if none was lent.
    pub(crate) fn raw_buffer(&mut self) -> Option<&mut Vec<u8>> {
        match self {
            Self::Plain(block) => Some(block.get_or_insert_default().buffer()),
            Self::ByteStreamSplit(buf) => Some(buf),
            Self::DeltaByteArray(_)
            | Self::DeltaInt32(_)
            | Self::DeltaInt64(_)
            | Self::PlainBooleans(_)
            | Self::RleBooleans(_)
            | Self::Refused(_) => None,
        }
    }

    /// Fails for an encoding that cannot take values (D26); the encoder
    /// checks it before taking any.
    pub(crate) fn takes_values(&self) -> Result<()> {
        match self {
            Self::Refused(deferred) => Err(deferred.error()),
            _ => Ok(()),
        }
    }

    /// Encodes `values` (of the column's width); nothing for an encoding
    /// that cannot take them ([`Self::takes_values`]).
    pub(crate) fn put(&mut self, values: Slots<'_>) {
        let values = values.data();
        match self {
            Self::DeltaByteArray(enc) => enc.put(values),
            Self::DeltaInt32(enc) => enc.put_le(values),
            Self::DeltaInt64(enc) => enc.put_le(values),
            Self::PlainBooleans(enc) => enc.put(values),
            Self::RleBooleans(enc) => enc.put(values),
            other => {
                if let Some(buf) = other.raw_buffer() {
                    buf.extend_from_slice(values);
                }
            }
        }
    }

    /// `parquet`'s estimate of the encoded size of the buffered values.
    pub(crate) fn estimated_size(&self) -> usize {
        match self {
            Self::Plain(block) => block.as_ref().map_or(0, |b| b.values().len()),
            Self::ByteStreamSplit(buf) => buf.len(),
            Self::DeltaByteArray(enc) => enc.estimated_size(),
            Self::DeltaInt32(enc) => enc.completed_len(),
            Self::DeltaInt64(enc) => enc.completed_len(),
            Self::Refused(_) => 0,
            Self::PlainBooleans(enc) => enc.estimated_size(),
            Self::RleBooleans(enc) => enc.estimated_size(),
        }
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        match self {
            Self::Plain(block) => block.as_ref().map_or(0, PageBlock::capacity),
            Self::ByteStreamSplit(buf) => buf.capacity(),
            Self::DeltaByteArray(enc) => enc.memory_size(),
            Self::DeltaInt32(enc) => enc.memory_size(),
            Self::DeltaInt64(enc) => enc.memory_size(),
            Self::Refused(deferred) => deferred.lengths.as_ref().map_or(0, |l| l.memory_size()),
            Self::PlainBooleans(enc) => enc.memory_size(),
            Self::RleBooleans(enc) => enc.memory_size(),
        }
    }

    /// Appends the encoded page of a BYTE_STREAM_SPLIT, delta or BOOLEAN
    /// encoder to `dst` and clears it (PLAIN pages are handed over in their
    /// block instead). Fails for a page `parquet` cannot write (an RLE
    /// BOOLEAN page without values; a page of a [`Self::Refused`] encoding
    /// that parquet 59 and 58 cannot write, D26).
    pub(crate) fn finish_into(&mut self, width: usize, dst: &mut Vec<u8>) -> Result<()> {
        match self {
            Self::Refused(deferred) => match &mut deferred.lengths {
                // The lengths of the page's values (there are none), then
                // their bytes (none).
                Some(lengths) => lengths.finish_into(dst),
                None => return Err(deferred.error()),
            },
            Self::Plain(block) => {
                if let Some(block) = block {
                    dst.extend_from_slice(block.values());
                }
                *block = None;
            }
            Self::ByteStreamSplit(buf) => {
                split_streams(buf, width, dst);
                buf.clear();
            }
            Self::DeltaByteArray(enc) => enc.finish_into(dst),
            Self::DeltaInt32(enc) => enc.finish_into(dst),
            Self::DeltaInt64(enc) => enc.finish_into(dst),
            Self::PlainBooleans(enc) => enc.finish_into(dst),
            Self::RleBooleans(enc) => return enc.finish_into(dst),
        }
        Ok(())
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

// parquet keeps its BYTE_STREAM_SPLIT encoder private (60 shows it only
// with its `experimental` feature, which cannot be resolved for 60.2.0):
// the differential suites cover the encoding under every release.
