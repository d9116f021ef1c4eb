//! Levels of small hand-built arrays, checked against levels worked out by
//! hand, and of random nested arrays, checked against a naive oracle.

use super::{LeafLevels, LevelData, compute_levels};
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::UnionMode;
use arrow_schema::{DataType, Field, Fields};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

pub(super) mod random;

fn mat(v: &[i16]) -> LevelData {
    LevelData::Materialized(v.to_vec())
}

fn uniform(value: i16, count: usize) -> LevelData {
    LevelData::Uniform { value, count }
}

/// The levels of the only leaf of `field`.
fn only_leaf(field: Field, array: ArrayRef) -> LeafLevels {
    let mut leaves = compute_levels(&field, &array, &|_| true).unwrap();
    assert_eq!(leaves.len(), 1);
    leaves.pop().unwrap().unwrap()
}

fn fsb(values: &[Option<u8>]) -> ArrayRef {
    let rows = values.iter().map(|v| v.map(|b| [b; 2]));
    Arc::new(FixedSizeBinaryArray::try_from_sparse_iter_with_size(rows, 2).unwrap())
}

fn list_field(item_nullable: bool, nullable: bool) -> Field {
    let item = Field::new("item", DataType::FixedSizeBinary(2), item_nullable);
    Field::new("l", DataType::List(Arc::new(item)), nullable)
}

fn list(lengths: &[usize], nulls: Option<Vec<bool>>, values: ArrayRef) -> ArrayRef {
    let item = Arc::new(Field::new("item", values.data_type().clone(), true));
    let offsets = OffsetBuffer::from_lengths(lengths.iter().copied());
    let nulls = nulls.map(NullBuffer::from);
    Arc::new(ListArray::try_new(item, offsets, values, nulls).unwrap())
}

#[test]
fn flat_leaf_levels_follow_validity() {
    let field = Field::new("f", DataType::FixedSizeBinary(2), true);
    let l = only_leaf(field.clone(), fsb(&[Some(1), None, Some(3)]));
    assert_eq!((l.def, l.rep), (mat(&[1, 0, 1]), LevelData::Absent));
    assert_eq!(l.non_null_indices, vec![0, 2]);
    let l = only_leaf(field.clone(), fsb(&[Some(1), Some(2)]));
    assert_eq!(l.def, uniform(1, 2));
    // Entirely null: one repeated level.
    let l = only_leaf(field, fsb(&[None, None]));
    assert_eq!((l.def, l.non_null_indices), (uniform(0, 2), vec![]));
    let required = Field::new("f", DataType::FixedSizeBinary(2), false);
    let l = only_leaf(required, fsb(&[Some(1), Some(2)]));
    assert_eq!(
        (l.def, l.rep, l.max_def),
        (LevelData::Absent, LevelData::Absent, 0)
    );
}

#[test]
fn list_levels() {
    // [[1, 2], null, [], [null]] with a null list over values [7]
    let values = fsb(&[Some(1), Some(2), Some(7), None]);
    let array = list(&[2, 1, 0, 1], Some(vec![true, false, true, true]), values);
    let l = only_leaf(list_field(true, true), array);
    assert_eq!(l.def, mat(&[3, 3, 0, 1, 2]));
    assert_eq!(l.rep, mat(&[0, 1, 0, 0, 0]));
    assert_eq!(l.non_null_indices, vec![0, 1]);
    assert_eq!((l.max_def, l.max_rep), (3, 1));
}

#[test]
fn only_null_and_empty_lists_keep_repeated_levels() {
    let array = list(&[0, 0, 0], Some(vec![false, false, false]), fsb(&[]));
    let l = only_leaf(list_field(true, true), array);
    assert_eq!((l.def, l.rep), (uniform(0, 3), uniform(0, 3)));
    let array = list(&[0, 0], None, fsb(&[]));
    let l = only_leaf(list_field(true, true), array);
    assert_eq!((l.def, l.rep), (uniform(1, 2), uniform(0, 2)));
    // One non-empty list turns repetition levels into a buffer.
    let array = list(&[1], None, fsb(&[Some(1)]));
    let l = only_leaf(list_field(false, false), array);
    assert_eq!((l.def, l.rep), (uniform(1, 1), mat(&[0])));
}

#[test]
fn nested_list_levels() {
    // [[[1], [2, 3]], [[]], null] as list<list<fsb>>
    let inner = list(&[1, 2, 0], None, fsb(&[Some(1), Some(2), Some(3)]));
    let outer = list(&[2, 1, 0], Some(vec![true, true, false]), inner);
    let inner_field = Field::new("item", list_field(true, true).data_type().clone(), true);
    let field = Field::new("o", DataType::List(Arc::new(inner_field)), true);
    let l = only_leaf(field, outer);
    assert_eq!(l.def, mat(&[5, 5, 5, 3, 0]));
    assert_eq!(l.rep, mat(&[0, 1, 2, 0, 0]));
    assert_eq!(l.non_null_indices, vec![0, 1, 2]);
}

#[test]
fn struct_and_fixed_size_list_levels() {
    // struct<a: fixed_size_list<fsb, 2>> with rows {[1, 2]}, null, {null}
    let values = fsb(&[Some(1), Some(2), Some(3), Some(4), None, None]);
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(2), true));
    let nulls = Some(NullBuffer::from(vec![true, true, false]));
    let fixed = FixedSizeListArray::try_new(item.clone(), 2, values, nulls).unwrap();
    let a = Field::new("a", DataType::FixedSizeList(item, 2), true);
    let fields = Fields::from(vec![a]);
    let nulls = Some(NullBuffer::from(vec![true, false, true]));
    let array = StructArray::try_new(fields.clone(), vec![Arc::new(fixed)], nulls).unwrap();
    let l = only_leaf(
        Field::new("s", DataType::Struct(fields), true),
        Arc::new(array),
    );
    assert_eq!(l.def, mat(&[4, 4, 0, 1]));
    assert_eq!(l.rep, mat(&[0, 1, 0, 0]));
    assert_eq!(l.non_null_indices, vec![0, 1]);
}

#[test]
fn null_in_required_field_is_reported_once() {
    let item = Field::new("item", DataType::FixedSizeBinary(2), false);
    let field = Field::new("l", DataType::List(Arc::new(item)), true);
    let values = fsb(&[Some(1), None, None]);
    let array = list(&[1, 1, 1], Some(vec![true, false, true]), values);
    let l = only_leaf(field, array);
    // Index 1 sits under a null list and is never reached.
    let message = "Found null at index 2 for required field 'item'";
    // parquet 59 does not check required fields (docs/releases.md D15).
    let want = crate::compat::REQUIRED_NULLS_REJECTED.then_some(message);
    assert_eq!(l.validation_error.as_deref(), want);
}

#[test]
fn untracked_leaves_are_none() {
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::FixedSizeBinary(2), true),
    ]);
    let columns: Vec<ArrayRef> = vec![Arc::new(Int32Array::from(vec![1])), fsb(&[Some(1)])];
    let array: ArrayRef = Arc::new(StructArray::try_new(fields.clone(), columns, None).unwrap());
    let field = Field::new("s", DataType::Struct(fields), false);
    let leaves = compute_levels(&field, &array, &|i| i == 1).unwrap();
    assert!(leaves[0].is_none());
    assert_eq!(leaves[1].as_ref().unwrap().def, uniform(1, 1));
}

#[test]
fn is_leaf_matches_the_list_of_leaf_types() {
    use super::is_leaf;
    let item = Arc::new(Field::new("item", DataType::Int32, true));
    for t in [
        DataType::Int8,
        DataType::Utf8View,
        DataType::Float16,
        DataType::Null,
    ] {
        assert!(is_leaf(&t), "{t}");
    }
    let dict = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8));
    let nested = [
        DataType::List(item.clone()),
        DataType::Struct(Fields::empty()),
        dict,
    ];
    for t in nested {
        assert!(!is_leaf(&t), "{t}");
    }
}

#[test]
fn random_nested_columns_write_as_parquet_writes_them() {
    use parquet::file::properties::WriterProperties;
    let mut rng = StdRng::seed_from_u64(0xf11e5);
    for case in 0..1500 {
        let rows = match rng.random_range(0..8) {
            0 => rng.random_range(100..700),
            _ => rng.random_range(1..40),
        };
        let props = WriterProperties::builder()
            .set_write_batch_size(rng.random_range(1..9))
            .set_data_page_row_count_limit(rng.random_range(1..30))
            .set_data_page_size_limit(rng.random_range(16..600))
            .set_dictionary_enabled(rng.random_bool(0.3))
            .build();
        let (field, array) = random::Generator::new(&mut rng, true).field(0, rows);
        random::check_file(case, field, array, props);
    }
}

#[test]
fn type_mismatches_and_unsupported_types_are_errors() {
    let item = Arc::new(Field::new("item", DataType::FixedSizeBinary(2), true));
    let array = list(&[1], None, fsb(&[Some(1)]));
    let as_struct = Field::new("s", DataType::Struct(Fields::empty()), true);
    let values = FixedSizeListArray::try_new(item.clone(), 1, fsb(&[None]), None).unwrap();
    let fields = Fields::from(vec![Field::new(
        "a",
        DataType::FixedSizeList(item, 1),
        true,
    )]);
    let columns: Vec<ArrayRef> = vec![Arc::new(values)];
    let structure: ArrayRef = Arc::new(StructArray::try_new(fields, columns, None).unwrap());
    let union_type = DataType::Union(arrow_schema::UnionFields::empty(), UnionMode::Dense);
    // arrow 59 cannot make an empty dense union of no fields.
    let union = match cfg!(feature = "parquet-60") {
        true => new_null_array(&union_type, 0),
        false => array.clone(),
    };
    let as_union = Field::new("u", union_type, true);
    let list = list_field(true, true);
    let mut cases = vec![
        (
            &as_struct,
            &array,
            "Incompatible type. Field 's' has type Struct(",
        ),
        (
            &list,
            &structure,
            "Incompatible type. Field 'l' has type List(",
        ),
        (
            &as_union,
            &union,
            "NYI: Datatype Union(Dense) is not yet supported",
        ),
    ];
    if !cfg!(feature = "parquet-60") {
        cases.pop();
    }
    for (field, array, message) in cases {
        let error = compute_levels(field, array, &|_| true)
            .unwrap_err()
            .to_string();
        assert!(error.contains(message), "{error}");
    }
}
