//! Reading a file back and checking it against the data written: the
//! arrays, and every statistic recomputed naively from the input.
//!
//! Checked per row group and FLBA leaf (flat leaves: top-level, struct
//! child, dictionary-typed; list leaves get the chunk min/max and bloom
//! checks only):
//!
//! * chunk statistics: null count, min/max in the column's sort order
//!   (unsigned bytes for FixedSizeBinary, signed big-endian for decimals,
//!   IEEE 754 total order for Float16 with NaNs ignored unless all values
//!   are NaN, none for intervals), truncation to
//!   `statistics_truncate_length` for FixedSizeBinary with the exactness
//!   flags, and the distinct count when enabled;
//! * per page (page boundaries from the page headers): column index entries
//!   (null pages, null counts, min/max truncated to
//!   `column_index_truncate_length`, NaN counts) and page header
//!   statistics;
//! * the bloom filter holds every non-null value.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bytes::Bytes;
use parquet::basic::Encoding;
use parquet::column::page::Page;
use parquet::file::page_index::column_index::ColumnIndexMetaData;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::statistics::Statistics;

use super::generate::{Col, Flba, Kind, f16_is_nan};
use super::input::ByteReader;
use super::readback::{compare_columns, materialize, open_with_indexes, read_all};
use super::scenario::Scenario;
use super::writers::{flba, up};
use super::{Outcome, loud_catch};

/// Decode a scenario, write it with `parquet_flba`, read it back and check
/// it.
///
/// # Panics
///
/// When the file does not hold what was written, or a statistic, index or
/// bloom filter disagrees with the data. The message says whether
/// parquet's own file for the same scenario passes the same check (if it
/// does not, the expectation or parquet is at fault, not `parquet_flba`).
pub fn run(data: &[u8]) -> Outcome {
    let mut r = ByteReader::new(data);
    let sc = Scenario::decode(&mut r, true);
    if !super::release::round_trips(&sc.schema) {
        // The selected release's own files of this schema do not read back.
        return Outcome::Reject;
    }
    let upstream = || match loud_catch(|| up::write(&sc.schema, &sc.batches, &sc.opts, &sc.api)) {
        Ok(written) => written,
        // Where parquet panics on valid input, parquet_flba returns an
        // error (`catch::KNOWN_UPSTREAM_PANICS`).
        Err(p) if super::catch::is_known_upstream_panic(&p) => Err(super::writers::Failed {
            at: "parquet panicked".into(),
            error: p,
        }),
        Err(p) => panic!(
            "HARNESS: parquet's own writer panicked ({p}); the harness must avoid this \
             configuration\n{}",
            sc.describe()
        ),
    };
    let written = loud_catch(|| flba::write(&sc.schema, &sc.batches, &sc.opts, &sc.api))
        .unwrap_or_else(|p| panic!("BUG: parquet_flba panicked: {p}\n{}", sc.describe()));
    let written = match written {
        Ok(w) => w,
        Err(e) => match upstream() {
            Err(_) => return Outcome::Reject,
            Ok(_) => panic!(
                "BUG: parquet_flba failed where parquet succeeded: {e}\n{}",
                sc.describe()
            ),
        },
    };
    if let Err(e) = check_file(&sc, &written.bytes) {
        let verdict = match upstream() {
            Ok(u) => match check_file(&sc, &u.bytes) {
                Ok(()) => "BUG: parquet's own file passes this check".to_string(),
                Err(ue) => {
                    format!("HARNESS OR UPSTREAM: parquet's own file fails this check too:\n{ue}")
                }
            },
            Err(ue) => format!("(parquet's own writer failed: {ue})"),
        };
        panic!(
            "round trip of parquet_flba's file failed:\n{e}\n{verdict}\n{}",
            sc.describe()
        );
    }
    Outcome::Keep
}

/// Every check of this module on one file of `sc`.
pub fn check_file(sc: &Scenario, bytes: &[u8]) -> Result<(), String> {
    check_data(&sc.schema, &sc.batches, bytes)?;
    check_metadata(&sc.cols, &sc.opts.props, &sc.batches, bytes)
}

// ---------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------

/// The native bytes of slot `i` of a FLBA array (FixedSizeBinary, decimal,
/// Float16, interval), ignoring validity.
fn native_at(a: &dyn Array, flba: Flba, i: usize) -> Vec<u8> {
    let data = a.to_data();
    let nw = flba.native_width();
    let start = (data.offset() + i) * nw;
    data.buffers()[0].as_slice()[start..start + nw].to_vec()
}

/// Per row, the native value of a flat FLBA column (`None` for null rows),
/// for the concatenation of `arrays`.
fn flat_rows(col: &Col, arrays: &[ArrayRef]) -> Vec<Option<Vec<u8>>> {
    let flba = col.flba().expect("an FLBA column");
    let mut out = Vec::new();
    for a in arrays {
        let a = materialize(a);
        match col.kind {
            Kind::Struct(..) => {
                let s: &StructArray = a.as_struct();
                let child = s.column(0);
                for i in 0..s.len() {
                    out.push(
                        (s.is_valid(i) && child.is_valid(i))
                            .then(|| native_at(child.as_ref(), flba, i)),
                    );
                }
            }
            _ => {
                for i in 0..a.len() {
                    out.push(a.is_valid(i).then(|| native_at(a.as_ref(), flba, i)));
                }
            }
        }
    }
    out
}

/// Per row, the non-null item values of a list column.
fn list_rows(col: &Col, arrays: &[ArrayRef]) -> Vec<Vec<Vec<u8>>> {
    let flba = col.flba().expect("an FLBA column");
    let mut out = Vec::new();
    for a in arrays {
        let l = a.as_list::<i32>();
        let items = l.values();
        let offsets = l.value_offsets();
        for i in 0..l.len() {
            let mut row = Vec::new();
            if l.is_valid(i) {
                for j in offsets[i] as usize..offsets[i + 1] as usize {
                    if items.is_valid(j) {
                        row.push(native_at(items.as_ref(), flba, j));
                    }
                }
            }
            out.push(row);
        }
    }
    out
}

/// `field` with list items renamed to `item_name`, dictionary types replaced
/// by their value types (which is what the reader can produce).
fn read_field(field: &Field, item_name: Option<&str>) -> Field {
    let dt = match field.data_type() {
        DataType::Dictionary(_, v) => v.as_ref().clone(),
        DataType::List(item) => {
            let name = item_name.unwrap_or(item.name());
            DataType::List(Arc::new(item.as_ref().clone().with_name(name)))
        }
        other => other.clone(),
    };
    field.clone().with_data_type(dt)
}

/// Read `bytes` and compare with the concatenation of `batches` (written
/// with the writer schema `schema`).
pub fn check_data(schema: &SchemaRef, batches: &[RecordBatch], bytes: &[u8]) -> Result<(), String> {
    let reader = SerializedFileReader::new(Bytes::copy_from_slice(bytes))
        .map_err(|e| format!("open: {e}"))?;
    let descr = reader.metadata().file_metadata().schema_descr_ptr();
    // The list item's name as the file spells it (depends on coerce_types
    // and on an explicit parquet schema).
    let item_name = |name: &str| -> Option<String> {
        (0..descr.num_columns())
            .map(|i| descr.column(i).path().parts().to_vec())
            .find(|p| p.len() == 3 && p[0] == name)
            .map(|p| p[2].clone())
    };
    let hint = Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| read_field(f, item_name(f.name()).as_deref()))
            .collect::<Vec<_>>(),
    ));
    let read = read_all(bytes, Some(hint.clone()))?;
    // Compare as the type the reader was asked for, with nested fields
    // nullable (batches may label nested fields differently, e.g. a
    // nullable list item whose nulls are unreachable).
    compare_columns(schema, batches, &read, |i| {
        Some(loosen(hint.field(i).data_type()))
    })
}

/// `dt` with every nested field nullable.
fn loosen(dt: &DataType) -> DataType {
    let field = |f: &Field| {
        f.clone()
            .with_nullable(true)
            .with_data_type(loosen(f.data_type()))
    };
    match dt {
        DataType::List(f) => DataType::List(Arc::new(field(f))),
        DataType::Struct(fs) => {
            DataType::Struct(fs.iter().map(|f| field(f)).collect::<Vec<_>>().into())
        }
        other => other.clone(),
    }
}

// ---------------------------------------------------------------------------
// Statistics
// ---------------------------------------------------------------------------

/// Expected min/max of some values (parquet bytes), before truncation.
fn min_max(flba: Flba, values: &[&Vec<u8>]) -> Option<(Vec<u8>, Vec<u8>)> {
    let is_nan =
        |v: &Vec<u8>| flba == Flba::Float16 && f16_is_nan(u16::from_le_bytes([v[0], v[1]]));
    let non_nan: Vec<&Vec<u8>> = values.iter().copied().filter(|v| !is_nan(v)).collect();
    let pool = if non_nan.is_empty() && super::release::PARQUET_60 {
        values.to_vec()
    } else {
        // parquet 59: only NaN, no min/max (docs/releases.md D3).
        non_nan
    };
    let min = pool.iter().copied().min_by(|a, b| flba.cmp_native(a, b))?;
    let max = pool.iter().copied().max_by(|a, b| flba.cmp_native(a, b))?;
    let (mut pmin, mut pmax) = (Vec::new(), Vec::new());
    flba.to_parquet(min, &mut pmin);
    flba.to_parquet(max, &mut pmax);
    if flba == Flba::Float16 && !super::release::PARQUET_60 {
        // parquet 59: a zero min is -0, a zero max +0 (D2).
        let zero = |v: &[u8]| u16::from_le_bytes([v[0], v[1]]) & 0x7FFF == 0;
        if zero(&pmin) {
            pmin = 0x8000u16.to_le_bytes().to_vec();
        }
        if zero(&pmax) {
            pmax = vec![0, 0];
        }
    }
    Some((pmin, pmax))
}

/// Whether parquet truncates this type's min/max (binary order types only).
fn truncatable(flba: Flba) -> bool {
    !flba.is_decimal() && flba != Flba::Float16
}

/// Truncate a min value: `(value, exact)`.
fn truncate_min(flba: Flba, v: &[u8], len: Option<usize>) -> (Vec<u8>, bool) {
    match len {
        Some(l) if truncatable(flba) && v.len() > l => (v[..l].to_vec(), false),
        _ => (v.to_vec(), true),
    }
}

/// Truncate a max value to a prefix and increment it so it stays an upper
/// bound: `(value, exact)`; unchanged when every kept byte is 0xFF.
fn truncate_max(flba: Flba, v: &[u8], len: Option<usize>) -> (Vec<u8>, bool) {
    match len {
        Some(l) if truncatable(flba) && v.len() > l => {
            let mut t = v[..l].to_vec();
            for b in t.iter_mut().rev() {
                let (x, overflow) = b.overflowing_add(1);
                *b = x;
                if !overflow {
                    return (t, false);
                }
            }
            (v.to_vec(), true)
        }
        _ => (v.to_vec(), true),
    }
}

/// Expected statistics of a set of rows.
struct Expected {
    nulls: u64,
    nans: u64,
    /// `(min, min_exact, max, max_exact)` in parquet bytes, truncated.
    min_max: Option<(Vec<u8>, bool, Vec<u8>, bool)>,
}

fn expected(flba: Flba, rows: &[Option<Vec<u8>>], truncate: Option<usize>) -> Expected {
    let values: Vec<&Vec<u8>> = rows.iter().flatten().collect();
    let nans = values
        .iter()
        .filter(|v| flba == Flba::Float16 && f16_is_nan(u16::from_le_bytes([v[0], v[1]])))
        .count() as u64;
    let min_max = if matches!(flba, Flba::YearMonth | Flba::DayTime) {
        // Undefined sort order: parquet writes no min/max.
        None
    } else {
        min_max(flba, &values).map(|(min, max)| {
            let (min, min_exact) = truncate_min(flba, &min, truncate);
            let (max, max_exact) = truncate_max(flba, &max, truncate);
            (min, min_exact, max, max_exact)
        })
    };
    Expected {
        nulls: (rows.len() - values.len()) as u64,
        nans,
        min_max,
    }
}

fn hex(b: Option<&[u8]>) -> String {
    match b {
        None => "None".into(),
        Some(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

/// Compare statistics with the expectation; `exactness` also checks the
/// exactness flags.
fn check_statistics(
    what: &str,
    stats: &Statistics,
    exp: &Expected,
    exactness: bool,
) -> Result<(), String> {
    let mut problems = Vec::new();
    if stats.null_count_opt() != Some(exp.nulls) {
        problems.push(format!(
            "null count {:?}, expected {}",
            stats.null_count_opt(),
            exp.nulls
        ));
    }
    let actual = (stats.min_bytes_opt(), stats.max_bytes_opt());
    match &exp.min_max {
        None => {
            if actual != (None, None) {
                problems.push(format!(
                    "min/max {}/{}, expected none",
                    hex(actual.0),
                    hex(actual.1)
                ));
            }
        }
        Some((min, min_exact, max, max_exact)) => {
            if actual != (Some(min.as_slice()), Some(max.as_slice())) {
                problems.push(format!(
                    "min/max {}/{}, expected {}/{}",
                    hex(actual.0),
                    hex(actual.1),
                    hex(Some(min)),
                    hex(Some(max))
                ));
            } else if exactness
                && (stats.min_is_exact(), stats.max_is_exact()) != (*min_exact, *max_exact)
            {
                problems.push(format!(
                    "exactness (min, max) = {:?}, expected {:?}",
                    (stats.min_is_exact(), stats.max_is_exact()),
                    (min_exact, max_exact)
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", problems.join("; ")))
    }
}

/// Check every statistic of every FLBA leaf of the file against the data.
pub fn check_metadata(
    cols: &[Col],
    props: &WriterProperties,
    batches: &[RecordBatch],
    bytes: &[u8],
) -> Result<(), String> {
    let reader = open_with_indexes(bytes)?;
    let md = reader.metadata();
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let rg_rows: Vec<usize> = md
        .row_groups()
        .iter()
        .map(|rg| rg.num_rows() as usize)
        .collect();
    if rg_rows.iter().sum::<usize>() != total {
        return Err(format!("row groups hold {rg_rows:?} rows, wrote {total}"));
    }
    let mut errors = Vec::new();
    for (ci, col) in cols.iter().enumerate() {
        let Some(flba) = col.flba() else { continue };
        // The leaf's path as the file spells it (list item names depend on
        // coerce_types and on an explicit parquet schema).
        let path = md.file_metadata().schema_descr().column(ci).path().clone();
        let arrays: Vec<ArrayRef> = batches.iter().map(|b| b.column(ci).clone()).collect();
        let level = props.statistics_enabled(&path);
        let bloom = props.bloom_filter_properties(&path).is_some();
        let flat = !matches!(col.kind, Kind::List(..));
        let rows = if flat {
            flat_rows(col, &arrays)
        } else {
            Vec::new()
        };
        let lists = if flat {
            Vec::new()
        } else {
            list_rows(col, &arrays)
        };
        let mut start = 0;
        for (g, &n) in rg_rows.iter().enumerate() {
            let what = format!("row group {g}, column {} ({path})", col.name);
            let chunk = md.row_group(g).column(ci);
            // Flat: the rows; lists: every non-null item, as if each were a row.
            let rg_rows_slice: Vec<Option<Vec<u8>>> = if flat {
                rows[start..start + n].to_vec()
            } else {
                lists[start..start + n]
                    .iter()
                    .flatten()
                    .cloned()
                    .map(Some)
                    .collect()
            };
            start += n;
            let values: Vec<&Vec<u8>> = rg_rows_slice.iter().flatten().collect();

            // Chunk statistics (for lists, the null count is not the number
            // of null rows: check min/max only).
            match (level, chunk.statistics()) {
                (EnabledStatistics::None, Some(s)) if s.min_bytes_opt().is_some() => {
                    errors.push(format!("{what}: min/max written with statistics disabled"));
                }
                (EnabledStatistics::None, _) => {}
                (_, None) => errors.push(format!("{what}: no chunk statistics")),
                (_, Some(s)) => {
                    let mut exp =
                        expected(flba, &rg_rows_slice, props.statistics_truncate_length());
                    if !flat {
                        exp.nulls = s.null_count_opt().unwrap_or(0);
                    }
                    if let Err(e) =
                        check_statistics(&format!("{what}: chunk statistics"), s, &exp, true)
                    {
                        errors.push(e);
                    }
                    if super::release::writes_distinct_values(props) {
                        let distinct: HashSet<&Vec<u8>> = values.iter().copied().collect();
                        let want = (!distinct.is_empty()).then_some(distinct.len() as u64);
                        if s.distinct_count_opt() != want {
                            errors.push(format!(
                                "{what}: distinct count {:?}, expected {want:?}",
                                s.distinct_count_opt()
                            ));
                        }
                    }
                }
            }

            // Pages: boundaries from the headers, statistics from the
            // headers and the column index.
            if flat
                && let Err(e) =
                    check_pages(&reader, g, ci, flba, props, &path, &rg_rows_slice, &what)
            {
                errors.push(e);
            }

            // Bloom filter.
            if bloom {
                let rg_reader = reader
                    .get_row_group(g)
                    .map_err(|e| format!("{what}: row group reader: {e}"))?;
                match rg_reader.get_column_bloom_filter(ci) {
                    Some(sbbf) => {
                        let mut buf = Vec::new();
                        for v in &values {
                            buf.clear();
                            flba.to_parquet(v, &mut buf);
                            if !sbbf.check(buf.as_slice()) {
                                errors.push(format!(
                                    "{what}: value {} missing from the bloom filter",
                                    hex(Some(&buf))
                                ));
                                break;
                            }
                        }
                    }
                    None => {
                        let dict_only = chunk.page_encoding_stats().is_some_and(|stats| {
                            stats.iter().all(|s| {
                                s.page_type == parquet::basic::PageType::DICTIONARY_PAGE
                                    || matches!(
                                        s.encoding,
                                        Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
                                    )
                            })
                        });
                        if !dict_only || super::release::bloom_for_dictionary_chunks(props) {
                            errors.push(format!("{what}: bloom filter enabled but not written"));
                        }
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        let mut s = String::new();
        for e in errors.iter().take(8) {
            let _ = writeln!(s, "  {e}");
        }
        if errors.len() > 8 {
            let _ = writeln!(s, "  ... and {} more", errors.len() - 8);
        }
        Err(s)
    }
}

/// Check the page header statistics and column index entries of one flat
/// column chunk against its rows.
#[allow(clippy::too_many_arguments)]
fn check_pages(
    reader: &SerializedFileReader<Bytes>,
    g: usize,
    ci: usize,
    flba: Flba,
    props: &WriterProperties,
    path: &parquet::schema::types::ColumnPath,
    rows: &[Option<Vec<u8>>],
    what: &str,
) -> Result<(), String> {
    let rg = reader
        .get_row_group(g)
        .map_err(|e| format!("{what}: row group reader: {e}"))?;
    let mut pages = rg
        .get_column_page_reader(ci)
        .map_err(|e| format!("{what}: page reader: {e}"))?;
    let level = props.statistics_enabled(path);
    let header_stats = level == EnabledStatistics::Page && props.write_page_header_statistics(path);
    let mut ranges = Vec::new();
    let mut at = 0usize;
    let mut k = 0;
    while let Some(page) = pages
        .get_next_page()
        .map_err(|e| format!("{what}: reading page {k}: {e}"))?
    {
        let (n, stats) = match &page {
            Page::DataPage {
                num_values,
                statistics,
                ..
            }
            | Page::DataPageV2 {
                num_values,
                statistics,
                ..
            } => (*num_values as usize, statistics.as_ref()),
            Page::DictionaryPage { .. } => continue,
        };
        if at + n > rows.len() {
            return Err(format!(
                "{what}: page {k} ends at row {}, the row group has {}",
                at + n,
                rows.len()
            ));
        }
        let page_rows = &rows[at..at + n];
        // Header statistics exist on pages with a min/max (not all-null
        // pages, not intervals) when enabled.
        let exp = expected(flba, page_rows, props.statistics_truncate_length());
        match (header_stats && exp.min_max.is_some(), stats) {
            (true, Some(s)) => {
                check_statistics(
                    &format!("{what}: page {k} header statistics"),
                    s,
                    &exp,
                    false,
                )?;
            }
            (true, None) => return Err(format!("{what}: page {k} has no header statistics")),
            (false, Some(s)) => {
                return Err(format!(
                    "{what}: page {k} has header statistics {s:?}, expected none"
                ));
            }
            (false, None) => {}
        }
        ranges.push(at..at + n);
        at += n;
        k += 1;
    }
    if at != rows.len() {
        return Err(format!(
            "{what}: data pages hold {at} rows, the row group {}",
            rows.len()
        ));
    }
    let index = super::release::column_index(reader.metadata(), g, ci);
    let Some(index) = index else {
        return Ok(());
    };
    if level != EnabledStatistics::Page {
        return Err(format!(
            "{what}: column index written with statistics level {level:?}"
        ));
    }
    // An integer column index's entries, min/max as little-endian bytes.
    macro_rules! int_entries {
        ($ix:expr) => {
            (0..$ix.num_pages() as usize)
                .map(|k| {
                    (
                        $ix.is_null_page(k),
                        $ix.null_count(k),
                        $ix.min_value(k).map(|v| v.to_le_bytes().to_vec()),
                        $ix.max_value(k).map(|v| v.to_le_bytes().to_vec()),
                        None,
                    )
                })
                .collect()
        };
    }
    // One view of every page entry: (null page, null count, min, max, NaN
    // count), min/max as parquet bytes (little-endian for INT32 / INT64).
    type Entry = (
        bool,
        Option<i64>,
        Option<Vec<u8>>,
        Option<Vec<u8>>,
        Option<i64>,
    );
    let entries: Vec<Entry> = match (&index, flba.is_int_decimal()) {
        (ColumnIndexMetaData::FIXED_LEN_BYTE_ARRAY(ix), false) => (0..ix.num_pages() as usize)
            .map(|k| {
                (
                    ix.is_null_page(k),
                    ix.null_count(k),
                    ix.min_value(k).map(<[u8]>::to_vec),
                    ix.max_value(k).map(<[u8]>::to_vec),
                    super::release::index_nan_count(ix, k),
                )
            })
            .collect(),
        (ColumnIndexMetaData::INT32(ix), true) if flba.parquet_width() == 4 => int_entries!(ix),
        (ColumnIndexMetaData::INT64(ix), true) if flba.parquet_width() == 8 => int_entries!(ix),
        _ => return Err(format!("{what}: column index of another type: {index:?}")),
    };
    if entries.len() != ranges.len() {
        return Err(format!(
            "{what}: column index has {} pages, the chunk {}",
            entries.len(),
            ranges.len()
        ));
    }
    for (k, range) in ranges.into_iter().enumerate() {
        let (null_page, null_count, min, max, nan_count) = &entries[k];
        let page_rows = &rows[range];
        let exp = expected(flba, page_rows, props.column_index_truncate_length());
        let all_null = page_rows.iter().all(Option::is_none);
        if *null_page != all_null {
            return Err(format!(
                "{what}: column index page {k}: null_page={null_page}, expected {all_null}"
            ));
        }
        if *null_count != Some(exp.nulls as i64) {
            return Err(format!(
                "{what}: column index page {k}: null count {null_count:?}, expected {}",
                exp.nulls
            ));
        }
        if flba == Flba::Float16
            && let Some(nans) = *nan_count
            && nans != exp.nans as i64
        {
            return Err(format!(
                "{what}: column index page {k}: NaN count {nans}, expected {}",
                exp.nans
            ));
        }
        let got = (min.as_deref(), max.as_deref());
        let want = match (&exp.min_max, all_null) {
            (_, true) | (None, _) => (None, None),
            (Some((min, _, max, _)), false) => (Some(min.as_slice()), Some(max.as_slice())),
        };
        if got != want {
            return Err(format!(
                "{what}: column index page {k}: min/max {}/{}, expected {}/{}",
                hex(got.0),
                hex(got.1),
                hex(want.0),
                hex(want.1)
            ));
        }
    }
    Ok(())
}
