//! Whole tables, written as a user writes them: 2,097,152 rows in 64
//! batches of 32,768 into one file. `mixed4` and `prims` are the tables of
//! issue 38 (and `docs/performance.md`); the others are each fixed-width
//! type alone. Every field is nullable (as pyarrow and polars make them);
//! where there are no nulls there is no null buffer.
//!
//! | table | columns |
//! |---|---|
//! | `mixed4` | UUIDv4 `FixedSizeBinary(16)`, `Decimal128(38,4)` with 10% nulls, `Int64` in 0..10,000, `Utf8` of 5 four-byte symbols |
//! | `prims` | `Timestamp(ns, UTC)` rising by 0–2 ms, `Int64` in 0..10,000, `Int32` in 0..40, `Float64` prices with two decimals, `Date32` changing every 100,000 rows |
//! | `int32` | `Int32` in 0..1,000,000 |
//! | `int64` | `Int64` in 0..10,000 |
//! | `uint64` | `UInt64`, any bit pattern (half of them with the top bit set) |
//! | `float64_nan` | `Float64` prices with two decimals, 1% NaN |
//! | `timestamp` | `Timestamp(ns, UTC)` rising by 0–2 ms |
//! | `date32` | `Date32` changing every 100,000 rows |
//! | `boolean` | `Boolean`, 10% nulls |
//! | `strs_low` | `Utf8` of 5 four-byte symbols |
//! | `strs_high` | `Utf8`, random ASCII of 8 to 40 bytes |
//! | `views_high` | the values of `strs_high` as `Utf8View` |
//! | `binary_high` | `Binary`, random bytes, 8 to 40 of them |
//! | `dict_utf8` | `Dictionary(Int32, Utf8)`, 10% nulls, each batch's dictionary the same 1,000 strings of 8 to 24 bytes |

use super::{random_fsb16, rng};
use arrow_array::builder::StringViewBuilder;
use arrow_array::types::{
    Date32Type, Float64Type, Int32Type, Int64Type, TimestampNanosecondType, UInt64Type,
};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Decimal128Array, DictionaryArray, PrimitiveArray,
    RecordBatch, StringArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{Field, Schema, SchemaRef};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Rows of a whole table.
pub const TABLE_ROWS: usize = 1 << 21;

/// Batches a whole table is written in.
pub const TABLE_BATCHES: usize = 64;

/// A named whole table.
pub struct Table {
    /// Name used in bench IDs and reports.
    pub name: &'static str,
    /// The columns, in words.
    pub description: &'static str,
    columns: fn(&mut StdRng, usize, usize) -> Vec<(&'static str, ArrayRef)>,
}

impl Table {
    /// The table of `rows` rows in `batches` batches (deterministic).
    pub fn build(&self, rows: usize, batches: usize) -> Vec<RecordBatch> {
        let mut r = rng(38);
        let per = rows.div_ceil(batches.max(1)).max(1);
        let mut out = Vec::with_capacity(batches);
        let mut schema: Option<SchemaRef> = None;
        let mut start = 0;
        while start < rows {
            let n = per.min(rows - start);
            let columns = (self.columns)(&mut r, start, n);
            let schema = schema.get_or_insert_with(|| {
                let fields: Vec<Field> = columns
                    .iter()
                    .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
                    .collect();
                Arc::new(Schema::new(fields))
            });
            let arrays = columns.into_iter().map(|(_, a)| a).collect();
            out.push(RecordBatch::try_new(schema.clone(), arrays).expect("table batch"));
            start += n;
        }
        out
    }
}

/// Every whole table, in report order.
pub const TABLES: [Table; 14] = [
    Table {
        name: "mixed4",
        description: "UUID, Decimal128(38,4) 10% nulls, Int64 0..10,000, Utf8 of 5 symbols",
        columns: mixed4,
    },
    Table {
        name: "prims",
        description: "Timestamp(ns, UTC) rising, Int64 0..10,000, Int32 0..40, Float64 prices, Date32",
        columns: prims,
    },
    Table {
        name: "int32",
        description: "Int32 in 0..1,000,000",
        columns: |r, _, n| vec![("int32", int32(r, n, 1_000_000))],
    },
    Table {
        name: "int64",
        description: "Int64 in 0..10,000",
        columns: |r, _, n| vec![("int64", int64(r, n, 10_000))],
    },
    Table {
        name: "uint64",
        description: "UInt64, any bit pattern",
        columns: |r, _, n| {
            let values: Vec<u64> = (0..n).map(|_| r.random()).collect();
            vec![(
                "uint64",
                Arc::new(PrimitiveArray::<UInt64Type>::from(values)) as ArrayRef,
            )]
        },
    },
    Table {
        name: "float64_nan",
        description: "Float64 prices with two decimals, 1% NaN",
        columns: |r, _, n| vec![("float64", prices(r, n, 0.01))],
    },
    Table {
        name: "timestamp",
        description: "Timestamp(ns, UTC) rising by 0-2 ms",
        columns: |r, start, n| vec![("ts", timestamps(r, start, n))],
    },
    Table {
        name: "date32",
        description: "Date32 changing every 100,000 rows",
        columns: |_, start, n| vec![("date32", dates(start, n))],
    },
    Table {
        name: "boolean",
        description: "Boolean, 10% nulls",
        columns: |r, _, n| {
            let values: Vec<Option<bool>> = (0..n)
                .map(|_| (!r.random_bool(0.1)).then(|| r.random_bool(0.5)))
                .collect();
            vec![("flag", Arc::new(BooleanArray::from(values)) as ArrayRef)]
        },
    },
    Table {
        name: "strs_low",
        description: "Utf8 of 5 four-byte symbols",
        columns: |r, _, n| vec![("sym", symbols(r, n))],
    },
    Table {
        name: "strs_high",
        description: "Utf8, random ASCII of 8 to 40 bytes",
        columns: |r, _, n| vec![("s", strs_high(r, n))],
    },
    Table {
        name: "views_high",
        description: "Utf8View, random ASCII of 8 to 40 bytes",
        columns: |r, _, n| vec![("s", views_high(r, n))],
    },
    Table {
        name: "binary_high",
        description: "Binary, random bytes, 8 to 40 of them",
        columns: |r, _, n| vec![("b", binary_high(r, n))],
    },
    Table {
        name: "dict_utf8",
        description: "Dictionary(Int32, Utf8), 10% nulls, the same 1,000 strings of 8 to 24 bytes",
        columns: |r, _, n| vec![("d", dict_utf8(r, n))],
    },
];

/// The table called `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

fn mixed4(r: &mut StdRng, _start: usize, n: usize) -> Vec<(&'static str, ArrayRef)> {
    let id = random_fsb16(r, n, None, true);
    let nulls = NullBuffer::from((0..n).map(|_| !r.random_bool(0.1)).collect::<Vec<_>>());
    let prices: Vec<i128> = (0..n).map(|_| r.random_range(1..100_000_000)).collect();
    let price = Decimal128Array::new(prices.into(), Some(nulls))
        .with_precision_and_scale(38, 4)
        .expect("valid precision");
    vec![
        ("id", id),
        ("price", Arc::new(price)),
        ("qty", int64(r, n, 10_000)),
        ("sym", symbols(r, n)),
    ]
}

fn prims(r: &mut StdRng, start: usize, n: usize) -> Vec<(&'static str, ArrayRef)> {
    vec![
        ("ts", timestamps(r, start, n)),
        ("id", int64(r, n, 10_000)),
        ("n", int32(r, n, 40)),
        ("price", prices(r, n, 0.0)),
        ("day", dates(start, n)),
    ]
}

fn int32(r: &mut StdRng, n: usize, below: i32) -> ArrayRef {
    let values: Vec<i32> = (0..n).map(|_| r.random_range(0..below)).collect();
    Arc::new(PrimitiveArray::<Int32Type>::from(values))
}

fn int64(r: &mut StdRng, n: usize, below: i64) -> ArrayRef {
    let values: Vec<i64> = (0..n).map(|_| r.random_range(0..below)).collect();
    Arc::new(PrimitiveArray::<Int64Type>::from(values))
}

/// Prices with two decimals around 100 (a random walk), `nan` of them NaN.
fn prices(r: &mut StdRng, n: usize, nan: f64) -> ArrayRef {
    let mut cents: i64 = 10_000;
    let values: Vec<f64> = (0..n)
        .map(|_| {
            cents = (cents + r.random_range(-20..=20)).max(1);
            match nan > 0.0 && r.random_bool(nan) {
                true => f64::NAN,
                false => cents as f64 / 100.0,
            }
        })
        .collect();
    Arc::new(PrimitiveArray::<Float64Type>::from(values))
}

/// Nanosecond timestamps from 2024-01-02T14:30Z, rising by 0 to 2 ms: row
/// `i` (of the whole table) is `i` ms past the start plus up to 1 ms, so
/// each batch rises above the last value of the batch before it, as event
/// times written in order do (and as `scripts/anchors.py`'s running sum
/// does).
fn timestamps(r: &mut StdRng, start: usize, n: usize) -> ArrayRef {
    const MS: i64 = 1_000_000;
    let values: Vec<i64> = (start..start + n)
        .map(|i| 1_704_205_800_000_000_000 + i as i64 * MS + r.random_range(0..MS))
        .collect();
    Arc::new(PrimitiveArray::<TimestampNanosecondType>::from(values).with_timezone("UTC"))
}

/// Days from 2024-01-02, the next one every 100,000 rows.
fn dates(start: usize, n: usize) -> ArrayRef {
    let values: Vec<i32> = (start..start + n)
        .map(|i| 19_724 + (i / 100_000) as i32)
        .collect();
    Arc::new(PrimitiveArray::<Date32Type>::from(values))
}

/// Five four-byte symbols.
fn symbols(r: &mut StdRng, n: usize) -> ArrayRef {
    const SYMBOLS: [&str; 5] = ["AAPL", "MSFT", "NVDA", "AMZN", "META"];
    Arc::new(StringArray::from_iter_values(
        (0..n).map(|_| SYMBOLS[r.random_range(0..SYMBOLS.len())]),
    ))
}

/// A random printable ASCII string of `min..=max` bytes.
fn ascii(r: &mut StdRng, min: usize, max: usize) -> String {
    let len = r.random_range(min..=max);
    (0..len)
        .map(|_| r.random_range(b' '..=b'~') as char)
        .collect()
}

fn strs_high(r: &mut StdRng, n: usize) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(
        (0..n).map(|_| ascii(r, 8, 40)),
    ))
}

fn views_high(r: &mut StdRng, n: usize) -> ArrayRef {
    let mut b = StringViewBuilder::with_capacity(n);
    for _ in 0..n {
        b.append_value(ascii(r, 8, 40));
    }
    Arc::new(b.finish())
}

fn binary_high(r: &mut StdRng, n: usize) -> ArrayRef {
    let values: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = r.random_range(8..=40);
            (0..len).map(|_| r.random()).collect()
        })
        .collect();
    Arc::new(BinaryArray::from_iter_values(values))
}

/// Keys into the same 1,000 strings in every batch (the dictionary from a
/// seed of its own), 10% of them null.
fn dict_utf8(r: &mut StdRng, n: usize) -> ArrayRef {
    let mut d = StdRng::seed_from_u64(1000);
    let values = StringArray::from_iter_values((0..1000).map(|_| ascii(&mut d, 8, 24)));
    let keys = PrimitiveArray::<Int32Type>::from_iter(
        (0..n).map(|_| (!r.random_bool(0.1)).then(|| r.random_range(0..1000))),
    );
    Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).expect("valid keys"))
}
