//! Random nested fields and arrays: every list layout, structs, maps,
//! dictionary and run-end-encoded wrappers, nullable or not at every level,
//! sliced buffers, empty and null lists, zero-size fixed-size lists.

use arrow_array::types::{Int8Type, Int32Type};
use arrow_array::*;
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer, i256};
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use rand::Rng;
use rand::rngs::StdRng;
use std::sync::Arc;

/// Builds random fields and arrays.
pub(crate) struct Generator<'r> {
    rng: &'r mut StdRng,
    names: usize,
    /// Arrays valid for their schema: nulls only in nullable fields, child
    /// fields as declared. Otherwise nulls anywhere, and the arrays' own
    /// child fields all nullable whatever the generated field says.
    strict: bool,
}

impl<'r> Generator<'r> {
    /// A generator drawing from `rng`.
    pub(crate) fn new(rng: &'r mut StdRng, strict: bool) -> Self {
        Self {
            rng,
            names: 0,
            strict,
        }
    }

    fn name(&mut self) -> String {
        self.names += 1;
        format!("f{}", self.names)
    }

    /// A validity bitmap of `len` slots in one of several layouts.
    fn nulls(&mut self, len: usize, nullable: bool) -> Option<NullBuffer> {
        if self.strict && !nullable {
            return None;
        }
        let rng = &mut *self.rng;
        let bits: Vec<bool> = match rng.random_range(0..8) {
            0 | 1 => return None,
            2 => vec![true; len],
            3 => vec![false; len],
            4 => {
                let run = rng.random_range(1..40);
                (0..len).map(|i| (i / run) % 2 == 0).collect()
            }
            _ => {
                let p = [0.1, 0.5, 0.9][rng.random_range(0..3)];
                (0..len).map(|_| rng.random_bool(p)).collect()
            }
        };
        Some(NullBuffer::from(bits))
    }

    /// A field and an array of `len` rows; sometimes a slice of a longer one.
    pub(crate) fn field(&mut self, depth: usize, len: usize) -> (Field, ArrayRef) {
        let pad = match self.rng.random_bool(0.2) {
            true => self.rng.random_range(1..70),
            false => 0,
        };
        let start = self.rng.random_range(0..=pad);
        let nullable = self.rng.random_bool(0.85);
        let (data_type, array) = self.any(depth, len + pad, nullable);
        let array = array.slice(start, len);
        let (data_type, array) = match len > 0 && self.rng.random_bool(0.07) {
            true => self.run_end_encode(data_type, array, nullable),
            false => (data_type, array),
        };
        let data_type = match self.strict {
            true => array.data_type().clone(),
            false => data_type,
        };
        (Field::new(self.name(), data_type, nullable), array)
    }

    fn any(&mut self, depth: usize, len: usize, nullable: bool) -> (DataType, ArrayRef) {
        let pick = match depth {
            0..4 => self.rng.random_range(0..11),
            _ => 0,
        };
        let nulls = self.nulls(len, nullable);
        match pick {
            0..=2 => self.leaf(len, nulls, nullable),
            3 => self.structure(depth, len, nulls),
            4 => self.list::<i32>(depth, len, nulls),
            5 => self.list::<i64>(depth, len, nulls),
            6 => self.fixed_list(depth, len, nulls),
            7 => self.view::<i32>(depth, len, nulls),
            8 => self.view::<i64>(depth, len, nulls),
            9 => self.map(depth, len, nulls),
            _ if self.strict => self.leaf(len, nulls, nullable),
            _ => self.dictionary_of_struct(depth, len, nulls),
        }
    }

    /// The field a child array is built with.
    fn inner(&self, name: &str, child: &Field, values: &ArrayRef) -> FieldRef {
        match self.strict {
            true => Arc::new(child.clone().with_name(name)),
            false => Arc::new(Field::new(name, values.data_type().clone(), true)),
        }
    }

    fn leaf(
        &mut self,
        len: usize,
        nulls: Option<NullBuffer>,
        nullable: bool,
    ) -> (DataType, ArrayRef) {
        match self.rng.random_range(0..6) {
            0 | 1 => {
                let bytes: Vec<u8> = (0..len * 4).map(|i| i as u8).collect();
                let array = FixedSizeBinaryArray::new(4, Buffer::from(bytes), nulls);
                (DataType::FixedSizeBinary(4), Arc::new(array))
            }
            2 => {
                let values = (0..len as i32).collect::<Vec<_>>();
                (
                    DataType::Int32,
                    Arc::new(Int32Array::new(values.into(), nulls)),
                )
            }
            3 => {
                let values: Vec<i128> = (0..len as i128).collect();
                let array = Decimal128Array::new(values.into(), nulls)
                    .with_precision_and_scale(38, 10)
                    .unwrap();
                (array.data_type().clone(), Arc::new(array))
            }
            4 => {
                let values = (0..len)
                    .map(|i| i256::from_i128(i as i128))
                    .collect::<Vec<_>>();
                let array = Decimal256Array::new(values.into(), nulls);
                (array.data_type().clone(), Arc::new(array))
            }
            _ => {
                let size = self.rng.random_range(1..5);
                let value_nulls = self.nulls(size, nullable);
                let bytes: Vec<u8> = (0..size * 4).map(|i| i as u8).collect();
                let values = FixedSizeBinaryArray::new(4, Buffer::from(bytes), value_nulls);
                let keys: Vec<i8> = (0..len)
                    .map(|_| self.rng.random_range(0..size as i8))
                    .collect();
                let keys = Int8Array::new(keys.into(), nulls);
                let array = DictionaryArray::<Int8Type>::try_new(keys, Arc::new(values)).unwrap();
                (array.data_type().clone(), Arc::new(array))
            }
        }
    }

    fn structure(
        &mut self,
        depth: usize,
        len: usize,
        nulls: Option<NullBuffer>,
    ) -> (DataType, ArrayRef) {
        let width = self.rng.random_range(1..4);
        let (fields, columns): (Vec<Field>, Vec<ArrayRef>) =
            (0..width).map(|_| self.field(depth + 1, len)).unzip();
        let inner: Fields = (fields.iter().zip(&columns))
            .map(|(f, c)| self.inner(f.name(), f, c))
            .collect();
        let array = StructArray::try_new(inner, columns, nulls).unwrap();
        (DataType::Struct(fields.into()), Arc::new(array))
    }

    /// List lengths: some empty, null lists sometimes non-empty.
    fn lengths(&mut self, len: usize, nulls: &Option<NullBuffer>) -> Vec<usize> {
        (0..len)
            .map(|i| {
                let null = nulls.as_ref().is_some_and(|n| n.is_null(i));
                match self.rng.random_range(0..6) {
                    0 => 0,
                    _ if null && self.rng.random_bool(0.5) => 0,
                    _ => self.rng.random_range(1..4),
                }
            })
            .collect()
    }

    fn list<O: OffsetSizeTrait>(
        &mut self,
        depth: usize,
        len: usize,
        nulls: Option<NullBuffer>,
    ) -> (DataType, ArrayRef) {
        let lengths = self.lengths(len, &nulls);
        let (child, values) = self.field(depth + 1, lengths.iter().sum());
        let item = self.inner("item", &child, &values);
        let offsets = OffsetBuffer::<O>::from_lengths(lengths);
        let array = GenericListArray::<O>::try_new(item, offsets, values, nulls).unwrap();
        let child: FieldRef = Arc::new(child);
        let data_type = match O::IS_LARGE {
            true => DataType::LargeList(child),
            false => DataType::List(child),
        };
        (data_type, Arc::new(array))
    }

    fn fixed_list(
        &mut self,
        depth: usize,
        len: usize,
        nulls: Option<NullBuffer>,
    ) -> (DataType, ArrayRef) {
        let size = self.rng.random_range(0..4);
        let (child, values) = self.field(depth + 1, len * size);
        let item = self.inner("item", &child, &values);
        let array = FixedSizeListArray::try_new_with_length(item, size as i32, values, nulls, len);
        let data_type = DataType::FixedSizeList(Arc::new(child), size as i32);
        (data_type, Arc::new(array.unwrap()))
    }

    fn view<O: OffsetSizeTrait>(
        &mut self,
        depth: usize,
        len: usize,
        nulls: Option<NullBuffer>,
    ) -> (DataType, ArrayRef) {
        let lengths = self.lengths(len, &nulls);
        let child_len = self.rng.random_range(3..12);
        let (child, values) = self.field(depth + 1, child_len);
        let (mut offsets, mut sizes) = (Vec::with_capacity(len), Vec::with_capacity(len));
        for size in lengths {
            let size = size.min(child_len);
            offsets.push(O::usize_as(self.rng.random_range(0..=child_len - size)));
            sizes.push(O::usize_as(size));
        }
        let item = self.inner("item", &child, &values);
        let (offsets, sizes) = (ScalarBuffer::from(offsets), ScalarBuffer::from(sizes));
        let array =
            GenericListViewArray::<O>::try_new(item, offsets, sizes, values, nulls).unwrap();
        let child: FieldRef = Arc::new(child);
        let data_type = match O::IS_LARGE {
            true => DataType::LargeListView(child),
            false => DataType::ListView(child),
        };
        (data_type, Arc::new(array))
    }

    fn map(&mut self, depth: usize, len: usize, nulls: Option<NullBuffer>) -> (DataType, ArrayRef) {
        let lengths = self.lengths(len, &nulls);
        let entries_len: usize = lengths.iter().sum();
        let keys = Arc::new(Int32Array::from_iter_values(0..entries_len as i32)) as ArrayRef;
        let (value_field, values) = self.field(depth + 1, entries_len);
        let key_field = Arc::new(Field::new("key", DataType::Int32, false));
        let value_inner = self.inner("value", &value_field, &values);
        let inner = Fields::from(vec![key_field.clone(), value_inner]);
        let entries = StructArray::try_new(inner.clone(), vec![keys, values], None).unwrap();
        let item = Arc::new(Field::new("entries", DataType::Struct(inner), false));
        let offsets = OffsetBuffer::<i32>::from_lengths(lengths);
        let array = MapArray::try_new(item, offsets, entries, nulls, false).unwrap();
        let fields = Fields::from(vec![key_field, Arc::new(value_field.with_name("value"))]);
        let entries_field = Field::new("entries", DataType::Struct(fields), false);
        (
            DataType::Map(Arc::new(entries_field), false),
            Arc::new(array),
        )
    }

    fn dictionary_of_struct(
        &mut self,
        depth: usize,
        len: usize,
        key_nulls: Option<NullBuffer>,
    ) -> (DataType, ArrayRef) {
        let size = self.rng.random_range(1..5);
        let value_nulls = self.nulls(size, true);
        let (value_type, values) = self.structure(depth, size, value_nulls);
        let keys: Vec<i8> = (0..len)
            .map(|_| self.rng.random_range(0..size as i8))
            .collect();
        let keys = Int8Array::new(keys.into(), key_nulls);
        let array = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
        let data_type = DataType::Dictionary(Box::new(DataType::Int8), Box::new(value_type));
        (data_type, Arc::new(array))
    }

    /// `array` as runs of 1 to 3 equal rows (taken from its first row).
    fn run_end_encode(
        &mut self,
        data_type: DataType,
        array: ArrayRef,
        nullable: bool,
    ) -> (DataType, ArrayRef) {
        let (mut ends, mut starts) = (Vec::new(), Vec::new());
        let mut at = 0;
        while at < array.len() {
            starts.push(at as i32);
            at = (at + self.rng.random_range(1..4)).min(array.len());
            ends.push(at as i32);
        }
        let count = starts.len();
        let values = arrow_select::take::take(&array, &Int32Array::from(starts), None).unwrap();
        if values.len() != count {
            // arrow 59's `take` loses the length of a struct without
            // fields: keep such an array as it is.
            return (data_type, array);
        }
        let runs = RunArray::<Int32Type>::try_new(&Int32Array::from(ends), &values).unwrap();
        let ends_field = Arc::new(Field::new("run_ends", DataType::Int32, false));
        let values_field = Arc::new(Field::new("values", data_type, nullable));
        let data_type = DataType::RunEndEncoded(ends_field, values_field);
        (data_type, Arc::new(runs))
    }
}

/// Writes one column with this crate's and with `parquet`'s `ArrowWriter`,
/// with tiny batches and pages so that where mini-batches and pages are cut
/// (which depends on the levels' representation) shows in the bytes.
pub(crate) fn check_file(case: usize, field: Field, array: ArrayRef, props: WriterProperties) {
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    let ours = (|| {
        let mut w = crate::ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))?;
        w.write(&batch)?;
        w.into_inner()
    })();
    let theirs = (|| {
        let mut w = ArrowWriter::try_new(Vec::new(), schema.clone(), Some(props.clone()))?;
        w.write(&batch)?;
        w.into_inner()
    })();
    match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => assert!(ours == theirs, "case {case}: files differ"),
        (Err(ours), Err(theirs)) => assert_eq!(ours.to_string(), theirs.to_string(), "case {case}"),
        (ours, theirs) => panic!("case {case}: {:?} vs {:?}", ours.err(), theirs.err()),
    }
}
