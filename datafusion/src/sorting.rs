//! The `sorting_columns` a parquet sink writes, from the sort order its
//! `DataSinkExec` requires.

use datafusion::arrow::datatypes::Schema;
use datafusion::datasource::file_format::write::get_writer_schema;
use datafusion::datasource::physical_plan::FileSinkConfig;
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_expr::LexOrdering;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr_common::sort_expr::{LexRequirement, PhysicalSortExpr};
use parquet_flba::parquet::file::metadata::SortingColumn;

/// The sorting columns DataFusion's parquet format gives its sink for
/// `required` (DataFusion 55.2, `ParquetFormat::create_writer_physical_plan`):
/// one per sort expression that is a plain column of the written schema,
/// indexed in that schema (partition columns, left out of the files, are
/// skipped); none at all if any expression is not a plain column or if the
/// list comes out empty.
pub(crate) fn for_requirement(
    required: Option<&LexRequirement>,
    config: &FileSinkConfig,
) -> Option<Vec<SortingColumn>> {
    let ordering: LexOrdering = required?.clone().into();
    let written = get_writer_schema(config);
    let mut columns = Vec::new();
    for expr in ordering.iter() {
        match column_of(expr, config.output_schema(), &written) {
            Ok(Some(column)) => columns.push(column),
            Ok(None) => {}
            Err(_) => return None,
        }
    }
    (!columns.is_empty()).then_some(columns)
}

/// `expr` as a sorting column of `written`; `None` if its column is not
/// written; an error if it is not a plain column of `input`.
fn column_of(
    expr: &PhysicalSortExpr,
    input: &Schema,
    written: &Schema,
) -> Result<Option<SortingColumn>> {
    let column = expr
        .expr
        .downcast_ref::<Column>()
        .ok_or_else(|| DataFusionError::Plan(format!("not a plain column: {}", expr.expr)))?;
    let field = input.fields().get(column.index()).ok_or_else(|| {
        DataFusionError::Internal(format!("column {} out of the input schema", column.index()))
    })?;
    let Some((index, _)) = written.column_with_name(field.name()) else {
        return Ok(None);
    };
    let column_idx = i32::try_from(index)
        .map_err(|_| DataFusionError::Plan(format!("column index {index} exceeds i32")))?;
    Ok(Some(SortingColumn {
        column_idx,
        descending: expr.options.descending,
        nulls_first: expr.options.nulls_first,
    }))
}
