//! The protobuf form of `DataSinkExec(FlbaParquetSink)`.
//!
//! DataFusion's own messages carry most of it: `ParquetSink` (the
//! `FileSinkConfig` and the `TableParquetOptions`) and
//! `PhysicalSortExprNodeCollection` (the sink's required order), as
//! DataFusion writes its own parquet sink. They leave out what a write
//! needs but DataFusion 55.2's conversions drop, so those travel in fields
//! of our own: the sorting columns, `metadata::` keys without a value
//! (DataFusion's message is a string map), the encryption options
//! (`format.crypto.*`: the factory and its options always, raw keys only
//! where `parquet_flba.send_encryption_keys` allowed them when the write
//! was planned), `FileSinkConfig::original_url`, and the sink's thread
//! count (`parquet_flba.threads`). The metadata
//! values themselves travel in DataFusion's message, but its decoder drops
//! them, so ours reads that message itself (global and per-column options
//! through DataFusion's conversions).

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::compute::SortOptions;
use datafusion::common::{DataFusionError, Result, internal_datafusion_err};
use datafusion::config::{
    ColumnDecryptionProperties, ColumnEncryptionProperties, ConfigFileDecryptionProperties,
    ConfigFileEncryptionProperties, EncryptionFactoryOptions, ParquetColumnOptions,
    ParquetEncryptionOptions, ParquetOptions, TableParquetOptions,
};
use datafusion::datasource::physical_plan::{FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{LexRequirement, PhysicalSortExpr};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use parquet_flba_datafusion::FlbaParquetSink;
use parquet_flba_datafusion::parquet_flba::parquet::file::metadata::SortingColumn;

/// `DataSinkExec(FlbaParquetSink)` without its input (which the extension
/// node that holds this message carries).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SinkNode {
    /// DataFusion's message for a parquet sink: configuration and options.
    #[prost(message, optional, tag = "1")]
    pub sink: Option<protobuf::ParquetSink>,
    /// The sink's required input order, as DataFusion encodes it.
    #[prost(message, optional, tag = "2")]
    pub sort_order: Option<protobuf::PhysicalSortExprNodeCollection>,
    /// The sorting columns written to the row groups' metadata (absent:
    /// none are written).
    #[prost(message, optional, tag = "3")]
    pub sorting_columns: Option<SortingColumns>,
    /// `FileSinkConfig::original_url`.
    #[prost(string, tag = "4")]
    pub original_url: String,
    /// `metadata::` keys that have no value.
    #[prost(string, repeated, tag = "5")]
    pub metadata_keys_without_value: Vec<String>,
    /// `TableParquetOptions::crypto`.
    #[prost(message, optional, tag = "6")]
    pub crypto: Option<Crypto>,
    /// `FlbaParquetSink::threads` (0: chosen on the executor; read back
    /// clamped to `FlbaParquetSink::MAX_THREADS`).
    #[prost(uint64, tag = "7")]
    pub threads: u64,
    /// `FlbaParquetSink::encryption_keys_sent`: the node was allowed to
    /// carry raw encryption keys.
    #[prost(bool, tag = "8")]
    pub send_encryption_keys: bool,
}

/// A list of sorting columns (a message, so that "none" and "an empty
/// list" differ).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SortingColumns {
    #[prost(message, repeated, tag = "1")]
    pub columns: Vec<SortingColumnNode>,
}

/// One `SortingColumn`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SortingColumnNode {
    #[prost(int32, tag = "1")]
    pub column_idx: i32,
    #[prost(bool, tag = "2")]
    pub descending: bool,
    #[prost(bool, tag = "3")]
    pub nulls_first: bool,
}

/// `ParquetEncryptionOptions`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Crypto {
    #[prost(message, optional, tag = "1")]
    pub file_encryption: Option<FileEncryption>,
    #[prost(message, optional, tag = "2")]
    pub file_decryption: Option<FileDecryption>,
    #[prost(string, optional, tag = "3")]
    pub factory_id: Option<String>,
    #[prost(map = "string, string", tag = "4")]
    pub factory_options: HashMap<String, String>,
}

/// `ConfigFileEncryptionProperties`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FileEncryption {
    #[prost(bool, tag = "1")]
    pub encrypt_footer: bool,
    #[prost(string, tag = "2")]
    pub footer_key_as_hex: String,
    #[prost(string, tag = "3")]
    pub footer_key_metadata_as_hex: String,
    #[prost(map = "string, message", tag = "4")]
    pub columns: HashMap<String, ColumnKey>,
    #[prost(string, tag = "5")]
    pub aad_prefix_as_hex: String,
    #[prost(bool, tag = "6")]
    pub store_aad_prefix: bool,
}

/// A column's key (and, for encryption, its key metadata).
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ColumnKey {
    #[prost(string, tag = "1")]
    pub key_as_hex: String,
    #[prost(string, optional, tag = "2")]
    pub metadata_as_hex: Option<String>,
}

/// `ConfigFileDecryptionProperties`.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct FileDecryption {
    #[prost(string, tag = "1")]
    pub footer_key_as_hex: String,
    #[prost(map = "string, string", tag = "2")]
    pub column_keys: HashMap<String, String>,
    #[prost(string, tag = "3")]
    pub aad_prefix_as_hex: String,
    #[prost(bool, tag = "4")]
    pub footer_signature_verification: bool,
}

/// The message for `exec`, whose sink is `sink`; expressions are encoded
/// with `codec` through `converter`.
pub(crate) fn encode(
    exec: &DataSinkExec,
    sink: &FlbaParquetSink,
    codec: &dyn PhysicalExtensionCodec,
    converter: &dyn PhysicalProtoConverterExtension,
) -> Result<SinkNode> {
    let config = FileSink::config(sink);
    let options = sink.parquet_options();
    let sort_order = exec
        .sort_order()
        .as_ref()
        .map(|requirement| {
            let nodes = requirement
                .iter()
                .map(|r| {
                    let e = PhysicalSortExpr::from(r.clone());
                    Ok(protobuf::PhysicalSortExprNode {
                        expr: Some(Box::new(converter.physical_expr_to_proto(&e.expr, codec)?)),
                        asc: !e.options.descending,
                        nulls_first: e.options.nulls_first,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok::<_, DataFusionError>(protobuf::PhysicalSortExprNodeCollection {
                physical_sort_expr_nodes: nodes,
            })
        })
        .transpose()?;
    let send_keys = sink.encryption_keys_sent();
    if !send_keys && has_encryption_keys(&options.crypto) {
        return Err(DataFusionError::Plan(
            "a parquet write with raw encryption keys (format.crypto.file_encryption.*) \
             would send them to the executors in its plan, in plaintext: give the executors \
             an encryption factory instead (format.crypto.factory_id, which travels without \
             keys), or SET parquet_flba.send_encryption_keys = true before planning it to \
             send them"
                .into(),
        ));
    }
    let mut keys_without_value: Vec<String> = options
        .key_value_metadata
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(k, _)| k.clone())
        .collect();
    keys_without_value.sort();
    Ok(SinkNode {
        sink: Some(protobuf::ParquetSink {
            config: Some(config.try_into()?),
            parquet_options: Some(options.try_into()?),
        }),
        sort_order,
        sorting_columns: sink.sorting_columns().map(|columns| SortingColumns {
            columns: columns
                .iter()
                .map(|c| SortingColumnNode {
                    column_idx: c.column_idx,
                    descending: c.descending,
                    nulls_first: c.nulls_first,
                })
                .collect(),
        }),
        original_url: config.original_url.clone(),
        metadata_keys_without_value: keys_without_value,
        crypto: Some(crypto_to_wire(&options.crypto, send_keys)),
        threads: sink.threads() as u64,
        send_encryption_keys: send_keys,
    })
}

/// `DataSinkExec(FlbaParquetSink)` over `input` from `node`.
pub(crate) fn decode(
    node: &SinkNode,
    input: &Arc<dyn ExecutionPlan>,
    ctx: &TaskContext,
    codec: &dyn PhysicalExtensionCodec,
    converter: &dyn PhysicalProtoConverterExtension,
) -> Result<Arc<dyn ExecutionPlan>> {
    let sink = node.sink.as_ref().ok_or_else(|| missing("sink"))?;
    let mut config =
        FileSinkConfig::try_from(sink.config.as_ref().ok_or_else(|| missing("config"))?)?;
    config.original_url = node.original_url.clone();
    let table = sink
        .parquet_options
        .as_ref()
        .ok_or_else(|| missing("parquet_options"))?;
    let global = table
        .global
        .as_ref()
        .ok_or_else(|| missing("parquet_options.global"))?;
    let mut options = TableParquetOptions {
        global: ParquetOptions::try_from(global)?,
        ..Default::default()
    };
    for column in &table.column_specific_options {
        let given = column
            .options
            .as_ref()
            .ok_or_else(|| missing("column_specific_options.options"))?;
        options.column_specific_options.insert(
            column.column_name.clone(),
            ParquetColumnOptions::try_from(given)?,
        );
    }
    for (k, v) in &table.key_value_metadata {
        options
            .key_value_metadata
            .insert(k.clone(), Some(v.clone()));
    }
    for k in &node.metadata_keys_without_value {
        options.key_value_metadata.insert(k.clone(), None);
    }
    if let Some(crypto) = &node.crypto {
        options.crypto = crypto_from_wire(crypto);
    }
    let sort_order = match &node.sort_order {
        None => None,
        Some(collection) => {
            let decode_ctx = PhysicalPlanDecodeContext::new(ctx, codec);
            let schema = input.schema();
            let exprs = collection
                .physical_sort_expr_nodes
                .iter()
                .map(|n| {
                    let expr = n.expr.as_ref().ok_or_else(|| missing("sort_order.expr"))?;
                    Ok(PhysicalSortExpr {
                        expr: converter.proto_to_physical_expr(expr, &schema, &decode_ctx)?,
                        options: SortOptions {
                            descending: !n.asc,
                            nulls_first: n.nulls_first,
                        },
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            LexRequirement::new(exprs.into_iter().map(Into::into))
        }
    };
    let sorting_columns = node.sorting_columns.as_ref().map(|s| {
        s.columns
            .iter()
            .map(|c| SortingColumn {
                column_idx: c.column_idx,
                descending: c.descending,
                nulls_first: c.nulls_first,
            })
            .collect()
    });
    // A count from the wire is not trusted: clamped before it reaches the
    // thread pool's arithmetic.
    let threads = usize::try_from(node.threads)
        .unwrap_or(usize::MAX)
        .min(FlbaParquetSink::MAX_THREADS);
    let sink = FlbaParquetSink::new(config, options)
        .with_sorting_columns(sorting_columns)
        .with_threads(threads)
        .with_encryption_keys_sent(node.send_encryption_keys);
    Ok(Arc::new(DataSinkExec::new(
        Arc::clone(input),
        Arc::new(sink),
        sort_order,
    )))
}

fn missing(field: &str) -> DataFusionError {
    internal_datafusion_err!("parquet-flba sink node is missing '{field}'")
}

/// Whether `c` holds raw keys to encrypt with (a footer or column key).
fn has_encryption_keys(c: &ParquetEncryptionOptions) -> bool {
    c.file_encryption.as_ref().is_some_and(|e| {
        !e.footer_key_as_hex.is_empty()
            || e.column_encryption_properties
                .values()
                .any(|p| !p.column_key_as_hex.is_empty())
    })
}

/// The options on the wire: the decryption keys (which a sink never uses)
/// only with `send_keys`; the encryption keys are there only if allowed
/// ([`encode`] refuses them otherwise).
fn crypto_to_wire(c: &ParquetEncryptionOptions, send_keys: bool) -> Crypto {
    Crypto {
        file_encryption: c.file_encryption.as_ref().map(|e| FileEncryption {
            encrypt_footer: e.encrypt_footer,
            footer_key_as_hex: e.footer_key_as_hex.clone(),
            footer_key_metadata_as_hex: e.footer_key_metadata_as_hex.clone(),
            columns: e
                .column_encryption_properties
                .iter()
                .map(|(name, p)| {
                    let key = ColumnKey {
                        key_as_hex: p.column_key_as_hex.clone(),
                        metadata_as_hex: p.column_metadata_as_hex.clone(),
                    };
                    (name.clone(), key)
                })
                .collect(),
            aad_prefix_as_hex: e.aad_prefix_as_hex.clone(),
            store_aad_prefix: e.store_aad_prefix,
        }),
        file_decryption: c
            .file_decryption
            .as_ref()
            .filter(|_| send_keys)
            .map(|d| FileDecryption {
                footer_key_as_hex: d.footer_key_as_hex.clone(),
                column_keys: d
                    .column_decryption_properties
                    .iter()
                    .map(|(name, p)| (name.clone(), p.column_key_as_hex.clone()))
                    .collect(),
                aad_prefix_as_hex: d.aad_prefix_as_hex.clone(),
                footer_signature_verification: d.footer_signature_verification,
            }),
        factory_id: c.factory_id.clone(),
        factory_options: c.factory_options.options.clone(),
    }
}

fn crypto_from_wire(c: &Crypto) -> ParquetEncryptionOptions {
    ParquetEncryptionOptions {
        file_encryption: c
            .file_encryption
            .as_ref()
            .map(|e| ConfigFileEncryptionProperties {
                encrypt_footer: e.encrypt_footer,
                footer_key_as_hex: e.footer_key_as_hex.clone(),
                footer_key_metadata_as_hex: e.footer_key_metadata_as_hex.clone(),
                column_encryption_properties: e
                    .columns
                    .iter()
                    .map(|(name, k)| {
                        let p = ColumnEncryptionProperties {
                            column_key_as_hex: k.key_as_hex.clone(),
                            column_metadata_as_hex: k.metadata_as_hex.clone(),
                        };
                        (name.clone(), p)
                    })
                    .collect(),
                aad_prefix_as_hex: e.aad_prefix_as_hex.clone(),
                store_aad_prefix: e.store_aad_prefix,
            }),
        file_decryption: c
            .file_decryption
            .as_ref()
            .map(|d| ConfigFileDecryptionProperties {
                footer_key_as_hex: d.footer_key_as_hex.clone(),
                column_decryption_properties: d
                    .column_keys
                    .iter()
                    .map(|(name, key)| {
                        let p = ColumnDecryptionProperties {
                            column_key_as_hex: key.clone(),
                        };
                        (name.clone(), p)
                    })
                    .collect(),
                aad_prefix_as_hex: d.aad_prefix_as_hex.clone(),
                footer_signature_verification: d.footer_signature_verification,
            }),
        factory_id: c.factory_id.clone(),
        factory_options: EncryptionFactoryOptions {
            options: c.factory_options.clone(),
        },
    }
}
