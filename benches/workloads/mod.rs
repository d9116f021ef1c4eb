//! The canonical workload generators, writer configurations and value-byte
//! accounting, shared by every measuring target of this crate:
//!
//! - `benches/write.rs` (`mod workloads;`),
//! - `examples/alloc_report.rs` (`#[path = "../benches/workloads/mod.rs"] mod workloads;`),
//! - the `parquet-flba` demo binary, `cli/src/main.rs` (its own package, `parquet-flba-cli`)
//!   (`#[path = "../../../benches/workloads/mod.rs"] mod workloads;`).
//!
//! All data is generated from fixed seeds, so a workload name and a row count
//! always give the same batch. Nothing here depends on which writer is used:
//! [`write_file`] runs either `parquet::arrow::ArrowWriter` or
//! `parquet_flba::ArrowWriter` on the same input.
//!
//! # Value bytes
//!
//! Throughput everywhere is in *value bytes*: the bytes of the non-null values
//! as Parquet stores them, without levels or length prefixes ([`value_bytes`]).
//! For FIXED_LEN_BYTE_ARRAY columns that is the FLBA width × the non-null count
//! (e.g. 16 for `Decimal128(38, _)`, 9 for `Decimal128(20, _)`, 21 for
//! `Decimal256(50, _)`, 2 for `Float16`); for other columns of a mixed table it is
//! the raw value width (4 for INT32-backed decimals, 8 for `Int64`) or the
//! string bytes (`Utf8`).

// Each including target uses a different subset of this module.
#![allow(dead_code)]

pub mod alloc_counter;
pub mod delegated;
pub mod tables;

use std::collections::HashSet;
use std::io::Write;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type, DecimalType, Float16Type,
    Int64Type,
};
use arrow_array::{
    Array, ArrayRef, Decimal32Array, Decimal64Array, Decimal128Array, Decimal256Array,
    FixedSizeBinaryArray, Float16Array, Int64Array, PrimitiveArray, RecordBatch, StringArray,
};
use arrow_buffer::{Buffer, NullBuffer, i256};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{CdcOptions, EnabledStatistics, WriterProperties, WriterVersion};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Rows per batch of every single-batch workload (as in parquet's writer bench).
pub const DEFAULT_ROWS: usize = 1 << 20;

/// Seed of every generator; 42 is also what arrow's `seedable_rng` uses.
const SEED: u64 = 42;

fn rng(stream: u64) -> StdRng {
    StdRng::seed_from_u64(SEED.wrapping_add(stream))
}

// ---------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------

/// Which `ArrowWriter` to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writer {
    /// `parquet::arrow::ArrowWriter` (parquet 60.1.0), the oracle.
    Parquet,
    /// `parquet_flba::ArrowWriter`, this crate.
    Flba,
}

impl Writer {
    /// Both writers, upstream first.
    pub const BOTH: [Writer; 2] = [Writer::Parquet, Writer::Flba];

    /// Name used in bench IDs and reports: `parquet` or `parquet-flba`.
    pub fn name(self) -> &'static str {
        match self {
            Writer::Parquet => "parquet",
            Writer::Flba => "parquet-flba",
        }
    }
}

/// Writes one Parquet file made of `batches` into `sink` with the chosen writer:
/// `try_new`, one `write` per batch, `close`.
pub fn write_file<W: Write + Send>(
    writer: Writer,
    sink: W,
    schema: SchemaRef,
    batches: &[RecordBatch],
    props: WriterProperties,
) -> parquet::errors::Result<()> {
    match writer {
        Writer::Parquet => {
            let mut w = parquet::arrow::ArrowWriter::try_new(sink, schema, Some(props))?;
            for batch in batches {
                w.write(batch)?;
            }
            w.close()?;
        }
        Writer::Flba => {
            let mut w = parquet_flba::ArrowWriter::try_new(sink, schema, Some(props))?;
            for batch in batches {
                w.write(batch)?;
            }
            w.close()?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Configurations
// ---------------------------------------------------------------------------

/// Names of the writer configurations, in report order. The first six are named
/// as in parquet's own writer bench; `plain_nostats` is dictionary off,
/// statistics `None`, uncompressed (the encoder's raw speed).
pub const CONFIG_NAMES: [&str; 7] = [
    "default",
    "bloom_filter",
    "parquet_2",
    "zstd",
    "zstd_parquet_2",
    "cdc",
    "plain_nostats",
];

/// The `WriterProperties` of configuration `name`, or `None` for an unknown name.
pub fn config(name: &str) -> Option<WriterProperties> {
    let b = WriterProperties::builder();
    let b = match name {
        "default" => b,
        "bloom_filter" => b.set_bloom_filter_enabled(true),
        "parquet_2" => b.set_writer_version(WriterVersion::PARQUET_2_0),
        "zstd" => b.set_compression(Compression::ZSTD(ZstdLevel::default())),
        "zstd_parquet_2" => b
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_writer_version(WriterVersion::PARQUET_2_0),
        "cdc" => b.set_content_defined_chunking(Some(CdcOptions::default())),
        "plain_nostats" => b
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_compression(Compression::UNCOMPRESSED),
        _ => return None,
    };
    Some(b.build())
}

// ---------------------------------------------------------------------------
// Single-batch workloads
// ---------------------------------------------------------------------------

/// A named generator of one `RecordBatch`.
pub struct Workload {
    /// Name used in bench IDs and reports.
    pub name: &'static str,
    /// One-line description of the schema and data.
    pub description: &'static str,
    build: fn(usize) -> RecordBatch,
}

impl Workload {
    /// Generates the batch with `rows` rows (deterministic).
    pub fn build(&self, rows: usize) -> RecordBatch {
        (self.build)(rows)
    }
}

/// Every single-batch workload, in report order.
pub const WORKLOADS: [Workload; 8] = [
    Workload {
        name: "decimal",
        description: "upstream bench: Decimal32/64/128/256 at default precision, declared non-nullable (its 0.75 null density is dropped), full-range random values",
        build: decimal_upstream,
    },
    Workload {
        name: "decimal_nullable",
        description: "as `decimal`, but nullable fields with 75% nulls",
        build: decimal_nullable,
    },
    Workload {
        name: "decimal_nonnull",
        description: "Decimal128(38,10) + Decimal256(76,10), no nulls, random values within precision",
        build: decimal_nonnull,
    },
    Workload {
        name: "decimal_small",
        description: "Decimal64(18,4) non-null (INT64) + Decimal32(9,2) with 20% nulls (INT32), random values within precision",
        build: decimal_small,
    },
    Workload {
        name: "fsb",
        description: "FixedSizeBinary(16), 90% nulls, random bytes",
        build: fsb,
    },
    Workload {
        name: "uuid",
        description: "FixedSizeBinary(16), non-nullable, random UUIDv4",
        build: uuid,
    },
    Workload {
        name: "decimal128_lowcard",
        description: "Decimal128(38,2), non-null, 1,000 distinct values",
        build: decimal128_lowcard,
    },
    Workload {
        name: "float16",
        description: "Float16, 10% nulls, random finite values and ~1% NaN",
        build: float16,
    },
];

/// The nested workload: `s: struct<price: Decimal128(38,10), ids:
/// list<FixedSizeBinary(16)>>`, every level nullable. 10% of the structs and
/// 10% of the lists are null, lists hold 0 to 4 ids (a fifth of them empty),
/// 20% of the prices and 10% of the ids are null. FLBA leaves inside nested
/// fields take the levels path (`src/levels/`) rather than the flat one.
pub const NESTED: Workload = Workload {
    name: "nested",
    description: "struct<Decimal128(38,10), list<FixedSizeBinary(16)>>, nulls at every level",
    build: nested,
};

fn nested(rows: usize) -> RecordBatch {
    use arrow_array::{ListArray, StructArray};
    use arrow_buffer::OffsetBuffer;
    let mut r = rng(7);
    let struct_nulls = random_nulls(&mut r, rows, 0.1);
    let price_nulls = random_nulls(&mut r, rows, 0.2);
    let prices = (0..rows).map(|_| r.random_range(-MAX_DECIMAL128_38..=MAX_DECIMAL128_38));
    let prices = Decimal128Array::new(prices.collect(), price_nulls)
        .with_precision_and_scale(38, 10)
        .expect("valid precision");
    let list_nulls = random_nulls(&mut r, rows, 0.1);
    let lengths: Vec<usize> = (0..rows).map(|_| r.random_range(0..5)).collect();
    let items: usize = lengths.iter().sum();
    let item_nulls = random_nulls(&mut r, items, 0.1);
    let ids = random_fsb16(&mut r, items, item_nulls, false);
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(16), true));
    let offsets = OffsetBuffer::from_lengths(lengths);
    let ids = ListArray::try_new(item, offsets, ids, list_nulls).expect("valid list");
    let children = vec![
        Field::new("price", prices.data_type().clone(), true),
        Field::new("ids", ids.data_type().clone(), true),
    ];
    let columns: Vec<ArrayRef> = vec![Arc::new(prices), Arc::new(ids)];
    let s = StructArray::try_new(children.into(), columns, struct_nulls).expect("valid struct");
    batch(vec![("s", true, Arc::new(s))])
}

/// The workload called `name`.
pub fn workload(name: &str) -> Option<&'static Workload> {
    WORKLOADS.iter().find(|w| w.name == name)
}

/// Builds a batch whose fields are all named, nullable as given.
fn batch(fields: Vec<(&str, bool, ArrayRef)>) -> RecordBatch {
    let schema = Schema::new(
        fields
            .iter()
            .map(|(name, nullable, a)| Field::new(*name, a.data_type().clone(), *nullable))
            .collect::<Vec<_>>(),
    );
    let columns = fields.into_iter().map(|(_, _, a)| a).collect();
    RecordBatch::try_new(Arc::new(schema), columns).expect("generated batch matches its schema")
}

/// Mirrors arrow's `create_random_decimal_array` (as used by parquet's
/// `create_decimal_bench_batch`): a fresh seed-42 generator per column, one
/// `f32` draw per row against `null_density`, then a full-range random value.
fn upstream_decimal_column<T: DecimalType>(
    rows: usize,
    null_density: f32,
    mut value: impl FnMut(&mut StdRng) -> T::Native,
) -> ArrayRef {
    let mut r = StdRng::seed_from_u64(SEED);
    let values: PrimitiveArray<T> = (0..rows)
        .map(|_| {
            if r.random::<f32>() < null_density {
                None
            } else {
                Some(value(&mut r))
            }
        })
        .collect();
    Arc::new(values.with_data_type(T::DEFAULT_TYPE))
}

fn decimal_with(rows: usize, nullable: bool) -> RecordBatch {
    // Upstream calls the generator with 0.75, which arrow overrides to 0.0 for
    // non-nullable fields.
    let null_density = if nullable { 0.75 } else { 0.0 };
    batch(vec![
        (
            "_1",
            nullable,
            upstream_decimal_column::<Decimal32Type>(rows, null_density, |r| r.random()),
        ),
        (
            "_2",
            nullable,
            upstream_decimal_column::<Decimal64Type>(rows, null_density, |r| r.random()),
        ),
        (
            "_3",
            nullable,
            upstream_decimal_column::<Decimal128Type>(rows, null_density, |r| r.random()),
        ),
        (
            "_4",
            nullable,
            upstream_decimal_column::<Decimal256Type>(rows, null_density, |r| {
                i256::from_parts(r.random::<u128>(), r.random::<i128>())
            }),
        ),
    ])
}

fn decimal_upstream(rows: usize) -> RecordBatch {
    decimal_with(rows, false)
}

fn decimal_nullable(rows: usize) -> RecordBatch {
    decimal_with(rows, true)
}

/// Decimals that Parquet stores as integers: a non-null Decimal64(18,4)
/// (INT64) and a Decimal32(9,2) with 20% nulls (INT32).
fn decimal_small(rows: usize) -> RecordBatch {
    let mut r = rng(9);
    const MAX18: i64 = 10i64.pow(18) - 1;
    const MAX9: i32 = 10i32.pow(9) - 1;
    let d64 = Decimal64Array::from_iter_values((0..rows).map(|_| r.random_range(-MAX18..=MAX18)))
        .with_precision_and_scale(18, 4)
        .unwrap();
    let nulls = random_nulls(&mut r, rows, 0.2);
    let d32 = Decimal32Array::new(
        (0..rows).map(|_| r.random_range(-MAX9..=MAX9)).collect(),
        nulls,
    )
    .with_precision_and_scale(9, 2)
    .unwrap();
    batch(vec![
        ("amount", false, Arc::new(d64) as ArrayRef),
        ("price", true, Arc::new(d32) as ArrayRef),
    ])
}

/// Largest Decimal128 magnitude of precision 38.
const MAX_DECIMAL128_38: i128 = 10i128.pow(38) - 1;

/// A uniformly random `i256` with `|v| < 10^precision`, `precision` in 39..=76.
fn random_i256_within(r: &mut StdRng, precision: u32) -> i256 {
    // high ∈ [-(H-1), H-1] with H = floor(10^p / 2^128) keeps
    // high·2^128 + low (low < 2^128) strictly inside ±10^p.
    let h = i256::from_i128(10).wrapping_pow(precision).to_parts().1;
    let high = r.random_range(-(h - 1)..=h - 1);
    i256::from_parts(r.random::<u128>(), high)
}

fn decimal_nonnull(rows: usize) -> RecordBatch {
    let mut r = rng(1);
    let d128 = Decimal128Array::from_iter_values(
        (0..rows).map(|_| r.random_range(-MAX_DECIMAL128_38..=MAX_DECIMAL128_38)),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let d256 = Decimal256Array::from_iter_values((0..rows).map(|_| random_i256_within(&mut r, 76)))
        .with_precision_and_scale(76, 10)
        .unwrap();
    batch(vec![
        ("d128", false, Arc::new(d128)),
        ("d256", false, Arc::new(d256)),
    ])
}

/// The 16-column table of the scaling measurements (`examples/scaling.rs`,
/// `benches/duckdb_scaling.py`): six `Decimal128(38,10)` with 10% nulls,
/// four UUIDs (`FixedSizeBinary(16)`), four `Decimal128(18,4)` (INT64 in
/// Parquet) and two `Decimal256(76,10)`, the last ten non-null; values
/// uniformly random within each precision.
pub fn wide16(rows: usize) -> RecordBatch {
    let mut r = rng(9);
    let mut fields: Vec<(String, bool, ArrayRef)> = Vec::with_capacity(16);
    for i in 0..6 {
        let nulls = random_nulls(&mut r, rows, 0.1);
        let values = (0..rows).map(|_| r.random_range(-MAX_DECIMAL128_38..=MAX_DECIMAL128_38));
        let array = Decimal128Array::new(values.collect(), nulls)
            .with_precision_and_scale(38, 10)
            .expect("valid precision");
        fields.push((format!("d128_{i}"), true, Arc::new(array)));
    }
    for i in 0..4 {
        fields.push((
            format!("uuid_{i}"),
            false,
            random_fsb16(&mut r, rows, None, true),
        ));
    }
    let max18 = 10i128.pow(18) - 1;
    for i in 0..4 {
        let array =
            Decimal128Array::from_iter_values((0..rows).map(|_| r.random_range(-max18..=max18)))
                .with_precision_and_scale(18, 4)
                .expect("valid precision");
        fields.push((format!("dec18_{i}"), false, Arc::new(array)));
    }
    for i in 0..2 {
        let array =
            Decimal256Array::from_iter_values((0..rows).map(|_| random_i256_within(&mut r, 76)))
                .with_precision_and_scale(76, 10)
                .expect("valid precision");
        fields.push((format!("d256_{i}"), false, Arc::new(array)));
    }
    batch(
        fields
            .iter()
            .map(|(name, nullable, array)| (name.as_str(), *nullable, array.clone()))
            .collect(),
    )
}

// ---------------------------------------------------------------------------
// Anchor shapes (the shapes the pyarrow / polars / DuckDB anchor script times)
// ---------------------------------------------------------------------------

/// Names of the anchor shapes, in report order: `Decimal128(38,10)` +
/// `Decimal256(76,10)` nullable with 75% / 0% nulls and required;
/// `FixedSizeBinary(16)` nullable with 90% / 0% nulls; required UUIDv4;
/// required `Decimal128(38,2)` with 1,000 distinct values.
pub const ANCHOR_SHAPES: [&str; 7] = [
    "decimal_n75",
    "decimal_n0",
    "decimal_req",
    "fsb_n90",
    "fsb_n0",
    "uuid",
    "dec128_lowcard",
];

/// The anchor shape `name` with `rows` rows (deterministic), or `None`.
/// Same types, nullability and null densities as the anchor script's
/// shapes; values are random within the precision (their generators differ,
/// their distributions match).
pub fn anchor_shape(name: &str, rows: usize) -> Option<RecordBatch> {
    let decimals = |null_density: f64, nullable: bool| {
        let mut r = rng(10);
        let n128 = random_nulls(&mut r, rows, null_density);
        let d128: Vec<i128> = (0..rows)
            .map(|_| r.random_range(-MAX_DECIMAL128_38..=MAX_DECIMAL128_38))
            .collect();
        let d128 = Decimal128Array::new(d128.into(), n128)
            .with_precision_and_scale(38, 10)
            .unwrap();
        let n256 = random_nulls(&mut r, rows, null_density);
        let d256: Vec<i256> = (0..rows).map(|_| random_i256_within(&mut r, 76)).collect();
        let d256 = Decimal256Array::new(d256.into(), n256)
            .with_precision_and_scale(76, 10)
            .unwrap();
        batch(vec![
            ("d128", nullable, Arc::new(d128)),
            ("d256", nullable, Arc::new(d256)),
        ])
    };
    let fsb16 = |null_density: f64, nullable: bool, uuid: bool| {
        let mut r = rng(11);
        let nulls = random_nulls(&mut r, rows, null_density);
        batch(vec![(
            "fsb16",
            nullable,
            random_fsb16(&mut r, rows, nulls, uuid),
        )])
    };
    Some(match name {
        "decimal_n75" => decimals(0.75, true),
        "decimal_n0" => decimals(0.0, true),
        "decimal_req" => decimals(0.0, false),
        "fsb_n90" => fsb16(0.9, true, false),
        "fsb_n0" => fsb16(0.0, true, false),
        "uuid" => fsb16(0.0, false, true),
        "dec128_lowcard" => decimal128_lowcard(rows),
        _ => return None,
    })
}

/// Random validity with `null_density` nulls, or `None` when it is 0.
fn random_nulls(r: &mut StdRng, rows: usize, null_density: f64) -> Option<NullBuffer> {
    (null_density > 0.0).then(|| {
        NullBuffer::from(
            (0..rows)
                .map(|_| !r.random_bool(null_density))
                .collect::<Vec<_>>(),
        )
    })
}

/// Sets the version (4) and variant (RFC 4122) bits of a random 16-byte UUID.
pub fn set_uuid_v4_bits(uuid: &mut [u8]) {
    uuid[6] = (uuid[6] & 0x0f) | 0x40;
    uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/// `rows` random 16-byte values (UUIDv4 if `uuid`), zeroed where null.
fn random_fsb16(r: &mut StdRng, rows: usize, nulls: Option<NullBuffer>, uuid: bool) -> ArrayRef {
    let mut bytes = vec![0u8; rows * 16];
    r.fill(&mut bytes[..]);
    for (i, chunk) in bytes.chunks_exact_mut(16).enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            chunk.fill(0);
        } else if uuid {
            set_uuid_v4_bits(chunk);
        }
    }
    Arc::new(FixedSizeBinaryArray::new(
        16,
        Buffer::from_vec(bytes),
        nulls,
    ))
}

fn fsb(rows: usize) -> RecordBatch {
    let mut r = rng(2);
    let nulls = random_nulls(&mut r, rows, 0.9);
    batch(vec![(
        "fsb",
        true,
        random_fsb16(&mut r, rows, nulls, false),
    )])
}

fn uuid(rows: usize) -> RecordBatch {
    let mut r = rng(3);
    batch(vec![(
        "uuid",
        false,
        random_fsb16(&mut r, rows, None, true),
    )])
}

fn decimal128_lowcard(rows: usize) -> RecordBatch {
    let mut r = rng(4);
    // 1,000 distinct amounts between 0.01 and 1,000,000.00.
    let mut seen = HashSet::new();
    let mut pool = Vec::with_capacity(1000);
    while pool.len() < 1000 {
        let v: i128 = r.random_range(1..=100_000_000);
        if seen.insert(v) {
            pool.push(v);
        }
    }
    let values =
        Decimal128Array::from_iter_values((0..rows).map(|_| pool[r.random_range(0..pool.len())]))
            .with_precision_and_scale(38, 2)
            .unwrap();
    batch(vec![("amount", false, Arc::new(values))])
}

/// A random binary16 bit pattern: ~1% NaN, otherwise a finite value of either
/// sign with magnitude in [2^-10, 2^11).
fn random_f16_bits(r: &mut StdRng) -> u16 {
    if r.random_bool(0.01) {
        // Quiet NaN with a random payload.
        return 0x7e00 | r.random_range(0..0x200u16) | if r.random() { 0x8000 } else { 0 };
    }
    let sign: u16 = if r.random() { 0x8000 } else { 0 };
    let exponent: u16 = r.random_range(5..=25); // biased: 2^(e-15)
    let mantissa: u16 = r.random_range(0..0x400);
    sign | (exponent << 10) | mantissa
}

fn float16(rows: usize) -> RecordBatch {
    let mut r = rng(5);
    let nulls = random_nulls(&mut r, rows, 0.1);
    let bits: Vec<u16> = (0..rows)
        .map(|i| {
            if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
                0
            } else {
                random_f16_bits(&mut r)
            }
        })
        .collect();
    let array = Float16Array::new(Buffer::from_vec(bits).into(), nulls);
    batch(vec![("f16", true, Arc::new(array))])
}

// ---------------------------------------------------------------------------
// Mixed tables: `setup` (many small files) and `trades` (the demo)
// ---------------------------------------------------------------------------

/// Files written per iteration of the `setup` bench.
pub const SETUP_FILES: usize = 500;
/// Rows per file of the `setup` bench.
pub const SETUP_ROWS: usize = 1000;

/// `files` independent small batches of `rows` rows each, mixed schema:
/// `id` FixedSizeBinary(16) UUIDv4, `amount` Decimal128(38,10) (10% nulls),
/// `seq` Int64, `name` Utf8.
pub fn setup_batches(files: usize, rows: usize) -> Vec<RecordBatch> {
    let mut r = rng(6);
    (0..files)
        .map(|f| {
            let id = random_fsb16(&mut r, rows, None, true);
            let nulls = random_nulls(&mut r, rows, 0.1);
            let amount = Decimal128Array::new(
                (0..rows)
                    .map(|_| r.random_range(-1_000_000_000_000_000i128..=1_000_000_000_000_000))
                    .collect::<Vec<_>>()
                    .into(),
                nulls,
            )
            .with_precision_and_scale(38, 10)
            .unwrap();
            let seq = Int64Array::from_iter_values((0..rows).map(|i| (f * rows + i) as i64));
            let name = StringArray::from_iter_values(
                (0..rows).map(|_| TICKERS[r.random_range(0..TICKERS.len())]),
            );
            batch(vec![
                ("id", false, id),
                ("amount", true, Arc::new(amount)),
                ("seq", false, Arc::new(seq)),
                ("name", false, Arc::new(name)),
            ])
        })
        .collect()
}

/// The ~50 ticker symbols of the trades table, with a base price each.
const TICKERS: [&str; 50] = [
    "AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "BRK.B", "AVGO", "JPM", "LLY", "V",
    "UNH", "XOM", "MA", "JNJ", "PG", "HD", "COST", "MRK", "ABBV", "ORCL", "CVX", "CRM", "BAC",
    "KO", "NFLX", "PEP", "AMD", "ADBE", "TMO", "WMT", "LIN", "MCD", "CSCO", "ACN", "ABT", "DIS",
    "INTC", "QCOM", "TXN", "DHR", "VZ", "INTU", "AMGN", "PFE", "IBM", "CAT", "GS", "SBUX",
];

/// Schema of the trades table.
pub fn trades_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("quantity", DataType::Decimal128(20, 2), false),
        Field::new("trade_id", DataType::FixedSizeBinary(16), false),
        Field::new("notional", DataType::Decimal256(50, 18), false),
        Field::new(
            "ts",
            DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, Some("UTC".into())),
            false,
        ),
        Field::new("symbol", DataType::Utf8, false),
    ]))
}

/// The demo's "trades" table: `rows` rows cut into batches of `batch_size`.
///
/// - `price` Decimal128(38,10): per-symbol random walk, tick 0.0001;
/// - `quantity` Decimal128(20,2): mostly round lots, some odd and fractional lots;
/// - `trade_id` FixedSizeBinary(16): random UUIDv4;
/// - `notional` Decimal256(50,18): exactly price × quantity;
/// - `ts` Timestamp(ns, UTC): increasing (~1 ms apart);
/// - `symbol` Utf8: one of 50 tickers.
pub fn trades_batches(rows: usize, batch_size: usize) -> Vec<RecordBatch> {
    let mut r = rng(7);
    let schema = trades_schema();
    // Per-symbol price in ticks of 0.0001.
    let mut ticks: Vec<i128> = (0..TICKERS.len())
        .map(|_| r.random_range(50_000..=20_000_000)) // 5.0000 ..= 2000.0000
        .collect();
    let mut ts: i64 = 1_704_205_800_000_000_000; // 2024-01-02T14:30:00Z
    let mut out = Vec::with_capacity(rows.div_ceil(batch_size.max(1)));
    let mut start = 0;
    while start < rows {
        let n = batch_size.min(rows - start);
        let mut price = Vec::with_capacity(n);
        let mut quantity = Vec::with_capacity(n);
        let mut notional = Vec::with_capacity(n);
        let mut stamp = Vec::with_capacity(n);
        let mut symbol = Vec::with_capacity(n);
        for _ in 0..n {
            let s = r.random_range(0..TICKERS.len());
            // Random walk of ±0.05%, at least one tick.
            let step = (ticks[s] / 2000).max(1);
            ticks[s] = (ticks[s] + r.random_range(-step..=step)).max(1);
            let p = ticks[s] * 1_000_000; // scale 4 -> scale 10
            let q: i128 = match r.random_range(0..100) {
                0..70 => r.random_range(1..=50) * 100 * 100, // round lot
                70..95 => r.random_range(1..=99) * 100,      // odd lot
                _ => r.random_range(1..=9999),               // fractional
            };
            // scale 10 + scale 2 = 12; notional has scale 18.
            notional.push(i256::from_i128(p * q).wrapping_mul(i256::from_i128(1_000_000)));
            price.push(p);
            quantity.push(q);
            ts += r.random_range(0..=2_000_000);
            stamp.push(ts);
            symbol.push(TICKERS[s]);
        }
        let trade_id = random_fsb16(&mut r, n, None, true);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(
                Decimal128Array::from(price)
                    .with_precision_and_scale(38, 10)
                    .unwrap(),
            ),
            Arc::new(
                Decimal128Array::from(quantity)
                    .with_precision_and_scale(20, 2)
                    .unwrap(),
            ),
            trade_id,
            Arc::new(
                Decimal256Array::from(notional)
                    .with_precision_and_scale(50, 18)
                    .unwrap(),
            ),
            Arc::new(arrow_array::TimestampNanosecondArray::from(stamp).with_timezone("UTC")),
            Arc::new(StringArray::from(symbol)),
        ];
        out.push(RecordBatch::try_new(schema.clone(), columns).expect("trades batch"));
        start += n;
    }
    out
}

// ---------------------------------------------------------------------------
// Value bytes and the memcpy reference
// ---------------------------------------------------------------------------

/// Parquet's FIXED_LEN_BYTE_ARRAY width for a decimal precision (parquet's
/// `decimal_length_from_precision`, which is not public API).
pub fn decimal_flba_width(precision: u8) -> usize {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// Bytes of one decimal value as Parquet stores it: 4 (INT32) up to precision 9,
/// 8 (INT64) up to 18, the FLBA width above.
pub fn decimal_parquet_width(precision: u8) -> usize {
    match precision {
        0..=9 => 4,
        10..=18 => 8,
        p => decimal_flba_width(p),
    }
}

/// Value bytes of a batch: see the module docs.
pub fn value_bytes(batch: &RecordBatch) -> u64 {
    batch
        .columns()
        .iter()
        .map(|c| array_value_bytes(c.as_ref()))
        .sum()
}

/// Value bytes of one array. Exact for the types the workloads use; for other
/// types (read by `parquet-flba rewrite`) a close approximation.
pub fn array_value_bytes(array: &dyn Array) -> u64 {
    let valid = (array.len() - array.null_count()) as u64;
    match array.data_type() {
        DataType::Decimal32(p, _)
        | DataType::Decimal64(p, _)
        | DataType::Decimal128(p, _)
        | DataType::Decimal256(p, _) => valid * decimal_parquet_width(*p) as u64,
        DataType::FixedSizeBinary(n) => valid * *n as u64,
        DataType::Float16 => valid * 2,
        // Parquet INTERVAL is FIXED_LEN_BYTE_ARRAY(12).
        DataType::Interval(_) => valid * 12,
        DataType::Boolean => valid.div_ceil(8),
        DataType::Utf8 => offsets_span(array.as_string::<i32>().value_offsets()),
        DataType::Binary => offsets_span(array.as_binary::<i32>().value_offsets()),
        DataType::LargeUtf8 => offsets_span(array.as_string::<i64>().value_offsets()),
        DataType::LargeBinary => offsets_span(array.as_binary::<i64>().value_offsets()),
        DataType::Utf8View | DataType::BinaryView => {
            let views = array.as_binary_view_opt().map(|a| a.views().clone());
            let views = views.or_else(|| array.as_string_view_opt().map(|a| a.views().clone()));
            views.map_or(0, |v| {
                v.iter()
                    .enumerate()
                    .filter(|(i, _)| array.is_valid(*i))
                    .map(|(_, v)| (*v as u32) as u64)
                    .sum()
            })
        }
        DataType::Struct(_) => array
            .as_struct()
            .columns()
            .iter()
            .map(|c| array_value_bytes(c.as_ref()))
            .sum(),
        DataType::List(_) => array_value_bytes(array.as_list::<i32>().values().as_ref()),
        DataType::LargeList(_) => array_value_bytes(array.as_list::<i64>().values().as_ref()),
        DataType::FixedSizeList(_, _) => {
            array_value_bytes(array.as_fixed_size_list().values().as_ref())
        }
        DataType::Map(_, _) => array_value_bytes(array.as_map().entries()),
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            match arrow_select::take::take(dict.values().as_ref(), dict.keys(), None) {
                Ok(values) => array_value_bytes(values.as_ref()),
                Err(_) => array.get_buffer_memory_size() as u64,
            }
        }
        dt => match dt.primitive_width() {
            Some(w) => valid * w as u64,
            None => array.get_buffer_memory_size() as u64,
        },
    }
}

/// Bytes between the first and last offset.
fn offsets_span<O: arrow_array::OffsetSizeTrait>(offsets: &[O]) -> u64 {
    match (offsets.first(), offsets.last()) {
        (Some(first), Some(last)) => (last.as_usize() - first.as_usize()) as u64,
        _ => 0,
    }
}

/// Writes `item(i)` for every valid index `i` of `array` (every index if it
/// has no nulls) into consecutive `W`-byte slots of `dst`; returns the bytes
/// written. `W` is a constant so each copy is a fixed-size move, not a call.
#[inline(always)]
fn fill_valid<const W: usize>(
    array: &dyn Array,
    dst: &mut [u8],
    mut item: impl FnMut(usize) -> [u8; W],
) -> usize {
    let slots = dst.as_chunks_mut::<W>().0.iter_mut();
    let mut written = 0;
    match array.nulls() {
        Some(nulls) if nulls.null_count() > 0 => {
            for (i, slot) in nulls.valid_indices().zip(slots) {
                *slot = item(i);
                written += W;
            }
        }
        _ => {
            for (i, slot) in (0..array.len()).zip(slots) {
                *slot = item(i);
                written += W;
            }
        }
    }
    written
}

/// As [`fill_valid`] for a width known only at run time.
fn fill_valid_dyn(
    array: &dyn Array,
    dst: &mut [u8],
    width: usize,
    mut item: impl FnMut(usize, &mut [u8]),
) -> usize {
    let mut written = 0;
    let mut slots = dst.chunks_exact_mut(width);
    let mut put = |i| {
        if let Some(slot) = slots.next() {
            item(i, slot);
            written += width;
        }
    };
    match array.nulls() {
        Some(nulls) if nulls.null_count() > 0 => nulls.valid_indices().for_each(&mut put),
        _ => (0..array.len()).for_each(&mut put),
    }
    written
}

/// The last `W` bytes of `bytes`.
#[inline(always)]
fn tail<const N: usize, const W: usize>(bytes: [u8; N]) -> [u8; W] {
    bytes[N - W..].try_into().expect("W <= N")
}

/// The first `W` bytes of `bytes[at..]`.
#[inline(always)]
fn at<const W: usize>(bytes: &[u8], at: usize) -> [u8; W] {
    bytes[at..at + W].try_into().expect("in bounds")
}

/// Runs `$fast` with the constant `$W` equal to `$w` if `$w` is one of the
/// listed widths, else `$slow`.
macro_rules! with_const_width {
    ($w:expr, [$($n:literal),*], $W:ident => $fast:expr, _ => $slow:expr) => {
        match $w {
            $($n => {
                const $W: usize = $n;
                $fast
            })*
            _ => $slow,
        }
    };
}

/// Copies the non-null little-endian values of a primitive array, each
/// truncated to `width` bytes; a single `memcpy` when nothing is dropped.
fn copy_le<T: arrow_array::ArrowPrimitiveType>(
    array: &PrimitiveArray<T>,
    width: usize,
    dst: &mut [u8],
) -> usize {
    let size = std::mem::size_of::<T::Native>();
    let bytes = array.values().inner().as_slice();
    if array.null_count() == 0 && width == size {
        dst[..bytes.len()].copy_from_slice(bytes);
        return bytes.len();
    }
    with_const_width!(width, [2, 4, 8], W => fill_valid::<W>(array, dst, |i| at(bytes, i * size)),
    _ => fill_valid_dyn(array, dst, width, |i, slot| {
        slot.copy_from_slice(&bytes[i * size..i * size + width])
    }))
}

/// The "memcpy" reference: writes the value bytes of `batch` into `out` as
/// Parquet's PLAIN encoding lays them out, without levels or length prefixes,
/// and returns how many ([`value_bytes`]). Decimals stored as FLBA are
/// byte-swapped to big-endian and truncated to the column width (the least any
/// FLBA decimal writer must do); other fixed-width values are copied as they
/// are; strings copy their bytes.
///
/// `out` is resized to the exact size on the first call only and overwritten in
/// place afterwards, so repeated calls time the copy alone (no allocation, no
/// zero-filling, no capacity checks per value).
pub fn reference_copy(batch: &RecordBatch, out: &mut Vec<u8>) -> usize {
    let total = value_bytes(batch) as usize;
    if out.len() != total {
        out.clear();
        out.resize(total, 0);
    }
    let mut pos = 0;
    for column in batch.columns() {
        let array = column.as_ref();
        let dst = &mut out[pos..];
        pos += match array.data_type() {
            DataType::Decimal128(p, _) if *p > 18 => {
                let values = array.as_primitive::<Decimal128Type>().values();
                with_const_width!(decimal_flba_width(*p), [9, 10, 11, 12, 13, 14, 15, 16],
                    W => fill_valid::<W>(array, dst, |i| tail(values[i].to_be_bytes())),
                    _ => unreachable!("Decimal128 FLBA widths are 9..=16"))
            }
            DataType::Decimal256(p, _) if *p > 18 => {
                let values = array.as_primitive::<Decimal256Type>().values();
                with_const_width!(
                    decimal_flba_width(*p),
                    [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
                     29, 30, 31, 32],
                    W => fill_valid::<W>(array, dst, |i| tail(values[i].to_be_bytes())),
                    _ => unreachable!("Decimal256 FLBA widths are 9..=32"))
            }
            DataType::Decimal32(p, _) => copy_le(
                array.as_primitive::<Decimal32Type>(),
                decimal_parquet_width(*p),
                dst,
            ),
            DataType::Decimal64(p, _) => copy_le(
                array.as_primitive::<Decimal64Type>(),
                decimal_parquet_width(*p),
                dst,
            ),
            DataType::Decimal128(p, _) => copy_le(
                array.as_primitive::<Decimal128Type>(),
                decimal_parquet_width(*p),
                dst,
            ),
            DataType::Decimal256(p, _) => copy_le(
                array.as_primitive::<Decimal256Type>(),
                decimal_parquet_width(*p),
                dst,
            ),
            DataType::Float16 => copy_le(array.as_primitive::<Float16Type>(), 2, dst),
            DataType::Int64 => copy_le(array.as_primitive::<Int64Type>(), 8, dst),
            DataType::FixedSizeBinary(n) => {
                let a = array.as_fixed_size_binary();
                let data = a.value_data();
                if a.null_count() == 0 {
                    dst[..data.len()].copy_from_slice(data);
                    data.len()
                } else {
                    let n = *n as usize;
                    with_const_width!(n, [16], W => fill_valid::<W>(a, dst, |i| at(data, i * W)),
                    _ => fill_valid_dyn(a, dst, n, |i, slot| {
                        slot.copy_from_slice(&data[i * n..(i + 1) * n])
                    }))
                }
            }
            DataType::Utf8 => {
                let a = array.as_string::<i32>();
                let offsets = a.value_offsets();
                let (start, end) = (offsets[0] as usize, offsets[a.len()] as usize);
                dst[..end - start].copy_from_slice(&a.value_data()[start..end]);
                end - start
            }
            dt => unimplemented!("reference_copy does not handle {dt}"),
        };
    }
    debug_assert_eq!(pos, total);
    pos
}

// ---------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------

/// A command-line count: a positive integer, `_` and `,` allowed as digit
/// separators; the error names `flag`.
pub fn parse_count(flag: &str, value: &str) -> Result<usize, String> {
    value
        .replace(['_', ','], "")
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{flag}: '{value}' is not a positive integer"))
}

/// The exit status of a report binary's `run`: success, or the error
/// printed to standard error and failure.
pub fn exit_code(result: Result<(), String>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Formats an integer with thousands separators: `1048576` -> `1,048,576`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes as MiB.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[cfg(test)]
mod tests {
    // `cargo clippy --all-targets` also compiles this in the harness-less bench
    // with cfg(test), where the #[test] functions (and so the imports) vanish.
    #[allow(unused_imports)]
    use super::*;

    const ROWS: usize = 20_000;

    #[test]
    fn every_workload_builds_and_copies_its_value_bytes() {
        for w in &WORKLOADS {
            let batch = w.build(ROWS);
            assert_eq!(batch.num_rows(), ROWS, "{}", w.name);
            let mut out = Vec::new();
            let copied = reference_copy(&batch, &mut out);
            assert_eq!(copied as u64, value_bytes(&batch), "{}", w.name);
            assert_eq!(out.len(), copied, "{}", w.name);
        }
        for config_name in CONFIG_NAMES {
            assert!(config(config_name).is_some(), "{config_name}");
        }
        assert!(config("nope").is_none());
    }

    #[test]
    fn workloads_have_the_documented_shape() {
        let nonnull = workload("decimal_nonnull").unwrap().build(ROWS);
        assert_eq!(nonnull.column(0).null_count(), 0);
        nonnull
            .column(0)
            .as_primitive::<Decimal128Type>()
            .validate_decimal_precision(38)
            .unwrap();
        nonnull
            .column(1)
            .as_primitive::<Decimal256Type>()
            .validate_decimal_precision(76)
            .unwrap();
        // 16 + 32 bytes per row.
        assert_eq!(value_bytes(&nonnull), 48 * ROWS as u64);

        let upstream = workload("decimal").unwrap().build(ROWS);
        assert!(upstream.schema().fields().iter().all(|f| !f.is_nullable()));
        assert_eq!(
            upstream
                .columns()
                .iter()
                .map(|c| c.null_count())
                .sum::<usize>(),
            0
        );
        assert_eq!(value_bytes(&upstream), (4 + 8 + 16 + 32) * ROWS as u64);

        let null_fraction = |name: &str| {
            let b = workload(name).unwrap().build(ROWS);
            b.column(0).null_count() as f64 / ROWS as f64
        };
        assert!((null_fraction("decimal_nullable") - 0.75).abs() < 0.02);
        assert!((null_fraction("fsb") - 0.9).abs() < 0.02);
        assert!((null_fraction("float16") - 0.1).abs() < 0.02);
        assert_eq!(null_fraction("uuid"), 0.0);

        let lowcard = workload("decimal128_lowcard").unwrap().build(ROWS);
        let distinct: HashSet<i128> = lowcard
            .column(0)
            .as_primitive::<Decimal128Type>()
            .values()
            .iter()
            .copied()
            .collect();
        assert_eq!(distinct.len(), 1000);

        let f16 = workload("float16").unwrap().build(ROWS);
        let bits = f16.column(0).as_primitive::<Float16Type>();
        let nans = (0..ROWS)
            .filter(|&i| bits.is_valid(i) && bits.value(i).is_nan())
            .count();
        assert!(nans > 0 && nans < ROWS / 20, "{nans} NaNs");
    }

    #[test]
    fn nested_workload_has_the_documented_shape() {
        let b = NESTED.build(ROWS);
        let s = b.column(0).as_struct();
        assert!((s.null_count() as f64 / ROWS as f64 - 0.1).abs() < 0.02);
        let ids = s.column(1).as_list::<i32>();
        assert!((ids.null_count() as f64 / ROWS as f64 - 0.1).abs() < 0.02);
        assert!(value_bytes(&b) > 0);
    }

    #[test]
    fn trades_are_consistent() {
        let batches = trades_batches(10_000, 4096);
        assert_eq!(batches.len(), 3);
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 10_000);
        let mut last_ts = i64::MIN;
        for b in &batches {
            assert_eq!(b.schema(), trades_schema());
            let price = b.column(0).as_primitive::<Decimal128Type>();
            let quantity = b.column(1).as_primitive::<Decimal128Type>();
            let id = b.column(2).as_fixed_size_binary();
            let notional = b.column(3).as_primitive::<Decimal256Type>();
            let ts = b
                .column(4)
                .as_primitive::<arrow_array::types::TimestampNanosecondType>();
            quantity.validate_decimal_precision(20).unwrap();
            notional.validate_decimal_precision(50).unwrap();
            for i in 0..b.num_rows() {
                let expected = i256::from_i128(price.value(i) * quantity.value(i))
                    .wrapping_mul(i256::from_i128(1_000_000));
                assert_eq!(notional.value(i), expected);
                assert!(ts.value(i) >= last_ts);
                last_ts = ts.value(i);
                assert_eq!(id.value(i)[6] >> 4, 4, "UUID version");
                assert_eq!(id.value(i)[8] >> 6, 0b10, "UUID variant");
            }
        }
        let setup = setup_batches(3, 100);
        assert_eq!(setup.len(), 3);
        assert!(setup.iter().all(|b| b.num_rows() == 100));
    }

    #[test]
    fn tables_are_what_they_say() {
        for table in &tables::TABLES {
            let batches = table.build(1000, 4);
            assert_eq!(batches.len(), 4, "{}", table.name);
            assert_eq!(
                batches.iter().map(RecordBatch::num_rows).sum::<usize>(),
                1000
            );
            assert!(batches.iter().all(|b| b.schema() == batches[0].schema()));
        }
        let prims = tables::table("prims").unwrap().build(300_000, 3);
        let day = |b: usize| {
            prims[b]
                .column(4)
                .as_primitive::<arrow_array::types::Date32Type>()
        };
        assert_eq!(day(2).value(day(2).len() - 1) - day(0).value(0), 2);
    }

    #[test]
    fn widths_and_formatting() {
        for (precision, width) in [(19, 9), (20, 9), (38, 16), (39, 17), (50, 21), (76, 32)] {
            assert_eq!(
                decimal_flba_width(precision),
                width,
                "precision {precision}"
            );
        }
        assert_eq!(decimal_parquet_width(9), 4);
        assert_eq!(decimal_parquet_width(18), 8);
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_048_576), "1,048,576");
    }

    #[test]
    fn both_writers_write_every_configuration() {
        let batches = trades_batches(2_000, 1_000);
        for config_name in CONFIG_NAMES {
            for writer in Writer::BOTH {
                let mut sink = Vec::new();
                write_file(
                    writer,
                    &mut sink,
                    trades_schema(),
                    &batches,
                    config(config_name).unwrap(),
                )
                .unwrap();
                assert_eq!(&sink[..4], b"PAR1", "{config_name} {}", writer.name());
            }
        }
    }
}
