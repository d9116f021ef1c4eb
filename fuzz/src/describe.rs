//! Human-readable differences between two parquet files, for failure
//! messages: the first differing byte with a hex window, and a line diff of
//! the decoded footers, column chunks, page indexes and page headers.
//!
//! Shared with the main crate's integration tests (`tests/common`, with
//! `#[path]`): it uses only crates the main crate depends on, and of the
//! harness only its siblings `catch`, `readback` and `release`.

use std::fmt::Write as _;

use bytes::Bytes;
use parquet::column::page::Page;
use parquet::file::reader::FileReader;

use super::catch::quiet_catch;
use super::readback::open_with_indexes;
use super::release::{column_index, offset_index};

/// `None` if the files are equal, else a report: lengths, the first
/// differing offset with a hex window, and a line diff of the decoded
/// footers and pages.
pub fn compare_files(up: &[u8], fl: &[u8]) -> Option<String> {
    if up == fl {
        return None;
    }
    let first = up
        .iter()
        .zip(fl)
        .position(|(a, b)| a != b)
        .unwrap_or(up.len().min(fl.len()));
    let lo = first.saturating_sub(16);
    let window = |b: &[u8]| {
        let hi = (first + 16).min(b.len());
        b[lo.min(hi)..hi]
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "files differ: upstream {} bytes, parquet_flba {} bytes, first difference at offset {first}",
        up.len(),
        fl.len()
    );
    let _ = writeln!(s, "  upstream [{lo}..]: {}", window(up));
    let _ = writeln!(s, "  flba     [{lo}..]: {}", window(fl));
    let a = describe_file(up);
    let b = describe_file(fl);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    let _ = write!(
        s,
        "decoded differences (- upstream, + parquet_flba):\n{}",
        line_diff(&a, &b, 60)
    );
    Some(s)
}

/// A line diff (longest common subsequence) showing up to `max` removed
/// (`-`, upstream) and added (`+`, parquet_flba) lines.
pub fn line_diff(a: &[&str], b: &[&str], max: usize) -> String {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut out: Vec<String> = Vec::new();
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        for i in 0..a.len().max(b.len()) {
            if let Some(x) = a.get(i) {
                out.push(format!("  - {x}"));
            }
            if let Some(y) = b.get(i) {
                out.push(format!("  + {y}"));
            }
        }
    } else {
        // lcs[i][j] = LCS length of a[i..] and b[j..].
        let w = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * w];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * w + j] = if a[i] == b[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                i += 1;
                j += 1;
            } else if i < a.len() && (j == b.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                out.push(format!("  - {}", a[i]));
                i += 1;
            } else {
                out.push(format!("  + {}", b[j]));
                j += 1;
            }
        }
    }
    if out.is_empty() {
        return "  (decoded metadata and pages are equal; the difference is elsewhere)\n".into();
    }
    let total = out.len();
    out.truncate(max);
    let mut s = out.join("\n");
    s.push('\n');
    if total > max {
        let _ = writeln!(s, "  ... ({} more lines elided)", total - max);
    }
    s
}

/// True if `msg` contains `n` as a whole number (not as part of a longer
/// digit run): whether an error message names row `n`.
pub fn contains_number(msg: &str, n: usize) -> bool {
    let needle = n.to_string();
    let b = msg.as_bytes();
    msg.match_indices(&needle).any(|(i, _)| {
        let before = i == 0 || !b[i - 1].is_ascii_digit();
        let after = i + needle.len() >= b.len() || !b[i + needle.len()].is_ascii_digit();
        before && after
    })
}

/// A line per fact of a parquet file: footer, row groups, column chunks,
/// page indexes, page headers. Never panics.
pub fn describe_file(bytes: &[u8]) -> Vec<String> {
    match quiet_catch(|| describe_inner(bytes)) {
        Ok(Ok(lines)) => lines,
        Ok(Err(e)) => vec![format!("<unreadable: {e}>")],
        Err(e) => vec![format!("<reader panicked: {e}>")],
    }
}

fn describe_inner(bytes: &[u8]) -> parquet::errors::Result<Vec<String>> {
    let reader = open_with_indexes(bytes).map_err(parquet::errors::ParquetError::General)?;
    let md = reader.metadata();
    let fm = md.file_metadata();
    let mut out = vec![
        format!(
            "file: version={} num_rows={} created_by={:?}",
            fm.version(),
            fm.num_rows(),
            fm.created_by()
        ),
        format!("file: schema={:?}", fm.schema_descr().root_schema()),
        format!("file: column_orders={:?}", fm.column_orders()),
    ];
    for kv in fm.key_value_metadata().into_iter().flatten() {
        let v = kv.value.as_deref().unwrap_or("");
        out.push(format!("file: kv {}={}", kv.key, &v[..v.len().min(60)]));
    }
    for (i, rg) in md.row_groups().iter().enumerate() {
        out.push(format!(
            "rg{i}: rows={} total_byte_size={} compressed={} file_offset={:?} ordinal={:?}",
            rg.num_rows(),
            rg.total_byte_size(),
            rg.compressed_size(),
            rg.file_offset(),
            rg.ordinal()
        ));
        for (j, c) in rg.columns().iter().enumerate() {
            let p = format!("rg{i}.col{j}({})", c.column_path());
            out.push(format!(
                "{p}: encodings={:?} compression={:?} page_encoding_stats={:?}",
                c.encodings().collect::<Vec<_>>(),
                c.compression(),
                c.page_encoding_stats()
            ));
            out.push(format!(
                "{p}: num_values={} compressed={} uncompressed={} data_page_offset={} \
                 dictionary_page_offset={:?} index_page_offset={:?}",
                c.num_values(),
                c.compressed_size(),
                c.uncompressed_size(),
                c.data_page_offset(),
                c.dictionary_page_offset(),
                c.index_page_offset(),
            ));
            out.push(format!("{p}: statistics={:?}", c.statistics()));
            out.push(format!(
                "{p}: bloom offset={:?} length={:?}; column_index offset={:?} length={:?}; \
                 offset_index offset={:?} length={:?}",
                c.bloom_filter_offset(),
                c.bloom_filter_length(),
                c.column_index_offset(),
                c.column_index_length(),
                c.offset_index_offset(),
                c.offset_index_length()
            ));
            out.push(format!(
                "{p}: rep_hist={:?} def_hist={:?} unencoded_ba={:?}",
                c.repetition_level_histogram(),
                c.definition_level_histogram(),
                c.unencoded_byte_array_data_bytes()
            ));
            if let Some(ci) = column_index(md, i, j) {
                out.push(format!("{p}: column_index={ci:?}"));
            }
            if let Some(oi) = offset_index(md, i, j) {
                for (k, loc) in oi.page_locations().iter().enumerate() {
                    out.push(format!("{p}: offset_index page {k}: {loc:?}"));
                }
            }
            let mut pages = reader.get_row_group(i)?.get_column_page_reader(j)?;
            let mut k = 0;
            while let Some(page) = pages.get_next_page()? {
                out.push(format!("{p}: page {k}: {}", describe_page(&page)));
                k += 1;
            }
        }
    }
    Ok(out)
}

fn describe_page(page: &Page) -> String {
    let digest = |b: &Bytes| {
        let h = b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
            (h ^ u64::from(*x)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("len={} fnv={h:016x}", b.len())
    };
    match page {
        Page::DataPage {
            buf,
            num_values,
            encoding,
            def_level_encoding,
            statistics,
            ..
        } => format!(
            "DATA_PAGE num_values={num_values} encoding={encoding:?} def={def_level_encoding:?} \
             data[{}] stats={statistics:?}",
            digest(buf)
        ),
        Page::DataPageV2 {
            buf,
            num_values,
            encoding,
            num_nulls,
            num_rows,
            def_levels_byte_len,
            rep_levels_byte_len,
            is_compressed,
            statistics,
        } => format!(
            "DATA_PAGE_V2 num_values={num_values} nulls={num_nulls} rows={num_rows} \
             encoding={encoding:?} def_len={def_levels_byte_len} rep_len={rep_levels_byte_len} \
             compressed={is_compressed} data[{}] stats={statistics:?}",
            digest(buf)
        ),
        Page::DictionaryPage {
            buf,
            num_values,
            encoding,
            is_sorted,
        } => format!(
            "DICTIONARY_PAGE num_values={num_values} encoding={encoding:?} sorted={is_sorted} \
             data[{}]",
            digest(buf)
        ),
    }
}
