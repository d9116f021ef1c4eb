//! Byte identity cannot tell `parquet_flba`'s fast path from a silent
//! fallback to parquet's writer: these checks can.
//!
//! * [`check_plan_fast`]: a plan sends a leaf this crate writes (an FLBA or
//!   decimal type) to parquet only for a reason the scenario explains (an
//!   encrypted file, an explicit Parquet schema, parquet 58/59's rules for
//!   dictionaries, an unsplittable field under CDC, a column given ALP, a
//!   geospatial type). A plan that delegates
//!   everything fails it.
//! * [`ColumnsPlanned`] and [`ChunkPath`]: the same for the column-level
//!   API (the row-group factory's plan), and each chunk against it.
//!
//! A sibling of `writers` (shared with the main crate's `tests/common`).

use parquet::file::properties::WriterProperties;
use parquet_flba::{ColumnPlan, DelegateReason, LeafPath};

/// `Err` naming the first leaf of `plan` that this crate writes but the
/// plan sends to parquet without a reason the scenario explains: the file
/// has encryption properties (`props`), or an explicit Parquet schema
/// (`explicit_schema`), or parquet 58/59 write the leaf by rules of their
/// own, or (under CDC) its field cannot be split.
pub fn check_plan_fast(
    plan: &ColumnPlan,
    props: &WriterProperties,
    explicit_schema: bool,
) -> Result<(), String> {
    let encrypted = format!("{props:?}").contains("file_encryption_properties: Some(");
    let before_60 = !super::release::PARQUET_60;
    for leaf in plan.leaves() {
        if leaf.kind().is_none() || leaf.path() == LeafPath::Fast {
            continue;
        }
        let explained = match leaf.reason() {
            Some(DelegateReason::Encrypted) => encrypted,
            Some(DelegateReason::ParquetSchemaMismatch | DelegateReason::SchemaNotMapped) => {
                // parquet 58/59 store a precision-1 decimal as INT64, which
                // a Decimal32 cannot be written as (D14): parquet's error.
                let d14 = before_60
                    && matches!(
                        leaf.arrow_type(),
                        Some(arrow_schema::DataType::Decimal32(1, _))
                    );
                explicit_schema || d14
            }
            Some(DelegateReason::WrappedUnderParquet59) => before_60,
            Some(DelegateReason::CdcUnsplittableField) => {
                props.content_defined_chunking().is_some()
            }
            // The properties give the column ALP (parquet 60.1's own
            // floating-point encoding).
            Some(DelegateReason::AlpEncoding) => props
                .encoding(leaf.column_path())
                .is_some_and(|e| format!("{e:?}") == "ALP"),
            // parquet writes geospatial statistics for it: a type rule.
            Some(DelegateReason::GeospatialType) => true,
            _ => false,
        };
        if !explained {
            return Err(format!(
                "leaf {} ({:?}) is written by parquet, not on the fast path: {:?}",
                leaf.column_path().string(),
                leaf.kind(),
                leaf.reason()
            ));
        }
    }
    Ok(())
}

/// A row-group factory of either side: for `parquet_flba`'s, its plan
/// checked ([`check_plan_fast`]) and each leaf's planned path.
pub trait ColumnsPlanned {
    /// [`check_plan_fast`] of the factory's plan (nothing for parquet's).
    fn check_plan_fast(
        &self,
        props: &WriterProperties,
        explicit_schema: bool,
    ) -> Result<(), String>;
    /// Whether leaf `leaf` is planned fast (`None` for parquet's factory).
    fn planned_fast(&self, leaf: usize) -> Option<bool>;
}

impl ColumnsPlanned for parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory {
    fn check_plan_fast(&self, _: &WriterProperties, _: bool) -> Result<(), String> {
        Ok(())
    }

    fn planned_fast(&self, _: usize) -> Option<bool> {
        None
    }
}

impl ColumnsPlanned for parquet_flba::ArrowRowGroupWriterFactory {
    fn check_plan_fast(
        &self,
        props: &WriterProperties,
        explicit_schema: bool,
    ) -> Result<(), String> {
        check_plan_fast(self.column_plan(), props, explicit_schema)
    }

    fn planned_fast(&self, leaf: usize) -> Option<bool> {
        let leaf = self.column_plan().leaves().get(leaf)?;
        Some(leaf.path() == LeafPath::Fast)
    }
}

/// A column chunk of either side: which writer encoded it (`None` for
/// parquet's chunks, which cannot tell).
pub trait ChunkPath {
    /// Whether this crate's fast writer encoded the chunk.
    fn fast(&self) -> Option<bool>;
}

impl ChunkPath for parquet::arrow::arrow_writer::ArrowColumnChunk {
    fn fast(&self) -> Option<bool> {
        None
    }
}

impl ChunkPath for parquet_flba::ArrowColumnChunk {
    fn fast(&self) -> Option<bool> {
        Some(self.path() == LeafPath::Fast)
    }
}

/// `Err` when chunk `chunk` of leaf `leaf` came from another writer than
/// `factory`'s plan says.
pub fn check_chunk(
    factory: &impl ColumnsPlanned,
    leaf: usize,
    chunk: &impl ChunkPath,
) -> Result<(), String> {
    match (factory.planned_fast(leaf), chunk.fast()) {
        (Some(planned), Some(ran)) if planned != ran => Err(format!(
            "leaf {leaf} is planned {} but its chunk came from {}",
            if planned { "fast" } else { "for parquet" },
            if ran {
                "the fast writer"
            } else {
                "parquet's writer"
            }
        )),
        _ => Ok(()),
    }
}
