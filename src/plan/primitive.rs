//! What `parquet`'s schema converter makes of the fixed-width primitive
//! types (integers, dates, times, timestamps, durations, floats, booleans):
//! the physical and logical types a leaf's descriptor must have for the
//! fast path to write it as `parquet` would.

use crate::compat::{integer_logical, time_logical, timestamp_logical};
use arrow_schema::{DataType, TimeUnit};
use parquet::basic::{LogicalType, TimeUnit as ParquetTimeUnit, Type as PhysicalType};
use parquet::schema::types::{ColumnDescriptor, Type};

/// The `(physical, logical)` types the schema converter may give a leaf of
/// `data_type` (more than one where a setting or field metadata decides:
/// `Date64` with `coerce_types`, a time adjusted to UTC or not); empty for
/// a type that is not such a primitive.
fn converted(data_type: &DataType) -> Vec<(PhysicalType, Option<LogicalType>)> {
    use PhysicalType::{INT32, INT64};
    let int = |physical, bits, signed| vec![(physical, Some(integer_logical(bits, signed)))];
    let time = |physical, unit: ParquetTimeUnit| {
        [false, true]
            .map(|utc| (physical, Some(time_logical(utc, unit))))
            .to_vec()
    };
    match data_type {
        DataType::Int8 => int(INT32, 8, true),
        DataType::Int16 => int(INT32, 16, true),
        DataType::Int32 => vec![(INT32, None)],
        DataType::Int64 => vec![(INT64, None)],
        DataType::UInt8 => int(INT32, 8, false),
        DataType::UInt16 => int(INT32, 16, false),
        DataType::UInt32 => int(INT32, 32, false),
        DataType::UInt64 => int(INT64, 64, false),
        DataType::Date32 => vec![(INT32, Some(LogicalType::Date))],
        DataType::Date64 => vec![(INT32, Some(LogicalType::Date)), (INT64, None)],
        DataType::Time32(TimeUnit::Second) => vec![(INT32, None)],
        DataType::Time32(TimeUnit::Millisecond) => time(INT32, ParquetTimeUnit::MILLIS),
        DataType::Time64(TimeUnit::Microsecond) => time(INT64, ParquetTimeUnit::MICROS),
        DataType::Time64(TimeUnit::Nanosecond) => time(INT64, ParquetTimeUnit::NANOS),
        DataType::Timestamp(TimeUnit::Second, _) => vec![(INT64, None)],
        DataType::Timestamp(unit, tz) => {
            let utc = tz.as_ref().is_some_and(|z| !z.is_empty());
            let unit = match unit {
                TimeUnit::Millisecond => ParquetTimeUnit::MILLIS,
                TimeUnit::Microsecond => ParquetTimeUnit::MICROS,
                _ => ParquetTimeUnit::NANOS,
            };
            vec![(INT64, Some(timestamp_logical(utc, unit)))]
        }
        DataType::Duration(_) => vec![(INT64, None)],
        DataType::Float32 => vec![(PhysicalType::FLOAT, None)],
        DataType::Float64 => vec![(PhysicalType::DOUBLE, None)],
        DataType::Boolean => vec![(PhysicalType::BOOLEAN, None)],
        _ => vec![],
    }
}

/// Whether `descr` is what the schema converter makes of a primitive leaf
/// of `data_type`: its physical type, its logical type and the converted
/// type that logical type implies.
pub(super) fn primitive_agrees(data_type: &DataType, descr: &ColumnDescriptor) -> bool {
    converted(data_type).into_iter().any(|(physical, logical)| {
        descr.physical_type() == physical
            && descr.logical_type_ref() == logical.as_ref()
            && Type::primitive_type_builder("leaf", physical)
                .with_logical_type(logical)
                .build()
                .is_ok_and(|t| t.get_basic_info().converted_type() == descr.converted_type())
    })
}
