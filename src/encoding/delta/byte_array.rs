//! DELTA_BYTE_ARRAY for values of one fixed width: prefix lengths and suffix
//! lengths (both DELTA_BINARY_PACKED), then the suffixes back to back.

use super::binary_packed::DeltaBinaryPackedI32;
use crate::compat::DeltaOptions;

/// DELTA_BYTE_ARRAY encoder for values of one fixed width.
#[derive(Debug)]
pub(crate) struct DeltaByteArray {
    width: usize,
    prefix_lengths: DeltaBinaryPackedI32,
    suffix_lengths: DeltaBinaryPackedI32,
    suffixes: Vec<u8>,
    previous: Vec<u8>,
    /// Per-batch scratch: prefix and suffix lengths.
    prefixes: Vec<i32>,
    suffix_lens: Vec<i32>,
}

impl DeltaByteArray {
    pub(crate) fn new(width: usize, options: Option<DeltaOptions>) -> Self {
        Self {
            width,
            prefix_lengths: DeltaBinaryPackedI32::new(options),
            suffix_lengths: DeltaBinaryPackedI32::new(options),
            suffixes: Vec::new(),
            previous: Vec::new(),
            prefixes: Vec::new(),
            suffix_lens: Vec::new(),
        }
    }

    /// Encodes `values`, `width` bytes each.
    pub(crate) fn put(&mut self, values: &[u8]) {
        match self.width {
            2 => self.put_fixed::<2>(values),
            4 => self.put_fixed::<4>(values),
            8 => self.put_fixed::<8>(values),
            12 => self.put_fixed::<12>(values),
            16 => self.put_fixed::<16>(values),
            32 => self.put_fixed::<32>(values),
            _ => self.put_any(values),
        }
    }

    /// [`put`](Self::put) for a width known at compile time: the prefix is
    /// found with whole-word compares and the suffix copy has a fixed length
    /// whenever the prefix is empty (the common case for random data).
    fn put_fixed<const W: usize>(&mut self, values: &[u8]) {
        let (chunks, _) = values.as_chunks::<W>();
        let Some(last) = chunks.last() else {
            return;
        };
        let n = chunks.len();
        self.prefixes.clear();
        self.prefixes.resize(n, 0);
        self.suffix_lens.clear();
        self.suffix_lens.resize(n, 0);
        // Every suffix is at most `W` bytes, so `n * W` bytes of room hold
        // them all.
        self.suffixes.reserve(n * W);
        let mut len = self.suffixes.len();
        let base = self.suffixes.as_mut_ptr();
        let mut previous: [u8; W] = [0; W];
        let mut have_previous = false;
        if let Ok(p) = <[u8; W]>::try_from(self.previous.as_slice()) {
            previous = p;
            have_previous = true;
        }
        let lens = self.prefixes.iter_mut().zip(self.suffix_lens.iter_mut());
        for (value, (prefix_out, suffix_out)) in chunks.iter().zip(lens) {
            let prefix = if have_previous {
                fixed_prefix_len::<W>(&previous, value)
            } else {
                0
            };
            have_previous = true;
            *prefix_out = prefix as i32;
            *suffix_out = (W - prefix) as i32;
            // SAFETY: `len` never exceeds the reserved `n * W` bytes past the
            // starting length, since each of the `n` values adds at most `W`;
            // the source is `W - prefix` bytes inside `value`, and the two
            // buffers are distinct allocations.
            unsafe {
                if prefix == 0 {
                    std::ptr::copy_nonoverlapping(value.as_ptr(), base.add(len), W);
                } else {
                    std::ptr::copy_nonoverlapping(
                        value.as_ptr().add(prefix),
                        base.add(len),
                        W - prefix,
                    );
                }
            }
            len += W - prefix;
            previous = *value;
        }
        // SAFETY: the bytes up to `len` were all written above.
        unsafe { self.suffixes.set_len(len) };
        self.previous.clear();
        self.previous.extend_from_slice(last);
        self.prefix_lengths.put_slice(&self.prefixes);
        self.suffix_lengths.put_slice(&self.suffix_lens);
    }

    /// [`put`](Self::put) for any width.
    fn put_any(&mut self, values: &[u8]) {
        let n = values.len() / self.width.max(1);
        if n == 0 {
            return;
        }
        let width = self.width;
        self.prefixes.clear();
        self.suffix_lens.clear();
        self.suffixes.reserve(values.len());
        let mut previous: &[u8] = &self.previous;
        for value in values.chunks_exact(width) {
            let prefix = common_prefix_len(previous, value);
            self.prefixes.push(prefix as i32);
            self.suffix_lens.push((width - prefix) as i32);
            self.suffixes.extend_from_slice(&value[prefix..]);
            previous = value;
        }
        self.previous.clear();
        self.previous
            .extend_from_slice(&values[(n - 1) * width..n * width]);
        self.prefix_lengths.put_slice(&self.prefixes);
        self.suffix_lengths.put_slice(&self.suffix_lens);
    }

    /// `parquet`'s size estimate: completed length blocks plus suffix bytes.
    pub(crate) fn estimated_size(&self) -> usize {
        self.prefix_lengths.completed_len()
            + self.suffix_lengths.completed_len()
            + self.suffixes.len()
    }

    /// Bytes held by the encoder's buffers.
    pub(crate) fn memory_size(&self) -> usize {
        self.prefix_lengths.memory_size()
            + self.suffix_lengths.memory_size()
            + self.suffixes.capacity()
            + self.previous.capacity()
            + (self.prefixes.capacity() + self.suffix_lens.capacity()) * 4
    }

    /// Appends the page body to `dst` and resets for the next page.
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        self.prefix_lengths.finish_into(dst);
        self.suffix_lengths.finish_into(dst);
        dst.extend_from_slice(&self.suffixes);
        self.suffixes.clear();
        self.previous.clear();
    }
}

/// Number of leading bytes two `W`-byte values share.
#[inline(always)]
fn fixed_prefix_len<const W: usize>(a: &[u8; W], b: &[u8; W]) -> usize {
    let mut i = 0;
    while i + 8 <= W {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().unwrap());
        let y = u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < W && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Number of leading bytes `a` and `b` share, compared eight at a time.
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
