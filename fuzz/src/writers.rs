//! Writing the same scenario through `parquet::arrow` (the oracle) and
//! `parquet_flba`, with the same calls.
//!
//! [`up`] and [`flba`] are generated from one macro, so the two sides cannot
//! drift apart: the module name is the only difference.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::SchemaDescriptor;

/// Which public API writes the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Api {
    /// `ArrowWriter::write` per batch, `flush()` after the batches flagged,
    /// then `close()`.
    ArrowWriter {
        /// `flush_after[i]`: call `flush()` after batch `i`.
        flush_after: Vec<bool>,
    },
    /// The column-level flow of parallel writers: a `SerializedFileWriter`,
    /// an `ArrowRowGroupWriterFactory`, `compute_leaves` and one
    /// `ArrowColumnWriter` per leaf, a row group per group of batches.
    Columns {
        /// `new_group_after[i]`: start a new row group after batch `i`.
        new_group_after: Vec<bool>,
    },
}

/// Everything `ArrowWriterOptions` carries that the harness varies.
#[derive(Clone, Debug, Default)]
pub struct Opts {
    /// Writer properties.
    pub props: WriterProperties,
    /// `with_skip_arrow_metadata`.
    pub skip_arrow_metadata: bool,
    /// `with_schema_root`.
    pub schema_root: Option<String>,
    /// `with_parquet_schema`.
    pub parquet_schema: Option<SchemaDescriptor>,
}

/// The writer's observable state after one write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// `in_progress_size()` (or, column level, the sum of
    /// `get_estimated_total_bytes()`).
    pub in_progress_size: usize,
    /// `in_progress_rows()` (0 at the column level).
    pub in_progress_rows: usize,
    /// `bytes_written()`.
    pub bytes_written: usize,
    /// `flushed_row_groups().len()`.
    pub flushed_row_groups: usize,
}

/// A file written by one implementation.
#[derive(Debug)]
pub struct Written {
    /// The file.
    pub bytes: Vec<u8>,
    /// The state after each write.
    pub steps: Vec<Step>,
}

/// Where writing failed, and how.
#[derive(Debug)]
pub struct Failed {
    /// The step: `try_new`, `write #i`, `close`, ...
    pub at: String,
    /// The error.
    pub error: String,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.error)
    }
}

/// Attach the step name to a `ParquetError`.
fn at<T>(step: impl Into<String>, r: parquet::errors::Result<T>) -> Result<T, Failed> {
    r.map_err(|e| Failed {
        at: step.into(),
        error: e.to_string(),
    })
}

macro_rules! writer_impl {
    ($modname:ident, $($path:ident)::+) => {
        /// Writes through one implementation (the module's name says which).
        pub mod $modname {
            use super::*;
            use std::sync::Arc;
            use parquet::arrow::ArrowSchemaConverter;
            use parquet::file::writer::SerializedFileWriter;
            use $($path)::+ as w;

            /// This implementation's `ArrowWriterOptions` for `o`.
            pub fn options(o: &Opts) -> w::ArrowWriterOptions {
                let mut opts = w::ArrowWriterOptions::new()
                    .with_properties(o.props.clone())
                    .with_skip_arrow_metadata(o.skip_arrow_metadata);
                if let Some(root) = &o.schema_root {
                    opts = opts.with_schema_root(root.clone());
                }
                if let Some(schema) = &o.parquet_schema {
                    opts = opts.with_parquet_schema(schema.clone());
                }
                opts
            }

            /// A new `ArrowWriter` over `sink`.
            pub fn writer<W: std::io::Write + Send>(
                sink: W,
                schema: &SchemaRef,
                o: &Opts,
            ) -> parquet::errors::Result<w::ArrowWriter<W>> {
                w::ArrowWriter::try_new_with_options(sink, schema.clone(), options(o))
            }

            /// The state of an `ArrowWriter`.
            pub fn step<W: std::io::Write + Send>(wr: &w::ArrowWriter<W>) -> Step {
                Step {
                    in_progress_size: wr.in_progress_size(),
                    in_progress_rows: wr.in_progress_rows(),
                    bytes_written: wr.bytes_written(),
                    flushed_row_groups: wr.flushed_row_groups().len(),
                }
            }

            /// Write `batches` through `api`.
            pub fn write(
                schema: &SchemaRef,
                batches: &[RecordBatch],
                o: &Opts,
                api: &Api,
            ) -> Result<Written, Failed> {
                match api {
                    Api::ArrowWriter { flush_after } => {
                        let mut bytes = Vec::new();
                        let mut wr = at("try_new_with_options", writer(&mut bytes, schema, o))?;
                        let mut steps = Vec::new();
                        for (i, b) in batches.iter().enumerate() {
                            at(format!("write #{i}"), wr.write(b))?;
                            if flush_after.get(i).copied().unwrap_or(false) {
                                at(format!("flush after #{i}"), wr.flush())?;
                            }
                            steps.push(step(&wr));
                        }
                        at("close", wr.close())?;
                        Ok(Written { bytes, steps })
                    }
                    Api::Columns { new_group_after } => {
                        write_columns(schema, batches, &o.props, new_group_after)
                    }
                }
            }

            fn write_columns(
                schema: &SchemaRef,
                batches: &[RecordBatch],
                props: &WriterProperties,
                new_group_after: &[bool],
            ) -> Result<Written, Failed> {
                let parquet_schema = at(
                    "convert schema",
                    ArrowSchemaConverter::new()
                        .with_coerce_types(props.coerce_types())
                        .convert(schema),
                )?;
                let mut fw = at(
                    "SerializedFileWriter::new",
                    SerializedFileWriter::new(
                        Vec::new(),
                        parquet_schema.root_schema_ptr(),
                        Arc::new(props.clone()),
                    ),
                )?;
                let factory = w::ArrowRowGroupWriterFactory::new(&fw, schema.clone());
                let mut groups: Vec<&[RecordBatch]> = Vec::new();
                let mut start = 0;
                for i in 0..batches.len() {
                    if i + 1 == batches.len() || new_group_after.get(i).copied().unwrap_or(false) {
                        groups.push(&batches[start..=i]);
                        start = i + 1;
                    }
                }
                let mut steps = Vec::new();
                for (g, group) in groups.iter().enumerate() {
                    let mut writers = at(
                        format!("create_column_writers({g})"),
                        factory.create_column_writers(g),
                    )?;
                    for (i, b) in group.iter().enumerate() {
                        let mut leaf_index = 0;
                        for (field, col) in schema.fields().iter().zip(b.columns()) {
                            let leaves = at(
                                format!("compute_leaves of {} in group {g} batch {i}", field.name()),
                                w::compute_leaves(field, col),
                            )?;
                            for leaf in leaves {
                                let cw = writers.get_mut(leaf_index).ok_or_else(|| Failed {
                                    at: format!("group {g} batch {i}"),
                                    error: "more leaves than column writers".into(),
                                })?;
                                at(
                                    format!("column {leaf_index} write in group {g} batch {i}"),
                                    cw.write(&leaf),
                                )?;
                                leaf_index += 1;
                            }
                        }
                        steps.push(Step {
                            in_progress_size: writers
                                .iter()
                                .map(|c| c.get_estimated_total_bytes())
                                .sum(),
                            in_progress_rows: 0,
                            bytes_written: fw.bytes_written(),
                            flushed_row_groups: fw.flushed_row_groups().len(),
                        });
                    }
                    let mut rg = at(format!("next_row_group {g}"), fw.next_row_group())?;
                    for (c, cw) in writers.into_iter().enumerate() {
                        let chunk = at(format!("close column {c} of group {g}"), cw.close())?;
                        at(
                            format!("append column {c} of group {g}"),
                            chunk.append_to_row_group(&mut rg),
                        )?;
                    }
                    at(format!("close row group {g}"), rg.close())?;
                }
                at("finish", fw.finish())?;
                let bytes = at("into_inner", fw.into_inner())?;
                Ok(Written { bytes, steps })
            }
        }
    };
}

writer_impl!(up, parquet::arrow::arrow_writer);
writer_impl!(flba, parquet_flba);
