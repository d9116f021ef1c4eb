//! Byte-array values by position, one layout at a time: the hot loops
//! dispatch once on the layout ([`with_layout!`]) and then read every value
//! through a concrete [`ValueAt`] (for [`ByteValues`](super::ByteValues)), rather than matching on the layout for
//! each value.

use super::INLINE;
use arrow_buffer::Buffer;

/// Reads values of one layout by position.
pub(crate) trait ValueAt<'a>: Copy {
    /// The bytes of value `i`.
    fn at(&self, i: usize) -> &'a [u8];
    /// The length of value `i`.
    fn len_at(&self, i: usize) -> usize;
    /// The bytes of value `i` followed by up to [`PAD`] bytes that come
    /// after it in its buffer (whatever they are), with the value's length:
    /// a short value can then be copied as a fixed-size block.
    fn at_padded(&self, i: usize) -> (&'a [u8], usize);
}

/// The most bytes [`ValueAt::at_padded`] gives past a value.
pub(crate) const PAD: usize = 64;

/// `data[start..end]` and up to [`PAD`] bytes after it.
#[inline(always)]
fn padded(data: &[u8], start: usize, end: usize) -> (&[u8], usize) {
    (
        &data[start..data.len().min(end + PAD).max(end)],
        end - start,
    )
}

/// Values with offsets of one width (`i32` or `i64`) into one data buffer.
#[derive(Clone, Copy)]
pub(crate) struct OffsetValues<'a, O> {
    pub(crate) offsets: &'a [O],
    pub(crate) data: &'a [u8],
}

impl<'a> ValueAt<'a> for OffsetValues<'a, i32> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        &self.data[self.offsets[i] as u32 as usize..self.offsets[i + 1] as u32 as usize]
    }

    #[inline(always)]
    fn len_at(&self, i: usize) -> usize {
        (self.offsets[i + 1] as u32).wrapping_sub(self.offsets[i] as u32) as usize
    }

    #[inline(always)]
    fn at_padded(&self, i: usize) -> (&'a [u8], usize) {
        let (start, end) = (
            self.offsets[i] as u32 as usize,
            self.offsets[i + 1] as u32 as usize,
        );
        padded(self.data, start, end)
    }
}

impl<'a> ValueAt<'a> for OffsetValues<'a, i64> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        &self.data[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    #[inline(always)]
    fn len_at(&self, i: usize) -> usize {
        self.offsets[i + 1].wrapping_sub(self.offsets[i]) as usize
    }

    #[inline(always)]
    fn at_padded(&self, i: usize) -> (&'a [u8], usize) {
        padded(
            self.data,
            self.offsets[i] as usize,
            self.offsets[i + 1] as usize,
        )
    }
}

/// Values of a view array.
#[derive(Clone, Copy)]
pub(crate) struct ViewValues<'a> {
    pub(crate) views: &'a [u8],
    pub(crate) buffers: &'a [Buffer],
}

impl<'a> ValueAt<'a> for ViewValues<'a> {
    #[inline(always)]
    fn at(&self, i: usize) -> &'a [u8] {
        let view: &'a [u8; 16] = self.views[i * 16..i * 16 + 16].try_into().unwrap();
        let len = u32::from_le_bytes(view[..4].try_into().unwrap()) as usize;
        if len <= INLINE {
            &view[4..4 + len]
        } else {
            let b = u32::from_le_bytes(view[8..12].try_into().unwrap()) as usize;
            let o = u32::from_le_bytes(view[12..16].try_into().unwrap()) as usize;
            &self.buffers[b].as_slice()[o..o + len]
        }
    }

    #[inline(always)]
    fn len_at(&self, i: usize) -> usize {
        u32::from_le_bytes(self.views[i * 16..i * 16 + 4].try_into().unwrap()) as usize
    }

    /// Without a branch on whether the value is inline (strings of 8 to
    /// 40 bytes went either way at random): both the inline place and a
    /// data buffer are looked up, the buffer number clamped to one that
    /// exists (an out-of-line view naming none is refused in debug
    /// builds), and the value's buffer and start are chosen between them.
    #[inline(always)]
    fn at_padded(&self, i: usize) -> (&'a [u8], usize) {
        let view: &'a [u8; 16] = self.views[i * 16..i * 16 + 16].try_into().unwrap();
        let word = |at: usize| u32::from_le_bytes(view[at..at + 4].try_into().unwrap()) as usize;
        let len = word(0);
        let inline = len <= INLINE;
        let last = self.buffers.len().saturating_sub(1);
        let b = word(8);
        // An out-of-line view names a buffer that exists: Arrow checks it
        // when a view array is built, and one built unchecked without it
        // breaks Arrow's own safety contract. Checked in debug builds only:
        // the check in this loop cost `views_high` 2–3% in release.
        if cfg!(debug_assertions) && !(inline | (b < self.buffers.len())) {
            missing_buffer(i, b, self.buffers.len());
        }
        let buffer = self
            .buffers
            .get(b.min(last))
            .map_or(&[][..], |b| b.as_slice());
        // Inline: the views after this one follow its bytes.
        let (data, start) = match inline {
            true => (self.views, i * 16 + 4),
            false => (buffer, word(12)),
        };
        padded(data, start, start + len)
    }
}

/// Refuses view `i`, which names data buffer `b` of `buffers`.
#[cold]
#[inline(never)]
fn missing_buffer(i: usize, b: usize, buffers: usize) -> ! {
    panic!("view {i} names data buffer {b} of {buffers}")
}

/// Runs `$body` with `$v` bound to the concrete [`ValueAt`] of the
/// [`ByteValues`] `$values`.
macro_rules! with_layout {
    ($values:expr, $v:ident => $body:expr) => {
        match *$values {
            $crate::values::bytes::ByteValues::Offsets32 { offsets, data } => {
                let $v = $crate::values::bytes::OffsetValues { offsets, data };
                $body
            }
            $crate::values::bytes::ByteValues::Offsets64 { offsets, data } => {
                let $v = $crate::values::bytes::OffsetValues { offsets, data };
                $body
            }
            $crate::values::bytes::ByteValues::Views { views, buffers } => {
                let $v = $crate::values::bytes::ViewValues { views, buffers };
                $body
            }
        }
    };
}
pub(crate) use with_layout;

/// The sum of the lengths in `views` (whole 16-byte views): each length
/// read at a fixed offset of a fixed-size chunk, eight lanes of partial
/// sums, so that the loop has no bounds checks and vectorises.
#[inline]
pub(super) fn view_lens_sum(views: &[u8]) -> usize {
    let (chunks, _) = views.as_chunks::<16>();
    let mut lanes = [0u64; 8];
    let (groups, rest) = chunks.as_chunks::<8>();
    for group in groups {
        for (lane, view) in lanes.iter_mut().zip(group) {
            *lane += len_of(view);
        }
    }
    let tail: u64 = rest.iter().map(len_of).sum();
    (lanes.iter().sum::<u64>() + tail) as usize
}

/// The length a view holds in its first four bytes.
#[inline(always)]
pub(super) fn len_of(view: &[u8; 16]) -> u64 {
    u64::from(u32::from_le_bytes([view[0], view[1], view[2], view[3]]))
}

/// The length in view `i`.
#[inline(always)]
pub(super) fn view_len(views: &[u8], i: usize) -> usize {
    let at = i * 16;
    u32::from_le_bytes(views[at..at + 4].try_into().unwrap()) as usize
}
