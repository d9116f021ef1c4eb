//! The physical optimizer rule that puts [`FlbaParquetSink`] in place of
//! DataFusion's `ParquetSink`.

use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::config::ConfigOptions;
use datafusion::datasource::file_format::parquet::ParquetSink;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::Result;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;

use crate::config::FlbaOptions;
use crate::sink::FlbaParquetSink;

/// The rule's name (see [`PhysicalOptimizerRule::name`]).
pub(crate) const NAME: &str = "parquet_flba_sink";

/// A physical optimizer rule that replaces every `DataSinkExec` over
/// DataFusion's `ParquetSink` by one over [`FlbaParquetSink`] with the same
/// configuration, parquet options, input and sort order.
///
/// It catches the writes that do not look the parquet format up by
/// extension: `DataFrame::write_parquet`, and `INSERT INTO` tables whose
/// `ParquetFormat` was built directly (`register_parquet`,
/// `ListingOptions::new(Arc::new(ParquetFormat::default()))`). Sinks other
/// than DataFusion's parquet sink are left alone.
///
/// It does nothing while the session's `parquet_flba.enabled` is off
/// ([`FlbaOptions`]), and gives the sinks it makes the session's
/// `parquet_flba.threads`.
///
/// The sorting columns are derived from the sink's required sort order as
/// DataFusion's `ParquetFormat` derives them. A `ParquetSink` built by hand
/// with other sorting columns (`ParquetSink::with_sorting_columns`) does not
/// show them, so such a sink is given those of its sort order; build a
/// [`FlbaParquetSink`] directly in that case.
#[derive(Debug, Default, Clone, Copy)]
pub struct FlbaParquetSinkRule;

impl FlbaParquetSinkRule {
    /// The rule.
    pub fn new() -> Self {
        Self
    }
}

impl PhysicalOptimizerRule for FlbaParquetSinkRule {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let options = FlbaOptions::from_config(config);
        if !options.enabled {
            return Ok(plan);
        }
        plan.transform_up(|node| {
            Ok(match replace_sink(&node, &options)? {
                Some(replaced) => Transformed::yes(replaced),
                None => Transformed::no(node),
            })
        })
        .data()
    }

    fn name(&self) -> &str {
        NAME
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// Whether the rule is among `rules`.
pub(crate) fn installed(rules: &[Arc<dyn PhysicalOptimizerRule + Send + Sync>]) -> bool {
    rules.iter().any(|r| r.name() == NAME)
}

/// `node` with [`FlbaParquetSink`] (set up by `options`) in place of
/// DataFusion's parquet sink, or `None` if `node` is not a `DataSinkExec`
/// over that sink.
pub(crate) fn replace_sink(
    node: &Arc<dyn ExecutionPlan>,
    options: &FlbaOptions,
) -> Result<Option<Arc<dyn ExecutionPlan>>> {
    let Some(exec) = node.downcast_ref::<DataSinkExec>() else {
        return Ok(None);
    };
    let Some(stock) = exec.sink().downcast_ref::<ParquetSink>() else {
        return Ok(None);
    };
    let sink = FlbaParquetSink::replacing(stock, exec.sort_order().as_ref())
        .with_threads(options.threads)
        .with_encryption_keys_sent(options.send_encryption_keys);
    Ok(Some(Arc::new(DataSinkExec::new(
        Arc::clone(exec.input()),
        Arc::new(sink),
        exec.sort_order().clone(),
    ))))
}
