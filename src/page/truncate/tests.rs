//! Truncation against `parquet`'s own writer: a column holding one value
//! (so that min = max = the value) is written by `parquet::arrow::ArrowWriter`
//! at a truncation length, and the chunk statistics it stores must be what
//! these functions make of the value.

use super::*;
use arrow_array::{ArrayRef, BinaryArray, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;
use std::sync::Arc;

/// `(min, min exact, max, max exact)` of the one-value column `array` as
/// parquet writes it with `statistics_truncate_length = limit`.
fn upstream(array: ArrayRef, limit: usize) -> (Vec<u8>, bool, Vec<u8>, bool) {
    let batch = RecordBatch::try_from_iter([("c", array)]).unwrap();
    let props = WriterProperties::builder()
        .set_statistics_truncate_length(Some(limit))
        .set_dictionary_enabled(false)
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let r = SerializedFileReader::new(bytes::Bytes::from(out)).unwrap();
    let md = r.metadata().row_group(0).column(0).clone();
    match md.statistics().unwrap() {
        Statistics::ByteArray(s) => (
            s.min_bytes_opt().unwrap().to_vec(),
            s.min_is_exact(),
            s.max_bytes_opt().unwrap().to_vec(),
            s.max_is_exact(),
        ),
        other => panic!("{other:?}"),
    }
}

fn ours(value: &[u8], limit: usize, utf8: bool) -> (Vec<u8>, bool, Vec<u8>, bool) {
    let (min, min_t) = truncate_min(value, Some(limit), utf8);
    let (max, max_t) = truncate_max(value, Some(limit), utf8);
    (min, !min_t, max, !max_t)
}

fn texts() -> Vec<String> {
    let mut t: Vec<String> = [
        "",
        "a",
        "abc",
        "abcdefgh",
        "é",
        "aé",
        "aaé",
        "ééé",
        "a€€",
        "a😀😀",
        "😀",
        "\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}",
        "a\u{7ff}\u{7ff}\u{7ff}",
        "a\u{ffff}\u{ffff}",
        "\u{d7ff}\u{d7ff}\u{d7ff}",
        "\u{10ffff}\u{10ffff}",
        "zz\u{10ffff}",
        "x\u{7f}é",
        "ÿÿÿÿÿÿ",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut x = 0x9E37_79B9u64;
    let alphabet = [
        'a',
        '\u{7f}',
        'é',
        '\u{7ff}',
        '€',
        '\u{ffff}',
        '😀',
        '\u{10ffff}',
        'z',
    ];
    for _ in 0..60 {
        let mut s = String::new();
        for _ in 0..(x % 9) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push(alphabet[(x % alphabet.len() as u64) as usize]);
        }
        t.push(s);
    }
    t
}

#[test]
fn utf8_truncation_matches_parquet() {
    for text in texts() {
        for limit in 1..=text.len() + 1 {
            let array: ArrayRef = Arc::new(StringArray::from(vec![text.as_str()]));
            assert_eq!(
                ours(text.as_bytes(), limit, true),
                upstream(array, limit),
                "{text:?} at {limit}"
            );
        }
    }
}

#[test]
fn binary_truncation_matches_parquet() {
    let mut values: Vec<Vec<u8>> = texts().into_iter().map(String::into_bytes).collect();
    values.extend([
        vec![0xFF; 5],
        vec![1, 0xFF, 0xFF, 7],
        vec![0xFF, 0xFE, 0xFF, 0xFF],
        vec![0, 0, 0],
        vec![0xC3], // not UTF-8 alone
    ]);
    for value in values {
        for limit in 1..=value.len() + 1 {
            let array: ArrayRef = Arc::new(BinaryArray::from(vec![value.as_slice()]));
            assert_eq!(
                ours(&value, limit, false),
                upstream(array, limit),
                "{value:?} at {limit}"
            );
        }
    }
}

#[test]
fn invalid_utf8_in_a_string_column_truncates_as_bytes() {
    let v = [b'a', 0xFF, 0xFF, 0xC3];
    assert_eq!(truncate_min(&v, Some(2), true), (vec![b'a', 0xFF], true));
    assert_eq!(truncate_max(&v, Some(3), true), (vec![b'b', 0, 0], true));
    assert_eq!(truncate_max(&v, None, true), (v.to_vec(), false));
}

#[test]
fn binary_values_truncate_as_bytes() {
    assert_eq!(truncate_min(&[1, 2, 3], Some(2), false), (vec![1, 2], true));
    assert_eq!(truncate_max(&[1, 2, 3], Some(2), false), (vec![1, 3], true));
    assert_eq!(
        truncate_max(&[1, 0xFF, 3], Some(2), false),
        (vec![2, 0], true)
    );
    assert_eq!(
        truncate_max(&[0xFF, 0xFF, 3], Some(2), false),
        (vec![0xFF, 0xFF, 3], false)
    );
    assert_eq!(truncate_max(&[1, 2], Some(2), false), (vec![1, 2], false));
    assert_eq!(truncate_max(&[1, 2], None, false), (vec![1, 2], false));
}
