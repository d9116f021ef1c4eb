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
        pack_any(out, values, bw);
        return;
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
    pack_any(out, values, u32::from(bit_width));
}

/// Packs `values` at `bw` bits each (0 to 64), a byte at a time.
fn pack_any<T: Copy + Into<u64>>(out: &mut Vec<u8>, values: &[T], bw: u32) {
    if bw == 0 {
        return;
    }
    let mask = if bw >= 64 { u64::MAX } else { (1u64 << bw) - 1 };
    let mut acc: u128 = 0;
    let mut bits: u32 = 0;
    for &v in values {
        acc |= u128::from(v.into() & mask) << bits;
        bits += bw;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    if bits > 0 {
        out.push(acc as u8);
    }
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
