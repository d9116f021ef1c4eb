//! Statistics as they are written: page header statistics and chunk
//! statistics, with binary min/max truncated as `parquet` 60.1 truncates them
//! (page headers, the column index and chunk statistics).

use super::header::PageStatistics;
use super::settings::ColumnSettings;
use super::truncate::{truncate_max, truncate_min};
use crate::encoding::min_max::MinMax;
use parquet::basic::Type as PhysicalType;
use parquet::data_type::{ByteArray, FixedLenByteArray};
use parquet::file::statistics::{Statistics, ValueStatistics};

/// A data page header's min/max, truncated like chunk statistics.
#[derive(Debug)]
pub(crate) struct HeaderMinMax {
    min: Vec<u8>,
    max: Vec<u8>,
    min_exact: bool,
    max_exact: bool,
    nan_count: Option<i64>,
}

impl HeaderMinMax {
    /// The header min/max of a page with `min_max` (and, for floats, `nans`),
    /// if it has any.
    pub(crate) fn new(s: &ColumnSettings, min_max: &MinMax, nans: Option<u64>) -> Option<Self> {
        let (min, max) = min_max.min().zip(min_max.max())?;
        Some(if s.truncatable {
            let (min, min_t) = truncate_min(min, s.statistics_truncate_length, s.utf8);
            let (max, max_t) = truncate_max(max, s.statistics_truncate_length, s.utf8);
            Self {
                min,
                max,
                min_exact: !min_t,
                max_exact: !max_t,
                nan_count: None,
            }
        } else {
            Self {
                min: min.to_vec(),
                max: max.to_vec(),
                min_exact: true,
                max_exact: true,
                nan_count: nans.map(|n| n as i64),
            }
        })
    }

    /// The header statistics of a page with `null_count` nulls.
    pub(crate) fn with_nulls(&self, null_count: u64) -> PageStatistics<'_> {
        PageStatistics {
            null_count: null_count as i64,
            min: &self.min,
            max: &self.max,
            min_exact: self.min_exact,
            max_exact: self.max_exact,
            nan_count: self.nan_count,
        }
    }
}

/// The chunk statistics of a binary column (values of type `$t`:
/// `FixedLenByteArray` or `ByteArray`), min/max truncated where allowed.
macro_rules! binary_statistics {
    ($t:ty, $s:expr, $min_max:expr, $distinct:expr, $nulls:expr, $nans:expr) => {{
        let (s, min_max): (&ColumnSettings, &MinMax) = ($s, $min_max);
        let value = |v: Vec<u8>| <$t>::from(v);
        let statistics = match min_max.min().zip(min_max.max()) {
            Some((min, max)) if s.truncatable => {
                let (min, min_t) = truncate_min(min, s.statistics_truncate_length, s.utf8);
                let (max, max_t) = truncate_max(max, s.statistics_truncate_length, s.utf8);
                ValueStatistics::new(
                    Some(value(min)),
                    Some(value(max)),
                    $distinct,
                    Some($nulls),
                    false,
                )
                .with_backwards_compatible_min_max(s.signed)
                .with_max_is_exact(!max_t)
                .with_min_is_exact(!min_t)
            }
            _ => crate::compat::with_nan_count(
                ValueStatistics::new(
                    min_max.min().map(|v| value(v.to_vec())),
                    min_max.max().map(|v| value(v.to_vec())),
                    $distinct,
                    Some($nulls),
                    false,
                ),
                $nans,
            )
            .with_backwards_compatible_min_max(s.signed),
        };
        Statistics::from(statistics)
    }};
}

/// The column chunk's statistics: min/max (truncated where allowed), null,
/// distinct and NaN counts.
pub(crate) fn chunk_statistics(
    s: &ColumnSettings,
    min_max: &MinMax,
    distinct_count: Option<u64>,
    nulls: u64,
    nans: Option<u64>,
) -> Statistics {
    if let Some(stats) = typed_statistics(s, min_max, distinct_count, nulls, nans) {
        return stats;
    }
    match s.physical {
        PhysicalType::BYTE_ARRAY => {
            binary_statistics!(ByteArray, s, min_max, distinct_count, nulls, nans)
        }
        _ => binary_statistics!(FixedLenByteArray, s, min_max, distinct_count, nulls, nans),
    }
}

/// The chunk statistics of a BOOLEAN, INT32, INT64, FLOAT or DOUBLE column (never
/// truncated; floats with their NaN count where the release has one); None
/// for a FIXED_LEN_BYTE_ARRAY column.
fn typed_statistics(
    s: &ColumnSettings,
    min_max: &MinMax,
    distinct_count: Option<u64>,
    nulls: u64,
    nans: Option<u64>,
) -> Option<Statistics> {
    macro_rules! typed {
        ($t:ty) => {
            Statistics::from(
                crate::compat::with_nan_count(
                    ValueStatistics::<$t>::new(
                        min_max
                            .min()
                            .and_then(|v| Some(<$t>::from_le_bytes(v.try_into().ok()?))),
                        min_max
                            .max()
                            .and_then(|v| Some(<$t>::from_le_bytes(v.try_into().ok()?))),
                        distinct_count,
                        Some(nulls),
                        false,
                    ),
                    nans,
                )
                .with_backwards_compatible_min_max(s.signed),
            )
        };
    }
    Some(match s.physical {
        PhysicalType::INT32 => typed!(i32),
        PhysicalType::INT64 => typed!(i64),
        PhysicalType::FLOAT => typed!(f32),
        PhysicalType::DOUBLE => typed!(f64),
        PhysicalType::BOOLEAN => Statistics::from(
            ValueStatistics::<bool>::new(
                min_max.min().and_then(|v| Some(*v.first()? != 0)),
                min_max.max().and_then(|v| Some(*v.first()? != 0)),
                distinct_count,
                Some(nulls),
                false,
            )
            .with_backwards_compatible_min_max(s.signed),
        ),
        _ => return None,
    })
}
