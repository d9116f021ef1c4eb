//! Shared by the integration tests, the example and the bench: the test
//! table, two contexts (stock and registered) and file comparisons.
#![allow(dead_code)]

pub mod lazy;
pub mod pool;
pub mod spy;
pub mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use datafusion::arrow::array::{
    ArrayRef, Decimal128Array, Decimal256Array, FixedSizeBinaryArray, Float32Array, Int64Array,
    ListArray, RecordBatch, StringArray, StructArray,
};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, i256};
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

/// A fresh, empty directory for one test's files.
pub fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "parquet-flba-df-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The test table's schema: decimals of several widths (FLBA and, for
/// precision 9, INT32), UUIDs, Float16, strings, a list and a struct of
/// FLBA leaves, and a low-cardinality `region` to partition by.
pub fn schema() -> SchemaRef {
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(4), true));
    Arc::new(Schema::new(vec![
        Field::new("row", DataType::Int64, false),
        Field::new("id", DataType::FixedSizeBinary(16), true),
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("amount", DataType::Decimal128(20, 4), true),
        Field::new("big", DataType::Decimal256(50, 5), true),
        Field::new("small", DataType::Decimal128(9, 2), true),
        Field::new("half", DataType::Float16, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("region", DataType::Utf8, false),
        Field::new("tags", DataType::List(item), true),
        Field::new(
            "detail",
            DataType::Struct(Fields::from(vec![
                Field::new("code", DataType::FixedSizeBinary(8), true),
                Field::new("rate", DataType::Decimal128(12, 3), true),
            ])),
            true,
        ),
    ]))
}

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Batch `n` of the test table: `rows` rows numbered from `first`.
pub fn batch(n: u64, first: i64, rows: usize) -> RecordBatch {
    let mut rng = Rng(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut r = move || rng.next();
    let row = Int64Array::from_iter_values((0..rows as i64).map(|i| first + i));
    let id = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..rows).map(|i| {
            let v = r();
            (i % 7 != 3).then(|| [v.to_le_bytes(), v.rotate_left(17).to_be_bytes()].concat())
        }),
        16,
    )
    .unwrap();
    let price =
        Decimal128Array::from_iter_values((0..rows).map(|_| (r() % 10_000_000_000) as i128 - 5))
            .with_precision_and_scale(38, 10)
            .unwrap();
    let amount = Decimal128Array::from_iter((0..rows).map(|i| {
        let v = r();
        (i % 5 != 0).then(|| (v % 1_000_000_000_000) as i128 * if v & 1 == 0 { 1 } else { -1 })
    }))
    .with_precision_and_scale(20, 4)
    .unwrap();
    let big = Decimal256Array::from_iter((0..rows).map(|i| {
        let v = r();
        (i % 3 != 1).then(|| i256::from_i128(v as i128 * 1_000_003 - (1 << 60)))
    }))
    .with_precision_and_scale(50, 5)
    .unwrap();
    let small = Decimal128Array::from_iter(
        (0..rows).map(|i| (i % 4 != 2).then(|| (r() % 9_999_999) as i128)),
    )
    .with_precision_and_scale(9, 2)
    .unwrap();
    let half = Float32Array::from_iter(
        (0..rows).map(|i| (i % 10 != 9).then(|| ((r() % 2000) as f32 - 1000.0) / 8.0)),
    );
    let half = datafusion::arrow::compute::cast(&half, &DataType::Float16).unwrap();
    let name =
        StringArray::from_iter((0..rows).map(|i| (i % 6 != 0).then(|| format!("n{}", r() % 50))));
    let region = StringArray::from_iter_values(
        (0..rows).map(|i| ["eu", "us", "ap"][(i * 7 + n as usize) % 3]),
    );
    let mut offsets = vec![0i32];
    let mut tag_values = Vec::new();
    for _ in 0..rows {
        let len = (r() % 4) as usize;
        for _ in 0..len {
            let v = r();
            tag_values.push((v % 5 != 0).then(|| (v as u32).to_le_bytes()));
        }
        offsets.push(tag_values.len() as i32);
    }
    let items =
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(tag_values.into_iter(), 4).unwrap();
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(4), true));
    let list_nulls = (0..rows).map(|i| i % 9 != 4).collect::<Vec<_>>();
    let tags = ListArray::new(
        item,
        OffsetBuffer::new(offsets.into()),
        Arc::new(items),
        Some(list_nulls.into()),
    );
    let code = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..rows).map(|i| (i % 8 != 1).then(|| r().to_be_bytes())),
        8,
    )
    .unwrap();
    let rate = Decimal128Array::from_iter(
        (0..rows).map(|i| (i % 11 != 0).then(|| (r() % 1_000_000_000) as i128)),
    )
    .with_precision_and_scale(12, 3)
    .unwrap();
    let DataType::Struct(detail_fields) = schema().field(10).data_type().clone() else {
        unreachable!()
    };
    let detail_nulls = (0..rows).map(|i| i % 13 != 6).collect::<Vec<_>>();
    let detail = StructArray::new(
        detail_fields,
        vec![Arc::new(code) as ArrayRef, Arc::new(rate)],
        Some(detail_nulls.into()),
    );
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(row),
            Arc::new(id),
            Arc::new(price),
            Arc::new(amount),
            Arc::new(big),
            Arc::new(small),
            half,
            Arc::new(name),
            Arc::new(region),
            Arc::new(tags),
            Arc::new(detail),
        ],
    )
    .unwrap()
}

/// `batches` batches of `rows` rows.
pub fn batches(batches: usize, rows: usize) -> Vec<RecordBatch> {
    (0..batches)
        .map(|n| batch(n as u64, (n * rows) as i64, rows))
        .collect()
}

/// A context with `target_partitions` (1 keeps rows in input order, so two
/// runs write the same bytes) and the table `t` over `data` in one
/// partition; `registered` puts parquet-flba in.
pub fn context(
    registered: bool,
    target_partitions: usize,
    data: &[RecordBatch],
) -> Result<SessionContext> {
    let config = SessionConfig::new().with_target_partitions(target_partitions);
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let ctx = SessionContext::new_with_state(state);
    if registered {
        parquet_flba_datafusion::register(&ctx)?;
    }
    let table = MemTable::try_new(schema(), vec![data.to_vec()])?;
    ctx.register_table("t", Arc::new(table))?;
    Ok(ctx)
}

/// Every file under `dir`, by path relative to `dir`, with the file name
/// of files whose name DataFusion makes up (`<random id>_<n>.parquet`)
/// reduced to `_<n>.parquet`, so two runs' listings can be compared.
pub fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, out);
        } else {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let rel = match rel.rsplit_once('/') {
                Some((parent, name)) => format!("{parent}/{}", strip_id(name)),
                None => strip_id(&rel),
            };
            out.push((rel, std::fs::read(&path).unwrap()));
        }
    }
}

fn strip_id(name: &str) -> String {
    match name.split_once('_') {
        Some((id, rest)) if id.len() == 16 && id.chars().all(|c| c.is_ascii_alphanumeric()) => {
            format!("_{rest}")
        }
        _ if name.len() == 16 + ".parquet".len() && name.ends_with(".parquet") => {
            "<id>.parquet".into()
        }
        _ => name.to_string(),
    }
}

/// The leaves of the test table that parquet-flba's fast path writes: all
/// of them (integers, strings, decimals, fixed-length).
pub const TABLE_FAST: [&str; 12] = [
    "row",
    "id",
    "price",
    "amount",
    "big",
    "small",
    "half",
    "name",
    "region",
    "tags.list.item",
    "detail.code",
    "detail.rate",
];

/// parquet-flba wrote files (`plans`, one per file), each leaf of the test
/// table's on the fast path exactly when it is in [`TABLE_FAST`]; returns
/// how many files.
pub fn assert_fast<'a>(
    case: &str,
    plans: impl IntoIterator<Item = &'a parquet_flba_datafusion::parquet_flba::ColumnPlan>,
) -> usize {
    use parquet_flba_datafusion::parquet_flba::LeafPath;
    let mut count = 0;
    for plan in plans {
        count += 1;
        for leaf in plan.leaves() {
            let name = leaf.column_path().string();
            assert_eq!(
                leaf.path() == LeafPath::Fast,
                TABLE_FAST.contains(&name.as_str()),
                "{case}: {name}\n{plan}"
            );
        }
    }
    assert!(count > 0, "{case}: no file written by parquet-flba");
    count
}
