//! The column plan: for every Parquet leaf, whether this crate's fast
//! writer (fixed-width types: FIXED_LEN_BYTE_ARRAY types, decimals of every
//! precision, integers, dates, times, timestamps, durations) encodes it or
//! `parquet`'s own column writer does, and why. It is the one place that decides; [`compute_leaves`],
//! the row-group factory and [`ArrowWriter`] all follow it.
//!
//! A leaf takes the fast path when its Arrow type is one this crate writes
//! ([`LeafKind`]) and its Parquet descriptor is
//! what `parquet`'s schema converter makes of that type, unless the file
//! is encrypted or (with content-defined chunking) it sits in a field that
//! cannot be split between two writers. See [`DelegateReason`] for every
//! reason a leaf goes to `parquet`.
//!
//! [`compute_leaves`]: crate::compute_leaves
//! [`ArrowWriter`]: crate::ArrowWriter

mod build;
mod display;
mod kind;
mod primitive;

pub use kind::LeafKind;
pub(crate) use kind::fast_candidate;

use arrow_schema::DataType;
use parquet::basic::Type as PhysicalType;
use parquet::schema::types::{ColumnDescPtr, ColumnPath};

/// Which writer encodes a leaf column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeafPath {
    /// This crate's own column writer.
    Fast,
    /// `parquet`'s own column writer (see [`LeafPlan::reason`]).
    Parquet,
}

/// Why a leaf is written by `parquet`'s own column writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DelegateReason {
    /// Its Arrow type is not one this crate writes ([`LeafKind`] lists
    /// those). The name is historical: the fast path began with
    /// FIXED_LEN_BYTE_ARRAY types and now takes every fixed-width type.
    NotFixedLenByteArray,
    /// `Interval(MonthDayNano)`, which `parquet` rejects as well.
    IntervalMonthDayNano,
    /// The properties give the leaf the ALP encoding (parquet 60's
    /// adaptive lossless floating-point encoding), which this crate does
    /// not implement.
    AlpEncoding,
    /// `Null`: a column without values (`parquet` writes an INT32 column
    /// of nulls with the UNKNOWN logical type); there is nothing to encode
    /// faster.
    NullType,
    /// The file has encryption properties: pages are encrypted by
    /// `parquet`'s crate-private `FileEncryptor`.
    Encrypted,
    /// An explicit Parquet schema gives the leaf another width, logical or
    /// converted type than `parquet`'s schema converter would.
    ParquetSchemaMismatch,
    /// A binary leaf of a geospatial logical type (Geometry, Geography):
    /// `parquet` writes geospatial statistics for it, which this crate does
    /// not compute.
    GeospatialType,
    /// The Arrow and Parquet schemas do not line up field by field (or a
    /// field has a type this crate cannot enumerate the leaves of): every
    /// leaf goes to `parquet`.
    SchemaNotMapped,
    /// With content-defined chunking, a field whose fast and other leaves
    /// cannot be split between two writers (a map mixing both kinds, which
    /// cannot lose its keys or values) goes whole to the inner `parquet`
    /// writer.
    CdcUnsplittableField,
    /// Built with the `parquet-59` or the `parquet-58` feature, a leaf under
    /// a dictionary or run-end-encoded type in the schema: parquet 59 and 58
    /// write those by rules of their own (a dictionary of `FixedSizeBinary`
    /// through the byte-array writer, run-end values' nullability ignored;
    /// 58 refuses run-end-encoded fields altogether), which this crate
    /// leaves to them. Never given with `parquet-60`.
    WrappedUnderParquet59,
    /// The `parquet` release this build resolved
    /// ([`PARQUET_RELEASE`](crate::PARQUET_RELEASE)) is a patch release
    /// this crate was not checked against
    /// ([`VERIFIED_PARQUET_RELEASES`](crate::VERIFIED_PARQUET_RELEASES)):
    /// every leaf goes to `parquet`, so the file is still exactly its.
    UnverifiedRelease,
    /// The leaf's compression codec is one whose cargo feature (`snap`,
    /// `flate2`, `brotli`, `lz4`, `zstd`: parquet's names) this build left
    /// out while `parquet` has it (another crate of the program turned
    /// parquet's feature on): `parquet` compresses it.
    CodecFeatureOff,
}

/// The plan of one Parquet leaf column.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafPlan {
    column: usize,
    field: usize,
    arrow_type: Option<DataType>,
    descr: ColumnDescPtr,
    kind: Option<LeafKind>,
    reason: Option<DelegateReason>,
}

impl LeafPlan {
    /// Index of the leaf among the file's leaf columns.
    pub fn column_index(&self) -> usize {
        self.column
    }

    /// Index of the top-level Arrow field the leaf belongs to (None when
    /// the schemas do not line up field by field).
    pub fn field_index(&self) -> Option<usize> {
        (self.reason != Some(DelegateReason::SchemaNotMapped)).then_some(self.field)
    }

    /// The leaf's Parquet column path.
    pub fn column_path(&self) -> &ColumnPath {
        self.descr.path()
    }

    /// The leaf's Arrow type (dictionary and run-end-encoded wrappers looked
    /// through); None when the schemas do not line up field by field.
    pub fn arrow_type(&self) -> Option<&DataType> {
        self.arrow_type.as_ref()
    }

    /// The leaf's Parquet physical type.
    pub fn physical_type(&self) -> PhysicalType {
        self.descr.physical_type()
    }

    /// Which writer encodes the leaf.
    pub fn path(&self) -> LeafPath {
        match self.reason {
            None => LeafPath::Fast,
            Some(_) => LeafPath::Parquet,
        }
    }

    /// The kind of leaf its Arrow type makes, if this crate writes that type
    /// (also for a leaf delegated for another reason than its type).
    pub fn kind(&self) -> Option<LeafKind> {
        self.kind
    }

    /// Why the leaf goes to `parquet`'s writer; None on the fast path.
    pub fn reason(&self) -> Option<DelegateReason> {
        self.reason
    }

    /// Whether the leaf takes the fast path.
    pub(crate) fn is_fast(&self) -> bool {
        self.reason.is_none()
    }

    /// A first guess at the leaf's write cost in nanoseconds per 1,024
    /// rows, before one is measured (it orders the tasks of
    /// `ArrowWriter::with_threads`; never affects bytes): about 2 value
    /// bytes per nanosecond on the fast path, four times slower through
    /// `parquet`'s writer, byte arrays counted as 32 bytes.
    pub(crate) fn cost_hint(&self) -> u64 {
        use parquet::basic::Type;
        let width = match self.descr.physical_type() {
            Type::BOOLEAN => 1,
            Type::INT32 | Type::FLOAT => 4,
            Type::INT64 | Type::DOUBLE => 8,
            Type::INT96 => 12,
            Type::FIXED_LEN_BYTE_ARRAY => {
                u64::try_from(self.descr.type_length()).unwrap_or(0).max(1)
            }
            Type::BYTE_ARRAY => 32,
        };
        let per_byte = if self.is_fast() {
            1024 / 2
        } else {
            4 * 1024 / 2
        };
        width * per_byte
    }
}

/// How the leaves of one top-level field line up with the file's leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FieldSpan {
    /// The field's first leaf column.
    pub(crate) first: usize,
    /// Number of leaves.
    pub(crate) len: usize,
    /// A single fast leaf at the top level, not run-end-encoded in the
    /// schema (plain or dictionary-typed): its array is written as it is,
    /// with levels straight from the validity bitmap — for a
    /// dictionary-typed field only when the array has the field's very type
    /// (`column::leaves::writes_flat` decides per array; other arrays take
    /// the levels).
    pub(crate) flat: bool,
}

impl FieldSpan {
    /// The field's leaf columns.
    pub(crate) fn leaves(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.len
    }
}

/// How a whole file is written, as decided by its plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileRoute {
    /// Row groups encoded here, leaf by leaf (fast leaves by this crate,
    /// the others by `parquet`'s column writers).
    Columns,
    /// Content-defined chunking with leaves on both paths: `parquet`'s
    /// leaves through an inner `parquet` writer, spliced in.
    Split,
    /// Content-defined chunking with no fast leaf: `parquet`'s
    /// `ArrowWriter` writes the file.
    Parquet,
}

/// Per leaf column of a schema: which writer encodes it, and why.
///
/// Get it from [`ArrowWriter::column_plan`](crate::ArrowWriter::column_plan)
/// or [`ArrowRowGroupWriterFactory::column_plan`](crate::ArrowRowGroupWriterFactory::column_plan);
/// its [`Display`](std::fmt::Display) is a table with one line per leaf.
///
/// ```
/// # use parquet_flba::{arrow_array, arrow_schema, parquet};
/// # use std::sync::Arc;
/// # use arrow_schema::{DataType, Field, Schema};
/// use parquet_flba::{ArrowWriter, LeafKind, LeafPath};
///
/// let schema = Arc::new(Schema::new(vec![
///     Field::new("price", DataType::Decimal128(38, 10), false),
///     Field::new("ts", DataType::Int64, false),
///     Field::new("note", DataType::Null, true),
/// ]));
/// let writer = ArrowWriter::try_new(Vec::new(), schema, None).unwrap();
/// let plan = writer.column_plan();
/// assert_eq!(plan.leaves()[0].path(), LeafPath::Fast);
/// assert_eq!(plan.leaves()[0].kind(), Some(LeafKind::Decimal128));
/// assert_eq!(plan.leaves()[1].kind(), Some(LeafKind::Int64));
/// assert_eq!(plan.leaves()[2].path(), LeafPath::Parquet);
/// println!("{plan}"); // one line per leaf: path, types, route, reason
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnPlan {
    leaves: Vec<LeafPlan>,
    /// Per top-level field; None when the schemas do not line up.
    fields: Option<Vec<FieldSpan>>,
    /// Whether the plan is for a whole file written with content-defined
    /// chunking (which decides [`FileRoute`]).
    cdc: bool,
    /// Why the selected `parquet` release cannot write this schema with
    /// these properties (it would panic creating a column writer): the
    /// error every row group then gets.
    unwritable: Option<String>,
}

impl ColumnPlan {
    /// The leaves, in the file's column order.
    pub fn leaves(&self) -> &[LeafPlan] {
        &self.leaves
    }

    /// Number of leaves on the fast path.
    pub fn fast_count(&self) -> usize {
        self.leaves.iter().filter(|l| l.is_fast()).count()
    }

    /// The leaf spans of the top-level fields (None if the schemas do not
    /// line up field by field, in which case no leaf is fast).
    pub(crate) fn fields(&self) -> Option<&[FieldSpan]> {
        self.fields.as_deref()
    }

    /// Whether leaf `column` takes the fast path.
    pub(crate) fn is_fast(&self, column: usize) -> bool {
        self.leaves.get(column).is_some_and(LeafPlan::is_fast)
    }

    /// The kind of fast leaf `column` (None if it is `parquet`'s).
    pub(crate) fn fast_kind(&self, column: usize) -> Option<LeafKind> {
        self.leaves
            .get(column)
            .filter(|l| l.is_fast())
            .and_then(|l| l.kind)
    }

    /// Fails when the selected `parquet` release cannot write this schema
    /// with these properties (see `compat::UNWRITABLE_CHECKS`).
    pub(crate) fn check_writable(&self) -> parquet::errors::Result<()> {
        match &self.unwritable {
            Some(e) => Err(parquet::errors::ParquetError::General(e.clone())),
            None => Ok(()),
        }
    }

    /// How a file with this plan is written.
    pub(crate) fn file_route(&self) -> FileRoute {
        let fast = self.fast_count();
        match self.cdc {
            false => FileRoute::Columns,
            true if fast == self.leaves.len() => FileRoute::Columns,
            true if fast == 0 => FileRoute::Parquet,
            true => FileRoute::Split,
        }
    }
}
