//! Arrow arrays whose values this crate writes (FIXED_LEN_BYTE_ARRAY, and
//! decimals stored as INT32 / INT64), read straight from their buffers.
//!
//! | Arrow type | Parquet bytes (width `L`) |
//! |---|---|
//! | `FixedSizeBinary(n)` | the `n` bytes as stored |
//! | `Decimal128` / `Decimal256` (precision ≥ 19) | two's complement, big-endian, the low `L` bytes |
//! | any decimal of precision ≤ 9 (INT32) / ≤ 18 (INT64) | two's complement, little-endian, the low 4 / 8 bytes |
//! | `Float16` | 2 bytes, little-endian |
//! | `Interval(YearMonth)` | months (i32 LE), then 8 zero bytes |
//! | `Interval(DayTime)` | 4 zero bytes, days (i32 LE), milliseconds (i32 LE) |
//!
//! * [`NativeValues`] (`native`) views a leaf's values buffer and checks it;
//! * `convert` turns a contiguous run of values into Parquet bytes in a
//!   caller-owned buffer (a `FixedSizeBinary` run needs no conversion and is
//!   borrowed), folding decimal [`Extremes`] in on the way;
//! * [`order`] says how a column's values compare for statistics;
//! * [`ValueSource`] (`source`) hands the page builder the values of one
//!   mini-batch: a range, the valid positions of a bitmap, or listed positions.

mod bits;
pub(crate) mod bytes;
mod convert;
mod extremes;
mod integer;
mod kind;
mod native;
pub(crate) mod order;
mod pick;
pub(crate) mod slots;
mod source;
mod width;

pub(crate) use extremes::Extremes;
pub use kind::LeafKind;
pub(crate) use native::NativeValues;
pub(crate) use order::ValueOrder;
pub(crate) use slots::Slots;
pub(crate) use source::{BitmapValues, EmptyValues, IndexValues, RangeValues, ValueSource};
pub(crate) use width::{
    decimal_physical_name, decimal_physical_type, decimal_precision, decimal_stored_width,
    decimal_width, value_width,
};

#[cfg(test)]
mod tests;
