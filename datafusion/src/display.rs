//! How the sink shows in `EXPLAIN`: its file group as DataFusion's sink
//! shows it, and which path its leaves take.

use std::fmt;

use datafusion::datasource::physical_plan::FileGroup;
use datafusion::error::Result;
use datafusion::physical_plan::DisplayFormatType;
use parquet_flba::{ColumnPlan, LeafPath};

/// Files listed by the default format; the rest is shown as `...`
/// (DataFusion's file group display does the same; `EXPLAIN VERBOSE` lists
/// every file).
const LISTED_FILES: usize = 5;

/// Writes the file group: every file in the verbose format, at most
/// [`LISTED_FILES`] otherwise.
pub(crate) fn file_group(
    group: &FileGroup,
    t: DisplayFormatType,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let files = group.files();
    let listed = match t {
        DisplayFormatType::Verbose => files.len(),
        _ => files.len().min(LISTED_FILES),
    };
    write!(f, "[")?;
    for (i, file) in files[..listed].iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{}", file.object_meta.location)?;
        if let Some(range) = &file.range {
            write!(f, ":{}..{}", range.start, range.end)?;
        }
    }
    if listed < files.len() {
        write!(f, ", ...")?;
    }
    write!(f, "]")
}

/// Writes which leaves take parquet-flba's fast path, e.g.
/// `fast_path=9/12 leaves, parquet=[row, name, region]`; in the verbose
/// format each leaf `parquet` writes comes with the reason.
pub(crate) fn leaf_paths(
    plan: &Result<ColumnPlan>,
    t: DisplayFormatType,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    let plan = match plan {
        Ok(plan) => plan,
        Err(e) => return write!(f, "fast_path=unknown ({e})"),
    };
    let leaves = plan.leaves();
    write!(
        f,
        "fast_path={}/{} leaves, parquet=[",
        plan.fast_count(),
        leaves.len()
    )?;
    let delegated = leaves.iter().filter(|l| l.path() == LeafPath::Parquet);
    for (i, leaf) in delegated.enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{}", leaf.column_path().string())?;
        if let (DisplayFormatType::Verbose, Some(reason)) = (t, leaf.reason()) {
            write!(f, ": {reason}")?;
        }
    }
    write!(f, "]")
}
