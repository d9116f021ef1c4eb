//! A cluster of separate processes: Ballista's scheduler and executor
//! configurations with parquet-flba.

use std::sync::Arc;

use ballista_core::serde::BallistaPhysicalExtensionCodec;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::error::Result;
use datafusion::execution::SessionState;
use datafusion::prelude::SessionConfig;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;

use crate::session::{prepare, with_our_codec};

/// The scheduler's session for a client's `config`: Ballista's default
/// scheduler session (`ballista_core::utils::default_session_builder`)
/// with parquet-flba ([`crate::prepare`]).
pub fn session_builder(config: SessionConfig) -> Result<SessionState> {
    Ok(prepare(default_session_builder(config)?))
}

/// `config` for a scheduler that plans writes with `FlbaParquetSink` and
/// sends them to executors with [`crate::FlbaCodec`]: its session builder
/// (Ballista's default, or the one set there) gets parquet-flba
/// ([`crate::prepare`]), and its physical codec becomes a
/// [`crate::FlbaCodec`] over the one set there (Ballista's by default).
///
/// Give it to `BallistaCluster::new_from_config` and
/// `ballista_scheduler::scheduler_process::start_server`, as the
/// `parquet-flba-scheduler` binary does.
pub fn scheduler_config(mut config: SchedulerConfig) -> SchedulerConfig {
    let builder = config.override_session_builder.take();
    config.override_session_builder = Some(Arc::new(move |session: SessionConfig| {
        let state = match &builder {
            Some(build) => build(session)?,
            None => default_session_builder(session)?,
        };
        Ok(prepare(state))
    }));
    config.override_physical_codec = Some(ours_over(config.override_physical_codec.take()));
    config
}

/// `config` for an executor that decodes `FlbaParquetSink`: its physical
/// codec becomes a [`crate::FlbaCodec`] over the one set there (Ballista's
/// by default).
///
/// Give it to `ballista_executor::executor_process::start_executor_process`,
/// as the `parquet-flba-executor` binary does.
pub fn executor_config(mut config: ExecutorProcessConfig) -> ExecutorProcessConfig {
    config.override_physical_codec = Some(ours_over(config.override_physical_codec.take()));
    config
}

/// A [`crate::FlbaCodec`] over a process's configured physical codec
/// (Ballista's when none is set).
fn ours_over(
    configured: Option<Arc<dyn PhysicalExtensionCodec>>,
) -> Arc<dyn PhysicalExtensionCodec> {
    with_our_codec(
        configured.unwrap_or_else(|| Arc::new(BallistaPhysicalExtensionCodec::default())),
    )
}
