//! Differential test harness shared by the integration tests.
//!
//! Every check writes the same batches with `parquet::arrow::ArrowWriter` (the
//! oracle) and with `parquet_flba::ArrowWriter`, asserts the files are
//! byte-identical (and that the writers' size estimates agree after every
//! batch), then reads the file back and compares it with the input.
//!
//! Random data comes from [`Gen`], seeded from `PARQUET_FLBA_SEED` (or a fixed
//! default) mixed with the test-case name, so a failure can be replayed.
//!
//! The writers of both sides, the read-back and the file descriptions of
//! failure messages are the fuzz harness's (`fuzz/src/`), mounted here with
//! `#[path]`: one copy for the tests and the fuzz targets.

#![allow(dead_code)]

// The fuzz harness's modules that the tests share (they use each other as
// siblings, so they are mounted side by side, under their own names).
#[path = "../../fuzz/src/catch.rs"]
pub mod catch;
#[path = "../../fuzz/src/describe.rs"]
pub mod describe;
#[path = "../../fuzz/src/planned.rs"]
pub mod planned;
pub mod primitives;
#[path = "../../fuzz/src/readback.rs"]
pub mod readback;
#[path = "../../fuzz/src/release.rs"]
pub mod release;
#[path = "../../fuzz/src/writers.rs"]
pub mod writers;
#[allow(unused_imports)]
pub use primitives::{
    F32_SPECIALS, F64_SPECIALS, byte_stream_split_for, date64_as_stored_days, delta_for,
    float_types, integer_layout, integer_types,
};
// Not every test crate uses every re-export.
#[allow(unused_imports)]
pub use catch::{is_known_upstream_panic, panic_message};
#[allow(unused_imports)]
pub use describe::{compare_files, contains_number, describe_file, line_diff};
#[allow(unused_imports)]
pub use readback::materialize;
#[allow(unused_imports)]
pub use release::{PageStores, Props59, Props60, WithPageStores};
#[allow(unused_imports)]
pub use writers::{Opts, PageStoreChoice, Step, Written, check_ran_as_planned};

use std::cmp::Ordering;
use std::sync::Arc;

use arrow_array::types::{
    ArrowDictionaryKeyType, Float16Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type,
    UInt16Type, UInt32Type,
};
use arrow_array::{
    ArrayRef, Decimal128Array, Decimal256Array, DictionaryArray, IntervalDayTimeArray,
    IntervalYearMonthArray, ListArray, PrimitiveArray, RecordBatch, StructArray,
};
use arrow_buffer::{Buffer, IntervalDayTime, NullBuffer, OffsetBuffer, ScalarBuffer, i256};
use arrow_schema::{DataType, Field, IntervalUnit, Schema, SchemaRef};
use parquet::arrow::ArrowSchemaConverter;
#[cfg(not(feature = "parquet-58"))]
use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::basic::Compression;
use parquet::column::writer::ColumnCloseResult;
use parquet::file::properties::{
    CdcOptions, EnabledStatistics, WriterProperties, WriterPropertiesBuilder, WriterVersion,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod byte_arrays;
#[allow(unused_imports)] // not every test crate uses them
pub use byte_arrays::{byte_types, is_byte_type};

// ---------------------------------------------------------------------------
// Seeds
// ---------------------------------------------------------------------------

/// Default seed when `PARQUET_FLBA_SEED` is not set.
pub const DEFAULT_SEED: u64 = 0x5EED_F1BA_2024_0601;

/// The run's base seed: `PARQUET_FLBA_SEED` (decimal or `0x` hex) or [`DEFAULT_SEED`].
pub fn base_seed() -> u64 {
    match std::env::var("PARQUET_FLBA_SEED") {
        Ok(s) => {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("PARQUET_FLBA_SEED={s:?} is not a u64"))
        }
        Err(_) => DEFAULT_SEED,
    }
}

/// FNV-1a, used to derive a per-case seed from the case name.
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A line naming the seed, appended to every failure message.
pub fn seed_note() -> String {
    format!(
        "seed = {:#x} (set PARQUET_FLBA_SEED to replay or vary)",
        base_seed()
    )
}

// ---------------------------------------------------------------------------
// Random data
// ---------------------------------------------------------------------------

/// How nulls are laid out in a generated array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Nulls {
    /// No null buffer at all (`nulls() == None`).
    Absent,
    /// A null buffer with zero nulls (`Some(NullBuffer)` all valid).
    AllValid,
    /// Each slot is null with this probability (0.0 gives an all-valid buffer,
    /// 1.0 an all-null one).
    Density(f64),
    /// Alternating runs of nulls and values with lengths in `1..=2*mean`.
    Runs(usize),
}

/// Value ordering of a generated array (before nulls are applied).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Order {
    /// Random order.
    #[default]
    Random,
    /// Sorted ascending in the Parquet sort order of the type.
    Asc,
    /// Sorted descending.
    Desc,
}

/// What to generate for one column.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Null layout (ignored, i.e. treated as [`Nulls::Absent`], for non-nullable fields).
    pub nulls: Nulls,
    /// Draw values from a pool of this many values (low cardinality).
    pub distinct: Option<usize>,
    /// Value order.
    pub order: Order,
}

impl Spec {
    /// A spec with the given null layout, high cardinality, random order.
    pub fn new(nulls: Nulls) -> Self {
        Self {
            nulls,
            distinct: None,
            order: Order::Random,
        }
    }

    /// Draw values from a pool of `k` values.
    pub fn distinct(mut self, k: usize) -> Self {
        self.distinct = Some(k);
        self
    }

    /// Sort the values.
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }
}

impl Default for Spec {
    fn default() -> Self {
        Spec::new(Nulls::Density(0.2))
    }
}

/// Interesting Float16 bit patterns: NaNs of both signs and several payloads,
/// +-0, +-inf, subnormals, extremes.
pub const F16_SPECIALS: &[u16] = &[
    0x7E00, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF, 0x7D55, 0xFEAA, // NaNs
    0x0000, 0x8000, // +-0
    0x7C00, 0xFC00, // +-inf
    0x0001, 0x8001, 0x03FF, 0x83FF, 0x0200, // subnormals
    0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x0400, 0x8400, // max/min, +-1, smallest normals
];

/// Seeded random data generator.
pub struct Gen {
    /// The generator's RNG, public for ad-hoc draws in tests.
    pub rng: StdRng,
}

/// `10^p` as i128 (p <= 38).
pub fn pow10_i128(p: u8) -> i128 {
    (0..p).fold(1i128, |acc, _| acc * 10)
}

/// `10^p` as i256 (p <= 76).
pub fn pow10_i256(p: u8) -> i256 {
    if p <= 38 {
        i256::from_i128(pow10_i128(p))
    } else {
        i256::from_i128(pow10_i128(p - 38)).wrapping_mul(i256::from_i128(pow10_i128(38)))
    }
}

fn f16_total_order_key(bits: u16) -> u16 {
    if bits & 0x8000 != 0 {
        !bits
    } else {
        bits | 0x8000
    }
}

impl Gen {
    /// A generator whose seed mixes the run's base seed with `name`, so every
    /// test case draws an independent but reproducible stream.
    pub fn new(name: &str) -> Self {
        Self::from_seed(base_seed() ^ fnv1a(name))
    }

    /// A generator with an explicit seed.
    pub fn from_seed(seed: u64) -> Self {
        Self {
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        self.rng.random_range(lo..=hi)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p.clamp(0.0, 1.0))
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.random_range(0..items.len())]
    }

    /// A null buffer of `len` slots following `nulls`.
    pub fn null_buffer(&mut self, len: usize, nulls: Nulls) -> Option<NullBuffer> {
        match nulls {
            Nulls::Absent => None,
            Nulls::AllValid => Some(NullBuffer::new_valid(len)),
            Nulls::Density(d) => {
                let valid: Vec<bool> = (0..len).map(|_| !self.chance(d)).collect();
                Some(NullBuffer::from(valid))
            }
            Nulls::Runs(mean) => {
                let mut valid = Vec::with_capacity(len);
                let mut state = self.chance(0.5);
                while valid.len() < len {
                    let run = self.range(1, 2 * mean.max(1)).min(len - valid.len());
                    valid.extend(std::iter::repeat_n(state, run));
                    state = !state;
                }
                Some(NullBuffer::from(valid))
            }
        }
    }

    /// `n` values from `one`, honouring the pool size and order of `spec`.
    fn values<T: Clone>(
        &mut self,
        n: usize,
        spec: &Spec,
        mut one: impl FnMut(&mut StdRng, Option<&T>) -> T,
        cmp: impl Fn(&T, &T) -> Ordering,
    ) -> Vec<T> {
        let mut out: Vec<T> = match spec.distinct {
            Some(k) => {
                let k = k.max(1);
                let mut pool: Vec<T> = Vec::with_capacity(k);
                for _ in 0..k {
                    let v = one(&mut self.rng, pool.last());
                    pool.push(v);
                }
                (0..n)
                    .map(|_| pool[self.rng.random_range(0..k)].clone())
                    .collect()
            }
            None => {
                let mut out: Vec<T> = Vec::with_capacity(n);
                for _ in 0..n {
                    let v = one(&mut self.rng, out.last());
                    out.push(v);
                }
                out
            }
        };
        match spec.order {
            Order::Random => {}
            Order::Asc => out.sort_by(&cmp),
            Order::Desc => out.sort_by(|a, b| cmp(b, a)),
        }
        out
    }

    /// One random FixedSizeBinary value: sometimes all 0xFF / all 0x00, often
    /// sharing a prefix with the previous value (exercises DELTA_BYTE_ARRAY).
    fn fsb_value(rng: &mut StdRng, width: usize, prev: Option<&Vec<u8>>) -> Vec<u8> {
        let r: f64 = rng.random();
        if r < 0.04 {
            return vec![0xFF; width];
        }
        if r < 0.08 {
            return vec![0x00; width];
        }
        if let Some(prev) = prev.filter(|_| r < 0.4) {
            let mut v = prev.clone();
            let from = rng.random_range(0..width);
            rng.fill(&mut v[from..]);
            return v;
        }
        let mut v = vec![0u8; width];
        rng.fill(&mut v[..]);
        v
    }

    /// A random decimal with at most `p` digits (|v| < 10^p), including the
    /// extremes +-(10^p-1), 0, -1, 1.
    fn decimal128_value(rng: &mut StdRng, p: u8) -> i128 {
        if rng.random_bool(0.1) {
            let max = pow10_i128(p) - 1;
            return [max, -max, 0, -1, 1][rng.random_range(0..5)];
        }
        let digits = rng.random_range(1..=p);
        let v = rng.random_range(0..pow10_i128(digits));
        if rng.random_bool(0.5) { -v } else { v }
    }

    /// Like [`Self::decimal128_value`] for Decimal256.
    fn decimal256_value(rng: &mut StdRng, p: u8) -> i256 {
        if rng.random_bool(0.1) {
            let max = pow10_i256(p).wrapping_sub(i256::ONE);
            return [
                max,
                max.wrapping_neg(),
                i256::ZERO,
                i256::MINUS_ONE,
                i256::ONE,
            ][rng.random_range(0..5)];
        }
        let digits = rng.random_range(1..=p);
        // Up to 38 digits in an i128, the rest in a second one: v = hi * 10^38 + lo.
        let v = if digits <= 38 {
            i256::from_i128(rng.random_range(0..pow10_i128(digits)))
        } else {
            let hi = i256::from_i128(rng.random_range(0..pow10_i128(digits - 38)));
            let lo = i256::from_i128(rng.random_range(0..pow10_i128(38)));
            hi.wrapping_mul(pow10_i256(38)).wrapping_add(lo)
        };
        if rng.random_bool(0.5) {
            v.wrapping_neg()
        } else {
            v
        }
    }

    fn f16_value(rng: &mut StdRng) -> u16 {
        if rng.random_bool(0.25) {
            F16_SPECIALS[rng.random_range(0..F16_SPECIALS.len())]
        } else {
            rng.random()
        }
    }

    fn i32_value(rng: &mut StdRng) -> i32 {
        if rng.random_bool(0.05) {
            [i32::MIN, i32::MAX, 0, -1][rng.random_range(0..4)]
        } else {
            rng.random_range(-100_000..100_000)
        }
    }

    /// A random array of `dt` with `len` slots.
    ///
    /// Supported: FixedSizeBinary, Decimal128/256, Float16, Interval
    /// (YearMonth, DayTime), Int32, Int64, Utf8, List, Struct and Dictionary
    /// (key types Int8/16/32/64, UInt8/16/32).
    pub fn array(&mut self, dt: &DataType, len: usize, spec: &Spec) -> ArrayRef {
        let nulls = self.null_buffer(len, spec.nulls);
        self.array_with_nulls(dt, len, spec, nulls)
    }

    /// Like [`Self::array`] but with an explicit null buffer.
    pub fn array_with_nulls(
        &mut self,
        dt: &DataType,
        len: usize,
        spec: &Spec,
        nulls: Option<NullBuffer>,
    ) -> ArrayRef {
        match dt {
            DataType::FixedSizeBinary(w) => {
                let w = *w as usize;
                let vals = self.values(
                    len,
                    spec,
                    |rng, prev| Self::fsb_value(rng, w, prev),
                    |a, b| a.cmp(b),
                );
                let flat: Vec<u8> = vals.concat();
                Arc::new(
                    release::fixed_size_binary(w as i32, Buffer::from_vec(flat), nulls, len)
                        .unwrap(),
                )
            }
            DataType::Decimal32(p, s) => {
                let vals = self.values(
                    len,
                    spec,
                    |rng, _| Self::decimal128_value(rng, *p) as i32,
                    |a, b| a.cmp(b),
                );
                Arc::new(
                    arrow_array::Decimal32Array::new(ScalarBuffer::from(vals), nulls)
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                )
            }
            DataType::Decimal64(p, s) => {
                let vals = self.values(
                    len,
                    spec,
                    |rng, _| Self::decimal128_value(rng, *p) as i64,
                    |a, b| a.cmp(b),
                );
                Arc::new(
                    arrow_array::Decimal64Array::new(ScalarBuffer::from(vals), nulls)
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                )
            }
            DataType::Decimal128(p, s) => {
                let vals = self.values(
                    len,
                    spec,
                    |rng, _| Self::decimal128_value(rng, *p),
                    |a, b| a.cmp(b),
                );
                Arc::new(
                    Decimal128Array::new(ScalarBuffer::from(vals), nulls)
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                )
            }
            DataType::Decimal256(p, s) => {
                let vals = self.values(
                    len,
                    spec,
                    |rng, _| Self::decimal256_value(rng, *p),
                    |a, b| a.cmp(b),
                );
                Arc::new(
                    Decimal256Array::new(ScalarBuffer::from(vals), nulls)
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                )
            }
            DataType::Float16 => {
                let bits = self.values(
                    len,
                    spec,
                    |rng, _| Self::f16_value(rng),
                    |a, b| f16_total_order_key(*a).cmp(&f16_total_order_key(*b)),
                );
                float16_from_bits(bits, nulls)
            }
            DataType::Interval(IntervalUnit::YearMonth) => {
                let vals = self.values(len, spec, |rng, _| Self::i32_value(rng), |a, b| a.cmp(b));
                Arc::new(IntervalYearMonthArray::new(ScalarBuffer::from(vals), nulls))
            }
            DataType::Interval(IntervalUnit::DayTime) => {
                let vals = self.values(
                    len,
                    spec,
                    |rng, _| IntervalDayTime::new(Self::i32_value(rng), Self::i32_value(rng)),
                    |a, b| (a.days, a.milliseconds).cmp(&(b.days, b.milliseconds)),
                );
                Arc::new(IntervalDayTimeArray::new(ScalarBuffer::from(vals), nulls))
            }
            dt if integer_layout(dt).is_some() => self.integer_array(dt, len, spec, nulls),
            DataType::Float32 | DataType::Float64 => self.float_array(dt, len, spec, nulls),
            DataType::Boolean => self.boolean_array(len, spec, nulls),
            DataType::Null => Arc::new(arrow_array::NullArray::new(len)),
            dt if byte_arrays::is_byte_type(dt) => {
                byte_arrays::byte_array(self, dt, len, spec, nulls)
            }
            DataType::List(field) => {
                let lens: Vec<usize> = (0..len).map(|_| self.range(0, 4)).collect();
                let total: usize = lens.iter().sum();
                let child = self.child(field, total, spec);
                Arc::new(ListArray::new(
                    field.clone(),
                    OffsetBuffer::from_lengths(lens),
                    child,
                    nulls,
                ))
            }
            DataType::Struct(fields) => {
                let children = fields.iter().map(|f| self.child(f, len, spec)).collect();
                Arc::new(StructArray::new(fields.clone(), children, nulls))
            }
            DataType::Dictionary(key, value) => {
                let key_max = match key.as_ref() {
                    DataType::Int8 => i8::MAX as usize,
                    DataType::UInt8 => u8::MAX as usize,
                    DataType::Int16 => i16::MAX as usize,
                    _ => usize::MAX,
                };
                let k = spec.distinct.unwrap_or(16).clamp(1, key_max);
                let values = self.array(value, k, &Spec::new(Nulls::Absent));
                let keys: Vec<i64> = (0..len)
                    .map(|_| self.rng.random_range(0..k as i64))
                    .collect();
                match key.as_ref() {
                    DataType::Int8 => dictionary::<Int8Type>(&keys, nulls, values),
                    DataType::Int16 => dictionary::<Int16Type>(&keys, nulls, values),
                    DataType::Int32 => dictionary::<Int32Type>(&keys, nulls, values),
                    DataType::Int64 => dictionary::<Int64Type>(&keys, nulls, values),
                    DataType::UInt8 => dictionary::<UInt8Type>(&keys, nulls, values),
                    DataType::UInt16 => dictionary::<UInt16Type>(&keys, nulls, values),
                    DataType::UInt32 => dictionary::<UInt32Type>(&keys, nulls, values),
                    other => panic!("unsupported dictionary key type {other}"),
                }
            }
            other => panic!("Gen::array: unsupported type {other}"),
        }
    }

    /// A child array for a nested field: light nulls if nullable, none otherwise.
    fn child(&mut self, field: &Field, len: usize, parent: &Spec) -> ArrayRef {
        let nulls = if field.is_nullable() {
            Nulls::Density(0.2)
        } else {
            Nulls::Absent
        };
        let spec = Spec {
            nulls,
            distinct: parent.distinct,
            order: Order::Random,
        };
        self.array(field.data_type(), len, &spec)
    }

    /// A batch for `schema` with `len` rows; nullable fields follow `spec.nulls`,
    /// non-nullable ones get no null buffer.
    pub fn batch(&mut self, schema: &SchemaRef, len: usize, spec: &Spec) -> RecordBatch {
        let specs: Vec<Spec> = schema.fields().iter().map(|_| *spec).collect();
        self.batch_with(schema, len, &specs)
    }

    /// Like [`Self::batch`] with one spec per field.
    pub fn batch_with(&mut self, schema: &SchemaRef, len: usize, specs: &[Spec]) -> RecordBatch {
        let columns = schema
            .fields()
            .iter()
            .zip(specs)
            .map(|(f, spec)| {
                let mut spec = *spec;
                if !f.is_nullable() {
                    spec.nulls = Nulls::Absent;
                }
                self.array(f.data_type(), len, &spec)
            })
            .collect();
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    }

    /// Batches of the given sizes.
    pub fn batches(
        &mut self,
        schema: &SchemaRef,
        sizes: &[usize],
        spec: &Spec,
    ) -> Vec<RecordBatch> {
        sizes.iter().map(|&n| self.batch(schema, n, spec)).collect()
    }
}

fn dictionary<K: ArrowDictionaryKeyType>(
    keys: &[i64],
    nulls: Option<NullBuffer>,
    values: ArrayRef,
) -> ArrayRef
where
    K::Native: TryFrom<i64>,
    <K::Native as TryFrom<i64>>::Error: std::fmt::Debug,
{
    let keys: Vec<K::Native> = keys
        .iter()
        .map(|&k| K::Native::try_from(k).unwrap())
        .collect();
    let keys = PrimitiveArray::<K>::new(ScalarBuffer::from(keys), nulls);
    Arc::new(DictionaryArray::<K>::try_new(keys, values).unwrap())
}

/// A FixedSizeBinary array from explicit (optional) values.
pub fn fsb_from(width: i32, vals: Vec<Option<Vec<u8>>>) -> ArrayRef {
    let len = vals.len();
    let nulls = NullBuffer::from(vals.iter().map(Option::is_some).collect::<Vec<_>>());
    let mut flat = Vec::with_capacity(len * width as usize);
    for v in &vals {
        match v {
            Some(v) => {
                assert_eq!(v.len(), width as usize);
                flat.extend_from_slice(v);
            }
            None => flat.extend(std::iter::repeat_n(0u8, width as usize)),
        }
    }
    Arc::new(release::fixed_size_binary(width, Buffer::from_vec(flat), Some(nulls), len).unwrap())
}

/// A Float16 array from raw IEEE half bit patterns.
pub fn float16_from_bits(bits: Vec<u16>, nulls: Option<NullBuffer>) -> ArrayRef {
    let len = bits.len();
    let values = ScalarBuffer::new(Buffer::from_vec(bits), 0, len);
    Arc::new(PrimitiveArray::<Float16Type>::new(values, nulls))
}

// ---------------------------------------------------------------------------
// Types and schemas
// ---------------------------------------------------------------------------

/// A single-field schema.
/// Whether the resolved parquet release follows 60.2's rules
/// (docs/releases.md D27-D32).
pub fn at_60_2() -> bool {
    let mut parts = parquet_flba::PARQUET_RELEASE.split('.');
    let mut next = || {
        parts
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    };
    (next(), next()) >= (60, 2)
}

pub fn schema1(name: &str, dt: DataType, nullable: bool) -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(name, dt, nullable)]))
}

/// A schema from `(name, type, nullable)` triples.
pub fn schema_of(fields: &[(&str, DataType, bool)]) -> SchemaRef {
    Arc::new(Schema::new(
        fields
            .iter()
            .map(|(n, dt, nullable)| Field::new(*n, dt.clone(), *nullable))
            .collect::<Vec<_>>(),
    ))
}

/// `List<Int32>` with nullable items.
pub fn list_i32() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Int32, true)))
}

/// The Decimal128 precisions that map to FIXED_LEN_BYTE_ARRAY.
pub fn decimal128_types() -> Vec<DataType> {
    (19..=38u8)
        .flat_map(|p| {
            scales(p)
                .into_iter()
                .map(move |s| DataType::Decimal128(p, s))
        })
        .collect()
}

/// Decimals stored as INT32 (precision ≤ 9) and INT64 (≤ 18), of every
/// Arrow decimal type, at the precisions where the storage changes.
///
/// Under parquet 59 precision 1 is INT64 and `Decimal32(1, _)` cannot be
/// written at all (docs/releases.md D14; `tests/release.rs` pins it), so
/// that type is left out there.
pub fn decimal_int_types() -> Vec<DataType> {
    let mut out = Vec::new();
    let d32_from = if release::PARQUET_60 { 1 } else { 4 };
    for p in [1u8, 4, 9].into_iter().filter(|&p| p >= d32_from) {
        out.extend(scales(p).into_iter().map(|s| DataType::Decimal32(p, s)));
    }
    for p in [1u8, 9, 10, 18] {
        out.extend(scales(p).into_iter().map(|s| DataType::Decimal64(p, s)));
        out.extend(scales(p).into_iter().map(|s| DataType::Decimal256(p, s)));
    }
    for p in [1u8, 4, 9, 10, 17, 18] {
        out.extend(scales(p).into_iter().map(|s| DataType::Decimal128(p, s)));
    }
    out
}

/// The Decimal256 precisions that map to FIXED_LEN_BYTE_ARRAY (39..=76).
pub fn decimal256_types() -> Vec<DataType> {
    (39..=76u8)
        .flat_map(|p| {
            scales(p)
                .into_iter()
                .map(move |s| DataType::Decimal256(p, s))
        })
        .collect()
}

fn scales(p: u8) -> Vec<i8> {
    let mut s = vec![0, (p / 2) as i8, p as i8];
    s.dedup();
    s
}

/// FixedSizeBinary widths 1..=64 and 1000.
pub fn fsb_types() -> Vec<DataType> {
    (1..=64)
        .chain([1000])
        .map(DataType::FixedSizeBinary)
        .collect()
}

/// One representative of every FLBA kind, and integers of each storage
/// (widened, reinterpreted, as they are, `Date64` either way).
pub fn representative_types() -> Vec<DataType> {
    vec![
        DataType::FixedSizeBinary(1),
        DataType::FixedSizeBinary(16),
        DataType::FixedSizeBinary(100),
        DataType::Decimal128(19, 0),
        DataType::Decimal128(38, 10),
        DataType::Decimal256(39, 3),
        DataType::Decimal256(76, 76),
        DataType::Float16,
        DataType::Interval(IntervalUnit::YearMonth),
        DataType::Interval(IntervalUnit::DayTime),
        DataType::Int8,
        DataType::UInt32,
        DataType::Int64,
        DataType::Date64,
        DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, Some("UTC".into())),
        DataType::Float32,
        DataType::Float64,
        DataType::Boolean,
    ]
}

/// A short identifier for a type, for case names.
pub fn type_name(dt: &DataType) -> String {
    match dt {
        DataType::FixedSizeBinary(w) => format!("fsb{w}"),
        DataType::Decimal32(p, s) => format!("dec32_{p}_{s}"),
        DataType::Decimal64(p, s) => format!("dec64_{p}_{s}"),
        DataType::Decimal128(p, s) => format!("dec128_{p}_{s}"),
        DataType::Decimal256(p, s) => format!("dec256_{p}_{s}"),
        DataType::Float16 => "f16".into(),
        DataType::Interval(IntervalUnit::YearMonth) => "interval_ym".into(),
        DataType::Interval(IntervalUnit::DayTime) => "interval_dt".into(),
        other => format!("{other}"),
    }
}

// ---------------------------------------------------------------------------
// Writer configurations
// ---------------------------------------------------------------------------

/// Small CDC chunks so that chunk boundaries actually occur in small test batches.
pub fn small_cdc() -> CdcOptions {
    CdcOptions {
        min_chunk_size: 256,
        max_chunk_size: 2048,
        norm_level: 0,
    }
}

/// The standard configurations, named as in `parquet`'s own writer bench
/// (and this crate's, `benches/workloads/mod.rs`): `default` (parquet's
/// defaults: PARQUET_1_0 pages, dictionary, page statistics, uncompressed),
/// `bloom_filter` (bloom filters on every column), `parquet_2` (V2 data
/// pages), `zstd`, `zstd_parquet_2`, `cdc` (content-defined chunking with
/// parquet's default chunk sizes), plus `cdc_small` (CDC with small chunks,
/// so that boundaries occur in test-sized batches).
pub fn configs() -> Vec<(&'static str, WriterPropertiesBuilder)> {
    vec![
        ("default", config("default")),
        ("bloom_filter", config("bloom_filter")),
        ("parquet_2", config("parquet_2")),
        ("zstd", config("zstd")),
        ("zstd_parquet_2", config("zstd_parquet_2")),
        ("cdc", config("cdc")),
        ("cdc_small", config("cdc_small")),
    ]
}

/// One named configuration.
pub fn config(name: &str) -> WriterPropertiesBuilder {
    let b = WriterProperties::builder();
    match name {
        "default" => b,
        "bloom_filter" => b.set_bloom_filter_enabled(true),
        "parquet_2" => b.set_writer_version(WriterVersion::PARQUET_2_0),
        "zstd" => b.set_compression(Compression::ZSTD(Default::default())),
        "zstd_parquet_2" => b
            .set_compression(Compression::ZSTD(Default::default()))
            .set_writer_version(WriterVersion::PARQUET_2_0),
        "cdc" => b.set_content_defined_chunking(Some(CdcOptions::default())),
        "cdc_small" => b.set_content_defined_chunking(Some(small_cdc())),
        other => panic!("unknown config {other}"),
    }
}

/// Small pages and batches, so that a few hundred rows span many pages.
pub fn small_pages(b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
    b.set_data_page_size_limit(512)
        .set_data_page_row_count_limit(50)
        .set_write_batch_size(16)
}

/// Statistics-level name for case labels.
pub fn stats_name(s: EnabledStatistics) -> &'static str {
    match s {
        EnabledStatistics::None => "none",
        EnabledStatistics::Chunk => "chunk",
        EnabledStatistics::Page => "page",
    }
}

// ---------------------------------------------------------------------------
// Writer options, mirrored for both implementations
// ---------------------------------------------------------------------------

/// Everything an `ArrowWriterOptions` can carry. It is turned into
/// Per-column-writer state recorded by the parallel (column-level) flow.
#[derive(Clone, Debug, PartialEq)]
pub struct ColStep {
    /// `get_estimated_total_bytes()` after the write.
    pub estimated_total_bytes: usize,
    /// whether `memory_size() > 0` after the write.
    pub memory_nonzero: bool,
}

/// Result of the column-level (parallel) flow.
#[derive(Debug)]
pub struct ParallelWritten {
    /// The file.
    pub bytes: Vec<u8>,
    /// Per row group, per leaf column, the steps after each write.
    pub col_steps: Vec<Vec<Vec<ColStep>>>,
    /// Per row group, per leaf column, a layout-independent summary of `close()`.
    pub closes: Vec<Vec<String>>,
}

/// A layout-independent summary of a `ColumnCloseResult`: row and value
/// counts, sizes, encodings, statistics, column index, bloom presence.
pub fn summarize_close(c: &ColumnCloseResult) -> String {
    let m = &c.metadata;
    format!(
        "rows={} num_values={} compressed={} uncompressed={} encodings={:?} enc_stats={:?} \
         compression={:?} stats={:?} column_index={:?} bloom={} offset_index_pages={:?}",
        c.rows_written,
        m.num_values(),
        m.compressed_size(),
        m.uncompressed_size(),
        m.encodings().collect::<Vec<_>>(),
        m.page_encoding_stats(),
        m.compression(),
        m.statistics(),
        c.column_index,
        c.bloom_filter.is_some(),
        c.offset_index.as_ref().map(|o| o
            .page_locations
            .iter()
            .map(|p| p.compressed_page_size)
            .collect::<Vec<_>>()),
    )
}

/// Whether a writer's leaves were encoded by the writers its plan names
/// (read from what ran: the chunks each leaf put into the file).
pub trait RanAsPlanned {
    /// `Err` naming the first leaf whose chunks came from another writer
    /// than its plan says, for a file of `row_groups` row groups.
    fn ran_as_planned(&self, row_groups: usize) -> Result<(), String>;
}

impl<W: std::io::Write + Send> RanAsPlanned for parquet::arrow::ArrowWriter<W> {
    fn ran_as_planned(&self, _: usize) -> Result<(), String> {
        Ok(())
    }
}

impl<W: std::io::Write + Send> RanAsPlanned for parquet_flba::ArrowWriter<W> {
    fn ran_as_planned(&self, row_groups: usize) -> Result<(), String> {
        check_ran_as_planned(self.column_plan(), &self.leaf_chunks(), row_groups)
    }
}

macro_rules! writer_impl {
    ($modname:ident, $($path:ident)::+) => {
        /// Writes through one implementation (the module's name says which).
        pub mod $modname {
            use super::*;
            use $($path)::+ as w;

            #[allow(unused_imports)] // not every test crate uses them
            pub use super::writers::$modname::{options, writer};

            /// Write `batches` with `ArrowWriter` (the fuzz harness's
            /// writer, no flushes), recording the state after each write;
            /// for parquet_flba, what ran is checked against the plan.
            pub fn write(
                schema: &SchemaRef,
                batches: &[RecordBatch],
                o: &Opts,
            ) -> Result<Written, String> {
                let api = super::writers::Api::ArrowWriter {
                    flush_after: Vec::new(),
                };
                super::writers::$modname::write(schema, batches, o, &api).map_err(|f| f.to_string())
            }

            /// The column-level flow of a parallel writer: one thread per leaf
            /// column per row group, `compute_leaves` + `ArrowColumnWriter::write`,
            /// `close`, `append_to_row_group`.
            ///
            /// With `via_into_serialized`, the file writer and factory come from
            /// `ArrowWriter::into_serialized_writer` (so the arrow schema is
            /// embedded); otherwise from `SerializedFileWriter::new` +
            /// `ArrowRowGroupWriterFactory::new` (no arrow schema in the footer).
            pub fn write_parallel(
                schema: &SchemaRef,
                row_groups: &[Vec<RecordBatch>],
                props: WriterProperties,
                via_into_serialized: bool,
            ) -> Result<ParallelWritten, String> {
                write_parallel_with(schema, &[], row_groups, props, via_into_serialized, &|_| {})
            }

            /// [`write_parallel`] where, with `via_into_serialized`, `prelude`
            /// is first written through `ArrowWriter` (and flushed by
            /// `into_serialized_writer`), and `tweak` is applied to every
            /// chunk's `close_mut()` before it is appended.
            pub fn write_parallel_with(
                schema: &SchemaRef,
                prelude: &[RecordBatch],
                row_groups: &[Vec<RecordBatch>],
                props: WriterProperties,
                via_into_serialized: bool,
                tweak: &(dyn Fn(&mut ColumnCloseResult) + Sync),
            ) -> Result<ParallelWritten, String> {
                use parquet::file::writer::SerializedFileWriter;
                assert!(via_into_serialized || prelude.is_empty());
                let plan_props = props.clone();
                let (mut file_writer, factory) = if via_into_serialized {
                    let mut wr = w::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))
                        .map_err(err("try_new"))?;
                    for b in prelude {
                        wr.write(b).map_err(err("prelude write"))?;
                    }
                    wr.into_serialized_writer().map_err(err("into_serialized_writer"))?
                } else {
                    let parquet_schema = ArrowSchemaConverter::new()
                        .with_coerce_types(props.coerce_types())
                        .convert(schema)
                        .map_err(err("convert"))?;
                    let fw = SerializedFileWriter::new(
                        Vec::new(),
                        parquet_schema.root_schema_ptr(),
                        Arc::new(props),
                    )
                    .map_err(err("SerializedFileWriter::new"))?;
                    // parquet 60.2 deprecates `new` for `try_new`, which 60.1 and earlier lack.
                    #[allow(deprecated)]
                    let factory = w::ArrowRowGroupWriterFactory::new(&fw, schema.clone());
                    (fw, factory)
                };
                // What this crate writes is planned fast (parquet's factory
                // has no plan), and each chunk comes from the planned writer.
                use super::planned::{ColumnsPlanned, check_chunk};
                factory
                    .check_plan_fast(&plan_props, false)
                    .map_err(|e| format!("plan: {e}"))?;
                let mut col_steps = Vec::new();
                let mut closes = Vec::new();
                let first_rg = file_writer.flushed_row_groups().len();
                for (rg, batches) in row_groups.iter().enumerate() {
                    let writers = factory
                        .create_column_writers(first_rg + rg)
                        .map_err(err("create_column_writers"))?;
                    let mut leaves: Vec<Vec<w::ArrowLeafColumn>> =
                        writers.iter().map(|_| Vec::new()).collect();
                    for b in batches {
                        let mut idx = 0;
                        for (field, col) in schema.fields().iter().zip(b.columns()) {
                            let col_leaves =
                                w::compute_leaves(field, col).map_err(err("compute_leaves"))?;
                            for leaf in col_leaves {
                                leaves[idx].push(leaf);
                                idx += 1;
                            }
                        }
                    }
                    let results: Vec<Result<(w::ArrowColumnChunk, Vec<ColStep>), String>> =
                        std::thread::scope(|s| {
                            let handles: Vec<_> = writers
                                .into_iter()
                                .zip(leaves)
                                .map(|(mut cw, leaves)| {
                                    s.spawn(move || {
                                        let mut steps = Vec::new();
                                        for leaf in &leaves {
                                            cw.write(leaf).map_err(err("column write"))?;
                                            steps.push(ColStep {
                                                estimated_total_bytes: cw
                                                    .get_estimated_total_bytes(),
                                                memory_nonzero: cw.memory_size() > 0,
                                            });
                                        }
                                        let chunk = cw.close().map_err(err("column close"))?;
                                        Ok((chunk, steps))
                                    })
                                })
                                .collect();
                            handles
                                .into_iter()
                                .map(|h| {
                                    h.join().unwrap_or_else(|p| {
                                        Err(format!("column thread panicked: {}", panic_message(p.as_ref())))
                                    })
                                })
                                .collect()
                        });
                    let mut rg_writer =
                        file_writer.next_row_group().map_err(err("next_row_group"))?;
                    let mut rg_steps = Vec::new();
                    let mut rg_closes = Vec::new();
                    for (leaf, r) in results.into_iter().enumerate() {
                        let (mut chunk, steps) = r?;
                        check_chunk(&factory, leaf, &chunk)
                            .map_err(|e| format!("row group {rg}: {e}"))?;
                        tweak(chunk.close_mut());
                        rg_closes.push(summarize_close(chunk.close()));
                        rg_steps.push(steps);
                        chunk
                            .append_to_row_group(&mut rg_writer)
                            .map_err(err("append_to_row_group"))?;
                    }
                    rg_writer.close().map_err(err("row group close"))?;
                    col_steps.push(rg_steps);
                    closes.push(rg_closes);
                }
                file_writer.finish().map_err(err("finish"))?;
                Ok(ParallelWritten {
                    bytes: file_writer.inner().clone(),
                    col_steps,
                    closes,
                })
            }
        }
    };
}

writer_impl!(up, parquet::arrow::arrow_writer);
writer_impl!(flba, parquet_flba);

/// Prefix a `ParquetError` with what was being done.
pub fn err(ctx: &str) -> impl Fn(parquet::errors::ParquetError) -> String + use<> {
    let ctx = ctx.to_string();
    move |e| format!("{ctx}: {e}")
}

/// Run `f`, turning a panic into an `Err` naming it.
pub fn no_panic<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch::loud_catch(f).map_err(|p| format!("{what} panicked: {p}"))
}

// ---------------------------------------------------------------------------
// The core checks
// ---------------------------------------------------------------------------

/// Write with both implementations and compare; see [`check_identical_with`].
pub fn check_identical(
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    opts: &Opts,
) -> Result<(), String> {
    check_identical_with(name, schema, batches, opts, opts)
}

/// Write `batches` with upstream (`up_opts`) and parquet_flba (`flba_opts`) and
/// compare: byte identity, per-write estimates, `close()` metadata, read-back.
pub fn check_identical_with(
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    up_opts: &Opts,
    flba_opts: &Opts,
) -> Result<(), String> {
    let fail = |msg: String| Err(format!("case `{name}`: {msg}\n{}", seed_note()));
    let up = match no_panic("upstream writer", || up::write(schema, batches, up_opts)) {
        Ok(Ok(w)) => w,
        // Where parquet panics on valid input (`KNOWN_UPSTREAM_PANICS`),
        // this crate returns an error instead.
        Err(p) if is_known_upstream_panic(&p) => {
            return match no_panic("parquet_flba writer", || {
                flba::write(schema, batches, flba_opts)
            }) {
                Ok(Err(_)) => Ok(()),
                Ok(Ok(_)) => fail(format!(
                    "parquet_flba wrote a file where parquet panicked: {p}"
                )),
                Err(ours) => fail(format!("parquet_flba panicked too: {ours}")),
            };
        }
        // parquet 59 cannot write some of the cases written for 60 (nested
        // dictionaries, run-end-encoded arrays for plain fields, dictionary
        // encodings of FixedSizeBinary, ...): there, this crate must fail
        // too, with an error rather than a panic.
        Ok(Err(e)) | Err(e) if !release::PARQUET_60 => {
            return match no_panic("parquet_flba writer", || {
                flba::write(schema, batches, flba_opts)
            }) {
                Ok(Err(_)) => Ok(()),
                Ok(Ok(_)) => fail(format!(
                    "parquet_flba wrote a file where parquet 59 failed: {e}"
                )),
                Err(p) => fail(format!(
                    "parquet_flba panicked where parquet 59 failed ({e}): {p}"
                )),
            };
        }
        Ok(Err(e)) | Err(e) => {
            return fail(format!(
                "upstream writer failed (the test case is invalid): {e}"
            ));
        }
    };
    let fl = match no_panic("parquet_flba writer", || {
        flba::write(schema, batches, flba_opts)
    }) {
        Ok(Ok(w)) => w,
        Ok(Err(e)) | Err(e) => {
            return fail(format!("parquet_flba failed where upstream succeeded: {e}"));
        }
    };
    let mut problems = Vec::new();
    if let Some(diff) = compare_files(&up.bytes, &fl.bytes) {
        problems.push(diff);
    }
    if up.steps != fl.steps {
        let i = up
            .steps
            .iter()
            .zip(&fl.steps)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        problems.push(format!(
            "writer state differs after write #{i}:\n  upstream: {:?}\n  flba:     {:?}",
            up.steps.get(i),
            fl.steps.get(i)
        ));
    }
    for (i, (step, (&um, &fm))) in up
        .steps
        .iter()
        .zip(up.memory.iter().zip(&fl.memory))
        .enumerate()
    {
        if step.in_progress_rows > 0 && um > 0 && fm == 0 {
            problems.push(format!(
                "memory_size() is 0 after write #{i} with {} rows buffered (upstream: {um})",
                step.in_progress_rows
            ));
            break;
        }
    }
    if (up.num_row_groups, up.num_rows) != (fl.num_row_groups, fl.num_rows) {
        problems.push(format!(
            "close() metadata: upstream {} row groups / {} rows, flba {} / {}",
            up.num_row_groups, up.num_rows, fl.num_row_groups, fl.num_rows
        ));
    } else if up.metadata != fl.metadata && up.bytes == fl.bytes {
        problems.push(format!(
            "close() metadata differs:\n{}",
            line_diff(
                &up.metadata.split(", ").collect::<Vec<_>>(),
                &fl.metadata.split(", ").collect::<Vec<_>>(),
                20
            )
        ));
    }
    // (Skipped where the selected parquet release's own files do not read
    // back: see `release::round_trips`.)
    if !release::round_trips(schema) {
    } else if let Err(e) = check_round_trip_with(
        schema,
        batches,
        &fl.bytes,
        flba_opts.skip_arrow_metadata,
        flba_opts.props.coerce_types(),
    ) {
        problems.push(format!("round trip of parquet_flba's file: {e}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        fail(problems.join("\n"))
    }
}

/// Identical bytes cannot tell the fast path from a fallback: every leaf
/// whose type is one this crate writes is planned fast, unless the plan
/// gives one of the reasons these schemas can meet (a dictionary or
/// run-end-encoded type under parquet 59; a map mixing kinds under CDC;
/// an encrypted file): [`planned::check_plan_fast`].
pub fn assert_kinds_fast(label: &str, schema: &SchemaRef, props: &WriterProperties) {
    let writer =
        match parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone())) {
            Ok(writer) => writer,
            Err(ours) => {
                // Nothing to check only where parquet's writer cannot be made
                // either (the case then compares the two errors).
                let upstream = parquet::arrow::ArrowWriter::try_new(
                    Vec::new(),
                    schema.clone(),
                    Some(props.clone()),
                );
                assert!(
                    upstream.is_err(),
                    "case `{label}`: parquet-flba's writer fails ({ours}) where parquet's does not"
                );
                return;
            }
        };
    if let Err(e) = planned::check_plan_fast(writer.column_plan(), props, false) {
        panic!("case `{label}`: {e}");
    }
}

/// parquet's file of `batches`, after checking that parquet_flba writes the
/// same bytes and that every leaf it can write is on the fast path (except
/// where the release itself sends it to parquet: [`assert_kinds_fast`]).
pub fn both(
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
) -> bytes::Bytes {
    assert_kinds_fast(name, schema, &props);
    assert_identical(name, schema.clone(), batches, props.clone());
    let mut up =
        parquet::arrow::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).unwrap();
    for b in batches {
        up.write(b).unwrap();
    }
    bytes::Bytes::from(up.into_inner().unwrap())
}

/// The footer of `file`, with its page indexes where it has them.
pub fn metadata(file: &bytes::Bytes) -> parquet::file::metadata::ParquetMetaData {
    parquet::file::metadata::ParquetMetaDataReader::new()
        .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Optional)
        .parse_and_finish(file)
        .unwrap()
}

/// Panicking form of [`check_identical`] for the given properties.
pub fn assert_identical(
    name: &str,
    schema: SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
) {
    if let Err(e) = check_identical(name, &schema, batches, &Opts::props(props)) {
        panic!("{e}");
    }
}

/// Panicking form of [`check_identical`] for full options.
pub fn assert_identical_opts(name: &str, schema: SchemaRef, batches: &[RecordBatch], opts: Opts) {
    if let Err(e) = check_identical(name, &schema, batches, &opts) {
        panic!("{e}");
    }
}

/// Collects failures of many cases, to panic once at the end listing them all
/// (with the full report of the first).
#[derive(Default)]
pub struct Failures {
    cases: usize,
    failed: Vec<String>,
}

impl Failures {
    /// A new, empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record the outcome of one case.
    pub fn check(&mut self, r: Result<(), String>) {
        self.cases += 1;
        if let Err(e) = r {
            self.failed.push(e);
        }
    }

    /// Check one case for the given properties.
    pub fn identical(
        &mut self,
        name: &str,
        schema: &SchemaRef,
        batches: &[RecordBatch],
        props: WriterProperties,
    ) {
        self.check(check_identical(name, schema, batches, &Opts::props(props)));
    }

    /// Panic if any case failed, or if no case ran (a filter or a count
    /// that leaves nothing to check must not pass as a success).
    pub fn finish(self) {
        assert!(self.cases > 0, "no case ran: nothing was checked");
        if self.failed.is_empty() {
            return;
        }
        let names: Vec<&str> = self
            .failed
            .iter()
            .map(|e| e.lines().next().unwrap_or(""))
            .collect();
        panic!(
            "{} of {} cases failed:\n  {}\n\nfirst failure in full:\n{}",
            self.failed.len(),
            self.cases,
            names.join("\n  "),
            self.failed[0]
        );
    }
}

// ---------------------------------------------------------------------------
// Round trip
// ---------------------------------------------------------------------------

/// Read `bytes` back and compare with the concatenation of `batches`.
pub fn check_round_trip(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    bytes: &[u8],
    skip_arrow_metadata: bool,
) -> Result<(), String> {
    check_round_trip_with(schema, batches, bytes, skip_arrow_metadata, false)
}

/// `field` with every list item renamed to "element" (what `coerce_types` writes).
fn coerce_list_names(field: &Field) -> Field {
    let dt = match field.data_type() {
        DataType::List(item) => {
            DataType::List(Arc::new(coerce_list_names(item).with_name("element")))
        }
        DataType::Struct(fields) => DataType::Struct(
            fields
                .iter()
                .map(|f| coerce_list_names(f))
                .collect::<Vec<_>>()
                .into(),
        ),
        other => other.clone(),
    };
    field.clone().with_data_type(dt)
}

/// [`check_round_trip`] for a file written with `coerce_types` set as given.
pub fn check_round_trip_with(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    bytes: &[u8],
    skip_arrow_metadata: bool,
    coerce_types: bool,
) -> Result<(), String> {
    if schema.fields().is_empty() {
        return Ok(());
    }
    // The reader cannot produce dictionaries of fixed-width values (upstream
    // writes them fine), so read such columns as their value type. Nor can
    // it read a dictionary with an 8-bit key back when one of its read
    // batches spans more distinct values than the key holds (batches written
    // with different dictionaries: "dictionary key overflow"): those too.
    let hint = Arc::new(Schema::new_with_metadata(
        schema
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Dictionary(k, v)
                    if matches!(k.as_ref(), DataType::Int8 | DataType::UInt8)
                        || !matches!(
                            v.as_ref(),
                            DataType::Utf8
                                | DataType::LargeUtf8
                                | DataType::Binary
                                | DataType::LargeBinary
                        ) =>
                {
                    f.as_ref().clone().with_data_type(v.as_ref().clone())
                }
                _ => f.as_ref().clone(),
            })
            .map(|f| {
                if coerce_types {
                    coerce_list_names(&f)
                } else {
                    f
                }
            })
            .collect::<Vec<_>>(),
        schema.metadata().clone(),
    ));
    let read = if skip_arrow_metadata || hint != *schema {
        readback::read_all(bytes, Some(hint))
    } else {
        readback::read_all(bytes, None)
    }?;
    // Under `coerce_types` a `Date64` is stored as whole days.
    let coerced: Vec<RecordBatch>;
    let batches = match coerce_types {
        true => {
            coerced = batches
                .iter()
                .map(|b| {
                    let columns = b.columns().iter().map(date64_as_stored_days).collect();
                    RecordBatch::try_new(b.schema(), columns).unwrap()
                })
                .collect();
            &coerced
        }
        false => batches,
    };
    readback::compare_columns(schema, batches, &read, |_| None)
}

// ---------------------------------------------------------------------------
// A recording in-memory PageStore
// ---------------------------------------------------------------------------
// (parquet 59 and later: parquet 58 has no page stores.)

#[cfg(not(feature = "parquet-58"))]
#[allow(unused_imports)] // not every test crate uses them
pub use recording::{RecordingPageStoreFactory, VecPageStore};

#[cfg(not(feature = "parquet-58"))]
mod recording {
    use super::*;
    use bytes::Bytes;
    use parquet::errors::Result as PqResult;

    /// An in-memory [`PageStoreFactory`] that records the column index of every
    /// store it creates.
    #[derive(Debug, Default)]
    pub struct RecordingPageStoreFactory {
        /// Column indices, in creation order.
        pub created: std::sync::Mutex<Vec<usize>>,
    }

    impl RecordingPageStoreFactory {
        /// The recorded column indices.
        pub fn created(&self) -> Vec<usize> {
            self.created.lock().unwrap().clone()
        }
    }

    /// The store made by [`RecordingPageStoreFactory`].
    #[derive(Default)]
    pub struct VecPageStore {
        pages: Vec<Option<Bytes>>,
    }

    impl PageStore for VecPageStore {
        fn put(&mut self, value: Bytes) -> PqResult<PageKey> {
            self.pages.push(Some(value));
            Ok(PageKey::new(self.pages.len() as u64 - 1))
        }

        fn take(&mut self, key: PageKey) -> PqResult<Bytes> {
            self.pages
                .get_mut(key.get() as usize)
                .and_then(Option::take)
                .ok_or_else(|| parquet::errors::ParquetError::General(format!("no page {key:?}")))
        }
    }

    impl PageStoreFactory for RecordingPageStoreFactory {
        fn create(&self, args: &PageStoreArgs<'_>) -> PqResult<Box<dyn PageStore>> {
            self.created.lock().unwrap().push(args.column_index());
            Ok(Box::new(VecPageStore::default()))
        }
    }
}
