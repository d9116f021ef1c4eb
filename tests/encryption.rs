//! Encrypted files: `parquet_flba::ArrowWriter` against
//! `parquet::arrow::ArrowWriter` with the same `FileEncryptionProperties`.
//!
//! Encrypted files cannot be compared byte for byte: every file gets a random
//! `aad_file_unique` and every encrypted module a random nonce. So both files
//! are decrypted with `parquet`'s reader and compared: the decoded batches,
//! the file, row-group and column-chunk metadata (statistics, encodings,
//! sizes, offsets), the column and offset indexes. The parts of the file that
//! are not encrypted (plaintext columns, their indexes and bloom filters)
//! must be byte-identical, and the encrypted parts must consist of the same
//! sequence of modules of the same lengths (each module is a 4-byte length,
//! a 12-byte nonce, the ciphertext and a 16-byte tag, and AES-GCM ciphertext
//! is as long as the plaintext), which pins down every page boundary and
//! page size even where `parquet`'s public reader API gives no access to
//! decrypted page headers (its page readers are only given the decryption
//! context inside the Arrow reader).

#![cfg(feature = "encryption")]

include!("../src/versions.rs");

#[path = "../fuzz/src/release.rs"]
mod release;

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Decimal128Array, Decimal256Array, FixedSizeBinaryArray, Int64Array, RecordBatch,
    StringArray,
};
use arrow_buffer::i256;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::basic::{Compression, ZstdLevel};
use parquet::encryption::decrypt::FileDecryptionProperties;
use parquet::encryption::encrypt::FileEncryptionProperties;
use parquet::errors::Result;
use parquet::file::metadata::{ColumnChunkMetaData, PageIndexPolicy, ParquetMetaData};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};

const FOOTER_KEY: &[u8; 16] = b"0123456789012345";
const ID_KEY: &[u8; 16] = b"1234567890123450";
const PRICE_KEY: &[u8; 16] = b"2345678901234501";
const TS_KEY: &[u8; 16] = b"3456789012345012";
const SYMBOL_KEY: &[u8; 16] = b"4567890123450123";

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::FixedSizeBinary(16), true),
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("big", DataType::Decimal256(50, 2), true),
        Field::new("ts", DataType::Int64, false),
        Field::new("symbol", DataType::Utf8, true),
    ]))
}

fn batch(n: u64, rows: usize) -> RecordBatch {
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let ids = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..rows).map(|i| {
            let v = next();
            (i % 6 != 0).then(|| [v.to_le_bytes(), (v % 17).to_be_bytes()].concat())
        }),
        16,
    )
    .unwrap();
    let prices =
        Decimal128Array::from_iter_values((0..rows).map(|_| (next() % 5_000) as i128 - 2_000))
            .with_precision_and_scale(38, 10)
            .unwrap();
    let big = Decimal256Array::from_iter(
        (0..rows).map(|i| (i % 4 != 1).then(|| i256::from_i128(next() as i128 * 1_000_003))),
    )
    .with_precision_and_scale(50, 2)
    .unwrap();
    let ts = Int64Array::from_iter_values((0..rows).map(|i| n as i64 * 10_000 + i as i64));
    let symbols = StringArray::from_iter(
        (0..rows).map(|i| (i % 9 != 0).then(|| ["AAPL", "MSFT", "GOOG", "AMZN"][i % 4])),
    );
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(ids) as ArrayRef,
            Arc::new(prices),
            Arc::new(big),
            Arc::new(ts),
            Arc::new(symbols),
        ],
    )
    .unwrap()
}

fn batches() -> Vec<RecordBatch> {
    vec![batch(0, 700), batch(1, 1300), batch(2, 5), batch(3, 900)]
}

/// How the file is encrypted.
#[derive(Debug, Clone, Copy)]
enum Scheme {
    /// Every column and the footer with the footer key.
    Uniform,
    /// The FLBA columns with their own keys, the others in plaintext.
    FlbaEncrypted,
    /// The non-FLBA columns with their own keys, the FLBA ones in plaintext.
    OthersEncrypted,
    /// One FLBA and one other column encrypted, plaintext (signed) footer.
    PlaintextFooter,
    /// Uniform, plaintext footer, AAD prefix stored in the file.
    UniformPlaintextFooterAad,
}

const SCHEMES: [Scheme; 5] = [
    Scheme::Uniform,
    Scheme::FlbaEncrypted,
    Scheme::OthersEncrypted,
    Scheme::PlaintextFooter,
    Scheme::UniformPlaintextFooterAad,
];

impl Scheme {
    /// Columns with their own key.
    fn column_keys(self) -> Vec<(&'static str, &'static [u8; 16])> {
        match self {
            Scheme::Uniform | Scheme::UniformPlaintextFooterAad => vec![],
            Scheme::FlbaEncrypted => vec![("id", ID_KEY), ("price", PRICE_KEY), ("big", ID_KEY)],
            Scheme::OthersEncrypted => vec![("ts", TS_KEY), ("symbol", SYMBOL_KEY)],
            Scheme::PlaintextFooter => vec![("id", ID_KEY), ("symbol", SYMBOL_KEY)],
        }
    }

    fn encryption(self) -> Arc<FileEncryptionProperties> {
        let mut b = FileEncryptionProperties::builder(FOOTER_KEY.to_vec());
        for (column, key) in self.column_keys() {
            b = b.with_column_key(column, key.to_vec());
        }
        match self {
            Scheme::PlaintextFooter => b = b.with_plaintext_footer(true),
            Scheme::UniformPlaintextFooterAad => {
                b = b
                    .with_plaintext_footer(true)
                    .with_aad_prefix(b"table/part-0".to_vec())
                    .with_aad_prefix_storage(true)
            }
            _ => {}
        }
        b.build().unwrap()
    }

    fn decryption(self) -> Arc<FileDecryptionProperties> {
        let mut b = FileDecryptionProperties::builder(FOOTER_KEY.to_vec());
        for (column, key) in self.column_keys() {
            b = b.with_column_key(column, key.to_vec());
        }
        b.build().unwrap()
    }
}

fn configs() -> Vec<(&'static str, WriterProperties)> {
    vec![
        (
            "default_small_row_groups",
            WriterProperties::builder()
                .set_max_row_group_row_count(Some(1000))
                .build(),
        ),
        (
            "bloom_filter_small_pages",
            WriterProperties::builder()
                .set_bloom_filter_enabled(true)
                .set_data_page_size_limit(2048)
                .set_max_row_group_row_count(Some(1500))
                .build(),
        ),
        (
            "zstd_parquet_2_plain",
            WriterProperties::builder()
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .set_dictionary_enabled(false)
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .set_max_row_group_row_count(Some(1200))
                .build(),
        ),
    ]
}

fn with_encryption(props: &WriterProperties, scheme: Scheme) -> WriterProperties {
    props
        .clone()
        .into_builder()
        .with_file_encryption_properties(scheme.encryption())
        .build()
}

/// The file, or the error (its message) of the call that failed.
fn write_upstream(props: WriterProperties, batches: &[RecordBatch]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, schema(), Some(props))
        .map_err(|e| e.to_string())?;
    for b in batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.close().map_err(|e| e.to_string())?;
    Ok(out)
}

fn write_ours(props: WriterProperties, batches: &[RecordBatch]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut w = parquet_flba::ArrowWriter::try_new(&mut out, schema(), Some(props))
        .map_err(|e| e.to_string())?;
    for b in batches {
        w.write(b).map_err(|e| e.to_string())?;
    }
    w.close().map_err(|e| e.to_string())?;
    Ok(out)
}

/// Both writers on the same input: both files, or (both failing) the
/// common error. Fails when one writes what the other refuses.
fn write_both(
    what: &str,
    props: WriterProperties,
    batches: &[RecordBatch],
) -> Result<(Vec<u8>, Vec<u8>), String> {
    match (
        write_upstream(props.clone(), batches),
        write_ours(props, batches),
    ) {
        (Ok(up), Ok(ours)) => Ok((up, ours)),
        (Err(up), Err(ours)) => {
            assert_eq!(up, ours, "{what}: the writers fail differently");
            Err(up)
        }
        (up, ours) => panic!(
            "{what}: parquet {:?}, parquet-flba {:?}",
            up.map(|f| f.len()),
            ours.map(|f| f.len())
        ),
    }
}

/// Whether the resolved parquet refuses bloom filters on encrypted columns:
/// 59.3.3 does, 59.3.2, 58.4 and 60.1 do not.
fn refuses_bloom_on_encrypted() -> bool {
    let created_by = parquet::file::properties::DEFAULT_CREATED_BY;
    (cfg!(feature = "parquet-59") && !created_by.ends_with("59.3.2"))
        || (cfg!(feature = "parquet-60") && !created_by.ends_with("60.1.0"))
}

/// parquet 59.3.3 and 60.2.0 refuse bloom filters on encrypted columns
/// (`file/writer.rs`: "Encryption is not currently supported with bloom
/// filters"); 58.4, 59.3.2 and 60.1.0 write them. Row D23 of
/// docs/releases.md.
#[test]
fn bloom_filters_on_encrypted_columns_as_the_release_does() {
    let props = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .build();
    for scheme in SCHEMES {
        let what = format!("bloom filters, {scheme:?}");
        let outcome = write_both(&what, with_encryption(&props, scheme), &batches());
        if refuses_bloom_on_encrypted() {
            let err = outcome.expect_err(&what);
            assert!(
                err.contains("not currently supported with bloom filters"),
                "{what}: {err}"
            );
        } else {
            let (up, ours) = outcome.unwrap_or_else(|e| panic!("{what}: {e}"));
            let expected = arrow_select::concat::concat_batches(&schema(), &batches()).unwrap();
            let meta = assert_same_file(&what, scheme, &up, &ours, &expected);
            for rg in meta.row_groups() {
                for c in rg.columns() {
                    assert!(
                        c.bloom_filter_offset().is_some(),
                        "{what}: {} has no bloom filter",
                        c.column_path()
                    );
                }
            }
        }
    }
}

/// Reads the file with `parquet`'s reader, decrypting with `decryption`:
/// its metadata (with the page indexes) and its batches.
fn read(
    file: &[u8],
    decryption: Option<Arc<FileDecryptionProperties>>,
) -> Result<(Arc<ParquetMetaData>, Vec<RecordBatch>)> {
    let mut options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    if let Some(d) = decryption {
        options = options.with_file_decryption_properties(d);
    }
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(
        Bytes::copy_from_slice(file),
        options,
    )?;
    let metadata = builder.metadata().clone();
    let batches = builder
        .with_batch_size(100_000)
        .build()?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok((metadata, batches))
}

/// Everything deterministic about a column chunk's metadata.
fn describe_column(c: &ColumnChunkMetaData) -> String {
    format!(
        "path {} type {:?} encodings {:?} file_path {:?} file_offset {} num_values {} \
         compression {:?} sizes {}/{} data_page_offset {} index_page_offset {:?} \
         dictionary_page_offset {:?} byte_range {:?} statistics {:?} encoding_stats {:?} \
         bloom {:?}/{:?} offset_index {:?}/{:?} column_index {:?}/{:?} unencoded {:?} \
         rep_hist {:?} def_hist {:?} crypto {:?}",
        c.column_path(),
        c.column_type(),
        c.encodings().collect::<Vec<_>>(),
        c.file_path(),
        c.file_offset(),
        c.num_values(),
        c.compression(),
        c.compressed_size(),
        c.uncompressed_size(),
        c.data_page_offset(),
        c.index_page_offset(),
        c.dictionary_page_offset(),
        c.byte_range(),
        c.statistics(),
        c.page_encoding_stats(),
        c.bloom_filter_offset(),
        c.bloom_filter_length(),
        c.offset_index_offset(),
        c.offset_index_length(),
        c.column_index_offset(),
        c.column_index_length(),
        c.unencoded_byte_array_data_bytes(),
        c.repetition_level_histogram(),
        c.definition_level_histogram(),
        c.crypto_metadata(),
    )
}

/// Everything deterministic about the file's metadata, one line per item.
fn describe(m: &ParquetMetaData) -> Vec<String> {
    let f = m.file_metadata();
    let mut out = vec![
        format!("version {}", f.version()),
        format!("num_rows {}", f.num_rows()),
        format!("created_by {:?}", f.created_by()),
        format!("key_value_metadata {:?}", f.key_value_metadata()),
        format!("schema {:?}", f.schema_descr()),
        format!("column_orders {:?}", f.column_orders()),
        format!("row_groups {}", m.num_row_groups()),
    ];
    for (i, rg) in m.row_groups().iter().enumerate() {
        out.push(format!(
            "rg {i}: rows {} total_byte_size {} compressed {} file_offset {:?} ordinal {:?} \
             sorting {:?}",
            rg.num_rows(),
            rg.total_byte_size(),
            rg.compressed_size(),
            rg.file_offset(),
            rg.ordinal(),
            rg.sorting_columns(),
        ));
        for (j, c) in rg.columns().iter().enumerate() {
            out.push(format!("rg {i} col {j}: {}", describe_column(c)));
            out.push(format!(
                "rg {i} col {j} column index: {:?}",
                release::column_index(m, i, j)
            ));
            out.push(format!(
                "rg {i} col {j} offset index: {:?}",
                release::offset_index(m, i, j)
            ));
        }
    }
    out
}

/// Splits `bytes` into encryption modules (4-byte little-endian length, then
/// that many bytes), returning their lengths; `None` if they do not tile it.
fn modules(bytes: &[u8]) -> Option<Vec<usize>> {
    let mut lengths = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let len = u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize;
        // nonce (12) + tag (16) at least
        if len < 28 {
            return None;
        }
        at += 4 + len;
        lengths.push(len);
    }
    (at == bytes.len()).then_some(lengths)
}

/// The byte ranges of a column chunk's pages, bloom filter, column index
/// and offset index.
fn ranges(c: &ColumnChunkMetaData) -> Vec<(&'static str, usize, usize)> {
    let mut out = Vec::new();
    let (start, len) = c.byte_range();
    out.push(("pages", start as usize, len as usize));
    if let (Some(o), Some(l)) = (c.bloom_filter_offset(), c.bloom_filter_length()) {
        out.push(("bloom filter", o as usize, l as usize));
    }
    if let (Some(o), Some(l)) = (c.column_index_offset(), c.column_index_length()) {
        out.push(("column index", o as usize, l as usize));
    }
    if let (Some(o), Some(l)) = (c.offset_index_offset(), c.offset_index_length()) {
        out.push(("offset index", o as usize, l as usize));
    }
    out
}

/// Compares the two files' bytes region by region: plaintext regions must
/// be identical, encrypted ones must be the same modules.
fn compare_regions(what: &str, meta: &ParquetMetaData, up: &[u8], ours: &[u8]) -> (usize, usize) {
    let (mut plain, mut encrypted) = (0, 0);
    for (i, rg) in meta.row_groups().iter().enumerate() {
        for (j, c) in rg.columns().iter().enumerate() {
            for (part, start, len) in ranges(c) {
                let (a, b) = (&up[start..start + len], &ours[start..start + len]);
                let at = format!("{what}: rg {i} col {j} ({}) {part}", c.column_path());
                if part == "bloom filter" {
                    // parquet 60.1 writes bloom filters unencrypted, even
                    // those of encrypted columns.
                    assert!(a == b, "{at}: bloom filters differ");
                } else if c.crypto_metadata().is_some() {
                    let (ma, mb) = (modules(a), modules(b));
                    assert!(ma.is_some(), "{at}: not a sequence of modules");
                    assert_eq!(ma, mb, "{at}: different modules");
                    // Different nonces: the ciphertexts differ.
                    assert!(a != b, "{at}: identical ciphertext");
                    encrypted += 1;
                } else {
                    assert!(a == b, "{at}: plaintext bytes differ");
                    plain += 1;
                }
            }
        }
    }
    (plain, encrypted)
}

/// Checks that `ours` is `up` but for the ciphertexts: same size, same
/// metadata and page indexes after decryption, same decoded batches (and
/// those are `expected`), plaintext regions (bloom filters included)
/// identical and encrypted ones the same modules, same magic and footer
/// length. Returns our file's metadata.
fn assert_same_file(
    what: &str,
    scheme: Scheme,
    up: &[u8],
    ours: &[u8],
    expected: &RecordBatch,
) -> Arc<ParquetMetaData> {
    assert_eq!(up.len(), ours.len(), "{what}: file sizes differ");
    assert!(up != ours, "{what}: files identical despite random nonces");

    let (up_meta, up_batches) = read(up, Some(scheme.decryption())).unwrap();
    let (our_meta, our_batches) = read(ours, Some(scheme.decryption()))
        .unwrap_or_else(|e| panic!("{what}: cannot read our file: {e}"));
    let (a, b) = (describe(&up_meta), describe(&our_meta));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "{what}: metadata differs");
    }
    assert_eq!(a.len(), b.len(), "{what}");
    assert!(
        release::offset_index(&up_meta, 0, 0).is_some(),
        "{what}: no page index"
    );

    assert_eq!(up_batches, our_batches, "{what}: decoded batches differ");
    let ours_all = arrow_select::concat::concat_batches(&schema(), &our_batches).unwrap();
    assert_eq!(
        &ours_all, expected,
        "{what}: decoded batches differ from input"
    );

    let (plain, encrypted) = compare_regions(what, &our_meta, up, ours);
    match scheme {
        Scheme::Uniform | Scheme::UniformPlaintextFooterAad => assert_eq!(plain, 0),
        _ => assert!(plain > 0 && encrypted > 0, "{what}"),
    }
    assert!(encrypted > 0, "{what}");

    // Magic at both ends ("PARE" for an encrypted footer), and the
    // same footer length.
    let magic = match scheme {
        Scheme::PlaintextFooter | Scheme::UniformPlaintextFooterAad => b"PAR1",
        _ => b"PARE",
    };
    assert_eq!(&ours[..4], magic, "{what}");
    assert_eq!(&ours[ours.len() - 4..], magic, "{what}");
    assert_eq!(up[up.len() - 8..], ours[ours.len() - 8..], "{what}");
    our_meta
}

/// Writes with both writers and checks they agree, for every scheme and
/// configuration.
#[test]
fn encrypted_files_match_parquets() {
    let batches = batches();
    let expected = arrow_select::concat::concat_batches(&schema(), &batches).unwrap();
    let (mut compared, mut refused) = (0, 0);
    for (name, props) in configs() {
        for scheme in SCHEMES {
            let what = format!("{name}, {scheme:?}");
            let props = with_encryption(&props, scheme);
            let (up, ours) = match write_both(&what, props, &batches) {
                Ok(files) => files,
                // parquet 59.3.3 refuses bloom filters on encrypted
                // columns (see the test below); both refused alike.
                Err(_) if refuses_bloom_on_encrypted() && name.starts_with("bloom") => {
                    refused += 1;
                    continue;
                }
                Err(e) => panic!("{what}: {e}"),
            };
            compared += 1;
            let meta = assert_same_file(&what, scheme, &up, &ours, &expected);
            assert!(meta.num_row_groups() > 1, "{what}: one row group");
        }
    }
    // Under 59.3.3 the bloom-filter configuration is refused for every
    // scheme (each encrypts at least one column); elsewhere nothing is.
    let expect_refused = if refuses_bloom_on_encrypted() {
        SCHEMES.len()
    } else {
        0
    };
    assert_eq!(refused, expect_refused);
    assert_eq!(compared + refused, configs().len() * SCHEMES.len());
}

/// `parquet`'s reader opens our encrypted file with the keys, and fails
/// without them (or with a wrong key).
#[test]
fn our_file_needs_the_keys() {
    let batches = batches();
    let expected = arrow_select::concat::concat_batches(&schema(), &batches).unwrap();
    let props = configs().remove(0).1;
    for scheme in SCHEMES {
        let file = write_ours(with_encryption(&props, scheme), &batches).unwrap();
        let (_, read_back) = read(&file, Some(scheme.decryption())).unwrap();
        let read_back = arrow_select::concat::concat_batches(&schema(), &read_back).unwrap();
        assert_eq!(read_back, expected, "{scheme:?}");

        assert!(read(&file, None).is_err(), "{scheme:?}: read without keys");

        let wrong = FileDecryptionProperties::builder(b"0000000000000000".to_vec())
            .build()
            .unwrap();
        assert!(
            read(&file, Some(wrong)).is_err(),
            "{scheme:?}: read with a wrong footer key"
        );
        if !scheme.column_keys().is_empty() {
            // The right footer key but no column keys.
            let footer_only = FileDecryptionProperties::builder(FOOTER_KEY.to_vec())
                .build()
                .unwrap();
            assert!(
                read(&file, Some(footer_only)).is_err(),
                "{scheme:?}: read without the column keys"
            );
        }
    }
}

/// With a plaintext footer the file's metadata and its plaintext columns
/// can be read without any key, but not its encrypted columns.
#[test]
fn plaintext_footer_without_keys() {
    let batches = batches();
    let props = with_encryption(&configs().remove(0).1, Scheme::PlaintextFooter);
    let file = Bytes::from(write_ours(props, &batches).unwrap());
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    assert_eq!(builder.metadata().file_metadata().num_rows(), 2905);
    // Columns 1 (price) and 3 (ts) are plaintext.
    let mask = parquet::arrow::ProjectionMask::leaves(builder.parquet_schema(), [1, 3]);
    let rows: usize = builder
        .with_projection(mask)
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(rows, 2905);
    // Column 0 (id) is encrypted.
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let mask = parquet::arrow::ProjectionMask::leaves(builder.parquet_schema(), [0]);
    let read = builder.with_projection(mask).build().and_then(|r| {
        r.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(Into::into)
    });
    assert!(read.is_err(), "read an encrypted column without its key");
}
