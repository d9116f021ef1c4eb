//! Byte-array values read from every Arrow layout against Arrow's own
//! accessors: offsets of both widths, views inline and out of line over
//! several data buffers, sliced arrays, dictionary keys.

use super::*;
use arrow_array::builder::{BinaryViewBuilder, StringViewBuilder};
use arrow_array::{
    ArrayRef, BinaryArray, DictionaryArray, LargeBinaryArray, LargeStringArray, StringArray,
    StringViewArray,
};
use arrow_buffer::NullBuffer;
use std::sync::Arc;

fn strings() -> Vec<Option<String>> {
    (0..200)
        .map(|i| match i % 7 {
            0 => None,
            1 => Some(String::new()),
            2 => Some("é".repeat(i % 9)),
            3 => Some(format!("{i:0>width$}", width = i % 40)),
            _ => Some(format!("v{i}")),
        })
        .collect()
}

fn view_array(values: &[Option<String>], binary: bool) -> ArrayRef {
    if binary {
        // Small blocks: out-of-line values spread over several buffers.
        let mut b = BinaryViewBuilder::new().with_fixed_block_size(64);
        for v in values {
            b.append_option(v.as_ref().map(|s| s.as_bytes()));
        }
        Arc::new(b.finish())
    } else {
        let mut b = StringViewBuilder::new().with_fixed_block_size(64);
        for v in values {
            b.append_option(v.as_deref());
        }
        Arc::new(b.finish())
    }
}

fn layouts(values: &[Option<String>]) -> Vec<ArrayRef> {
    let s: Vec<Option<&str>> = values.iter().map(|v| v.as_deref()).collect();
    let b: Vec<Option<&[u8]>> = values
        .iter()
        .map(|v| v.as_ref().map(|s| s.as_bytes()))
        .collect();
    vec![
        Arc::new(StringArray::from(s.clone())),
        Arc::new(LargeStringArray::from(s)),
        Arc::new(BinaryArray::from(b.clone())),
        Arc::new(LargeBinaryArray::from(b)),
        view_array(values, false),
        view_array(values, true),
    ]
}

/// Value `i` of `array` through Arrow's accessors.
fn arrow_value(array: &dyn Array, i: usize) -> Vec<u8> {
    match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(i).as_bytes().to_vec(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(i).as_bytes().to_vec(),
        DataType::Binary => array.as_binary::<i32>().value(i).to_vec(),
        DataType::LargeBinary => array.as_binary::<i64>().value(i).to_vec(),
        DataType::Utf8View => array.as_string_view().value(i).as_bytes().to_vec(),
        DataType::BinaryView => array.as_binary_view().value(i).to_vec(),
        t => panic!("{t}"),
    }
}

#[test]
fn every_layout_reads_as_arrow_does() {
    let values = strings();
    for array in layouts(&values) {
        if let DataType::BinaryView = array.data_type() {
            assert!(array.as_binary_view().data_buffers().len() > 3);
        }
        for (start, len) in [(0, 200), (3, 150), (17, 0), (199, 1)] {
            let sliced = array.slice(start, len);
            let v = ByteValues::of(sliced.as_ref()).unwrap();
            assert_eq!(v.len(), len);
            for i in 0..len {
                let want = arrow_value(sliced.as_ref(), i);
                assert_eq!(v.value(i), want, "{} at {i}", array.data_type());
                assert_eq!(v.value_len(i), want.len());
            }
            // The padded reads of the copy loops start with the value.
            with_layout!(&v, l => for i in 0..len {
                let (src, n) = l.at_padded(i);
                assert_eq!(&src[..n], arrow_value(sliced.as_ref(), i), "padded {i}");
            });
            if len > 0 {
                let total: usize = (0..len).map(|i| v.value_len(i)).sum();
                assert_eq!(v.bytes_in(0, len), total);
            }
        }
    }
}

/// Views with no data buffer (every value inline, the bytes where an
/// out-of-line view keeps its buffer number as high as they go) and views
/// whose values are in several buffers read as Arrow reads them, and the
/// sizing estimate of many views is near their bytes.
#[test]
fn inline_views_without_buffers_and_estimates() {
    let inline = StringViewArray::from(vec![
        "",
        "a",
        "~~~~~~~~~~~~",
        "\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}",
    ]);
    assert!(inline.data_buffers().is_empty());
    let v = ByteValues::of(&inline).unwrap();
    with_layout!(&v, l => for i in 0..inline.len() {
        let (src, n) = l.at_padded(i);
        assert_eq!(&src[..n], inline.value(i).as_bytes());
    });
    let many: Vec<Option<String>> = (0..20_000).map(|i| Some("x".repeat(i % 41))).collect();
    let array = view_array(&many, false);
    let v = ByteValues::of(array.as_ref()).unwrap();
    let exact = v.bytes_in(0, many.len());
    let estimate = v.bytes_estimate(many.len());
    assert!(
        estimate >= exact && estimate <= exact + exact / 4,
        "{estimate} for {exact}"
    );
    assert_eq!(v.bytes_estimate(100), v.bytes_in(0, 100));
}

#[test]
fn other_types_are_not_byte_arrays() {
    let a = arrow_array::Int32Array::from(vec![1]);
    assert!(ByteValues::of(&a).is_none());
}

#[test]
fn picks_visit_their_positions() {
    let valid: Vec<bool> = (0..300).map(|i| i % 3 != 0 && i % 11 != 5).collect();
    let nulls = NullBuffer::from(valid.clone());
    let bits = nulls.inner();
    for (offset, len) in [(0, 300), (5, 100), (64, 64), (130, 0)] {
        let count = valid[offset..offset + len].iter().filter(|&&v| v).count();
        let picks = Picks::Bitmap {
            bits: bits.values(),
            bit_offset: bits.offset() + offset,
            offset,
            len,
            count,
        };
        let mut seen = Vec::new();
        picks.for_each(|i| seen.push(i));
        let want: Vec<usize> = (offset..offset + len).filter(|&i| valid[i]).collect();
        assert_eq!(seen, want);
        assert_eq!(picks.count(), want.len());
    }
    let idx = [4usize, 5, 6];
    assert_eq!(Picks::Indices(&idx).as_range(), Some((4, 7)));
    assert_eq!(Picks::Indices(&[4, 6]).as_range(), None);
    assert_eq!(Picks::Range(2, 9).as_range(), Some((2, 9)));
}

#[test]
fn dictionary_keys_are_gathered_and_checked() {
    let keys = arrow_array::Int16Array::from(vec![Some(2), None, Some(0), Some(1), Some(2)]);
    let values = StringArray::from(vec!["a", "b", "c"]);
    let dict = DictionaryArray::new(keys, Arc::new(values));
    let sliced = dict.slice(1, 4);
    let k = DictionaryKeys::of(&sliced).unwrap();
    let mut out = Vec::new();
    k.gather(&Picks::Indices(&[1, 2, 3]), 3, &mut out).unwrap();
    assert_eq!(out, [0, 1, 2]);
    out.clear();
    let err = k.gather(&Picks::Range(1, 4), 2, &mut out).unwrap_err();
    assert!(err.to_string().contains("position 3"), "{err}");
    for (t, array) in [
        (
            "u64",
            Arc::new(DictionaryArray::new(
                arrow_array::UInt64Array::from(vec![1u64, 0]),
                Arc::new(StringArray::from(vec!["x", "y"])),
            )) as ArrayRef,
        ),
        (
            "i8",
            Arc::new(DictionaryArray::new(
                arrow_array::Int8Array::from(vec![1i8, 0]),
                Arc::new(StringArray::from(vec!["x", "y"])),
            )),
        ),
    ] {
        let mut out = Vec::new();
        DictionaryKeys::of(array.as_ref())
            .unwrap()
            .gather(&Picks::Range(0, 2), 2, &mut out)
            .unwrap();
        assert_eq!(out, [1, 0], "{t}");
    }
}

/// `parquet`'s rule, spelled out: the exact running count, except that a
/// span (offsets) or bound (views) that fits takes everything.
fn budget_oracle(array: &dyn Array, positions: &[usize], budget: usize) -> usize {
    let lens: Vec<usize> = positions
        .iter()
        .map(|&i| arrow_value(array, i).len())
        .collect();
    let n = positions.len();
    let quick = match array.data_type() {
        DataType::Utf8View | DataType::BinaryView => {
            let buffers = match array.data_type() {
                DataType::Utf8View => array.as_string_view().data_buffers().to_vec(),
                _ => array.as_binary_view().data_buffers().to_vec(),
            };
            let max = buffers.iter().map(|b| b.len()).max().unwrap_or(0).max(12);
            Some(n * (max + 4))
        }
        _ => match positions {
            [first, .., last] if last >= first => {
                let span: usize = (*first..=*last).map(|i| arrow_value(array, i).len()).sum();
                Some(span + 4 * n)
            }
            [one] => Some(arrow_value(array, *one).len() + 4),
            _ => None,
        },
    };
    if quick.is_some_and(|q| q <= budget) {
        return n;
    }
    let mut total = 0;
    for (k, len) in lens.iter().enumerate() {
        total += len + 4;
        if total > budget {
            return k + 1;
        }
    }
    n
}

#[test]
fn budget_windows_count_as_parquet_counts() {
    let values = strings();
    for array in layouts(&values) {
        let v = ByteValues::of(array.as_ref()).unwrap();
        let sorted: Vec<usize> = (0..200).filter(|i| i % 7 != 0).collect();
        let shuffled: Vec<usize> = (0..200).map(|i| (i * 37 + 11) % 200).collect();
        // Out of order with the span from first to last covering few values.
        let backwards: Vec<usize> = vec![60, 3, 150, 199, 2, 61];
        for positions in [
            &sorted[..],
            &shuffled[..],
            &backwards[..],
            &[5][..],
            &[][..],
        ] {
            for budget in [0, 3, 4, 10, 64, 200, 700, 1500, 3000, 100_000] {
                assert_eq!(
                    v.count_within_budget(&Picks::Indices(positions), budget),
                    budget_oracle(array.as_ref(), positions, budget),
                    "{} budget {budget} {positions:?}",
                    array.data_type()
                );
            }
        }
        for budget in [0, 50, 500, 5000] {
            let picks = Picks::Range(10, 150);
            let positions: Vec<usize> = (10..150).collect();
            assert_eq!(
                v.count_within_budget(&picks, budget),
                budget_oracle(array.as_ref(), &positions, budget)
            );
        }
    }
}

/// An out-of-line view naming a data buffer the array does not have (only
/// an array built unchecked can hold one) is refused in debug builds, not
/// read from another buffer.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "names data buffer 3")]
fn a_view_naming_a_missing_buffer_is_refused() {
    let mut view = [0u8; 16];
    view[..4].copy_from_slice(&20u32.to_le_bytes());
    view[8..12].copy_from_slice(&3u32.to_le_bytes());
    let buffers = [arrow_buffer::Buffer::from(vec![7u8; 64])];
    let v = ViewValues {
        views: &view,
        buffers: &buffers,
    };
    let _ = v.at_padded(0);
}
