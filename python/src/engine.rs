//! The Rust writer behind a Python writer: parquet-flba's `ArrowWriter`,
//! or (for the tests' byte comparisons only) parquet's own.

use crate::errors::Result;
use crate::options::Settings;
use crate::sink::Output;
use crate::versions::parquet::arrow::ArrowWriter as ParquetArrowWriter;
use crate::versions::parquet::arrow::arrow_writer::ArrowWriterOptions as ParquetOptions;
use crate::versions::parquet::file::metadata::KeyValue;
use crate::versions::{RecordBatch, SchemaRef};
use parquet_flba::{ArrowWriter, ArrowWriterOptions, LeafPath};

/// Which writer encodes the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// parquet-flba's `ArrowWriter` (what the package is for).
    Flba,
    /// parquet's `ArrowWriter`: the oracle the tests compare bytes with.
    Parquet,
}

/// An open Rust writer.
pub enum Engine {
    /// parquet-flba's.
    Flba(Box<ArrowWriter<Output>>),
    /// parquet's.
    Parquet(Box<ParquetArrowWriter<Output>>),
}

impl Engine {
    /// A writer of `kind` over `output`, for batches of `schema` (the
    /// file's, after the schema rules), with `rows` rows per row group.
    pub fn open(
        kind: Kind,
        output: Output,
        schema: SchemaRef,
        settings: &Settings,
        rows: usize,
        threads: usize,
    ) -> Result<Engine> {
        let properties = settings
            .properties
            .clone()
            .into_builder()
            .set_max_row_group_row_count(Some(rows))
            .build();
        let skip = !settings.store_schema;
        Ok(match kind {
            Kind::Flba => {
                let options = ArrowWriterOptions::new()
                    .with_properties(properties)
                    .with_skip_arrow_metadata(skip);
                let writer = ArrowWriter::try_new_with_options(output, schema, options)?;
                Engine::Flba(Box::new(writer.with_threads(threads)))
            }
            Kind::Parquet => {
                let options = ParquetOptions::new()
                    .with_properties(properties)
                    .with_skip_arrow_metadata(skip);
                let writer = ParquetArrowWriter::try_new_with_options(output, schema, options)?;
                Engine::Parquet(Box::new(writer))
            }
        })
    }

    /// Buffers `batch` (cutting row groups at the writer's row count).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            Engine::Flba(w) => w.write(batch)?,
            Engine::Parquet(w) => w.write(batch)?,
        }
        Ok(())
    }

    /// Ends the row group in progress.
    pub fn flush(&mut self) -> Result<()> {
        match self {
            Engine::Flba(w) => w.flush()?,
            Engine::Parquet(w) => w.flush()?,
        }
        Ok(())
    }

    /// Rows buffered in the row group in progress.
    pub fn in_progress_rows(&self) -> usize {
        match self {
            Engine::Flba(w) => w.in_progress_rows(),
            Engine::Parquet(w) => w.in_progress_rows(),
        }
    }

    /// Adds a footer key-value pair.
    pub fn append_key_value_metadata(&mut self, kv: KeyValue) {
        match self {
            Engine::Flba(w) => w.append_key_value_metadata(kv),
            Engine::Parquet(w) => w.append_key_value_metadata(kv),
        }
    }

    /// Writes the footer and hands the output back.
    pub fn finish(self) -> Result<Output> {
        Ok(match self {
            Engine::Flba(w) => w.into_inner()?,
            Engine::Parquet(w) => w.into_inner()?,
        })
    }
}

/// Each leaf's path in the file, whether parquet-flba encodes it itself
/// (`"fast"`) or hands it to parquet's column writer (`"parquet"`), and why.
pub fn column_plan(
    schema: SchemaRef,
    settings: &Settings,
) -> Result<Vec<(String, String, Option<String>)>> {
    let options = ArrowWriterOptions::new()
        .with_properties(settings.properties.clone())
        .with_skip_arrow_metadata(!settings.store_schema);
    let writer = ArrowWriter::try_new_with_options(Vec::new(), schema, options)?;
    let plan = writer
        .column_plan()
        .leaves()
        .iter()
        .map(|leaf| {
            let path = match leaf.path() {
                LeafPath::Fast => "fast",
                _ => "parquet",
            };
            let reason = leaf.reason().map(|r| r.to_string());
            (leaf.column_path().string(), path.to_string(), reason)
        })
        .collect();
    Ok(plan)
}
