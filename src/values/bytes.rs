//! Byte-array values (Parquet BYTE_ARRAY) read straight from Arrow's buffers:
//! the offsets and data of `Utf8` / `Binary` (32-bit offsets) and
//! `LargeUtf8` / `LargeBinary` (64-bit), or the views of `Utf8View` /
//! `BinaryView` (a value of up to 12 bytes inside its 16-byte view, a longer
//! one in one of several data buffers). A value's Parquet bytes are its
//! Arrow bytes; nothing is converted or copied to read one.
//!
//! * [`ByteValues`]: the values of a leaf array, by position;
//! * [`DictionaryKeys`]: the keys of an Arrow dictionary array whose values
//!   are byte arrays, read as `u32` (the encoder maps each key once into the
//!   column's dictionary rather than hashing its value again per row);
//! * [`Picks`]: which positions a mini-batch takes (a range, the valid
//!   positions of a bitmap, listed positions).

use arrow_array::cast::AsArray;
use arrow_array::types::ArrowDictionaryKeyType;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, DictionaryArray};
use arrow_buffer::Buffer;
use arrow_buffer::bit_chunk_iterator::BitChunks;
use arrow_schema::DataType;
use parquet::errors::{ParquetError, Result};

/// The values of a byte-array leaf, by position.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ByteValues<'a> {
    /// `Utf8` / `Binary`: value `i` is `data[offsets[i]..offsets[i + 1]]`.
    Offsets32 {
        /// The array's offsets (one more than its length; already sliced).
        offsets: &'a [i32],
        /// The whole data buffer.
        data: &'a [u8],
    },
    /// `LargeUtf8` / `LargeBinary`, with 64-bit offsets.
    Offsets64 {
        /// The array's offsets (one more than its length; already sliced).
        offsets: &'a [i64],
        /// The whole data buffer.
        data: &'a [u8],
    },
    /// `Utf8View` / `BinaryView`.
    Views {
        /// The views, 16 bytes each, little-endian: the length in bytes
        /// 0..4, then either the value itself (up to 12 bytes) or a 4-byte
        /// prefix, the buffer index and the offset in that buffer.
        views: &'a [u8],
        /// The data buffers out-of-line values live in.
        buffers: &'a [Buffer],
    },
}

/// Values of at most this many bytes are held inside their view.
const INLINE: usize = 12;

impl<'a> ByteValues<'a> {
    /// The values of `array` (a `Utf8`, `LargeUtf8`, `Binary`,
    /// `LargeBinary`, `Utf8View` or `BinaryView` array, possibly sliced), or
    /// None for any other type.
    pub(crate) fn of(array: &'a dyn Array) -> Option<Self> {
        Some(match array.data_type() {
            DataType::Utf8 => {
                let a = array.as_string::<i32>();
                Self::Offsets32 {
                    offsets: a.value_offsets(),
                    data: a.values().as_slice(),
                }
            }
            DataType::Binary => {
                let a = array.as_binary::<i32>();
                Self::Offsets32 {
                    offsets: a.value_offsets(),
                    data: a.values().as_slice(),
                }
            }
            DataType::LargeUtf8 => {
                let a = array.as_string::<i64>();
                Self::Offsets64 {
                    offsets: a.value_offsets(),
                    data: a.values().as_slice(),
                }
            }
            DataType::LargeBinary => {
                let a = array.as_binary::<i64>();
                Self::Offsets64 {
                    offsets: a.value_offsets(),
                    data: a.values().as_slice(),
                }
            }
            DataType::Utf8View => {
                let a = array.as_string_view();
                Self::Views {
                    views: a.views().inner().as_slice(),
                    buffers: a.data_buffers(),
                }
            }
            DataType::BinaryView => {
                let a = array.as_binary_view();
                Self::Views {
                    views: a.views().inner().as_slice(),
                    buffers: a.data_buffers(),
                }
            }
            _ => return None,
        })
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Offsets32 { offsets, .. } => offsets.len().saturating_sub(1),
            Self::Offsets64 { offsets, .. } => offsets.len().saturating_sub(1),
            Self::Views { views, .. } => views.len() / 16,
        }
    }

    /// The bytes of value `i`.
    #[inline(always)]
    pub(crate) fn value(&self, i: usize) -> &'a [u8] {
        match *self {
            Self::Offsets32 { offsets, data } => {
                &data[offsets[i] as u32 as usize..offsets[i + 1] as u32 as usize]
            }
            Self::Offsets64 { offsets, data } => {
                &data[offsets[i] as usize..offsets[i + 1] as usize]
            }
            Self::Views { views, buffers } => view_value(views, buffers, i),
        }
    }

    /// The length of value `i`.
    #[inline(always)]
    pub(crate) fn value_len(&self, i: usize) -> usize {
        match *self {
            Self::Offsets32 { offsets, .. } => {
                (offsets[i + 1] as u32).wrapping_sub(offsets[i] as u32) as usize
            }
            Self::Offsets64 { offsets, .. } => offsets[i + 1].wrapping_sub(offsets[i]) as usize,
            Self::Views { views, .. } => view_len(views, i),
        }
    }

    /// The total length of values `[start, end)` (for offsets, whatever the
    /// validity: a null's bytes count too).
    #[inline]
    pub(crate) fn bytes_in(&self, start: usize, end: usize) -> usize {
        match *self {
            Self::Offsets32 { offsets, .. } => {
                (offsets[end] as u32).wrapping_sub(offsets[start] as u32) as usize
            }
            Self::Offsets64 { offsets, .. } => offsets[end].wrapping_sub(offsets[start]) as usize,
            Self::Views { views, .. } => view_lens_sum(&views[start * 16..end * 16]),
        }
    }

    /// The bytes of values `0..len` for sizing page blocks: exact for
    /// offsets and for a few views; for many views, every 64th view's
    /// length scaled up by an eighth more (summing every length read the
    /// whole views array once more before the values were copied: 5% of a
    /// `Utf8View` column's time).
    pub(crate) fn bytes_estimate(&self, len: usize) -> usize {
        const STRIDE: usize = 64;
        match *self {
            Self::Views { views, .. } if len >= 64 * STRIDE => {
                let (all, _) = views[..len * 16].as_chunks::<16>();
                let sampled: u64 = all.iter().step_by(STRIDE).map(view_len_of).sum();
                let count = all.len().div_ceil(STRIDE) as u128;
                let scaled = u128::from(sampled) * len as u128 / count;
                usize::try_from(scaled + scaled / 8).unwrap_or(usize::MAX)
            }
            _ => self.bytes_in(0, len),
        }
    }

    /// The largest length any value can have: for views the largest data
    /// buffer (a value lies in one), but at least the inline size.
    pub(crate) fn max_view_len(&self) -> Option<usize> {
        match self {
            Self::Views { buffers, .. } => Some(
                buffers
                    .iter()
                    .map(Buffer::len)
                    .max()
                    .unwrap_or(0)
                    .max(INLINE),
            ),
            _ => None,
        }
    }

    /// How many of the values at `picks` a mini-batch window takes when
    /// their PLAIN size (4 + length each) may reach `budget`: one more than
    /// the number before the running size first exceeds it, or all of them.
    ///
    /// As `parquet` counts it: for offsets, when the byte span from the
    /// first to the last position (nulls between them included) fits, all
    /// of them fit (for positions out of order, as a list view's, that span
    /// is what it checks); for views, when every value as long as the
    /// largest data buffer would fit.
    pub(crate) fn count_within_budget(&self, picks: &Picks<'_>, budget: usize) -> usize {
        let n = picks.count();
        let span = match (self, picks) {
            (Self::Views { .. }, _) => self.max_view_len().map(|m| m.saturating_mul(n)),
            (_, Picks::Indices([first, .., last])) if last >= first => {
                Some(self.bytes_in(*first, *last + 1))
            }
            (_, Picks::Indices([one])) => Some(self.value_len(*one)),
            _ => picks.as_range().map(|(s, e)| self.bytes_in(s, e)),
        };
        let fits = |b: usize| b.saturating_add(n.saturating_mul(4)) <= budget;
        if span.is_some_and(fits) {
            return n;
        }
        // Views in a range: their lengths summed at once (vectorised) tell
        // when all of them fit, without a walk that stops at each.
        if let (Self::Views { .. }, Some((s, e))) = (self, picks.as_range())
            && fits(self.bytes_in(s, e))
        {
            return n;
        }
        // Positions in a range (the common case) stop at the first value
        // over the budget; others go through all the picks.
        let mut total = 0usize;
        if let Some((start, end)) = picks.as_range() {
            with_layout!(self, v => {
                for (taken, i) in (start..end).enumerate() {
                    total = total.saturating_add(v.len_at(i) + 4);
                    if total > budget {
                        return taken + 1;
                    }
                }
            });
            return n;
        }
        let mut taken = 0;
        let mut over = false;
        with_layout!(self, v => picks.for_each(#[inline(always)] |i| {
            if !over {
                taken += 1;
                total = total.saturating_add(v.len_at(i) + 4);
                over = total > budget;
            }
        }));
        taken
    }
}

/// The buffer index and offset of the out-of-line value of view `i`.
#[inline(always)]
fn view_location(views: &[u8], i: usize) -> (usize, usize) {
    let at = i * 16;
    let buffer = u32::from_le_bytes(views[at + 8..at + 12].try_into().unwrap());
    let offset = u32::from_le_bytes(views[at + 12..at + 16].try_into().unwrap());
    (buffer as usize, offset as usize)
}

/// The bytes of the value of view `i`.
#[inline(always)]
fn view_value<'a>(views: &'a [u8], buffers: &'a [Buffer], i: usize) -> &'a [u8] {
    let len = view_len(views, i);
    if len <= INLINE {
        let at = i * 16 + 4;
        &views[at..at + len]
    } else {
        let (b, o) = view_location(views, i);
        &buffers[b].as_slice()[o..o + len]
    }
}

/// The keys of a dictionary array, by position (a null's key may be any
/// number, and is never read).
#[derive(Clone, Copy, Debug)]
pub(crate) enum DictionaryKeys<'a> {
    /// `Int8` keys.
    I8(&'a [i8]),
    /// `Int16` keys.
    I16(&'a [i16]),
    /// `Int32` keys.
    I32(&'a [i32]),
    /// `Int64` keys.
    I64(&'a [i64]),
    /// `UInt8` keys.
    U8(&'a [u8]),
    /// `UInt16` keys.
    U16(&'a [u16]),
    /// `UInt32` keys.
    U32(&'a [u32]),
    /// `UInt64` keys.
    U64(&'a [u64]),
}

fn keys_of<K: ArrowDictionaryKeyType>(array: &dyn Array) -> Option<&[K::Native]> {
    let dict = array.as_any().downcast_ref::<DictionaryArray<K>>()?;
    Some(dict.keys().values())
}

impl<'a> DictionaryKeys<'a> {
    /// The keys of the dictionary array `array`, or None if it is not one.
    pub(crate) fn of(array: &'a dyn Array) -> Option<Self> {
        let DataType::Dictionary(key, _) = array.data_type() else {
            return None;
        };
        Some(match key.as_ref() {
            DataType::Int8 => Self::I8(keys_of::<Int8Type>(array)?),
            DataType::Int16 => Self::I16(keys_of::<Int16Type>(array)?),
            DataType::Int32 => Self::I32(keys_of::<Int32Type>(array)?),
            DataType::Int64 => Self::I64(keys_of::<Int64Type>(array)?),
            DataType::UInt8 => Self::U8(keys_of::<UInt8Type>(array)?),
            DataType::UInt16 => Self::U16(keys_of::<UInt16Type>(array)?),
            DataType::UInt32 => Self::U32(keys_of::<UInt32Type>(array)?),
            DataType::UInt64 => Self::U64(keys_of::<UInt64Type>(array)?),
            _ => return None,
        })
    }

    /// The key at position `i`, if it is a valid index (not negative).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<usize> {
        match *self {
            Self::I8(k) => usize::try_from(k[i]).ok(),
            Self::I16(k) => usize::try_from(k[i]).ok(),
            Self::I32(k) => usize::try_from(k[i]).ok(),
            Self::I64(k) => usize::try_from(k[i]).ok(),
            Self::U8(k) => Some(usize::from(k[i])),
            Self::U16(k) => Some(usize::from(k[i])),
            Self::U32(k) => usize::try_from(k[i]).ok(),
            Self::U64(k) => usize::try_from(k[i]).ok(),
        }
    }

    /// Appends the keys at `picks` to `out`, each as a `u32`; a key that is
    /// negative or not below `values` (the dictionary's length) is an error
    /// naming its position.
    pub(crate) fn gather(
        &self,
        picks: &Picks<'_>,
        values: usize,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        // Written into a slice by position, every key checked without a
        // branch (`ok` folds the checks); the first bad position is looked
        // for again only when there is one. (Pushing to `out` kept its
        // length in memory: a store and a capacity check per key; walking
        // the set bits of a validity bitmap cost a bit scan per key.)
        let limit = values.min(u32::MAX as usize) as u64;
        let base = out.len();
        macro_rules! each {
            ($keys:expr) => {{
                let keys = $keys;
                let ok = match *picks {
                    Picks::Bitmap {
                        bits,
                        bit_offset,
                        offset,
                        len,
                        count,
                    } if count != len => {
                        // 64 positions at a time: every key is written and
                        // the write position advances by its validity bit
                        // (a null's key may be anything: not checked).
                        out.resize(base + count + 64, 0);
                        let dst = &mut out[base..];
                        let (mut w, mut ok) = (0, true);
                        let words = BitChunks::new(bits, bit_offset, len);
                        let mut put = |at: usize, m: u64, n: usize| {
                            for j in 0..n {
                                let k = keys[at + j] as i64 as u64;
                                let valid = (m >> j) & 1;
                                let fits = k < limit;
                                ok &= fits | (valid == 0);
                                dst[w] = if fits { k as u32 } else { 0 };
                                w += valid as usize;
                            }
                        };
                        let mut at = offset;
                        for m in words.iter() {
                            put(at, m, 64);
                            at += 64;
                        }
                        put(at, words.remainder_bits(), words.remainder_len());
                        debug_assert_eq!(w, count);
                        out.truncate(base + count);
                        ok
                    }
                    _ => {
                        out.resize(base + picks.count(), 0);
                        let dst = &mut out[base..];
                        let (mut w, mut ok) = (0, true);
                        picks.for_each(
                            #[inline(always)]
                            |i| {
                                let k = keys[i] as i64 as u64;
                                let fits = k < limit;
                                ok &= fits;
                                dst[w] = if fits { k as u32 } else { 0 };
                                w += 1;
                            },
                        );
                        ok
                    }
                };
                let mut bad = None;
                if !ok {
                    picks.for_each(|i| {
                        if bad.is_none() && keys[i] as i64 as u64 >= limit {
                            bad = Some(i);
                        }
                    });
                }
                bad
            }};
        }
        let bad = match *self {
            Self::I8(k) => each!(k),
            Self::I16(k) => each!(k),
            Self::I32(k) => each!(k),
            Self::I64(k) => each!(k),
            Self::U8(k) => each!(k),
            Self::U16(k) => each!(k),
            Self::U32(k) => each!(k),
            Self::U64(k) => each!(k),
        };
        match bad {
            None => Ok(()),
            Some(i) => Err(ParquetError::General(format!(
                "dictionary key at position {i} is not an index into its {values} values"
            ))),
        }
    }
}

mod access;
mod picks;

pub(crate) use access::{OffsetValues, PAD, ValueAt, ViewValues, with_layout};
use access::{len_of as view_len_of, view_len, view_lens_sum};
pub(crate) use picks::{ByteSource, Picks};

#[cfg(test)]
mod tests;
