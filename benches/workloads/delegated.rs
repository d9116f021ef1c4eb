//! A whole table whose one leaf goes to `parquet`'s own column writer: what
//! this crate costs where it does not encode (issue 38: "where a leaf stays
//! parquet's, the crate costs nothing").
//!
//! The `int64` table (`Int64` in 0..10,000, 2,097,152 rows in 64 batches)
//! written with an explicit Parquet schema whose one leaf is INT64 with the
//! `INT_64` converted type: `parquet`'s schema converter gives an `Int64`
//! field none, so this crate plans the leaf
//! [`DelegateReason::ParquetSchemaMismatch`](parquet_flba::DelegateReason)
//! and both writers encode it with `parquet`'s column writer. Checked before
//! timing: the plan delegates the leaf, and the two files are identical.

use std::sync::Arc;

use arrow_array::RecordBatch;
use parquet::basic::{ConvertedType, Repetition, Type as PhysicalType};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::{SchemaDescriptor, Type};

/// The Parquet schema of the `int64` table with its leaf given the
/// `INT_64` converted type.
pub fn schema_with_logical_int64(name: &str) -> SchemaDescriptor {
    let leaf = Type::primitive_type_builder(name, PhysicalType::INT64)
        .with_repetition(Repetition::OPTIONAL)
        .with_converted_type(ConvertedType::INT_64)
        .build()
        .expect("INT64 leaf");
    let root = Type::group_type_builder("arrow_schema")
        .with_fields(vec![Arc::new(leaf)])
        .build()
        .expect("root");
    SchemaDescriptor::new(Arc::new(root))
}

/// Which writer [`write_delegated`] uses.
#[derive(Clone, Copy, Debug)]
pub enum DelegatedWriter {
    /// `parquet::arrow::ArrowWriter`.
    Parquet,
    /// `parquet_flba::ArrowWriter`.
    Flba,
}

/// Writes `batches` with `writer` and the explicit Parquet schema `descr`
/// into `sink`. With `check`, asserts that this crate planned every leaf
/// to `parquet`'s writer.
pub fn write_delegated(
    writer: DelegatedWriter,
    sink: &mut Vec<u8>,
    batches: &[RecordBatch],
    descr: &SchemaDescriptor,
    props: &WriterProperties,
    check: bool,
) {
    let schema = batches[0].schema();
    match writer {
        DelegatedWriter::Parquet => {
            let options = parquet::arrow::arrow_writer::ArrowWriterOptions::new()
                .with_properties(props.clone())
                .with_parquet_schema(descr.clone());
            let mut w = parquet::arrow::ArrowWriter::try_new_with_options(sink, schema, options)
                .expect("parquet writer");
            for batch in batches {
                w.write(batch).expect("parquet write");
            }
            w.close().expect("parquet close");
        }
        DelegatedWriter::Flba => {
            let options = parquet_flba::ArrowWriterOptions::new()
                .with_properties(props.clone())
                .with_parquet_schema(descr.clone());
            let mut w = parquet_flba::ArrowWriter::try_new_with_options(sink, schema, options)
                .expect("parquet-flba writer");
            if check {
                for leaf in w.column_plan().leaves() {
                    assert_eq!(
                        leaf.path(),
                        parquet_flba::LeafPath::Parquet,
                        "the delegated bench's leaf must go to parquet's writer"
                    );
                }
            }
            for batch in batches {
                w.write(batch).expect("parquet-flba write");
            }
            w.close().expect("parquet-flba close");
        }
    }
}
