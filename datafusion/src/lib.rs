//! DataFusion 55.2's parquet writing through [`parquet_flba`]: `COPY ... TO
//! '...' STORED AS PARQUET`, `INSERT INTO` a parquet table and
//! `DataFrame::write_parquet` produce the same files as DataFusion's own
//! parquet sink, byte for byte, with FIXED_LEN_BYTE_ARRAY columns (decimals,
//! UUIDs, `Float16`, intervals) written by parquet-flba's fast path.
//!
//! ```no_run
//! use datafusion::prelude::SessionContext;
//!
//! # async fn demo() -> datafusion::error::Result<()> {
//! let ctx = SessionContext::new();
//! parquet_flba_datafusion::register(&ctx)?;
//! ctx.sql("COPY (SELECT arrow_cast(1.5, 'Decimal128(38, 10)') AS price) \
//!          TO '/tmp/prices.parquet' STORED AS PARQUET")
//!     .await?
//!     .collect()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! # What changes
//!
//! Only the writer. [`register`] installs three things in a
//! [`SessionContext`]:
//!
//! - the `parquet_flba.*` settings ([`FlbaOptions`]): `SET
//!   parquet_flba.enabled = false` gives the statements planned afterwards
//!   DataFusion's own sink; `parquet_flba.threads` encodes each file on
//!   parquet-flba's threaded engine, on that many threads.
//! - [`FlbaParquetFormatFactory`] as the format for the `parquet` extension
//!   (`COPY TO`, `CREATE EXTERNAL TABLE ... STORED AS PARQUET`). It wraps
//!   DataFusion's `ParquetFormat`: schema inference, statistics and reading
//!   are DataFusion's own.
//! - [`FlbaParquetSinkRule`], a physical optimizer rule that replaces any
//!   remaining DataFusion `ParquetSink` (`DataFrame::write_parquet`,
//!   `INSERT INTO` a table registered with `register_parquet` or built with
//!   `ParquetFormat` directly) by [`FlbaParquetSink`].
//!
//! [`FlbaParquetSink`] runs the same write as DataFusion's sink (same file
//! names, row groups, writer properties, sorting columns, parallel or
//! sequential path, memory pool consumers, metrics), with
//! [`parquet_flba::ArrowWriter`] and its column-level API in place of
//! `parquet`'s. Every leaf that is not FIXED_LEN_BYTE_ARRAY (and every case
//! parquet-flba leaves to `parquet`) is written by `parquet`'s own column
//! writer, unchanged. A write that fails leaves no file (see
//! [`FlbaParquetSink`]).
//!
//! `SessionContext::write_parquet(plan, ...)` calls `parquet`'s writer
//! directly and is not reached; use [`plan_to_parquet`].
//!
//! To configure a `SessionState` from scratch use [`configure`], or add the
//! pieces yourself with `SessionConfig::with_option_extension`,
//! `SessionStateBuilder::with_file_formats` and
//! `SessionStateBuilder::with_physical_optimizer_rule`.

#![warn(missing_docs)]

mod config;
mod display;
mod encryption;
mod files;
mod format;
mod memory;
mod metrics;
mod parallel;
mod plan_to_parquet;
mod rule;
mod sequential;
mod sink;
mod sorting;
mod threaded;

pub use config::FlbaOptions;
pub use format::{FlbaParquetFormat, FlbaParquetFormatFactory};
pub use memory::{ReservationListener, into_datafusion};
pub use parquet_flba;
pub use plan_to_parquet::{plan_to_parquet, plan_to_parquet_with_plans};
pub use rule::FlbaParquetSinkRule;
pub use sink::FlbaParquetSink;

use std::sync::Arc;

use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

/// Makes `ctx` write parquet through parquet-flba: adds the
/// `parquet_flba.*` settings ([`FlbaOptions`]) to its configuration,
/// registers [`FlbaParquetFormatFactory`] for the `parquet` extension
/// (wrapping the factory registered there before, so its options are kept)
/// and appends [`FlbaParquetSinkRule`] to the physical optimizer rules.
///
/// Calling it again does nothing. Reading is unchanged. The session keeps
/// its id, configuration, tables and functions; statements prepared with
/// `PREPARE` before the first call are dropped (DataFusion rebuilds the
/// session state to add an optimizer rule and does not carry them over),
/// so call it first.
pub fn register(ctx: &SessionContext) -> Result<()> {
    let state = ctx.state_ref();
    let mut state = state.write();
    FlbaOptions::install(state.config_mut().options_mut());
    let current = state.get_file_format_factory("parquet");
    if let Some(wrapped) = FlbaParquetFormatFactory::wrapping(current) {
        state.register_file_format(Arc::new(wrapped), true)?;
    }
    if !rule::installed(state.physical_optimizers()) {
        let session_id = state.session_id().to_string();
        let rebuilt = SessionStateBuilder::new_from_existing(state.clone())
            .with_session_id(session_id)
            .with_physical_optimizer_rule(Arc::new(FlbaParquetSinkRule::new()))
            .build();
        *state = rebuilt;
    }
    Ok(())
}

/// Adds parquet-flba's writer to a [`SessionStateBuilder`]: the
/// `parquet_flba.*` settings ([`FlbaOptions`]) join the builder's
/// configuration, its file formats get [`FlbaParquetFormatFactory`] in place
/// of DataFusion's parquet factory (added if the builder had none) and
/// [`FlbaParquetSinkRule`] is appended to its physical optimizer rules.
///
/// Call it after `with_default_features` (which sets the default formats)
/// and after `with_config`, which would replace the configuration.
pub fn configure(mut builder: SessionStateBuilder) -> SessionStateBuilder {
    let config = builder.config().get_or_insert_with(SessionConfig::new);
    FlbaOptions::install(config.options_mut());
    let formats = builder.file_formats().get_or_insert_with(Vec::new);
    let parquet = formats
        .iter()
        .position(|f| f.get_ext().eq_ignore_ascii_case("parquet"));
    match parquet {
        Some(i) => {
            if let Some(wrapped) = FlbaParquetFormatFactory::wrapping(Some(Arc::clone(&formats[i])))
            {
                formats[i] = Arc::new(wrapped);
            }
        }
        None => formats.push(Arc::new(FlbaParquetFormatFactory::new())),
    }
    builder.with_physical_optimizer_rule(Arc::new(FlbaParquetSinkRule::new()))
}
