//! Schemas, arrays and writer properties decoded from fuzz input.
//!
//! Everything is bounded: at most [`MAX_BATCHES`] batches of at most
//! [`Limits::max_rows_per_batch`] rows, and about [`Limits::value_bytes`]
//! bytes of values per input, so that one execution takes milliseconds.

use super::primitive::Prim;
use std::cell::Cell;
use std::sync::Arc;

use super::release::{Props59, Props60};
use arrow_array::types::{
    ArrowDictionaryKeyType, Int8Type, Int16Type, Int32Type, Int64Type, RunEndIndexType, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, ArrayRef, Decimal128Array, Decimal256Array, DictionaryArray, Float16Array, Int64Array,
    IntervalDayTimeArray, IntervalYearMonthArray, ListArray, PrimitiveArray, RecordBatch,
    RecordBatchOptions, RunArray, StringArray, StructArray,
};
use arrow_buffer::{
    ArrowNativeType, Buffer, IntervalDayTime, NullBuffer, OffsetBuffer, ScalarBuffer, i256,
};
use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, SchemaRef};
use parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::properties::{
    BloomFilterPosition, CdcOptions, EnabledStatistics, WriterProperties, WriterPropertiesBuilder,
    WriterVersion,
};
use parquet::schema::types::ColumnPath;

use super::input::{ByteReader, SplitMix64};

/// Most batches per input.
pub const MAX_BATCHES: usize = 5;

/// Size limits of the generated data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most rows per batch.
    pub max_rows_per_batch: usize,
    /// About how many bytes of values one input may generate, all batches
    /// and columns together.
    pub value_bytes: usize,
}

impl Limits {
    /// The fuzz targets' limits (and the corpus replay's).
    pub const FUZZ: Self = Self {
        max_rows_per_batch: 2000,
        value_bytes: 1 << 18,
    };
    /// Smaller limits, for many generated inputs in a debug build.
    pub const SMALL: Self = Self {
        max_rows_per_batch: 200,
        value_bytes: 1 << 14,
    };
}

thread_local! {
    static LIMITS: Cell<Limits> = const { Cell::new(Limits::FUZZ) };
}

/// The limits in force on this thread ([`Limits::FUZZ`] unless inside
/// [`with_limits`]).
pub fn limits() -> Limits {
    LIMITS.with(Cell::get)
}

/// Run `f` with other limits on this thread.
pub fn with_limits<T>(limits: Limits, f: impl FnOnce() -> T) -> T {
    let previous = LIMITS.with(|l| l.replace(limits));
    let out = f();
    LIMITS.with(|l| l.set(previous));
    out
}

// ---------------------------------------------------------------------------
// FLBA types
// ---------------------------------------------------------------------------

/// An Arrow type that this crate writes: those parquet stores as
/// FIXED_LEN_BYTE_ARRAY, and decimals of every precision (INT32 up to 9
/// digits, INT64 up to 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flba {
    /// `FixedSizeBinary(width)`.
    Fsb(i32),
    /// `Decimal32(precision, scale)` (INT32).
    Dec32(u8, i8),
    /// `Decimal64(precision, scale)` (INT32 or INT64).
    Dec64(u8, i8),
    /// `Decimal128(precision, scale)`.
    Dec128(u8, i8),
    /// `Decimal256(precision, scale)`.
    Dec256(u8, i8),
    /// `Float16`.
    Float16,
    /// `Interval(YearMonth)`.
    YearMonth,
    /// `Interval(DayTime)`.
    DayTime,
}

/// Bytes of a FIXED_LEN_BYTE_ARRAY decimal of precision `p`: parquet's
/// `decimal_length_from_precision`, computed the way it computes it.
pub fn decimal_width(p: u8) -> usize {
    (((10.0_f64.powi(i32::from(p)) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// `10^p` as an i256 (wrapping beyond 76 digits).
pub fn pow10(p: u32) -> i256 {
    i256::from_i128(10).wrapping_pow(p)
}

/// Bytes a decimal of precision `p` is stored in: INT32 up to 9 digits,
/// INT64 up to 18, FIXED_LEN_BYTE_ARRAY of [`decimal_width`] above
/// (precision 1 is INT64 under parquet 59, docs/releases.md D14).
pub fn decimal_stored_width(p: u8) -> usize {
    let int32_from = if super::release::PARQUET_60 { 1 } else { 2 };
    match p {
        p if (int32_from..=9).contains(&p) => 4,
        0..=18 => 8,
        _ => decimal_width(p),
    }
}

/// The largest value a two's complement number of `w` bytes holds.
pub fn width_max(w: usize) -> i256 {
    (i256::ONE << (8 * w - 1) as u8).wrapping_sub(i256::ONE)
}

/// The smallest value a two's complement number of `w` bytes holds.
pub fn width_min(w: usize) -> i256 {
    (i256::ONE << (8 * w - 1) as u8).wrapping_neg()
}

impl Flba {
    /// Decode a type: FixedSizeBinary(1..=64, rarely wider), decimals of
    /// every Arrow width and precision, Float16, intervals.
    pub fn decode(r: &mut ByteReader) -> Self {
        match r.u8() % 8 {
            0 | 1 => {
                let w = if r.chance(16) {
                    r.pick(&[65, 100, 255, 256, 1000])
                } else {
                    r.range(1, 64) as i32
                };
                Flba::Fsb(w)
            }
            2 => {
                let p = r.range(19, 38) as u8;
                Flba::Dec128(p, decode_scale(r, p))
            }
            // Decimals stored as INT32 / INT64.
            3 => match r.u8() % 4 {
                0 => {
                    // parquet 59 stores precision 1 as INT64 and then
                    // cannot write a Decimal32 there (docs/releases.md
                    // D14, pinned by tests/release.rs): not a case to fuzz.
                    let lo = if super::release::PARQUET_60 { 1 } else { 2 };
                    let p = r.range(lo, 9) as u8;
                    Flba::Dec32(p, decode_scale(r, p))
                }
                1 => {
                    let p = r.range(1, 18) as u8;
                    Flba::Dec64(p, decode_scale(r, p))
                }
                2 => {
                    let p = r.range(1, 18) as u8;
                    Flba::Dec128(p, decode_scale(r, p))
                }
                _ => {
                    let p = r.range(1, 18) as u8;
                    Flba::Dec256(p, decode_scale(r, p))
                }
            },
            4 => {
                let p = r.range(19, 76) as u8;
                Flba::Dec256(p, decode_scale(r, p))
            }
            5 => Flba::Float16,
            6 => Flba::YearMonth,
            _ => Flba::DayTime,
        }
    }

    /// The Arrow type.
    pub fn data_type(self) -> DataType {
        match self {
            Flba::Fsb(w) => DataType::FixedSizeBinary(w),
            Flba::Dec32(p, s) => DataType::Decimal32(p, s),
            Flba::Dec64(p, s) => DataType::Decimal64(p, s),
            Flba::Dec128(p, s) => DataType::Decimal128(p, s),
            Flba::Dec256(p, s) => DataType::Decimal256(p, s),
            Flba::Float16 => DataType::Float16,
            Flba::YearMonth => DataType::Interval(IntervalUnit::YearMonth),
            Flba::DayTime => DataType::Interval(IntervalUnit::DayTime),
        }
    }

    /// The type for an Arrow type, if it is one of these.
    pub fn from_data_type(dt: &DataType) -> Option<Self> {
        Some(match dt {
            DataType::FixedSizeBinary(w) => Flba::Fsb(*w),
            DataType::Decimal32(p, s) => Flba::Dec32(*p, *s),
            DataType::Decimal64(p, s) => Flba::Dec64(*p, *s),
            DataType::Decimal128(p, s) => Flba::Dec128(*p, *s),
            DataType::Decimal256(p, s) => Flba::Dec256(*p, *s),
            DataType::Float16 => Flba::Float16,
            DataType::Interval(IntervalUnit::YearMonth) => Flba::YearMonth,
            DataType::Interval(IntervalUnit::DayTime) => Flba::DayTime,
            _ => return None,
        })
    }

    /// Bytes per value in the Arrow buffer.
    pub fn native_width(self) -> usize {
        match self {
            Flba::Fsb(w) => w as usize,
            Flba::Dec32(..) => 4,
            Flba::Dec64(..) => 8,
            Flba::Dec128(..) => 16,
            Flba::Dec256(..) => 32,
            Flba::Float16 => 2,
            Flba::YearMonth => 4,
            Flba::DayTime => 8,
        }
    }

    /// Bytes per value in the parquet column.
    pub fn parquet_width(self) -> usize {
        match self {
            Flba::Fsb(w) => w as usize,
            Flba::Dec32(p, _) | Flba::Dec64(p, _) | Flba::Dec128(p, _) | Flba::Dec256(p, _) => {
                decimal_stored_width(p)
            }
            Flba::Float16 => 2,
            Flba::YearMonth | Flba::DayTime => 12,
        }
    }

    /// Whether the parquet column is a decimal.
    pub fn is_decimal(self) -> bool {
        matches!(
            self,
            Flba::Dec32(..) | Flba::Dec64(..) | Flba::Dec128(..) | Flba::Dec256(..)
        )
    }

    /// Whether the parquet column is an INT32 / INT64 decimal.
    pub fn is_int_decimal(self) -> bool {
        self.is_decimal() && matches!(self.parquet_width(), 4 | 8) && self.precision() <= 18
    }

    /// A decimal's precision (0 for other types).
    pub fn precision(self) -> u8 {
        match self {
            Flba::Dec32(p, _) | Flba::Dec64(p, _) | Flba::Dec128(p, _) | Flba::Dec256(p, _) => p,
            _ => 0,
        }
    }

    /// A native value as an i256 (decimals only).
    pub fn decimal_value(self, native: &[u8]) -> i256 {
        let mut b = [if native[native.len() - 1] & 0x80 != 0 {
            0xFF
        } else {
            0
        }; 32];
        b[..native.len()].copy_from_slice(native);
        i256::from_le_bytes(b)
    }

    /// Whether a native decimal value fits the parquet column's width
    /// (always true for other types).
    pub fn fits(self, native: &[u8]) -> bool {
        if !self.is_decimal() {
            return true;
        }
        let w = self.parquet_width();
        let v = self.decimal_value(native);
        v >= width_min(w) && v <= width_max(w)
    }

    /// The value as parquet stores it (what goes into pages, statistics and
    /// bloom filters): big-endian low bytes for FIXED_LEN_BYTE_ARRAY
    /// decimals, little-endian low bytes for INT32 / INT64 ones,
    /// little-endian Float16, 12-byte intervals.
    pub fn to_parquet(self, native: &[u8], out: &mut Vec<u8>) {
        match self {
            Flba::Fsb(_) | Flba::Float16 => out.extend_from_slice(native),
            _ if self.is_int_decimal() => out.extend_from_slice(&native[..self.parquet_width()]),
            Flba::Dec32(..) | Flba::Dec64(..) | Flba::Dec128(..) | Flba::Dec256(..) => {
                let w = self.parquet_width();
                out.extend(native[..w].iter().rev());
            }
            Flba::YearMonth => {
                out.extend_from_slice(native);
                out.extend_from_slice(&[0; 8]);
            }
            Flba::DayTime => {
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(native);
            }
        }
    }

    /// Compare two native values in the parquet sort order of the column:
    /// signed for decimals, IEEE 754 total order for Float16, unsigned
    /// bytes otherwise.
    pub fn cmp_native(self, a: &[u8], b: &[u8]) -> std::cmp::Ordering {
        match self {
            Flba::Dec32(..) | Flba::Dec64(..) | Flba::Dec128(..) | Flba::Dec256(..) => {
                self.decimal_value(a).cmp(&self.decimal_value(b))
            }
            Flba::Float16 => f16_key(u16::from_le_bytes([a[0], a[1]]))
                .cmp(&f16_key(u16::from_le_bytes([b[0], b[1]]))),
            _ => {
                let (mut pa, mut pb) = (Vec::new(), Vec::new());
                self.to_parquet(a, &mut pa);
                self.to_parquet(b, &mut pb);
                pa.cmp(&pb)
            }
        }
    }
}

fn decode_scale(r: &mut ByteReader, p: u8) -> i8 {
    match r.u8() % 16 {
        0 => 0,
        1 => p as i8,
        // Negative scales: parquet's schema converter rejects them; both
        // writers must then fail alike.
        15 => -(r.range(1, 5) as i8),
        _ => r.range(0, usize::from(p)) as i8,
    }
}

/// Sort key of a Float16 bit pattern in IEEE 754 total order.
pub fn f16_key(bits: u16) -> u16 {
    if bits & 0x8000 != 0 {
        !bits
    } else {
        bits | 0x8000
    }
}

/// Whether a Float16 bit pattern is a NaN.
pub fn f16_is_nan(bits: u16) -> bool {
    bits & 0x7FFF > 0x7C00
}

/// Interesting Float16 bit patterns: NaNs of both signs and several
/// payloads, signed zeros and infinities, subnormals, extremes.
pub const F16_SPECIALS: &[u16] = &[
    0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF, 0x7D55, 0xFEAA, 0x0000, 0x8000, 0x7C00, 0xFC00,
    0x0001, 0x8001, 0x03FF, 0x83FF, 0x0200, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x0400, 0x8400,
];

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

/// How a column's values are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalRange {
    /// Values that fit the column's byte width (the contract's domain).
    Fits,
    /// Some values beyond the byte width (bad input).
    Overflowing,
}

/// `n` native values of `flba`, flat, drawn in a style chosen by the input.
pub fn gen_values(r: &mut ByteReader, flba: Flba, n: usize, range: DecimalRange) -> Vec<u8> {
    let nw = flba.native_width();
    let style = r.u8() % 10;
    let mut rng = r.rng();
    let mut out = vec![0u8; n * nw];
    match style {
        // Random.
        0..=2 => {
            for i in 0..n {
                let (prev, cur) = out.split_at_mut(i * nw);
                let prev = (i > 0).then(|| &prev[(i - 1) * nw..]);
                one_value(&mut rng, flba, false, prev, &mut cur[..nw]);
            }
        }
        // A small pool of distinct values.
        3 | 4 => {
            let k = if rng.chance(1, 4) {
                1 + rng.below(300) as usize
            } else {
                1 + rng.below(16) as usize
            };
            let mut pool = vec![0u8; k * nw];
            for i in 0..k {
                let extreme = rng.chance(1, 4);
                one_value(
                    &mut rng,
                    flba,
                    extreme,
                    None,
                    &mut pool[i * nw..(i + 1) * nw],
                );
            }
            for i in 0..n {
                let j = rng.below(k as u64) as usize;
                out[i * nw..(i + 1) * nw].copy_from_slice(&pool[j * nw..(j + 1) * nw]);
            }
        }
        // One value.
        5 => {
            let mut v = vec![0u8; nw];
            let extreme = rng.chance(1, 2);
            one_value(&mut rng, flba, extreme, None, &mut v);
            for i in 0..n {
                out[i * nw..(i + 1) * nw].copy_from_slice(&v);
            }
        }
        // Sorted, ascending or descending.
        6 | 7 => {
            let mut vals: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let mut v = vec![0u8; nw];
                    let extreme = rng.chance(1, 8);
                    one_value(&mut rng, flba, extreme, None, &mut v);
                    v
                })
                .collect();
            vals.sort_by(|a, b| flba.cmp_native(a, b));
            if style == 7 {
                vals.reverse();
            }
            for (i, v) in vals.iter().enumerate() {
                out[i * nw..(i + 1) * nw].copy_from_slice(v);
            }
        }
        // Extremes only.
        8 => {
            for i in 0..n {
                one_value(&mut rng, flba, true, None, &mut out[i * nw..(i + 1) * nw]);
            }
        }
        // Literal bytes from the input, repeated.
        _ => {
            let count = 1 + r.u8() as usize % 8;
            let lit = r.bytes(nw * count);
            if !lit.is_empty() {
                for (i, b) in out.iter_mut().enumerate() {
                    *b = lit[i % lit.len()];
                }
            }
            if flba.is_decimal() {
                for i in 0..n {
                    clamp_decimal(flba, &mut out[i * nw..(i + 1) * nw]);
                }
            }
        }
    }
    if range == DecimalRange::Overflowing && flba.is_decimal() && n > 0 {
        // Overwrite a few values with ones beyond the byte width.
        let count = 1 + rng.below(n.min(8) as u64) as usize;
        for _ in 0..count {
            let i = rng.below(n as u64) as usize;
            overflow_value(&mut rng, flba, &mut out[i * nw..(i + 1) * nw]);
        }
    }
    out
}

/// Make a decimal fit its byte width by sign-extending its low bytes.
fn clamp_decimal(flba: Flba, native: &mut [u8]) {
    let w = flba.parquet_width();
    let fill = if native[w - 1] & 0x80 != 0 { 0xFF } else { 0 };
    for b in &mut native[w..] {
        *b = fill;
    }
}

fn put_decimal(flba: Flba, v: i256, out: &mut [u8]) {
    let le = v.to_le_bytes();
    out.copy_from_slice(&le[..flba.native_width()]);
}

/// A decimal value beyond the column's byte width (if the width is narrower
/// than the Arrow value; otherwise left as is).
pub fn overflow_value(rng: &mut SplitMix64, flba: Flba, out: &mut [u8]) {
    let w = flba.parquet_width();
    if w >= flba.native_width() {
        return;
    }
    let native_max = width_max(flba.native_width());
    let native_min = width_min(flba.native_width());
    let v = match rng.below(6) {
        0 => width_max(w).wrapping_add(i256::ONE),
        1 => width_min(w).wrapping_sub(i256::ONE),
        2 => native_max,
        3 => native_min,
        _ => {
            // Random bits above the width.
            let mut b = [0u8; 32];
            rng.fill(&mut b[..flba.native_width()]);
            let v = flba.decimal_value(&b[..flba.native_width()]);
            if v > width_max(w) || v < width_min(w) {
                v
            } else {
                width_max(w).wrapping_add(i256::from_i128(1 + rng.below(1000) as i128))
            }
        }
    };
    let v = v.max(native_min).min(native_max);
    put_decimal(flba, v, out);
}

/// One native value into `out`; `extreme` picks from edge cases;
/// `prev` (the previous value) lets FixedSizeBinary share prefixes.
fn one_value(rng: &mut SplitMix64, flba: Flba, extreme: bool, prev: Option<&[u8]>, out: &mut [u8]) {
    match flba {
        Flba::Fsb(w) => {
            let w = w as usize;
            if extreme {
                let b = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE][rng.below(6) as usize];
                out.fill(b);
                if rng.chance(1, 2) && w > 0 {
                    let i = rng.below(w as u64) as usize;
                    out[i] = rng.next_u64() as u8;
                }
            } else if let Some(prev) = prev.filter(|_| rng.chance(1, 3)) {
                out.copy_from_slice(prev);
                let from = rng.below(w as u64) as usize;
                rng.fill(&mut out[from..]);
            } else {
                rng.fill(out);
            }
        }
        Flba::Dec32(p, _) | Flba::Dec64(p, _) | Flba::Dec128(p, _) | Flba::Dec256(p, _) => {
            let w = flba.parquet_width();
            let v = if extreme || rng.chance(1, 10) {
                let pmax = pow10(u32::from(p)).wrapping_sub(i256::ONE);
                let candidates = [
                    width_max(w),
                    width_min(w),
                    pmax,
                    pmax.wrapping_neg(),
                    pmax.wrapping_add(i256::ONE),
                    pmax.wrapping_add(i256::ONE).wrapping_neg(),
                    i256::ZERO,
                    i256::ONE,
                    i256::MINUS_ONE,
                    width_max(w).wrapping_sub(i256::ONE),
                    width_min(w).wrapping_add(i256::ONE),
                ];
                let v = candidates[rng.below(candidates.len() as u64) as usize];
                if v > width_max(w) || v < width_min(w) {
                    i256::ZERO
                } else {
                    v
                }
            } else if rng.chance(1, 2) {
                // Any value of the byte width.
                let mut b = [0u8; 32];
                rng.fill(&mut b[..w]);
                flba.decimal_value(&b[..w])
            } else {
                // Within the precision: up to `p` digits.
                let digits = 1 + rng.below(u64::from(p)) as u32;
                let mut b = [0u8; 32];
                rng.fill(&mut b);
                b[31] &= 0x7F;
                let v = i256::from_le_bytes(b).wrapping_rem(pow10(digits));
                if rng.chance(1, 2) {
                    v.wrapping_neg()
                } else {
                    v
                }
            };
            put_decimal(flba, v, out);
        }
        Flba::Float16 => {
            let bits = if extreme || rng.chance(1, 4) {
                F16_SPECIALS[rng.below(F16_SPECIALS.len() as u64) as usize]
            } else {
                rng.next_u64() as u16
            };
            out.copy_from_slice(&bits.to_le_bytes());
        }
        Flba::YearMonth => {
            let v = if extreme {
                [i32::MIN, i32::MAX, 0, -1, 1][rng.below(5) as usize]
            } else {
                rng.next_u64() as i32 >> rng.below(31)
            };
            out.copy_from_slice(&v.to_le_bytes());
        }
        Flba::DayTime => {
            for half in out.chunks_mut(4) {
                let v = if extreme {
                    [i32::MIN, i32::MAX, 0, -1, 1][rng.below(5) as usize]
                } else {
                    rng.next_u64() as i32 >> rng.below(31)
                };
                half.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

/// An Arrow array of `flba` from flat native values.
pub fn flba_array(flba: Flba, native: &[u8], nulls: Option<NullBuffer>) -> ArrayRef {
    let nw = flba.native_width();
    let n = native.len().checked_div(nw).unwrap_or(0);
    match flba {
        Flba::Fsb(w) => Arc::new(
            super::release::fixed_size_binary(w, Buffer::from(native.to_vec()), nulls, n)
                .expect("valid FixedSizeBinary array"),
        ),
        Flba::Dec32(p, s) => {
            let vals: Vec<i32> = native
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            Arc::new(
                arrow_array::Decimal32Array::new(ScalarBuffer::from(vals), nulls)
                    .with_precision_and_scale(p, s.max(0))
                    .expect("valid decimal type")
                    .with_data_type(DataType::Decimal32(p, s)),
            )
        }
        Flba::Dec64(p, s) => {
            let vals: Vec<i64> = native
                .chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            Arc::new(
                arrow_array::Decimal64Array::new(ScalarBuffer::from(vals), nulls)
                    .with_precision_and_scale(p, s.max(0))
                    .expect("valid decimal type")
                    .with_data_type(DataType::Decimal64(p, s)),
            )
        }
        Flba::Dec128(p, s) => {
            let vals: Vec<i128> = native
                .chunks_exact(16)
                .map(|c| i128::from_le_bytes(c.try_into().unwrap()))
                .collect();
            Arc::new(
                Decimal128Array::new(ScalarBuffer::from(vals), nulls)
                    .with_precision_and_scale(p, s.max(0))
                    .expect("valid decimal type")
                    .with_data_type(DataType::Decimal128(p, s)),
            )
        }
        Flba::Dec256(p, s) => {
            let vals: Vec<i256> = native
                .chunks_exact(32)
                .map(|c| i256::from_le_bytes(c.try_into().unwrap()))
                .collect();
            Arc::new(
                Decimal256Array::new(ScalarBuffer::from(vals), nulls)
                    .with_precision_and_scale(p, s.max(0))
                    .expect("valid decimal type")
                    .with_data_type(DataType::Decimal256(p, s)),
            )
        }
        Flba::Float16 => {
            let vals: Vec<half::f16> = native
                .chunks_exact(2)
                .map(|c| half::f16::from_bits(u16::from_le_bytes([c[0], c[1]])))
                .collect();
            Arc::new(Float16Array::new(ScalarBuffer::from(vals), nulls))
        }
        Flba::YearMonth => {
            let vals: Vec<i32> = native
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            Arc::new(IntervalYearMonthArray::new(ScalarBuffer::from(vals), nulls))
        }
        Flba::DayTime => {
            let vals: Vec<IntervalDayTime> = native
                .chunks_exact(8)
                .map(|c| {
                    IntervalDayTime::new(
                        i32::from_le_bytes(c[..4].try_into().unwrap()),
                        i32::from_le_bytes(c[4..].try_into().unwrap()),
                    )
                })
                .collect();
            Arc::new(IntervalDayTimeArray::new(ScalarBuffer::from(vals), nulls))
        }
    }
}

// ---------------------------------------------------------------------------
// Nulls
// ---------------------------------------------------------------------------

/// A validity buffer of `n` slots in a style chosen by the input; `None` or
/// all valid when `nullable` is false.
pub fn gen_nulls(r: &mut ByteReader, n: usize, nullable: bool) -> Option<NullBuffer> {
    let style = r.u8() % 10;
    if !nullable {
        return (style % 2 == 1).then(|| NullBuffer::new_valid(n));
    }
    let mut rng = r.rng();
    let valid: Vec<bool> = match style {
        0 => return None,
        1 => return Some(NullBuffer::new_valid(n)),
        2 => vec![false; n],
        3 | 4 => {
            let d = u64::from(r.u8());
            (0..n).map(|_| rng.below(256) >= d).collect()
        }
        5 | 6 => {
            // Alternating runs of values and nulls, possibly long.
            let div = 1 + rng.below(4);
            let mean = 1 + rng.below(n.max(1) as u64 / div) as usize;
            let mut v = Vec::with_capacity(n);
            let mut state = rng.chance(1, 2);
            while v.len() < n {
                let run = (1 + rng.below(2 * mean as u64) as usize).min(n - v.len());
                v.extend(std::iter::repeat_n(state, run));
                state = !state;
            }
            v
        }
        7 => {
            // One null, or one value.
            let at = rng.below(n.max(1) as u64) as usize;
            let one = rng.chance(1, 2);
            (0..n).map(|i| (i == at) != one).collect()
        }
        8 => {
            let k = 1 + rng.below(9) as usize;
            (0..n).map(|i| i % k != 0).collect()
        }
        _ => {
            let count = 1 + r.u8() as usize % 32;
            let bits = r.bytes(count);
            if bits.is_empty() {
                vec![true; n]
            } else {
                (0..n)
                    .map(|i| bits[(i / 8) % bits.len()] & (1 << (i % 8)) != 0)
                    .collect()
            }
        }
    };
    Some(NullBuffer::from(valid))
}

// ---------------------------------------------------------------------------
// Columns
// ---------------------------------------------------------------------------

/// Dictionary key types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// Int8
    I8,
    /// Int16
    I16,
    /// Int32
    I32,
    /// Int64
    I64,
    /// UInt8
    U8,
    /// UInt16
    U16,
    /// UInt32
    U32,
    /// UInt64
    U64,
}

impl Key {
    fn decode(r: &mut ByteReader) -> Self {
        r.pick(&[
            Key::I32,
            Key::I8,
            Key::I16,
            Key::I64,
            Key::U8,
            Key::U16,
            Key::U32,
            Key::U64,
        ])
    }

    /// The Arrow key type.
    pub fn data_type(self) -> DataType {
        match self {
            Key::I8 => DataType::Int8,
            Key::I16 => DataType::Int16,
            Key::I32 => DataType::Int32,
            Key::I64 => DataType::Int64,
            Key::U8 => DataType::UInt8,
            Key::U16 => DataType::UInt16,
            Key::U32 => DataType::UInt32,
            Key::U64 => DataType::UInt64,
        }
    }

    /// Largest dictionary this key type can index.
    fn max_values(self) -> usize {
        match self {
            Key::I8 => 127,
            Key::U8 => 255,
            _ => 1000,
        }
    }
}

/// Run-end index types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Int16
    I16,
    /// Int32
    I32,
    /// Int64
    I64,
}

impl RunEnd {
    fn data_type(self) -> DataType {
        match self {
            RunEnd::I16 => DataType::Int16,
            RunEnd::I32 => DataType::Int32,
            RunEnd::I64 => DataType::Int64,
        }
    }
}

/// How a plain FLBA field's array is represented in the batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repr {
    /// The FLBA array itself.
    Plain,
    /// A dictionary array of it (the writer's field stays plain).
    Dict(Key),
    /// A run-end encoded array of it (the writer's field stays plain).
    RunEnds(RunEnd),
}

/// What a column is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A top-level FLBA field (the fast path).
    Flba(Flba, Repr),
    /// `Int64`.
    Int64,
    /// `Utf8`.
    Utf8,
    /// Another fixed-width primitive (integers, dates, times, timestamps,
    /// floats, booleans).
    Prim(Prim),
    /// `Struct<v: FLBA>`, the child nullable or not.
    Struct(Flba, bool),
    /// `List<item: FLBA>`, items nullable or not.
    List(Flba, bool),
    /// A field whose schema type is `Dictionary<K, FLBA>`.
    DictField(Key, Flba),
}

/// One column of a generated schema.
#[derive(Clone, Debug)]
pub struct Col {
    /// Field name.
    pub name: String,
    /// What it holds.
    pub kind: Kind,
    /// Whether the field is nullable.
    pub nullable: bool,
}

impl Col {
    /// The FLBA type of the column's leaf, if it has one.
    pub fn flba(&self) -> Option<Flba> {
        match self.kind {
            Kind::Flba(f, _) | Kind::Struct(f, _) | Kind::List(f, _) | Kind::DictField(_, f) => {
                Some(f)
            }
            Kind::Int64 | Kind::Utf8 | Kind::Prim(_) => None,
        }
    }

    /// The writer schema's field.
    pub fn field(&self) -> Field {
        let dt = match self.kind {
            Kind::Flba(f, _) => f.data_type(),
            Kind::Int64 => DataType::Int64,
            Kind::Utf8 => DataType::Utf8,
            Kind::Prim(p) => p.data_type(),
            Kind::Struct(f, child_nullable) => DataType::Struct(Fields::from(vec![Field::new(
                "v",
                f.data_type(),
                child_nullable,
            )])),
            Kind::List(f, item_nullable) => {
                DataType::List(Arc::new(Field::new("item", f.data_type(), item_nullable)))
            }
            Kind::DictField(k, f) => {
                DataType::Dictionary(Box::new(k.data_type()), Box::new(f.data_type()))
            }
        };
        Field::new(&self.name, dt, self.nullable)
    }

    /// The parquet column path of the column's (single) leaf.
    pub fn leaf_path(&self, coerce_types: bool) -> ColumnPath {
        let mut p = vec![self.name.clone()];
        match self.kind {
            Kind::Struct(..) => p.push("v".into()),
            Kind::List(..) => {
                p.push("list".into());
                p.push(if coerce_types { "element" } else { "item" }.into());
            }
            _ => {}
        }
        ColumnPath::new(p)
    }

    /// Bytes of values per row, roughly (for the budget).
    fn row_cost(&self) -> usize {
        let w = self.flba().map_or(8, |f| f.native_width());
        match self.kind {
            Kind::List(..) => 3 * w + 4,
            Kind::Utf8 => 12,
            _ => w + 1,
        }
    }
}

/// Decode 1–4 FLBA columns plus, optionally, Int64/Utf8 columns, another
/// fixed-width primitive column and a nested or dictionary-typed FLBA
/// column, in an input-chosen order.
pub fn decode_columns(r: &mut ByteReader) -> Vec<Col> {
    let mut kinds = Vec::new();
    let n_flba = 1 + r.below(4);
    for _ in 0..n_flba {
        let f = Flba::decode(r);
        let repr = match r.u8() % 16 {
            14 => Repr::Dict(Key::decode(r)),
            15 => Repr::RunEnds(r.pick(&[RunEnd::I32, RunEnd::I16, RunEnd::I64])),
            _ => Repr::Plain,
        };
        kinds.push(Kind::Flba(f, repr));
    }
    let extras = r.u8();
    if extras & 1 != 0 {
        // The three top bits pick another fixed-width primitive (its array
        // takes the same input bytes as an Int64 one).
        kinds.push(match Prim::from_bits(extras >> 5) {
            Some(p) => Kind::Prim(p),
            None => Kind::Int64,
        });
    }
    if extras & 2 != 0 {
        kinds.push(Kind::Utf8);
    }
    match (extras >> 2) % 8 {
        5 => kinds.push(Kind::Struct(Flba::decode(r), r.bool())),
        6 => kinds.push(Kind::List(Flba::decode(r), r.bool())),
        7 => kinds.push(Kind::DictField(Key::decode(r), Flba::decode(r))),
        _ => {}
    }
    // Rotate so that FLBA columns are not always first.
    let rot = r.below(kinds.len());
    kinds.rotate_left(rot);
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| Col {
            name: format!("c{i}"),
            kind,
            nullable: r.u8() % 4 != 1,
        })
        .collect()
}

/// The writer schema of `cols`.
pub fn schema_of(cols: &[Col]) -> SchemaRef {
    Arc::new(Schema::new(cols.iter().map(Col::field).collect::<Vec<_>>()))
}

/// Decode the number of rows of the next batch, within `budget` bytes of values.
pub fn decode_rows(r: &mut ByteReader, cols: &[Col], budget: usize) -> usize {
    let max = limits().max_rows_per_batch;
    let n = match r.u8() % 8 {
        0..=3 => r.range(0, 16),
        4..=6 => r.range(0, 300.min(max)),
        _ => r.range(0, max),
    };
    let per_row = cols.iter().map(Col::row_cost).sum::<usize>().max(1);
    n.min(budget / per_row)
}

/// Options for generating one column's array.
#[derive(Clone, Copy, Debug)]
pub struct ArrayOpts {
    /// Whether decimals may exceed their byte width.
    pub range: DecimalRange,
    /// Whether the array may hold nulls where the field is non-nullable
    /// (top level or nested).
    pub bad_nulls: bool,
}

impl ArrayOpts {
    /// Valid arrays only.
    pub const VALID: Self = Self {
        range: DecimalRange::Fits,
        bad_nulls: false,
    };
}

/// The array of `col` for a batch of `n` rows (possibly a slice of a longer
/// array), and the batch schema's field for it.
pub fn gen_column(r: &mut ByteReader, col: &Col, n: usize, opts: ArrayOpts) -> (Field, ArrayRef) {
    let (head, tail) = if r.chance(48) {
        (r.range(1, 17), r.range(0, 9))
    } else {
        (0, 0)
    };
    let len = head + n + tail;
    let nullable = col.nullable || opts.bad_nulls;
    let array: ArrayRef = match col.kind {
        Kind::Flba(f, repr) => {
            let nulls = gen_nulls(r, len, nullable);
            match repr {
                Repr::Plain => {
                    let vals = gen_values(r, f, len, opts.range);
                    flba_array(f, &vals, nulls)
                }
                Repr::Dict(k) => {
                    let dict_len = 1 + r.below(k.max_values().min(len.max(1)));
                    let vals = gen_values(r, f, dict_len, opts.range);
                    let value_nulls = if nullable && r.chance(32) {
                        gen_nulls(r, dict_len, true)
                    } else {
                        None
                    };
                    let values = flba_array(f, &vals, value_nulls);
                    let mut rng = r.rng();
                    let keys: Vec<usize> = (0..len)
                        .map(|_| rng.below(dict_len as u64) as usize)
                        .collect();
                    dict_array(k, &keys, nulls, values)
                }
                Repr::RunEnds(re) => {
                    // Runs of 1..=k rows; nulls belong to the run values.
                    let mut rng = r.rng();
                    let k = 1 + r.below(16) as u64;
                    let mut ends = Vec::new();
                    let mut at = 0;
                    while at < len {
                        at = (at + 1 + rng.below(k) as usize).min(len);
                        ends.push(at);
                    }
                    let vals = gen_values(r, f, ends.len(), opts.range);
                    let value_nulls = gen_nulls(r, ends.len(), nullable);
                    let values = flba_array(f, &vals, value_nulls);
                    ree_array(re, &ends, values.as_ref())
                }
            }
        }
        Kind::Int64 => {
            let nulls = gen_nulls(r, len, nullable);
            let mut rng = r.rng();
            let vals: Vec<i64> = (0..len).map(|_| rng.next_u64() as i64 >> 20).collect();
            Arc::new(Int64Array::new(ScalarBuffer::from(vals), nulls))
        }
        Kind::Prim(p) => {
            let nulls = gen_nulls(r, len, nullable);
            p.array(r, len, nulls)
        }
        Kind::Utf8 => {
            let nulls = gen_nulls(r, len, nullable);
            let mut rng = r.rng();
            let vals: Vec<String> = (0..len).map(|_| gen_string(&mut rng)).collect();
            Arc::new(StringArray::new(
                OffsetBuffer::from_lengths(vals.iter().map(String::len)),
                Buffer::from(vals.concat().into_bytes()),
                nulls,
            ))
        }
        Kind::Struct(f, child_nullable) => {
            let nulls = gen_nulls(r, len, nullable);
            let child_nulls = if child_nullable || opts.bad_nulls {
                gen_nulls(r, len, true)
            } else if r.bool() {
                // Masked by the parent: nulls only where the parent is null.
                nulls.clone()
            } else {
                None
            };
            let vals = gen_values(r, f, len, opts.range);
            let child = flba_array(f, &vals, child_nulls);
            let child_field = Field::new("v", f.data_type(), child_nullable || opts.bad_nulls);
            Arc::new(StructArray::new(
                Fields::from(vec![child_field]),
                vec![child],
                nulls,
            ))
        }
        Kind::List(f, item_nullable) => {
            let nulls = gen_nulls(r, len, nullable);
            let max_len = r.range(0, 6) as u64;
            let mut rng = r.rng();
            let lengths: Vec<usize> = (0..len)
                .map(|i| {
                    let null = nulls.as_ref().is_some_and(|b| b.is_null(i));
                    if null && rng.chance(3, 4) {
                        0
                    } else {
                        rng.below(max_len + 1) as usize
                    }
                })
                .collect();
            let total: usize = lengths.iter().sum();
            let item_nulls = gen_nulls(r, total, item_nullable || opts.bad_nulls);
            let vals = gen_values(r, f, total, opts.range);
            let items = flba_array(f, &vals, item_nulls);
            let item_field = Arc::new(Field::new(
                "item",
                f.data_type(),
                item_nullable || opts.bad_nulls,
            ));
            Arc::new(ListArray::new(
                item_field,
                OffsetBuffer::from_lengths(lengths),
                items,
                nulls,
            ))
        }
        Kind::DictField(k, f) => {
            let nulls = gen_nulls(r, len, nullable);
            let dict_len = 1 + r.below(k.max_values().min(len.max(1)));
            let vals = gen_values(r, f, dict_len, opts.range);
            let value_nulls = if nullable && r.chance(32) {
                gen_nulls(r, dict_len, true)
            } else {
                None
            };
            let values = flba_array(f, &vals, value_nulls);
            let mut rng = r.rng();
            let keys: Vec<usize> = (0..len)
                .map(|_| rng.below(dict_len as u64) as usize)
                .collect();
            dict_array(k, &keys, nulls, values)
        }
    };
    let array = array.slice(head, n);
    let field = Field::new(&col.name, array.data_type().clone(), nullable);
    (field, array)
}

fn dict_array(key: Key, keys: &[usize], nulls: Option<NullBuffer>, values: ArrayRef) -> ArrayRef {
    fn typed<K: ArrowDictionaryKeyType>(
        keys: &[usize],
        nulls: Option<NullBuffer>,
        values: ArrayRef,
    ) -> ArrayRef {
        let keys: Vec<K::Native> = keys
            .iter()
            .map(|&k| K::Native::from_usize(k).expect("key in range"))
            .collect();
        let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(keys), nulls);
        Arc::new(DictionaryArray::<K>::try_new(keys, values).expect("valid dictionary"))
    }
    match key {
        Key::I8 => typed::<Int8Type>(keys, nulls, values),
        Key::I16 => typed::<Int16Type>(keys, nulls, values),
        Key::I32 => typed::<Int32Type>(keys, nulls, values),
        Key::I64 => typed::<Int64Type>(keys, nulls, values),
        Key::U8 => typed::<UInt8Type>(keys, nulls, values),
        Key::U16 => typed::<UInt16Type>(keys, nulls, values),
        Key::U32 => typed::<UInt32Type>(keys, nulls, values),
        Key::U64 => typed::<UInt64Type>(keys, nulls, values),
    }
}

fn ree_array(re: RunEnd, ends: &[usize], values: &dyn Array) -> ArrayRef {
    fn typed<R: RunEndIndexType>(ends: &[usize], values: &dyn Array) -> ArrayRef {
        let ends: Vec<R::Native> = ends
            .iter()
            .map(|&e| R::Native::from_usize(e).expect("run end in range"))
            .collect();
        let ends = PrimitiveArray::<R>::new(ScalarBuffer::from(ends), None);
        Arc::new(RunArray::<R>::try_new(&ends, values).expect("valid run-end encoded array"))
    }
    let _ = re.data_type();
    match re {
        RunEnd::I16 => typed::<Int16Type>(ends, values),
        RunEnd::I32 => typed::<Int32Type>(ends, values),
        RunEnd::I64 => typed::<Int64Type>(ends, values),
    }
}

/// A batch of `n` rows for `cols`, with its own schema (whose field types
/// follow the arrays: a dictionary-encoded array for a plain field is
/// allowed, as the writers accept it).
pub fn gen_batch(r: &mut ByteReader, cols: &[Col], n: usize, opts: ArrayOpts) -> RecordBatch {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) =
        cols.iter().map(|c| gen_column(r, c, n, opts)).unzip();
    RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(n)),
    )
    .expect("generated batch is consistent")
}

// ---------------------------------------------------------------------------
// Writer properties
// ---------------------------------------------------------------------------

fn decode_compression(r: &mut ByteReader) -> Compression {
    match r.u8() % 8 {
        0 => Compression::UNCOMPRESSED,
        1 => Compression::SNAPPY,
        2 => Compression::GZIP(GzipLevel::try_new(r.range(0, 9) as u32).unwrap_or_default()),
        3 => Compression::LZ4,
        4 => Compression::LZ4_RAW,
        5 => Compression::ZSTD(ZstdLevel::try_new(r.range(1, 6) as i32).unwrap_or_default()),
        6 => Compression::BROTLI(BrotliLevel::try_new(r.range(0, 4) as u32).unwrap_or_default()),
        _ => Compression::UNCOMPRESSED,
    }
}

fn decode_statistics(r: &mut ByteReader) -> EnabledStatistics {
    match r.u8() % 4 {
        0 | 1 => EnabledStatistics::Page,
        2 => EnabledStatistics::Chunk,
        _ => EnabledStatistics::None,
    }
}

/// A size limit: tiny, small, default-ish or huge.
fn decode_limit(r: &mut ByteReader) -> usize {
    match r.u8() % 8 {
        0 => 1,
        1 => r.range(1, 64),
        2 | 3 => r.range(1, 4096),
        4 => r.range(4096, 1 << 16),
        5 => 1 << 20,
        6 => usize::MAX / 2,
        _ => r.range(1, 1024),
    }
}

/// One value of a `Utf8` column: mostly a short symbol (`s` and a number:
/// repeats and shared prefixes), sometimes empty, or long (past the
/// statistics and column index truncation lengths), of ASCII, of a
/// multi-byte character (2, 3 or 4 bytes) repeated so that a truncation
/// length falls inside one, or of U+10FFFF / U+FFFF (whose truncated max
/// cannot be incremented in place).
fn gen_string(rng: &mut SplitMix64) -> String {
    match rng.below(32) {
        0 => String::new(),
        1..=3 => {
            let c = ['a', 'é', '€', '😀', '\u{ffff}', '\u{10ffff}'][rng.below(6) as usize];
            let n = 1 + rng.below(90) as usize;
            let mut v: String = std::iter::repeat_n(c, n).collect();
            if rng.chance(1, 2) {
                v.insert(0, 'x');
            }
            v
        }
        _ => {
            let m = 1 + rng.below(1000);
            format!("s{}", rng.below(m))
        }
    }
}

fn decode_truncate(r: &mut ByteReader) -> Option<usize> {
    // Never Some(0): the builder panics on it.
    match r.u8() % 4 {
        0 => Some(64),
        1 => None,
        _ => Some(r.range(1, 70)),
    }
}

/// The FLBA encodings that parquet accepts for FIXED_LEN_BYTE_ARRAY.
const FLBA_ENCODINGS: &[Encoding] = &[
    Encoding::PLAIN,
    Encoding::BYTE_STREAM_SPLIT,
    Encoding::DELTA_BYTE_ARRAY,
];

/// The encodings parquet accepts for INT32 / INT64 decimals.
const INT_DECIMAL_ENCODINGS: &[Encoding] = &[
    Encoding::PLAIN,
    Encoding::BYTE_STREAM_SPLIT,
    Encoding::DELTA_BINARY_PACKED,
];

/// The encodings every leaf this crate writes accepts.
const COMMON_ENCODINGS: &[Encoding] = &[Encoding::PLAIN, Encoding::BYTE_STREAM_SPLIT];

/// The encodings `flba`'s column accepts.
fn encodings_for(flba: Flba) -> &'static [Encoding] {
    if flba.is_int_decimal() {
        INT_DECIMAL_ENCODINGS
    } else {
        FLBA_ENCODINGS
    }
}

/// A DELTA_BINARY_PACKED block layout `(values per block, miniblocks)`
/// (a setting parquet 60 has; see `release`).
fn decode_delta_options(r: &mut ByteReader) -> (usize, usize) {
    let block = 128 * r.range(1, 8);
    let minis = r.pick(&[1, 2, 4, 8]);
    (block, minis)
}

/// Properties drawn from the whole configuration space the contract covers:
/// writer version, codecs, dictionary, encodings, statistics levels and
/// truncation, page/row-group limits, bloom filters, distinct counts,
/// offset index, V2 compression threshold, CDC. Per-column settings apply
/// to the columns' leaves. Avoids what parquet's builder itself panics on
/// (zero limits, dictionary encodings as fallback, non-FLBA encodings on
/// FLBA columns, global encodings with non-FLBA columns).
pub fn decode_props(r: &mut ByteReader, cols: &[Col]) -> WriterProperties {
    let mut b = WriterProperties::builder();
    let flags = r.u32();
    let bit = |i: u32| flags & (1 << i) != 0;
    if bit(0) {
        b = b.set_writer_version(WriterVersion::PARQUET_2_0);
    }
    if bit(1) {
        b = b.set_compression(decode_compression(r));
    }
    if bit(2) {
        b = b.set_dictionary_enabled(false);
    }
    if bit(3) {
        b = b.set_statistics_enabled(decode_statistics(r));
    }
    if bit(4) {
        b = b.set_write_page_header_statistics(true);
    }
    if bit(5) {
        b = b.set_statistics_truncate_length(decode_truncate(r));
    }
    if bit(6) {
        b = b.set_column_index_truncate_length(decode_truncate(r));
    }
    if bit(7) {
        b = b.set_data_page_size_limit(decode_limit(r));
    }
    if bit(8) {
        b = b.set_data_page_row_count_limit(decode_limit(r));
    }
    if bit(9) {
        b = b.set_write_batch_size(decode_limit(r));
    }
    if bit(10) {
        b = b.set_dictionary_page_size_limit(decode_limit(r));
    }
    // Bloom filters without an explicit NDV are sized for the row-group row
    // limit: a huge limit would make each filter 128 MiB, so size them
    // explicitly then (and, below, with a small byte limit on row groups,
    // which may make hundreds of them).
    let mut explicit_ndv = false;
    if bit(11) {
        let limit = decode_limit(r);
        explicit_ndv = limit > 1 << 20;
        b = b.set_max_row_group_row_count(Some(limit));
    } else if bit(12) {
        b = b.set_max_row_group_row_count(None);
    }
    if bit(13) {
        let limit = decode_limit(r);
        explicit_ndv |= limit < 1 << 20;
        b = b.set_max_row_group_bytes(Some(limit));
    }
    if bit(14) {
        b = b.set_bloom_filter_enabled(true);
        if r.bool() {
            b = b.set_bloom_filter_fpp((f64::from(r.u8()) + 1.0) / 258.0);
        }
        if r.bool() || explicit_ndv {
            b = b.bloom_max_ndv(r.range(1, 5000) as u64);
        }
        if r.bool() {
            b = b.set_bloom_filter_position(BloomFilterPosition::End);
        }
        if r.bool() {
            b = b.bloom_for_dictionary_chunks(false);
        }
    }
    if bit(15) {
        b = b.distinct_values(true);
    }
    if bit(16) {
        b = b.set_offset_index_disabled(true);
    }
    if bit(17) {
        let t = r.pick(&[1.0, 0.5, 0.9, 1.1, 2.0, 1e-6, 1e6]);
        b = b.set_data_page_v2_compression_ratio_threshold(t);
    }
    if bit(18) {
        b = b.set_coerce_types(true);
    }
    if bit(19) {
        b = b.path_in_schema(false);
    }
    if bit(20) {
        b = b.delta_layout(decode_delta_options(r));
    }
    if bit(21) && cols.iter().all(|c| c.flba().is_some()) {
        // A global encoding is only safe when every leaf is one this crate
        // writes, and one they all accept.
        let all_flba = cols
            .iter()
            .all(|c| c.flba().is_some_and(|f| !f.is_int_decimal()));
        b = b.set_encoding(r.pick(if all_flba {
            FLBA_ENCODINGS
        } else {
            COMMON_ENCODINGS
        }));
    }
    // Content-defined chunking in about half the inputs: this crate chunks
    // and encodes the FLBA leaves itself, and with any other leaf (an
    // Int64 or Utf8 column, see `decode_columns`) the file is the mixed
    // kind, spliced from an inner parquet writer, whose footer this crate
    // writes. Bits 29..31 (the last byte of `flags`), so that an exhausted
    // input (all zeros) stays without it.
    if matches!(flags >> 29, 1 | 3 | 5 | 6) {
        let min = r.range(1, 2048);
        let max = min + r.range(1, 8192);
        b = b.set_content_defined_chunking(Some(CdcOptions {
            min_chunk_size: min,
            max_chunk_size: max,
            norm_level: r.range(0, 6) as i32 - 3,
        }));
    }
    let coerce = bit(18);
    for c in cols {
        if r.u8() % 4 != 3 {
            continue;
        }
        b = decode_column_props(r, b, c, c.leaf_path(coerce), explicit_ndv);
    }
    b.build()
}

fn decode_column_props(
    r: &mut ByteReader,
    mut b: WriterPropertiesBuilder,
    col: &Col,
    path: ColumnPath,
    explicit_ndv: bool,
) -> WriterPropertiesBuilder {
    let flags = r.u16();
    let bit = |i: u32| flags & (1 << i) != 0;
    if bit(0) {
        let enc = match col.kind {
            Kind::Int64 => r.pick(&[Encoding::PLAIN, Encoding::DELTA_BINARY_PACKED]),
            Kind::Prim(p) => r.pick(p.encodings()),
            Kind::Utf8 => r.pick(&[
                Encoding::PLAIN,
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                Encoding::DELTA_BYTE_ARRAY,
            ]),
            _ => r.pick(col.flba().map_or(FLBA_ENCODINGS, encodings_for)),
        };
        b = b.set_column_encoding(path.clone(), enc);
    }
    if bit(1) {
        b = b.set_column_dictionary_enabled(path.clone(), r.bool());
    }
    if bit(2) {
        b = b.set_column_compression(path.clone(), decode_compression(r));
    }
    if bit(3) {
        b = b.set_column_statistics_enabled(path.clone(), decode_statistics(r));
    }
    // Setting the FPP or NDV enables the column's bloom filter too.
    let bloom_on = bit(4) && r.bool();
    if bit(4) {
        b = b.set_column_bloom_filter_enabled(path.clone(), bloom_on);
    }
    if bit(5) {
        b = b.set_column_bloom_filter_fpp(path.clone(), (f64::from(r.u8()) + 1.0) / 258.0);
    }
    if bit(6) || (explicit_ndv && (bloom_on || bit(5))) {
        b = b.column_bloom_max_ndv(path.clone(), r.range(1, 3000) as u64);
    }
    if bit(7) {
        b = b.set_column_data_page_size_limit(path.clone(), decode_limit(r));
    }
    if bit(8) {
        b = b.column_page_row_limit(path.clone(), decode_limit(r));
    }
    if bit(9) {
        b = b.set_column_dictionary_page_size_limit(path.clone(), decode_limit(r));
    }
    if bit(10) {
        b = b.set_column_write_page_header_statistics(path.clone(), r.bool());
    }
    if bit(11) {
        let t = r.pick(&[1.0, 0.25, 0.99, 1.5]);
        b = b.set_column_data_page_v2_compression_ratio_threshold(path.clone(), t);
    }
    if bit(12) {
        b = b.column_delta_layout(path, decode_delta_options(r));
    }
    b
}
