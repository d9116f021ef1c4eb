//! [`Layout`]: which leaves the hybrid sink's inner `parquet` writer takes,
//! and the schema it writes them with.

use crate::plan::ColumnPlan;
use crate::schema::prune::{prune_parquet, prune_type};
use arrow_schema::{Schema, SchemaRef};
use parquet::errors::{ParquetError, Result};
use parquet::schema::types::{Type, TypePtr};
use std::sync::Arc;

/// How a top-level field is split between this crate and the inner writer.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Part {
    /// Every leaf on the fast path.
    Outer,
    /// Every leaf through the inner writer.
    Whole,
    /// Fast leaves here, the others (`inner[i]` for the field's leaf `i`)
    /// through the inner writer, which gets the field with the fast leaves
    /// pruned away.
    Pruned(Vec<bool>),
}

/// Which leaves go where, and the inner writer's schema.
#[derive(Debug)]
pub(super) struct Layout {
    pub(super) parts: Vec<Part>,
    /// For each leaf of the file: its index among the inner writer's leaves.
    pub(super) inner_leaf: Vec<Option<usize>>,
    pub(super) sub_arrow: SchemaRef,
    pub(super) sub_root: TypePtr,
}

impl Layout {
    /// The split that `plan` (of a file whose fields line up with its
    /// Parquet schema `root`) makes.
    pub(super) fn new(arrow_schema: &SchemaRef, root: &TypePtr, plan: &ColumnPlan) -> Result<Self> {
        let spans = plan.fields().ok_or_else(|| {
            ParquetError::General("a split file needs schemas that line up".into())
        })?;
        let mut parts = Vec::with_capacity(spans.len());
        let mut arrow_fields = Vec::new();
        let mut parquet_fields = Vec::new();
        for ((span, field), ptype) in spans
            .iter()
            .zip(arrow_schema.fields())
            .zip(root.get_fields())
        {
            let inner: Vec<bool> = span.leaves().map(|l| !plan.is_fast(l)).collect();
            if !inner.iter().any(|&i| i) {
                parts.push(Part::Outer);
                continue;
            }
            if inner.iter().all(|&i| i) {
                arrow_fields.push(field.clone());
                parquet_fields.push(ptype.clone());
                parts.push(Part::Whole);
                continue;
            }
            let (Some(t), Some(pt)) = (
                prune_type(field.data_type(), &inner, &mut 0)?,
                prune_parquet(ptype, &inner, &mut 0)?,
            ) else {
                return Err(ParquetError::General(format!(
                    "field '{}' has no leaf left for the inner writer",
                    field.name()
                )));
            };
            arrow_fields.push(Arc::new(field.as_ref().clone().with_data_type(t)));
            parquet_fields.push(pt);
            parts.push(Part::Pruned(inner));
        }
        let mut next = 0;
        let inner_leaf = (0..plan.leaves().len())
            .map(|l| {
                (!plan.is_fast(l)).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        let sub_root = Type::group_type_builder(root.name())
            .with_fields(parquet_fields)
            .build()?;
        let sub_arrow = Schema::new_with_metadata(arrow_fields, arrow_schema.metadata().clone());
        Ok(Self {
            parts,
            inner_leaf,
            sub_arrow: Arc::new(sub_arrow),
            sub_root: Arc::new(sub_root),
        })
    }

    /// The file leaves the inner writer writes, in its order.
    pub(super) fn inner_leaves(&self) -> Vec<usize> {
        (0..self.inner_leaf.len())
            .filter(|&l| self.inner_leaf[l].is_some())
            .collect()
    }
}
