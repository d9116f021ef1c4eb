//! pyarrow's writer keywords, normalised by `parquet_flba/_options.py`,
//! turned into parquet's `WriterProperties`.
//!
//! The Python side checks each keyword's type and spelling and merges the
//! ones that share a property (`compression` with `compression_level`,
//! `column_encoding` with `use_byte_stream_split`); this side resolves the
//! column names against the file's schema and refuses what the schema makes
//! impossible to honour.

use crate::columns::Columns;
use crate::errors::{Failure, Result};
use crate::schema::SchemaRules;
use crate::versions::parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use crate::versions::parquet::file::metadata::SortingColumn;
use crate::versions::parquet::file::properties::{
    BloomFilterProperties, CdcOptions, EnabledStatistics, WriterProperties,
    WriterPropertiesBuilder, WriterVersion,
};
use crate::versions::{DataType, Schema, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;

/// A keyword that applies to every column, or per column: the default and
/// the columns given by name.
type PerColumn<T> = (T, HashMap<String, T>);

/// Everything the writer is built with.
pub struct Settings {
    /// parquet's properties.
    pub properties: WriterProperties,
    /// `store_schema`: the `ARROW:schema` footer entry.
    pub store_schema: bool,
    /// How the schema is adjusted.
    pub rules: SchemaRules,
}

/// The keywords, as `_options.py` hands them over.
struct Keywords {
    compression: PerColumn<(String, Option<i64>)>,
    use_dictionary: PerColumn<bool>,
    write_statistics: PerColumn<bool>,
    encoding: PerColumn<Option<String>>,
    bloom_filter: HashMap<String, (u64, f64)>,
    data_page_size: Option<usize>,
    max_rows_per_page: Option<usize>,
    write_batch_size: Option<usize>,
    dictionary_pagesize_limit: Option<usize>,
    data_page_version: String,
    version: String,
    write_page_index: bool,
    cdc: Option<(usize, usize, i32)>,
    store_schema: bool,
    sorting_columns: Vec<(i32, bool, bool)>,
    compliant_nested: bool,
    time_utc: bool,
    decimal_as_integer: Option<bool>,
}

fn get<'py, T>(dict: &Bound<'py, PyDict>, key: &str) -> Result<T>
where
    T: for<'a> FromPyObject<'a, 'py>,
{
    let value = dict
        .get_item(key)?
        .ok_or_else(|| Failure::Value(format!("internal: option {key:?} missing")))?;
    value
        .extract::<T>()
        .map_err(|e| Failure::Type(format!("{key}: {}", Into::<PyErr>::into(e))))
}

impl Keywords {
    fn from_dict(d: &Bound<'_, PyDict>) -> Result<Keywords> {
        Ok(Keywords {
            compression: get(d, "compression")?,
            use_dictionary: get(d, "use_dictionary")?,
            write_statistics: get(d, "write_statistics")?,
            encoding: get(d, "encoding")?,
            bloom_filter: get(d, "bloom_filter")?,
            data_page_size: get(d, "data_page_size")?,
            max_rows_per_page: get(d, "max_rows_per_page")?,
            write_batch_size: get(d, "write_batch_size")?,
            dictionary_pagesize_limit: get(d, "dictionary_pagesize_limit")?,
            data_page_version: get(d, "data_page_version")?,
            version: get(d, "version")?,
            write_page_index: get(d, "write_page_index")?,
            cdc: get(d, "cdc")?,
            store_schema: get(d, "store_schema")?,
            sorting_columns: get(d, "sorting_columns")?,
            compliant_nested: get(d, "compliant_nested")?,
            time_utc: get(d, "time_utc")?,
            decimal_as_integer: get(d, "decimal_as_integer")?,
        })
    }
}

/// The settings for a file of `schema` (the input's, before
/// [`SchemaRules::target`]).
pub fn settings(options: &Bound<'_, PyDict>, schema: &Schema) -> Result<Settings> {
    let k = Keywords::from_dict(options)?;
    let rules = SchemaRules {
        compliant_nested: k.compliant_nested,
        time_utc: k.time_utc,
    };
    check_schema(&k, schema)?;
    let target = rules.target(schema);
    let columns = Columns::of(&target)?;
    let properties = properties(&k, &columns)?;
    Ok(Settings {
        properties,
        store_schema: k.store_schema,
        rules,
    })
}

/// Refuses `version` and `store_decimal_as_integer` values that the schema
/// makes impossible: parquet writes format 2.6's logical types, and
/// decimals of precision up to 18 as integers.
fn check_schema(k: &Keywords, schema: &Schema) -> Result<()> {
    let mut types = Vec::new();
    for field in schema.fields() {
        collect_types(field.data_type(), &mut types);
    }
    let newer = |t: &DataType| {
        matches!(
            t,
            DataType::Timestamp(TimeUnit::Nanosecond, _) | DataType::Time64(TimeUnit::Nanosecond)
        ) || (k.version == "1.0" && matches!(t, DataType::UInt32))
    };
    let changed = types.iter().copied().find(|t| newer(t));
    if let (true, Some(t)) = (k.version != "2.6", changed) {
        return Err(Failure::Value(format!(
            "version={:?}: parquet_flba writes format 2.6's logical types, and a column of \
             type {t} would be written differently under version {}; use version=\"2.6\" \
             or cast the column",
            k.version, k.version
        )));
    }
    if k.decimal_as_integer == Some(false) {
        let small = types.iter().find(|t| match t {
            DataType::Decimal32(p, _)
            | DataType::Decimal64(p, _)
            | DataType::Decimal128(p, _)
            | DataType::Decimal256(p, _) => *p <= 18,
            _ => false,
        });
        if let Some(t) = small {
            return Err(Failure::Value(format!(
                "store_decimal_as_integer=False: parquet (and so parquet_flba) stores a decimal \
                 of precision up to 18 as INT32/INT64, and cannot write {t} as \
                 FIXED_LEN_BYTE_ARRAY; leave store_decimal_as_integer unset or True"
            )));
        }
    }
    Ok(())
}

fn collect_types<'a>(data_type: &'a DataType, out: &mut Vec<&'a DataType>) {
    out.push(data_type);
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f)
        | DataType::Map(f, _) => collect_types(f.data_type(), out),
        DataType::Struct(fields) => fields
            .iter()
            .for_each(|f| collect_types(f.data_type(), out)),
        DataType::Dictionary(_, v) => collect_types(v, out),
        DataType::RunEndEncoded(_, v) => collect_types(v.data_type(), out),
        _ => {}
    }
}

fn properties(k: &Keywords, columns: &Columns) -> Result<WriterProperties> {
    let mut b = WriterProperties::builder()
        .set_writer_version(match k.data_page_version.as_str() {
            "2.0" => WriterVersion::PARQUET_2_0,
            _ => WriterVersion::PARQUET_1_0,
        })
        .set_offset_index_disabled(!k.write_page_index);
    // Compression.
    b = b.set_compression(codec(&k.compression.0).map_err(|e| e.context("compression"))?);
    for (name, setting) in &k.compression.1 {
        let c = codec(setting).map_err(|e| e.context("compression"))?;
        for path in columns.resolve("compression", name)? {
            b = b.set_column_compression(path, c);
        }
    }
    // Dictionary.
    b = b.set_dictionary_enabled(k.use_dictionary.0);
    for (name, &on) in &k.use_dictionary.1 {
        for path in columns.resolve("use_dictionary", name)? {
            b = b.set_column_dictionary_enabled(path, on);
        }
    }
    // Statistics: in the page index with write_page_index, else in the
    // column chunks only.
    let level = |on: bool| match (on, k.write_page_index) {
        (false, _) => EnabledStatistics::None,
        (true, true) => EnabledStatistics::Page,
        (true, false) => EnabledStatistics::Chunk,
    };
    b = b.set_statistics_enabled(level(k.write_statistics.0));
    for (name, &on) in &k.write_statistics.1 {
        for path in columns.resolve("write_statistics", name)? {
            b = b.set_column_statistics_enabled(path, level(on));
        }
    }
    // Encodings.
    if let Some(e) = &k.encoding.0 {
        b = b.set_encoding(encoding(e)?);
    }
    for (name, e) in &k.encoding.1 {
        if let Some(e) = e {
            let e = encoding(e)?;
            for path in columns.resolve("column_encoding", name)? {
                b = b.set_column_encoding(path, e);
            }
        }
    }
    b = bloom_filters(b, k, columns)?;
    b = sizes(b, k, columns)?;
    Ok(b.build())
}

fn bloom_filters(
    mut b: WriterPropertiesBuilder,
    k: &Keywords,
    columns: &Columns,
) -> Result<WriterPropertiesBuilder> {
    for (name, &(ndv, fpp)) in &k.bloom_filter {
        let props: BloomFilterProperties = BloomFilterProperties::builder()
            .with_max_ndv(ndv)
            .with_fpp(fpp)
            .try_build()
            .map_err(|e| Failure::from(e).context("bloom_filter_options"))?;
        for path in columns.resolve("bloom_filter_options", name)? {
            b = b.set_column_bloom_filter_properties(path, props.clone());
        }
    }
    Ok(b)
}

fn sizes(
    mut b: WriterPropertiesBuilder,
    k: &Keywords,
    columns: &Columns,
) -> Result<WriterPropertiesBuilder> {
    if let Some(v) = k.data_page_size {
        b = b.set_data_page_size_limit(v);
    }
    if let Some(v) = k.max_rows_per_page {
        b = b.set_data_page_row_count_limit(v);
    }
    if let Some(v) = k.write_batch_size {
        b = b.set_write_batch_size(v);
    }
    if let Some(v) = k.dictionary_pagesize_limit {
        b = b.set_dictionary_page_size_limit(v);
    }
    if let Some((min_chunk_size, max_chunk_size, norm_level)) = k.cdc {
        b = b.set_content_defined_chunking(Some(CdcOptions {
            min_chunk_size,
            max_chunk_size,
            norm_level,
        }));
    }
    if !k.sorting_columns.is_empty() {
        let leaves = columns.all().len();
        let mut sorting = Vec::new();
        for &(column_idx, descending, nulls_first) in &k.sorting_columns {
            if column_idx < 0 || column_idx as usize >= leaves {
                return Err(Failure::Value(format!(
                    "sorting_columns: column index {column_idx} is not one of the file's {leaves} \
                     leaf columns"
                )));
            }
            sorting.push(SortingColumn {
                column_idx,
                descending,
                nulls_first,
            });
        }
        b = b.set_sorting_columns(Some(sorting));
    }
    Ok(b)
}

/// A codec name and level, pyarrow's way: `lz4` is LZ4_RAW, and a codec
/// without a level takes Arrow C++'s default level (gzip 9, brotli 8,
/// zstd 1).
fn codec((name, level): &(String, Option<i64>)) -> Result<Compression> {
    let unsigned = |default: u32| -> Result<u32> {
        match level {
            None => Ok(default),
            Some(l) => u32::try_from(*l)
                .map_err(|_| Failure::Value(format!("{name}: bad compression level {l}"))),
        }
    };
    let no_level = |c: Compression| match level {
        None => Ok(c),
        Some(l) => Err(Failure::Value(format!(
            "codec {name:?} takes no compression level (got {l})"
        ))),
    };
    Ok(match name.as_str() {
        "none" | "uncompressed" => no_level(Compression::UNCOMPRESSED)?,
        "snappy" => no_level(Compression::SNAPPY)?,
        "lz4" | "lz4_raw" => no_level(Compression::LZ4_RAW)?,
        "gzip" => Compression::GZIP(GzipLevel::try_new(unsigned(9)?)?),
        "brotli" => Compression::BROTLI(BrotliLevel::try_new(unsigned(8)?)?),
        "zstd" => {
            let l = level.unwrap_or(1);
            let l = i32::try_from(l)
                .map_err(|_| Failure::Value(format!("zstd: bad compression level {l}")))?;
            Compression::ZSTD(ZstdLevel::try_new(l)?)
        }
        other => return Err(Failure::Value(format!("unknown codec {other:?}"))),
    })
}

fn encoding(name: &str) -> Result<Encoding> {
    Ok(match name {
        "PLAIN" => Encoding::PLAIN,
        "BYTE_STREAM_SPLIT" => Encoding::BYTE_STREAM_SPLIT,
        "DELTA_BINARY_PACKED" => Encoding::DELTA_BINARY_PACKED,
        "DELTA_LENGTH_BYTE_ARRAY" => Encoding::DELTA_LENGTH_BYTE_ARRAY,
        "DELTA_BYTE_ARRAY" => Encoding::DELTA_BYTE_ARRAY,
        "RLE" => Encoding::RLE,
        other => {
            return Err(Failure::Value(format!(
                "column_encoding: unsupported encoding {other:?}"
            )));
        }
    })
}
