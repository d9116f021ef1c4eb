//! The `rewrite` command's argument parsing.

use super::*;

#[test]
fn compression_names() {
    assert_eq!(
        parse_compression("none").unwrap(),
        Compression::UNCOMPRESSED
    );
    assert_eq!(parse_compression("Snappy").unwrap(), Compression::SNAPPY);
    assert_eq!(
        parse_compression("zstd").unwrap(),
        Compression::ZSTD(ZstdLevel::default())
    );
    let zstd3 = Compression::ZSTD(ZstdLevel::try_new(3).unwrap());
    assert_eq!(parse_compression("zstd:3").unwrap(), zstd3);
    assert_eq!(parse_compression("ZSTD(3)").unwrap(), zstd3);
    assert_eq!(codec_name(zstd3), "zstd(3)");
    assert_eq!(
        parse_compression("gzip(6)").unwrap(),
        Compression::GZIP(GzipLevel::try_new(6).unwrap())
    );
    assert!(parse_compression("lzma").is_err());
    assert!(parse_compression("zstd:99").is_err());
}

#[test]
fn rewrite_arguments() {
    let args = |v: &[&str]| Args::new(v.iter().map(|s| s.to_string()).collect());
    let o = parse(args(&[
        "a",
        "b",
        "--writer-version=2",
        "--dictionary",
        "off",
    ]))
    .unwrap();
    assert_eq!(o.input, PathBuf::from("a"));
    assert_eq!(o.output, PathBuf::from("b"));
    assert_eq!(o.writer_version, Some(WriterVersion::PARQUET_2_0));
    assert_eq!(o.dictionary, Some(false));
    assert!(o.compression.is_none());
    assert!(parse(args(&["a"])).is_err());
    assert!(parse(args(&["a", "b", "c"])).is_err());
    assert!(parse(args(&["a", "b", "--dictionary", "maybe"])).is_err());
    assert!(parse(args(&["a", "b", "--compression"])).is_err());
    assert!(parse(args(&["a", "b", "--batch-size", "0"])).is_err());
}

/// `rewrite` end to end: a file of every kind of column rewritten with zstd
/// is byte for byte what `parquet`'s `ArrowWriter` writes from the same
/// batches (so the `BufWriter` in front of the output gave the file all of
/// its bytes, the footer included), and it reads back as the input.
#[test]
fn rewrite_matches_parquet() {
    use crate::workloads::tables::TABLES;
    let dir = std::env::temp_dir().join(format!("parquet-flba-rewrite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.parquet"), dir.join("out.parquet"));
    let table = TABLES.iter().find(|t| t.name == "mixed4").unwrap();
    // More than one output buffer's worth, in two row groups of the input.
    let batches = table.build(120_000, 4);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(70_000))
        .build();
    let file = File::create(&input).unwrap();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(file, batches[0].schema(), Some(props)).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();

    let argv = [&input, &output].map(|p| p.display().to_string());
    let args = |extra: &[&str]| {
        let mut v = argv.to_vec();
        v.extend(extra.iter().map(|s| s.to_string()));
        Args::new(v)
    };
    run(args(&["--compression", "zstd"])).unwrap();

    let o = parse(args(&["--compression", "zstd"])).unwrap();
    let (props, _) = writer_properties(&o);
    let read = open_input(&input, &output, o.batch_size).unwrap();
    let mut expected = Vec::new();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(&mut expected, read.schema, Some(props)).unwrap();
    let mut rows = Vec::new();
    for b in read.reader {
        let b = b.unwrap();
        w.write(&b).unwrap();
        rows.push(b);
    }
    w.close().unwrap();
    let written = std::fs::read(&output).unwrap();
    assert!(written.len() > OUTPUT_BUFFER, "{} bytes", written.len());
    assert!(written == expected, "the rewrite differs from parquet's");

    let back: Vec<_> = ParquetRecordBatchReaderBuilder::try_new(File::open(&output).unwrap())
        .unwrap()
        .with_batch_size(o.batch_size)
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, rows);
    std::fs::remove_dir_all(&dir).unwrap();
}
