//! The encodings of byte-array values without a dictionary (or after it
//! falls back):
//!
//! * PLAIN: each value as its length (u32 LE) and bytes, written straight
//!   from the Arrow buffers ([`append_plain`]);
//! * DELTA_LENGTH_BYTE_ARRAY: every length (DELTA_BINARY_PACKED), then every
//!   value's bytes ([`DeltaLengthByteArray`]);
//! * DELTA_BYTE_ARRAY: each value as the length of the prefix it shares with
//!   the value before it on the page and its suffix, the prefix lengths
//!   (DELTA_BINARY_PACKED) then the suffixes as DELTA_LENGTH_BYTE_ARRAY
//!   ([`DeltaByteArray`]).
//!
//! `parquet` encodes the lengths of byte arrays with its default block
//! layout whatever the column's delta options (those apply to integers).

use crate::encoding::delta::binary_packed::DeltaBinaryPackedI32;
use crate::values::bytes::{ByteValues, PAD, Picks, ValueAt, with_layout};

/// Total bytes of the values at `picks`.
#[inline]
pub(crate) fn picked_bytes(values: &ByteValues<'_>, picks: &Picks<'_>) -> usize {
    match picks.as_range() {
        Some((start, end)) => values.bytes_in(start, end),
        None => with_layout!(values, v => {
            let mut total = 0;
            picks.for_each(#[inline(always)] |i| total += v.len_at(i));
            total
        }),
    }
}

/// Appends the values at `picks` to `out` as PLAIN (a u32 length before
/// each value's bytes); returns the total length of the values.
///
/// The page is reserved once; a value of up to [`PAD`] (64) bytes is
/// appended as a block of 64 (the bytes after it in its buffer come along
/// and are cut off again), so most values cost two or four fixed-size
/// moves rather than a call to copy a few bytes, and no branch on their
/// length (choosing between blocks of 16, 32 and 64 by length went either
/// way at random on strings of 8 to 40 bytes: 20% slower).
pub(crate) fn append_plain(out: &mut Vec<u8>, values: &ByteValues<'_>, picks: &Picks<'_>) -> usize {
    append_plain_seen(out, values, picks, |_, _| {})
}

/// [`append_plain`], showing each value to `seen` (with its position) as
/// it is copied: statistics gathered in the same pass.
#[inline(always)]
pub(crate) fn append_plain_seen<'a>(
    out: &mut Vec<u8>,
    values: &ByteValues<'a>,
    picks: &Picks<'_>,
    mut seen: impl FnMut(usize, &'a [u8]),
) -> usize {
    let n = picks.count();
    // Views' lengths are summed as they are copied (a pass over the views
    // first cost as much as reading them again): room for 16 bytes a value
    // is made up front, and the page grows if they are longer.
    let room = match values {
        ByteValues::Views { .. } => n * 16,
        _ => picked_bytes(values, picks),
    };
    out.reserve(room + 4 * n + PAD);
    let mut bytes = 0;
    with_layout!(values, v => picks.for_each(#[inline(always)] |i| {
        let (src, len) = v.at_padded(i);
        // parquet writes the length as a u32, whatever it is.
        out.extend_from_slice(&(len as u32).to_le_bytes());
        append_value(out, src, len);
        bytes += len;
        seen(i, &src[..len]);
    }));
    bytes
}

/// Appends the `len` bytes that `src` starts with to `out`: as one block
/// of [`PAD`] bytes, cut back to `len`, when `src` has that many.
#[inline(always)]
pub(crate) fn append_value(out: &mut Vec<u8>, src: &[u8], len: usize) {
    let end = out.len() + len;
    if len <= PAD && src.len() >= PAD {
        out.extend_from_slice(&src[..PAD]);
    } else {
        out.extend_from_slice(&src[..len]);
    }
    out.truncate(end);
}

/// DELTA_LENGTH_BYTE_ARRAY, one page at a time.
#[derive(Debug)]
pub(crate) struct DeltaLengthByteArray {
    lengths: DeltaBinaryPackedI32,
    data: Vec<u8>,
    scratch: Vec<i32>,
}

impl Default for DeltaLengthByteArray {
    fn default() -> Self {
        Self {
            lengths: DeltaBinaryPackedI32::new(None),
            data: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl DeltaLengthByteArray {
    /// Encodes the values at `picks`, showing each to `seen` (with its
    /// position) as it is copied; returns the total length of the values.
    #[inline(always)]
    pub(crate) fn put<'a>(
        &mut self,
        values: &ByteValues<'a>,
        picks: &Picks<'_>,
        mut seen: impl FnMut(usize, &'a [u8]),
    ) -> usize {
        self.scratch.clear();
        let bytes = picked_bytes(values, picks);
        // Room for the 64-byte blocks of `append_value` past the last value.
        self.data.reserve(bytes + PAD);
        let (scratch, data) = (&mut self.scratch, &mut self.data);
        with_layout!(values, v => picks.for_each(#[inline(always)] |i| {
            let (src, len) = v.at_padded(i);
            scratch.push(len as i32);
            append_value(data, src, len);
            seen(i, &src[..len]);
        }));
        self.lengths.put_slice(&self.scratch);
        bytes
    }

    /// `parquet`'s estimate: the completed length blocks and the bytes.
    pub(crate) fn estimated_size(&self) -> usize {
        self.lengths.completed_len() + self.data.len()
    }

    /// At most how many bytes [`Self::finish_into`] appends now.
    pub(crate) fn finished_bound(&self) -> usize {
        self.lengths.finished_bound() + self.data.len()
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        self.lengths.memory_size() + self.data.capacity() + self.scratch.capacity() * 4
    }

    /// Appends the page body to `dst` and starts the next page.
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        self.lengths.finish_into(dst);
        dst.extend_from_slice(&self.data);
        self.data.clear();
    }
}

/// DELTA_BYTE_ARRAY of byte arrays, one page at a time.
#[derive(Debug)]
pub(crate) struct DeltaByteArray {
    prefix_lengths: DeltaBinaryPackedI32,
    suffix_lengths: DeltaBinaryPackedI32,
    suffixes: Vec<u8>,
    /// The page's last value so far (empty at the start of a page).
    previous: Vec<u8>,
    prefixes: Vec<i32>,
    suffix_lens: Vec<i32>,
}

impl Default for DeltaByteArray {
    fn default() -> Self {
        Self {
            prefix_lengths: DeltaBinaryPackedI32::new(None),
            suffix_lengths: DeltaBinaryPackedI32::new(None),
            suffixes: Vec::new(),
            previous: Vec::new(),
            prefixes: Vec::new(),
            suffix_lens: Vec::new(),
        }
    }
}

impl DeltaByteArray {
    /// Encodes the values at `picks`, showing each to `seen` (with its
    /// position) as it is copied; returns the total length of the values.
    #[inline(always)]
    pub(crate) fn put<'a>(
        &mut self,
        values: &ByteValues<'a>,
        picks: &Picks<'_>,
        mut seen: impl FnMut(usize, &'a [u8]),
    ) -> usize {
        if picks.count() == 0 {
            return 0;
        }
        self.prefixes.clear();
        self.suffix_lens.clear();
        let bytes = picked_bytes(values, picks);
        // Room for the 64-byte blocks of `append_value` past the last suffix.
        self.suffixes.reserve(bytes + PAD);
        let mut previous: &[u8] = &self.previous;
        let mut last: &[u8] = &[];
        let suffixes = &mut self.suffixes;
        let (prefixes, suffix_lens) = (&mut self.prefixes, &mut self.suffix_lens);
        with_layout!(values, v => picks.for_each(#[inline(always)] |i| {
            let (src, len) = v.at_padded(i);
            let value = &src[..len];
            let p = common_prefix_len(previous, value);
            prefixes.push(p as i32);
            suffix_lens.push((len - p) as i32);
            append_value(suffixes, &src[p..], len - p);
            seen(i, value);
            previous = value;
            last = value;
        }));
        self.previous.clear();
        self.previous.extend_from_slice(last);
        self.prefix_lengths.put_slice(&self.prefixes);
        self.suffix_lengths.put_slice(&self.suffix_lens);
        bytes
    }

    /// `parquet`'s estimate: the completed blocks of both length streams
    /// and the suffix bytes.
    pub(crate) fn estimated_size(&self) -> usize {
        self.prefix_lengths.completed_len()
            + self.suffix_lengths.completed_len()
            + self.suffixes.len()
    }

    /// At most how many bytes [`Self::finish_into`] appends now.
    pub(crate) fn finished_bound(&self) -> usize {
        self.prefix_lengths.finished_bound()
            + self.suffix_lengths.finished_bound()
            + self.suffixes.len()
    }

    /// Bytes held.
    pub(crate) fn memory_size(&self) -> usize {
        self.prefix_lengths.memory_size()
            + self.suffix_lengths.memory_size()
            + self.suffixes.capacity()
            + self.previous.capacity()
            + (self.prefixes.capacity() + self.suffix_lens.capacity()) * 4
    }

    /// Appends the page body to `dst`; the next page starts with no
    /// previous value.
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        self.prefix_lengths.finish_into(dst);
        self.suffix_lengths.finish_into(dst);
        dst.extend_from_slice(&self.suffixes);
        self.suffixes.clear();
        self.previous.clear();
    }
}

/// Number of leading bytes `a` and `b` share, eight at a time.
#[inline]
fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().unwrap());
        let y = u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}
