//! DELTA_BINARY_PACKED: a page header (block size, mini-blocks, value count,
//! first value), then blocks of deltas, each block its minimum delta and one
//! bit width per mini-block followed by the mini-blocks' offsets from that
//! minimum, bit-packed.

use crate::compat::{DeltaOptions, delta_layout};
use crate::encoding::bitpack::{pack_bits, pack_bits_wide, write_uleb128, write_zigzag};
use crate::encoding::rle::num_required_bits;

/// The integers DELTA_BINARY_PACKED encodes: `i32` (INT32 values and the
/// lengths of DELTA_BYTE_ARRAY) and `i64` (INT64 values). Deltas wrap at the
/// type's width, as `parquet` computes them.
pub(crate) trait DeltaInt: Copy + Ord + Default + std::fmt::Debug {
    /// Bytes per value.
    const WIDTH: usize;
    /// Values per block of `parquet`'s default layout (4 mini-blocks).
    const DEFAULT_BLOCK: usize;
    const MIN: Self;
    const MAX: Self;
    fn wrapping_sub(self, other: Self) -> Self;
    fn to_i64(self) -> i64;
    /// `self - min`, wrapping, as an unsigned integer of the type's width.
    fn offset_from(self, min: Self) -> u64;
    /// The value whose little-endian bytes are `b` (`WIDTH` of them).
    fn from_le(b: &[u8]) -> Self;
}

macro_rules! delta_int {
    ($t:ty, $unsigned:ty, $block:expr) => {
        impl DeltaInt for $t {
            const WIDTH: usize = std::mem::size_of::<$t>();
            const DEFAULT_BLOCK: usize = $block;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn offset_from(self, min: Self) -> u64 {
                self.wrapping_sub(min) as $unsigned as u64
            }
            #[inline(always)]
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b.try_into().unwrap())
            }
        }
    };
}

delta_int!(i32, u32, 128);
delta_int!(i64, u64, 256);

/// DELTA_BINARY_PACKED encoder for 32-bit integers.
pub(crate) type DeltaBinaryPackedI32 = DeltaBinaryPacked<i32>;

/// DELTA_BINARY_PACKED encoder, streaming across calls: deltas of the open
/// block are kept, each completed block is packed at once (so the encoded
/// size of the completed blocks is known, as `parquet` estimates it).
#[derive(Debug)]
pub(crate) struct DeltaBinaryPacked<T: DeltaInt> {
    block_size: usize,
    mini_blocks: usize,
    mini_block_size: usize,
    /// Deltas of the open block.
    deltas: Vec<T>,
    /// Encoded bytes of the completed blocks.
    blocks: Vec<u8>,
    total_values: usize,
    first_value: T,
    current: T,
    /// A mini-block's offsets from the block's minimum delta, to pack.
    narrow: Vec<u32>,
    wide: Vec<u64>,
}

impl<T: DeltaInt> DeltaBinaryPacked<T> {
    /// An encoder with the given block layout, or parquet's default for the
    /// type (blocks of 128 values for 32 bits, 256 for 64, in 4 mini-blocks).
    pub(crate) fn new(options: Option<DeltaOptions>) -> Self {
        let (block_size, mini_blocks) = match options {
            Some(o) => delta_layout(&o),
            None => (T::DEFAULT_BLOCK, 4),
        };
        Self {
            block_size,
            mini_blocks,
            mini_block_size: block_size / mini_blocks,
            deltas: Vec::new(),
            blocks: Vec::new(),
            total_values: 0,
            first_value: T::default(),
            current: T::default(),
            narrow: Vec::new(),
            wide: Vec::new(),
        }
    }

    /// Encodes one value.
    #[cfg(all(test, feature = "upstream-encoders", feature = "parquet-58"))]
    pub(crate) fn put(&mut self, value: T) {
        self.put_slice(&[value]);
    }

    /// Encodes `values`, given as their little-endian bytes.
    pub(crate) fn put_le(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        if self.total_values == 0 {
            let Some((first, later)) = rest.split_at_checked(T::WIDTH) else {
                return;
            };
            let first = T::from_le(first);
            self.first_value = first;
            self.current = first;
            self.total_values = 1;
            rest = later;
        }
        loop {
            // The block's room at most, as an exact slice: the deltas are
            // appended by a loop of known length (no check per value).
            let room = self.block_size - self.deltas.len();
            let n = room.min(rest.len() / T::WIDTH);
            let (now, later) = rest.split_at(n * T::WIDTH);
            rest = later;
            let mut current = self.current;
            self.deltas.extend(now.chunks_exact(T::WIDTH).map(|b| {
                let v = T::from_le(b);
                let d = v.wrapping_sub(current);
                current = v;
                d
            }));
            self.current = current;
            self.total_values += n;
            if self.deltas.len() < self.block_size {
                return;
            }
            self.flush_block();
        }
    }

    /// Encodes a slice of values.
    pub(crate) fn put_slice(&mut self, values: &[T]) {
        let mut values = values;
        if self.total_values == 0 {
            let Some((&first, rest)) = values.split_first() else {
                return;
            };
            self.first_value = first;
            self.current = first;
            self.total_values = 1;
            values = rest;
        }
        self.total_values += values.len();
        while !values.is_empty() {
            let room = self.block_size - self.deltas.len();
            let (now, later) = values.split_at(room.min(values.len()));
            let mut current = self.current;
            self.deltas.extend(now.iter().map(|&v| {
                let d = v.wrapping_sub(current);
                current = v;
                d
            }));
            self.current = current;
            if self.deltas.len() == self.block_size {
                self.flush_block();
            }
            values = later;
        }
    }

    /// Bytes of the completed blocks: what `parquet` counts as this encoder's
    /// estimated size.
    pub(crate) fn completed_len(&self) -> usize {
        self.blocks.len()
    }

    /// At most how many bytes [`Self::finish_into`] appends now: the
    /// header's four numbers, the completed blocks and the open one.
    pub(crate) fn finished_bound(&self) -> usize {
        let open = match self.deltas.len() {
            0 => 0,
            _ => 10 + self.mini_blocks + self.block_size * T::WIDTH,
        };
        4 * 10 + self.blocks.len() + open
    }

    /// Bytes held by the encoder's buffers.
    pub(crate) fn memory_size(&self) -> usize {
        self.deltas.capacity() * T::WIDTH
            + self.blocks.capacity()
            + self.narrow.capacity() * 4
            + self.wide.capacity() * 8
    }

    fn flush_block(&mut self) {
        if self.deltas.is_empty() {
            return;
        }
        // The folds over the deltas are 64-bit min/max reductions.
        crate::cpu::with_avx2(|| self.pack_block());
    }

    /// Packs the open block's deltas into `blocks`.
    #[inline(always)]
    fn pack_block(&mut self) {
        // Folds (rather than `Iterator::min`) vectorise.
        let min = self.deltas.iter().fold(T::MAX, |m, &d| m.min(d));
        write_zigzag(&mut self.blocks, min.to_i64());
        let widths_at = self.blocks.len();
        self.blocks.resize(widths_at + self.mini_blocks, 0);
        let mut remaining = self.deltas.len();
        for i in 0..self.mini_blocks {
            let n = remaining.min(self.mini_block_size);
            if n == 0 {
                // Unused trailing mini-blocks keep width 0.
                break;
            }
            let start = i * self.mini_block_size;
            let mini = &self.deltas[start..start + n];
            let max = mini.iter().fold(T::MIN, |m, &d| m.max(d));
            let width = num_required_bits(max.offset_from(min));
            self.blocks[widths_at + i] = width;
            if width <= 32 {
                self.narrow.clear();
                self.narrow
                    .extend(mini.iter().map(|&d| d.offset_from(min) as u32));
                self.narrow.resize(self.mini_block_size, 0);
                pack_bits(&mut self.blocks, &self.narrow, width);
            } else {
                self.wide.clear();
                self.wide.extend(mini.iter().map(|&d| d.offset_from(min)));
                self.wide.resize(self.mini_block_size, 0);
                pack_bits_wide(&mut self.blocks, &self.wide, width);
            }
            remaining -= n;
        }
        self.deltas.clear();
    }

    /// Appends the page (header, then blocks) to `dst` and resets the encoder.
    pub(crate) fn finish_into(&mut self, dst: &mut Vec<u8>) {
        self.flush_block();
        write_uleb128(dst, self.block_size as u64);
        write_uleb128(dst, self.mini_blocks as u64);
        write_uleb128(dst, self.total_values as u64);
        write_zigzag(dst, self.first_value.to_i64());
        dst.extend_from_slice(&self.blocks);
        self.blocks.clear();
        self.total_values = 0;
        self.first_value = T::default();
        self.current = T::default();
    }
}
