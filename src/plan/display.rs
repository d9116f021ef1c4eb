//! The plan as a table: one line per leaf.

use super::{ColumnPlan, DelegateReason, LeafPath, LeafPlan};
use std::fmt;

impl fmt::Display for LeafPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeafPath::Fast => "fast",
            LeafPath::Parquet => "parquet",
        })
    }
}

impl fmt::Display for DelegateReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DelegateReason::NotFixedLenByteArray => "not a type this crate writes",
            DelegateReason::IntervalMonthDayNano => "Interval(MonthDayNano) (parquet rejects it)",
            DelegateReason::NullType => "Null type (no values to encode)",
            DelegateReason::AlpEncoding => "ALP encoding (parquet's own)",
            DelegateReason::Encrypted => "encrypted file",
            DelegateReason::ParquetSchemaMismatch => {
                "explicit Parquet schema differs from the converter's"
            }
            DelegateReason::SchemaNotMapped => "Arrow and Parquet schemas do not line up",
            DelegateReason::GeospatialType => "geospatial type (parquet's geospatial statistics)",
            DelegateReason::WrappedUnderParquet59 => {
                "under a dictionary or run-end-encoded type (parquet 58/59 rules)"
            }
            DelegateReason::CdcUnsplittableField => {
                "content-defined chunking: field cannot be split"
            }
            DelegateReason::UnverifiedRelease => "parquet release not verified by this build",
            DelegateReason::CodecFeatureOff => "codec feature off in this build (parquet has it)",
        })
    }
}

/// The cells of one line of the table.
fn cells(leaf: &LeafPlan) -> [String; 6] {
    [
        leaf.column.to_string(),
        leaf.column_path().string(),
        leaf.arrow_type
            .as_ref()
            .map_or_else(|| "?".to_string(), ToString::to_string),
        leaf.physical_type().to_string(),
        leaf.kind.map_or("-", |k| k.name()).to_string(),
        match leaf.reason {
            None => LeafPath::Fast.to_string(),
            Some(reason) => format!("{}: {reason}", LeafPath::Parquet),
        },
    ]
}

impl fmt::Display for ColumnPlan {
    /// A table with one line per leaf: column index, column path, Arrow
    /// type, physical type, kind, and the path taken (with the reason for a
    /// leaf `parquet` writes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header = ["#", "column", "arrow type", "physical", "kind", "path"].map(String::from);
        let rows: Vec<[String; 6]> = self.leaves.iter().map(cells).collect();
        let mut widths = header.each_ref().map(String::len);
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&header).chain(&rows) {
            let line: Vec<String> = row
                .iter()
                .zip(widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            writeln!(f, "{}", line.join("  ").trim_end())?;
        }
        Ok(())
    }
}
