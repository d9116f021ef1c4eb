//! A last physical optimizer rule that keeps the plans the session runs,
//! so that a test finds the sink of a write made through an API that plans
//! and runs it itself (`DataFrame::write_parquet`, `write_table`) and can
//! show that parquet-flba's sink wrote the files (byte identity with
//! DataFusion's own cannot).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use datafusion::config::ConfigOptions;
use datafusion::datasource::sink::DataSinkExec;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::object_store::path::Path;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::prelude::SessionContext;
use parquet_flba_datafusion::FlbaParquetSink;
use parquet_flba_datafusion::parquet_flba::ColumnPlan;

/// The rule; see the module docs.
#[derive(Debug, Default)]
pub struct Spy {
    plans: Mutex<Vec<Arc<dyn ExecutionPlan>>>,
}

impl Spy {
    /// Adds a spy to `ctx`, after its other rules (call it after
    /// `register`).
    pub fn install(ctx: &SessionContext) -> Arc<Self> {
        let spy = Arc::new(Self::default());
        let state = ctx.state_ref();
        let mut state = state.write();
        let id = state.session_id().to_string();
        let rebuilt = SessionStateBuilder::new_from_existing(state.clone())
            .with_session_id(id)
            .with_physical_optimizer_rule(Arc::clone(&spy) as _)
            .build();
        *state = rebuilt;
        spy
    }

    /// How many of the plans seen so far write with DataFusion's own sink
    /// and how many with parquet-flba's.
    pub fn sinks(&self) -> (usize, usize) {
        let (mut stock, mut ours) = (0, 0);
        for plan in self.plans.lock().unwrap().iter() {
            visit(plan, &mut |exec| {
                if exec.sink().downcast_ref::<FlbaParquetSink>().is_some() {
                    ours += 1;
                } else {
                    stock += 1;
                }
            });
        }
        (stock, ours)
    }

    /// The files parquet-flba's sinks wrote (in the plans seen so far),
    /// with the writer of each leaf.
    pub fn written(&self) -> HashMap<Path, ColumnPlan> {
        let mut written = HashMap::new();
        for plan in self.plans.lock().unwrap().iter() {
            visit(plan, &mut |exec| {
                if let Some(sink) = exec.sink().downcast_ref::<FlbaParquetSink>() {
                    written.extend(sink.written_plans());
                }
            });
        }
        written
    }
}

/// Calls `f` with every `DataSinkExec` in `plan`.
fn visit(plan: &Arc<dyn ExecutionPlan>, f: &mut impl FnMut(&DataSinkExec)) {
    if let Some(exec) = plan.downcast_ref::<DataSinkExec>() {
        f(exec);
    }
    for child in plan.children() {
        visit(child, f);
    }
}

impl PhysicalOptimizerRule for Spy {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.plans.lock().unwrap().push(Arc::clone(&plan));
        Ok(plan)
    }

    fn name(&self) -> &str {
        "test_spy"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
