//! Seeded randomized differential test: random schemas of the fast path's
//! types (1-4 columns of random type — FIXED_LEN_BYTE_ARRAY, decimals,
//! integers, dates, times, timestamps, durations, floats, booleans — width,
//! precision and nullability, sometimes nested or dictionary-encoded, plus
//! optional Int64/Utf8), random `WriterProperties`
//! from the configuration space of the differential suite, 1-5 batches of
//! 0..3000 rows with random null patterns (including long runs that straddle
//! pages) and random slice offsets. Every case must be byte-identical to
//! upstream and read back.
//!
//! Each case is also written on 2, 3 or 4 threads (`with_threads`, every
//! write handed to the workers), which must give the one-thread file (or
//! fail where it fails).
//!
//! `PARQUET_FLBA_SEED` sets the base seed, `PARQUET_FLBA_CASES` the number of
//! cases (default 100), `PARQUET_FLBA_CASE` runs a single case index.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, IntervalUnit, Schema, SchemaRef};
use common::*;
use parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::properties::{
    BloomFilterPosition, CdcOptions, EnabledStatistics, WriterProperties, WriterPropertiesBuilder,
    WriterVersion,
};
use parquet::schema::types::ColumnPath;

const DEFAULT_CASES: usize = 100;

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().map(|v| {
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
    })
}

/// A random leaf type of the fast path: FIXED_LEN_BYTE_ARRAY, decimals,
/// integers, dates, times, timestamps, durations, floats, booleans, strings,
/// binary.
fn flba_type(g: &mut Gen) -> DataType {
    match g.range(0, 15) {
        9 | 10 => g.pick(&integer_types()).clone(),
        11 => g.pick(&float_types()).clone(),
        12 => DataType::Boolean,
        13 | 14 => g.pick(&byte_types()).clone(),
        0..=2 => {
            let w = if g.chance(0.05) {
                200
            } else {
                g.range(1, 64) as i32
            };
            DataType::FixedSizeBinary(w)
        }
        3 => {
            let p = g.range(19, 38) as u8;
            DataType::Decimal128(p, g.range(0, p as usize) as i8)
        }
        // Decimals stored as INT32 / INT64.
        4 => {
            let p = g.range(1, 18) as u8;
            let s = g.range(0, p as usize) as i8;
            match g.range(0, 3) {
                0 if p <= 9 => DataType::Decimal32(p, s),
                0 | 1 => DataType::Decimal64(p, s),
                2 => DataType::Decimal128(p, s),
                _ => DataType::Decimal256(p, s),
            }
        }
        5 | 6 => {
            let p = g.range(39, 76) as u8;
            DataType::Decimal256(p, g.range(0, p as usize) as i8)
        }
        7 => DataType::Float16,
        8 => DataType::Interval(IntervalUnit::YearMonth),
        _ => DataType::Interval(IntervalUnit::DayTime),
    }
}

/// A random column: mostly a plain FLBA leaf, sometimes a dictionary, struct or list of one.
fn flba_column(g: &mut Gen, i: usize) -> Field {
    let leaf = flba_type(g);
    let nullable = g.chance(0.7);
    let dt = match g.range(0, 9) {
        0 if !matches!(leaf, DataType::Interval(_)) => {
            let key = g
                .pick(&[DataType::Int8, DataType::Int32, DataType::UInt16])
                .clone();
            DataType::Dictionary(Box::new(key), Box::new(leaf))
        }
        1 => DataType::Struct(Fields::from(vec![
            Field::new("v", leaf, g.chance(0.5)),
            Field::new("i", DataType::Int32, true),
        ])),
        2 => DataType::List(Arc::new(Field::new("item", leaf, g.chance(0.7)))),
        _ => leaf,
    };
    Field::new(format!("flba{i}"), dt, nullable)
}

fn random_schema(g: &mut Gen) -> SchemaRef {
    let mut fields: Vec<Field> = (0..g.range(1, 4)).map(|i| flba_column(g, i)).collect();
    if g.chance(0.4) {
        fields.push(Field::new("i64", DataType::Int64, g.chance(0.5)));
    }
    if g.chance(0.4) {
        fields.push(Field::new("utf8", DataType::Utf8, true));
    }
    // Shuffle so non-FLBA columns are not always last.
    for i in (1..fields.len()).rev() {
        let j = g.range(0, i);
        fields.swap(i, j);
    }
    Arc::new(Schema::new(fields))
}

fn random_spec(g: &mut Gen) -> Spec {
    let nulls = match g.range(0, 6) {
        0 => Nulls::Absent,
        1 => Nulls::AllValid,
        2 => Nulls::Density(*g.pick(&[0.01, 0.1, 0.5, 0.9])),
        3 => Nulls::Density(1.0),
        _ => Nulls::Runs(g.range(1, 600)),
    };
    let distinct = if g.chance(0.5) {
        Some(*g.pick(&[1, 2, 10, 100, 1000]))
    } else {
        None
    };
    let order = *g.pick(&[Order::Random, Order::Random, Order::Asc, Order::Desc]);
    Spec {
        nulls,
        distinct,
        order,
    }
}

/// 1-5 batches of 0..3000 rows, each generated with a little slack and sliced
/// at a random offset.
fn random_batches(g: &mut Gen, schema: &SchemaRef, desc: &mut Vec<String>) -> Vec<RecordBatch> {
    let mut specs: Vec<Spec> = schema.fields().iter().map(|_| random_spec(g)).collect();
    let count = g.range(1, 5);
    let mut sizes = Vec::new();
    let batches = (0..count)
        .map(|_| {
            if g.chance(0.3) {
                specs = schema.fields().iter().map(|_| random_spec(g)).collect();
            }
            let n = match g.range(0, 9) {
                0 => 0,
                1 => 1,
                2..=5 => g.range(1, 600),
                _ => g.range(600, 2999),
            };
            let off = if g.chance(0.5) { g.range(0, 70) } else { 0 };
            let tail = g.range(0, 9);
            sizes.push(format!("{n}@{off}"));
            g.batch_with(schema, off + n + tail, &specs).slice(off, n)
        })
        .collect();
    desc.push(format!("batches=[{}]", sizes.join(",")));
    batches
}

/// The encodings a (possibly dictionary-encoded) leaf of `dt` may be given
/// besides PLAIN: its delta encoding (DELTA_BINARY_PACKED for what is
/// stored as INT32 / INT64, decimals included; DELTA_BYTE_ARRAY for
/// FIXED_LEN_BYTE_ARRAY and byte arrays; RLE for booleans) and
/// BYTE_STREAM_SPLIT (none for booleans; DELTA_LENGTH_BYTE_ARRAY for byte
/// arrays).
fn encodings_of(dt: &DataType) -> [Encoding; 2] {
    match dt {
        DataType::Dictionary(_, v) => encodings_of(v),
        DataType::Decimal32(..) | DataType::Decimal64(..) => {
            [Encoding::DELTA_BINARY_PACKED, Encoding::BYTE_STREAM_SPLIT]
        }
        DataType::Decimal128(p, _) | DataType::Decimal256(p, _) if *p <= 18 => {
            [Encoding::DELTA_BINARY_PACKED, Encoding::BYTE_STREAM_SPLIT]
        }
        // BYTE_ARRAY: no BYTE_STREAM_SPLIT, DELTA_LENGTH_BYTE_ARRAY instead.
        dt if is_byte_type(dt) => [
            Encoding::DELTA_BYTE_ARRAY,
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
        ],
        dt => [delta_for(dt), byte_stream_split_for(dt)],
    }
}

/// Random writer properties; `flba_leaves` are the top-level leaves this
/// crate writes (which may get explicit encodings), with their types.
fn random_props(
    g: &mut Gen,
    flba_leaves: &[(String, DataType)],
    desc: &mut Vec<String>,
) -> WriterProperties {
    let mut b: WriterPropertiesBuilder = WriterProperties::builder();
    let mut d = |s: String| desc.push(s);

    let v2 = g.chance(0.5);
    if v2 {
        b = b.set_writer_version(WriterVersion::PARQUET_2_0);
        d("v2".into());
    }
    let codec = match g.range(0, 11) {
        0 => Compression::SNAPPY,
        1 => Compression::GZIP(GzipLevel::default()),
        2 => Compression::LZ4,
        3 => Compression::LZ4_RAW,
        4 => Compression::BROTLI(BrotliLevel::default()),
        5 => Compression::ZSTD(ZstdLevel::try_new(1).unwrap()),
        6 => Compression::ZSTD(ZstdLevel::try_new(3).unwrap()),
        _ => Compression::UNCOMPRESSED,
    };
    if codec != Compression::UNCOMPRESSED {
        b = b.set_compression(codec);
        d(format!("{codec:?}"));
        if v2 && g.chance(0.3) {
            let t = *g.pick(&[0.5, 1.0, 2.0]);
            b = b.set_data_page_v2_compression_ratio_threshold(t);
            d(format!("v2_threshold={t}"));
        }
    }
    if g.chance(0.3) {
        b = b.set_dictionary_enabled(false);
        d("dict_off".into());
    }
    if g.chance(0.3) {
        let n = *g.pick(&[1usize, 64, 1000, 10_000]);
        b = b.set_dictionary_page_size_limit(n);
        d(format!("dict_limit={n}"));
    }
    for (name, dt) in flba_leaves {
        if g.chance(0.3) {
            let [delta, split] = encodings_of(dt);
            let e = *g.pick(&[Encoding::PLAIN, split, delta]);
            b = b.set_column_encoding(ColumnPath::from(name.as_str()), e);
            d(format!("{name}:{e:?}"));
        }
        if g.chance(0.15) {
            let on = g.chance(0.5);
            b = b.set_column_dictionary_enabled(ColumnPath::from(name.as_str()), on);
            d(format!("{name}:dict={on}"));
        }
    }
    if g.chance(0.4) {
        let n = *g.pick(&[64usize, 512, 4096, 65_536]);
        b = b.set_data_page_size_limit(n);
        d(format!("page_bytes={n}"));
    }
    if g.chance(0.3) {
        let n = *g.pick(&[1usize, 10, 100, 1000]);
        b = b.set_data_page_row_count_limit(n);
        d(format!("page_rows={n}"));
    }
    if g.chance(0.3) {
        let n = *g.pick(&[1usize, 7, 64, 1000]);
        b = b.set_write_batch_size(n);
        d(format!("write_batch={n}"));
    }
    if g.chance(0.3) {
        let s = *g.pick(&[
            EnabledStatistics::None,
            EnabledStatistics::Chunk,
            EnabledStatistics::Page,
        ]);
        b = b.set_statistics_enabled(s);
        d(format!("stats={}", stats_name(s)));
    }
    if g.chance(0.2) {
        b = b.set_write_page_header_statistics(true);
        d("header_stats".into());
    }
    if g.chance(0.2) {
        let t = *g.pick(&[None, Some(1), Some(2), Some(8)]);
        b = b.set_statistics_truncate_length(t);
        d(format!("stats_trunc={t:?}"));
    }
    if g.chance(0.2) {
        let t = *g.pick(&[None, Some(1), Some(3), Some(16)]);
        b = b.set_column_index_truncate_length(t);
        d(format!("ci_trunc={t:?}"));
    }
    if g.chance(0.2) {
        b = b.set_bloom_filter_enabled(true);
        let ndv = *g.pick(&[10u64, 1000, 100_000]);
        let fpp = *g.pick(&[0.01, 0.05, 0.3]);
        b = b.bloom_max_ndv(ndv).set_bloom_filter_fpp(fpp);
        let pos = *g.pick(&[BloomFilterPosition::AfterRowGroup, BloomFilterPosition::End]);
        let for_dict = g.chance(0.5);
        b = b
            .set_bloom_filter_position(pos)
            .bloom_for_dictionary_chunks(for_dict);
        d(format!(
            "bloom(ndv={ndv},fpp={fpp},{pos:?},for_dict={for_dict})"
        ));
    }
    if g.chance(0.3) {
        let n = g.range(17, 5000);
        b = b.set_max_row_group_row_count(Some(n));
        d(format!("rg_rows={n}"));
    }
    if g.chance(0.2) {
        let n = g.range(1_000, 200_000);
        b = b.set_max_row_group_bytes(Some(n));
        d(format!("rg_bytes={n}"));
    }
    if g.chance(0.15) {
        let min = g.range(256, 4096);
        let opts = CdcOptions {
            min_chunk_size: min,
            max_chunk_size: min * g.range(2, 8),
            norm_level: g.range(0, 3) as i32 - 1,
        };
        d(format!(
            "cdc({},{},{})",
            opts.min_chunk_size, opts.max_chunk_size, opts.norm_level
        ));
        b = b.set_content_defined_chunking(Some(opts));
    }
    if g.chance(0.15) {
        b = b.distinct_values(true);
        d("ndv".into());
    }
    if g.chance(0.1) {
        b = b.set_offset_index_disabled(true);
        d("no_offset_index".into());
    }
    if g.chance(0.1) {
        b = b.set_coerce_types(true);
        d("coerce".into());
    }
    b.build()
}

#[test]
fn randomized_flba_tables() {
    let base = base_seed();
    let cases = env_usize("PARQUET_FLBA_CASES").unwrap_or(DEFAULT_CASES);
    let only = env_usize("PARQUET_FLBA_CASE");
    let mut failures = Failures::new();
    // One case index replays exactly that case, also one past
    // `PARQUET_FLBA_CASES` (a failure found in a longer run).
    let mut ran = 0;
    let indices = match only {
        Some(i) => i..i + 1,
        None => 0..cases,
    };
    for i in indices {
        let case_seed = base ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut g = Gen::from_seed(case_seed);
        let schema = random_schema(&mut g);
        let mut desc = vec![format!(
            "schema=[{}]",
            schema
                .fields()
                .iter()
                .map(|f| format!(
                    "{}:{}{}",
                    f.name(),
                    f.data_type(),
                    if f.is_nullable() { "?" } else { "" }
                ))
                .collect::<Vec<_>>()
                .join(", ")
        )];
        let batches = random_batches(&mut g, &schema, &mut desc);
        let flba_leaves: Vec<(String, DataType)> = schema
            .fields()
            .iter()
            .filter(|f| !matches!(f.data_type(), DataType::Struct(_) | DataType::List(_)))
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect();
        let props = random_props(&mut g, &flba_leaves, &mut desc);
        let name = format!(
            "randomized case {i} (replay: PARQUET_FLBA_SEED={base:#x} PARQUET_FLBA_CASE={i}) {}",
            desc.join(" ")
        );
        assert_kinds_fast(&name, &schema, &props);
        failures.check(check_identical(
            &name,
            &schema,
            &batches,
            &Opts::props(props.clone()),
        ));
        failures.check(check_threads(&name, &schema, &batches, &props, 2 + i % 3));
        ran += 1;
    }
    // A selection that runs nothing must not pass.
    assert!(
        ran > 0,
        "no randomized case ran (PARQUET_FLBA_CASES={cases})"
    );
    failures.finish();
}

/// The file parquet_flba writes on `threads` threads, or its error.
fn write_on_threads(
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    threads: usize,
) -> Result<Vec<u8>, String> {
    let mut writer =
        parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))
            .map_err(err("try_new"))?
            .with_threads(threads)
            .with_min_parallel_work(std::time::Duration::ZERO);
    for batch in batches {
        writer.write(batch).map_err(err("write"))?;
    }
    writer.into_inner().map_err(err("into_inner"))
}

/// The case written on `threads` threads gives the one-thread file, or
/// fails where one thread fails.
fn check_threads(
    name: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    props: &WriterProperties,
    threads: usize,
) -> Result<(), String> {
    let one = no_panic("one thread", || write_on_threads(schema, batches, props, 1))?;
    let many = no_panic("several threads", || {
        write_on_threads(schema, batches, props, threads)
    })?;
    match (one, many) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Ok(a), Ok(b)) => Err(format!(
            "case `{name}`: {threads} threads wrote another file than one thread: {}",
            compare_files(&a, &b).unwrap_or_else(|| "(no difference found)".into())
        )),
        (Err(_), Err(_)) => Ok(()),
        (Ok(_), Err(e)) => Err(format!(
            "case `{name}`: {threads} threads failed where one thread wrote the file: {e}"
        )),
        (Err(e), Ok(_)) => Err(format!(
            "case `{name}`: {threads} threads wrote a file where one thread failed: {e}"
        )),
    }
}
