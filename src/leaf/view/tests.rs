//! Flat and nested level views answer alike; records from repetition levels.

use super::*;
use crate::levels::{LeafLevels, compute_levels};
use arrow_array::{Array, ArrayRef, FixedSizeBinaryArray, ListArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field};
use std::sync::Arc;

fn leveled(field: &Field, array: &ArrayRef) -> LeafLevels {
    compute_levels(field, array, &|_| true)
        .unwrap()
        .remove(0)
        .unwrap()
}

/// A nullable top-level leaf seen through its bitmap and through its
/// definition levels gives the same answers.
#[test]
fn flat_and_nested_views_agree() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for density in [0u64, 3, 9, 10] {
        let len = 300;
        let valid: Vec<bool> = (0..len).map(|_| next() % 10 >= density).collect();
        let array: ArrayRef = Arc::new(FixedSizeBinaryArray::new(
            2,
            vec![0u8; 2 * len].into(),
            Some(NullBuffer::from(valid.clone())),
        ));
        let field = Field::new("f", DataType::FixedSizeBinary(2), true);
        let levels = leveled(&field, &array);
        let nulls = array.logical_nulls();
        let flat = FlatLevels::new(len, 1, nulls.as_ref());
        let nested = NestedLevels::new(&levels, 0);
        assert_eq!(flat.num_levels(), nested.num_levels());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        flat.for_each_value(|i| a.push(i));
        nested.for_each_value(|i| b.push(i));
        assert_eq!(a, b);
        for _ in 0..200 {
            let start = next() as usize % len;
            let end = start + next() as usize % (len - start + 1);
            let n = 1 + next() as usize % 40;
            assert_eq!(flat.values_in(start, end), nested.values_in(start, end));
            assert_eq!(
                flat.end_of_values(start, end, n),
                nested.end_of_values(start, end, n),
                "density {density}, [{start}, {end}), n {n}"
            );
        }
    }
}

#[test]
fn nested_records_are_counted_from_repetition_levels() {
    // [[a, b], null, [], [c, d, e]]
    let items = FixedSizeBinaryArray::new(1, vec![1u8, 2, 3, 4, 5].into(), None);
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(1), false));
    let list = ListArray::new(
        item,
        OffsetBuffer::from_lengths([2, 0, 0, 3]),
        Arc::new(items),
        Some(NullBuffer::from(vec![true, false, true, true])),
    );
    let field = Field::new("l", list.data_type().clone(), true);
    let levels = leveled(&field, &(Arc::new(list) as ArrayRef));
    let view = NestedLevels::new(&levels, 1);
    assert_eq!(view.num_levels(), 7);
    let records: Vec<usize> = (0..7).map(|l| view.record_of(l)).collect();
    assert_eq!(records, [0, 0, 1, 2, 3, 3, 3]);
    assert_eq!(view.values_in(0, 7), 5);
    assert_eq!(view.end_of_values(0, 7, 3), 5);
    assert_eq!(view.record_end(1, 7), 2);
    assert_eq!(view.record_end(5, 6), 6);
}
