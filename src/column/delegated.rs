//! `parquet`'s column writer for a delegated leaf, with its panics
//! contained: `parquet` panics on some inputs and settings it accepts (an
//! encoding its byte-array writer does not take, ...), and this crate
//! returns an error instead, naming the column.

use crate::pool::run_caught;
use parquet::arrow::arrow_writer as upstream;
use parquet::errors::{ParquetError, Result};

/// The error for a panic of `parquet`'s writer of `column` while `doing`.
pub(crate) fn panic_error(column: &str, doing: &str, message: &str) -> ParquetError {
    ParquetError::General(format!(
        "Column '{column}': parquet's column writer panicked {doing}: {message}"
    ))
}

/// Runs `f` (a call into `parquet`'s writer of `column`), a panic becoming
/// [`panic_error`].
pub(crate) fn contained<T>(column: &str, doing: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    run_caught(f).map_err(|message| panic_error(column, doing, &message))?
}

/// `parquet`'s writer of one leaf. After a panic its state is unknown:
/// every later call fails with the panic's error.
pub(crate) struct Delegated {
    writer: upstream::ArrowColumnWriter,
    /// The leaf's dotted path, for messages.
    column: String,
    /// The error of the panic that broke the writer.
    broken: Option<String>,
}

impl std::fmt::Debug for Delegated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.writer.fmt(f)
    }
}

impl Delegated {
    pub(crate) fn new(writer: upstream::ArrowColumnWriter, column: String) -> Self {
        Self {
            writer,
            column,
            broken: None,
        }
    }

    fn check(&self) -> Result<()> {
        match &self.broken {
            Some(e) => Err(ParquetError::General(e.clone())),
            None => Ok(()),
        }
    }

    /// `parquet`'s `ArrowColumnWriter::write`.
    pub(crate) fn write(&mut self, leaf: &upstream::ArrowLeafColumn) -> Result<()> {
        self.check()?;
        let writer = &mut self.writer;
        match run_caught(|| writer.write(leaf)) {
            Ok(written) => written,
            Err(message) => {
                let e = panic_error(&self.column, "writing", &message);
                self.broken = Some(e.to_string());
                Err(e)
            }
        }
    }

    /// `parquet`'s `ArrowColumnWriter::close`.
    pub(crate) fn close(self) -> Result<upstream::ArrowColumnChunk> {
        self.check()?;
        let Self { writer, column, .. } = self;
        contained(&column, "closing its chunk", || writer.close())
    }

    pub(crate) fn memory_size(&self) -> usize {
        self.writer.memory_size()
    }

    pub(crate) fn get_estimated_total_bytes(&self) -> usize {
        self.writer.get_estimated_total_bytes()
    }
}

/// After `parquet`'s `ArrowWriter` panicked writing `batch` with `props`:
/// the name of the first top-level field whose column alone, written by a
/// fresh `ArrowWriter` (into nothing), panics too; `None` if none does.
pub(crate) fn panicking_field(
    batch: &arrow_array::RecordBatch,
    props: &parquet::file::properties::WriterProperties,
) -> Option<String> {
    let schema = batch.schema();
    (0..batch.num_columns()).find_map(|i| {
        let alone = batch.project(&[i]).ok()?;
        let panics = run_caught(|| {
            let mut writer = parquet::arrow::ArrowWriter::try_new(
                std::io::sink(),
                alone.schema(),
                Some(props.clone()),
            )?;
            writer.write(&alone)?;
            writer.close().map(drop)
        })
        .is_err();
        panics.then(|| schema.field(i).name().clone())
    })
}
