//! [`FlbaCodec`]: Ballista's physical extension codec, plus
//! `DataSinkExec(FlbaParquetSink)`.

use std::fmt;
use std::sync::Arc;

use ballista_core::serde::BallistaPhysicalExtensionCodec;
use datafusion::common::{Result, exec_datafusion_err, internal_err};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, HigherOrderUDF, ScalarUDF, WindowUDF};
use datafusion::physical_expr_common::physical_expr::proto_decode::PhysicalExprDecodeCtx;
use datafusion::physical_expr_common::physical_expr::proto_encode::PhysicalExprEncodeCtx;
use datafusion::physical_plan::{ExecutionPlan, PhysicalExpr};
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use parquet_flba_datafusion::FlbaParquetSink;
use prost::Message;

use crate::wire;

/// The first bytes of a node of this codec, of any version: the version's
/// digits follow, then the message. A protobuf message never starts with a
/// zero byte (field number 0 does not exist), so these never begin a node
/// of the wrapped codec.
const FAMILY: &[u8] = b"\0parquet-flba/sink/";
/// The version this codec writes and reads. Its message starts with field
/// 1 (byte 0x0a, not a digit), so the version's end is unambiguous.
const VERSION: &[u8] = b"1";

/// A [`PhysicalExtensionCodec`] that carries `DataSinkExec` over
/// [`FlbaParquetSink`] between Ballista's scheduler and its executors, and
/// hands every other node (and every function and expression) to another
/// codec: Ballista's own by default.
///
/// The sink travels whole: its `FileSinkConfig`, every
/// `TableParquetOptions` field (including `metadata::` keys without a value
/// and the `crypto` options, which DataFusion's protobuf conversions drop),
/// its sorting columns and the exec's required input order. The input is
/// encoded by the caller, as for any extension node.
///
/// The scheduler and every executor must use it (see
/// [`crate::prepare`], [`crate::scheduler_config`],
/// [`crate::executor_config`]).
pub struct FlbaCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl FlbaCodec {
    /// Wraps Ballista's `BallistaPhysicalExtensionCodec`.
    pub fn new() -> Self {
        Self::wrap(Arc::new(BallistaPhysicalExtensionCodec::default()))
    }

    /// Wraps `inner`, the codec for every node that is not ours (a
    /// deployment's own codec, itself built over Ballista's).
    pub fn wrap(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        Self { inner }
    }

    /// The wrapped codec.
    pub fn inner(&self) -> &Arc<dyn PhysicalExtensionCodec> {
        &self.inner
    }
}

impl Default for FlbaCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for FlbaCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FlbaCodec")
            .field("inner", &self.inner)
            .finish()
    }
}

impl PhysicalExtensionCodec for FlbaCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(versioned) = buf.strip_prefix(FAMILY) else {
            return self.inner.try_decode(buf, inputs, ctx, converter);
        };
        let digits = versioned.iter().take_while(|b| b.is_ascii_digit()).count();
        let (version, body) = versioned.split_at(digits);
        if version != VERSION {
            return Err(exec_datafusion_err!(
                "a parquet-flba sink node of version {}: this parquet-flba-ballista reads \
                 version {} only; run the same parquet-flba-ballista release on the scheduler \
                 and on every executor",
                String::from_utf8_lossy(version),
                String::from_utf8_lossy(VERSION)
            ));
        }
        let node = wire::SinkNode::decode(body)
            .map_err(|e| exec_datafusion_err!("cannot decode a parquet-flba sink node: {e}"))?;
        let [input] = inputs else {
            return internal_err!(
                "a parquet-flba sink node has one input, this one has {}",
                inputs.len()
            );
        };
        wire::decode(&node, input, ctx, self, converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let ours = node
            .downcast_ref::<DataSinkExec>()
            .and_then(|exec| Some((exec, exec.sink().downcast_ref::<FlbaParquetSink>()?)));
        let Some((exec, sink)) = ours else {
            return self.inner.try_encode(node, buf, converter);
        };
        let message = wire::encode(exec, sink, self, converter)?;
        buf.extend_from_slice(FAMILY);
        buf.extend_from_slice(VERSION);
        message
            .encode(buf)
            .map_err(|e| exec_datafusion_err!("cannot encode a parquet-flba sink node: {e}"))
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_higher_order_function(
        &self,
        name: &str,
        buf: &[u8],
    ) -> Result<Arc<HigherOrderUDF>> {
        self.inner.try_decode_higher_order_function(name, buf)
    }

    fn try_encode_higher_order_function(
        &self,
        node: &HigherOrderUDF,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_higher_order_function(node, buf)
    }

    fn try_decode_expr(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn PhysicalExpr>],
        ctx: &PhysicalExprDecodeCtx<'_>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        self.inner.try_decode_expr(buf, inputs, ctx)
    }

    fn try_encode_expr(
        &self,
        node: &Arc<dyn PhysicalExpr>,
        buf: &mut Vec<u8>,
        ctx: &PhysicalExprEncodeCtx<'_>,
    ) -> Result<()> {
        self.inner.try_encode_expr(node, buf, ctx)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}
