//! Quick in-crate differential checks (the full suite is under tests/).
use arrow_array::{
    ArrayRef, Decimal128Array, FixedSizeBinaryArray, Float16Array, Int64Array, RecordBatch,
};
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use std::sync::Arc;

fn both(batches: &[RecordBatch], props: WriterProperties) {
    let schema = batches[0].schema();
    let mut a = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut a, schema.clone(), Some(props.clone())).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    let mut b = Vec::new();
    let mut w = crate::ArrowWriter::try_new(&mut b, schema.clone(), Some(props)).unwrap();
    for x in batches {
        w.write(x).unwrap();
    }
    w.close().unwrap();
    if a != b {
        let pos = a.iter().zip(&b).position(|(x, y)| x != y);
        panic!(
            "differ: len {} vs {}, first diff at {:?}",
            a.len(),
            b.len(),
            pos
        );
    }
}

fn batch(n: usize, nulls: bool) -> RecordBatch {
    let dec = Decimal128Array::from_iter(
        (0..n).map(|i| (!nulls || i % 3 != 0).then_some((i as i128 * 7919) % 1000 - 500)),
    )
    .with_precision_and_scale(38, 10)
    .unwrap();
    let fsb = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..n).map(|i| (!nulls || i % 5 != 1).then_some([(i % 7) as u8; 16])),
        16,
    )
    .unwrap();
    let f16 = Float16Array::from_iter(
        (0..n).map(|i| (!nulls || i % 2 == 0).then(|| half::f16::from_f32(i as f32 / 3.0))),
    );
    let ints = Int64Array::from_iter_values(0..n as i64);
    RecordBatch::try_from_iter([
        ("d", Arc::new(dec) as ArrayRef),
        ("f", Arc::new(fsb) as ArrayRef),
        ("h", Arc::new(f16) as ArrayRef),
        ("i", Arc::new(ints) as ArrayRef),
    ])
    .unwrap()
}

#[test]
fn smoke_default() {
    both(&[batch(1000, false)], WriterProperties::default());
    both(&[batch(1000, true)], WriterProperties::default());
    both(
        &[batch(3000, true), batch(10, false)],
        WriterProperties::default(),
    );
}

#[test]
fn smoke_configs() {
    // Snappy where this build has it (the no-codec build refuses it, as
    // parquet without the feature does).
    let snappy = match cfg!(feature = "snap") {
        true => Compression::SNAPPY,
        false => Compression::UNCOMPRESSED,
    };
    let cfgs = vec![
        WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .build(),
        WriterProperties::builder().set_compression(snappy).build(),
        WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(snappy)
            .build(),
        WriterProperties::builder()
            .set_bloom_filter_enabled(true)
            .build(),
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .build(),
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .build(),
        WriterProperties::builder()
            .set_dictionary_enabled(false)
            .set_encoding(Encoding::BYTE_STREAM_SPLIT)
            .build(),
        WriterProperties::builder()
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .build(),
        WriterProperties::builder()
            .set_statistics_enabled(EnabledStatistics::None)
            .build(),
        WriterProperties::builder()
            .set_data_page_size_limit(100)
            .set_dictionary_page_size_limit(200)
            .build(),
        WriterProperties::builder()
            .set_write_batch_size(7)
            .set_data_page_row_count_limit(50)
            .build(),
        WriterProperties::builder()
            .set_max_row_group_row_count(Some(300))
            .build(),
        WriterProperties::builder()
            .set_write_page_header_statistics(true)
            .build(),
    ];
    for (i, p) in cfgs.into_iter().enumerate() {
        eprintln!("config {i}");
        both(&[batch(2000, true), batch(500, false)], p.clone());
    }
}

#[test]
fn fast_path_is_taken() {
    let b = batch(10, true);
    let props = Arc::new(WriterProperties::default());
    let schema = parquet::arrow::ArrowSchemaConverter::new()
        .convert(&b.schema())
        .unwrap();
    let w = parquet::file::writer::SerializedFileWriter::new(
        Vec::new(),
        schema.root_schema_ptr(),
        props,
    )
    .unwrap();
    let f = crate::ArrowRowGroupWriterFactory::new(&w, b.schema());
    let writers = f.create_column_writers(0).unwrap();
    let kinds: Vec<bool> = writers
        .iter()
        .map(|w| format!("{w:?}").contains("FlbaColumnWriter"))
        .collect();
    assert_eq!(kinds, vec![true, true, true, true]);
}
