//! [`LeafValues`]: the values of one leaf write as the stages read them:
//! fixed-width values through [`NativeValues`], byte arrays in place
//! through [`ByteValues`] (for an Arrow dictionary array, its values and
//! keys: the dictionary is not expanded).

use crate::values::bytes::{ByteSource, ByteValues, DictionaryKeys, Picks};
use crate::values::{LeafKind, NativeValues};
use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_schema::DataType;
use parquet::errors::{ParquetError, Result};

/// The values of a leaf write.
#[derive(Clone, Copy, Debug)]
pub(super) enum LeafValues<'a> {
    /// Fixed-width values.
    Fixed(NativeValues<'a>),
    /// Byte arrays: the leaf's values, or an Arrow dictionary's values and
    /// the leaf's keys into them.
    Bytes {
        values: ByteValues<'a>,
        keys: Option<DictionaryKeys<'a>>,
    },
}

impl<'a> LeafValues<'a> {
    /// The values of `array` for a leaf of `kind` and Parquet width `width`
    /// (a byte-array leaf's array may be a dictionary array of byte arrays,
    /// and any byte-array layout of its family).
    pub(super) fn new(kind: LeafKind, width: usize, array: &'a dyn Array) -> Result<Self> {
        if !kind.is_byte_array() {
            return NativeValues::new(kind, width, array).map(Self::Fixed);
        }
        let type_error = || {
            ParquetError::ArrowError(format!(
                "Incompatible type: expected a string or binary array, got {}",
                array.data_type()
            ))
        };
        if !crate::compat::DICTIONARY_OF_VIEWS
            && crate::arrays::dictionary_of_views(array.data_type())
        {
            return Err(ParquetError::ArrowError(format!(
                "parquet {} cannot write an array of type {} (its byte-array writer has no \
                 dictionary of views and panics)",
                crate::compat::RESOLVED_RELEASE,
                array.data_type()
            )));
        }
        if let DataType::Dictionary(_, _) = array.data_type() {
            let dict = array.as_any_dictionary_opt().ok_or_else(type_error)?;
            let values = ByteValues::of(dict.values().as_ref()).ok_or_else(type_error)?;
            let keys = DictionaryKeys::of(array).ok_or_else(type_error)?;
            return Ok(Self::Bytes {
                values,
                keys: Some(keys),
            });
        }
        let values = ByteValues::of(array).ok_or_else(type_error)?;
        Ok(Self::Bytes { values, keys: None })
    }

    /// The fixed-width values, if they are.
    pub(super) fn fixed(&self) -> Option<&NativeValues<'a>> {
        match self {
            Self::Fixed(v) => Some(v),
            Self::Bytes { .. } => None,
        }
    }

    /// The byte arrays at `picks` (positions of the leaf), as the page
    /// builder takes them.
    pub(super) fn byte_source<'p>(&self, picks: Picks<'p>) -> Option<ByteSource<'p>>
    where
        'a: 'p,
    {
        match *self {
            Self::Bytes { values, keys } => Some(ByteSource {
                values,
                keys,
                picks,
            }),
            Self::Fixed(_) => None,
        }
    }

    /// The bytes of the value at position `i` (for an Arrow dictionary, of
    /// the value its key picks), when the leaf holds byte arrays.
    #[inline]
    pub(super) fn bytes_at(&self, i: usize) -> Option<&'a [u8]> {
        match self {
            Self::Bytes { values, keys: None } => Some(values.value(i)),
            Self::Bytes {
                values,
                keys: Some(keys),
            } => {
                let k = keys.get(i).filter(|&k| k < values.len())?;
                Some(values.value(k))
            }
            Self::Fixed(_) => None,
        }
    }

    /// The PLAIN size (lengths included) of a write of `count` values out
    /// of the leaf's `len` positions: exact for offsets, the leaf's span
    /// (nulls' bytes too), sampled for many views, otherwise estimated
    /// from what is at hand.
    pub(super) fn plain_bytes(&self, len: usize, count: usize) -> usize {
        let bytes = match self {
            Self::Fixed(_) => 0,
            Self::Bytes { values, keys: None } => values.bytes_estimate(len),
            Self::Bytes { values, .. } => {
                let n = values.len();
                match n {
                    0 => 0,
                    _ => {
                        let all = values.bytes_in(0, n);
                        (all as u128 * count as u128 / n as u128) as usize
                    }
                }
            }
        };
        bytes.saturating_add(count.saturating_mul(4))
    }
}
