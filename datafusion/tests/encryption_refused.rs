//! Without the `encryption` feature: DataFusion's `parquet_encryption` is on
//! in these tests (a dev-dependency turns it on, as another crate of an
//! application can), so `COPY TO` accepts encryption options, and stock
//! DataFusion encrypts the file. A build of this crate that cannot encrypt
//! must refuse them with an error and write nothing; never a plaintext
//! file. The core writer, given encryption properties it has no accessor
//! for, hands every leaf to parquet, which encrypts them.
#![cfg(not(feature = "encryption"))]

mod common;

use common::{batches, context, scratch};
use datafusion::parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use datafusion::parquet::encryption::decrypt::FileDecryptionProperties;
use datafusion::parquet::encryption::encrypt::FileEncryptionProperties;
use datafusion::parquet::file::properties::WriterProperties;
use parquet_flba_datafusion::parquet_flba::{ArrowWriter, DelegateReason, LeafPath};

const FOOTER_KEY: &str = "30313233343536373839303132333435"; // b"0123456789012345"
const PRICE_KEY: &str = "31323334353637383930313233343530"; // b"1234567890123450"

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encryption_options_are_refused_and_nothing_is_written() {
    let data = batches(2, 300);
    for parallel in [true, false] {
        let options = [
            format!(
                "'format.crypto.file_encryption.encrypt_footer' 'true', \
                 'format.crypto.file_encryption.footer_key_as_hex' '{FOOTER_KEY}', \
                 'format.crypto.file_encryption.column_key_as_hex::price' '{PRICE_KEY}'"
            ),
            "'format.crypto.factory_id' 'no_such_factory'".to_string(),
        ];
        for (n, option) in options.iter().enumerate() {
            let dir = scratch("refused");
            let ctx = context(true, 1, &data).unwrap();
            let sql = format!(
                "COPY (SELECT row, id, price FROM t) TO '{}/x.parquet' STORED AS PARQUET \
                 OPTIONS ({option}, 'allow_single_file_parallelism' '{parallel}')",
                dir.display()
            );
            let result = match ctx.sql(&sql).await {
                Ok(df) => df.collect().await.map(|_| ()),
                Err(e) => Err(e),
            };
            let err = result
                .expect_err("encryption options were accepted")
                .to_string();
            if n == 0 {
                assert!(
                    err.contains("cannot encrypt") && err.contains("`encryption` feature"),
                    "parallel={parallel}: {err}"
                );
            }
            let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
            assert!(left.is_empty(), "parallel={parallel}: {left:?} written");
        }
    }
}

#[test]
fn the_core_writer_hands_an_encrypted_file_to_parquet() {
    let batch = batches(1, 500).remove(0);
    let schema = batch.schema();
    let footer_key = b"0123456789012345".to_vec();
    let encryption = FileEncryptionProperties::builder(footer_key.clone())
        .build()
        .unwrap();
    let props = WriterProperties::builder()
        .with_file_encryption_properties(encryption)
        .build();
    let mut writer = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props)).unwrap();
    let plan = writer.column_plan().clone();
    // Every leaf is parquet's: those the crate writes (every column here)
    // because the file is encrypted.
    for leaf in plan.leaves() {
        assert_eq!(leaf.path(), LeafPath::Parquet, "{leaf:?}");
        if leaf.reason() != Some(DelegateReason::NotFixedLenByteArray) {
            assert_eq!(leaf.reason(), Some(DelegateReason::Encrypted), "{leaf:?}");
        }
    }
    let encrypted = plan
        .leaves()
        .iter()
        .filter(|l| l.reason() == Some(DelegateReason::Encrypted))
        .count();
    let writable = plan.leaves().iter().filter(|l| l.kind().is_some()).count();
    assert_eq!(encrypted, writable, "{plan}");
    assert!(encrypted >= 9, "{plan}");
    writer.write(&batch).unwrap();
    let file = bytes::Bytes::from(writer.into_inner().unwrap());

    // Unreadable without the key, equal to the input with it.
    assert!(ParquetRecordBatchReaderBuilder::try_new(file.clone()).is_err());
    let decryption = FileDecryptionProperties::builder(footer_key)
        .build()
        .unwrap();
    let options = ArrowReaderOptions::new().with_file_decryption_properties(decryption);
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .unwrap()
        .build()
        .unwrap();
    let back: Vec<_> = reader.map(Result::unwrap).collect();
    let back = datafusion::arrow::compute::concat_batches(&back[0].schema(), &back).unwrap();
    assert_eq!(back, batch);
}
