//! The bad-input target: a script of valid and invalid batches against one
//! writer.
//!
//! Invalid batches: decimals beyond their byte width (and beyond their
//! precision but within the width, which are valid), nulls in non-nullable
//! fields (top level and nested), wrong column types and FixedSizeBinary
//! widths, too few or too many columns, zero-column and empty batches; the
//! properties include extreme limits. The expectations:
//!
//! * no call panics;
//! * a batch with a reachable decimal too wide for its column is rejected,
//!   and the error names the column (and, for a plain top-level column,
//!   the row);
//! * a batch that parquet itself rejects (a fresh `parquet` writer fails to
//!   write and close it) is rejected;
//! * a batch whose column count differs from the schema may go either way;
//! * every other batch is accepted;
//! * a rejected write changes nothing (buffered rows, bytes written), the
//!   writer goes on, and the file it closes holds exactly the accepted
//!   batches: byte-identical to parquet writing only those, whenever
//!   parquet can.
//!
//! The column-level API (`compute_leaves`, `ArrowColumnWriter::write`) is
//! probed with the same batches: no panic, and too-wide decimals rejected.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowSchemaConverter;
use parquet::file::writer::SerializedFileWriter;

use super::describe::compare_files;
use super::describe::contains_number;
use super::generate::{
    ArrayOpts, Col, DecimalRange, Flba, Key, Kind, MAX_BATCHES, Repr, decode_columns, decode_props,
    decode_rows, gen_batch, gen_column, limits, schema_of,
};
use super::input::ByteReader;
use super::readback::materialize;
use super::roundtrip::check_data;
use super::scenario::describe;
use super::writers::{Api, Opts, Step, flba, up};
use super::{Outcome, loud_catch, quiet_catch};

/// What was done to a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mutation {
    None,
    Overflow,
    Nulls,
    OverflowAndNulls,
    WrongType(usize),
    TooFew,
    TooMany,
    Empty,
}

/// One batch of the script.
struct Item {
    batch: RecordBatch,
    mutation: Mutation,
}

/// The verdict a batch must get from `parquet_flba`.
#[derive(Debug, PartialEq, Eq)]
enum Expect {
    /// Must be rejected; the error must name one of the columns holding a
    /// too-wide decimal (any of its names) and, if given, its first such
    /// row. The flag says whether every such column is one that
    /// `parquet_flba` hands to parquet's own column writer (nested or
    /// dictionary-typed).
    Overflow(Vec<(Vec<String>, Option<usize>)>, bool),
    /// Must be rejected (parquet rejects it too).
    Rejected(String),
    /// Either way.
    Either,
    /// Must be accepted.
    Accepted,
}

/// Decode a schema, properties and a script of batches; run the script.
///
/// # Panics
///
/// On a panic in `parquet_flba`, a verdict other than the expected one, a
/// failed write that changed the writer's state, or a final file that
/// differs from parquet's file of the accepted batches.
pub fn run(data: &[u8]) -> Outcome {
    let mut r = ByteReader::new(data);
    let cols = decode_columns(&mut r);
    let schema = schema_of(&cols);
    let opts = Opts {
        props: decode_props(&mut r, &cols),
        ..Opts::default()
    };
    let n_items = 1 + r.below(MAX_BATCHES + 1);
    let mut budget = limits().value_bytes;
    let items: Vec<Item> = (0..n_items)
        .map(|_| {
            let n = decode_rows(&mut r, &cols, budget);
            budget = budget.saturating_sub(n * 8 * cols.len());
            decode_item(&mut r, &cols, n)
        })
        .collect();
    let probe_columns = r.u8();
    let batches: Vec<RecordBatch> = items.iter().map(|i| i.batch.clone()).collect();
    let context = || {
        let mut s = describe(
            &schema,
            &opts,
            &Api::ArrowWriter {
                flush_after: vec![],
            },
            &batches,
        );
        for (i, item) in items.iter().enumerate() {
            let _ = writeln!(s, "batch {i}: {:?}", item.mutation);
        }
        s
    };

    // The verdicts, decided before parquet_flba sees anything.
    let expects: Vec<Expect> = items
        .iter()
        .map(|item| expectation(&cols, &schema, &opts, item))
        .collect();

    // Column-level probes.
    for (i, item) in items.iter().enumerate() {
        if probe_columns & (1 << (i % 8)) != 0
            && let Err(e) = probe_column_writers(&schema, &opts, &item.batch, &expects[i])
        {
            panic!("BUG: column-level API, batch {i}: {e}\n{}", context());
        }
    }

    // The script through one ArrowWriter.
    let mut bytes = Vec::new();
    let mut accepted: Vec<RecordBatch> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let result = loud_catch(|| -> Result<(), String> {
        let mut w = match flba::writer(&mut bytes, &schema, &opts) {
            Ok(w) => w,
            Err(e) => return Err(format!("try_new: {e}")),
        };
        for (i, (item, expect)) in items.iter().zip(&expects).enumerate() {
            let before = (w.in_progress_rows(), w.bytes_written());
            match (w.write(&item.batch), expect) {
                (Ok(()), Expect::Accepted | Expect::Either) => {
                    accepted.push(item.batch.clone());
                    steps.push(flba::step(&w));
                }
                (Ok(()), Expect::Overflow(..) | Expect::Rejected(_)) => {
                    panic!(
                        "BUG: write #{i} was accepted, expected {expect:?}\n{}",
                        context()
                    );
                }
                (Err(e), Expect::Accepted) => {
                    panic!(
                        "BUG: write #{i} (a batch parquet accepts) failed: {e}\n{}",
                        context()
                    );
                }
                (Err(e), _) => {
                    let msg = e.to_string();
                    if let Expect::Overflow(candidates, _) = expect {
                        let named = candidates.iter().any(|(names, row)| {
                            names_column(&msg, names)
                                && row.is_none_or(|row| contains_number(&msg, row))
                        });
                        if !named {
                            panic!(
                                "BUG: write #{i}: the error {msg:?} names none of the columns \
                                 with a too-wide decimal (names, first row): {candidates:?}\n{}",
                                context()
                            );
                        }
                    }
                    let after = (w.in_progress_rows(), w.bytes_written());
                    if before != after {
                        panic!(
                            "BUG: write #{i} failed ({msg}) but changed (in_progress_rows, \
                             bytes_written) from {before:?} to {after:?}\n{}",
                            context()
                        );
                    }
                }
            }
        }
        w.close().map(|_| ()).map_err(|e| format!("close: {e}"))
    })
    .unwrap_or_else(|p| panic!("BUG: parquet_flba panicked: {p}\n{}", context()));

    let api = Api::ArrowWriter {
        flush_after: vec![],
    };
    let upstream = quiet_catch(|| up::write(&schema, &accepted, &opts, &api));
    match (result, upstream) {
        (Err(e), Ok(Ok(_))) if e.starts_with("try_new") => panic!(
            "BUG: parquet_flba's writer could not be created ({e}) but parquet's could\n{}",
            context()
        ),
        // Where parquet's own writer panics (an empty RLE BOOLEAN page under
        // CDC) this crate fails that write, and then cannot go on, as
        // parquet's writer cannot after its panic; parquet given only the
        // other batches writes them.
        (Err(e), Ok(Ok(_))) if super::catch::is_known_upstream_panic(&e) => Outcome::Reject,
        (Err(e), Ok(Ok(_))) => panic!(
            "BUG: parquet_flba failed ({e}) where parquet writes the accepted batches\n{}",
            context()
        ),
        (Err(_), _) => Outcome::Reject,
        (Ok(()), Ok(Ok(u))) => {
            if let Some(diff) = compare_files(&u.bytes, &bytes) {
                panic!(
                    "BUG: the file differs from parquet's file of the accepted batches\n{diff}\n{}",
                    context()
                );
            }
            if !Step::all_match(&steps, &u.steps, opts.threads) {
                panic!(
                    "BUG: writer state after the accepted writes differs from parquet's:\n  \
                     parquet:      {:?}\n  parquet_flba: {steps:?}\n{}",
                    u.steps,
                    context()
                );
            }
            check_accepted(&schema, &accepted, &bytes, &context);
            Outcome::Keep
        }
        (Ok(()), _) => {
            // parquet cannot write these batches (e.g. a zero-row batch with
            // too few columns that parquet accepts but cannot close):
            // parquet_flba's file must still hold them.
            check_accepted(&schema, &accepted, &bytes, &context);
            Outcome::Keep
        }
    }
}

fn check_accepted(
    schema: &SchemaRef,
    accepted: &[RecordBatch],
    bytes: &[u8],
    context: &dyn Fn() -> String,
) {
    // Empty batches contribute nothing (and may have any columns: parquet
    // accepts an empty batch without looking at it).
    let aligned: Vec<RecordBatch> = accepted
        .iter()
        .filter(|b| b.num_rows() > 0)
        .cloned()
        .collect();
    if !super::release::data_reads_back(schema, &aligned) {
        // parquet 59's own file of these batches does not read back as
        // them either (nulls in required fields written as values,
        // dictionaries of FixedSizeBinary): the bytes are compared instead.
        return;
    }
    if let Err(e) = check_data(schema, &aligned, bytes) {
        panic!(
            "BUG: the file does not hold the accepted batches: {e}\n{}",
            context()
        );
    }
}

/// Whether a known, reported issue is to be tolerated while fuzzing:
/// `PARQUET_FLBA_FUZZ_KNOWN` lists their names, comma-separated (see the
/// README). Never set in `cargo test`.
fn known_issue(name: &str) -> bool {
    std::env::var("PARQUET_FLBA_FUZZ_KNOWN").is_ok_and(|v| v.split(',').any(|k| k.trim() == name))
}

/// Whether `msg` quotes one of `names`, or a dotted path starting with one
/// (`'c3'`, `'v'`, `'c3.v'`, `'c2.list.item'`).
fn names_column(msg: &str, names: &[String]) -> bool {
    msg.split('\'').skip(1).step_by(2).any(|quoted| {
        names
            .iter()
            .any(|n| quoted == n || quoted.starts_with(&format!("{n}.")))
    })
}

fn decode_item(r: &mut ByteReader, cols: &[Col], n: usize) -> Item {
    let mutation = match r.u8() % 12 {
        0..=2 => Mutation::None,
        3 | 4 => Mutation::Overflow,
        5 => Mutation::Nulls,
        6 => Mutation::OverflowAndNulls,
        7 | 8 => Mutation::WrongType(r.below(cols.len())),
        9 => Mutation::TooFew,
        10 => Mutation::TooMany,
        _ => Mutation::Empty,
    };
    let opts = match mutation {
        Mutation::Overflow => ArrayOpts {
            range: DecimalRange::Overflowing,
            bad_nulls: false,
        },
        Mutation::Nulls => ArrayOpts {
            range: DecimalRange::Fits,
            bad_nulls: true,
        },
        Mutation::OverflowAndNulls => ArrayOpts {
            range: DecimalRange::Overflowing,
            bad_nulls: true,
        },
        _ => ArrayOpts::VALID,
    };
    let n = if mutation == Mutation::Empty { 0 } else { n };
    let batch = gen_batch(r, cols, n, opts);
    let batch = match mutation {
        Mutation::WrongType(c) => {
            let wrong = Col {
                kind: wrong_kind(r, cols[c].kind),
                ..cols[c].clone()
            };
            let (field, array) = gen_column(r, &wrong, n, ArrayOpts::VALID);
            replace_column(&batch, c, field, array)
        }
        Mutation::TooFew => {
            let keep = r.u8();
            let idx: Vec<usize> = (0..cols.len())
                .filter(|i| keep & (1 << (i % 8)) != 0)
                .take(cols.len() - 1)
                .collect();
            project(&batch, &idx)
        }
        Mutation::TooMany => {
            let extra: ArrayRef = Arc::new(StringArray::from(vec![Some("extra"); n]));
            let mut fields: Vec<Field> = batch
                .schema()
                .fields()
                .iter()
                .map(|f| f.as_ref().clone())
                .collect();
            fields.push(Field::new("extra", DataType::Utf8, true));
            let mut arrays = batch.columns().to_vec();
            arrays.push(extra);
            make_batch(fields, arrays, n)
        }
        _ => batch,
    };
    Item { batch, mutation }
}

fn make_batch(fields: Vec<Field>, arrays: Vec<ArrayRef>, n: usize) -> RecordBatch {
    RecordBatch::try_new_with_options(
        Arc::new(Schema::new(fields)),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(n)),
    )
    .expect("consistent batch")
}

fn replace_column(batch: &RecordBatch, c: usize, field: Field, array: ArrayRef) -> RecordBatch {
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let mut arrays = batch.columns().to_vec();
    fields[c] = field;
    arrays[c] = array;
    make_batch(fields, arrays, batch.num_rows())
}

fn project(batch: &RecordBatch, idx: &[usize]) -> RecordBatch {
    let schema = batch.schema();
    let fields = idx.iter().map(|&i| schema.field(i).clone()).collect();
    let arrays = idx.iter().map(|&i| batch.column(i).clone()).collect();
    make_batch(fields, arrays, batch.num_rows())
}

/// Another FLBA type: another width, precision, scale or kind.
fn other_flba(r: &mut ByteReader, f: Flba) -> Flba {
    match f {
        Flba::Fsb(w) => match r.u8() % 3 {
            0 => Flba::Fsb(w + 1),
            1 if w == 2 => Flba::Float16,
            1 if w > 1 => Flba::Fsb(w - 1),
            _ => Flba::Dec128(38, 0),
        },
        Flba::Dec32(p, s) => match r.u8() % 2 {
            0 => Flba::Dec32(if p == 9 { 8 } else { p + 1 }, s.min(8)),
            _ => Flba::Dec64(p, s),
        },
        Flba::Dec64(p, s) => match r.u8() % 2 {
            0 => Flba::Dec64(if p == 18 { 17 } else { p + 1 }, s.min(17)),
            _ => Flba::Dec128(p, s),
        },
        Flba::Dec128(p, s) => match r.u8() % 3 {
            0 => Flba::Dec128(if p == 38 { 37 } else { p + 1 }, s.min(37)),
            1 => Flba::Dec128(p, if s == 0 { 1 } else { s - 1 }),
            _ => Flba::Dec256(p, s),
        },
        Flba::Dec256(p, s) => match r.u8() % 2 {
            0 => Flba::Dec256(if p == 76 { 75 } else { p + 1 }, s.min(75)),
            _ => Flba::Dec128(p.min(38), s.min(38)),
        },
        Flba::Float16 => Flba::Fsb(2),
        Flba::YearMonth => Flba::DayTime,
        Flba::DayTime => Flba::YearMonth,
    }
}

/// A different kind for a column: mostly incompatible; a different
/// dictionary key type is compatible (parquet looks through dictionaries).
fn wrong_kind(r: &mut ByteReader, kind: Kind) -> Kind {
    match kind {
        Kind::Flba(f, repr) => match r.u8() % 4 {
            0 => Kind::Int64,
            1 => Kind::Utf8,
            2 => Kind::Flba(other_flba(r, f), Repr::Plain),
            _ => Kind::Flba(other_flba(r, f), repr),
        },
        Kind::Int64 | Kind::Prim(_) => Kind::Utf8,
        Kind::Utf8 => Kind::Int64,
        Kind::Struct(f, n) => match r.u8() % 2 {
            0 => Kind::Struct(other_flba(r, f), n),
            _ => Kind::Flba(f, Repr::Plain),
        },
        Kind::List(f, n) => match r.u8() % 2 {
            0 => Kind::List(other_flba(r, f), n),
            _ => Kind::Flba(f, Repr::Plain),
        },
        Kind::DictField(k, f) => match r.u8() % 3 {
            0 => Kind::DictField(k, other_flba(r, f)),
            1 => Kind::DictField(if k == Key::I32 { Key::I16 } else { Key::I32 }, f),
            _ => Kind::Flba(f, Repr::Plain),
        },
    }
}

/// For a plain decimal field given an array of another decimal type: the
/// first row whose value does not fit the field's column.
fn retyped_overflow_row(col: &Col, array: &ArrayRef) -> Option<usize> {
    use arrow_array::types::{Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type};
    use arrow_buffer::i256;
    let flba = col.flba().filter(|f| f.is_decimal())?;
    let w = flba.parquet_width();
    let a = array.as_ref();
    let value = |i: usize| -> Option<i256> {
        Some(match a.data_type() {
            DataType::Decimal32(..) => {
                i256::from_i128(a.as_primitive::<Decimal32Type>().value(i).into())
            }
            DataType::Decimal64(..) => {
                i256::from_i128(a.as_primitive::<Decimal64Type>().value(i).into())
            }
            DataType::Decimal128(..) => {
                i256::from_i128(a.as_primitive::<Decimal128Type>().value(i))
            }
            DataType::Decimal256(..) => a.as_primitive::<Decimal256Type>().value(i),
            _ => return None,
        })
    };
    (0..a.len()).find(|&i| {
        a.is_valid(i)
            && value(i).is_some_and(|v| {
                v < super::generate::width_min(w) || v > super::generate::width_max(w)
            })
    })
}

/// The first top-level row of `array` (for `col`) that reaches a decimal
/// value too wide for its column, if any.
fn overflow_row(col: &Col, array: &ArrayRef) -> Option<usize> {
    let flba = col.flba().filter(|f| f.is_decimal())?;
    // parquet 59 writes the slots of a non-nullable plain field as values,
    // nulls too (docs/releases.md D15): there a null slot's value counts.
    let required_slots_written = !super::release::PARQUET_60
        && !col.nullable
        && matches!(col.kind, Kind::Flba(_, Repr::Plain));
    let unfit = |a: &dyn Array, i: usize| {
        let data = a.to_data();
        let nw = flba.native_width();
        let start = (data.offset() + i) * nw;
        (a.is_valid(i) || required_slots_written)
            && !flba.fits(&data.buffers()[0].as_slice()[start..start + nw])
    };
    let a = materialize(array);
    match col.kind {
        Kind::Flba(..) | Kind::DictField(..) => (0..a.len()).find(|&i| unfit(a.as_ref(), i)),
        Kind::Struct(..) => {
            let s = a.as_struct();
            let child = s.column(0);
            (0..s.len()).find(|&i| s.is_valid(i) && unfit(child.as_ref(), i))
        }
        Kind::List(..) => {
            let l = a.as_list::<i32>();
            let items = l.values();
            let offsets = l.value_offsets();
            (0..l.len()).find(|&i| {
                l.is_valid(i)
                    && (offsets[i] as usize..offsets[i + 1] as usize)
                        .any(|j| unfit(items.as_ref(), j))
            })
        }
        Kind::Int64 | Kind::Utf8 | Kind::Prim(_) => None,
    }
}

/// The verdict `item` must get.
fn expectation(cols: &[Col], schema: &SchemaRef, opts: &Opts, item: &Item) -> Expect {
    let batch = &item.batch;
    // What parquet makes of the batch on a fresh writer.
    let upstream = quiet_catch(|| -> Result<(), String> {
        let mut w = up::writer(Vec::new(), schema, opts).map_err(|e| e.to_string())?;
        w.write(batch).map_err(|e| e.to_string())?;
        w.close().map(|_| ()).map_err(|e| e.to_string())
    });
    match upstream {
        Ok(Err(e)) => return Expect::Rejected(e),
        Err(p) => return Expect::Rejected(format!("parquet panicked: {p}")),
        Ok(Ok(())) => {}
    }
    // parquet accepts it. A too-wide decimal (which parquet truncates
    // silently) in a column that lines up with the schema and has its type
    // must be rejected, naming the column.
    let mut candidates = Vec::new();
    let mut all_delegated = true;
    for (i, col) in cols.iter().enumerate().take(batch.num_columns()) {
        if item.mutation == Mutation::TooFew {
            continue;
        }
        if matches!(item.mutation, Mutation::WrongType(c) if c == i) {
            // A plain decimal of another precision that parquet accepts for
            // this field (parquet 59 is lax about decimal types): its values
            // must still fit the field's column.
            if let (Kind::Flba(f, Repr::Plain), Some(row)) =
                (col.kind, retyped_overflow_row(col, batch.column(i)))
            {
                candidates.push((vec![col.name.clone()], Some(row)));
                all_delegated &= !f.is_decimal();
            }
            continue;
        }
        if let Some(row) = overflow_row(col, batch.column(i)) {
            let mut names = vec![col.name.clone()];
            match col.kind {
                Kind::Struct(..) => names.push("v".into()),
                Kind::List(..) => names.extend(["item".into(), "element".into()]),
                _ => {}
            }
            let row = matches!(col.kind, Kind::Flba(_, Repr::Plain)).then_some(row);
            all_delegated &= !matches!(col.kind, Kind::Flba(..));
            candidates.push((names, row));
        }
    }
    if !candidates.is_empty() {
        return Expect::Overflow(candidates, all_delegated);
    }
    if batch.num_columns() != schema.fields().len() {
        Expect::Either
    } else {
        Expect::Accepted
    }
}

/// Write `batch` column by column through `parquet_flba`'s column-level
/// API on a fresh factory: no panic; a too-wide decimal is an error.
fn probe_column_writers(
    schema: &SchemaRef,
    opts: &Opts,
    batch: &RecordBatch,
    expect: &Expect,
) -> Result<(), String> {
    if batch.num_columns() != schema.fields().len() {
        return Ok(());
    }
    let outcome = loud_catch(|| -> Result<Vec<bool>, String> {
        let parquet_schema = ArrowSchemaConverter::new()
            .with_coerce_types(opts.props.coerce_types())
            .convert(schema)
            .map_err(|e| e.to_string())?;
        let fw = SerializedFileWriter::new(
            Vec::new(),
            parquet_schema.root_schema_ptr(),
            Arc::new(opts.props.clone()),
        )
        .map_err(|e| e.to_string())?;
        let factory = parquet_flba::ArrowRowGroupWriterFactory::new(&fw, schema.clone());
        let mut writers = factory
            .create_column_writers(0)
            .map_err(|e| e.to_string())?;
        let mut failed = Vec::new();
        for (i, (field, array)) in schema.fields().iter().zip(batch.columns()).enumerate() {
            let ok = match parquet_flba::compute_leaves(field, array) {
                Err(_) => false,
                Ok(leaves) => leaves
                    .iter()
                    .all(|leaf| writers.get_mut(i).is_some_and(|w| w.write(leaf).is_ok())),
            };
            failed.push(!ok);
        }
        for w in writers {
            let _ = w.close();
        }
        Ok(failed)
    })
    .map_err(|p| format!("panicked: {p}"))?;
    if let (Ok(failed), Expect::Overflow(_, all_delegated)) = (outcome, expect)
        && !failed.iter().any(|&f| f)
        && !(*all_delegated && known_issue("column-level-delegated-overflow"))
    {
        return Err("a decimal too wide for its column was accepted".into());
    }
    Ok(())
}
