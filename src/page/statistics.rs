//! Statistics as they are written: page header statistics and chunk
//! statistics, with binary min/max truncated as `parquet` 60.1 truncates them
//! (page headers, the column index and chunk statistics).

use super::header::PageStatistics;
use super::settings::ColumnSettings;
use crate::encoding::min_max::MinMax;
use parquet::basic::Type as PhysicalType;
use parquet::data_type::FixedLenByteArray;
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
            let (min, min_t) = truncate_min(min, s.statistics_truncate_length);
            let (max, max_t) = truncate_max(max, s.statistics_truncate_length);
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
    let flba = |v: Vec<u8>| FixedLenByteArray::from(v);
    let statistics = match min_max.min().zip(min_max.max()) {
        Some((min, max)) if s.truncatable => {
            let (min, min_t) = truncate_min(min, s.statistics_truncate_length);
            let (max, max_t) = truncate_max(max, s.statistics_truncate_length);
            ValueStatistics::new(
                Some(flba(min)),
                Some(flba(max)),
                distinct_count,
                Some(nulls),
                false,
            )
            .with_backwards_compatible_min_max(s.signed)
            .with_max_is_exact(!max_t)
            .with_min_is_exact(!min_t)
        }
        _ => crate::compat::with_nan_count(
            ValueStatistics::new(
                min_max.min().map(|v| flba(v.to_vec())),
                min_max.max().map(|v| flba(v.to_vec())),
                distinct_count,
                Some(nulls),
                false,
            ),
            nans,
        )
        .with_backwards_compatible_min_max(s.signed),
    };
    Statistics::from(statistics)
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

/// Truncates a min statistic to `limit` bytes; returns whether it truncated.
pub(crate) fn truncate_min(value: &[u8], limit: Option<usize>) -> (Vec<u8>, bool) {
    match limit {
        Some(l) if value.len() > l => (value[..l].to_vec(), true),
        _ => (value.to_vec(), false),
    }
}

/// Truncates a max statistic to `limit` bytes and increments it so it stays
/// an upper bound; keeps the full value when the prefix is all 0xFF.
pub(crate) fn truncate_max(value: &[u8], limit: Option<usize>) -> (Vec<u8>, bool) {
    match limit {
        Some(l) if value.len() > l => {
            let mut prefix = value[..l].to_vec();
            for byte in prefix.iter_mut().rev() {
                let (v, overflow) = byte.overflowing_add(1);
                *byte = v;
                if !overflow {
                    return (prefix, true);
                }
            }
            (value.to_vec(), false)
        }
        _ => (value.to_vec(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation() {
        assert_eq!(truncate_min(&[1, 2, 3], Some(2)), (vec![1, 2], true));
        assert_eq!(truncate_max(&[1, 2, 3], Some(2)), (vec![1, 3], true));
        assert_eq!(truncate_max(&[1, 0xFF, 3], Some(2)), (vec![2, 0], true));
        assert_eq!(
            truncate_max(&[0xFF, 0xFF, 3], Some(2)),
            (vec![0xFF, 0xFF, 3], false)
        );
        assert_eq!(truncate_max(&[1, 2], Some(2)), (vec![1, 2], false));
        assert_eq!(truncate_max(&[1, 2], None), (vec![1, 2], false));
    }
}
