//! Decimals that must fit a narrower column than Arrow holds them in (an
//! INT32, INT64 or FIXED_LEN_BYTE_ARRAY of fewer bytes): `parquet` would cut
//! such a value short and write a wrong one.

use super::Row;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use parquet::errors::{ParquetError, Result};
use std::ops::Range;

/// A decimal array whose values must fit `width` bytes.
pub(super) struct NarrowDecimal {
    name: String,
    array: ArrayRef,
    precision: u8,
    width: usize,
}

impl NarrowDecimal {
    pub(super) fn new(path: &str, array: ArrayRef, precision: u8) -> Self {
        Self {
            name: path.to_string(),
            array,
            precision,
            width: crate::values::decimal_stored_width(precision),
        }
    }

    pub(super) fn check(&self, range: Range<usize>, row: Row) -> Result<()> {
        let bits = 8 * self.width as u32;
        let unfit = match self.array.data_type() {
            DataType::Decimal64(_, _) => first_unfit(
                self.array
                    .as_primitive::<arrow_array::types::Decimal64Type>(),
                range.clone(),
                bits,
            ),
            DataType::Decimal128(_, _) => first_unfit(
                self.array
                    .as_primitive::<arrow_array::types::Decimal128Type>(),
                range.clone(),
                bits,
            ),
            DataType::Decimal256(_, _) => {
                let a = self
                    .array
                    .as_primitive::<arrow_array::types::Decimal256Type>();
                let w = self.width;
                let fits = |v: arrow_buffer::i256| {
                    let b = v.to_le_bytes();
                    let fill = if b[w - 1] & 0x80 != 0 { 0xFF } else { 0 };
                    b[w..].iter().all(|&x| x == fill)
                };
                range
                    .clone()
                    .find(|&i| a.is_valid(i) && !fits(a.value(i)))
                    .map(|i| (i, a.value(i).to_string()))
            }
            _ => None,
        };
        match unfit {
            Some((i, v)) => Err(ParquetError::ArrowError(format!(
                "Column '{}', row {}: decimal value {v} (element {i} of the column's values) \
                 does not fit the {} bytes of a {} column for precision {}; \
                 parquet would write a truncated, wrong value",
                self.name,
                row.of(i),
                self.width,
                crate::values::decimal_physical_name(self.precision),
                self.precision
            ))),
            None => Ok(()),
        }
    }
}

/// The first valid value in `range` of `a` outside a two's complement
/// integer of `bits` bits, with its position, formatted.
fn first_unfit<T: arrow_array::ArrowPrimitiveType>(
    a: &arrow_array::PrimitiveArray<T>,
    range: Range<usize>,
    bits: u32,
) -> Option<(usize, String)>
where
    T::Native: Into<i128> + std::fmt::Display,
{
    let lo = -(1i128 << (bits - 1));
    let hi = (1i128 << (bits - 1)) - 1;
    range
        .into_iter()
        .find(|&i| a.is_valid(i) && !(lo..=hi).contains(&a.value(i).into()))
        .map(|i| (i, a.value(i).to_string()))
}
