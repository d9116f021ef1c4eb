//! Widths and physical types: the bytes a value takes in Parquet, and how a
//! decimal is stored for its precision, as `parquet`'s schema converter
//! decides it.

use arrow_schema::DataType;

/// Byte width of a decimal of `precision` digits stored as
/// FIXED_LEN_BYTE_ARRAY, computed as `parquet` computes it.
pub(crate) fn decimal_width(precision: u8) -> usize {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as usize
}

/// Bytes per value of a column in its Parquet form: 1 for BOOLEAN (a value
/// is the byte 0 or 1 until it is encoded), 4 for INT32 and FLOAT, 8 for
/// INT64 and DOUBLE, 12 for INT96, the type length for
/// FIXED_LEN_BYTE_ARRAY; None for BYTE_ARRAY, whose values vary in width.
pub(crate) fn value_width(descr: &parquet::schema::types::ColumnDescriptor) -> Option<usize> {
    use parquet::basic::Type;
    Some(match descr.physical_type() {
        Type::BOOLEAN => 1,
        Type::INT32 | Type::FLOAT => 4,
        Type::INT64 | Type::DOUBLE => 8,
        Type::INT96 => 12,
        Type::FIXED_LEN_BYTE_ARRAY => descr.type_length().max(0) as usize,
        Type::BYTE_ARRAY => return None,
    })
}

/// Bytes a decimal of `precision` digits is stored in, as `parquet`'s schema
/// converter stores it: INT32 (4) up to 9 digits, INT64 (8) up to 18,
/// FIXED_LEN_BYTE_ARRAY of [`decimal_width`] bytes above.
pub(crate) fn decimal_stored_width(precision: u8) -> usize {
    match decimal_physical_type(precision) {
        parquet::basic::Type::INT32 => 4,
        parquet::basic::Type::INT64 => 8,
        _ => decimal_width(precision),
    }
}

/// The physical type `parquet`'s schema converter stores a decimal of
/// `precision` digits as (precision 1 is INT64 under parquet 59, D14).
pub(crate) fn decimal_physical_type(precision: u8) -> parquet::basic::Type {
    use parquet::basic::Type;
    match precision {
        p if (crate::compat::DECIMAL_INT32_MIN_PRECISION..=9).contains(&p) => Type::INT32,
        0..=18 => Type::INT64,
        _ => Type::FIXED_LEN_BYTE_ARRAY,
    }
}

/// The name of the physical type a decimal of `precision` digits is stored as.
pub(crate) fn decimal_physical_name(precision: u8) -> &'static str {
    match decimal_physical_type(precision) {
        parquet::basic::Type::INT32 => "INT32",
        parquet::basic::Type::INT64 => "INT64",
        _ => "FIXED_LEN_BYTE_ARRAY",
    }
}

/// The precision of a decimal type (0 for any other type).
pub(crate) fn decimal_precision(data_type: &DataType) -> u8 {
    match data_type {
        DataType::Decimal32(p, _)
        | DataType::Decimal64(p, _)
        | DataType::Decimal128(p, _)
        | DataType::Decimal256(p, _) => *p,
        _ => 0,
    }
}
