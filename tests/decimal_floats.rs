//! Floats that are decimals (prices, amounts, whole numbers), which the
//! dictionary looks up by their digits rather than by a hash: written with
//! `parquet::arrow::ArrowWriter` and with this crate under every
//! configuration and compared byte for byte, every leaf asserted fast.
//! The columns mix in what must not share a key with a decimal: NaN
//! payloads, -0.0 next to 0.0, ±∞, 0.1 + 0.2 next to 0.3, values with
//! more decimals than the rest, values past the keys' range; and they
//! drift, so that the dictionary's window moves and its page fills and
//! falls back mid-column.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{ArrayRef, Float32Array, Float64Array, ListArray, RecordBatch};
use arrow_schema::{DataType, Field};
use common::*;
use parquet::file::properties::WriterPropertiesBuilder;
use rand::{Rng, SeedableRng, rngs::StdRng};

/// Values that look like decimals and are not, or are and must stay apart.
const ODD: [f64; 12] = [
    0.0,
    -0.0,
    f64::NAN,
    -f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    0.30000000000000004,
    0.3,
    1.005,
    2_251_799_813_685_248.5,
    4_194_304.25,
    5e-324,
];

/// A price walking by up to `step` hundredths (of which `odd` are drawn
/// from [`ODD`] or are a NaN with a payload), `None` every 17th row when
/// `nulls`.
fn prices(rng: &mut StdRng, n: usize, step: i64, odd: f64, nulls: bool) -> Vec<Option<f64>> {
    let mut cents: i64 = rng.random_range(-100_000..100_000);
    (0..n)
        .map(|i| {
            cents += rng.random_range(-step..=step);
            if nulls && i % 17 == 5 {
                return None;
            }
            Some(match rng.random_bool(odd) {
                true if rng.random_bool(0.2) => {
                    f64::from_bits(0x7ff8_0000_0000_0000 | rng.random_range(1..1 << 20))
                }
                true => ODD[rng.random_range(0..ODD.len())],
                false => cents as f64 / 100.0,
            })
        })
        .collect()
}

fn array(dt: &DataType, values: &[Option<f64>]) -> ArrayRef {
    match dt {
        DataType::Float32 => Arc::new(Float32Array::from_iter(
            values.iter().map(|v| v.map(|x| x as f32)),
        )),
        _ => Arc::new(Float64Array::from_iter(values.iter().copied())),
    }
}

/// A table of a nullable price, a required one and a list of prices of
/// `dt`, in `batches` batches of `rows` rows.
fn table(dt: &DataType, seed: u64, batches: usize, rows: usize) -> Vec<RecordBatch> {
    let mut rng = StdRng::seed_from_u64(seed);
    let item = Arc::new(Field::new("item", dt.clone(), true));
    let schema = schema_of(&[
        ("x", dt.clone(), true),
        ("r", dt.clone(), false),
        ("l", DataType::List(item.clone()), true),
    ]);
    (0..batches)
        .map(|b| {
            // Some batches drift fast (the window moves), some are mostly odd
            // values (the table takes them), most are prices.
            let (step, odd) = match b % 5 {
                3 => (5_000, 0.01),
                4 => (20, 0.6),
                _ => (20, 0.01),
            };
            let x = prices(&mut rng, rows, step, odd, true);
            let r = prices(&mut rng, rows, step, odd, false);
            let items = prices(&mut rng, rows * 2, step, odd, true);
            let used = (0..rows).map(|i| i % 4).sum::<usize>();
            let offsets = arrow_buffer::OffsetBuffer::<i32>::from_lengths((0..rows).map(|i| i % 4));
            let list = ListArray::new(item.clone(), offsets, array(dt, &items[..used]), None);
            RecordBatch::try_new(
                schema.clone(),
                vec![array(dt, &x), array(dt, &r), Arc::new(list)],
            )
            .unwrap()
        })
        .collect()
}

fn cases() -> Vec<(String, WriterPropertiesBuilder)> {
    let mut cases: Vec<(String, WriterPropertiesBuilder)> = configs()
        .into_iter()
        .map(|(name, b)| (name.to_string(), b))
        .collect();
    cases.push(("small_pages".into(), small_pages(config("default"))));
    cases.push((
        "dictionary_falls_back".into(),
        config("default")
            .set_dictionary_page_size_limit(4_096)
            .set_max_row_group_row_count(Some(7_000)),
    ));
    cases.push((
        "parquet_2_falls_back".into(),
        config("parquet_2")
            .set_dictionary_page_size_limit(2_000)
            .set_write_batch_size(333),
    ));
    cases
}

#[test]
fn decimal_floats_match_parquet() {
    for dt in [DataType::Float64, DataType::Float32] {
        let batches = table(&dt, base_seed() ^ 0xF10A7, 10, 3_000);
        let schema = batches[0].schema();
        for (config, b) in cases() {
            let name = format!("{}/{config}", type_name(&dt));
            both(&name, &schema, &batches, b.build());
        }
    }
}

/// Long walks in one row group: the window grows and moves many times
/// before the dictionary page fills.
#[test]
fn a_long_walk_matches_parquet() {
    for dt in [DataType::Float64, DataType::Float32] {
        let mut rng = StdRng::seed_from_u64(base_seed() ^ 0x3A1C);
        let schema = schema_of(&[("p", dt.clone(), true)]);
        let batches: Vec<RecordBatch> = (0..6)
            .map(|_| {
                let values = prices(&mut rng, 40_000, 40, 0.005, false);
                RecordBatch::try_new(schema.clone(), vec![array(&dt, &values)]).unwrap()
            })
            .collect();
        for config in ["default", "bloom_filter", "parquet_2"] {
            let name = format!("{}/long/{config}", type_name(&dt));
            both(&name, &schema, &batches, config_props(config));
        }
    }
}

fn config_props(name: &str) -> parquet::file::properties::WriterProperties {
    config(name).build()
}
