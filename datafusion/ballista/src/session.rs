//! A Ballista session with parquet-flba: the sink rule, the codec, and a
//! parquet format that serializes.

use std::any::Any;
use std::sync::Arc;

use ballista_core::extension::SessionConfigExt;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::prelude::SessionConfig;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;
use parquet_flba_datafusion::{FlbaParquetFormatFactory, FlbaParquetSinkRule};

use crate::codec::FlbaCodec;
use crate::planner::FlbaQueryPlanner;

/// `state`, set up for Ballista with parquet-flba: see [`configure`].
///
/// Give the result to `SessionContext::standalone_with_state` (in-process
/// cluster), or use it as a scheduler's session (see [`crate::session_builder`]).
pub fn prepare(state: SessionState) -> SessionState {
    configure(SessionStateBuilder::new_from_existing(state)).build()
}

/// Adds parquet-flba to a [`SessionStateBuilder`] for Ballista:
///
/// - the query planner becomes [`FlbaQueryPlanner`] over the one set there
///   (DataFusion's default planner if none), and [`FlbaParquetSinkRule`] is
///   appended to the physical optimizer rules: the session that plans a
///   write (Ballista's scheduler) writes through `FlbaParquetSink`, with
///   Ballista's adaptive planner (which swaps the session's rules for its
///   own, keeping the planner) or its static one;
/// - the session config's Ballista physical extension codec becomes
///   [`FlbaCodec`] over the codec set there (Ballista's by default), which
///   an in-process scheduler and executor take from the config;
/// - a `parquet` file format that `parquet_flba_datafusion` wrapped is
///   replaced by the factory it wraps, so that logical plans stay
///   serializable.
///
/// Calling it again changes nothing.
pub fn configure(mut builder: SessionStateBuilder) -> SessionStateBuilder {
    if let Some(formats) = builder.file_formats() {
        for format in formats.iter_mut() {
            if let Some(ours) = format.downcast_ref::<FlbaParquetFormatFactory>() {
                *format = Arc::clone(ours.inner());
            }
        }
    }
    let installed = builder
        .physical_optimizers()
        .as_ref()
        .is_some_and(|o| o.rules.iter().any(is_our_rule))
        || builder
            .physical_optimizer_rules()
            .as_ref()
            .is_some_and(|rules| rules.iter().any(is_our_rule));
    if !installed {
        builder = builder.with_physical_optimizer_rule(Arc::new(FlbaParquetSinkRule::new()));
    }
    let planner = match builder.query_planner().take() {
        Some(p) if (p.as_ref() as &dyn Any).is::<FlbaQueryPlanner>() => p,
        Some(p) => Arc::new(FlbaQueryPlanner::wrap(p)),
        None => Arc::new(FlbaQueryPlanner::new()),
    };
    builder = builder.with_query_planner(planner);
    let config = builder.config().take().unwrap_or_default();
    builder.with_config(session_config(config))
}

/// `config` with [`FlbaCodec`] as Ballista's physical extension codec,
/// wrapping the codec it had (unless that already is a [`FlbaCodec`]).
pub fn session_config(config: SessionConfig) -> SessionConfig {
    let codec = with_our_codec(config.ballista_physical_extension_codec());
    config.with_ballista_physical_extension_codec(codec)
}

/// `codec` if it is a [`FlbaCodec`], else a [`FlbaCodec`] over it.
pub(crate) fn with_our_codec(
    codec: Arc<dyn PhysicalExtensionCodec>,
) -> Arc<dyn PhysicalExtensionCodec> {
    if (codec.as_ref() as &dyn Any).is::<FlbaCodec>() {
        codec
    } else {
        Arc::new(FlbaCodec::wrap(codec))
    }
}

fn is_our_rule(rule: &Arc<dyn PhysicalOptimizerRule + Send + Sync>) -> bool {
    rule.name() == FlbaParquetSinkRule::new().name()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `prepare` twice is `prepare` once: one rule, the planner and the
    /// codec not wrapped in themselves.
    #[test]
    fn prepare_is_idempotent() {
        let state = SessionStateBuilder::new().with_default_features().build();
        let state = prepare(prepare(state));
        let rules = state
            .physical_optimizers()
            .iter()
            .filter(|r| is_our_rule(r));
        assert_eq!(rules.count(), 1);
        let planner = state.query_planner().as_ref() as &dyn Any;
        assert!(planner.is::<FlbaQueryPlanner>());
        let codec = state.config().ballista_physical_extension_codec();
        let codec = (codec.as_ref() as &dyn Any)
            .downcast_ref::<FlbaCodec>()
            .unwrap();
        assert!(!(codec.inner().as_ref() as &dyn Any).is::<FlbaCodec>());
    }
}
