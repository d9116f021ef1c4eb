//! `FlbaCodec` round-trips `DataSinkExec(FlbaParquetSink)` whole: a sink
//! with every field of its configuration and options set (struct literals
//! without `..Default::default()`, so a field DataFusion adds breaks the
//! build here until it is covered) goes through DataFusion's plan
//! serialization and comes back equal. Other nodes go to Ballista's codec,
//! and malformed bytes are an error, not a panic.

use std::collections::HashMap;
use std::sync::Arc;

use ballista_core::execution_plans::UnresolvedShuffleExec;
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::parquet_config::DFParquetWriterVersion;
use datafusion::config::{
    ColumnDecryptionProperties, ColumnEncryptionProperties, ConfigFileDecryptionProperties,
    ConfigFileEncryptionProperties, EncryptionFactoryOptions, MaxRowGroupBytes, ParquetCdcOptions,
    ParquetColumnOptions, ParquetEncryptionOptions, ParquetOptions, TableParquetOptions,
};
use datafusion::datasource::file_format::parquet::ParquetSink;
use datafusion::datasource::listing::{ListingTableUrl, PartitionedFile};
use datafusion::datasource::physical_plan::{FileGroup, FileOutputMode, FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::execution::TaskContext;
use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_expr::{LexRequirement, PhysicalSortRequirement};
use datafusion::physical_plan::empty::EmptyExec;
use datafusion::physical_plan::expressions::col;
use datafusion::physical_plan::{ExecutionPlan, Partitioning};
use datafusion_proto::physical_plan::{
    AsExecutionPlan, DefaultPhysicalExtensionCodec, PhysicalExtensionCodec,
};
use datafusion_proto::protobuf::PhysicalPlanNode;
use parquet_flba_ballista::parquet_flba_datafusion::parquet_flba::parquet::file::metadata::SortingColumn;
use parquet_flba_ballista::{FlbaCodec, FlbaParquetSink};
use prost::Message;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::FixedSizeBinary(16), true),
        Field::new("price", DataType::Decimal128(38, 10), false),
        Field::new("region", DataType::Utf8, false),
    ]))
}

/// Every `ParquetOptions` field away from its default.
fn global() -> ParquetOptions {
    ParquetOptions {
        enable_page_index: false,
        pruning: false,
        skip_metadata: false,
        metadata_size_hint: Some(1234),
        pushdown_filters: true,
        reorder_filters: true,
        force_filter_selections: true,
        schema_force_view_types: false,
        binary_as_string: true,
        coerce_int96: Some("ms".into()),
        coerce_int96_tz: Some("+02:00".into()),
        bloom_filter_on_read: false,
        max_predicate_cache_size: Some(4321),
        max_in_list_size: 7,
        data_pagesize_limit: 4096,
        write_batch_size: 333,
        writer_version: DFParquetWriterVersion::V2_0,
        skip_arrow_metadata: true,
        compression: Some("zstd(7)".into()),
        dictionary_enabled: Some(false),
        dictionary_page_size_limit: 2048,
        statistics_enabled: Some("chunk".into()),
        max_row_group_size: 999,
        max_row_group_bytes: Some(MaxRowGroupBytes::try_new(1 << 20).unwrap()),
        created_by: "a test".into(),
        column_index_truncate_length: Some(9),
        statistics_truncate_length: None,
        data_page_row_count_limit: 77,
        encoding: Some("plain".into()),
        bloom_filter_on_write: true,
        bloom_filter_fpp: Some(0.125),
        bloom_filter_ndv: Some(321),
        allow_single_file_parallelism: false,
        maximum_parallel_row_group_writers: 3,
        maximum_buffered_record_batches_per_stream: 5,
        content_defined_chunking: ParquetCdcOptions {
            enabled: true,
            min_chunk_size: 1000,
            max_chunk_size: 9000,
            norm_level: -2,
        },
    }
}

fn column(compression: &str) -> ParquetColumnOptions {
    ParquetColumnOptions {
        bloom_filter_enabled: Some(true),
        encoding: Some("byte_stream_split".into()),
        dictionary_enabled: Some(false),
        compression: Some(compression.into()),
        statistics_enabled: Some("none".into()),
        bloom_filter_fpp: Some(0.01),
        bloom_filter_ndv: Some(55),
    }
}

/// Every `TableParquetOptions` field set, nested ones included.
fn options() -> TableParquetOptions {
    let key = |k: &str| ColumnEncryptionProperties {
        column_key_as_hex: k.into(),
        column_metadata_as_hex: Some(format!("{k}-meta")),
    };
    TableParquetOptions {
        global: global(),
        column_specific_options: HashMap::from([
            ("price".to_string(), column("gzip(4)")),
            ("id".to_string(), column("snappy")),
        ]),
        key_value_metadata: HashMap::from([
            ("owner".to_string(), Some("team-a".to_string())),
            ("flag".to_string(), None),
        ]),
        crypto: ParquetEncryptionOptions {
            file_decryption: Some(ConfigFileDecryptionProperties {
                footer_key_as_hex: "30313233343536373839303132333435".into(),
                column_decryption_properties: HashMap::from([(
                    "price".to_string(),
                    ColumnDecryptionProperties {
                        column_key_as_hex: "31323334353637383930313233343530".into(),
                    },
                )]),
                aad_prefix_as_hex: "6161".into(),
                footer_signature_verification: false,
            }),
            file_encryption: Some(ConfigFileEncryptionProperties {
                encrypt_footer: false,
                footer_key_as_hex: "30313233343536373839303132333435".into(),
                footer_key_metadata_as_hex: "6b6579".into(),
                column_encryption_properties: HashMap::from([
                    ("price".to_string(), key("3132")),
                    (
                        "id".to_string(),
                        ColumnEncryptionProperties {
                            column_key_as_hex: "3133".into(),
                            column_metadata_as_hex: None,
                        },
                    ),
                ]),
                aad_prefix_as_hex: "6262".into(),
                store_aad_prefix: true,
            }),
            factory_id: Some("kms".into()),
            factory_options: EncryptionFactoryOptions {
                options: HashMap::from([("key_id".to_string(), "k1".to_string())]),
            },
        },
    }
}

/// Every `FileSinkConfig` field set.
fn config() -> FileSinkConfig {
    FileSinkConfig {
        original_url: "file:///tmp/out/".into(),
        object_store_url: ObjectStoreUrl::parse("file://").unwrap(),
        file_group: FileGroup::new(vec![PartitionedFile::new("tmp/out/old.parquet", 123)]),
        table_paths: vec![ListingTableUrl::parse("file:///tmp/out/").unwrap()],
        output_schema: schema(),
        table_partition_cols: vec![("day".to_string(), DataType::Utf8)],
        insert_op: InsertOp::Overwrite,
        keep_partition_by_columns: true,
        file_extension: "pq".into(),
        file_output_mode: FileOutputMode::Directory,
    }
}

fn sort_order(schema: &Schema) -> LexRequirement {
    LexRequirement::new([
        PhysicalSortRequirement::new(
            col("price", schema).unwrap(),
            Some(SortOptions {
                descending: true,
                nulls_first: false,
            }),
        ),
        PhysicalSortRequirement::new(
            col("id", schema).unwrap(),
            Some(SortOptions {
                descending: false,
                nulls_first: true,
            }),
        ),
    ])
    .unwrap()
}

fn sorting_columns() -> Vec<SortingColumn> {
    vec![
        SortingColumn {
            column_idx: 1,
            descending: true,
            nulls_first: false,
        },
        SortingColumn {
            column_idx: 0,
            descending: false,
            nulls_first: true,
        },
    ]
}

/// `plan` through protobuf bytes and back, with `codec`.
fn round_trip(
    plan: Arc<dyn ExecutionPlan>,
    codec: &dyn PhysicalExtensionCodec,
) -> datafusion::error::Result<Arc<dyn ExecutionPlan>> {
    let bytes = PhysicalPlanNode::try_from_physical_plan(plan, codec)?.encode_to_vec();
    let node = PhysicalPlanNode::decode(bytes.as_slice()).unwrap();
    node.try_into_physical_plan(&TaskContext::default(), codec)
}

fn sink_of(plan: &Arc<dyn ExecutionPlan>) -> (&DataSinkExec, &FlbaParquetSink) {
    let exec = plan.downcast_ref::<DataSinkExec>().expect("a DataSinkExec");
    let sink = exec
        .sink()
        .downcast_ref::<FlbaParquetSink>()
        .expect("FlbaParquetSink");
    (exec, sink)
}

#[test]
fn every_sink_field_round_trips() {
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let sink = FlbaParquetSink::new(config(), options())
        .with_sorting_columns(Some(sorting_columns()))
        .with_threads(3)
        .with_encryption_keys_sent(true);
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(
        Arc::clone(&input),
        Arc::new(sink),
        Some(sort_order(&schema())),
    ));
    let back = round_trip(Arc::clone(&plan), &FlbaCodec::new()).unwrap();
    let ((exec, sink), (exec2, sink2)) = (sink_of(&plan), sink_of(&back));
    assert_eq!(sink2.parquet_options(), &options());
    assert_eq!(sink2.parquet_options(), sink.parquet_options());
    assert_eq!(sink2.sorting_columns(), Some(sorting_columns().as_slice()));
    assert_eq!(sink2.threads(), 3);
    assert!(sink2.encryption_keys_sent());
    assert_eq!(
        format!("{:?}", FileSink::config(sink2)),
        format!("{:?}", FileSink::config(sink)),
        "FileSinkConfig"
    );
    assert_eq!(
        format!("{:?}", exec2.sort_order()),
        format!("{:?}", exec.sort_order())
    );
    assert!(
        exec2.input().downcast_ref::<EmptyExec>().is_some(),
        "the input"
    );
    assert_eq!(exec2.input().schema(), input.schema());
}

/// No sorting columns and no sort order, a `metadata::` key only without a
/// value, default options: the absent stays absent.
#[test]
fn absent_fields_stay_absent() {
    let mut options = TableParquetOptions::default();
    options.key_value_metadata.insert("only_key".into(), None);
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let sink = FlbaParquetSink::new(config(), options.clone());
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(input, Arc::new(sink), None));
    let back = round_trip(plan, &FlbaCodec::new()).unwrap();
    let (exec, sink) = sink_of(&back);
    assert_eq!(sink.parquet_options(), &options);
    assert_eq!(sink.sorting_columns(), None);
    assert!(exec.sort_order().is_none());
    let empty = FlbaParquetSink::new(config(), options).with_sorting_columns(Some(vec![]));
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(input, Arc::new(empty), None));
    let back = round_trip(plan, &FlbaCodec::new()).unwrap();
    assert_eq!(sink_of(&back).1.sorting_columns(), Some(&[][..]));
}

/// Why the codec carries fields of its own: DataFusion 55.2's conversions
/// of its own parquet sink lose the `metadata::` pairs and the encryption
/// options (stock Ballista writes such files without them). If this
/// starts failing, DataFusion carries them now.
#[test]
fn datafusion_own_conversion_loses_metadata_and_crypto() {
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let stock = ParquetSink::new(config(), options());
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(input, Arc::new(stock), None));
    let back = round_trip(plan, &DefaultPhysicalExtensionCodec {}).unwrap();
    let exec = back.downcast_ref::<DataSinkExec>().unwrap();
    let options = exec
        .sink()
        .downcast_ref::<ParquetSink>()
        .unwrap()
        .parquet_options();
    assert!(options.key_value_metadata.is_empty());
    assert_eq!(options.crypto, ParquetEncryptionOptions::default());
    assert_eq!(options.global, global(), "the global options do travel");
}

/// A node that is not ours goes to Ballista's codec, both ways.
#[test]
fn other_nodes_go_to_ballistas_codec() {
    let plan: Arc<dyn ExecutionPlan> = Arc::new(UnresolvedShuffleExec::new(
        3,
        schema(),
        Partitioning::UnknownPartitioning(4),
    ));
    let back = round_trip(Arc::clone(&plan), &FlbaCodec::new()).unwrap();
    let back = back
        .downcast_ref::<UnresolvedShuffleExec>()
        .expect("UnresolvedShuffleExec");
    assert_eq!(back.stage_id, 3);
    assert_eq!(back.schema(), schema());
}

/// Bytes that start like ours but are not a sink node are an error.
#[test]
fn malformed_node_is_an_error() {
    let codec = FlbaCodec::new();
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let sink = FlbaParquetSink::new(config(), options()).with_encryption_keys_sent(true);
    let plan: Arc<dyn ExecutionPlan> =
        Arc::new(DataSinkExec::new(Arc::clone(&input), Arc::new(sink), None));
    let mut buf = Vec::new();
    let converter = datafusion_proto::physical_plan::DefaultPhysicalProtoConverter {};
    codec.try_encode(plan, &mut buf, &converter).unwrap();
    let ctx = TaskContext::default();
    for cut in [buf.len() - 1, buf.len() / 2, 25] {
        let e = codec
            .try_decode(&buf[..cut], &[Arc::clone(&input)], &ctx, &converter)
            .expect_err("a truncated node");
        assert!(e.to_string().contains("parquet-flba"), "{e}");
    }
    let e = codec
        .try_decode(&buf, &[], &ctx, &converter)
        .expect_err("no input");
    assert!(e.to_string().contains("one input"), "{e}");
}

/// The encoded node of a sink with `threads`, with the codec's tag.
fn encoded(threads: usize) -> Vec<u8> {
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let sink = FlbaParquetSink::new(config(), options())
        .with_threads(threads)
        .with_encryption_keys_sent(true);
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(input, Arc::new(sink), None));
    let mut buf = Vec::new();
    let converter = datafusion_proto::physical_plan::DefaultPhysicalProtoConverter {};
    FlbaCodec::new()
        .try_encode(plan, &mut buf, &converter)
        .unwrap();
    buf
}

/// A node tagged with a later version of the codec (a newer scheduler
/// than this executor) is refused by name, not handed to Ballista's codec
/// (whose error would not say what the node is).
#[test]
fn a_newer_node_version_is_refused_by_name() {
    let buf = encoded(3);
    let tag = b"\0parquet-flba/sink/";
    assert!(buf.starts_with(tag), "the tag changed");
    for version in ["2", "10"] {
        let mut newer = tag.to_vec();
        newer.extend_from_slice(version.as_bytes());
        newer.extend_from_slice(&buf[tag.len() + 1..]);
        let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
        let converter = datafusion_proto::physical_plan::DefaultPhysicalProtoConverter {};
        let e = FlbaCodec::new()
            .try_decode(&newer, &[input], &TaskContext::default(), &converter)
            .expect_err("a newer node");
        let message = e.to_string();
        assert!(
            message.contains(&format!("parquet-flba sink node of version {version}")),
            "{message}"
        );
        assert!(message.contains("version 1"), "{message}");
    }
}

/// A thread count read from the wire is clamped: a node from a faulty or
/// hostile peer with `threads` = 2^64 - 1 gives a sink whose count the
/// thread pool can use (it computed `2 * threads - 1`, which overflowed),
/// and `0` still means "choose".
#[test]
fn a_thread_count_from_the_wire_is_clamped() {
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let converter = datafusion_proto::physical_plan::DefaultPhysicalProtoConverter {};
    let ctx = TaskContext::default();
    let mut buf = encoded(3);
    // Field 7 (`threads`, a varint) again: the last value read wins.
    buf.push(7 << 3);
    buf.extend_from_slice(&[0xff; 9]);
    buf.push(0x01);
    let plan = FlbaCodec::new()
        .try_decode(&buf, &[Arc::clone(&input)], &ctx, &converter)
        .unwrap();
    let threads = sink_of(&plan).1.threads();
    assert!((2..=1024).contains(&threads), "threads = {threads}");
    let plan = FlbaCodec::new()
        .try_decode(&encoded(0), &[input], &ctx, &converter)
        .unwrap();
    assert_eq!(sink_of(&plan).1.threads(), 0, "0 chooses");
}

/// Raw encryption keys are not put in a plan sent to the executors unless
/// the write was planned with `parquet_flba.send_encryption_keys`: a sink
/// with encryption keys is refused (naming the setting and the factory);
/// decryption keys, which a sink never uses, are left out; an encryption
/// factory and its options travel.
#[test]
fn encryption_keys_travel_only_when_allowed() {
    let input: Arc<dyn ExecutionPlan> = Arc::new(EmptyExec::new(schema()));
    let with_keys = FlbaParquetSink::new(config(), options());
    assert!(!with_keys.encryption_keys_sent(), "off by default");
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(
        Arc::clone(&input),
        Arc::new(with_keys),
        None,
    ));
    let e = round_trip(plan, &FlbaCodec::new()).expect_err("keys on the wire");
    let message = e.to_string();
    assert!(
        message.contains("parquet_flba.send_encryption_keys"),
        "{message}"
    );
    assert!(message.contains("factory_id"), "{message}");

    let mut factory = options();
    factory.crypto.file_encryption = None;
    let sink = FlbaParquetSink::new(config(), factory.clone());
    let plan: Arc<dyn ExecutionPlan> = Arc::new(DataSinkExec::new(input, Arc::new(sink), None));
    let back = round_trip(plan, &FlbaCodec::new()).unwrap();
    let crypto = &sink_of(&back).1.parquet_options().crypto;
    assert_eq!(crypto.factory_id, factory.crypto.factory_id);
    assert_eq!(crypto.factory_options, factory.crypto.factory_options);
    assert!(crypto.factory_id.is_some());
    assert_eq!(crypto.file_decryption, None, "decryption keys sent");
    assert!(factory.crypto.file_decryption.is_some());
}
