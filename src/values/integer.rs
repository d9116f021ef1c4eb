//! Integers whose Parquet form is not their Arrow bytes: 8- and 16-bit
//! integers widened to INT32 (sign- or zero-extended), and `Date64` stored
//! as INT32 days under `coerce_types` (milliseconds divided by 86,400,000,
//! truncated toward zero, the quotient's low 32 bits kept, as `parquet`
//! converts it).

use super::LeafKind;
use super::pick::{Pick, append_converted};

/// Milliseconds in a day.
const MS_PER_DAY: i64 = 86_400_000;

/// Appends the INT32 form of the integers of `src` (Arrow bytes of `kind`)
/// that `at` picks.
pub(super) fn widen_or_narrow(kind: LeafKind, src: &[u8], at: Pick<'_>, out: &mut Vec<u8>) {
    match kind {
        LeafKind::Int8 => convert::<1>(src, at, out, |v| i32::from(v[0] as i8)),
        LeafKind::UInt8 => convert::<1>(src, at, out, |v| i32::from(v[0])),
        LeafKind::Int16 => convert::<2>(src, at, out, |v| i32::from(i16::from_le_bytes(*v))),
        LeafKind::UInt16 => convert::<2>(src, at, out, |v| i32::from(u16::from_le_bytes(*v))),
        LeafKind::Date64 => convert::<8>(src, at, out, |v| {
            (i64::from_le_bytes(*v) / MS_PER_DAY) as i32
        }),
        // `NativeValues::new` admits no other integer of another width.
        k => unreachable!("{k:?} stored at another width"),
    }
}

/// Appends `f` of each picked `S`-byte value, as a little-endian INT32.
#[inline(never)]
fn convert<const S: usize>(
    src: &[u8],
    at: Pick<'_>,
    out: &mut Vec<u8>,
    f: impl Fn(&[u8; S]) -> i32,
) {
    append_converted::<S, 4>(out, src.as_chunks::<S>().0, at, |v| f(v).to_le_bytes());
}
