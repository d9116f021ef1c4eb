//! Sources of the non-null values of one mini-batch: what the page builder
//! reads values from. Each converts Arrow values to Parquet bytes on the way,
//! a contiguous run at a time.

use super::bytes::ByteSource;
use super::{Extremes, NativeValues};
use arrow_buffer::bit_iterator::BitIndexIterator;

/// Positions gathered at a time from a sparse validity bitmap.
const GATHER_BLOCK: usize = 256;

/// The non-null values of one mini-batch, in a form that can be borrowed or
/// converted into a buffer.
pub(crate) trait ValueSource {
    /// Number of values.
    fn count(&self) -> usize;
    /// The values in Parquet form, if they need no conversion.
    fn borrowed(&self) -> Option<&[u8]>;
    /// Appends the values in Parquet form to `out`; with `extremes`, may
    /// return the positions of the minimum and maximum (in the column's
    /// statistics order) among the appended values.
    fn append_to(&self, out: &mut Vec<u8>, extremes: bool) -> Option<(usize, usize)>;
    /// The values as byte arrays read in place, if they are byte arrays
    /// (which the byte-array encoder reads from their Arrow buffers rather
    /// than through [`Self::append_to`]).
    fn byte_source(&self) -> Option<ByteSource<'_>> {
        None
    }
}

impl ValueSource for ByteSource<'_> {
    fn count(&self) -> usize {
        self.picks.count()
    }

    fn borrowed(&self) -> Option<&[u8]> {
        None
    }

    /// Byte arrays have no fixed-width Parquet form: nothing is appended.
    fn append_to(&self, _out: &mut Vec<u8>, _extremes: bool) -> Option<(usize, usize)> {
        None
    }

    fn byte_source(&self) -> Option<ByteSource<'_>> {
        Some(*self)
    }
}

/// The values at positions `[start, end)` of a leaf without nulls there.
pub(crate) struct RangeValues<'a> {
    pub(crate) values: &'a NativeValues<'a>,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl ValueSource for RangeValues<'_> {
    fn count(&self) -> usize {
        self.end - self.start
    }

    fn borrowed(&self) -> Option<&[u8]> {
        self.values.borrow(self.start, self.end)
    }

    fn append_to(&self, out: &mut Vec<u8>, extremes: bool) -> Option<(usize, usize)> {
        if extremes && self.values.tracks_extremes() {
            let mut e = Extremes::default();
            self.values
                .convert_range(self.start, self.end, out, Some(&mut e));
            e.positions()
        } else {
            self.values.convert_range(self.start, self.end, out, None);
            None
        }
    }
}

/// No values (an all-null mini-batch).
pub(crate) struct EmptyValues;

impl ValueSource for EmptyValues {
    fn count(&self) -> usize {
        0
    }

    fn borrowed(&self) -> Option<&[u8]> {
        Some(&[])
    }

    fn append_to(&self, _out: &mut Vec<u8>, _extremes: bool) -> Option<(usize, usize)> {
        None
    }
}

/// The valid values among positions `[offset, offset + len)`.
pub(crate) struct BitmapValues<'a> {
    pub(crate) values: &'a NativeValues<'a>,
    pub(crate) bits: &'a [u8],
    pub(crate) bit_offset: usize,
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) count: usize,
}

impl ValueSource for BitmapValues<'_> {
    fn count(&self) -> usize {
        self.count
    }

    fn borrowed(&self) -> Option<&[u8]> {
        if self.count == self.len {
            self.values.borrow(self.offset, self.offset + self.len)
        } else {
            None
        }
    }

    fn append_to(&self, out: &mut Vec<u8>, extremes: bool) -> Option<(usize, usize)> {
        out.reserve(self.count * self.values.width());
        let mut e = (extremes && self.values.tracks_extremes()).then(Extremes::default);
        if self.count * 2 <= self.len {
            // Sparse: runs are short, so the valid positions are gathered a
            // block at a time and converted with one dispatch per block.
            let mut at = [0usize; GATHER_BLOCK];
            let mut k = 0;
            for i in BitIndexIterator::new(self.bits, self.bit_offset, self.len) {
                at[k] = self.offset + i;
                k += 1;
                if k == GATHER_BLOCK {
                    self.values.gather(&at, out, e.as_mut());
                    k = 0;
                }
            }
            self.values.gather(&at[..k], out, e.as_mut());
        } else {
            // Mostly valid: every slot converted, kept by its bit.
            self.values.compact(
                (self.offset, self.offset + self.len),
                (self.bits, self.bit_offset),
                self.count,
                out,
                e.as_mut(),
            );
        }
        e.and_then(|e| e.positions())
    }
}

/// The values at the given positions (gathered, or converted at once when
/// they are one run).
pub(crate) struct IndexValues<'a> {
    pub(crate) values: &'a NativeValues<'a>,
    pub(crate) indices: &'a [usize],
}

impl IndexValues<'_> {
    /// The positions as one range `[start, end)`, if they are consecutive
    /// (a leaf without nulls or empty lists here); positions can come in any
    /// order (list views).
    fn run(&self) -> Option<(usize, usize)> {
        let start = *self.indices.first()?;
        let consecutive = self.indices.windows(2).all(|w| w[1] == w[0] + 1);
        consecutive.then(|| (start, start + self.indices.len()))
    }
}

impl ValueSource for IndexValues<'_> {
    fn count(&self) -> usize {
        self.indices.len()
    }

    fn borrowed(&self) -> Option<&[u8]> {
        let (start, end) = self.run()?;
        self.values.borrow(start, end)
    }

    fn append_to(&self, out: &mut Vec<u8>, extremes: bool) -> Option<(usize, usize)> {
        let mut e = (extremes && self.values.tracks_extremes()).then(Extremes::default);
        match self.run() {
            Some((start, end)) => self.values.convert_range(start, end, out, e.as_mut()),
            None => self.values.gather(self.indices, out, e.as_mut()),
        }
        e.and_then(|e| e.positions())
    }
}
