//! The buffer a PLAIN page's values are written into.
//!
//! PLAIN values need no encoding, so the cheapest place to write them is
//! where the page will finally live. The encoder holds one [`PageBlock`] for
//! the current page: either a block lent by whoever keeps the pages (the page
//! then starts at the block's end, after some headroom the lender fills with
//! the header and levels), or a buffer of its own. When the page is flushed,
//! the block is handed back whole, values in place, so they are never copied
//! between the encoder and the page.

/// A block whose tail, from `page_start`, is the page being written:
/// `headroom` bytes left free for what goes in front of the values, then the
/// values themselves.
#[derive(Debug, Default)]
pub(crate) struct PageBlock {
    buf: Vec<u8>,
    page_start: usize,
    headroom: usize,
}

impl PageBlock {
    /// Takes `block` for a new page at its end, with `headroom` zeroed bytes
    /// in front of the values.
    pub(crate) fn new(mut block: Vec<u8>, headroom: usize) -> Self {
        let page_start = block.len();
        block.resize(page_start + headroom, 0);
        Self {
            buf: block,
            page_start,
            headroom,
        }
    }

    /// The page's values with `prefix` written into the end of the
    /// headroom just in front of them, as one slice (a V1 page's levels and
    /// values, to be compressed together); `None` if the headroom is too
    /// small.
    pub(crate) fn prefixed(&mut self, prefix: &[u8]) -> Option<&[u8]> {
        let at = (self.page_start + self.headroom).checked_sub(prefix.len())?;
        if at < self.page_start {
            return None;
        }
        self.buf[at..at + prefix.len()].copy_from_slice(prefix);
        Some(&self.buf[at..])
    }

    /// The page's values.
    pub(crate) fn values(&self) -> &[u8] {
        &self.buf[self.page_start + self.headroom..]
    }

    /// The page so far: headroom and values.
    pub(crate) fn page_len(&self) -> usize {
        self.buf.len() - self.page_start
    }

    /// Bytes that can still be appended without reallocating.
    pub(crate) fn room(&self) -> usize {
        self.buf.capacity() - self.buf.len()
    }

    /// Bytes held.
    pub(crate) fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// The buffer values are appended to.
    pub(crate) fn buffer(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Moves the page (headroom and values) to the end of `fresh`; returns
    /// the old block without the page.
    pub(crate) fn move_to(&mut self, mut fresh: Vec<u8>) -> Vec<u8> {
        let start = fresh.len();
        fresh.extend_from_slice(&self.buf[self.page_start..]);
        let mut old = std::mem::replace(&mut self.buf, fresh);
        old.truncate(self.page_start);
        self.page_start = start;
        old
    }

    /// The block, where the page starts in it, and the headroom in front of
    /// its values.
    pub(crate) fn into_parts(self) -> (Vec<u8>, usize, usize) {
        (self.buf, self.page_start, self.headroom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_moves_with_its_headroom() {
        let mut block = PageBlock::new(vec![9, 9], 3);
        block.buffer().extend_from_slice(&[1, 2]);
        assert_eq!(block.values(), &[1, 2]);
        assert_eq!(block.page_len(), 5);
        let old = block.move_to(Vec::with_capacity(16));
        assert_eq!(old, vec![9, 9]);
        assert_eq!(block.values(), &[1, 2]);
        assert_eq!(block.into_parts(), (vec![0, 0, 0, 1, 2], 0, 3));
    }

    #[test]
    fn prefix_goes_just_before_the_values_if_it_fits() {
        let mut block = PageBlock::new(vec![9, 9], 3);
        block.buffer().extend_from_slice(&[1, 2]);
        assert_eq!(block.prefixed(&[7, 8]), Some(&[7, 8, 1, 2][..]));
        assert_eq!(block.prefixed(&[4, 5, 6]), Some(&[4, 5, 6, 1, 2][..]));
        // The bytes in front of the page are not the page's to use.
        assert_eq!(block.prefixed(&[3, 4, 5, 6]), None);
        assert_eq!(block.values(), &[1, 2]);
        assert_eq!(block.into_parts().0[..2], [9, 9]);
    }
}
