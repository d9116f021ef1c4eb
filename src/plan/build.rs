//! Building the plan: the Arrow type and the Parquet descriptor of every
//! leaf, judged together.

use super::{ColumnPlan, DelegateReason, FieldSpan, LeafKind, LeafPlan, fast_candidate};
use crate::compat::codecs::{Codec, missing_in_parquet};
use crate::schema::{Layers, leaf_count, mixes_unprunable, parquet_leaf_count, visit_leaves};
use crate::values::decimal_width;
use arrow_schema::{DataType, Field, IntervalUnit, Schema};
use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as PhysicalType};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};

impl ColumnPlan {
    /// The plan of the column-level API (the row-group factory): every leaf
    /// judged on its own.
    pub(crate) fn for_columns(
        arrow: &Schema,
        parquet: &SchemaDescriptor,
        props: &WriterProperties,
    ) -> Self {
        let mut plan = Self::judge(arrow, parquet);
        let compression = |l: usize| props.compression(parquet.column(l).path());
        plan.unwritable = missing_in_parquet((0..parquet.num_columns()).map(compression))
            .map(|e| match e {
                ParquetError::General(message) => message,
                other => other.to_string(),
            })
            .or_else(|| unwritable(arrow, parquet, props));
        plan.delegate_fast(
            |l| Codec::of(compression(l)).is_some_and(|c| !c.built_here() && c.in_parquet()),
            DelegateReason::CodecFeatureOff,
        );
        if encrypted(props) {
            plan.delegate_fast(|_| true, DelegateReason::Encrypted);
        }
        let alp: Vec<bool> = (parquet.columns().iter())
            .map(|descr| {
                props
                    .encoding(descr.path())
                    .is_some_and(crate::compat::is_alp)
            })
            .collect();
        plan.delegate_fast(|l| alp[l], DelegateReason::AlpEncoding);
        if !crate::compat::RELEASE_VERIFIED {
            plan.delegate_fast(|_| true, DelegateReason::UnverifiedRelease);
        }
        plan
    }

    /// The plan of a whole file: as [`Self::for_columns`], and with
    /// content-defined chunking, fields that cannot be split between this
    /// crate and an inner `parquet` writer go to `parquet` whole.
    pub(crate) fn for_file(
        arrow: &Schema,
        parquet: &SchemaDescriptor,
        props: &WriterProperties,
    ) -> Self {
        let mut plan = Self::for_columns(arrow, parquet, props);
        plan.cdc = props.content_defined_chunking().is_some();
        if let (true, Some(fields)) = (plan.cdc, plan.fields.clone()) {
            for (span, field) in fields.iter().zip(arrow.fields()) {
                let fast: Vec<bool> = span.leaves().map(|l| plan.is_fast(l)).collect();
                if mixes_unprunable(field.data_type(), &fast, &mut 0) {
                    let leaves = span.leaves();
                    plan.delegate_fast(
                        |l| leaves.contains(&l),
                        DelegateReason::CdcUnsplittableField,
                    );
                }
            }
        }
        plan
    }

    /// Sends the fast leaves that `which` selects to `parquet`.
    fn delegate_fast(&mut self, which: impl Fn(usize) -> bool, reason: DelegateReason) {
        for leaf in self.leaves.iter_mut().filter(|l| which(l.column)) {
            leaf.reason.get_or_insert(reason);
        }
        if let Some(fields) = &mut self.fields {
            for span in fields.iter_mut() {
                span.flat &= self.leaves[span.first].reason.is_none();
            }
        }
    }

    /// Every leaf judged by its Arrow type and descriptor.
    fn judge(arrow: &Schema, parquet: &SchemaDescriptor) -> Self {
        let Some(fields) = line_up(arrow, parquet) else {
            return Self::not_mapped(parquet);
        };
        let mut leaves = Vec::with_capacity(parquet.num_columns());
        for (index, (field, span)) in arrow.fields().iter().zip(&fields).enumerate() {
            let mut types = Vec::with_capacity(span.len);
            visit_leaves(field.data_type(), Layers::default(), &mut |t, l| {
                types.push((t, l))
            });
            if types.len() != span.len {
                return Self::not_mapped(parquet);
            }
            for (leaf, (data_type, layers)) in span.leaves().zip(types) {
                let descr = parquet.column(leaf);
                let kind = LeafKind::of(data_type);
                let reason = judge_leaf(data_type, &descr).or_else(|| {
                    (layers.wrapped && !crate::compat::FAST_UNDER_DICTIONARY_OR_RUN_ENDS)
                        .then_some(DelegateReason::WrappedUnderParquet59)
                });
                leaves.push(LeafPlan {
                    column: leaf,
                    field: index,
                    arrow_type: Some(data_type.clone()),
                    descr,
                    kind,
                    reason,
                });
            }
        }
        let fields = fields
            .into_iter()
            .zip(arrow.fields())
            .map(|(span, field)| FieldSpan {
                flat: span.len == 1
                    && leaves[span.first].is_fast()
                    && is_flat(field, &parquet.column(span.first)),
                ..span
            })
            .collect();
        Self {
            leaves,
            fields: Some(fields),
            cdc: false,
            unwritable: None,
        }
    }

    /// Every leaf to `parquet`, for schemas that do not line up.
    fn not_mapped(parquet: &SchemaDescriptor) -> Self {
        let leaves = parquet
            .columns()
            .iter()
            .enumerate()
            .map(|(column, descr)| LeafPlan {
                column,
                field: 0,
                arrow_type: None,
                descr: descr.clone(),
                kind: None,
                reason: Some(DelegateReason::SchemaNotMapped),
            })
            .collect();
        Self {
            leaves,
            fields: None,
            cdc: false,
            unwritable: None,
        }
    }
}

/// parquet 59.2 writes a leaf whose schema type is `Dictionary(_,
/// FixedSizeBinary)` with its byte-array writer, which takes only PLAIN,
/// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY and panics creating the
/// writer for another encoding: the error this crate gives instead, if any
/// such leaf has another encoding. (60 has no such leaf.)
fn unwritable(
    arrow: &Schema,
    parquet: &SchemaDescriptor,
    props: &WriterProperties,
) -> Option<String> {
    use parquet::basic::Encoding;
    use parquet::file::properties::WriterVersion;
    if crate::compat::FAST_UNDER_DICTIONARY_OR_RUN_ENDS || line_up(arrow, parquet).is_none() {
        return None;
    }
    let mut byte_array = Vec::with_capacity(parquet.num_columns());
    for field in arrow.fields() {
        visit_leaves(field.data_type(), Layers::default(), &mut |t, l| {
            byte_array.push(l.in_dictionary && matches!(t, DataType::FixedSizeBinary(_)))
        });
    }
    let columns = parquet.columns().iter().zip(byte_array);
    columns.filter(|(_, b)| *b).find_map(|(descr, _)| {
        let encoding = props
            .encoding(descr.path())
            .unwrap_or(match props.writer_version() {
                WriterVersion::PARQUET_1_0 => Encoding::PLAIN,
                WriterVersion::PARQUET_2_0 => Encoding::DELTA_BYTE_ARRAY,
            });
        let supported = [
            Encoding::PLAIN,
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Encoding::DELTA_BYTE_ARRAY,
        ];
        (!supported.contains(&encoding)).then(|| {
            format!(
                "Column '{}': parquet {} cannot write a Dictionary(_, FixedSizeBinary) \
                 column with encoding {encoding} (its byte-array writer takes PLAIN, \
                 DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY, and panics otherwise)",
                descr.path().string(),
                crate::compat::RESOLVED_RELEASE
            )
        })
    })
}

/// The leaf spans of the Arrow fields, if each has as many leaves as the
/// Parquet field in the same position.
fn line_up(arrow: &Schema, parquet: &SchemaDescriptor) -> Option<Vec<FieldSpan>> {
    let top = parquet.root_schema().get_fields();
    if top.len() != arrow.fields().len() {
        return None;
    }
    let mut spans = Vec::with_capacity(top.len());
    let mut first = 0;
    for (field, parquet_field) in arrow.fields().iter().zip(top) {
        let len = leaf_count(field.data_type())?;
        if len != parquet_leaf_count(parquet_field) {
            return None;
        }
        spans.push(FieldSpan {
            first,
            len,
            flat: false,
        });
        first += len;
    }
    (first == parquet.num_columns()).then_some(spans)
}

/// Why a leaf of this Arrow type and descriptor goes to `parquet`, if it
/// does.
fn judge_leaf(data_type: &DataType, descr: &ColumnDescriptor) -> Option<DelegateReason> {
    if fast_candidate(data_type).is_none() {
        return Some(match data_type {
            DataType::Interval(IntervalUnit::MonthDayNano) => DelegateReason::IntervalMonthDayNano,
            DataType::Null => DelegateReason::NullType,
            _ => DelegateReason::NotFixedLenByteArray,
        });
    }
    let geospatial = matches!(
        descr.logical_type_ref(),
        Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. })
    );
    if geospatial {
        return Some(DelegateReason::GeospatialType);
    }
    (!converter_agrees(data_type, descr)).then_some(DelegateReason::ParquetSchemaMismatch)
}

/// Whether `descr` is what `parquet`'s schema converter makes of a leaf of
/// `data_type` (a candidate for the fast path): the physical type, width,
/// logical and converted type it gives that Arrow type (a decimal: INT32
/// for precision 1 to 9, INT64 up to 18, FIXED_LEN_BYTE_ARRAY above). A
/// UUID logical type on a fixed-size binary is accepted too: it changes no
/// byte of the column chunk.
fn converter_agrees(data_type: &DataType, descr: &ColumnDescriptor) -> bool {
    let logical = descr.logical_type_ref();
    if let DataType::Decimal32(p, s)
    | DataType::Decimal64(p, s)
    | DataType::Decimal128(p, s)
    | DataType::Decimal256(p, s) = data_type
    {
        let physical = crate::values::decimal_physical_type(*p);
        let width_agrees = physical != PhysicalType::FIXED_LEN_BYTE_ARRAY
            || usize::try_from(descr.type_length()) == Ok(decimal_width(*p));
        // A Decimal32 stored as INT64 (precision 1 under parquet 59, D14)
        // is one `parquet` cannot write either: its error stays its own.
        let writable =
            !(matches!(data_type, DataType::Decimal32(..)) && physical == PhysicalType::INT64);
        return descr.physical_type() == physical
            && writable
            && width_agrees
            && crate::compat::decimal_scale_precision(logical)
                == Some((i32::from(*s), i32::from(*p)));
    }
    if descr.physical_type() == PhysicalType::BYTE_ARRAY {
        return byte_array_agrees(data_type, descr);
    }
    if descr.physical_type() != PhysicalType::FIXED_LEN_BYTE_ARRAY {
        return super::primitive::primitive_agrees(data_type, descr);
    }
    let width = usize::try_from(descr.type_length()).unwrap_or(0);
    let converted = descr.converted_type();
    match data_type {
        DataType::FixedSizeBinary(n) => {
            usize::try_from(*n) == Ok(width)
                && converted == ConvertedType::NONE
                && matches!(logical, None | Some(LogicalType::Uuid))
        }
        DataType::Float16 => width == 2 && logical == Some(&LogicalType::Float16),
        DataType::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => {
            width == 12 && logical.is_none() && converted == ConvertedType::INTERVAL
        }
        _ => false,
    }
}

/// Whether a BYTE_ARRAY descriptor is what `parquet`'s schema converter
/// makes of a string or binary type: a string is String (or Json, for the
/// canonical JSON extension type), a binary has no logical type (the
/// geospatial types, which carry statistics of their own, stay `parquet`'s).
fn byte_array_agrees(data_type: &DataType, descr: &ColumnDescriptor) -> bool {
    let (logical, converted) = (descr.logical_type_ref(), descr.converted_type());
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => matches!(
            (logical, converted),
            (Some(LogicalType::String), ConvertedType::UTF8)
                | (Some(LogicalType::Json), ConvertedType::JSON)
        ),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            logical.is_none() && converted == ConvertedType::NONE
        }
        _ => false,
    }
}

/// Whether a single-leaf top-level field can be written from its array as
/// it is: a plain type or a dictionary of one (whose logical nulls are the
/// leaf's; not run-end-encoded), at the top of the Parquet schema with the
/// field's nullability.
fn is_flat(field: &Field, descr: &ColumnDescriptor) -> bool {
    let repetition = match field.is_nullable() {
        true => Repetition::OPTIONAL,
        false => Repetition::REQUIRED,
    };
    let value_type = match field.data_type() {
        DataType::Dictionary(_, value) => value.as_ref(),
        t => t,
    };
    LeafKind::of(value_type).is_some()
        && descr.max_rep_level() == 0
        && descr.max_def_level() == i16::from(field.is_nullable())
        && descr.self_type().get_basic_info().repetition() == repetition
        && descr.path().parts().len() == 1
}

#[cfg(feature = "encryption")]
fn encrypted(props: &WriterProperties) -> bool {
    props.file_encryption_properties().is_some()
}

/// Without this crate's `encryption` feature, `parquet` may still have its
/// own (another crate of the program turned it on, as DataFusion's
/// `parquet_encryption` does), and then `props` can carry encryption
/// properties that this build has no accessor for. Its `Debug` form shows
/// them; a file that has them goes wholly to `parquet`, which encrypts it,
/// instead of getting plaintext pages from this crate.
#[cfg(not(feature = "encryption"))]
fn encrypted(props: &WriterProperties) -> bool {
    format!("{props:?}").contains("file_encryption_properties: Some(")
}
