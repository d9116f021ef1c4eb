//! String and binary tables (issue 39): 2,097,152 rows written as 64
//! batches of 32,768, as the whole-table comparisons measure them.
//!
//! - `strs_low`: `Utf8`, non-null, 5 distinct four-byte symbols;
//! - `strs_high`: `Utf8`, non-null, random ASCII strings of 8 to 40 bytes;
//! - `views_high`: the same values as `strs_high`, as `Utf8View`;
//! - `binary_high`: `Binary`, non-null, random bytes, 8 to 40 of them;
//! - `dict_utf8`: `Dictionary(Int32, Utf8)`, 10% nulls, each batch's
//!   dictionary the same 1,000 distinct strings of 8 to 24 bytes.

use std::sync::Arc;

use arrow_array::builder::StringViewBuilder;
use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, DictionaryArray, Int32Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Rows of every string table.
pub const TABLE_ROWS: usize = 1 << 21;
/// Batches each string table is written as.
pub const TABLE_BATCHES: usize = 64;

/// A string table: its name, a description, and its batches' generator.
pub struct StringTable {
    /// Name used in bench IDs and reports.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    build: fn(usize, &mut StdRng) -> ArrayRef,
}

impl StringTable {
    /// `batches` batches of `rows / batches` rows each (deterministic), one
    /// non-nullable column `s` (nullable for `dict_utf8`).
    pub fn build(&self, rows: usize, batches: usize) -> Vec<RecordBatch> {
        let mut r = StdRng::seed_from_u64(39);
        let per = rows / batches.max(1);
        (0..batches)
            .map(|_| {
                let array = (self.build)(per, &mut r);
                let nullable = array.null_count() > 0;
                let schema =
                    Schema::new(vec![Field::new("s", array.data_type().clone(), nullable)]);
                RecordBatch::try_new(Arc::new(schema), vec![array]).expect("valid batch")
            })
            .collect()
    }
}

/// Every string table, in report order.
pub const STRING_TABLES: [StringTable; 5] = [
    StringTable {
        name: "strs_low",
        description: "Utf8, non-null, 5 distinct four-byte symbols",
        build: strs_low,
    },
    StringTable {
        name: "strs_high",
        description: "Utf8, non-null, random ASCII of 8 to 40 bytes",
        build: strs_high,
    },
    StringTable {
        name: "views_high",
        description: "Utf8View, the values of strs_high",
        build: views_high,
    },
    StringTable {
        name: "binary_high",
        description: "Binary, non-null, random bytes, 8 to 40 of them",
        build: binary_high,
    },
    StringTable {
        name: "dict_utf8",
        description: "Dictionary(Int32, Utf8), 10% nulls, 1,000 distinct strings of 8 to 24 bytes",
        build: dict_utf8,
    },
];

/// The string table called `name`.
pub fn string_table(name: &str) -> Option<&'static StringTable> {
    STRING_TABLES.iter().find(|t| t.name == name)
}

const SYMBOLS: [&str; 5] = ["AAPL", "MSFT", "NVDA", "AMZN", "META"];

fn strs_low(rows: usize, r: &mut StdRng) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(
        (0..rows).map(|_| SYMBOLS[r.random_range(0..SYMBOLS.len())]),
    ))
}

/// A random printable ASCII string of `min..=max` bytes.
fn ascii(r: &mut StdRng, min: usize, max: usize) -> String {
    let len = r.random_range(min..=max);
    (0..len)
        .map(|_| r.random_range(b' '..=b'~') as char)
        .collect()
}

fn high_values(rows: usize, r: &mut StdRng) -> Vec<String> {
    (0..rows).map(|_| ascii(r, 8, 40)).collect()
}

fn strs_high(rows: usize, r: &mut StdRng) -> ArrayRef {
    Arc::new(StringArray::from_iter_values(high_values(rows, r)))
}

fn views_high(rows: usize, r: &mut StdRng) -> ArrayRef {
    let mut b = StringViewBuilder::with_capacity(rows);
    for v in high_values(rows, r) {
        b.append_value(v);
    }
    Arc::new(b.finish())
}

fn binary_high(rows: usize, r: &mut StdRng) -> ArrayRef {
    let values: Vec<Vec<u8>> = (0..rows)
        .map(|_| {
            let len = r.random_range(8..=40);
            (0..len).map(|_| r.random()).collect()
        })
        .collect();
    Arc::new(BinaryArray::from_iter_values(values))
}

fn dict_utf8(rows: usize, r: &mut StdRng) -> ArrayRef {
    // The same dictionary in every batch, from its own seed.
    let mut d = StdRng::seed_from_u64(1000);
    let values = StringArray::from_iter_values((0..1000).map(|_| ascii(&mut d, 8, 24)));
    let keys = Int32Array::from_iter(
        (0..rows).map(|_| (!r.random_bool(0.1)).then(|| r.random_range(0..1000))),
    );
    let array = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).expect("valid keys");
    debug_assert!(matches!(array.data_type(), DataType::Dictionary(_, _)));
    Arc::new(array)
}
