//! The column plan: which leaves take the fast path, and why the others go
//! to `parquet`'s writer. Byte identity cannot tell a silent fallback to
//! `parquet`'s writer from the fast path, so every FLBA leaf's plan is
//! pinned here, and the writers the factory creates are checked against it.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, SchemaRef};
use common::*;
use parquet::arrow::ArrowSchemaConverter;
use parquet::basic::Type as PhysicalType;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::SchemaDescriptor;
use parquet_flba::{
    ArrowRowGroupWriterFactory, ArrowWriter, ArrowWriterOptions, ColumnPlan, DelegateReason,
    LeafKind, LeafPath,
};

use DelegateReason::*;
use LeafKind::*;

/// What one leaf's plan should say: fast with a kind, or `parquet`'s for a
/// reason (with the kind its type has, if any).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    Fast(LeafKind),
    Parquet(Option<LeafKind>, DelegateReason),
}

fn cdc_props() -> WriterProperties {
    WriterProperties::builder()
        .set_content_defined_chunking(Some(small_cdc()))
        .build()
}

fn writer_plan(schema: &SchemaRef, props: WriterProperties) -> ColumnPlan {
    let writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).unwrap();
    writer.column_plan().clone()
}

/// The factory's plan, checked against the writers it creates.
fn factory_plan(schema: &SchemaRef, props: WriterProperties) -> ColumnPlan {
    let parquet = ArrowSchemaConverter::new().convert(schema).unwrap();
    let file =
        SerializedFileWriter::new(Vec::new(), parquet.root_schema_ptr(), Arc::new(props)).unwrap();
    let factory = ArrowRowGroupWriterFactory::new(&file, schema.clone());
    let plan = factory.column_plan().clone();
    assert_takes_plan(&factory, &plan);
    plan
}

/// Every writer the factory creates is of the kind its plan says: this
/// crate's writer for a fast leaf, `parquet`'s for the others.
fn assert_takes_plan(factory: &ArrowRowGroupWriterFactory, plan: &ColumnPlan) {
    let writers = factory.create_column_writers(0).unwrap();
    assert_eq!(writers.len(), plan.leaves().len());
    for (writer, leaf) in writers.iter().zip(plan.leaves()) {
        assert_eq!(
            writer.path(),
            leaf.path(),
            "column {}\n{plan}",
            leaf.column_index()
        );
    }
}

fn assert_plan(plan: &ColumnPlan, want: &[Want]) {
    let got: Vec<Want> = plan
        .leaves()
        .iter()
        .map(|l| match (l.path(), l.reason()) {
            (LeafPath::Fast, None) => Want::Fast(l.kind().expect("a fast leaf has a kind")),
            (LeafPath::Parquet, Some(reason)) => Want::Parquet(l.kind(), reason),
            other => panic!("path and reason disagree: {other:?}\n{plan}"),
        })
        .collect();
    assert_eq!(got, want, "\n{plan}");
    assert_eq!(
        plan.fast_count(),
        want.iter().filter(|w| matches!(w, Want::Fast(_))).count()
    );
}

/// A string or binary leaf: fast with every release.
fn bytes(kind: LeafKind) -> Want {
    Want::Fast(kind)
}

fn item(dt: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", dt, true))
}

fn map_of(key: DataType, value: DataType) -> DataType {
    let entries = Fields::from(vec![
        Field::new("key", key, false),
        Field::new("value", value, true),
    ]);
    DataType::Map(
        Arc::new(Field::new("entries", DataType::Struct(entries), false)),
        false,
    )
}

fn flat_schema() -> SchemaRef {
    schema_of(&[
        ("id", DataType::FixedSizeBinary(16), false),
        ("price", DataType::Decimal128(38, 10), true),
        ("big", DataType::Decimal256(50, 2), true),
        ("half", DataType::Float16, true),
        ("ym", DataType::Interval(IntervalUnit::YearMonth), true),
        ("dt", DataType::Interval(IntervalUnit::DayTime), true),
        ("ts", DataType::Int64, false),
        ("sym", DataType::Utf8, true),
        ("small", DataType::Decimal128(9, 2), true),
        ("mdn", DataType::Interval(IntervalUnit::MonthDayNano), true),
        ("d32", DataType::Decimal32(9, 2), true),
        ("d64", DataType::Decimal64(18, 4), false),
        ("d64_int32", DataType::Decimal64(5, 1), true),
        ("d128_int64", DataType::Decimal128(10, 0), true),
        ("d256_int32", DataType::Decimal256(2, 0), true),
        ("d256_int64", DataType::Decimal256(18, 18), true),
    ])
}

#[test]
fn flat_leaves() {
    let schema = flat_schema();
    let want = [
        Want::Fast(FixedSizeBinary),
        Want::Fast(Decimal128),
        Want::Fast(Decimal256),
        Want::Fast(Float16),
        Want::Fast(IntervalYearMonth),
        Want::Fast(IntervalDayTime),
        Want::Fast(Int64),
        bytes(Utf8),
        Want::Fast(Decimal128),
        Want::Parquet(None, IntervalMonthDayNano),
        Want::Fast(Decimal32),
        Want::Fast(Decimal64),
        Want::Fast(Decimal64),
        Want::Fast(Decimal128),
        Want::Fast(Decimal256),
        Want::Fast(Decimal256),
    ];
    let plan = writer_plan(&schema, WriterProperties::default());
    assert_plan(&plan, &want);
    assert_eq!(plan, factory_plan(&schema, WriterProperties::default()));
    let leaf = &plan.leaves()[1];
    assert_eq!(leaf.column_path().string(), "price");
    assert_eq!(leaf.arrow_type(), Some(&DataType::Decimal128(38, 10)));
    assert_eq!(leaf.physical_type(), PhysicalType::FIXED_LEN_BYTE_ARRAY);
    assert_eq!(leaf.field_index(), Some(1));
    // Decimals of precision up to 18 are stored as INT32 / INT64, on the
    // fast path all the same.
    let physical: Vec<PhysicalType> = [8, 10, 11, 12, 13, 14, 15]
        .iter()
        .map(|&i| plan.leaves()[i].physical_type())
        .collect();
    use PhysicalType::{INT32, INT64};
    assert_eq!(physical, [INT32, INT32, INT64, INT32, INT64, INT32, INT64]);
}

#[test]
fn nested_leaves() {
    let legs = DataType::Struct(Fields::from(vec![
        Field::new("leg_id", DataType::FixedSizeBinary(16), false),
        Field::new("count", DataType::Int32, true),
    ]));
    let schema = schema_of(&[
        ("s", legs.clone(), true),
        (
            "l",
            DataType::List(item(DataType::FixedSizeBinary(16))),
            true,
        ),
        ("ll", DataType::LargeList(item(DataType::Float16)), true),
        (
            "fl",
            DataType::FixedSizeList(item(DataType::Decimal256(40, 0)), 3),
            true,
        ),
        (
            "lv",
            DataType::ListView(item(DataType::FixedSizeBinary(8))),
            true,
        ),
        (
            "llv",
            DataType::LargeListView(item(DataType::Decimal128(20, 0))),
            true,
        ),
        (
            "m",
            map_of(DataType::FixedSizeBinary(16), DataType::Decimal128(38, 4)),
            true,
        ),
        ("ls", DataType::List(item(legs)), true),
    ]);
    let want = [
        Want::Fast(FixedSizeBinary),
        Want::Fast(Int32),
        Want::Fast(FixedSizeBinary),
        Want::Fast(Float16),
        Want::Fast(Decimal256),
        Want::Fast(FixedSizeBinary),
        Want::Fast(Decimal128),
        Want::Fast(FixedSizeBinary),
        Want::Fast(Decimal128),
        Want::Fast(FixedSizeBinary),
        Want::Fast(Int32),
    ];
    let plan = writer_plan(&schema, WriterProperties::default());
    assert_plan(&plan, &want);
    assert_eq!(plan, factory_plan(&schema, WriterProperties::default()));
    assert_eq!(plan.leaves()[0].column_path().string(), "s.leg_id");
    assert_eq!(plan.leaves()[7].field_index(), Some(6));
}

#[test]
fn dictionary_and_run_end_encoded_leaves() {
    let dict = |v: DataType| DataType::Dictionary(Box::new(DataType::Int32), Box::new(v));
    let ree = DataType::RunEndEncoded(
        Arc::new(Field::new("run_ends", DataType::Int32, false)),
        Arc::new(Field::new("values", DataType::Decimal128(38, 2), true)),
    );
    let mut fields = vec![
        ("d", dict(DataType::FixedSizeBinary(16)), true),
        ("dd", dict(DataType::Decimal128(38, 2)), true),
        ("ds", dict(DataType::Utf8), true),
        ("r", ree, true),
        (
            "ld",
            DataType::List(item(dict(DataType::Decimal256(60, 3)))),
            true,
        ),
    ];
    // parquet 58 cannot write a run-end-encoded field at all (D16).
    let with_ree = !release::PARQUET_58;
    if !with_ree {
        fields.remove(3);
    }
    let schema = schema_of(&fields);
    // With parquet 58 and 59 these leaves are its own (docs/releases.md D13,
    // D15, D16).
    let wrapped = |kind| match !release::PARQUET_60 {
        true => Want::Parquet(Some(kind), WrappedUnderParquet59),
        false => Want::Fast(kind),
    };
    let mut want = vec![
        wrapped(FixedSizeBinary),
        wrapped(Decimal128),
        wrapped(Utf8),
        wrapped(Decimal128),
        wrapped(Decimal256),
    ];
    if !with_ree {
        want.remove(3);
    }
    let plan = writer_plan(&schema, WriterProperties::default());
    assert_plan(&plan, &want);
    assert_eq!(plan, factory_plan(&schema, WriterProperties::default()));
}

/// Content-defined chunking: a table of FLBA leaves only stays on the fast
/// path; in a mixed table the other leaves go to the inner writer, and a map
/// mixing both kinds goes to it whole (the column-level factory, which does
/// not chunk, keeps its FLBA leaf fast).
#[test]
fn cdc_leaves() {
    let all_flba = schema_of(&[
        ("id", DataType::FixedSizeBinary(16), false),
        (
            "m",
            map_of(DataType::FixedSizeBinary(4), DataType::Decimal128(38, 4)),
            true,
        ),
        ("l", DataType::List(item(DataType::Float16)), true),
    ]);
    let plan = writer_plan(&all_flba, cdc_props());
    assert_plan(
        &plan,
        &[
            Want::Fast(FixedSizeBinary),
            Want::Fast(FixedSizeBinary),
            Want::Fast(Decimal128),
            Want::Fast(Float16),
        ],
    );

    let mixed_struct = DataType::Struct(Fields::from(vec![
        Field::new("amount", DataType::Decimal256(50, 18), true),
        Field::new("n", DataType::Int64, true),
    ]));
    let mixed = schema_of(&[
        ("id", DataType::FixedSizeBinary(16), false),
        ("ts", DataType::Int64, false),
        ("s", mixed_struct, true),
        (
            "m",
            // A fast key beside a value parquet writes (`Null`).
            map_of(DataType::FixedSizeBinary(4), DataType::Null),
            true,
        ),
    ]);
    let plan = writer_plan(&mixed, cdc_props());
    assert_plan(
        &plan,
        &[
            Want::Fast(FixedSizeBinary),
            Want::Fast(Int64),
            Want::Fast(Decimal256),
            Want::Fast(Int64),
            Want::Parquet(Some(FixedSizeBinary), CdcUnsplittableField),
            Want::Parquet(None, NullType),
        ],
    );
    let columns = factory_plan(&mixed, cdc_props());
    assert_eq!(columns.leaves()[4].path(), LeafPath::Fast);
    assert!(
        plan.to_string().contains("content-defined chunking"),
        "{plan}"
    );

    // The writer takes those paths: same bytes as parquet's.
    let mut g = Gen::new("plan/cdc_mixed");
    let batches = g.batches(
        &all_flba_free(&mixed),
        &[300, 200],
        &Spec::new(Nulls::Density(0.2)),
    );
    let mut f = Failures::new();
    f.identical(
        "plan/cdc_mixed",
        &all_flba_free(&mixed),
        &batches,
        cdc_props(),
    );
    f.finish();
}

/// `mixed` without its map (which the generator does not build).
fn all_flba_free(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .filter(|f| f.name() != "m")
        .cloned()
        .collect();
    Arc::new(Schema::new(fields))
}

/// An explicit Parquet schema whose descriptor is not the converter's sends
/// that leaf to `parquet`; one that does not line up field by field sends
/// every leaf.
#[test]
fn explicit_parquet_schema() {
    let schema = schema_of(&[
        ("price", DataType::Decimal128(38, 10), false),
        ("id", DataType::FixedSizeBinary(16), false),
    ]);
    let wider = parse_message_type(
        "message schema {
            REQUIRED FIXED_LEN_BYTE_ARRAY (17) price (DECIMAL(38,10));
            REQUIRED FIXED_LEN_BYTE_ARRAY (16) id (UUID);
        }",
    )
    .unwrap();
    let options =
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(wider)));
    let writer = ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options).unwrap();
    assert_plan(
        writer.column_plan(),
        &[
            Want::Parquet(Some(Decimal128), ParquetSchemaMismatch),
            Want::Fast(FixedSizeBinary),
        ],
    );

    // Small decimals: the converter's INT32 / INT64 are fast; another
    // physical type, width or precision for the same Arrow type is not.
    let small = schema_of(&[
        ("a", DataType::Decimal128(9, 2), false),
        ("b", DataType::Decimal64(12, 2), false),
        ("c", DataType::Decimal32(5, 0), false),
        ("d", DataType::Decimal128(18, 3), false),
    ]);
    let mismatched = parse_message_type(
        "message schema {
            REQUIRED INT32 a (DECIMAL(9,2));
            REQUIRED INT32 b (DECIMAL(9,2));
            REQUIRED FIXED_LEN_BYTE_ARRAY (3) c (DECIMAL(5,0));
            REQUIRED INT64 d (DECIMAL(18,2));
        }",
    )
    .unwrap();
    let options =
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(mismatched)));
    let writer = ArrowWriter::try_new_with_options(Vec::new(), small, options).unwrap();
    assert_plan(
        writer.column_plan(),
        &[
            Want::Fast(Decimal128),
            Want::Parquet(Some(Decimal64), ParquetSchemaMismatch),
            Want::Parquet(Some(Decimal32), ParquetSchemaMismatch),
            Want::Parquet(Some(Decimal128), ParquetSchemaMismatch),
        ],
    );

    let other = parse_message_type("message schema { REQUIRED INT64 a; }").unwrap();
    let options =
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(other)));
    let writer = ArrowWriter::try_new_with_options(Vec::new(), schema, options).unwrap();
    let plan = writer.column_plan();
    assert_plan(plan, &[Want::Parquet(None, SchemaNotMapped)]);
    assert_eq!(plan.leaves()[0].field_index(), None);
    assert_eq!(plan.leaves()[0].arrow_type(), None);
}

#[cfg(feature = "encryption")]
#[test]
fn encrypted_columns() {
    use parquet::encryption::encrypt::FileEncryptionProperties;
    let schema = schema_of(&[
        ("id", DataType::FixedSizeBinary(16), false),
        ("ts", DataType::Int64, false),
    ]);
    let encryption = FileEncryptionProperties::builder(b"0123456789012345".to_vec())
        .build()
        .unwrap();
    let props = WriterProperties::builder()
        .with_file_encryption_properties(encryption)
        .build();
    let want = [
        Want::Parquet(Some(FixedSizeBinary), Encrypted),
        Want::Parquet(Some(Int64), Encrypted),
    ];
    assert_plan(&writer_plan(&schema, props.clone()), &want);
    assert_plan(&factory_plan(&schema, props), &want);
}

/// The table shows one line per leaf, with the path and the reason.
#[test]
fn display_is_a_table() {
    let plan = writer_plan(&flat_schema(), WriterProperties::default());
    let text = plan.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + plan.leaves().len(), "{text}");
    assert!(lines[0].starts_with('#'), "{text}");
    assert!(
        lines[1].contains("id") && lines[1].ends_with("fast"),
        "{text}"
    );
    assert!(
        lines[7].contains("ts") && lines[7].ends_with("fast"),
        "{text}"
    );
    assert!(
        lines[8].contains("sym") && lines[8].ends_with("fast"),
        "{text}"
    );
    assert!(
        lines[10].contains("mdn") && lines[10].contains("parquet: Interval(MonthDayNano)"),
        "{text}"
    );
}

/// Writing with the plan's paths gives `parquet`'s bytes, flat and nested.
#[test]
fn planned_paths_write_parquets_bytes() {
    let legs = DataType::Struct(Fields::from(vec![
        Field::new("leg_id", DataType::FixedSizeBinary(16), false),
        Field::new("count", DataType::Int32, true),
    ]));
    let schema = schema_of(&[
        ("id", DataType::FixedSizeBinary(16), false),
        ("price", DataType::Decimal128(38, 10), true),
        ("ts", DataType::Int64, false),
        ("legs", DataType::List(item(legs)), true),
        (
            "d",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Float16)),
            true,
        ),
    ]);
    let mut g = Gen::new("plan/write");
    let batches = g.batches(&schema, &[500, 0, 700], &Spec::new(Nulls::Density(0.25)));
    let plan = writer_plan(&schema, WriterProperties::default());
    // The dictionary-typed Float16 is parquet 58/59's own there.
    let fast = if release::PARQUET_60 { 6 } else { 5 };
    assert_eq!(plan.fast_count(), fast, "{plan}");
    let mut f = Failures::new();
    f.identical("plan/write", &schema, &batches, WriterProperties::default());
    f.finish();
}

/// Every string and binary layout, plain, in a dictionary, in a list and in
/// a struct, is a fast leaf of its own kind (parquet 60); a binary with a
/// logical type parquet's converter would not give it, or a string without
/// one, is parquet's.
#[test]
fn byte_array_leaves() {
    let dict = |v: DataType| DataType::Dictionary(Box::new(DataType::Int16), Box::new(v));
    let schema = schema_of(&[
        ("s", DataType::Utf8, true),
        ("ls", DataType::LargeUtf8, false),
        ("vs", DataType::Utf8View, true),
        ("b", DataType::Binary, true),
        ("lb", DataType::LargeBinary, false),
        ("vb", DataType::BinaryView, true),
        ("ds", dict(DataType::Utf8), true),
        ("dvb", dict(DataType::BinaryView), true),
        ("l", DataType::List(item(DataType::Utf8)), true),
        (
            "st",
            DataType::Struct(Fields::from(vec![Field::new("x", DataType::Binary, true)])),
            true,
        ),
    ]);
    let wrapped = |kind| match !release::PARQUET_60 {
        true => Want::Parquet(Some(kind), WrappedUnderParquet59),
        false => Want::Fast(kind),
    };
    let want = [
        bytes(Utf8),
        bytes(LargeUtf8),
        bytes(Utf8View),
        bytes(Binary),
        bytes(LargeBinary),
        bytes(BinaryView),
        wrapped(Utf8),
        wrapped(BinaryView),
        bytes(Utf8),
        bytes(Binary),
    ];
    let plan = writer_plan(&schema, WriterProperties::default());
    assert_plan(&plan, &want);
    assert_eq!(plan, factory_plan(&schema, WriterProperties::default()));

    // An explicit schema that makes a string plain binary, or a binary a
    // string: the descriptor is not the converter's, the leaf is parquet's.
    let two = schema_of(&[("s", DataType::Utf8, true), ("b", DataType::Binary, true)]);
    let parquet = parse_message_type(
        "message schema { OPTIONAL BYTE_ARRAY s; OPTIONAL BYTE_ARRAY b (STRING); }",
    )
    .unwrap();
    let options =
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(parquet)));
    let writer = ArrowWriter::try_new_with_options(Vec::new(), two, options).unwrap();
    assert_plan(
        writer.column_plan(),
        &[
            Want::Parquet(Some(Utf8), ParquetSchemaMismatch),
            Want::Parquet(Some(Binary), ParquetSchemaMismatch),
        ],
    );
}

/// A binary with a geospatial logical type (a user's explicit schema, or
/// parquet's converter with its `geospatial` feature) gets geospatial
/// statistics from `parquet`: the leaf is parquet's, for a reason of its
/// own.
#[test]
fn geospatial_binary_is_parquets() {
    use parquet::basic::{LogicalType, Repetition, Type as Physical};
    use parquet::schema::types::Type;
    #[cfg(feature = "parquet-58")]
    let geometry = LogicalType::Geometry { crs: None };
    #[cfg(not(feature = "parquet-58"))]
    let geometry = LogicalType::geometry(None);
    let leaf = Type::primitive_type_builder("g", Physical::BYTE_ARRAY)
        .with_repetition(Repetition::OPTIONAL)
        .with_logical_type(Some(geometry))
        .build()
        .unwrap();
    let root = Type::group_type_builder("schema")
        .with_fields(vec![Arc::new(leaf)])
        .build()
        .unwrap();
    let schema = schema_of(&[("g", DataType::Binary, true)]);
    let options =
        ArrowWriterOptions::new().with_parquet_schema(SchemaDescriptor::new(Arc::new(root)));
    let writer = ArrowWriter::try_new_with_options(Vec::new(), schema, options).unwrap();
    assert_plan(
        writer.column_plan(),
        &[Want::Parquet(Some(Binary), GeospatialType)],
    );
}
