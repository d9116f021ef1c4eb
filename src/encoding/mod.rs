//! Value encoding: one [`ValueEncoder`] per column, which pulls values from
//! a [`ValueSource`](crate::values::ValueSource) and hands encoded pages to
//! the page builder.
//!
//! * [`values`]: the column's encoder (the boundary the page stage uses),
//!   for fixed-width values ([`encoder`]) or byte arrays ([`bytes`]).
//! * [`dictionary`]: dictionary encoding with the fallback point `parquet` uses.
//! * [`fallback`]: PLAIN, BYTE_STREAM_SPLIT and DELTA_BYTE_ARRAY ([`delta`]).
//! * [`block`]: the block a PLAIN page's values are written into, in place.
//! * [`min_max`]: page min/max in each column's order; [`bloom`]: the bloom filter.
//! * [`rle`]: the RLE / bit-packing hybrid, for levels and dictionary indices
//!   ([`bitpack`]: bit packing and varints).
//!
//! Every stage takes values as [`Slots`](crate::values::Slots): contiguous
//! bytes already in their Parquet form, and where each value ends (a fixed
//! width). No value is ever boxed or allocated on its own.

pub(crate) mod bitpack;
pub(crate) mod block;
pub(crate) mod bloom;
pub(crate) mod boolean;
pub(crate) mod bytes;
pub(crate) mod delta;
pub(crate) mod dictionary;
pub(crate) mod encoder;
pub(crate) mod fallback;
pub(crate) mod min_max;
pub(crate) mod page;
pub(crate) mod rle;
pub(crate) mod values;

pub(crate) use page::{DictionaryPage, PageBytes};
pub(crate) use values::ValueEncoder;
