//! Bit packing and varints: the building blocks of the RLE / bit-packing
//! hybrid, DELTA_BINARY_PACKED and the page headers' compact protocol.

/// Appends `values` packed least-significant-bit first at `bit_width` bits each.
/// `values.len() * bit_width` must be a multiple of 8.
pub(crate) fn pack_bits(out: &mut Vec<u8>, values: &[u32], bit_width: u8) {
    let bw = bit_width as u32;
    if bw == 0 {
        return;
    }
    let (groups, tail) = values.as_chunks::<8>();
    if bw <= 16 {
        macro_rules! dispatch {
            ($($w:literal)*) => {
                match bw {
                    $($w => pack_groups::<$w>(out, groups),)*
                    _ => unreachable!(),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    } else {
        pack_wide_groups(out, groups, bw);
    }
    if !tail.is_empty() {
        pack_any(out, tail, bw);
    }
}

/// Packs whole groups of eight values at a bit width (1 to 16) known at
/// compile time, so the shifts and masks are constants. Each group fills `BW`
/// bytes and is stored with one full-width unaligned write (8 or 16 bytes)
/// into reserved room; the length then advances by `BW`.
fn pack_groups<const BW: u32>(out: &mut Vec<u8>, groups: &[[u32; 8]]) {
    const SLACK: usize = 16;
    let mask: u64 = (1u64 << BW) - 1;
    out.reserve(groups.len() * BW as usize + SLACK);
    let mut len = out.len();
    let base = out.as_mut_ptr();
    for g in groups {
        if BW <= 8 {
            let mut acc = 0u64;
            for (i, &v) in g.iter().enumerate() {
                acc |= (v as u64 & mask) << (i as u32 * BW);
            }
            // SAFETY: `reserve` left room for every group's `BW` bytes plus
            // `SLACK`, so this 8-byte write at `len` stays in the allocation;
            // `set_len` below covers only the bytes the groups own.
            unsafe {
                base.add(len)
                    .cast::<[u8; 8]>()
                    .write_unaligned(acc.to_le_bytes())
            };
        } else {
            let mut acc = 0u128;
            for (i, &v) in g.iter().enumerate() {
                acc |= ((v as u64 & mask) as u128) << (i as u32 * BW);
            }
            // SAFETY: as above, with a 16-byte write and 16 bytes of slack.
            unsafe {
                base.add(len)
                    .cast::<[u8; 16]>()
                    .write_unaligned(acc.to_le_bytes())
            };
        }
        len += BW as usize;
    }
    // SAFETY: every byte below `len` was written above or before the call.
    unsafe { out.set_len(len) };
}

/// Appends `values` packed least-significant-bit first at `bit_width` bits
/// each (up to 64). `values.len() * bit_width` must be a multiple of 8.
pub(crate) fn pack_bits_wide(out: &mut Vec<u8>, values: &[u64], bit_width: u8) {
    let bw = u32::from(bit_width);
    if bw == 0 {
        return;
    }
    let (groups, tail) = values.as_chunks::<8>();
    pack_wide_groups(out, groups, bw);
    // Whole groups end on a byte boundary, where the tail starts.
    pack_any(out, tail, bw);
}

/// Packs whole groups of eight values at `bw` bits (1 to 64), with the width
/// made a compile-time constant by dispatch.
fn pack_wide_groups<T: Copy + Into<u64>>(out: &mut Vec<u8>, groups: &[[T; 8]], bw: u32) {
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match bw {
                $($w => pack_groups_wide::<$w, T>(out, groups),)*
                _ => unreachable!("bit widths are 1 to 64"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30
        31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
        61 62 63 64);
}

/// Packs groups of eight values at a constant width `BW` (1 to 64): bits
/// gather in a 128-bit accumulator that is stored a 64-bit word at a time,
/// with every shift and store position fixed at compile time. A group fills
/// exactly `BW` bytes; its last store is a full 8-byte write into reserved
/// slack that the next group (or the caller) overwrites.
fn pack_groups_wide<const BW: u32, T: Copy + Into<u64>>(out: &mut Vec<u8>, groups: &[[T; 8]]) {
    const SLACK: usize = 8;
    let mask = if BW >= 64 { u64::MAX } else { (1u64 << BW) - 1 };
    out.reserve(groups.len() * BW as usize + SLACK);
    let mut len = out.len();
    let base = out.as_mut_ptr();
    for group in groups {
        let mut acc: u128 = 0;
        let mut bits = 0u32;
        let mut at = len;
        for &v in group {
            acc |= u128::from(v.into() & mask) << bits;
            bits += BW;
            if bits >= 64 {
                // SAFETY: `at + 8 <= len + BW` here (the group's bits reach
                // this word), within the reserved room.
                unsafe {
                    base.add(at)
                        .cast::<[u8; 8]>()
                        .write_unaligned((acc as u64).to_le_bytes())
                };
                at += 8;
                acc >>= 64;
                bits -= 64;
            }
        }
        // SAFETY: `at <= len + BW`, and `SLACK` bytes were reserved past the
        // last group's `BW` bytes.
        unsafe {
            base.add(at)
                .cast::<[u8; 8]>()
                .write_unaligned((acc as u64).to_le_bytes())
        };
        len += BW as usize;
    }
    // SAFETY: every byte below `len` was written above or before the call.
    unsafe { out.set_len(len) };
}

/// Packs `values` at `bw` bits each (0 to 64): bits gather in a 128-bit
/// accumulator and leave it 64 at a time; the last partial word is cut to
/// the bytes it fills.
fn pack_any<T: Copy + Into<u64>>(out: &mut Vec<u8>, values: &[T], bw: u32) {
    if bw == 0 || values.is_empty() {
        return;
    }
    let mask = if bw >= 64 { u64::MAX } else { (1u64 << bw) - 1 };
    let total_bits = values.len() * bw as usize;
    out.reserve(total_bits.div_ceil(64) * 8);
    let mut acc: u128 = 0;
    let mut bits: u32 = 0;
    for &v in values {
        acc |= u128::from(v.into() & mask) << bits;
        bits += bw;
        if bits >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            bits -= 64;
        }
    }
    let tail = bits.div_ceil(8) as usize;
    out.extend_from_slice(&(acc as u64).to_le_bytes()[..tail]);
}

/// Appends `value` as an unsigned LEB128 varint.
#[inline]
pub(crate) fn write_uleb128(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends `value` zigzag-encoded as a varint.
#[inline]
pub(crate) fn write_zigzag(out: &mut Vec<u8>, value: i64) {
    write_uleb128(out, ((value << 1) ^ (value >> 63)) as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time packer against a bit-at-a-time reference, every
    /// width, lengths that do and do not fill whole words.
    #[test]
    fn packing_matches_a_bitwise_reference() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for bw in 0..=64u32 {
            for n in [0usize, 1, 7, 8, 9, 31, 64, 65, 200] {
                let values: Vec<u64> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x
                    })
                    .collect();
                let mut want = vec![0u8; (n * bw as usize).div_ceil(8)];
                for (i, v) in values.iter().enumerate() {
                    for b in 0..bw as usize {
                        if v >> b & 1 == 1 {
                            let at = i * bw as usize + b;
                            want[at / 8] |= 1 << (at % 8);
                        }
                    }
                }
                let mut got = vec![0xAA];
                pack_bits_wide(&mut got, &values, bw as u8);
                assert_eq!(&got[1..], want.as_slice(), "width {bw}, {n} values");
                if bw <= 32 && (n * bw as usize).is_multiple_of(8) {
                    let narrow: Vec<u32> = values.iter().map(|&v| v as u32).collect();
                    let mut got = Vec::new();
                    pack_bits(&mut got, &narrow, bw as u8);
                    assert_eq!(got, want, "narrow width {bw}, {n} values");
                }
            }
        }
    }
}
