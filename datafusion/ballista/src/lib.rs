//! [parquet-flba](parquet_flba_datafusion) on a [Ballista](ballista) 55
//! cluster: `COPY ... TO ... STORED AS PARQUET` and `INSERT INTO` a parquet
//! table write the same files as stock Ballista, with decimal and
//! fixed-length columns written by parquet-flba's fast path on the
//! executors.
//!
//! ```no_run
//! use ballista::prelude::SessionContextExt;
//! use datafusion::execution::SessionStateBuilder;
//! use datafusion::prelude::SessionContext;
//!
//! # async fn demo() -> datafusion::error::Result<()> {
//! let state = SessionStateBuilder::new().with_default_features().build();
//! // An in-process scheduler and executor, both with parquet-flba.
//! let ctx = SessionContext::standalone_with_state(parquet_flba_ballista::prepare(state)).await?;
//! ctx.sql("COPY (SELECT arrow_cast(1.5, 'Decimal128(38, 10)') AS price) \
//!          TO '/tmp/prices.parquet' STORED AS PARQUET")
//!     .await?
//!     .collect()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! # How it works
//!
//! Ballista's client sends the *logical* plan to the scheduler; the
//! scheduler plans it, runs the physical optimizer rules of its session,
//! cuts the plan into stages and sends each stage to the executors as
//! protobuf. So:
//!
//! - the **scheduler**'s session plans with [`FlbaQueryPlanner`], which
//!   applies [`FlbaParquetSinkRule`] to each plan: `FlbaParquetSink` in
//!   place of DataFusion's `ParquetSink` in every write (`COPY TO`,
//!   `INSERT INTO`, `DataFrame::write_parquet`). A query planner, because
//!   Ballista's adaptive planner replaces the session's physical optimizer
//!   rules by its own;
//! - the scheduler and every **executor** use [`FlbaCodec`], the physical
//!   extension codec that carries `DataSinkExec(FlbaParquetSink)` (and hands
//!   everything else to Ballista's codec);
//! - the **client** keeps DataFusion's own parquet format, so its logical
//!   plans serialize with Ballista's stock logical codec. (DataFusion's
//!   protobuf encoders know only `ParquetFormatFactory` / `ParquetFormat`:
//!   a context on which `parquet_flba_datafusion::register` wrapped the
//!   format could not send a `COPY` or a `ListingTable`. [`configure`] puts
//!   the wrapped factory back.)
//!
//! [`prepare`] / [`configure`] do all three for a `SessionState` given to
//! `SessionContext::standalone_with_state` (whose in-process scheduler and
//! executor take the session's rules and codec). For a cluster of separate
//! processes, [`scheduler_config`] and [`executor_config`] set up
//! Ballista's own `SchedulerConfig` and `ExecutorProcessConfig`; the
//! `parquet-flba-scheduler` and `parquet-flba-executor` binaries of this
//! crate are Ballista's scheduler and executor with them. Any Ballista 55
//! client can then use the cluster: the choice is made on the scheduler.

#![warn(missing_docs)]

mod cluster;
mod codec;
mod planner;
mod session;
mod wire;

pub use cluster::{executor_config, scheduler_config, session_builder};
pub use codec::FlbaCodec;
pub use parquet_flba_datafusion;
pub use parquet_flba_datafusion::{FlbaParquetSink, FlbaParquetSinkRule};
pub use planner::FlbaQueryPlanner;
pub use session::{configure, prepare, session_config};
