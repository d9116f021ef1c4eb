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
