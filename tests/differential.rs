//! Differential tests: `parquet_flba::ArrowWriter` must write byte-identical
//! files to `parquet::arrow::ArrowWriter` (parquet 60.1.0).
//!
//! Covers every FIXED_LEN_BYTE_ARRAY type (FixedSizeBinary widths 1..=64 and
//! 1000, Decimal128 p19..=38, Decimal256 p39..=76, Float16, intervals) under the
//! standard configurations (`common::configs`: parquet's defaults, bloom
//! filters, PARQUET_2_0, zstd, zstd + PARQUET_2_0, content-defined chunking
//! with default and with small chunks); null layouts (none, all-valid buffer, 50%, all
//! null, runs), slices, batch shapes, row-group splits by rows and bytes, tiny
//! page / batch / dictionary limits, explicit encodings, statistics and
//! truncation, bloom filters, every codec, writer options, mixed and nested
//! tables, dictionary arrays, the column-level (parallel) API and the rest of
//! the `ArrowWriter` API surface. Each case is named `group/type/config` in
//! failure messages; data is seeded (see `PARQUET_FLBA_SEED`).

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{
    ArrayRef, DictionaryArray, FixedSizeBinaryArray, Int32Array, RecordBatch, RecordBatchOptions,
    RecordBatchWriter,
};
use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, SchemaRef};
use common::*;
use parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{
    BloomFilterPosition, EnabledStatistics, WriterProperties, WriterPropertiesBuilder,
    WriterVersion,
};
use parquet::schema::types::ColumnPath;
use rand::Rng;

fn props() -> WriterPropertiesBuilder {
    WriterProperties::builder()
}

fn v2(b: WriterPropertiesBuilder) -> WriterPropertiesBuilder {
    b.set_writer_version(WriterVersion::PARQUET_2_0)
}

fn col(name: &str) -> ColumnPath {
    ColumnPath::from(name)
}

/// Both writer versions, named.
fn versions() -> [(&'static str, WriterVersion); 2] {
    [
        ("v1", WriterVersion::PARQUET_1_0),
        ("v2", WriterVersion::PARQUET_2_0),
    ]
}

/// A three-column table of one type: nullable with nulls, required, and
/// nullable without a null buffer (Materialized, absent and Uniform levels).
fn three_ways(dt: &DataType) -> SchemaRef {
    schema_of(&[
        ("nullable", dt.clone(), true),
        ("required", dt.clone(), false),
        ("no_null_buffer", dt.clone(), true),
    ])
}

fn three_ways_batches(g: &mut Gen, schema: &SchemaRef, sizes: &[usize]) -> Vec<RecordBatch> {
    let specs = [
        Spec::new(Nulls::Density(0.3)),
        Spec::new(Nulls::Absent),
        Spec::new(Nulls::Absent),
    ];
    sizes
        .iter()
        .map(|&n| g.batch_with(schema, n, &specs))
        .collect()
}

/// The mixed table used by row-group and codec tests.
fn mixed_schema() -> SchemaRef {
    schema_of(&[
        ("uuid", DataType::FixedSizeBinary(16), true),
        ("price", DataType::Decimal128(38, 10), true),
        ("ts", DataType::Int64, false),
        ("symbol", DataType::Utf8, true),
        ("half", DataType::Float16, true),
        ("amount", DataType::Decimal256(40, 2), false),
        ("tags", list_i32(), true),
    ])
}

// ---------------------------------------------------------------------------
// Every type under every configuration
// ---------------------------------------------------------------------------

fn type_config_cases(family: &str, types: Vec<DataType>, config_name: &str) {
    let mut f = Failures::new();
    // Single-type families are cheap: give them low-cardinality data with
    // long null runs as well.
    let extra = types.len() <= 3;
    for dt in types {
        let name = format!("{family}/{}/{config_name}", type_name(&dt));
        let mut g = Gen::new(&name);
        let schema = three_ways(&dt);
        assert_all_fast(&name, &schema, config(config_name).build());
        let batches = three_ways_batches(&mut g, &schema, &[257, 120]);
        f.identical(&name, &schema, &batches, config(config_name).build());
        if extra {
            let spec = Spec::new(Nulls::Runs(200)).distinct(20);
            let batches = g.batches(&schema, &[1500, 700], &spec);
            let name = format!("{name}/lowcard_runs");
            f.identical(&name, &schema, &batches, config(config_name).build());
        }
    }
    f.finish();
}

/// Identical bytes cannot tell the fast path from a fallback to parquet's
/// writer: every leaf of these single-type tables must be planned fast.
fn assert_all_fast(name: &str, schema: &SchemaRef, props: WriterProperties) {
    let writer = parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props))
        .expect("writer");
    for leaf in writer.column_plan().leaves() {
        assert_eq!(
            leaf.path(),
            parquet_flba::LeafPath::Fast,
            "case `{name}`: leaf {} is not on the fast path: {:?}",
            leaf.column_index(),
            leaf.reason()
        );
    }
}

macro_rules! family_config_tests {
    ($($family:ident => $types:expr;)*) => {$(
        mod $family {
            use super::*;

            fn run(config_name: &str) {
                type_config_cases(stringify!($family), $types, config_name)
            }

            #[test]
            fn default() {
                run("default")
            }

            #[test]
            fn bloom_filter() {
                run("bloom_filter")
            }

            #[test]
            fn parquet_2() {
                run("parquet_2")
            }

            #[test]
            fn zstd() {
                run("zstd")
            }

            #[test]
            fn zstd_parquet_2() {
                run("zstd_parquet_2")
            }

            #[test]
            fn cdc() {
                run("cdc")
            }

            #[test]
            fn cdc_small() {
                run("cdc_small")
            }
        }
    )*};
}

family_config_tests! {
    fsb => fsb_types();
    decimal128 => decimal128_types();
    decimal256 => decimal256_types();
    decimal_int => decimal_int_types();
    float16 => vec![DataType::Float16];
    interval_year_month => vec![DataType::Interval(IntervalUnit::YearMonth)];
    interval_day_time => vec![DataType::Interval(IntervalUnit::DayTime)];
    integers => integer_types();
    floats => float_types();
    booleans => vec![DataType::Boolean];
}

/// `fsb_16_nullable_v2_zstd` and friends: a few hand-named spot checks.
mod spot {
    use super::*;

    fn one(name: &str, dt: DataType, nullable: bool, nulls: Nulls, p: WriterProperties) {
        let mut g = Gen::new(name);
        let schema = schema1("c", dt, nullable);
        let batches = g.batches(&schema, &[700, 300], &Spec::new(nulls));
        assert_identical(name, schema, &batches, p);
    }

    #[test]
    fn fsb_16_nullable_v2_zstd() {
        let p = v2(config("zstd")).build();
        one(
            "fsb_16_nullable_v2_zstd",
            DataType::FixedSizeBinary(16),
            true,
            Nulls::Density(0.5),
            p,
        );
    }

    #[test]
    fn uuid_required_default() {
        let p = props().build();
        one(
            "uuid_required_default",
            DataType::FixedSizeBinary(16),
            false,
            Nulls::Absent,
            p,
        );
    }

    #[test]
    fn fsb_16_ninety_percent_nulls() {
        let p = props().build();
        one(
            "fsb_16_90pct_nulls",
            DataType::FixedSizeBinary(16),
            true,
            Nulls::Density(0.9),
            p,
        );
    }

    #[test]
    fn decimal128_38_2_low_cardinality_required() {
        let name = "decimal128_38_2_lowcard";
        let mut g = Gen::new(name);
        let schema = schema1("c", DataType::Decimal128(38, 2), false);
        let spec = Spec::new(Nulls::Absent).distinct(100);
        let batches = g.batches(&schema, &[1500, 500], &spec);
        for (cfg, b) in configs() {
            assert_identical(
                &format!("{name}/{cfg}"),
                schema.clone(),
                &batches,
                b.build(),
            );
        }
    }

    #[test]
    fn decimal_nonnull_pair() {
        let name = "decimal_nonnull";
        let mut g = Gen::new(name);
        let schema = schema_of(&[
            ("d128", DataType::Decimal128(38, 10), false),
            ("d256", DataType::Decimal256(76, 10), false),
        ]);
        let batches = g.batches(&schema, &[1000], &Spec::default());
        for (cfg, b) in configs() {
            assert_identical(
                &format!("{name}/{cfg}"),
                schema.clone(),
                &batches,
                b.build(),
            );
        }
    }

    #[test]
    fn decimal_extremes_all_precisions() {
        let mut f = Failures::new();
        for p in 19..=76u8 {
            let (dt, arr): (DataType, ArrayRef) = if p <= 38 {
                let m = pow10_i128(p) - 1;
                let vals = vec![Some(m), Some(-m), Some(0), Some(-1), Some(1), None, Some(m)];
                let a = arrow_array::Decimal128Array::from(vals)
                    .with_precision_and_scale(p, 0)
                    .unwrap();
                (DataType::Decimal128(p, 0), Arc::new(a))
            } else {
                let m = pow10_i256(p).wrapping_sub(arrow_buffer::i256::ONE);
                let one = arrow_buffer::i256::ONE;
                let vals = vec![
                    Some(m),
                    Some(m.wrapping_neg()),
                    Some(arrow_buffer::i256::ZERO),
                    Some(arrow_buffer::i256::MINUS_ONE),
                    Some(one),
                    None,
                    Some(m),
                ];
                let a = arrow_array::Decimal256Array::from(vals)
                    .with_precision_and_scale(p, 0)
                    .unwrap();
                (DataType::Decimal256(p, 0), Arc::new(a))
            };
            let schema = schema1("d", dt.clone(), true);
            let batch = RecordBatch::try_new(schema.clone(), vec![arr]).unwrap();
            for (cfg, b) in [
                ("default", props()),
                ("plain", props().set_dictionary_enabled(false)),
                ("v2", v2(props().set_dictionary_enabled(false))),
            ] {
                let name = format!("decimal_extremes/{}/{cfg}", type_name(&dt));
                f.identical(&name, &schema, std::slice::from_ref(&batch), b.build());
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Null layouts
// ---------------------------------------------------------------------------

mod nulls {
    use super::*;

    fn layouts(label: &str, nulls: Nulls) {
        let mut f = Failures::new();
        for dt in representative_types() {
            for (cfg, b) in [
                ("default", props()),
                ("parquet_2", v2(props())),
                ("small_pages", small_pages(props())),
                (
                    "small_pages_v2_plain",
                    v2(small_pages(props())).set_dictionary_enabled(false),
                ),
            ] {
                let name = format!("nulls_{label}/{}/{cfg}", type_name(&dt));
                let mut g = Gen::new(&name);
                let schema = schema1("c", dt.clone(), true);
                let batches = g.batches(&schema, &[400, 150], &Spec::new(nulls));
                f.identical(&name, &schema, &batches, b.build());
            }
        }
        f.finish();
    }

    #[test]
    fn density_0_all_valid_buffer() {
        layouts("density_0", Nulls::Density(0.0))
    }

    #[test]
    fn density_50() {
        layouts("density_50", Nulls::Density(0.5))
    }

    #[test]
    fn density_100_all_null() {
        layouts("density_100", Nulls::Density(1.0))
    }

    #[test]
    fn no_null_buffer() {
        layouts("absent", Nulls::Absent)
    }

    #[test]
    fn long_runs() {
        layouts("runs", Nulls::Runs(150))
    }

    #[test]
    fn non_nullable_fields() {
        let mut f = Failures::new();
        for dt in representative_types() {
            for (cfg, b) in [
                ("default", props()),
                ("small_pages_v2", v2(small_pages(props()))),
            ] {
                let name = format!("non_nullable/{}/{cfg}", type_name(&dt));
                let mut g = Gen::new(&name);
                let schema = schema1("c", dt.clone(), false);
                let batches = g.batches(&schema, &[400, 150], &Spec::new(Nulls::Absent));
                f.identical(&name, &schema, &batches, b.build());
            }
        }
        f.finish();
    }

    /// A nullable field with an all-valid null buffer takes the Materialized
    /// level path (mini-batches of `write_batch_size`), without a buffer the
    /// Uniform one (mini-batches of `data_page_row_count_limit`): page
    /// boundaries differ. Checked at default limits (20 000 vs 20 480-row
    /// pages) and with small limits.
    #[test]
    fn all_valid_buffer_vs_absent_default_limits() {
        let dt = DataType::FixedSizeBinary(16);
        let schema = schema_of(&[
            ("absent", dt.clone(), true),
            ("all_valid", dt.clone(), true),
            ("required", dt.clone(), false),
        ]);
        let name = "all_valid_vs_absent/default_limits";
        let mut g = Gen::new(name);
        let specs = [
            Spec::new(Nulls::Absent).distinct(50),
            Spec::new(Nulls::AllValid).distinct(50),
            Spec::new(Nulls::Absent).distinct(50),
        ];
        let batches = vec![g.batch_with(&schema, 21_000, &specs)];
        assert_identical(name, schema.clone(), &batches, props().build());
        assert_identical(&format!("{name}/v2"), schema, &batches, v2(props()).build());
    }

    #[test]
    fn all_valid_buffer_vs_absent_small_limits() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let schema = schema_of(&[
                ("absent", dt.clone(), true),
                ("all_valid", dt.clone(), true),
            ]);
            let name = format!("all_valid_vs_absent/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let specs = [Spec::new(Nulls::Absent), Spec::new(Nulls::AllValid)];
            let batches = vec![
                g.batch_with(&schema, 333, &specs),
                g.batch_with(&schema, 90, &specs),
            ];
            for (v, ver) in versions() {
                let p = props()
                    .set_writer_version(ver)
                    .set_data_page_row_count_limit(100)
                    .set_write_batch_size(64)
                    .set_data_page_size_limit(2000)
                    .build();
                f.identical(&format!("{name}/{v}"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    /// All-null batches between batches with values, and a column whose
    /// first row group is entirely null.
    #[test]
    fn all_null_batches_between_values() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("all_null_between/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = schema1("c", dt.clone(), true);
            let batches = vec![
                g.batch(&schema, 100, &Spec::new(Nulls::Density(1.0))),
                g.batch(&schema, 100, &Spec::new(Nulls::Density(0.1))),
                g.batch(&schema, 100, &Spec::new(Nulls::Density(1.0))),
                g.batch(&schema, 30, &Spec::new(Nulls::Absent)),
            ];
            for (cfg, b) in [
                ("default", props()),
                ("rg100", props().set_max_row_group_row_count(Some(100))),
                ("v2_small", v2(small_pages(props()))),
                (
                    "bloom",
                    props().set_bloom_filter_enabled(true).bloom_max_ndv(100),
                ),
            ] {
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, b.build());
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Slices, batch shapes
// ---------------------------------------------------------------------------

mod shapes {
    use super::*;

    #[test]
    fn sliced_batches_with_offsets() {
        let mut f = Failures::new();
        for dt in representative_types() {
            for nulls in [Nulls::Density(0.4), Nulls::AllValid, Nulls::Absent] {
                let name = format!("sliced/{}/{nulls:?}", type_name(&dt));
                let mut g = Gen::new(&name);
                let schema = schema_of(&[("c", dt.clone(), true), ("r", dt.clone(), false)]);
                let base = g.batch(&schema, 300, &Spec::new(nulls));
                for off in [1usize, 3, 5, 7, 8, 9, 13, 64, 65] {
                    let batches = vec![
                        base.slice(off, 300 - off - 7),
                        base.slice(off + 1, 50),
                        base.slice(299, 1),
                    ];
                    for (cfg, b) in [("default", props()), ("v2_small", v2(small_pages(props())))] {
                        f.identical(
                            &format!("{name}/off{off}/{cfg}"),
                            &schema,
                            &batches,
                            b.build(),
                        );
                    }
                }
            }
        }
        f.finish();
    }

    #[test]
    fn sliced_nested_and_dictionary() {
        let st = DataType::Struct(Fields::from(vec![
            Field::new("u", DataType::FixedSizeBinary(16), true),
            Field::new("d", DataType::Decimal128(25, 3), false),
        ]));
        let schema = schema_of(&[
            ("st", st, true),
            (
                "l",
                DataType::List(Arc::new(Field::new("item", DataType::Float16, true))),
                true,
            ),
            (
                "dict",
                DataType::Dictionary(
                    Box::new(DataType::Int32),
                    Box::new(DataType::FixedSizeBinary(5)),
                ),
                true,
            ),
        ]);
        let mut g = Gen::new("sliced_nested");
        let base = g.batch(&schema, 200, &Spec::new(Nulls::Density(0.3)));
        let mut f = Failures::new();
        for off in [1usize, 7, 8, 33] {
            let batches = vec![base.slice(off, 200 - off - 3)];
            f.identical(
                &format!("sliced_nested/off{off}"),
                &schema,
                &batches,
                props().build(),
            );
        }
        f.finish();
    }

    fn shaped(label: &str, sizes: &[usize]) {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("{label}/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, sizes);
            for (cfg, b) in [
                ("default", props()),
                ("parquet_2", v2(props())),
                ("cdc_small", config("cdc_small")),
            ] {
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, b.build());
            }
        }
        f.finish();
    }

    #[test]
    fn ten_small_batches() {
        shaped("ten_small_batches", &[37; 10]);
    }

    #[test]
    fn uneven_batches() {
        shaped("uneven_batches", &[1, 0, 1023, 1025, 7, 2048, 3]);
    }

    #[test]
    fn single_row_batches() {
        shaped("single_row_batches", &[1; 40]);
    }
}

// ---------------------------------------------------------------------------
// Row-group splits
// ---------------------------------------------------------------------------

mod row_groups {
    use super::*;

    fn mixed_batches(name: &str, sizes: &[usize]) -> (SchemaRef, Vec<RecordBatch>) {
        let mut g = Gen::new(name);
        let schema = mixed_schema();
        let batches = g.batches(&schema, sizes, &Spec::new(Nulls::Density(0.2)));
        (schema, batches)
    }

    #[test]
    fn by_rows() {
        let mut f = Failures::new();
        for (max, sizes) in [
            (1usize, vec![5, 3, 0, 4]),
            (7, vec![20, 1, 13, 7]),
            (100, vec![250, 250, 13, 500]),
            (333, vec![250, 250, 13, 500]),
            (1000, vec![250, 250, 13, 500]),
        ] {
            let name = format!("rg_rows/{max}");
            let (schema, batches) = mixed_batches(&name, &sizes);
            for (cfg, b) in [
                ("default", props()),
                ("parquet_2", v2(props())),
                ("cdc_small", config("cdc_small")),
                ("bloom", props().set_bloom_filter_enabled(true)),
            ] {
                let p = b.set_max_row_group_row_count(Some(max)).build();
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    #[test]
    fn by_bytes() {
        let mut f = Failures::new();
        for max in [1usize, 500, 2_000, 10_000, 50_000] {
            let name = format!("rg_bytes/{max}");
            let (schema, batches) = mixed_batches(&name, &[250, 250, 13, 500, 1]);
            for (cfg, b) in [
                ("default", props()),
                ("parquet_2", v2(props())),
                ("small_pages", small_pages(props())),
                ("plain", props().set_dictionary_enabled(false)),
                ("cdc_small", config("cdc_small")),
            ] {
                let p = b
                    .set_max_row_group_row_count(None)
                    .set_max_row_group_bytes(Some(max))
                    .build();
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    #[test]
    fn by_rows_and_bytes() {
        let mut f = Failures::new();
        for (rows, bytes) in [(100usize, 3_000usize), (300, 20_000), (50, 100_000), (1, 1)] {
            let name = format!("rg_rows_bytes/{rows}_{bytes}");
            let (schema, batches) = mixed_batches(&name, &[120, 400, 7, 333]);
            for (cfg, b) in [("default", props()), ("v2_small", v2(small_pages(props())))] {
                let p = b
                    .set_max_row_group_row_count(Some(rows))
                    .set_max_row_group_bytes(Some(bytes))
                    .build();
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    /// FLBA-only tables with a byte limit: the split point depends only on the
    /// FLBA estimates (dictionary, fallback and plain).
    #[test]
    fn by_bytes_flba_only() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("rg_bytes_flba/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[100, 300, 50, 200]);
            for (cfg, b) in [
                ("dict", props()),
                ("plain", props().set_dictionary_enabled(false)),
                ("dba_v2", v2(props()).set_dictionary_enabled(false)),
                (
                    "bss",
                    props()
                        .set_dictionary_enabled(false)
                        .set_encoding(byte_stream_split_for(&dt)),
                ),
                ("fallback", props().set_dictionary_page_size_limit(200)),
            ] {
                for max in [700usize, 4_000] {
                    let p = b.clone().set_max_row_group_bytes(Some(max)).build();
                    f.identical(&format!("{name}/{cfg}/{max}"), &schema, &batches, p);
                }
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Page, batch and dictionary limits
// ---------------------------------------------------------------------------

mod limits {
    use super::*;

    fn limit_cases(label: &str, knobs: &[(String, WriterPropertiesBuilder)]) {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("{label}/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[250, 63]);
            for (knob, b) in knobs {
                for (v, ver) in versions() {
                    for dict in [true, false] {
                        let p = b
                            .clone()
                            .set_writer_version(ver)
                            .set_dictionary_enabled(dict)
                            .build();
                        let case = format!("{name}/{knob}/{v}/dict_{dict}");
                        f.identical(&case, &schema, &batches, p);
                    }
                }
            }
        }
        f.finish();
    }

    #[test]
    fn data_page_size_limit() {
        let knobs: Vec<_> = [64usize, 100, 257, 1024]
            .iter()
            .map(|&n| {
                (
                    format!("page_bytes_{n}"),
                    props().set_data_page_size_limit(n),
                )
            })
            .collect();
        limit_cases("data_page_size_limit", &knobs);
    }

    #[test]
    fn data_page_row_count_limit() {
        let knobs: Vec<_> = [1usize, 7, 100]
            .iter()
            .map(|&n| {
                (
                    format!("page_rows_{n}"),
                    props().set_data_page_row_count_limit(n),
                )
            })
            .collect();
        limit_cases("data_page_row_count_limit", &knobs);
    }

    #[test]
    fn write_batch_size() {
        let knobs: Vec<_> = [1usize, 3, 10]
            .iter()
            .map(|&n| (format!("batch_{n}"), props().set_write_batch_size(n)))
            .collect();
        limit_cases("write_batch_size", &knobs);
    }

    #[test]
    fn combined_tiny_limits() {
        let knobs = vec![
            (
                "tiny_all".to_string(),
                props()
                    .set_data_page_size_limit(64)
                    .set_data_page_row_count_limit(3)
                    .set_write_batch_size(1),
            ),
            (
                "bytes_vs_rows".to_string(),
                props()
                    .set_data_page_size_limit(300)
                    .set_data_page_row_count_limit(40)
                    .set_write_batch_size(7),
            ),
        ];
        limit_cases("combined", &knobs);
    }

    /// Dictionary fallback mid-chunk and mid-batch, to PLAIN (V1), DELTA_BYTE_ARRAY
    /// (V2) or an explicit fallback encoding.
    #[test]
    fn dictionary_fallback() {
        let mut f = Failures::new();
        for dt in representative_types() {
            for distinct in [None, Some(20)] {
                let name = format!("dict_fallback/{}/distinct_{distinct:?}", type_name(&dt));
                let mut g = Gen::new(&name);
                let schema = schema_of(&[("c", dt.clone(), true), ("r", dt.clone(), false)]);
                let mut spec = Spec::new(Nulls::Density(0.2));
                spec.distinct = distinct;
                let batches = g.batches(&schema, &[300, 300, 40], &spec);
                for dict_limit in [1usize, 16, 100, 1000] {
                    for (v, ver) in versions() {
                        for (enc, encoding) in [
                            ("default", None),
                            ("bss", Some(byte_stream_split_for(&dt))),
                            ("delta", Some(delta_for(&dt))),
                            ("plain", Some(Encoding::PLAIN)),
                        ] {
                            let mut b = props()
                                .set_writer_version(ver)
                                .set_dictionary_page_size_limit(dict_limit)
                                .set_write_batch_size(50);
                            if let Some(e) = encoding {
                                b = b.set_encoding(e);
                            }
                            let case = format!("{name}/dict_limit_{dict_limit}/{v}/{enc}");
                            f.identical(&case, &schema, &batches, b.build());
                        }
                    }
                }
            }
        }
        f.finish();
    }

    /// Per-column limits override the defaults.
    #[test]
    fn per_column_limits() {
        let name = "per_column_limits";
        let mut g = Gen::new(name);
        let schema = mixed_schema();
        let batches = g.batches(&schema, &[300, 200], &Spec::new(Nulls::Density(0.2)));
        let p = props()
            .set_column_data_page_size_limit(col("uuid"), 100)
            .column_page_row_limit(col("price"), 13)
            .set_column_dictionary_page_size_limit(col("amount"), 64)
            .set_column_dictionary_page_size_limit(col("half"), 8)
            .build();
        assert_identical(name, schema.clone(), &batches, p);
        let p = v2(props())
            .set_column_data_page_size_limit(col("half"), 10)
            .set_column_dictionary_enabled(col("uuid"), false)
            .build();
        assert_identical(&format!("{name}/v2"), schema, &batches, p);
    }
}

// ---------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------

mod encodings {
    use super::*;

    const ENCODINGS: [(&str, Encoding); 3] = [
        ("plain", Encoding::PLAIN),
        ("byte_stream_split", Encoding::BYTE_STREAM_SPLIT),
        ("delta_byte_array", Encoding::DELTA_BYTE_ARRAY),
    ];

    const INTEGER_ENCODINGS: [(&str, Encoding); 3] = [
        ("plain", Encoding::PLAIN),
        ("byte_stream_split", Encoding::BYTE_STREAM_SPLIT),
        ("delta_binary_packed", Encoding::DELTA_BINARY_PACKED),
    ];

    #[test]
    fn explicit_encoding_every_type() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("encoding/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[300, 77]);
            const BOOLEAN_ENCODINGS: [(&str, Encoding); 2] =
                [("plain", Encoding::PLAIN), ("rle", Encoding::RLE)];
            let encodings = match (integer_layout(&dt), &dt) {
                (Some(_), _) => &INTEGER_ENCODINGS[..],
                (None, DataType::Float32 | DataType::Float64) => &ENCODINGS[..2],
                (None, DataType::Boolean) => &BOOLEAN_ENCODINGS[..],
                _ => &ENCODINGS[..],
            };
            for &(enc, e) in encodings {
                for (v, ver) in versions() {
                    for dict in [false, true] {
                        for (pages, b) in [
                            ("default_pages", props()),
                            ("small_pages", small_pages(props())),
                        ] {
                            let p = b
                                .set_encoding(e)
                                .set_writer_version(ver)
                                .set_dictionary_enabled(dict)
                                .build();
                            let case = format!("{name}/{enc}/{v}/dict_{dict}/{pages}");
                            f.identical(&case, &schema, &batches, p);
                        }
                    }
                }
            }
        }
        f.finish();
    }

    #[test]
    fn every_fsb_width_byte_stream_split_and_delta() {
        let mut f = Failures::new();
        for dt in fsb_types() {
            let name = format!("encoding_widths/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = schema1("c", dt.clone(), true);
            let batches = g.batches(&schema, &[150], &Spec::new(Nulls::Density(0.2)));
            for (enc, e) in ENCODINGS {
                let p = props()
                    .set_dictionary_enabled(false)
                    .set_encoding(e)
                    .set_data_page_size_limit(700)
                    .build();
                f.identical(&format!("{name}/{enc}"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    #[test]
    fn per_column_encoding_in_mixed_table() {
        let mut f = Failures::new();
        let schema = mixed_schema();
        let mut g = Gen::new("per_column_encoding");
        let batches = g.batches(&schema, &[300, 200], &Spec::new(Nulls::Density(0.2)));
        for (enc, e) in ENCODINGS {
            for (v, ver) in versions() {
                for dict in [false, true] {
                    let p = props()
                        .set_writer_version(ver)
                        .set_dictionary_enabled(dict)
                        .set_column_encoding(col("uuid"), e)
                        .set_column_encoding(col("price"), e)
                        .set_column_encoding(col("half"), e)
                        .set_column_encoding(col("amount"), Encoding::PLAIN)
                        .build();
                    let case = format!("per_column_encoding/{enc}/{v}/dict_{dict}");
                    f.identical(&case, &schema, &batches, p);
                }
            }
        }
        f.finish();
    }

    #[test]
    fn per_column_dictionary_enabled() {
        let mut f = Failures::new();
        let schema = mixed_schema();
        let mut g = Gen::new("per_column_dictionary");
        let batches = g.batches(
            &schema,
            &[300, 200],
            &Spec::new(Nulls::Density(0.2)).distinct(30),
        );
        for global in [true, false] {
            for (v, ver) in versions() {
                let p = props()
                    .set_writer_version(ver)
                    .set_dictionary_enabled(global)
                    .set_column_dictionary_enabled(col("uuid"), !global)
                    .set_column_dictionary_enabled(col("amount"), !global)
                    .set_column_dictionary_enabled(col("half"), global)
                    .build();
                let case = format!("per_column_dictionary/global_{global}/{v}");
                f.identical(&case, &schema, &batches, p);
            }
        }
        f.finish();
    }

    /// DELTA_BYTE_ARRAY with custom DELTA_BINARY_PACKED block layouts, on
    /// data with long shared prefixes (sorted) and random data.
    /// DELTA_BINARY_PACKED block layouts: a parquet 60 setting (D12).
    #[test]
    #[cfg(feature = "parquet-60")]
    fn delta_byte_array_block_layouts() {
        use parquet::file::properties::DeltaBinaryPackedEncoderOptions;
        let mut f = Failures::new();
        for dt in representative_types() {
            for order in [Order::Random, Order::Asc] {
                let name = format!("dba_layout/{}/{order:?}", type_name(&dt));
                let mut g = Gen::new(&name);
                let schema = schema1("c", dt.clone(), true);
                let spec = Spec::new(Nulls::Density(0.1)).order(order);
                let batches = g.batches(&schema, &[600, 129], &spec);
                for (block, mini) in [(128usize, 4usize), (256, 8), (128, 1), (1024, 32)] {
                    let opts = DeltaBinaryPackedEncoderOptions::try_new(block, mini).unwrap();
                    for (v, ver) in versions() {
                        let p = props()
                            .set_writer_version(ver)
                            .set_dictionary_enabled(false)
                            .set_encoding(delta_for(&dt))
                            .set_delta_binary_packed_encoder_options(opts)
                            .set_data_page_size_limit(1500)
                            .build();
                        f.identical(&format!("{name}/{block}x{mini}/{v}"), &schema, &batches, p);
                    }
                }
                let opts = DeltaBinaryPackedEncoderOptions::try_new(256, 2).unwrap();
                let p = props()
                    .set_dictionary_enabled(false)
                    .set_column_encoding(col("c"), delta_for(&dt))
                    .set_column_delta_binary_packed_encoder_options(col("c"), opts)
                    .build();
                f.identical(&format!("{name}/per_column_256x2"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    /// DELTA_BYTE_ARRAY's page-size exemption: a single value larger than the
    /// page limit.
    #[test]
    fn delta_byte_array_oversized_values() {
        let mut f = Failures::new();
        for w in [100i32, 1000] {
            let name = format!("dba_oversized/fsb{w}");
            let mut g = Gen::new(&name);
            let schema = schema1("c", DataType::FixedSizeBinary(w), true);
            let batches = g.batches(&schema, &[40, 3], &Spec::new(Nulls::Density(0.3)));
            for (v, ver) in versions() {
                for limit in [50usize, 99, 150] {
                    let p = props()
                        .set_writer_version(ver)
                        .set_dictionary_enabled(false)
                        .set_encoding(Encoding::DELTA_BYTE_ARRAY)
                        .set_data_page_size_limit(limit)
                        .build();
                    f.identical(&format!("{name}/{v}/limit_{limit}"), &schema, &batches, p);
                }
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Statistics, column index, truncation
// ---------------------------------------------------------------------------

mod statistics {
    use super::*;

    const LEVELS: [EnabledStatistics; 3] = [
        EnabledStatistics::None,
        EnabledStatistics::Chunk,
        EnabledStatistics::Page,
    ];

    #[test]
    fn levels_and_page_header_statistics() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("stats/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[300, 100]);
            for level in LEVELS {
                for header in [false, true] {
                    for (v, ver) in versions() {
                        let p = small_pages(props())
                            .set_statistics_enabled(level)
                            .set_write_page_header_statistics(header)
                            .set_writer_version(ver)
                            .build();
                        let case = format!("{name}/{}/header_{header}/{v}", stats_name(level));
                        f.identical(&case, &schema, &batches, p);
                    }
                }
            }
        }
        f.finish();
    }

    #[test]
    fn per_column_statistics() {
        let schema = mixed_schema();
        let mut g = Gen::new("per_column_stats");
        let batches = g.batches(&schema, &[300, 100], &Spec::default());
        let p = props()
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_column_statistics_enabled(col("uuid"), EnabledStatistics::Page)
            .set_column_statistics_enabled(col("amount"), EnabledStatistics::None)
            .set_column_write_page_header_statistics(col("price"), true)
            .build();
        assert_identical("per_column_stats", schema, &batches, p);
    }

    /// Values that stress min/max truncation: all 0xFF (cannot be
    /// incremented), 0xFF prefixes, carries, all zero.
    fn truncation_values(g: &mut Gen, width: usize, n: usize) -> ArrayRef {
        let vals = (0..n)
            .map(|i| {
                if i % 17 == 5 {
                    return None;
                }
                let mut v = vec![0u8; width];
                match g.range(0, 7) {
                    0 => v.fill(0xFF),
                    1 => v.fill(0x00),
                    2 => {
                        v.fill(0xFF);
                        v[width - 1] = 0x01;
                    }
                    3 => {
                        v.fill(0xFF);
                        v[0] = 0x12;
                    }
                    4 => {
                        g.rng.fill(&mut v[..]);
                        if width > 1 {
                            v[1..].fill(0xFF);
                        }
                    }
                    _ => g.rng.fill(&mut v[..]),
                }
                Some(v)
            })
            .collect();
        fsb_from(width as i32, vals)
    }

    #[test]
    fn fsb_truncation_lengths() {
        let mut f = Failures::new();
        for width in [1usize, 2, 3, 4, 5, 16, 63, 64, 65, 100] {
            let name = format!("truncation/fsb{width}");
            let mut g = Gen::new(&name);
            let schema = schema1("c", DataType::FixedSizeBinary(width as i32), true);
            let batches: Vec<RecordBatch> = [120usize, 80]
                .iter()
                .map(|&n| {
                    RecordBatch::try_new(schema.clone(), vec![truncation_values(&mut g, width, n)])
                        .unwrap()
                })
                .collect();
            // Pages where the maximum is exactly all 0xFF.
            let all_ff = fsb_from(width as i32, vec![Some(vec![0xFF; width]); 30]);
            let mut batches = batches;
            batches.push(RecordBatch::try_new(schema.clone(), vec![all_ff]).unwrap());
            for stats_len in [None, Some(1), Some(2), Some(64)] {
                for ci_len in [None, Some(3), Some(64)] {
                    let p = props()
                        .set_statistics_truncate_length(stats_len)
                        .set_column_index_truncate_length(ci_len)
                        .set_data_page_row_count_limit(30)
                        .set_write_page_header_statistics(true)
                        .build();
                    let case = format!("{name}/stats_{stats_len:?}/ci_{ci_len:?}");
                    f.identical(&case, &schema, &batches, p);
                }
            }
        }
        f.finish();
    }

    /// Decimal, Float16 and interval columns are never truncated.
    #[test]
    fn non_truncatable_types_with_short_limits() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("truncation_other/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = schema1("c", dt.clone(), true);
            let batches = g.batches(&schema, &[200], &Spec::default());
            let p = small_pages(props())
                .set_statistics_truncate_length(Some(2))
                .set_column_index_truncate_length(Some(3))
                .set_write_page_header_statistics(true)
                .build();
            f.identical(&name, &schema, &batches, p);
        }
        f.finish();
    }

    /// Sorted data over many pages gives ASCENDING / DESCENDING boundary orders.
    #[test]
    fn boundary_orders() {
        let mut f = Failures::new();
        for dt in representative_types() {
            for order in [Order::Asc, Order::Desc, Order::Random] {
                for distinct in [None, Some(3)] {
                    let name = format!(
                        "boundary/{}/{order:?}/distinct_{distinct:?}",
                        type_name(&dt)
                    );
                    let mut g = Gen::new(&name);
                    let schema = schema1("c", dt.clone(), true);
                    let mut spec = Spec::new(Nulls::Density(0.1)).order(order);
                    spec.distinct = distinct;
                    let batches = g.batches(&schema, &[400], &spec);
                    let p = small_pages(props())
                        .set_write_page_header_statistics(true)
                        .build();
                    f.identical(&name, &schema, &batches, p);
                }
            }
        }
        f.finish();
    }

    /// Float16 total order, NaN handling and NaN counts.
    #[test]
    fn float16_special_values() {
        let nan = [
            0x7E00u16, 0xFE00, 0x7C01, 0xFC01, 0x7FFF, 0xFFFF, 0x7D55, 0xFEAA,
        ];
        let cases: Vec<(&str, Vec<u16>)> = vec![
            ("all_nan", (0..200).map(|i| nan[i % nan.len()]).collect()),
            (
                "nan_and_values",
                (0..200)
                    .map(|i| {
                        if i % 3 == 0 {
                            nan[i % nan.len()]
                        } else {
                            0x3C00 + i as u16
                        }
                    })
                    .collect(),
            ),
            (
                "signed_zeros",
                (0..200)
                    .map(|i| if i % 2 == 0 { 0x0000 } else { 0x8000 })
                    .collect(),
            ),
            (
                "infinities_and_nan",
                (0..200)
                    .map(|i| [0x7C00, 0xFC00, 0xFE00, 0x7E00][i % 4])
                    .collect(),
            ),
            (
                "subnormals",
                (0..200)
                    .map(|i| [0x0001, 0x8001, 0x03FF, 0x83FF][i % 4])
                    .collect(),
            ),
            (
                "specials",
                (0..200)
                    .map(|i| F16_SPECIALS[i % F16_SPECIALS.len()])
                    .collect(),
            ),
            (
                "nan_first_then_values",
                (0..200)
                    .map(|i| {
                        if i < 60 {
                            nan[i % nan.len()]
                        } else {
                            0xC000 + i as u16
                        }
                    })
                    .collect(),
            ),
        ];
        let mut f = Failures::new();
        for (label, bits) in cases {
            let schema = schema1("h", DataType::Float16, true);
            let mut g = Gen::new(label);
            let nulls = g.null_buffer(bits.len(), Nulls::Density(0.1));
            let batch =
                RecordBatch::try_new(schema.clone(), vec![float16_from_bits(bits, nulls)]).unwrap();
            for (cfg, b) in [
                ("default", props()),
                (
                    "pages_of_30",
                    props()
                        .set_data_page_row_count_limit(30)
                        .set_write_batch_size(10),
                ),
                (
                    "v2_plain_header_stats",
                    v2(props())
                        .set_dictionary_enabled(false)
                        .set_write_page_header_statistics(true)
                        .set_data_page_row_count_limit(30),
                ),
                (
                    "chunk_stats",
                    props().set_statistics_enabled(EnabledStatistics::Chunk),
                ),
                (
                    "bss",
                    props()
                        .set_dictionary_enabled(false)
                        .set_encoding(Encoding::BYTE_STREAM_SPLIT),
                ),
            ] {
                f.identical(
                    &format!("float16/{label}/{cfg}"),
                    &schema,
                    std::slice::from_ref(&batch),
                    b.build(),
                );
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Bloom filters
// ---------------------------------------------------------------------------

mod bloom {
    use super::*;

    #[test]
    fn ndv_and_fpp() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("bloom/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[300, 100]);
            for (ndv, fpp) in [(10u64, 0.05f64), (1000, 0.01), (100_000, 0.3), (1, 0.5)] {
                for dict in [true, false] {
                    let p = props()
                        .set_bloom_filter_enabled(true)
                        .bloom_max_ndv(ndv)
                        .set_bloom_filter_fpp(fpp)
                        .set_dictionary_enabled(dict)
                        .build();
                    f.identical(
                        &format!("{name}/ndv_{ndv}/fpp_{fpp}/dict_{dict}"),
                        &schema,
                        &batches,
                        p,
                    );
                }
            }
        }
        f.finish();
    }

    #[test]
    fn per_column_bloom_settings() {
        let schema = mixed_schema();
        let mut g = Gen::new("bloom_per_column");
        let batches = g.batches(&schema, &[300, 100], &Spec::default());
        let p = props()
            .set_column_bloom_filter_enabled(col("uuid"), true)
            .set_column_bloom_filter_fpp(col("price"), 0.01)
            .column_bloom_max_ndv(col("amount"), 50)
            .column_bloom_max_ndv(col("half"), 7)
            .set_column_bloom_filter_fpp(col("half"), 0.2)
            .build();
        assert_identical("bloom_per_column", schema.clone(), &batches, p);
        let p = props()
            .set_bloom_filter_enabled(true)
            .set_column_bloom_filter_enabled(col("uuid"), false)
            .set_max_row_group_row_count(Some(150))
            .build();
        assert_identical("bloom_per_column/global_on_rg150", schema, &batches, p);
    }

    #[test]
    fn position_and_dictionary_chunks() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("bloom_position/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = schema_of(&[("c", dt.clone(), true), ("r", dt.clone(), false)]);
            let batches = g.batches(
                &schema,
                &[200, 200, 50],
                &Spec::new(Nulls::Density(0.3)).distinct(40),
            );
            for position in [BloomFilterPosition::AfterRowGroup, BloomFilterPosition::End] {
                for for_dict in [true, false] {
                    for (mode, b) in [
                        ("dict", props()),
                        ("plain", props().set_dictionary_enabled(false)),
                        ("fallback", props().set_dictionary_page_size_limit(64)),
                    ] {
                        let p = b
                            .set_bloom_filter_enabled(true)
                            .bloom_max_ndv(500)
                            .set_bloom_filter_position(position)
                            .bloom_for_dictionary_chunks(for_dict)
                            .set_max_row_group_row_count(Some(180))
                            .build();
                        let case = format!("{name}/{position:?}/for_dict_{for_dict}/{mode}");
                        f.identical(&case, &schema, &batches, p);
                    }
                }
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Codecs
// ---------------------------------------------------------------------------

mod codecs {
    use super::*;

    fn all_codecs() -> Vec<(&'static str, Compression)> {
        vec![
            ("uncompressed", Compression::UNCOMPRESSED),
            ("snappy", Compression::SNAPPY),
            ("gzip", Compression::GZIP(GzipLevel::default())),
            ("lz4", Compression::LZ4),
            ("lz4_raw", Compression::LZ4_RAW),
            ("brotli", Compression::BROTLI(BrotliLevel::default())),
            ("zstd_1", Compression::ZSTD(ZstdLevel::try_new(1).unwrap())),
            ("zstd_3", Compression::ZSTD(ZstdLevel::try_new(3).unwrap())),
        ]
    }

    #[test]
    fn every_codec_v1_v2() {
        let mut f = Failures::new();
        let schema = mixed_schema();
        let mut g = Gen::new("codecs");
        let batches = g.batches(
            &schema,
            &[300, 120],
            &Spec::new(Nulls::Density(0.3)).distinct(50),
        );
        for (codec, c) in all_codecs() {
            for (v, ver) in versions() {
                for dict in [true, false] {
                    let p = small_pages(props())
                        .set_data_page_size_limit(2048)
                        .set_compression(c)
                        .set_writer_version(ver)
                        .set_dictionary_enabled(dict)
                        .build();
                    f.identical(
                        &format!("codec/{codec}/{v}/dict_{dict}"),
                        &schema,
                        &batches,
                        p,
                    );
                }
            }
        }
        f.finish();
    }

    /// The crate's own codecs (src/page/codec.rs) against parquet's at the
    /// edges of every level range, on pages large enough to fill brotli's
    /// 4 KiB buffer and zstd's blocks several times.
    #[test]
    fn every_codec_level_on_large_pages() {
        let mut levels = vec![
            ("gzip_0", Compression::GZIP(GzipLevel::try_new(0).unwrap())),
            ("gzip_1", Compression::GZIP(GzipLevel::try_new(1).unwrap())),
            ("gzip_9", Compression::GZIP(GzipLevel::try_new(9).unwrap())),
            (
                "brotli_0",
                Compression::BROTLI(BrotliLevel::try_new(0).unwrap()),
            ),
            (
                "brotli_6",
                Compression::BROTLI(BrotliLevel::try_new(6).unwrap()),
            ),
            (
                "brotli_11",
                Compression::BROTLI(BrotliLevel::try_new(11).unwrap()),
            ),
            ("zstd_9", Compression::ZSTD(ZstdLevel::try_new(9).unwrap())),
            (
                "zstd_22",
                Compression::ZSTD(ZstdLevel::try_new(22).unwrap()),
            ),
            ("snappy", Compression::SNAPPY),
            ("lz4", Compression::LZ4),
            ("lz4_raw", Compression::LZ4_RAW),
        ];
        // Negative (fast) zstd levels are valid from parquet 60 on.
        if let Ok(level) = ZstdLevel::try_new(-5) {
            levels.push(("zstd_-5", Compression::ZSTD(level)));
        }
        let mut f = Failures::new();
        let schema = mixed_schema();
        let mut g = Gen::new("codec_levels");
        let batches = g.batches(
            &schema,
            &[3000, 1500],
            &Spec::new(Nulls::Density(0.1)).distinct(400),
        );
        for (codec, c) in levels {
            for (v, ver) in versions() {
                for dict in [true, false] {
                    let p = props()
                        .set_data_page_size_limit(256 << 10)
                        .set_compression(c)
                        .set_writer_version(ver)
                        .set_dictionary_enabled(dict)
                        .build();
                    f.identical(
                        &format!("codec_level/{codec}/{v}/dict_{dict}"),
                        &schema,
                        &batches,
                        p,
                    );
                }
            }
        }
        f.finish();
    }

    #[test]
    fn every_codec_every_type() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("codec_type/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = schema1("c", dt.clone(), true);
            let batches = g.batches(&schema, &[200], &Spec::default());
            for (codec, c) in all_codecs() {
                let p = v2(props()).set_compression(c).build();
                f.identical(&format!("{name}/{codec}"), &schema, &batches, p);
            }
        }
        f.finish();
    }

    /// V2 keeps compressed values only if smaller than threshold x total.
    #[test]
    fn v2_compression_ratio_threshold() {
        let mut f = Failures::new();
        let schema = mixed_schema();
        for (label, spec) in [
            ("random", Spec::new(Nulls::Density(0.3))),
            ("lowcard", Spec::new(Nulls::Density(0.3)).distinct(3)),
        ] {
            let mut g = Gen::new(label);
            let batches = g.batches(&schema, &[300], &spec);
            for threshold in [0.01f64, 0.5, 1.0, 10.0] {
                for (codec, c) in [
                    ("snappy", Compression::SNAPPY),
                    ("zstd", Compression::ZSTD(ZstdLevel::default())),
                ] {
                    for dict in [true, false] {
                        let p = v2(small_pages(props()))
                            .set_compression(c)
                            .set_dictionary_enabled(dict)
                            .set_data_page_v2_compression_ratio_threshold(threshold)
                            .build();
                        let case = format!("v2_threshold/{label}/{threshold}/{codec}/dict_{dict}");
                        f.identical(&case, &schema, &batches, p);
                    }
                }
                let p = v2(props())
                    .set_compression(Compression::GZIP(GzipLevel::default()))
                    .set_column_data_page_v2_compression_ratio_threshold(col("uuid"), threshold)
                    .set_column_compression(col("price"), Compression::LZ4_RAW)
                    .build();
                f.identical(
                    &format!("v2_threshold/{label}/{threshold}/per_column"),
                    &schema,
                    &batches,
                    p,
                );
            }
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// Other writer properties and options
// ---------------------------------------------------------------------------

mod options {
    use super::*;

    fn table(name: &str) -> (SchemaRef, Vec<RecordBatch>) {
        let mut g = Gen::new(name);
        let schema = mixed_schema();
        let batches = g.batches(
            &schema,
            &[200, 150],
            &Spec::new(Nulls::Density(0.2)).distinct(40),
        );
        (schema, batches)
    }

    #[test]
    fn number_distinct_values() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("ndv/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let mut batches = three_ways_batches(&mut g, &schema, &[150]);
            let spec = [Spec::new(Nulls::Density(0.5)).distinct(7); 3];
            batches.push(g.batch_with(&schema, 150, &spec));
            for (cfg, b) in [
                ("default", props()),
                ("rg_100", props().set_max_row_group_row_count(Some(100))),
                (
                    "chunk_stats",
                    props().set_statistics_enabled(EnabledStatistics::Chunk),
                ),
                (
                    "no_stats",
                    props().set_statistics_enabled(EnabledStatistics::None),
                ),
                ("v2_plain", v2(props()).set_dictionary_enabled(false)),
            ] {
                let p = b.distinct_values(true).build();
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, p);
            }
        }
        // Dictionary arrays: NDV counts referenced values.
        let schema = schema_of(&[
            (
                "d16",
                DataType::Dictionary(
                    Box::new(DataType::Int32),
                    Box::new(DataType::FixedSizeBinary(16)),
                ),
                true,
            ),
            (
                "d38",
                DataType::Dictionary(
                    Box::new(DataType::Int8),
                    Box::new(DataType::Decimal128(38, 2)),
                ),
                true,
            ),
        ]);
        let mut g = Gen::new("ndv/dictionary");
        let batches = g.batches(
            &schema,
            &[100, 100],
            &Spec::new(Nulls::Density(0.3)).distinct(20),
        );
        let p = props().distinct_values(true).build();
        f.identical("ndv/dictionary", &schema, &batches, p);
        f.finish();
    }

    #[test]
    fn offset_index_disabled() {
        let mut f = Failures::new();
        let (schema, batches) = table("offset_index_disabled");
        for level in [
            EnabledStatistics::None,
            EnabledStatistics::Chunk,
            EnabledStatistics::Page,
        ] {
            let p = small_pages(props())
                .set_offset_index_disabled(true)
                .set_statistics_enabled(level)
                .build();
            f.identical(
                &format!("offset_index_disabled/{}", stats_name(level)),
                &schema,
                &batches,
                p,
            );
        }
        let p = props()
            .set_offset_index_disabled(true)
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_column_statistics_enabled(col("uuid"), EnabledStatistics::Page)
            .build();
        f.identical(
            "offset_index_disabled/overridden_by_column",
            &schema,
            &batches,
            p,
        );
        f.finish();
    }

    #[test]
    fn coerce_types() {
        let (schema, batches) = table("coerce_types");
        let p = props().set_coerce_types(true).build();
        assert_identical("coerce_types", schema.clone(), &batches, p);
        let p = v2(props()).set_coerce_types(true).build();
        assert_identical("coerce_types/v2", schema, &batches, p);
    }

    #[test]
    fn key_value_metadata_and_created_by() {
        let (schema, batches) = table("kv");
        let p = props()
            .set_key_value_metadata(Some(vec![
                KeyValue::new("k1".into(), "v1".to_string()),
                KeyValue::new("k2".into(), None),
            ]))
            .set_created_by("parquet-flba differential tests".into())
            .build();
        assert_identical("kv_metadata", schema, &batches, p);
    }

    #[test]
    fn write_path_in_schema_off() {
        let (schema, batches) = table("path_in_schema");
        let p = props().path_in_schema(false).build();
        assert_identical("write_path_in_schema_off", schema, &batches, p);
    }

    #[test]
    fn skip_arrow_metadata() {
        let (schema, batches) = table("skip_arrow_metadata");
        let opts = Opts {
            skip_arrow_metadata: true,
            ..Default::default()
        };
        assert_identical_opts("skip_arrow_metadata", schema, &batches, opts);
    }

    #[test]
    fn schema_root() {
        let (schema, batches) = table("schema_root");
        let opts = Opts {
            schema_root: Some("x".into()),
            ..Default::default()
        };
        assert_identical_opts("schema_root", schema, &batches, opts);
    }

    #[test]
    fn explicit_parquet_schema() {
        let (schema, batches) = table("explicit_parquet_schema");
        let parquet_schema = parquet::arrow::ArrowSchemaConverter::new()
            .convert(&schema)
            .unwrap();
        let opts = Opts {
            parquet_schema: Some(parquet_schema),
            props: v2(props()).build(),
            ..Default::default()
        };
        assert_identical_opts("explicit_parquet_schema", schema, &batches, opts);
    }

    #[cfg(not(feature = "parquet-58"))]
    #[test]
    fn custom_page_store_factory() {
        let (schema, batches) = table("page_store");
        let up_factory = Arc::new(RecordingPageStoreFactory::default());
        let flba_factory = Arc::new(RecordingPageStoreFactory::default());
        let p = props().set_max_row_group_row_count(Some(120)).build();
        let up_opts = Opts {
            props: p.clone(),
            page_store: PageStoreChoice::Custom(up_factory.clone()),
            ..Default::default()
        };
        let flba_opts = Opts {
            props: p,
            page_store: PageStoreChoice::Custom(flba_factory.clone()),
            ..Default::default()
        };
        if let Err(e) = check_identical_with("page_store", &schema, &batches, &up_opts, &flba_opts)
        {
            panic!("{e}");
        }
        let expected = up_factory.created();
        assert!(!expected.is_empty());
        assert_eq!(
            flba_factory.created(),
            expected,
            "parquet_flba asked the PageStoreFactory for different column indices than upstream"
        );
    }
}

// ---------------------------------------------------------------------------
// Mixed, nested and dictionary columns
// ---------------------------------------------------------------------------

mod mixed {
    use super::*;

    fn every_config(label: &str, schema: SchemaRef, sizes: &[usize], spec: Spec) {
        let mut f = Failures::new();
        let mut g = Gen::new(label);
        let batches = g.batches(&schema, sizes, &spec);
        for (cfg, b) in configs() {
            f.identical(&format!("{label}/{cfg}"), &schema, &batches, b.build());
        }
        for (cfg, b) in [
            ("small_pages", small_pages(props())),
            (
                "small_pages_v2_plain",
                v2(small_pages(props())).set_dictionary_enabled(false),
            ),
            (
                "rg_100_bloom_ndv",
                props()
                    .set_max_row_group_row_count(Some(100))
                    .set_bloom_filter_enabled(true)
                    .distinct_values(true),
            ),
        ] {
            f.identical(&format!("{label}/{cfg}"), &schema, &batches, b.build());
        }
        f.finish();
    }

    #[test]
    fn flba_with_int64_utf8_list() {
        every_config(
            "mixed",
            mixed_schema(),
            &[300, 200, 7],
            Spec::new(Nulls::Density(0.2)),
        );
    }

    #[test]
    fn flba_inside_struct() {
        let st = DataType::Struct(Fields::from(vec![
            Field::new("u", DataType::FixedSizeBinary(16), true),
            Field::new("d", DataType::Decimal128(25, 3), false),
            Field::new("h", DataType::Float16, true),
            Field::new("i", DataType::Interval(IntervalUnit::DayTime), true),
        ]));
        let schema = schema_of(&[("st", st.clone(), true), ("st_required", st, false)]);
        every_config("struct", schema, &[250, 60], Spec::new(Nulls::Density(0.3)));
    }

    #[test]
    fn flba_inside_list() {
        let schema = schema_of(&[
            (
                "l256",
                DataType::List(Arc::new(Field::new(
                    "item",
                    DataType::Decimal256(50, 5),
                    true,
                ))),
                true,
            ),
            (
                "l4",
                DataType::List(Arc::new(Field::new(
                    "item",
                    DataType::FixedSizeBinary(4),
                    false,
                ))),
                true,
            ),
            (
                "lreq",
                DataType::List(Arc::new(Field::new("item", DataType::Float16, true))),
                false,
            ),
            (
                "lstruct",
                DataType::List(Arc::new(Field::new(
                    "item",
                    DataType::Struct(Fields::from(vec![Field::new(
                        "u",
                        DataType::FixedSizeBinary(16),
                        true,
                    )])),
                    true,
                ))),
                true,
            ),
        ]);
        every_config("list", schema, &[250, 60], Spec::new(Nulls::Density(0.3)));
    }

    #[test]
    fn dictionary_schema_types() {
        let schema = schema_of(&[
            (
                "d16",
                DataType::Dictionary(
                    Box::new(DataType::Int32),
                    Box::new(DataType::FixedSizeBinary(16)),
                ),
                true,
            ),
            (
                "d38",
                DataType::Dictionary(
                    Box::new(DataType::Int8),
                    Box::new(DataType::Decimal128(38, 2)),
                ),
                true,
            ),
            (
                "dh",
                DataType::Dictionary(Box::new(DataType::UInt16), Box::new(DataType::Float16)),
                false,
            ),
            (
                "d256",
                DataType::Dictionary(
                    Box::new(DataType::Int64),
                    Box::new(DataType::Decimal256(60, 4)),
                ),
                true,
            ),
        ]);
        every_config(
            "dictionary_schema",
            schema,
            &[300, 100],
            Spec::new(Nulls::Density(0.2)).distinct(25),
        );
    }

    /// Upstream accepts a dictionary array for a plain field of the same value type.
    #[test]
    fn dictionary_arrays_for_plain_fields() {
        let writer_schema = schema_of(&[
            ("f16", DataType::FixedSizeBinary(16), true),
            ("d38", DataType::Decimal128(38, 2), true),
        ]);
        let batch_schema = schema_of(&[
            (
                "f16",
                DataType::Dictionary(
                    Box::new(DataType::Int32),
                    Box::new(DataType::FixedSizeBinary(16)),
                ),
                true,
            ),
            (
                "d38",
                DataType::Dictionary(
                    Box::new(DataType::Int8),
                    Box::new(DataType::Decimal128(38, 2)),
                ),
                true,
            ),
        ]);
        let mut g = Gen::new("dictionary_for_plain");
        let spec = Spec::new(Nulls::Density(0.2)).distinct(25);
        let mut batches = g.batches(&batch_schema, &[200, 100], &spec);
        // Also interleave a plain batch.
        batches.insert(1, g.batch(&writer_schema, 50, &spec));
        let mut f = Failures::new();
        for (cfg, b) in configs() {
            f.identical(
                &format!("dictionary_for_plain/{cfg}"),
                &writer_schema,
                &batches,
                b.build(),
            );
        }
        let p = props().distinct_values(true).build();
        f.identical("dictionary_for_plain/ndv", &writer_schema, &batches, p);
        f.finish();
    }

    /// A dictionary whose values array contains nulls (keys pointing at them are null).
    #[test]
    fn dictionary_with_null_values() {
        let values = fsb_from(
            4,
            vec![
                Some(vec![1, 2, 3, 4]),
                None,
                Some(vec![0xFF; 4]),
                Some(vec![0; 4]),
            ],
        );
        let keys = Int32Array::from(
            (0..200)
                .map(|i| if i % 11 == 0 { None } else { Some(i % 4) })
                .collect::<Vec<_>>(),
        );
        let dict: ArrayRef = Arc::new(DictionaryArray::try_new(keys, values).unwrap());
        let dt = DataType::Dictionary(
            Box::new(DataType::Int32),
            Box::new(DataType::FixedSizeBinary(4)),
        );
        let schema = schema1("d", dt, true);
        let batch = RecordBatch::try_new(schema.clone(), vec![dict.clone()]).unwrap();
        let plain_schema = schema1("d", DataType::FixedSizeBinary(4), true);
        let plain_batch =
            RecordBatch::try_new(schema1("d", dict.data_type().clone(), true), vec![dict]).unwrap();
        let mut f = Failures::new();
        for (cfg, b) in [
            ("default", props()),
            ("ndv", props().distinct_values(true)),
            ("v2_plain", v2(props()).set_dictionary_enabled(false)),
            ("cdc_small", config("cdc_small")),
        ] {
            f.identical(
                &format!("dict_null_values/{cfg}"),
                &schema,
                std::slice::from_ref(&batch),
                b.clone().build(),
            );
            f.identical(
                &format!("dict_null_values_plain_field/{cfg}"),
                &plain_schema,
                std::slice::from_ref(&plain_batch),
                b.build(),
            );
        }
        f.finish();
    }
}

// ---------------------------------------------------------------------------
// The column-level API (parallel writers)
// ---------------------------------------------------------------------------

mod column_api {
    use super::*;

    fn parallel_schema() -> SchemaRef {
        let st = DataType::Struct(Fields::from(vec![
            Field::new("u", DataType::FixedSizeBinary(16), true),
            Field::new("h", DataType::Float16, true),
        ]));
        schema_of(&[
            ("uuid", DataType::FixedSizeBinary(16), true),
            ("price", DataType::Decimal128(38, 10), false),
            ("ts", DataType::Int64, false),
            ("symbol", DataType::Utf8, true),
            ("amount", DataType::Decimal256(40, 2), true),
            ("ym", DataType::Interval(IntervalUnit::YearMonth), true),
            ("st", st, true),
            ("tags", list_i32(), true),
        ])
    }

    fn check_parallel(name: &str, props: WriterProperties, via_into_serialized: bool) {
        let schema = parallel_schema();
        let mut g = Gen::new(name);
        let spec = Spec::new(Nulls::Density(0.3));
        let row_groups = vec![
            g.batches(&schema, &[200, 55, 300], &spec),
            g.batches(&schema, &[120, 1], &spec),
        ];
        let up = up::write_parallel(&schema, &row_groups, props.clone(), via_into_serialized)
            .unwrap_or_else(|e| panic!("{name}: upstream parallel flow failed: {e}"));
        let fl = no_panic("parquet_flba parallel flow", || {
            flba::write_parallel(&schema, &row_groups, props.clone(), via_into_serialized)
        })
        .and_then(|r| r)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", seed_note()));
        if let Some(diff) = compare_files(&up.bytes, &fl.bytes) {
            panic!(
                "{name}: column-level flow differs:\n{diff}\n{}",
                seed_note()
            );
        }
        assert_eq!(
            up.col_steps, fl.col_steps,
            "{name}: per-column get_estimated_total_bytes / memory_size after each write"
        );
        for rg in &fl.col_steps {
            for steps in rg {
                assert!(
                    steps.iter().all(|s| s.memory_nonzero),
                    "{name}: memory_size() == 0 while data is buffered"
                );
            }
        }
        assert_eq!(
            up.closes, fl.closes,
            "{name}: ArrowColumnChunk::close() summaries"
        );
        check_round_trip(
            &schema,
            &row_groups.concat(),
            &fl.bytes,
            !via_into_serialized,
        )
        .unwrap_or_else(|e| panic!("{name}: round trip: {e}"));

        // The column-level flow must equal ArrowWriter with a flush per row group.
        let opts = Opts {
            props,
            skip_arrow_metadata: !via_into_serialized,
            ..Default::default()
        };
        let mut bytes = Vec::new();
        let mut w = up::writer(&mut bytes, &schema, &opts).unwrap();
        for rg in &row_groups {
            for b in rg {
                w.write(b).unwrap();
            }
            w.flush().unwrap();
        }
        w.close().unwrap();
        if let Some(diff) = compare_files(&bytes, &up.bytes) {
            panic!(
                "{name}: test harness bug: upstream column-level flow != upstream ArrowWriter:\n{diff}"
            );
        }
    }

    #[test]
    fn into_serialized_writer_default() {
        check_parallel("parallel/into_serialized/default", props().build(), true);
    }

    #[test]
    fn into_serialized_writer_small_pages_v2() {
        let p = v2(small_pages(props()))
            .set_compression(Compression::SNAPPY)
            .build();
        check_parallel("parallel/into_serialized/small_pages_v2", p, true);
    }

    #[test]
    fn factory_new_default() {
        check_parallel("parallel/factory_new/default", props().build(), false);
    }

    #[test]
    fn factory_new_bloom_ndv_plain() {
        let p = props()
            .set_bloom_filter_enabled(true)
            .distinct_values(true)
            .set_dictionary_enabled(false)
            .build();
        check_parallel("parallel/factory_new/bloom_ndv_plain", p, false);
    }

    #[test]
    fn factory_new_fallback_bss() {
        let p = props()
            .set_dictionary_page_size_limit(100)
            .set_encoding(Encoding::PLAIN)
            .set_column_encoding(col("uuid"), Encoding::BYTE_STREAM_SPLIT)
            .set_column_encoding(col("amount"), Encoding::DELTA_BYTE_ARRAY)
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .build();
        check_parallel("parallel/factory_new/fallback_bss", p, false);
    }

    /// `into_serialized_writer` after some rows were written through the
    /// `ArrowWriter` (they are flushed as the first row group), and
    /// `ArrowColumnChunk::close_mut` used to drop column indexes and bloom
    /// filters of the chunks written at column level.
    #[test]
    fn into_serialized_writer_after_writes_with_close_mut() {
        let name = "parallel/prelude_close_mut";
        let schema = parallel_schema();
        let mut g = Gen::new(name);
        let spec = Spec::new(Nulls::Density(0.3));
        let prelude = g.batches(&schema, &[90, 10], &spec);
        let row_groups = vec![
            g.batches(&schema, &[200], &spec),
            g.batches(&schema, &[33, 66], &spec),
        ];
        let p = props()
            .set_bloom_filter_enabled(true)
            .bloom_max_ndv(100)
            .build();
        let tweak = |c: &mut parquet::column::writer::ColumnCloseResult| {
            c.column_index = None;
            c.bloom_filter = None;
        };
        let up = up::write_parallel_with(&schema, &prelude, &row_groups, p.clone(), true, &tweak)
            .unwrap();
        let fl = no_panic("parquet_flba parallel flow", || {
            flba::write_parallel_with(&schema, &prelude, &row_groups, p.clone(), true, &tweak)
        })
        .and_then(|r| r)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", seed_note()));
        if let Some(diff) = compare_files(&up.bytes, &fl.bytes) {
            panic!("{name}: {diff}\n{}", seed_note());
        }
        assert_eq!(up.col_steps, fl.col_steps, "{name}: per-column estimates");
        assert_eq!(up.closes, fl.closes, "{name}: close() summaries");
        let all: Vec<RecordBatch> = prelude
            .iter()
            .chain(row_groups.concat().iter())
            .cloned()
            .collect();
        check_round_trip(&schema, &all, &fl.bytes, false)
            .unwrap_or_else(|e| panic!("{name}: round trip: {e}"));
    }

    /// `ArrowColumnWriter::write` never applies CDC (upstream chunks only
    /// inside `ArrowWriter`), so the column-level flow with CDC on is compared
    /// between implementations only.
    #[test]
    fn factory_new_cdc_is_not_applied() {
        let schema = parallel_schema();
        let mut g = Gen::new("parallel/cdc");
        let row_groups = vec![g.batches(&schema, &[300, 200], &Spec::default())];
        let p = config("cdc_small").build();
        let up = up::write_parallel(&schema, &row_groups, p.clone(), false).unwrap();
        let fl = flba::write_parallel(&schema, &row_groups, p, false).unwrap();
        if let Some(diff) = compare_files(&up.bytes, &fl.bytes) {
            panic!("parallel/cdc differs:\n{diff}\n{}", seed_note());
        }
        assert_eq!(up.col_steps, fl.col_steps);
    }
}

// ---------------------------------------------------------------------------
// The rest of the ArrowWriter API
// ---------------------------------------------------------------------------

mod writer_api {
    use super::*;

    /// Generic code that stores a writer over any `W: Write` (as parquet's
    /// `ArrowWriter<W: Write>` allows) compiles with this crate's too: the
    /// type asks for `Send` only where parquet's methods do.
    struct Holder<W: std::io::Write> {
        writer: parquet_flba::ArrowWriter<W>,
        upstream: Option<parquet::arrow::ArrowWriter<W>>,
    }

    impl<W: std::io::Write + Send> Holder<W> {
        fn rows(&self) -> usize {
            self.writer.in_progress_rows()
                + self.upstream.as_ref().map_or(0, |u| u.in_progress_rows())
        }
    }

    #[test]
    fn the_writer_type_asks_only_for_write() {
        let (schema, batches) = table("holder", &[10]);
        let mut holder = Holder {
            writer: parquet_flba::ArrowWriter::try_new(Vec::new(), schema, None).unwrap(),
            upstream: None,
        };
        holder.writer.write(&batches[0]).unwrap();
        assert_eq!(holder.rows(), 10);
        holder.writer.close().unwrap();
    }

    fn table(name: &str, sizes: &[usize]) -> (SchemaRef, Vec<RecordBatch>) {
        let mut g = Gen::new(name);
        let schema = mixed_schema();
        let batches = g.batches(&schema, sizes, &Spec::new(Nulls::Density(0.2)));
        (schema, batches)
    }

    /// Runs the same script of API calls on both writers, recording what
    /// each call observed, and compares the logs and the bytes.
    macro_rules! both {
        ($name:expr, $schema:expr, $opts:expr, |$w:ident, $log:ident| $body:block) => {{
            let mut up_bytes = Vec::new();
            let mut up_log: Vec<String> = Vec::new();
            {
                let mut $w = up::writer(&mut up_bytes, &$schema, &$opts).unwrap();
                let $log = &mut up_log;
                $body
            }
            let mut fl_bytes = Vec::new();
            let mut fl_log: Vec<String> = Vec::new();
            {
                let mut $w = flba::writer(&mut fl_bytes, &$schema, &$opts).unwrap();
                let $log = &mut fl_log;
                $body
            }
            assert_eq!(up_log, fl_log, "{}: observed API results differ", $name);
            if let Some(diff) = compare_files(&up_bytes, &fl_bytes) {
                panic!("{}: {diff}\n{}", $name, seed_note());
            }
            up_bytes
        }};
    }

    #[test]
    fn flush_and_flushed_row_groups() {
        let (schema, batches) = table("api_flush", &[100, 50, 70]);
        let opts = Opts::props(props().set_max_row_group_row_count(Some(80)).build());
        let bytes = both!("api_flush", schema, opts, |w, log| {
            log.push(format!("flush on empty: {:?}", w.flush().is_ok()));
            for b in &batches {
                w.write(b).unwrap();
                log.push(format!(
                    "rows={} size={} written={} rgs={:?} mem_nonzero={}",
                    w.in_progress_rows(),
                    w.in_progress_size(),
                    w.bytes_written(),
                    w.flushed_row_groups(),
                    w.memory_size() > 0
                ));
                w.flush().unwrap();
                log.push(format!(
                    "after flush: rows={} size={} mem={} written={} rgs={}",
                    w.in_progress_rows(),
                    w.in_progress_size(),
                    w.memory_size(),
                    w.bytes_written(),
                    w.flushed_row_groups().len()
                ));
                w.flush().unwrap();
            }
            log.push(format!("{:?}", w.close().map(|m| format!("{m:?}"))));
        });
        check_round_trip(&schema, &batches, &bytes, false).unwrap();
    }

    #[test]
    fn memory_size_positive_while_buffered() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("memory_size/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[100, 100]);
            for (cfg, b) in [
                ("dict", props()),
                ("plain", props().set_dictionary_enabled(false)),
            ] {
                let mut w = flba::writer(Vec::new(), &schema, &Opts::props(b.build())).unwrap();
                for bt in &batches {
                    w.write(bt).unwrap();
                    f.check(match w.memory_size() {
                        0 => Err(format!(
                            "{name}/{cfg}: memory_size() == 0 with {} rows buffered",
                            w.in_progress_rows()
                        )),
                        _ => Ok(()),
                    });
                }
                w.flush().unwrap();
                f.check(match w.memory_size() {
                    0 => Ok(()),
                    held => Err(format!("{name}/{cfg}: memory_size() = {held} after flush")),
                });
                w.close().unwrap();
            }
        }
        f.finish();
    }

    #[test]
    fn finish_then_write_and_into_inner() {
        let (schema, batches) = table("api_finish", &[100, 50]);
        let opts = Opts::default();
        both!("api_finish", schema, opts, |w, log| {
            w.write(&batches[0]).unwrap();
            log.push(format!(
                "finish: {:?}",
                w.finish().map(|m| format!("{m:?}"))
            ));
            log.push(format!("written after finish: {}", w.bytes_written()));
            // Upstream buffers a write after finish, then fails to finish again.
            log.push(format!(
                "write after finish ok: {}",
                w.write(&batches[1]).is_ok()
            ));
            log.push(format!("finish twice ok: {}", w.finish().is_ok()));
            log.push(format!("into_inner ok: {}", w.into_inner().is_ok()));
        });
    }

    #[test]
    fn into_inner_inner_and_bytes_written() {
        let (schema, batches) = table("api_into_inner", &[100, 50, 25]);
        let opts = Opts::props(props().set_max_row_group_row_count(Some(60)).build());
        let mut outputs = Vec::new();
        for which in ["upstream", "flba"] {
            let mut log = Vec::new();
            let bytes = if which == "upstream" {
                let mut w = up::writer(Vec::new(), &schema, &opts).unwrap();
                for b in &batches {
                    w.write(b).unwrap();
                    log.push((w.inner().len(), w.inner().clone(), w.bytes_written()));
                }
                w.into_inner().unwrap()
            } else {
                let mut w = flba::writer(Vec::new(), &schema, &opts).unwrap();
                for b in &batches {
                    w.write(b).unwrap();
                    log.push((w.inner().len(), w.inner().clone(), w.bytes_written()));
                }
                w.into_inner().unwrap()
            };
            outputs.push((bytes, log));
        }
        assert!(
            outputs[0].1 == outputs[1].1,
            "inner()/bytes_written() differ after some write"
        );
        if let Some(diff) = compare_files(&outputs[0].0, &outputs[1].0) {
            panic!("into_inner: {diff}");
        }
        check_round_trip(&schema, &batches, &outputs[1].0, false).unwrap();
    }

    #[test]
    fn append_key_value_metadata_write_all_sync() {
        let (schema, batches) = table("api_kv", &[100, 50]);
        let opts = Opts::props(
            props()
                .set_key_value_metadata(Some(vec![KeyValue::new(
                    "from_props".into(),
                    "1".to_string(),
                )]))
                .build(),
        );
        let bytes = both!("api_kv", schema, opts, |w, log| {
            w.write(&batches[0]).unwrap();
            w.append_key_value_metadata(KeyValue::new("after_write".into(), "2".to_string()));
            w.flush().unwrap();
            w.write_all(b"PADDING!").unwrap();
            w.sync().unwrap();
            log.push(format!("written={}", w.bytes_written()));
            w.write(&batches[1]).unwrap();
            w.append_key_value_metadata(KeyValue::new("last".into(), None));
            log.push(format!("{:?}", w.close().map(|m| format!("{m:?}"))));
        });
        check_round_trip(&schema, &batches, &bytes, false).unwrap();
    }

    #[test]
    fn record_batch_writer_trait() {
        fn drive(mut w: impl RecordBatchWriter, batches: &[RecordBatch]) {
            for b in batches {
                w.write(b).unwrap();
            }
            w.close().unwrap();
        }
        let (schema, batches) = table("api_trait", &[100, 50]);
        let opts = Opts::props(props().set_max_row_group_row_count(Some(70)).build());
        let mut up_bytes = Vec::new();
        drive(up::writer(&mut up_bytes, &schema, &opts).unwrap(), &batches);
        let mut fl_bytes = Vec::new();
        drive(
            flba::writer(&mut fl_bytes, &schema, &opts).unwrap(),
            &batches,
        );
        if let Some(diff) = compare_files(&up_bytes, &fl_bytes) {
            panic!("RecordBatchWriter: {diff}");
        }
    }

    #[test]
    fn debug_impls_exist() {
        let (schema, _) = table("api_debug", &[1]);
        let w = flba::writer(Vec::new(), &schema, &Opts::default()).unwrap();
        assert!(format!("{w:?}").contains("ArrowWriter"));
        let opts = flba::options(&Opts::default(), None);
        let _ = format!("{opts:?}");
    }
}

// ---------------------------------------------------------------------------
// Empty input
// ---------------------------------------------------------------------------

mod empty {
    use super::*;

    #[test]
    fn empty_batches_between_data() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("empty_between/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let batches = three_ways_batches(&mut g, &schema, &[0, 10, 0, 0, 20, 0]);
            for (cfg, b) in configs() {
                f.identical(&format!("{name}/{cfg}"), &schema, &batches, b.build());
            }
        }
        f.finish();
    }

    #[test]
    fn zero_row_files() {
        let mut f = Failures::new();
        for dt in representative_types() {
            let name = format!("zero_rows/{}", type_name(&dt));
            let mut g = Gen::new(&name);
            let schema = three_ways(&dt);
            let empty = three_ways_batches(&mut g, &schema, &[0, 0]);
            let sliced_empty = vec![three_ways_batches(&mut g, &schema, &[10])[0].slice(5, 0)];
            for (cfg, b) in configs() {
                f.identical(
                    &format!("{name}/no_batches/{cfg}"),
                    &schema,
                    &[],
                    b.clone().build(),
                );
                f.identical(
                    &format!("{name}/empty_batches/{cfg}"),
                    &schema,
                    &empty,
                    b.clone().build(),
                );
                f.identical(
                    &format!("{name}/sliced_empty/{cfg}"),
                    &schema,
                    &sliced_empty,
                    b.build(),
                );
            }
        }
        f.finish();
    }

    #[test]
    fn zero_column_schema() {
        let schema = Arc::new(Schema::empty());
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            vec![],
            &RecordBatchOptions::new().with_row_count(Some(5)),
        )
        .unwrap();
        assert_identical(
            "zero_columns/no_batches",
            schema.clone(),
            &[],
            props().build(),
        );
        assert_identical(
            "zero_columns/one_batch",
            schema.clone(),
            std::slice::from_ref(&batch),
            props().build(),
        );
        let p = props().set_max_row_group_row_count(Some(2)).build();
        assert_identical("zero_columns/rg_2", schema, &[batch.clone(), batch], p);
    }

    #[test]
    fn empty_fsb_values_buffer() {
        // A zero-length FixedSizeBinary array with an empty values buffer.
        let schema = schema1("c", DataType::FixedSizeBinary(16), true);
        let arr: ArrayRef = Arc::new(FixedSizeBinaryArray::new_null(16, 0));
        let batch = RecordBatch::try_new(schema.clone(), vec![arr]).unwrap();
        assert_identical(
            "empty_fsb_buffer",
            schema.clone(),
            &[batch],
            props().build(),
        );
        let nulls: ArrayRef = Arc::new(FixedSizeBinaryArray::new_null(16, 50));
        let batch = RecordBatch::try_new(schema.clone(), vec![nulls]).unwrap();
        assert_identical("null_fsb_array", schema, &[batch], props().build());
    }
}
