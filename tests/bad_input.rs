//! Bad input: the intended behaviour of parquet_flba where it deliberately
//! differs from (or goes beyond) upstream `parquet::arrow::ArrowWriter`.
//!
//! * A decimal whose value does not fit the column's FLBA byte width
//!   (upstream silently truncates it) is an error naming the column and row.
//! * A null in a non-nullable field, a batch whose column types do not match
//!   the schema, or a batch with the wrong number of columns is an error.
//! * After any failed `write`, the writer stays usable: the failed batch
//!   contributes nothing, and the finished file is byte-identical to what
//!   upstream writes for the valid batches alone.
//! * Nothing panics.
//!
//! Several of these tests are expected to fail against the re-exporting stub
//! (which *is* upstream); they encode the contract for the real implementation.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Decimal128Array, Decimal256Array, DictionaryArray, FixedSizeBinaryArray, Int32Array,
    Int64Array, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, i256};
use arrow_schema::{DataType, Field, Fields, SchemaRef};
use common::*;
use parquet::arrow::ArrowSchemaConverter;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::writer::SerializedFileWriter;

/// Checks a `ParquetError` message.
type MessageCheck = Box<dyn Fn(&str) -> Result<(), String>>;

/// One step of a write script.
enum Item {
    /// Must be written successfully.
    Good(RecordBatch),
    /// Must fail; the closure checks the error message.
    Bad(RecordBatch, MessageCheck),
}

fn good(b: RecordBatch) -> Item {
    Item::Good(b)
}

/// A bad batch whose error must mention every string in `needles` and, if
/// given, one of the row numbers in `rows` (as a whole number).
fn bad(b: RecordBatch, needles: &[&str], rows: &[usize]) -> Item {
    let needles: Vec<String> = needles.iter().map(|s| s.to_string()).collect();
    let rows = rows.to_vec();
    Item::Bad(
        b,
        Box::new(move |msg: &str| {
            for n in &needles {
                if !msg.contains(n.as_str()) {
                    return Err(format!("error message {msg:?} does not mention {n:?}"));
                }
            }
            if !rows.is_empty() && !rows.iter().any(|&r| contains_number(msg, r)) {
                return Err(format!(
                    "error message {msg:?} does not mention the row (any of {rows:?})"
                ));
            }
            Ok(())
        }),
    )
}

/// A bad batch: any error will do.
fn bad_any(b: RecordBatch) -> Item {
    bad(b, &[], &[])
}

/// Run `script` through parquet_flba: good batches must succeed, bad ones
/// must fail (without panicking, without changing the buffered row count or
/// bytes written); the file must equal upstream's for the good batches alone
/// and read back.
fn assert_recovers(name: &str, schema: &SchemaRef, props: WriterProperties, script: &[Item]) {
    let fail = |msg: String| -> ! { panic!("case `{name}`: {msg}\n{}", seed_note()) };
    let opts = Opts::props(props);
    let goods: Vec<RecordBatch> = script
        .iter()
        .filter_map(|i| match i {
            Item::Good(b) => Some(b.clone()),
            Item::Bad(..) => None,
        })
        .collect();
    let expected = up::write(schema, &goods, &opts)
        .unwrap_or_else(|e| fail(format!("upstream rejected the good batches: {e}")));

    let result = no_panic("parquet_flba", || -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        let mut w = flba::writer(&mut bytes, schema, &opts).map_err(|e| format!("try_new: {e}"))?;
        let mut good_steps = expected.steps.iter();
        for (i, item) in script.iter().enumerate() {
            match item {
                Item::Good(b) => {
                    w.write(b)
                        .map_err(|e| format!("write #{i} (a valid batch) failed: {e}"))?;
                    let state = (
                        w.in_progress_size(),
                        w.in_progress_rows(),
                        w.bytes_written(),
                    );
                    let up = good_steps.next().unwrap();
                    let up = (up.in_progress_size, up.in_progress_rows, up.bytes_written);
                    if state != up {
                        return Err(format!(
                            "after write #{i}, (in_progress_size, in_progress_rows, bytes_written) \
                             is {state:?}; upstream without the bad batches: {up:?}"
                        ));
                    }
                }
                Item::Bad(b, check) => {
                    let before = (w.in_progress_rows(), w.bytes_written());
                    match w.write(b) {
                        Ok(()) => return Err(format!("write #{i} (a bad batch) succeeded")),
                        Err(e) => check(&e.to_string()).map_err(|m| format!("write #{i}: {m}"))?,
                    }
                    let after = (w.in_progress_rows(), w.bytes_written());
                    if before != after {
                        return Err(format!(
                            "write #{i} failed but changed (in_progress_rows, bytes_written) from {before:?} to {after:?}"
                        ));
                    }
                }
            }
        }
        w.close().map_err(|e| format!("close: {e}"))?;
        Ok(bytes)
    });
    let bytes = match result {
        Ok(Ok(b)) => b,
        Ok(Err(e)) | Err(e) => fail(e),
    };
    if let Some(diff) = compare_files(&expected.bytes, &bytes) {
        fail(format!(
            "file after the failed write(s) differs from upstream writing only the valid batches:\n{diff}"
        ));
    }
    if let Err(e) = check_round_trip(schema, &goods, &bytes, false) {
        fail(format!("round trip: {e}"));
    }
}

/// parquet 59 does not check required fields for nulls (docs/releases.md
/// D15): it writes a null slot's stored bytes. Under the `parquet-59`
/// feature the "bad" batch of the tests below is then data: after a good
/// batch of 100 rows, both writers must write the same file from it, in
/// each of `configs`.
fn same_file_without_required_check(
    name: &str,
    schema: &SchemaRef,
    g: &mut Gen,
    bad: &RecordBatch,
    configs: Vec<(&str, WriterProperties)>,
) {
    for (cfg, props) in configs {
        let name = format!("{name}/{cfg}");
        let batches = [g.batch(schema, 100, &Spec::default()), bad.clone()];
        let up = no_panic("upstream", || {
            let mut w = up::writer(Vec::new(), schema, &Opts::props(props.clone()))?;
            for b in &batches {
                w.write(b)?;
            }
            w.into_inner()
        });
        let ours = no_panic("parquet_flba", || {
            let mut w = parquet_flba::ArrowWriter::try_new(
                Vec::new(),
                schema.clone(),
                Some(props.clone()),
            )?;
            for b in &batches {
                w.write(b)?;
            }
            w.into_inner()
        });
        match (up, ours) {
            (Ok(Ok(up)), Ok(Ok(ours))) => {
                if let Some(diff) = compare_files(&up, &ours) {
                    panic!("{name}: files differ:\n{diff}");
                }
            }
            (up, ours) => panic!(
                "{name}: upstream {:?}, parquet_flba {:?}",
                up.map(|r| r.map(|_| ())),
                ours.map(|r| r.map(|_| ()))
            ),
        }
    }
}

/// [`configs`] built.
fn built_configs() -> Vec<(&'static str, WriterProperties)> {
    configs().into_iter().map(|(c, b)| (c, b.build())).collect()
}

/// Upstream also rejects this batch (so the error is not a parquet_flba invention).
fn assert_upstream_rejects(name: &str, schema: &SchemaRef, batch: &RecordBatch) {
    let r = no_panic("upstream", || {
        let mut w = up::writer(Vec::new(), schema, &Opts::default()).unwrap();
        w.write(batch).map(|_| ())
    });
    match r {
        Ok(Err(_)) => {}
        Ok(Ok(())) => panic!("{name}: upstream accepted the batch"),
        Err(p) => panic!("{name}: upstream {p}"),
    }
}

/// `2^k` as i256 (k < 255).
fn pow2(k: u32) -> i256 {
    i256::from_i128(2).wrapping_pow(k)
}

/// The FIXED_LEN_BYTE_ARRAY width of a decimal of precision `p`, by the
/// formula upstream uses (`decimal_length_from_precision`).
fn flba_width(p: u8) -> u32 {
    (((10.0_f64.powi(p as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as u32
}

fn dec128(p: u8, s: i8, vals: Vec<Option<i128>>) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(vals)
            .with_precision_and_scale(p, s)
            .unwrap(),
    )
}

fn dec256(p: u8, s: i8, vals: Vec<Option<i256>>) -> ArrayRef {
    Arc::new(
        Decimal256Array::from(vals)
            .with_precision_and_scale(p, s)
            .unwrap(),
    )
}

fn ids(from: i64, n: usize) -> ArrayRef {
    Arc::new(Int64Array::from_iter_values(from..from + n as i64))
}

/// `[id: Int64 non-null, price: Decimal128(20,2)]` with `n` rows, `price` in
/// range except `bad` at `row`.
fn price_batch(
    schema: &SchemaRef,
    from: i64,
    n: usize,
    bad_at: Option<(usize, i128)>,
) -> RecordBatch {
    let vals = (0..n)
        .map(|i| match bad_at {
            Some((r, v)) if r == i => Some(v),
            _ if i % 10 == 3 => None,
            _ => Some((i as i128 - 50) * 1_000_003),
        })
        .collect();
    RecordBatch::try_new(schema.clone(), vec![ids(from, n), dec128(20, 2, vals)]).unwrap()
}

fn price_schema() -> SchemaRef {
    schema_of(&[
        ("id", DataType::Int64, false),
        ("price", DataType::Decimal128(20, 2), true),
    ])
}

// ---------------------------------------------------------------------------
// Decimals that do not fit their byte width
// ---------------------------------------------------------------------------

#[test]
fn decimal128_value_too_wide_for_byte_width_is_an_error() {
    let schema = price_schema();
    for (label, bad_value) in [
        ("i128_max", i128::MAX),
        ("i128_min", i128::MIN),
        ("2^71", 1i128 << 71),
    ] {
        for row in [0usize, 37, 79] {
            let name = format!("decimal128_overflow/{label}/row_{row}");
            let script = [
                good(price_batch(&schema, 0, 100, None)),
                bad(
                    price_batch(&schema, 100, 80, Some((row, bad_value))),
                    &["price"],
                    &[row, 100 + row],
                ),
                good(price_batch(&schema, 180, 60, None)),
            ];
            assert_recovers(&name, &schema, WriterProperties::default(), &script);
        }
    }
}

#[test]
fn decimal128_overflow_in_first_batch_and_with_other_configs() {
    let schema = price_schema();
    for (cfg, props) in configs() {
        let name = format!("decimal128_overflow_first/{cfg}");
        let script = [
            bad(
                price_batch(&schema, 0, 50, Some((49, i128::MAX))),
                &["price"],
                &[49],
            ),
            good(price_batch(&schema, 0, 100, None)),
            bad(
                price_batch(&schema, 100, 20, Some((3, -(1i128 << 71) - 1))),
                &["price"],
                &[3, 103],
            ),
        ];
        assert_recovers(&name, &schema, props.build(), &script);
    }
}

/// The first value that does not fit `L` bytes is an error; the last one
/// that fits (and its negative bound) is written exactly as upstream writes it.
#[test]
fn decimal128_byte_width_boundaries_every_precision() {
    for p in 19..=37u8 {
        let width = flba_width(p);
        if width >= 16 {
            continue; // every i128 fits
        }
        let max_fit = (1i128 << (8 * width - 1)) - 1;
        let min_fit = -(1i128 << (8 * width - 1));
        let schema = schema1("dec_col", DataType::Decimal128(p, 0), true);
        let batch = |v: i128| {
            RecordBatch::try_new(
                schema.clone(),
                vec![dec128(p, 0, vec![Some(1), Some(v), None, Some(-1)])],
            )
            .unwrap()
        };
        let name = format!("decimal128_boundary/p{p}/width{width}");
        // Fits the width (but not the precision): accepted and identical.
        assert_identical(
            &format!("{name}/fits"),
            schema.clone(),
            &[batch(max_fit), batch(min_fit)],
            WriterProperties::default(),
        );
        let script = [
            good(batch(max_fit)),
            bad(batch(max_fit + 1), &["dec_col"], &[1]),
            bad(batch(min_fit - 1), &["dec_col"], &[1]),
            good(batch(min_fit)),
        ];
        assert_recovers(&name, &schema, WriterProperties::default(), &script);
    }
}

/// Decimals stored as INT32 (precision ≤ 9) and INT64 (≤ 18): a value
/// beyond the integer is an error naming the column, the row and the
/// physical type (parquet would write `v as i32`); the bounds are written
/// exactly as upstream writes them, by this crate's own writer; through the
/// column-level API too.
#[test]
fn integer_decimal_boundaries() {
    let int32 = (i128::from(i32::MAX), i128::from(i32::MIN), "INT32");
    let int64 = (i128::from(i64::MAX), i128::from(i64::MIN), "INT64");
    // Precision 1 is INT64 under parquet 59 (docs/releases.md D14).
    let precision_one = if release::PARQUET_60 { int32 } else { int64 };
    let cases: Vec<(DataType, (i128, i128, &str))> = vec![
        (DataType::Decimal128(9, 2), int32),
        (DataType::Decimal128(18, 0), int64),
        (DataType::Decimal64(5, 1), int32),
        (DataType::Decimal256(12, 3), int64),
        (DataType::Decimal256(1, 0), precision_one),
        (DataType::Decimal64(1, 0), precision_one),
    ];
    for (dt, (max_fit, min_fit, physical)) in cases {
        let schema = schema1("amount", dt.clone(), true);
        let array = |v: i128| -> ArrayRef {
            let vals = [Some(1), Some(v), None, Some(-1)];
            match &dt {
                DataType::Decimal64(p, s) => Arc::new(
                    arrow_array::Decimal64Array::from(
                        vals.iter().map(|x| x.map(|x| x as i64)).collect::<Vec<_>>(),
                    )
                    .with_precision_and_scale(*p, *s)
                    .unwrap(),
                ),
                DataType::Decimal128(p, s) => dec128(*p, *s, vals.to_vec()),
                DataType::Decimal256(p, s) => dec256(
                    *p,
                    *s,
                    vals.iter().map(|x| x.map(i256::from_i128)).collect(),
                ),
                other => unreachable!("{other}"),
            }
        };
        let batch = |v: i128| RecordBatch::try_new(schema.clone(), vec![array(v)]).unwrap();
        let name = format!("integer_decimal/{dt}");
        let writer = parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), None).unwrap();
        assert_eq!(
            writer.column_plan().leaves()[0].path(),
            parquet_flba::LeafPath::Fast,
            "{name}"
        );
        assert_identical(
            &format!("{name}/fits"),
            schema.clone(),
            &[batch(max_fit), batch(min_fit)],
            WriterProperties::default(),
        );
        if matches!(dt, DataType::Decimal64(..)) && physical == "INT64" {
            continue; // every Decimal64 fits an INT64
        }
        let script = [
            good(batch(max_fit)),
            bad(batch(max_fit + 1), &["amount", physical], &[1]),
            bad(batch(min_fit - 1), &["amount", physical], &[1]),
            good(batch(min_fit)),
        ];
        assert_recovers(&name, &schema, WriterProperties::default(), &script);
        let Some(msg) = column_level_error(&schema, 0, &array(max_fit + 1)) else {
            panic!("{name}: ArrowColumnWriter::write accepted a value wider than the column");
        };
        for needle in ["'amount'", "row 1:", physical] {
            assert!(
                msg.contains(needle),
                "{name}: {msg:?} does not mention {needle:?}"
            );
        }
    }
}

#[test]
fn decimal256_value_too_wide_for_byte_width_is_an_error() {
    let schema = schema_of(&[
        ("id", DataType::Int64, false),
        ("amount", DataType::Decimal256(40, 0), true),
    ]);
    let batch = |from: i64, n: usize, bad_at: Option<(usize, i256)>| {
        let vals = (0..n)
            .map(|i| match bad_at {
                Some((r, v)) if r == i => Some(v),
                _ if i % 7 == 0 => None,
                _ => Some(i256::from_i128(i as i128 * 987_654_321_987)),
            })
            .collect();
        RecordBatch::try_new(schema.clone(), vec![ids(from, n), dec256(40, 0, vals)]).unwrap()
    };
    let too_wide_positive = pow2(135); // needs 18 bytes
    let too_wide_negative = pow2(135).wrapping_neg().wrapping_sub(i256::ONE);
    for (label, v) in [
        ("i256_max", i256::MAX),
        ("i256_min", i256::MIN),
        ("2^135", too_wide_positive),
        ("-2^135-1", too_wide_negative),
    ] {
        for row in [0usize, 21] {
            let script = [
                good(batch(0, 40, None)),
                bad(batch(40, 30, Some((row, v))), &["amount"], &[row, 40 + row]),
                good(batch(70, 30, None)),
            ];
            let name = format!("decimal256_overflow/{label}/row_{row}");
            assert_recovers(&name, &schema, WriterProperties::default(), &script);
        }
    }
}

#[test]
fn decimal256_byte_width_boundaries_every_precision() {
    for p in 39..=75u8 {
        let width = flba_width(p);
        if width >= 32 {
            continue;
        }
        let max_fit = pow2(8 * width - 1).wrapping_sub(i256::ONE);
        let min_fit = pow2(8 * width - 1).wrapping_neg();
        let schema = schema1("dec_col", DataType::Decimal256(p, 0), true);
        let batch = |v: i256| {
            RecordBatch::try_new(
                schema.clone(),
                vec![dec256(p, 0, vec![Some(v), None, Some(i256::ONE)])],
            )
            .unwrap()
        };
        let name = format!("decimal256_boundary/p{p}/width{width}");
        assert_identical(
            &format!("{name}/fits"),
            schema.clone(),
            &[batch(max_fit), batch(min_fit)],
            WriterProperties::default(),
        );
        let script = [
            good(batch(max_fit)),
            bad(batch(max_fit.wrapping_add(i256::ONE)), &["dec_col"], &[0]),
            bad(batch(min_fit.wrapping_sub(i256::ONE)), &["dec_col"], &[0]),
            good(batch(min_fit)),
        ];
        assert_recovers(&name, &schema, WriterProperties::default(), &script);
    }
}

/// Outside the declared precision but within the byte width: not an error,
/// written exactly as upstream writes it.
#[test]
fn out_of_precision_values_that_fit_the_width_are_written_as_upstream() {
    let schema = schema1("d", DataType::Decimal128(19, 0), true);
    let ten_pow_20 = pow10_i128(20); // 21 digits > precision 19, fits 9 bytes
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![dec128(
            19,
            0,
            vec![Some(ten_pow_20), Some(-ten_pow_20), None, Some(5)],
        )],
    )
    .unwrap();
    for (cfg, props) in configs() {
        assert_identical(
            &format!("out_of_precision_128/{cfg}"),
            schema.clone(),
            std::slice::from_ref(&batch),
            props.build(),
        );
    }
    let schema = schema1("d", DataType::Decimal256(39, 0), true);
    let v = pow10_i256(40); // fits 17 bytes
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![dec256(39, 0, vec![Some(v), Some(v.wrapping_neg()), None])],
    )
    .unwrap();
    for (cfg, props) in configs() {
        assert_identical(
            &format!("out_of_precision_256/{cfg}"),
            schema.clone(),
            std::slice::from_ref(&batch),
            props.build(),
        );
    }
}

/// A null slot may hold anything: not an error.
#[test]
fn oversized_values_under_nulls_are_not_errors() {
    let schema = price_schema();
    let vals: Vec<i128> = (0..100)
        .map(|i| if i % 3 == 0 { i128::MAX } else { i as i128 })
        .collect();
    let nulls = NullBuffer::from((0..100).map(|i| i % 3 != 0).collect::<Vec<_>>());
    let price: ArrayRef = Arc::new(
        Decimal128Array::new(vals.into(), Some(nulls))
            .with_precision_and_scale(20, 2)
            .unwrap(),
    );
    let batch = RecordBatch::try_new(schema.clone(), vec![ids(0, 100), price]).unwrap();
    for (cfg, props) in configs() {
        let name = format!("oversized_under_nulls/{cfg}");
        assert_identical(
            &name,
            schema.clone(),
            std::slice::from_ref(&batch),
            props.build(),
        );
        assert_identical(
            &format!("{name}/sliced"),
            schema.clone(),
            &[batch.slice(1, 90)],
            WriterProperties::default(),
        );
    }
}

/// Dictionary values that no key references are never written: not an error.
#[test]
fn unreferenced_oversized_dictionary_values_are_not_errors() {
    let values = dec128(20, 2, vec![Some(1), Some(i128::MAX), Some(-5), None]);
    let keys = Int32Array::from(
        (0..60)
            .map(|i| {
                if i % 5 == 0 {
                    None
                } else {
                    Some([0, 2, 3][i % 3])
                }
            })
            .collect::<Vec<_>>(),
    );
    let dict: ArrayRef = Arc::new(DictionaryArray::try_new(keys, values).unwrap());
    let schema = schema1(
        "price",
        DataType::Dictionary(
            Box::new(DataType::Int32),
            Box::new(DataType::Decimal128(20, 2)),
        ),
        true,
    );
    let batch = RecordBatch::try_new(schema.clone(), vec![dict]).unwrap();
    assert_identical(
        "unreferenced_dictionary_values",
        schema,
        &[batch],
        WriterProperties::default(),
    );
}

/// The whole failed batch contributes nothing, even when the batch would have
/// been split across row groups before the bad row is reached.
#[test]
fn failed_batch_spanning_row_groups_contributes_nothing() {
    let schema = price_schema();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(50))
        .build();
    let script = [
        good(price_batch(&schema, 0, 30, None)),
        bad(
            price_batch(&schema, 30, 100, Some((90, i128::MAX))),
            &["price"],
            &[90, 120],
        ),
        good(price_batch(&schema, 130, 70, None)),
    ];
    assert_recovers("overflow_spanning_row_groups", &schema, props, &script);
}

/// Writes `array` as field `field` of `schema` through the column-level API
/// (`compute_leaves` + `ArrowColumnWriter::write`) and returns the first
/// error message, or `None` if every leaf was accepted.
fn column_level_error(schema: &SchemaRef, field: usize, array: &ArrayRef) -> Option<String> {
    let r = no_panic(
        "column-level write",
        || -> Result<Option<String>, String> {
            let parquet_schema = ArrowSchemaConverter::new()
                .convert(schema)
                .map_err(|e| e.to_string())?;
            let props = Arc::new(WriterProperties::default());
            let file_writer =
                SerializedFileWriter::new(Vec::new(), parquet_schema.root_schema_ptr(), props)
                    .map_err(|e| e.to_string())?;
            let factory =
                parquet_flba::ArrowRowGroupWriterFactory::new(&file_writer, schema.clone());
            let mut writers = factory
                .create_column_writers(0)
                .map_err(|e| e.to_string())?;
            let leaves = parquet_flba::compute_leaves(schema.field(field), array)
                .map_err(|e| e.to_string())?;
            for leaf in &leaves {
                if let Err(e) = writers[field].write(leaf) {
                    return Ok(Some(e.to_string()));
                }
            }
            Ok(None)
        },
    );
    match r {
        Ok(Ok(message)) => message,
        Ok(Err(e)) | Err(e) => panic!("{e}"),
    }
}

/// The column-level API reports the error too (no panic), naming the
/// column, the row and the precision.
#[test]
fn column_writer_rejects_oversized_decimal() {
    let schema = price_schema();
    let batch = price_batch(&schema, 0, 20, Some((7, i128::MAX)));
    let Some(msg) = column_level_error(&schema, 1, batch.column(1)) else {
        panic!("ArrowColumnWriter::write accepted a value wider than the column");
    };
    for needle in ["'price'", "row 7:", "for precision 20", "the 9 bytes"] {
        assert!(msg.contains(needle), "{msg:?} does not mention {needle:?}");
    }
}

/// A too-wide decimal inside a list, through the column-level API: the
/// error names the column's path and the top-level row (the list) it is in,
/// worded as for a top-level column.
#[test]
fn column_writer_rejects_oversized_decimal_in_a_list() {
    let item = Arc::new(Field::new("item", DataType::Decimal128(20, 2), true));
    let schema = schema_of(&[("prices", DataType::List(item.clone()), true)]);
    // Rows: [1, 2], null, [], [3, 4, null, 6], [7], [8, BAD], [10]; the
    // child's last value (too wide too) is beyond the offsets: not written.
    let lens = [2usize, 0, 0, 4, 1, 2, 1];
    let valid = [true, false, true, true, true, true, true];
    let mut values: Vec<Option<i128>> = (1..=12).map(Some).collect();
    values[5] = None;
    values[8] = Some(i128::MAX);
    values[10] = Some(i128::MAX);
    let items = dec128(20, 2, values[..11].to_vec());
    let list = arrow_array::ListArray::new(
        item,
        arrow_buffer::OffsetBuffer::from_lengths(lens),
        items,
        Some(NullBuffer::from(valid.to_vec())),
    );
    let array: ArrayRef = Arc::new(list);
    let Some(msg) = column_level_error(&schema, 0, &array) else {
        panic!("ArrowColumnWriter::write accepted a value wider than the column");
    };
    for needle in [
        "Column 'prices.list.item', row 5:",
        &format!("decimal value {}", i128::MAX),
        "the 9 bytes",
        "for precision 20",
    ] {
        assert!(msg.contains(needle), "{msg:?} does not mention {needle:?}");
    }
    // The ArrowWriter names the same row.
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    let mut w = parquet_flba::ArrowWriter::try_new(Vec::new(), schema, None).unwrap();
    let msg = w.write(&batch).unwrap_err().to_string();
    assert!(contains_number(&msg, 5), "{msg:?} does not name row 5");
}

// ---------------------------------------------------------------------------
// Nulls in non-nullable fields
// ---------------------------------------------------------------------------

/// A batch for `writer_schema` whose `bad_col` carries nulls: built with a
/// nullable copy of the schema (RecordBatch itself rejects nulls in
/// non-nullable fields), which upstream does not check against its own.
fn with_nulls_in(writer_schema: &SchemaRef, bad_col: usize, g: &mut Gen, n: usize) -> RecordBatch {
    let fields: Vec<Field> = writer_schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            f.as_ref()
                .clone()
                .with_nullable(f.is_nullable() || i == bad_col)
        })
        .collect();
    let loose = Arc::new(arrow_schema::Schema::new(fields));
    let mut specs = vec![Spec::new(Nulls::Absent); writer_schema.fields().len()];
    specs[bad_col] = Spec::new(Nulls::Density(0.2));
    g.batch_with(&loose, n, &specs)
}

#[test]
fn null_in_required_fsb_column() {
    let schema = schema1("uuid", DataType::FixedSizeBinary(16), false);
    let mut g = Gen::new("null_in_required_fsb");
    let bad_batch = with_nulls_in(&schema, 0, &mut g, 50);
    if !release::PARQUET_60 {
        let configs = built_configs();
        same_file_without_required_check(
            "null_in_required_fsb",
            &schema,
            &mut g,
            &bad_batch,
            configs,
        );
        return;
    }
    assert_upstream_rejects("null_in_required_fsb", &schema, &bad_batch);
    for (cfg, props) in configs() {
        let script = [
            good(g.batch(&schema, 100, &Spec::default())),
            bad(bad_batch.clone(), &["uuid"], &[]),
            good(g.batch(&schema, 40, &Spec::default())),
        ];
        assert_recovers(
            &format!("null_in_required_fsb/{cfg}"),
            &schema,
            props.build(),
            &script,
        );
    }
}

#[test]
fn null_in_required_decimal_and_float16_columns() {
    for dt in [
        DataType::Decimal128(38, 4),
        DataType::Decimal256(60, 0),
        DataType::Float16,
    ] {
        let name = format!("null_in_required/{}", type_name(&dt));
        let schema = schema1("c", dt, false);
        let mut g = Gen::new(&name);
        let bad_batch = with_nulls_in(&schema, 0, &mut g, 50);
        if !release::PARQUET_60 {
            let configs = vec![("default", WriterProperties::default())];
            same_file_without_required_check(&name, &schema, &mut g, &bad_batch, configs);
            continue;
        }
        assert_upstream_rejects(&name, &schema, &bad_batch);
        let script = [
            good(g.batch(&schema, 100, &Spec::default())),
            bad(bad_batch, &["c"], &[]),
            good(g.batch(&schema, 40, &Spec::default())),
        ];
        assert_recovers(&name, &schema, WriterProperties::default(), &script);
    }
}

/// The failing column is the last one, after non-FLBA columns that would
/// already have been written.
#[test]
fn null_in_required_fsb_after_other_columns() {
    let schema = schema_of(&[
        ("ts", DataType::Int64, false),
        ("symbol", DataType::Utf8, true),
        ("uuid", DataType::FixedSizeBinary(16), false),
    ]);
    let mut g = Gen::new("null_after_other_columns");
    let bad_batch = with_nulls_in(&schema, 2, &mut g, 60);
    if !release::PARQUET_60 {
        let configs = vec![("default", WriterProperties::default())];
        let name = "null_after_other_columns";
        same_file_without_required_check(name, &schema, &mut g, &bad_batch, configs);
        return;
    }
    assert_upstream_rejects("null_after_other_columns", &schema, &bad_batch);
    for (cfg, props) in [
        ("default", WriterProperties::default()),
        (
            "v2",
            WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .build(),
        ),
        (
            "bytes_limit",
            WriterProperties::builder()
                .set_max_row_group_bytes(Some(3000))
                .build(),
        ),
    ] {
        let script = [
            good(g.batch(&schema, 100, &Spec::default())),
            bad(bad_batch.clone(), &["uuid"], &[]),
            good(g.batch(&schema, 50, &Spec::default())),
        ];
        assert_recovers(
            &format!("null_after_other_columns/{cfg}"),
            &schema,
            props,
            &script,
        );
    }
}

/// The failing column is a non-FLBA column after FLBA columns.
#[test]
fn null_in_required_int64_after_flba_columns() {
    let schema = schema_of(&[
        ("uuid", DataType::FixedSizeBinary(16), true),
        ("price", DataType::Decimal128(38, 2), false),
        ("ts", DataType::Int64, false),
    ]);
    let mut g = Gen::new("null_in_int64_after_flba");
    let bad_batch = with_nulls_in(&schema, 2, &mut g, 60);
    if !release::PARQUET_60 {
        let configs = built_configs();
        let name = "null_in_int64_after_flba";
        same_file_without_required_check(name, &schema, &mut g, &bad_batch, configs);
        return;
    }
    assert_upstream_rejects("null_in_int64_after_flba", &schema, &bad_batch);
    for (cfg, props) in configs() {
        let script = [
            good(g.batch(&schema, 100, &Spec::default())),
            bad(bad_batch.clone(), &["ts"], &[]),
            good(g.batch(&schema, 50, &Spec::default())),
        ];
        assert_recovers(
            &format!("null_in_int64_after_flba/{cfg}"),
            &schema,
            props.build(),
            &script,
        );
    }
}

/// A struct whose FLBA child is nullable (and holds nulls) for a schema whose
/// child is required. (A StructArray with a required child can only hold
/// child nulls masked by parent nulls, which are not errors.)
#[test]
fn struct_with_nullable_child_for_required_child_field() {
    let child = Field::new("u", DataType::FixedSizeBinary(4), false);
    let schema = schema1(
        "st",
        DataType::Struct(Fields::from(vec![child.clone()])),
        true,
    );
    let make = |child_nulls: Option<NullBuffer>| {
        let u: ArrayRef =
            Arc::new(FixedSizeBinaryArray::try_new(4, vec![7u8; 40].into(), child_nulls).unwrap());
        let fields = Fields::from(vec![child.clone().with_nullable(true)]);
        let st: ArrayRef = Arc::new(StructArray::new(fields, vec![u], None));
        let loose = schema1("st", st.data_type().clone(), true);
        RecordBatch::try_new(loose, vec![st]).unwrap()
    };
    let good_batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StructArray::new(
            Fields::from(vec![child.clone()]),
            vec![Arc::new(
                FixedSizeBinaryArray::try_new(4, vec![1u8; 40].into(), None).unwrap(),
            )],
            None,
        ))],
    )
    .unwrap();
    let bad_batch = make(Some(NullBuffer::from(vec![
        true, false, true, true, true, true, true, true, true, true,
    ])));
    assert_upstream_rejects("struct_nullable_child", &schema, &bad_batch);
    let script = [
        good(good_batch.clone()),
        bad_any(bad_batch),
        good(good_batch),
    ];
    assert_recovers(
        "struct_nullable_child",
        &schema,
        WriterProperties::default(),
        &script,
    );
}

/// Nulls in a required struct child that the parent's nulls mask are not
/// reachable, hence not an error.
#[test]
fn masked_nulls_in_required_struct_child_are_not_errors() {
    let child = Field::new("u", DataType::FixedSizeBinary(4), false);
    let fields = Fields::from(vec![child]);
    let schema = schema1("st", DataType::Struct(fields.clone()), true);
    let mask: Vec<bool> = (0..40).map(|i| i % 4 != 1).collect();
    let u: ArrayRef = Arc::new(
        FixedSizeBinaryArray::try_new(
            4,
            vec![9u8; 160].into(),
            Some(NullBuffer::from(mask.clone())),
        )
        .unwrap(),
    );
    let st: ArrayRef = Arc::new(StructArray::new(
        fields,
        vec![u],
        Some(NullBuffer::from(mask)),
    ));
    let batch = RecordBatch::try_new(schema.clone(), vec![st]).unwrap();
    for (cfg, props) in configs() {
        assert_identical(
            &format!("masked_struct_child_nulls/{cfg}"),
            schema.clone(),
            std::slice::from_ref(&batch),
            props.build(),
        );
    }
}

// ---------------------------------------------------------------------------
// Schema mismatches
// ---------------------------------------------------------------------------

#[test]
fn wrong_column_type() {
    let schema = price_schema();
    let mut g = Gen::new("wrong_column_type");
    for (label, wrong) in [
        ("int32_for_decimal", DataType::Int32),
        ("decimal_30_for_20", DataType::Decimal128(30, 2)),
        ("decimal_other_scale", DataType::Decimal128(20, 5)),
        ("decimal256_for_128", DataType::Decimal256(40, 2)),
        ("fsb_for_decimal", DataType::FixedSizeBinary(9)),
    ] {
        let loose = schema_of(&[("id", DataType::Int64, false), ("price", wrong, true)]);
        let bad_batch = g.batch(&loose, 30, &Spec::default());
        let name = format!("wrong_type/{label}");
        assert_upstream_rejects(&name, &schema, &bad_batch);
        let script = [
            good(price_batch(&schema, 0, 100, None)),
            bad(bad_batch, &["price"], &[]),
            good(price_batch(&schema, 100, 20, None)),
        ];
        assert_recovers(&name, &schema, WriterProperties::default(), &script);
    }
}

#[test]
fn wrong_fsb_width_and_float16_for_fsb2() {
    let mut g = Gen::new("wrong_fsb");
    for (label, field, wrong) in [
        (
            "fsb8_for_fsb16",
            DataType::FixedSizeBinary(16),
            DataType::FixedSizeBinary(8),
        ),
        (
            "float16_for_fsb2",
            DataType::FixedSizeBinary(2),
            DataType::Float16,
        ),
        (
            "fsb2_for_float16",
            DataType::Float16,
            DataType::FixedSizeBinary(2),
        ),
        (
            "dict_of_fsb8_for_fsb16",
            DataType::FixedSizeBinary(16),
            DataType::Dictionary(
                Box::new(DataType::Int32),
                Box::new(DataType::FixedSizeBinary(8)),
            ),
        ),
    ] {
        let schema = schema_of(&[("s", DataType::Utf8, true), ("c", field, true)]);
        let loose = schema_of(&[("s", DataType::Utf8, true), ("c", wrong, true)]);
        let bad_batch = g.batch(&loose, 30, &Spec::default());
        let name = format!("wrong_type/{label}");
        assert_upstream_rejects(&name, &schema, &bad_batch);
        let script = [
            good(g.batch(&schema, 70, &Spec::default())),
            bad(bad_batch, &["c"], &[]),
            good(g.batch(&schema, 20, &Spec::default())),
        ];
        assert_recovers(&name, &schema, WriterProperties::default(), &script);
    }
}

/// Fewer columns than the schema: upstream only notices at `close`; parquet_flba
/// rejects the batch and stays usable.
#[test]
fn too_few_columns() {
    let schema = price_schema();
    let short = RecordBatch::try_new(
        schema_of(&[("id", DataType::Int64, false)]),
        vec![ids(0, 10)],
    )
    .unwrap();
    let script = [
        good(price_batch(&schema, 0, 100, None)),
        bad_any(short),
        good(price_batch(&schema, 100, 20, None)),
    ];
    assert_recovers(
        "too_few_columns",
        &schema,
        WriterProperties::default(),
        &script,
    );

    // The FLBA column missing rather than the Int64 one.
    let schema = schema_of(&[
        ("price", DataType::Decimal128(20, 2), true),
        ("uuid", DataType::FixedSizeBinary(16), true),
    ]);
    let mut g = Gen::new("too_few_columns_flba");
    let short = g.batch(
        &schema1("price", DataType::Decimal128(20, 2), true),
        10,
        &Spec::default(),
    );
    let script = [
        good(g.batch(&schema, 40, &Spec::default())),
        bad_any(short),
        good(g.batch(&schema, 40, &Spec::default())),
    ];
    assert_recovers(
        "too_few_columns_flba",
        &schema,
        WriterProperties::default(),
        &script,
    );
}

/// More columns than the schema: upstream silently ignores the extra ones.
/// parquet_flba may either reject the batch (and stay usable) or accept it
/// exactly as upstream does; it must not panic.
#[test]
fn too_many_columns() {
    let schema = price_schema();
    let long_schema = schema_of(&[
        ("id", DataType::Int64, false),
        ("price", DataType::Decimal128(20, 2), true),
        ("extra", DataType::Utf8, true),
    ]);
    let a = price_batch(&schema, 0, 50, None);
    let mut cols = price_batch(&schema, 50, 10, None).columns().to_vec();
    cols.push(Arc::new(StringArray::from(vec!["x"; 10])));
    let long = RecordBatch::try_new(long_schema, cols).unwrap();
    let c = price_batch(&schema, 60, 30, None);

    let r = no_panic("parquet_flba", || -> Result<(bool, Vec<u8>), String> {
        let mut bytes = Vec::new();
        let mut w =
            flba::writer(&mut bytes, &schema, &Opts::default()).map_err(|e| e.to_string())?;
        w.write(&a).map_err(|e| e.to_string())?;
        let accepted = w.write(&long).is_ok();
        w.write(&c).map_err(|e| e.to_string())?;
        w.close().map_err(|e| e.to_string())?;
        Ok((accepted, bytes))
    });
    let (accepted, bytes) = match r {
        Ok(Ok(x)) => x,
        Ok(Err(e)) | Err(e) => panic!("too_many_columns: {e}"),
    };
    let expected: Vec<RecordBatch> = if accepted {
        vec![a, long, c]
    } else {
        vec![a, c]
    };
    let up = up::write(&schema, &expected, &Opts::default()).unwrap();
    if let Some(diff) = compare_files(&up.bytes, &bytes) {
        panic!("too_many_columns (accepted = {accepted}): {diff}");
    }
}

/// Several failures in a row, of different kinds, between valid batches,
/// with small pages and row groups so that state carries across them.
#[test]
fn repeated_failures_keep_the_writer_consistent() {
    let schema = price_schema();
    let mut g = Gen::new("repeated_failures");
    let nulls_in_id = with_nulls_in(&schema, 0, &mut g, 20);
    let wrong = g.batch(
        &schema_of(&[
            ("id", DataType::Int64, false),
            ("price", DataType::Int32, true),
        ]),
        20,
        &Spec::default(),
    );
    for (cfg, props) in configs() {
        let props = props
            .set_max_row_group_row_count(Some(70))
            .set_data_page_row_count_limit(20)
            .set_write_batch_size(8)
            .build();
        let mut script = vec![
            good(price_batch(&schema, 0, 45, None)),
            bad(
                price_batch(&schema, 45, 40, Some((39, i128::MIN))),
                &["price"],
                &[39, 84],
            ),
            bad_any(nulls_in_id.clone()),
            good(price_batch(&schema, 45, 40, None)),
            bad_any(wrong.clone()),
            bad(
                price_batch(&schema, 85, 10, Some((0, i128::MAX))),
                &["price"],
                &[0, 85],
            ),
            good(price_batch(&schema, 85, 60, None)),
        ];
        if !release::PARQUET_60 {
            // Nulls in a required field are data to parquet 59 (D15).
            script.remove(2);
        }
        assert_recovers(&format!("repeated_failures/{cfg}"), &schema, props, &script);
    }
}

/// Every error that names a column names it once, as `'path'` (the dotted
/// path in single quotes), never as `'"path"'` (a `ColumnPath` printed with
/// `Display`, which quotes it again).
#[test]
fn error_messages_name_the_column_once() {
    use parquet::basic::Encoding;
    use parquet::schema::types::ColumnPath;
    let mut messages: Vec<(&str, String)> = Vec::new();
    let write_err = |schema: SchemaRef, columns: Vec<ArrayRef>, props: WriterProperties| {
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        match parquet_flba::ArrowWriter::try_new(Vec::new(), schema, Some(props)) {
            Err(e) => e.to_string(),
            Ok(mut w) => match w.write(&batch).and_then(|_| w.close().map(|_| ())) {
                Err(e) => e.to_string(),
                Ok(()) => panic!("the write should have failed"),
            },
        }
    };
    // A top-level decimal that does not fit its FIXED_LEN_BYTE_ARRAY width.
    let field = Field::new("price", DataType::Decimal128(20, 2), true);
    let schema: SchemaRef = Arc::new(arrow_schema::Schema::new(vec![field]));
    let column = dec128(20, 2, vec![Some(1), Some(i128::MAX)]);
    messages.push((
        "price",
        write_err(schema, vec![column], WriterProperties::default()),
    ));
    // The same inside a struct (checked per leaf).
    let child = Field::new("amount", DataType::Decimal128(20, 2), true);
    let values = dec128(20, 2, vec![Some(i128::MAX), Some(3)]);
    let parent = StructArray::new(Fields::from(vec![child.clone()]), vec![values], None);
    let field = Field::new(
        "order",
        arrow_array::Array::data_type(&parent).clone(),
        true,
    );
    let schema: SchemaRef = Arc::new(arrow_schema::Schema::new(vec![field]));
    messages.push((
        "order.amount",
        write_err(schema, vec![Arc::new(parent)], WriterProperties::default()),
    ));
    // An encoding a FIXED_LEN_BYTE_ARRAY column cannot take.
    let field = Field::new("id", DataType::FixedSizeBinary(16), false);
    let schema: SchemaRef = Arc::new(arrow_schema::Schema::new(vec![field]));
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_column_encoding(ColumnPath::from("id"), Encoding::DELTA_BINARY_PACKED)
        .build();
    let ids = Arc::new(FixedSizeBinaryArray::try_from_iter([[7u8; 16], [8u8; 16]].iter()).unwrap());
    messages.push(("id", write_err(schema, vec![ids], props)));
    // Under 58 and 59, a dictionary of fixed-size binaries with an encoding
    // their byte-array writer cannot take (60 writes it).
    if !cfg!(feature = "parquet-60") {
        let keys = Int32Array::from(vec![0, 1]);
        let values: ArrayRef =
            Arc::new(FixedSizeBinaryArray::try_from_iter([[1u8; 4], [2u8; 4]].iter()).unwrap());
        let dict = DictionaryArray::new(keys, values);
        let field = Field::new("code", arrow_array::Array::data_type(&dict).clone(), true);
        let schema: SchemaRef = Arc::new(arrow_schema::Schema::new(vec![field]));
        let props = WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_column_encoding(ColumnPath::from("code"), Encoding::BYTE_STREAM_SPLIT)
            .build();
        messages.push(("code", write_err(schema, vec![Arc::new(dict)], props)));
    }
    for (path, message) in &messages {
        assert!(
            message.contains(&format!("'{path}'")),
            "the error does not name column '{path}': {message}"
        );
        assert!(
            !message.contains("'\"") && !message.contains("\"'"),
            "the error quotes the column twice: {message}"
        );
    }
}

/// A panic of `parquet`'s own writer of a delegated column is an error
/// naming the column, never a panic, and this crate's own columns are
/// checked before `parquet`'s writers are made. The global encoding
/// DELTA_BINARY_PACKED panics parquet's writer of a Utf8View column (its
/// byte-array encoder takes no such encoding), and a Decimal256(54, 4)
/// column (FIXED_LEN_BYTE_ARRAY) cannot take it either: parquet panics on
/// the decimal, this crate must refuse the decimal (its own column) with
/// an error — not panic in parquet's writer of the Utf8View column.
#[test]
fn a_delegated_columns_panic_is_an_error_naming_the_column() {
    use arrow_array::StringViewArray;
    use parquet::basic::Encoding;
    use parquet::file::properties::CdcOptions;
    use parquet::schema::types::ColumnPath;
    let n = 64;
    let int = || Arc::new(Int32Array::from_iter_values(0..n)) as ArrayRef;
    let dec = || {
        let values = (0..n).map(|i| Some(i256::from_i128(i as i128 * 1000)));
        dec256(54, 4, values.collect())
    };
    let view = || {
        let values = (0..n).map(|i| format!("v{}", i % 7));
        Arc::new(StringViewArray::from_iter_values(values)) as ArrayRef
    };
    let fields = [
        ("i", DataType::Int32),
        ("d", DataType::Decimal256(54, 4)),
        ("v", DataType::Utf8View),
    ];
    // Which columns each case has, its settings, and the column its error
    // names.
    let dbp = || WriterProperties::builder().set_encoding(Encoding::DELTA_BINARY_PACKED);
    let view_dbp = || {
        WriterProperties::builder()
            .set_column_encoding(ColumnPath::from("v"), Encoding::DELTA_BINARY_PACKED)
    };
    let cdc = Some(CdcOptions::default());
    let cases: Vec<(&str, Vec<usize>, WriterProperties, &str)> = vec![
        ("all three", vec![0, 1, 2], dbp().build(), "d"),
        ("parquet's only", vec![0, 2], dbp().build(), "v"),
        (
            "all three, CDC",
            vec![0, 1, 2],
            dbp().set_content_defined_chunking(cdc).build(),
            "d",
        ),
        (
            "decimal and view, CDC",
            vec![1, 2],
            view_dbp().set_content_defined_chunking(cdc).build(),
            "v",
        ),
        (
            "parquet's only, CDC",
            vec![0, 2],
            view_dbp().set_content_defined_chunking(cdc).build(),
            "v",
        ),
    ];
    for (name, columns, props, culprit) in cases {
        let schema: SchemaRef = Arc::new(arrow_schema::Schema::new(
            (columns.iter())
                .map(|&c| Field::new(fields[c].0, fields[c].1.clone(), false))
                .collect::<Vec<_>>(),
        ));
        let arrays: Vec<ArrayRef> = (columns.iter())
            .map(|&c| [int(), dec(), view()][c].clone())
            .collect();
        let batch = RecordBatch::try_new(schema.clone(), arrays).unwrap();
        let up = catch::quiet_catch(|| {
            let mut w = parquet::arrow::ArrowWriter::try_new(
                Vec::new(),
                schema.clone(),
                Some(props.clone()),
            )?;
            w.write(&batch)?;
            w.close()
        });
        assert!(up.is_err(), "{name}: parquet did not panic: {up:?}");
        let ours = catch::quiet_catch(|| {
            let mut w = parquet_flba::ArrowWriter::try_new(
                Vec::new(),
                schema.clone(),
                Some(props.clone()),
            )?;
            let first = w.write(&batch).map(|_| ());
            // A second try fails the same way; nothing panics on the way out.
            let second = w.write(&batch).map(|_| ());
            let closed = w.close().map(|_| ());
            first.and(second).and(closed)
        });
        let message = match ours {
            Err(p) => panic!("{name}: parquet_flba panicked: {p}"),
            Ok(Ok(())) => panic!("{name}: parquet_flba wrote the file"),
            Ok(Err(e)) => e.to_string(),
        };
        assert!(
            message.contains(&format!("Column '{culprit}'")),
            "{name}: the error does not name column '{culprit}': {message}"
        );
        // The column-level API: the factory's writers.
        let parquet_schema = ArrowSchemaConverter::new().convert(&schema).unwrap();
        let mut out = Vec::new();
        let file = SerializedFileWriter::new(
            &mut out,
            parquet_schema.root_schema_ptr(),
            Arc::new(props.clone()),
        )
        .unwrap();
        let factory = parquet_flba::ArrowRowGroupWriterFactory::new(&file, schema.clone());
        match catch::quiet_catch(|| factory.create_column_writers(0).map(|_| ())) {
            Err(p) => panic!("{name}: create_column_writers panicked: {p}"),
            Ok(Ok(())) => panic!("{name}: create_column_writers made every writer"),
            Ok(Err(e)) => assert!(
                e.to_string().contains(&format!("Column '{culprit}'")),
                "{name}: create_column_writers: {e}"
            ),
        }
    }
}
