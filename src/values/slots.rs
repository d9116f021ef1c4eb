//! [`Slots`]: a run of values in their Parquet form, as every encoder stage
//! takes them (dictionary, fallback encoders, bloom filter, min/max).
//!
//! The values' bytes are always contiguous; the [`Shape`] says where each
//! value ends. Fixed-width values need nothing more than their width.
//! Variable-width values (byte arrays) are meant to come as the same
//! contiguous bytes plus their end offsets (a `Shape` variant holding a
//! borrowed slice of ends, so that no value is ever allocated on its own);
//! the stages reach values through [`Slots::get`] and [`Slots::iter`] and
//! keep their fixed-width fast paths behind [`Slots::fixed_width`].

/// Where each value of a [`Slots`] ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every value is this many bytes.
    Fixed(usize),
}

/// Values in their Parquet form: contiguous bytes and their [`Shape`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Slots<'a> {
    data: &'a [u8],
    shape: Shape,
}

impl<'a> Slots<'a> {
    /// `data` cut into values of `width` bytes (a trailing partial value is
    /// not one).
    #[inline]
    pub(crate) fn fixed(data: &'a [u8], width: usize) -> Self {
        Self {
            data,
            shape: Shape::Fixed(width),
        }
    }

    /// Number of values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self.shape {
            Shape::Fixed(0) => 0,
            Shape::Fixed(w) => self.data.len() / w,
        }
    }

    /// Whether there is no value.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values' bytes, back to back.
    #[inline]
    pub(crate) fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Bytes per value, if every value has the same width.
    #[inline]
    pub(crate) fn fixed_width(&self) -> Option<usize> {
        match self.shape {
            Shape::Fixed(w) => Some(w),
        }
    }

    /// Value `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &'a [u8] {
        match self.shape {
            Shape::Fixed(w) => &self.data[i * w..(i + 1) * w],
        }
    }

    /// The values, in order.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = &'a [u8]> + use<'a> {
        let Shape::Fixed(w) = self.shape;
        let data = self.data;
        data.chunks_exact(w.max(1)).take(self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_slots() {
        let s = Slots::fixed(&[1, 2, 3, 4, 5, 6, 7], 2);
        assert_eq!(s.len(), 3);
        assert!(!s.is_empty());
        assert_eq!(s.get(1), &[3, 4]);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [&[1, 2][..], &[3, 4], &[5, 6]]
        );
        assert_eq!(s.fixed_width(), Some(2));
        assert_eq!(s.data().len(), 7);
        let empty = Slots::fixed(&[1, 2], 0);
        assert!(empty.is_empty());
        assert_eq!(empty.iter().count(), 0);
    }
}
