//! The page codecs as cargo features (parquet's names: `snap`, `flate2`,
//! `brotli`, `lz4`, `zstd`; all on by default). For each codec, a table of
//! a fast leaf (FixedSizeBinary(16)) and a delegated one (Int32) is written
//! by parquet's `ArrowWriter` and by this crate's:
//!
//! * parquet has the codec: the files are identical, and the fast leaf is
//!   on the fast path when this build has the codec too, or else goes to
//!   parquet (`DelegateReason::CodecFeatureOff`);
//! * parquet lacks it: parquet's column writer panics with "Disabled
//!   feature at compile time: <feature>"; this crate returns that error,
//!   at the same point (the first write), and does not panic. A file with
//!   no rows is still written by both.
//!
//! Run it with the default features (every codec on) and with
//! `-p parquet-flba --no-default-features --features parquet-60` (every
//! codec off, as in parquet without its default features; `-p`, or the
//! demo package's codec features are unified in); `.ci/run` does both.

include!("../src/versions.rs");

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use arrow_array::{ArrayRef, FixedSizeBinaryArray, Int32Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter as UpstreamWriter;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet_flba::{ArrowWriter, DelegateReason};

/// Each codec, its feature's name, and whether this build turned it on.
fn codecs() -> [(Compression, &'static str, bool); 6] {
    [
        (Compression::SNAPPY, "snap", cfg!(feature = "snap")),
        (
            Compression::GZIP(GzipLevel::default()),
            "flate2",
            cfg!(feature = "flate2"),
        ),
        (
            Compression::BROTLI(BrotliLevel::default()),
            "brotli",
            cfg!(feature = "brotli"),
        ),
        (Compression::LZ4, "lz4", cfg!(feature = "lz4")),
        (Compression::LZ4_RAW, "lz4", cfg!(feature = "lz4")),
        (
            Compression::ZSTD(ZstdLevel::try_new(3).unwrap()),
            "zstd",
            cfg!(feature = "zstd"),
        ),
    ]
}

fn batch() -> RecordBatch {
    let ids: Vec<[u8; 16]> = (0..1000u32)
        .map(|i| {
            let mut v = [0u8; 16];
            v[..4].copy_from_slice(&(i % 37).to_le_bytes());
            v
        })
        .collect();
    let ids = FixedSizeBinaryArray::try_from_iter(ids.into_iter()).unwrap();
    let n = Int32Array::from_iter_values(0..1000);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::FixedSizeBinary(16), false),
        Field::new("n", DataType::Int32, false),
    ]));
    RecordBatch::try_new(schema, vec![Arc::new(ids) as ArrayRef, Arc::new(n)]).unwrap()
}

fn props(compression: Compression) -> WriterProperties {
    WriterProperties::builder()
        .set_compression(compression)
        .build()
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// parquet's file, or the message it panicked with.
fn upstream(batch: &RecordBatch, props: WriterProperties) -> Result<Vec<u8>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        let mut w = UpstreamWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
        w.write(batch).unwrap();
        w.into_inner().unwrap()
    }))
    .map_err(|p| panic_text(p.as_ref()))
}

#[test]
fn each_codec_is_written_as_parquet_writes_it_or_refused_as_parquet_refuses_it() {
    let batch = batch();
    let mut refused = Vec::new();
    for (compression, feature, built_here) in codecs() {
        let name = format!("{compression}");
        let props = props(compression);
        let ours = catch_unwind(AssertUnwindSafe(|| {
            let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props.clone()))?;
            let plan = w.column_plan().leaves()[0].reason();
            w.write(&batch)?;
            Ok::<_, ParquetError>((plan, w.into_inner()?))
        }))
        .unwrap_or_else(|p| panic!("{name}: parquet_flba panicked: {}", panic_text(p.as_ref())));
        let disabled = format!("Disabled feature at compile time: {feature}");
        match upstream(&batch, props.clone()) {
            Ok(file) => {
                let (reason, ours) = ours.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(ours == file, "{name}: files differ");
                let want = (!built_here).then_some(DelegateReason::CodecFeatureOff);
                assert_eq!(reason, want, "{name}: the fast leaf's plan");
            }
            Err(message) => {
                assert!(
                    message.contains(&disabled),
                    "{name}: parquet panicked otherwise: {message}"
                );
                assert!(!built_here, "{name}: this build has the codec, parquet not");
                match ours {
                    Err(ParquetError::General(m)) => assert_eq!(m, disabled, "{name}"),
                    Err(e) => panic!("{name}: another error: {e:?}"),
                    Ok(_) => panic!("{name}: written, parquet refused it"),
                }
                refused.push(name.clone());
            }
        }
        // No rows: no column writer is made, and both write the same file.
        let ours = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props.clone()))
            .and_then(ArrowWriter::into_inner)
            .unwrap_or_else(|e| panic!("{name}: no rows: {e}"));
        let up = UpstreamWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
        assert!(ours == up.into_inner().unwrap(), "{name}: no rows");
    }
    let all_off = codecs().iter().all(|(_, _, on)| !on);
    if all_off {
        // Nothing else in this test build turns parquet's codecs on.
        assert_eq!(refused.len(), codecs().len(), "refused: {refused:?}");
    }
}
