//! What differs between the parquet releases, for the fuzz harness and the
//! tests (compiled into both with `#[path]`): settings only parquet 60 has
//! and the page-index accessors, whose API differs. With the `parquet-59`
//! feature a 60-only setting is left unset — parquet 59 has no such setting
//! and behaves as that setting's default — so a differential test that sets
//! it still compares the two writers, on 59's behaviour. `docs/releases.md`
//! lists the differences (D7, D8, D11, D12 here).

#![allow(dead_code)]

use parquet::file::metadata::ParquetMetaData;
use parquet::file::page_index::column_index::{ByteArrayColumnIndex, ColumnIndexMetaData};
use parquet::file::page_index::offset_index::OffsetIndexMetaData;
use parquet::file::properties::{WriterProperties, WriterPropertiesBuilder};
use parquet::schema::types::ColumnPath;

/// True when built against parquet 60 (the default feature).
pub const PARQUET_60: bool = cfg!(feature = "parquet-60");

/// True when built against parquet 58 (feature `parquet-58`).
pub const PARQUET_58: bool = cfg!(feature = "parquet-58");

/// Whether the selected release has page stores (`PageStoreFactory` and
/// `with_page_store_factory`, parquet 59 and later).
pub const PAGE_STORES: bool = !PARQUET_58;

/// A page store factory for either writer's options (parquet 59 and later).
#[cfg(not(feature = "parquet-58"))]
pub type PageStores = std::sync::Arc<dyn parquet::arrow::arrow_writer::PageStoreFactory>;

/// parquet 58 has no page stores: a type without values, so an
/// `Option<PageStores>` is always `None`.
#[cfg(feature = "parquet-58")]
#[derive(Debug, Clone)]
pub enum PageStores {}

/// `with_page_store_factory` on either writer's `ArrowWriterOptions`.
pub trait WithPageStores: Sized {
    /// The options with `stores` (if given) as their page store factory.
    fn with_page_stores(self, stores: Option<PageStores>) -> Self;
}

macro_rules! with_page_stores {
    ($($options:ty),*) => {$(
        impl WithPageStores for $options {
            #[cfg(not(feature = "parquet-58"))]
            fn with_page_stores(self, stores: Option<PageStores>) -> Self {
                match stores {
                    Some(stores) => self.with_page_store_factory(stores),
                    None => self,
                }
            }
            #[cfg(feature = "parquet-58")]
            fn with_page_stores(self, stores: Option<PageStores>) -> Self {
                match stores {
                    Some(never) => match never {},
                    None => self,
                }
            }
        }
    )*};
}
with_page_stores!(
    parquet::arrow::arrow_writer::ArrowWriterOptions,
    parquet_flba::ArrowWriterOptions
);

/// Builder settings that only parquet 60 has; no-ops under parquet 59.
pub trait Props60: Sized {
    /// `set_write_row_group_number_distinct_values` (D8).
    fn distinct_values(self, on: bool) -> Self;
    /// `set_bloom_filter_for_dictionary_encoded_chunks` (D7).
    fn bloom_for_dictionary_chunks(self, on: bool) -> Self;
    /// `set_column_data_page_row_count_limit` (D11).
    fn column_page_row_limit(self, path: ColumnPath, limit: usize) -> Self;
    /// `set_delta_binary_packed_encoder_options` with `(block, miniblocks)`,
    /// if valid (D12).
    fn delta_layout(self, layout: (usize, usize)) -> Self;
    /// `set_column_delta_binary_packed_encoder_options` (D12).
    fn column_delta_layout(self, path: ColumnPath, layout: (usize, usize)) -> Self;
}

#[cfg(feature = "parquet-60")]
impl Props60 for WriterPropertiesBuilder {
    fn distinct_values(self, on: bool) -> Self {
        self.set_write_row_group_number_distinct_values(on)
    }
    fn bloom_for_dictionary_chunks(self, on: bool) -> Self {
        self.set_bloom_filter_for_dictionary_encoded_chunks(on)
    }
    fn column_page_row_limit(self, path: ColumnPath, limit: usize) -> Self {
        self.set_column_data_page_row_count_limit(path, limit)
    }
    fn delta_layout(self, (block, minis): (usize, usize)) -> Self {
        use parquet::file::properties::DeltaBinaryPackedEncoderOptions as O;
        match O::try_new(block, minis) {
            Ok(o) => self.set_delta_binary_packed_encoder_options(o),
            Err(_) => self,
        }
    }
    fn column_delta_layout(self, path: ColumnPath, (block, minis): (usize, usize)) -> Self {
        use parquet::file::properties::DeltaBinaryPackedEncoderOptions as O;
        match O::try_new(block, minis) {
            Ok(o) => self.set_column_delta_binary_packed_encoder_options(path, o),
            Err(_) => self,
        }
    }
}

#[cfg(not(feature = "parquet-60"))]
impl Props60 for WriterPropertiesBuilder {
    fn distinct_values(self, _on: bool) -> Self {
        self
    }
    fn bloom_for_dictionary_chunks(self, _on: bool) -> Self {
        self
    }
    fn column_page_row_limit(self, _path: ColumnPath, _limit: usize) -> Self {
        self
    }
    fn delta_layout(self, _layout: (usize, usize)) -> Self {
        self
    }
    fn column_delta_layout(self, _path: ColumnPath, _layout: (usize, usize)) -> Self {
        self
    }
}

/// Whether chunk statistics carry distinct counts (never under 59).
#[cfg(feature = "parquet-60")]
pub fn writes_distinct_values(props: &WriterProperties) -> bool {
    props.write_row_group_number_distinct_values()
}
/// Whether chunk statistics carry distinct counts (never under 59).
#[cfg(not(feature = "parquet-60"))]
pub fn writes_distinct_values(_props: &WriterProperties) -> bool {
    false
}

/// Whether a chunk of only dictionary pages keeps its bloom filter (always
/// under 59).
#[cfg(feature = "parquet-60")]
pub fn bloom_for_dictionary_chunks(props: &WriterProperties) -> bool {
    props.bloom_filter_for_dictionary_encoded_chunks()
}
/// Whether a chunk of only dictionary pages keeps its bloom filter (always
/// under 59).
#[cfg(not(feature = "parquet-60"))]
pub fn bloom_for_dictionary_chunks(_props: &WriterProperties) -> bool {
    true
}

/// The column index of `(row_group, column)`, if the file has one for it.
#[cfg(feature = "parquet-60")]
pub fn column_index(md: &ParquetMetaData, rg: usize, col: usize) -> Option<ColumnIndexMetaData> {
    md.page_index()?.column_index(rg, col).cloned()
}
/// The column index of `(row_group, column)`, if the file has one for it.
#[cfg(not(feature = "parquet-60"))]
pub fn column_index(md: &ParquetMetaData, rg: usize, col: usize) -> Option<ColumnIndexMetaData> {
    md.column_index()?
        .get(rg)?
        .get(col)
        .filter(|c| !matches!(c, ColumnIndexMetaData::NONE))
        .cloned()
}

/// The offset index of `(row_group, column)`, if the file has one for it.
#[cfg(feature = "parquet-60")]
pub fn offset_index(md: &ParquetMetaData, rg: usize, col: usize) -> Option<OffsetIndexMetaData> {
    md.page_index()?.offset_index(rg, col).cloned()
}
/// The offset index of `(row_group, column)`, if the file has one for it.
#[cfg(not(feature = "parquet-60"))]
pub fn offset_index(md: &ParquetMetaData, rg: usize, col: usize) -> Option<OffsetIndexMetaData> {
    md.offset_index()?.get(rg)?.get(col).cloned()
}

/// The NaN count of page `k` in a column index (none under 59, D4).
#[cfg(feature = "parquet-60")]
pub fn index_nan_count(ix: &ByteArrayColumnIndex, k: usize) -> Option<i64> {
    ix.nan_count(k)
}
/// The NaN count of page `k` in a column index (none under 59, D4).
#[cfg(not(feature = "parquet-60"))]
pub fn index_nan_count(_ix: &ByteArrayColumnIndex, _k: usize) -> Option<i64> {
    None
}

/// Whether a file of `schema` written by the selected release reads back as
/// written. parquet 59.2 writes `Dictionary(_, FixedSizeBinary)` columns
/// with its byte-array writer, which puts a 4-byte length in front of every
/// FIXED_LEN_BYTE_ARRAY value (docs/releases.md D13), and makes a
/// non-nullable run-end-encoded field with nullable values a REQUIRED column
/// that its reader then refuses for the Arrow schema (D16): such files do
/// not read back (nor do this crate's, which are the same bytes).
pub fn round_trips(schema: &arrow_schema::Schema) -> bool {
    PARQUET_60
        || !schema
            .fields()
            .iter()
            .any(|f| unreadable_59(f.is_nullable(), f.data_type()))
}

fn unreadable_59(nullable: bool, data_type: &arrow_schema::DataType) -> bool {
    use arrow_schema::DataType;
    match data_type {
        DataType::Dictionary(_, v) => {
            matches!(v.as_ref(), DataType::FixedSizeBinary(_)) || unreadable_59(nullable, v)
        }
        DataType::RunEndEncoded(_, v) => {
            (!nullable && v.is_nullable()) || unreadable_59(nullable, v.data_type())
        }
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => unreadable_59(f.is_nullable(), f.data_type()),
        DataType::Struct(fields) => fields
            .iter()
            .any(|f| unreadable_59(f.is_nullable(), f.data_type())),
        _ => false,
    }
}

/// Whether `batches`, written by the selected release, read back as they
/// are: [`round_trips`] for the schema, and under parquet 59 no logical
/// null in a non-nullable field (59 writes the slot's stored bytes, D15).
pub fn data_reads_back(
    schema: &arrow_schema::Schema,
    batches: &[arrow_array::RecordBatch],
) -> bool {
    if PARQUET_60 {
        return true;
    }
    round_trips(schema)
        && batches.iter().all(|b| {
            schema
                .fields()
                .iter()
                .zip(b.columns())
                .all(|(f, a)| !required_nulls(f, a.as_ref()))
        })
}

/// Whether a non-nullable field at or below `field` holds a logical null
/// (conservatively: anywhere in its child arrays).
fn required_nulls(field: &arrow_schema::Field, array: &dyn arrow_array::Array) -> bool {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    if !field.is_nullable() && array.logical_null_count() > 0 {
        return true;
    }
    match (field.data_type(), array.data_type()) {
        (DataType::Struct(fields), DataType::Struct(_)) => fields
            .iter()
            .zip(array.as_struct().columns())
            .any(|(f, a)| required_nulls(f, a.as_ref())),
        (DataType::List(f), DataType::List(_)) => {
            required_nulls(f, array.as_list::<i32>().values().as_ref())
        }
        (DataType::LargeList(f), DataType::LargeList(_)) => {
            required_nulls(f, array.as_list::<i64>().values().as_ref())
        }
        (DataType::FixedSizeList(f, _), DataType::FixedSizeList(_, _)) => {
            required_nulls(f, array.as_fixed_size_list().values().as_ref())
        }
        (DataType::Map(f, _), DataType::Map(_, _)) => required_nulls(f, array.as_map().entries()),
        (_, DataType::Dictionary(_, _)) => {
            let values = array.as_any_dictionary().values();
            values.logical_null_count() > 0 && !field.is_nullable()
        }
        _ => false,
    }
}

/// Builder settings that parquet 58 names otherwise or lacks, under one
/// name for every release: `set_bloom_filter_max_ndv` is 58's
/// `set_bloom_filter_ndv`; `set_write_path_in_schema` (59 and later) is a
/// no-op under 58, which always writes the path (59's default);
/// `BloomFilterProperties::builder` (59 and later) becomes 58's FPP and NDV
/// setters.
pub trait Props59: Sized {
    /// `set_bloom_filter_max_ndv`.
    fn bloom_max_ndv(self, ndv: u64) -> Self;
    /// `set_column_bloom_filter_max_ndv`.
    fn column_bloom_max_ndv(self, path: ColumnPath, ndv: u64) -> Self;
    /// `set_write_path_in_schema`.
    fn path_in_schema(self, on: bool) -> Self;
    /// `set_bloom_filter_properties` with this FPP and NDV (if given).
    fn bloom_properties(self, fpp: f64, ndv: Option<u64>) -> Self;
    /// `set_column_bloom_filter_properties` with this FPP and NDV (if given).
    fn column_bloom_properties(self, path: ColumnPath, fpp: f64, ndv: Option<u64>) -> Self;
}

#[cfg(not(feature = "parquet-58"))]
impl Props59 for WriterPropertiesBuilder {
    fn bloom_max_ndv(self, ndv: u64) -> Self {
        self.set_bloom_filter_max_ndv(ndv)
    }
    fn column_bloom_max_ndv(self, path: ColumnPath, ndv: u64) -> Self {
        self.set_column_bloom_filter_max_ndv(path, ndv)
    }
    fn path_in_schema(self, on: bool) -> Self {
        self.set_write_path_in_schema(on)
    }
    fn bloom_properties(self, fpp: f64, ndv: Option<u64>) -> Self {
        self.set_bloom_filter_properties(bloom_filter_properties(fpp, ndv))
    }
    fn column_bloom_properties(self, path: ColumnPath, fpp: f64, ndv: Option<u64>) -> Self {
        self.set_column_bloom_filter_properties(path, bloom_filter_properties(fpp, ndv))
    }
}

#[cfg(not(feature = "parquet-58"))]
fn bloom_filter_properties(
    fpp: f64,
    ndv: Option<u64>,
) -> parquet::file::properties::BloomFilterProperties {
    let b = parquet::file::properties::BloomFilterProperties::builder().with_fpp(fpp);
    match ndv {
        Some(ndv) => b.with_max_ndv(ndv),
        None => b,
    }
    .build()
}

#[cfg(feature = "parquet-58")]
impl Props59 for WriterPropertiesBuilder {
    fn bloom_max_ndv(self, ndv: u64) -> Self {
        self.set_bloom_filter_ndv(ndv)
    }
    fn column_bloom_max_ndv(self, path: ColumnPath, ndv: u64) -> Self {
        self.set_column_bloom_filter_ndv(path, ndv)
    }
    fn path_in_schema(self, _on: bool) -> Self {
        self
    }
    fn bloom_properties(self, fpp: f64, ndv: Option<u64>) -> Self {
        let b = self.set_bloom_filter_fpp(fpp);
        match ndv {
            Some(ndv) => b.set_bloom_filter_ndv(ndv),
            None => b,
        }
    }
    fn column_bloom_properties(self, path: ColumnPath, fpp: f64, ndv: Option<u64>) -> Self {
        let b = self.set_column_bloom_filter_fpp(path.clone(), fpp);
        match ndv {
            Some(ndv) => b.set_column_bloom_filter_ndv(path, ndv),
            None => b,
        }
    }
}

/// `FixedSizeBinaryArray::try_new_with_len` (arrow 59 and later; the
/// length matters for width 0), through `ArrayData` under arrow 58.
pub fn fixed_size_binary(
    width: i32,
    values: arrow_buffer::Buffer,
    nulls: Option<arrow_buffer::NullBuffer>,
    len: usize,
) -> Result<arrow_array::FixedSizeBinaryArray, arrow_schema::ArrowError> {
    #[cfg(not(feature = "parquet-58"))]
    return arrow_array::FixedSizeBinaryArray::try_new_with_len(width, values, nulls, len);
    #[cfg(feature = "parquet-58")]
    {
        let data = arrow_data::ArrayData::builder(arrow_schema::DataType::FixedSizeBinary(width))
            .len(len)
            .add_buffer(values)
            .nulls(nulls)
            .build()?;
        Ok(arrow_array::FixedSizeBinaryArray::from(data))
    }
}

/// `MutableArrayData::try_extend` (arrow 59 and later; `extend` under 58).
pub fn extend_from(
    data: &mut arrow_data::transform::MutableArrayData<'_>,
    index: usize,
    start: usize,
    end: usize,
) {
    #[cfg(not(feature = "parquet-58"))]
    data.try_extend(index, start, end).expect("extend");
    #[cfg(feature = "parquet-58")]
    data.extend(index, start, end);
}
