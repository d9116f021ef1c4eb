//! [`FlbaQueryPlanner`]: the scheduler's query planner, which puts
//! `FlbaParquetSink` in the plans it makes.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::catalog::Session;
use datafusion::error::Result;
use datafusion::execution::context::QueryPlanner;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_planner::{DefaultPhysicalPlanner, PhysicalPlanner};
use parquet_flba_datafusion::FlbaParquetSinkRule;

/// A [`QueryPlanner`] that plans with another one (DataFusion's default
/// planner unless the session had its own) and then applies
/// [`FlbaParquetSinkRule`] to the plan: every write through DataFusion's
/// `ParquetSink` is written through `FlbaParquetSink`.
///
/// This is what makes Ballista's scheduler pick the sink. Its adaptive
/// planner (on by default: `ballista.optimizer.adaptive_planner.enabled`)
/// plans a job with the session's query planner but replaces the session's
/// physical optimizer rules by a list of its own, so the rule alone, among
/// the session's rules, would never run there.
#[derive(Debug)]
pub struct FlbaQueryPlanner {
    inner: Option<Arc<dyn QueryPlanner + Send + Sync>>,
}

impl FlbaQueryPlanner {
    /// Plans with DataFusion's default physical planner.
    pub fn new() -> Self {
        Self { inner: None }
    }

    /// Plans with `inner`.
    pub fn wrap(inner: Arc<dyn QueryPlanner + Send + Sync>) -> Self {
        Self { inner: Some(inner) }
    }
}

impl Default for FlbaQueryPlanner {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl QueryPlanner for FlbaQueryPlanner {
    async fn create_physical_plan(
        &self,
        logical_plan: &LogicalPlan,
        session: &dyn Session,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let plan = match &self.inner {
            Some(inner) => inner.create_physical_plan(logical_plan, session).await?,
            None => {
                DefaultPhysicalPlanner::default()
                    .create_physical_plan(logical_plan, session)
                    .await?
            }
        };
        FlbaParquetSinkRule::new().optimize(plan, session.config_options())
    }
}
