//! Content-defined chunking on tables that mix fast FLBA fields with fields
//! `parquet` writes (hybrid mode): the other fields go through an inner
//! `parquet` writer and the footer is assembled by this crate. Every case is
//! compared byte for byte with `parquet::arrow::ArrowWriter`, with the
//! writer's state after each write, `close()`'s metadata and a read-back.

include!("../src/versions.rs");

mod common;

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use common::*;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{
    BloomFilterPosition, CdcOptions, EnabledStatistics, WriterProperties, WriterPropertiesBuilder,
    WriterVersion,
};
use parquet::schema::types::ColumnPath;

fn cdc() -> WriterPropertiesBuilder {
    WriterProperties::builder().set_content_defined_chunking(Some(small_cdc()))
}

/// Fast fields around Utf8, a list of strings, `Null` columns (which stay
/// `parquet`'s, `DelegateReason::NullType`) and a struct mixing a fast leaf
/// with a `Null` one (which goes to the inner writer whole).
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::FixedSizeBinary(16), false),
        Field::new("ts", DataType::Null, true),
        Field::new("price", DataType::Decimal128(38, 10), true),
        Field::new("sym", DataType::Utf8, true),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        ),
        Field::new(
            "mixed",
            DataType::Struct(Fields::from(vec![
                Field::new("amount", DataType::Decimal256(50, 18), true),
                Field::new("n", DataType::Null, true),
            ])),
            true,
        ),
        Field::new("notional", DataType::Decimal256(50, 18), true),
        Field::new(
            "hashes",
            DataType::List(Arc::new(Field::new(
                "item",
                DataType::FixedSizeBinary(8),
                true,
            ))),
            true,
        ),
        // A list of structs split between the two writers (the ids on the
        // fast path, the counts through the inner writer).
        Field::new(
            "legs",
            DataType::List(Arc::new(Field::new(
                "item",
                DataType::Struct(Fields::from(vec![
                    Field::new("leg_id", DataType::FixedSizeBinary(16), false),
                    Field::new("count", DataType::Null, true),
                    Field::new("fee", DataType::Decimal128(25, 4), true),
                ])),
                true,
            ))),
            true,
        ),
    ]))
}

fn batches(name: &str, sizes: &[usize]) -> (SchemaRef, Vec<RecordBatch>) {
    let schema = schema();
    let mut g = Gen::new(name);
    let batches = g.batches(&schema, sizes, &Spec::new(Nulls::Density(0.2)));
    (schema, batches)
}

fn flba_debug(schema: &SchemaRef, props: WriterProperties) -> String {
    let w = parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).unwrap();
    format!("{w:?}")
}

#[test]
fn takes_the_hybrid_path() {
    let (schema, _) = batches("hybrid/path", &[1]);
    let debug = flba_debug(&schema, cdc().build());
    assert!(debug.contains("Hybrid"), "{debug}");
    // "mixed" and "legs" are split between the writers, "ts" goes through
    // the inner writer whole ("sym" and "tags", strings, are fast).
    assert_eq!(debug.matches("Pruned").count(), 2, "{debug}");
    assert_eq!(debug.matches("Whole").count(), 1, "{debug}");
    // Without CDC, or with every field fast, there is no inner writer.
    assert!(!flba_debug(&schema, WriterProperties::default()).contains("Hybrid"));
    let fast = schema1("id", DataType::FixedSizeBinary(16), false);
    assert!(!flba_debug(&fast, cdc().build()).contains("Hybrid"));
}

#[test]
fn configurations() {
    let mut f = Failures::new();
    let (schema, batches) = batches("hybrid/configs", &[700, 1, 0, 1500, 333]);
    let configs: Vec<(&str, WriterPropertiesBuilder)> = vec![
        ("default", cdc()),
        (
            "default_chunks",
            WriterProperties::builder().set_content_defined_chunking(Some(CdcOptions::default())),
        ),
        ("v2", cdc().set_writer_version(WriterVersion::PARQUET_2_0)),
        (
            "zstd",
            cdc().set_compression(Compression::ZSTD(ZstdLevel::default())),
        ),
        ("bloom_after", cdc().set_bloom_filter_enabled(true)),
        (
            "bloom_end",
            cdc()
                .set_bloom_filter_enabled(true)
                .set_bloom_filter_position(BloomFilterPosition::End),
        ),
        (
            "bloom_some_end",
            cdc()
                .set_bloom_filter_position(BloomFilterPosition::End)
                .set_column_bloom_filter_enabled(ColumnPath::from("ts"), true)
                .set_column_bloom_filter_enabled(ColumnPath::from("id"), true)
                .column_bloom_max_ndv(ColumnPath::from("id"), 77),
        ),
        (
            "stats_none",
            cdc().set_statistics_enabled(EnabledStatistics::None),
        ),
        (
            "stats_chunk",
            cdc().set_statistics_enabled(EnabledStatistics::Chunk),
        ),
        ("no_offset_index", cdc().set_offset_index_disabled(true)),
        (
            "no_offset_index_no_stats",
            cdc()
                .set_offset_index_disabled(true)
                .set_statistics_enabled(EnabledStatistics::None),
        ),
        (
            "page_header_stats",
            cdc().set_write_page_header_statistics(true),
        ),
        ("small_pages", small_pages(cdc())),
        ("no_dictionary", cdc().set_dictionary_enabled(false)),
        ("ndv", cdc().distinct_values(true)),
        (
            "kv",
            cdc().set_key_value_metadata(Some(vec![KeyValue::new("k".into(), "v".to_string())])),
        ),
        ("no_path_in_schema", cdc().path_in_schema(false)),
    ];
    for (cfg, b) in configs {
        f.identical(&format!("hybrid/{cfg}"), &schema, &batches, b.build());
    }
    f.finish();
}

#[test]
fn row_group_splits() {
    let mut f = Failures::new();
    let (schema, batches) = batches("hybrid/splits", &[250, 250, 13, 500, 1, 900]);
    for max in [1usize, 7, 100, 333, 1000] {
        for bloom in [false, true] {
            let p = cdc()
                .set_bloom_filter_enabled(bloom)
                .set_max_row_group_row_count(Some(max))
                .build();
            f.identical(
                &format!("hybrid/rows_{max}/bloom_{bloom}"),
                &schema,
                &batches,
                p,
            );
        }
    }
    for max in [1usize, 2_000, 10_000, 50_000] {
        let p = cdc()
            .set_max_row_group_row_count(None)
            .set_max_row_group_bytes(Some(max))
            .build();
        f.identical(&format!("hybrid/bytes_{max}"), &schema, &batches, p);
        // Small pages make the estimates grow unevenly, so a split by the
        // whole row group's estimate differs from one by the inner writer's.
        let p = small_pages(cdc())
            .set_max_row_group_row_count(Some(1024))
            .set_max_row_group_bytes(Some(max))
            .build();
        f.identical(
            &format!("hybrid/bytes_{max}_small_pages"),
            &schema,
            &batches,
            p,
        );
    }
    f.finish();
}

#[test]
fn writer_options() {
    let mut f = Failures::new();
    let (schema, batches) = batches("hybrid/options", &[400, 800]);
    let opts = [
        (
            "skip_arrow_metadata",
            Opts {
                props: cdc().build(),
                skip_arrow_metadata: true,
                ..Default::default()
            },
        ),
        (
            "schema_root",
            Opts {
                props: cdc().build(),
                schema_root: Some("trades".into()),
                ..Default::default()
            },
        ),
        (
            "parquet_schema",
            Opts {
                props: cdc().build(),
                parquet_schema: Some(
                    parquet::arrow::ArrowSchemaConverter::new()
                        .convert(&schema)
                        .unwrap(),
                ),
                ..Default::default()
            },
        ),
        #[cfg(not(feature = "parquet-58"))]
        (
            "page_store",
            Opts {
                props: cdc().build(),
                page_store: PageStoreChoice::Custom(Arc::new(
                    parquet_flba::SpillPageStoreFactory::new(1024),
                )),
                ..Default::default()
            },
        ),
    ];
    for (name, o) in opts {
        f.check(check_identical(
            &format!("hybrid/{name}"),
            &schema,
            &batches,
            &o,
        ));
    }
    f.finish();
}

/// Runs a sequence of `ArrowWriter` calls on a writer type, recording what
/// each observable returns; yields the observations and the output.
macro_rules! api_sequence {
    ($writer:path, $props:expr, $batches:expr, $finish_first:expr) => {{
        let mut seen: Vec<String> = Vec::new();
        let mut w = <$writer>::try_new(Vec::new(), schema(), Some($props)).unwrap();
        let state = |w: &$writer| {
            format!(
                "rows {} size {} written {} row groups {:?}",
                w.in_progress_rows(),
                w.in_progress_size(),
                w.bytes_written(),
                w.flushed_row_groups()
            )
        };
        for (i, b) in $batches.iter().enumerate() {
            seen.push(format!("{:?}", w.write(b).map_err(|e| e.to_string())));
            seen.push(state(&w));
            if i == 1 {
                seen.push(format!("{:?}", w.flush().map_err(|e| e.to_string())));
                seen.push(state(&w));
                w.write_all(b"between row groups").unwrap();
                w.append_key_value_metadata(KeyValue::new("k1".into(), "v1".to_string()));
            }
        }
        w.append_key_value_metadata(KeyValue::new("k2".into(), "v2".to_string()));
        if $finish_first {
            match w.finish() {
                Ok(md) => seen.push(format!("{md:?}")),
                Err(e) => seen.push(format!("error: {e}")),
            }
            seen.push(state(&w));
            // Both refuse to finish twice.
            seen.push(format!(
                "{:?}",
                w.finish().map(|_| ()).map_err(|e| e.to_string())
            ));
            let bytes = w.inner().clone();
            seen.push(format!(
                "{:?}",
                w.into_inner().map(|_| ()).map_err(|e| e.to_string())
            ));
            (seen, bytes)
        } else {
            (seen, w.into_inner().unwrap())
        }
    }};
}

#[test]
fn api_sequences() {
    let (_, batches) = batches("hybrid/api", &[300, 200, 0, 500, 50]);
    for finish_first in [false, true] {
        for (name, props) in [
            (
                "small_rg",
                cdc().set_max_row_group_row_count(Some(256)).build(),
            ),
            (
                "bloom_end",
                cdc()
                    .set_bloom_filter_enabled(true)
                    .set_bloom_filter_position(BloomFilterPosition::End)
                    .build(),
            ),
        ] {
            let (a, x) = api_sequence!(
                parquet::arrow::ArrowWriter<Vec<u8>>,
                props.clone(),
                batches,
                finish_first
            );
            let (b, y) = api_sequence!(
                parquet_flba::ArrowWriter<Vec<u8>>,
                props,
                batches,
                finish_first
            );
            let name = format!("{name}/finish_first_{finish_first}");
            for (i, (a, b)) in a.iter().zip(&b).enumerate() {
                assert_eq!(a, b, "{name}: observation {i} differs");
            }
            assert_eq!(a.len(), b.len(), "{name}");
            if let Some(diff) = compare_files(&x, &y) {
                panic!("{name}: files differ\n{diff}");
            }
        }
    }
}

#[test]
fn empty_file_and_empty_batches() {
    let schema = schema();
    let mut g = Gen::new("hybrid/empty");
    let empty = g.batch(&schema, 0, &Spec::new(Nulls::Density(0.2)));
    let mut f = Failures::new();
    f.identical("hybrid/no_batches", &schema, &[], cdc().build());
    f.identical("hybrid/empty_batch", &schema, &[empty], cdc().build());
    f.finish();
}

/// Before any row is written, `into_serialized_writer` hands out a file
/// writer and factory as `parquet`'s does (the column-level path, whose
/// output `tests/nested.rs` compares with `parquet`'s); once rows are in the
/// inner writer it is refused rather than producing a wrong file.
#[test]
fn into_serialized_writer_fresh_works_after_rows_is_refused() {
    let (schema, batches) = batches("hybrid/into_serialized", &[50]);
    let w = parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(cdc().build()))
        .unwrap();
    let (writer, factory) = w.into_serialized_writer().unwrap();
    assert_eq!(writer.bytes_written(), 4);
    let writers = factory.create_column_writers(0).unwrap();
    assert_eq!(writers.len(), writer.schema_descr().num_columns());
    drop(writers);
    assert_eq!(writer.close().unwrap().num_row_groups(), 0);

    let mut w =
        parquet_flba::ArrowWriter::try_new(Vec::new(), schema, Some(cdc().build())).unwrap();
    w.write(&batches[0]).unwrap();
    let err = w.into_serialized_writer().unwrap_err();
    assert!(
        err.to_string().contains("content-defined chunking"),
        "{err}"
    );
}

/// A user's page store factory sees each store created once, with its true
/// column index, in `parquet`'s order, though the inner writer holds some.
/// (parquet 59 and later: 58 has no page stores.)
#[cfg(not(feature = "parquet-58"))]
#[test]
fn page_store_creation_order() {
    let (schema, batches) = batches("hybrid/page_store_order", &[300, 200, 500]);
    for max in [None, Some(256)] {
        let name = format!("hybrid/page_store_order/rows_{max:?}");
        let props = cdc().set_max_row_group_row_count(max).build();
        let up_factory = Arc::new(RecordingPageStoreFactory::default());
        let fl_factory = Arc::new(RecordingPageStoreFactory::default());
        let opts = |f: Arc<RecordingPageStoreFactory>| Opts {
            page_store: PageStoreChoice::Custom(f),
            ..Opts::props(props.clone())
        };
        let up = up::write(&schema, &batches, &opts(up_factory.clone())).unwrap();
        let fl = flba::write(&schema, &batches, &opts(fl_factory.clone()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if let Some(diff) = compare_files(&up.bytes, &fl.bytes) {
            panic!("{name}: {diff}\n{}", seed_note());
        }
        assert_eq!(up_factory.created(), fl_factory.created(), "{name}");
        assert!(!up_factory.created().is_empty(), "{name}");
    }
}

/// A rejected batch (a decimal too wide for its byte width, in a fast field or
/// in a field of the inner writer) changes nothing: the writer goes on and
/// the file equals `parquet`'s for the good batches alone.
#[test]
fn bad_batch_leaves_the_writer_usable() {
    let (schema, good) = batches("hybrid/bad_input", &[300, 200]);
    let too_wide = |field: usize, child: Option<usize>| -> RecordBatch {
        let b = &good[1];
        let mut columns: Vec<ArrayRef> = b.columns().to_vec();
        let bad_dec = |dt: &DataType, len: usize| -> ArrayRef {
            match dt {
                DataType::Decimal128(p, s) => Arc::new(
                    arrow_array::Decimal128Array::from(vec![i128::MAX; len])
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                ),
                DataType::Decimal256(p, s) => Arc::new(
                    arrow_array::Decimal256Array::from(vec![arrow_buffer::i256::MAX; len])
                        .with_precision_and_scale(*p, *s)
                        .unwrap(),
                ),
                other => panic!("not a decimal: {other}"),
            }
        };
        columns[field] = match child {
            None => bad_dec(columns[field].data_type(), b.num_rows()),
            Some(c) => {
                let s = columns[field]
                    .as_any()
                    .downcast_ref::<arrow_array::StructArray>()
                    .unwrap();
                let mut children = s.columns().to_vec();
                children[c] = bad_dec(children[c].data_type(), b.num_rows());
                Arc::new(arrow_array::StructArray::new(
                    s.fields().clone(),
                    children,
                    s.nulls().cloned(),
                ))
            }
        };
        RecordBatch::try_new(schema.clone(), columns).unwrap()
    };
    // "notional" is fast; "mixed.amount" is in a field of the inner writer
    // (both Decimal256(50, 18): 21 bytes, too few for i256::MAX).
    for (what, bad) in [
        ("fast field", too_wide(6, None)),
        ("inner field", too_wide(5, Some(0))),
    ] {
        let name = format!("hybrid/bad_input/{what}");
        let props = cdc().set_max_row_group_row_count(Some(256)).build();
        let expected = up::write(&schema, &good, &Opts::props(props.clone())).unwrap();
        let mut bytes = Vec::new();
        let mut w =
            parquet_flba::ArrowWriter::try_new(&mut bytes, schema.clone(), Some(props)).unwrap();
        w.write(&good[0]).unwrap();
        let before = (
            w.in_progress_rows(),
            w.bytes_written(),
            w.in_progress_size(),
        );
        let err = w.write(&bad).unwrap_err().to_string();
        assert!(err.contains("row"), "{name}: {err}");
        let after = (
            w.in_progress_rows(),
            w.bytes_written(),
            w.in_progress_size(),
        );
        assert_eq!(before, after, "{name}: state changed");
        w.write(&good[1]).unwrap();
        w.close().unwrap();
        if let Some(diff) = compare_files(&expected.bytes, &bytes) {
            panic!("{name}: {diff}\n{}", seed_note());
        }
    }
}

/// `memory_size` counts the inner writer's buffers too, and a memory
/// listener's reservations balance to zero after close.
#[test]
fn memory_is_accounted() {
    use std::sync::atomic::{AtomicIsize, Ordering};
    #[derive(Debug, Default)]
    struct Pool(AtomicIsize);
    impl parquet_flba::MemoryListener for Pool {
        fn try_grow(&self, bytes: usize) -> parquet::errors::Result<()> {
            self.0.fetch_add(bytes as isize, Ordering::SeqCst);
            Ok(())
        }
        fn shrink(&self, bytes: usize) {
            self.0.fetch_sub(bytes as isize, Ordering::SeqCst);
        }
    }
    let (schema, batches) = batches("hybrid/memory", &[2000]);
    let pool = Arc::new(Pool::default());
    let mut w = parquet_flba::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(cdc().build()))
        .unwrap()
        .with_memory_listener(pool.clone());
    w.write(&batches[0]).unwrap();
    // More than the fast fields alone: an all-fast writer over the same rows.
    let fast: Vec<usize> = vec![0, 2, 6];
    let fast_batch = batches[0].project(&fast).unwrap();
    let mut f =
        parquet_flba::ArrowWriter::try_new(Vec::new(), fast_batch.schema(), Some(cdc().build()))
            .unwrap();
    f.write(&fast_batch).unwrap();
    assert!(
        w.memory_size() > f.memory_size(),
        "{} <= {}",
        w.memory_size(),
        f.memory_size()
    );
    assert!(pool.0.load(Ordering::SeqCst) > 0);
    w.close().unwrap();
    assert_eq!(pool.0.load(Ordering::SeqCst), 0);
}

/// No field is all fast, but one mixes both kinds: still split, with its
/// fast leaves on the fast path.
#[test]
fn split_field_without_an_all_fast_field() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("ts", DataType::Null, true),
        Field::new(
            "s",
            DataType::Struct(Fields::from(vec![
                Field::new("n", DataType::Null, true),
                Field::new("price", DataType::Decimal128(38, 10), true),
                Field::new("id", DataType::FixedSizeBinary(16), false),
            ])),
            true,
        ),
    ]));
    let debug = flba_debug(&schema, cdc().build());
    assert!(
        debug.contains("Hybrid") && debug.contains("Pruned"),
        "{debug}"
    );
    let mut g = Gen::new("hybrid/split_only");
    let batches = g.batches(&schema, &[500, 0, 1300], &Spec::new(Nulls::Density(0.3)));
    let mut f = Failures::new();
    f.identical(
        "hybrid/split_only/default",
        &schema,
        &batches,
        cdc().build(),
    );
    f.identical(
        "hybrid/split_only/small_rg_bloom_end",
        &schema,
        &batches,
        cdc()
            .set_max_row_group_row_count(Some(400))
            .set_bloom_filter_enabled(true)
            .set_bloom_filter_position(BloomFilterPosition::End)
            .build(),
    );
    f.finish();
}

/// Split fields whose pruned parts have zero-width lists: a fixed-size list
/// of size 0 keeps its length from the parent, not from its (empty) values.
#[test]
fn split_fields_with_zero_size_lists() {
    use arrow_array::{FixedSizeBinaryArray, FixedSizeListArray, NullArray, StructArray};
    use arrow_buffer::NullBuffer;
    let len = 150;
    let inner_fields = Fields::from(vec![
        Field::new("a", DataType::Null, true),
        Field::new("b", DataType::FixedSizeBinary(4), true),
    ]);
    let item = Arc::new(Field::new(
        "item",
        DataType::Struct(inner_fields.clone()),
        true,
    ));
    let empty_struct = || -> ArrayRef {
        Arc::new(StructArray::new(
            inner_fields.clone(),
            vec![
                Arc::new(NullArray::new(0)),
                Arc::new(FixedSizeBinaryArray::new_null(4, 0)),
            ],
            None,
        ))
    };
    let nulls = NullBuffer::from_iter((0..len).map(|i| i % 3 != 0));
    let zero = FixedSizeListArray::try_new_with_length(
        item.clone(),
        0,
        empty_struct(),
        Some(nulls.clone()),
        len,
    )
    .unwrap();
    // Without nulls, only the given length says how long it is.
    let zero_no_nulls =
        FixedSizeListArray::try_new_with_length(item.clone(), 0, empty_struct(), None, len)
            .unwrap();
    let ids =
        FixedSizeBinaryArray::try_from_iter((0..len as u32).map(|i| i.to_le_bytes())).unwrap();
    let s_fields = Fields::from(vec![
        Field::new("zero", zero.data_type().clone(), false),
        Field::new("x", DataType::FixedSizeBinary(4), false),
    ]);
    let s = StructArray::try_new(
        s_fields.clone(),
        vec![Arc::new(zero_no_nulls), Arc::new(ids)],
        None,
    )
    .unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("z", zero.data_type().clone(), true),
        Field::new("s", DataType::Struct(s_fields), false),
        Field::new("n", DataType::Null, true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(zero), Arc::new(s), Arc::new(NullArray::new(len))],
    )
    .unwrap();
    let batches = vec![batch.clone(), batch.slice(7, 100)];
    let mut f = Failures::new();
    f.identical("hybrid/zero_size_lists", &schema, &batches, cdc().build());
    f.finish();
}
