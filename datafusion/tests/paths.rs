//! The writes beyond plain `COPY` / `INSERT INTO`, each run on DataFusion's
//! sink and on parquet-flba's and compared byte for byte: `INSERT
//! OVERWRITE` (the same error), `DataFrame::write_table`, hive-partitioned
//! listing tables with `keep_partition_by_columns`, partitioned tables
//! `WITH ORDER`, empty inputs and zero-row batches, `max_row_group_bytes`,
//! `soft_max_rows_per_output_file`, and decimals of every width,
//! dictionary- and run-end-encoded columns, nested fields.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::spy::Spy;
use common::{batches, files, schema, scratch};
use datafusion::arrow::array::{
    Array, ArrayRef, Decimal32Array, Decimal64Array, DictionaryArray, FixedSizeBinaryArray,
    Int32Array, Int64Array, RecordBatch, RunArray, StructArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Int32Type, Schema, SchemaRef};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::datasource::MemTable;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{SessionConfig, SessionContext};
use parquet_flba_datafusion::FlbaParquetSink;
use parquet_flba_datafusion::parquet_flba::{ColumnPlan, LeafPath};

/// A context (stock or parquet-flba) with table `t`: `data` of `schema`
/// in one partition; `config` applied.
fn ctx_with(
    registered: bool,
    schema: SchemaRef,
    data: Vec<RecordBatch>,
    config: impl Fn(SessionConfig) -> SessionConfig,
) -> SessionContext {
    let config = config(SessionConfig::new().with_target_partitions(1));
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let ctx = SessionContext::new_with_state(state);
    if registered {
        parquet_flba_datafusion::register(&ctx).unwrap();
    }
    let table = MemTable::try_new(schema, vec![data]).unwrap();
    ctx.register_table("t", Arc::new(table)).unwrap();
    ctx
}

/// Runs `sql` and returns the plans of the files parquet-flba's sink wrote
/// (none for DataFusion's sink), wherever the sink is in the plan.
async fn run(ctx: &SessionContext, sql: &str) -> Result<Vec<ColumnPlan>> {
    let plan = ctx.sql(sql).await?.create_physical_plan().await?;
    collect(Arc::clone(&plan), ctx.task_ctx()).await?;
    let mut plans = Vec::new();
    written(&plan, &mut plans);
    Ok(plans)
}

/// The plans of the files every parquet-flba sink in `plan` wrote.
fn written(plan: &Arc<dyn ExecutionPlan>, out: &mut Vec<ColumnPlan>) {
    if let Some(sink) = plan
        .downcast_ref::<DataSinkExec>()
        .and_then(|e| e.sink().downcast_ref::<FlbaParquetSink>())
    {
        out.extend(sink.written_plans().into_values());
    }
    for child in plan.children() {
        written(child, out);
    }
}

/// Same files under both directories (and some); returns how many.
fn assert_same(case: &str, dirs: &[PathBuf]) -> usize {
    let (a, b) = (files(&dirs[0]), files(&dirs[1]));
    let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert!(!a.is_empty(), "{case}: no files");
    assert_eq!(names(&a), names(&b), "{case}");
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{case}: {name} differs");
    }
    a.len()
}

/// The leaves named in `fast`, and every other leaf of a kind the crate
/// writes, took the fast path; the others did not.
fn assert_paths(case: &str, plans: &[ColumnPlan], fast: &[&str]) {
    assert!(
        !plans.is_empty(),
        "{case}: no files written by parquet-flba"
    );
    for plan in plans {
        for leaf in plan.leaves() {
            let name = leaf.column_path().string();
            let on_fast = leaf.path() == LeafPath::Fast;
            // Named, or of a kind the crate writes (integers and strings
            // since the whole-table work) outside a dictionary or run-end
            // encoding (parquet 59's rules): the fast path.
            assert_eq!(
                on_fast,
                fast.contains(&name.as_str())
                    || leaf.kind().is_some()
                        && leaf.reason()
                            != Some(
                                parquet_flba_datafusion::parquet_flba::DelegateReason::WrappedUnderParquet59,
                            ),
                "{case}: {name}\n{plan}"
            );
        }
    }
}

/// A listing table over `dir` with `ParquetFormat` built directly.
async fn listing(
    ctx: &SessionContext,
    name: &str,
    dir: &Path,
    schema: SchemaRef,
    partition: Option<&str>,
) {
    let mut options =
        ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(".parquet");
    if let Some(column) = partition {
        options = options.with_table_partition_cols(vec![(column.to_string(), DataType::Utf8)]);
    }
    let url = ListingTableUrl::parse(format!("{}/", dir.display())).unwrap();
    ctx.register_listing_table(name, url, options, Some(schema), None)
        .await
        .unwrap();
}

const TABLE_FAST: [&str; 12] = [
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

/// `INSERT OVERWRITE` a listing table: DataFusion 55.2 refuses it ("This
/// feature is not implemented: Overwrites are not implemented yet for
/// Parquet"); so does parquet-flba's context, with the same error, and
/// nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insert_overwrite_fails_as_in_datafusion() {
    let mut errors = Vec::new();
    for registered in [false, true] {
        let dir = scratch("overwrite");
        let ctx = ctx_with(registered, schema(), batches(2, 100), |c| c);
        listing(&ctx, "target", &dir, schema(), None).await;
        let e = run(&ctx, "INSERT OVERWRITE target SELECT * FROM t")
            .await
            .expect_err("INSERT OVERWRITE is refused");
        assert!(files(&dir).is_empty());
        assert!(
            e.to_string().contains("Overwrites are not implemented"),
            "{e}"
        );
        errors.push(e.to_string());
    }
    assert_eq!(errors[0], errors[1]);
}

/// `DataFrame::write_table` into a listing table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dataframe_write_table() {
    let mut dirs = Vec::new();
    for registered in [false, true] {
        let dir = scratch("write-table");
        let ctx = ctx_with(registered, schema(), batches(3, 1_000), |c| c);
        let spy = Spy::install(&ctx);
        listing(&ctx, "target", &dir, schema(), None).await;
        ctx.table("t")
            .await
            .unwrap()
            .write_table("target", DataFrameWriteOptions::new())
            .await
            .unwrap();
        if registered {
            assert_eq!(spy.sinks(), (0, 1), "(stock, ours) sinks");
            assert_paths(
                "write_table",
                &spy.written().into_values().collect::<Vec<_>>(),
                &TABLE_FAST,
            );
        } else {
            assert_eq!(spy.sinks(), (1, 0), "(stock, ours) sinks");
        }
        dirs.push(dir);
    }
    assert_same("write_table", &dirs);
}

/// `INSERT INTO` a hive-partitioned listing table, with and without
/// `keep_partition_by_columns` (the partition column written in the files
/// too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hive_partitioned_table_keep_partition_by_columns() {
    let file_schema = Arc::new(Schema::new(
        schema()
            .fields()
            .iter()
            .filter(|f| f.name() != "region")
            .cloned()
            .collect::<Vec<_>>(),
    ));
    let columns = file_schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ");
    for keep in [false, true] {
        let case = format!("keep_partition_by_columns={keep}");
        let mut dirs = Vec::new();
        let mut plans = Vec::new();
        for registered in [false, true] {
            let dir = scratch("hive");
            let ctx = ctx_with(registered, schema(), batches(3, 1_000), |c| {
                c.set_bool("datafusion.execution.keep_partition_by_columns", keep)
            });
            listing(
                &ctx,
                "target",
                &dir,
                Arc::clone(&file_schema),
                Some("region"),
            )
            .await;
            let sql = format!("INSERT INTO target SELECT {columns}, region FROM t");
            plans = run(&ctx, &sql).await.unwrap();
            dirs.push(dir);
        }
        assert_eq!(assert_same(&case, &dirs), 3, "{case}");
        assert_paths(&case, &plans, &TABLE_FAST);
        assert_eq!(
            plans[0].leaves().len(),
            if keep { 12 } else { 11 },
            "{case}"
        );
    }
}

/// `INSERT INTO` a table `PARTITIONED BY` a column and `WITH ORDER`: the
/// rows are sorted and each file carries the sorting column (indexed in
/// the file's schema, which has no partition column).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitioned_table_with_order() {
    let mut dirs = Vec::new();
    let mut plans = Vec::new();
    for registered in [false, true] {
        let dir = scratch("ordered");
        let ctx = ctx_with(registered, schema(), batches(3, 1_000), |c| c);
        let ddl = format!(
            "CREATE EXTERNAL TABLE target (row BIGINT NOT NULL, price DECIMAL(38, 10) NOT NULL, \
             small DECIMAL(9, 2), name VARCHAR, region VARCHAR NOT NULL) STORED AS PARQUET \
             PARTITIONED BY (region) WITH ORDER (price DESC) LOCATION '{}/'",
            dir.display()
        );
        run(&ctx, &ddl).await.unwrap();
        plans = run(
            &ctx,
            "INSERT INTO target SELECT row, price, small, name, region FROM t",
        )
        .await
        .unwrap();
        dirs.push(dir);
    }
    assert_eq!(assert_same("ordered", &dirs), 3);
    assert_paths("ordered", &plans, &["price", "small"]);
    for (name, bytes) in files(&dirs[1]) {
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
        let sorting = reader.metadata().row_group(0).sorting_columns().cloned();
        let sorting = sorting.unwrap_or_else(|| panic!("{name}: no sorting columns"));
        assert_eq!(sorting.len(), 1, "{name}");
        assert_eq!(
            (sorting[0].column_idx, sorting[0].descending),
            (1, true),
            "{name}"
        );
    }
}

/// No rows at all, and zero-row batches among others (one right where a
/// row group fills up), on both paths: one file, single file and
/// partitioned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_input_and_zero_row_batches() {
    let mut mixed = Vec::new();
    for (n, batch) in batches(4, 500).into_iter().enumerate() {
        mixed.push(batch.slice(0, 0));
        mixed.push(batch);
        if n == 1 {
            mixed.push(mixed[0].clone());
        }
    }
    let inputs = [("empty", Vec::new()), ("zero-row batches", mixed)];
    for (name, data) in inputs {
        for parallel in [true, false] {
            for target in ["x.parquet", ""] {
                let case = format!("{name} parallel={parallel} target={target:?}");
                let mut dirs = Vec::new();
                for registered in [false, true] {
                    let dir = scratch("empty");
                    let ctx = ctx_with(registered, schema(), data.clone(), |c| c);
                    let sql = format!(
                        "COPY t TO '{}/{target}' STORED AS PARQUET OPTIONS \
                         ('allow_single_file_parallelism' '{parallel}', 'max_row_group_size' '1000')",
                        dir.display()
                    );
                    let plans = run(&ctx, &sql).await.unwrap();
                    // DataFusion writes no file for an empty directory
                    // write; otherwise parquet-flba's sink wrote it.
                    if registered && !(data.is_empty() && target.is_empty()) {
                        assert_paths(&case, &plans, &TABLE_FAST);
                    }
                    dirs.push(dir);
                }
                if data.is_empty() && target.is_empty() {
                    // DataFusion writes no file for an empty directory write.
                    assert_eq!(files(&dirs[0]).len(), files(&dirs[1]).len(), "{case}");
                    continue;
                }
                assert_same(&case, &dirs);
            }
        }
    }
}

/// `max_row_group_bytes` (row groups cut by their estimated size) and
/// `soft_max_rows_per_output_file` (the output split into files).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_group_bytes_and_rows_per_file() {
    let data = batches(6, 2_000);
    for parallel in [true, false] {
        let case = format!("max_row_group_bytes parallel={parallel}");
        let mut dirs = Vec::new();
        for registered in [false, true] {
            let dir = scratch("group-bytes");
            let ctx = ctx_with(registered, schema(), data.clone(), |c| c);
            let sql = format!(
                "COPY t TO '{}/x.parquet' STORED AS PARQUET OPTIONS \
                 ('allow_single_file_parallelism' '{parallel}', 'max_row_group_bytes' '300000')",
                dir.display()
            );
            let plans = run(&ctx, &sql).await.unwrap();
            if registered {
                assert_paths(&case, &plans, &TABLE_FAST);
            }
            dirs.push(dir);
        }
        assert_same(&case, &dirs);
        // The sequential writer cuts row groups by their estimated size;
        // DataFusion's parallel path cuts by rows only (so one here).
        let (_, bytes) = files(&dirs[1]).remove(0);
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
        let groups = reader.metadata().num_row_groups();
        assert_eq!(groups > 1, !parallel, "{case}: {groups} row groups");

        let case = format!("soft_max_rows_per_output_file parallel={parallel}");
        let mut dirs = Vec::new();
        for registered in [false, true] {
            let dir = scratch("rows-per-file");
            let ctx = ctx_with(registered, schema(), data.clone(), |c| {
                c.set_usize("datafusion.execution.soft_max_rows_per_output_file", 3_000)
                    .set_usize("datafusion.execution.minimum_parallel_output_files", 1)
            });
            let sql = format!(
                "COPY t TO '{}/' STORED AS PARQUET OPTIONS \
                 ('allow_single_file_parallelism' '{parallel}')",
                dir.display()
            );
            let plans = run(&ctx, &sql).await.unwrap();
            if registered {
                assert_paths(&case, &plans, &TABLE_FAST);
                assert_eq!(
                    plans.len(),
                    files(&dir).len(),
                    "{case}: files by parquet-flba"
                );
            }
            dirs.push(dir);
        }
        let count = assert_same(&case, &dirs);
        assert!(count > 1, "{case}: the output is split, {count} files");
    }
}

/// Decimal32 and Decimal64 (INT32 / INT64), a dictionary of UUIDs, a
/// run-end-encoded decimal, and a struct of them: the same files; the
/// decimals are on the fast path, the dictionary- and run-end-encoded
/// leaves are `parquet`'s under parquet 59 (its own rules there).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decimals_dictionaries_run_ends_and_nesting() {
    let rows = 3_000usize;
    let d32 = Decimal32Array::from_iter((0..rows).map(|i| (i % 7 != 0).then_some(i as i32 * 13)))
        .with_precision_and_scale(9, 2)
        .unwrap();
    let d64 = Decimal64Array::from_iter_values((0..rows).map(|i| i as i64 * 1_000_003 - 5))
        .with_precision_and_scale(18, 4)
        .unwrap();
    let uuids = FixedSizeBinaryArray::try_from_iter((0..50u8).map(|v| [v; 16])).unwrap();
    let keys = Int32Array::from_iter((0..rows).map(|i| (i % 11 != 3).then_some((i % 50) as i32)));
    let dict = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(uuids)).unwrap();
    let ends = Int32Array::from_iter_values((1..=rows as i32 / 10).map(|e| e * 10));
    let values = datafusion::arrow::array::Decimal128Array::from_iter_values(
        (0..rows as i128 / 10).map(|v| v * 7),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let ree = RunArray::<Int32Type>::try_new(&ends, &values).unwrap();
    let inner = Fields::from(vec![
        Field::new("d32", d32.data_type().clone(), true),
        Field::new("d64", d64.data_type().clone(), false),
    ]);
    let nested = StructArray::new(
        inner.clone(),
        vec![Arc::new(d32.clone()) as ArrayRef, Arc::new(d64.clone())],
        None,
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("row", DataType::Int64, false),
        Field::new("d32", d32.data_type().clone(), true),
        Field::new("d64", d64.data_type().clone(), false),
        Field::new("dict", dict.data_type().clone(), true),
        Field::new("ree", ree.data_type().clone(), false),
        Field::new("nested", DataType::Struct(inner), false),
    ]));
    let row = Int64Array::from_iter_values(0..rows as i64);
    let batch = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(row),
            Arc::new(d32),
            Arc::new(d64),
            Arc::new(dict),
            Arc::new(ree),
            Arc::new(nested),
        ],
    )
    .unwrap();
    let data: Vec<RecordBatch> = (0..3).map(|n| batch.slice(n * 1_000, 1_000)).collect();
    for parallel in [true, false] {
        let case = format!("widths parallel={parallel}");
        let mut dirs = Vec::new();
        let mut plans = Vec::new();
        for registered in [false, true] {
            let dir = scratch("widths");
            let ctx = ctx_with(registered, Arc::clone(&schema), data.clone(), |c| c);
            let sql = format!(
                "COPY t TO '{}/x.parquet' STORED AS PARQUET OPTIONS \
                 ('allow_single_file_parallelism' '{parallel}')",
                dir.display()
            );
            plans = run(&ctx, &sql).await.unwrap();
            dirs.push(dir);
        }
        assert_same(&case, &dirs);
        assert_paths(&case, &plans, &["d32", "d64", "nested.d32", "nested.d64"]);
    }
}
