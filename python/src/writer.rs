//! `_native.Writer`: one Parquet file being written, behind
//! `parquet_flba.ParquetWriter` and `parquet_flba.write_table`.
//!
//! Each `write` reads its data batch by batch with the GIL released,
//! checking for signals (Ctrl-C) between batches, and ends its row groups
//! as pyarrow's `ParquetWriter.write_table` does: row groups of
//! `row_group_size` rows, the last one of the call possibly shorter.
//!
//! `write_table` knows its row-group size before it starts, and opens the
//! Rust writer with it: the writer cuts the row groups itself and, on
//! several threads, overlaps one row group's encoding with the next. A
//! `ParquetWriter` may be given another size at each call: its Rust writer
//! is opened with pyarrow's largest (64Mi rows) and each call's row groups
//! are cut here, each ended with a flush (the same bytes; on several
//! threads the row groups then do not overlap).

use crate::engine::{Engine, Kind, column_plan};
use crate::errors::{Failure, Result, guard};
use crate::input::Source;
use crate::options::{Settings, settings};
use crate::schema::{check_same, conform};
use crate::sink::{Output, Sink};
use crate::versions::parquet::file::metadata::KeyValue;
use crate::versions::{RecordBatch, Schema, SchemaRef};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};

/// The state of a file.
enum State {
    /// Opened, no Rust writer yet.
    Pending(Output),
    /// Written to.
    Open(Engine),
    /// Closed, or abandoned after a failure.
    Done,
}

/// A Parquet file being written (see the module docs).
#[pyclass(module = "parquet_flba._native", name = "Writer")]
pub struct Writer {
    sink: Sink,
    /// The input's schema (what each write must bring).
    schema: SchemaRef,
    /// The file's schema.
    target: SchemaRef,
    settings: Settings,
    kind: Kind,
    threads: usize,
    /// The row-group size the Rust writer cuts at by itself.
    engine_rows: usize,
    metadata: Vec<KeyValue>,
    state: Mutex<State>,
}

/// pyarrow's largest row group (`_MAX_ROW_GROUP_SIZE`).
const MAX_ROWS: usize = 64 * 1024 * 1024;

#[pymethods]
impl Writer {
    /// Opens `where` for data of `schema` (an object with
    /// `__arrow_c_schema__`), with `options` from `_options.py`.
    #[new]
    #[pyo3(signature = (sink, schema, options, threads, oracle=false))]
    fn new(
        sink: &Bound<'_, PyAny>,
        schema: &Bound<'_, PyAny>,
        options: &Bound<'_, PyDict>,
        threads: usize,
        oracle: bool,
    ) -> PyResult<Self> {
        let schema = crate::input::schema_of(schema)?;
        Ok(Self::open(
            sink, schema, options, threads, MAX_ROWS, oracle,
        )?)
    }

    /// Writes `data` (see `input.rs`), in row groups of `row_group_size`.
    fn write(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        row_group_size: usize,
    ) -> PyResult<()> {
        let source = Source::from_py(data)?;
        self.write_from(py, source, row_group_size)
    }

    /// Adds key-value pairs to the footer.
    fn add_key_value_metadata(&mut self, pairs: Vec<(String, String)>) -> PyResult<()> {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        for (key, value) in pairs {
            let kv = KeyValue::new(key, value);
            match &mut *state {
                State::Open(engine) => engine.append_key_value_metadata(kv),
                _ => self.metadata.push(kv),
            }
        }
        Ok(())
    }

    /// Writes the footer and closes the file (a file object is flushed,
    /// not closed). Closing twice does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut state = self.lock()?;
        if matches!(*state, State::Done) {
            return Ok(());
        }
        let open: &mut State = &mut state;
        let result = py.detach(|| guard(|| self.finish(open)));
        self.settle(&mut state, result)
    }

    /// Abandons the file: no footer; a file the writer created at a path is
    /// removed.
    fn abort(&self) -> PyResult<()> {
        let mut state = self.lock()?;
        if !matches!(*state, State::Done) {
            *state = State::Done;
            self.sink.discard();
        }
        Ok(())
    }

    /// Whether the file is still open for writing.
    #[getter]
    fn is_open(&self) -> bool {
        match self.state.try_lock() {
            Ok(state) => !matches!(*state, State::Done),
            // Held by a write in another thread (never waited for with
            // the GIL held: that write may need the GIL to go on).
            Err(std::sync::TryLockError::WouldBlock) => true,
            Err(std::sync::TryLockError::Poisoned(p)) => !matches!(*p.into_inner(), State::Done),
        }
    }

    /// Each leaf column's path, `"fast"` or `"parquet"`, and why a leaf is
    /// left to parquet.
    fn column_plan(&self) -> PyResult<Vec<(String, String, Option<String>)>> {
        Ok(guard(|| column_plan(self.target.clone(), &self.settings))?)
    }
}

impl Writer {
    /// Opens a writer for data of `schema`, whose Rust writer cuts row
    /// groups of `engine_rows` rows.
    pub fn open(
        sink: &Bound<'_, PyAny>,
        schema: Schema,
        options: &Bound<'_, PyDict>,
        threads: usize,
        engine_rows: usize,
        oracle: bool,
    ) -> Result<Self> {
        let (settings, target) = guard(|| {
            let settings = settings(options, &schema)?;
            let target = Arc::new(settings.rules.target(&schema));
            Ok((settings, target))
        })?;
        let (sink, output) = Sink::open(sink)?;
        Ok(Writer {
            sink,
            schema: Arc::new(schema),
            target,
            settings,
            kind: if oracle { Kind::Parquet } else { Kind::Flba },
            threads: threads.max(1),
            engine_rows,
            metadata: Vec::new(),
            state: Mutex::new(State::Pending(output)),
        })
    }

    /// Writes everything `source` yields (see [`Writer::write`]).
    pub fn write_from(&self, py: Python<'_>, mut source: Source, rows: usize) -> PyResult<()> {
        check_same(&source.schema(), &self.schema)?;
        let mut state = self.lock()?;
        if matches!(*state, State::Done) {
            return Err(Failure::Value("the writer is closed".into()).into());
        }
        let open: &mut State = &mut state;
        let result = py.detach(|| guard(|| self.write_source(open, &mut source, rows)));
        drop(source);
        self.settle(&mut state, result)
    }

    /// Closes the file (see [`Writer::close`]).
    pub fn close_file(&self, py: Python<'_>) -> PyResult<()> {
        self.close(py)
    }

    /// Abandons the file (see [`Writer::abort`]).
    pub fn abort_file(&self) {
        let _ = self.abort();
    }

    /// The state, if no other thread is writing (a lock is never waited
    /// for with the GIL held: the write holding it may need the GIL).
    fn lock(&self) -> Result<std::sync::MutexGuard<'_, State>> {
        match self.state.try_lock() {
            Ok(state) => Ok(state),
            Err(std::sync::TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => Err(Failure::Value(
                "the writer is busy with another write".into(),
            )),
        }
    }

    fn write_source(&self, state: &mut State, source: &mut Source, rows: usize) -> Result<()> {
        let (engine, cut) = self.engine(state, rows)?;
        let mut in_group = 0usize;
        loop {
            Python::attach(|py| py.check_signals())?;
            let Some(batch) = source.next_batch()? else {
                break;
            };
            let batch = conform(batch, &self.target)?;
            match cut {
                None => engine.write(&batch)?,
                Some(rows) => write_cut(engine, &batch, rows, &mut in_group)?,
            }
        }
        if engine.in_progress_rows() > 0 {
            engine.flush()?;
        }
        Ok(())
    }

    /// The open engine, and the row-group size this call must cut at
    /// itself (when not the engine's).
    fn engine<'s>(
        &self,
        state: &'s mut State,
        rows: usize,
    ) -> Result<(&'s mut Engine, Option<usize>)> {
        if let State::Pending(_) = state {
            let State::Pending(output) = std::mem::replace(state, State::Done) else {
                unreachable!()
            };
            *state = State::Open(self.start(output)?);
        }
        let State::Open(engine) = state else {
            return Err(Failure::Value("the writer is closed".into()));
        };
        if rows > self.engine_rows {
            return Err(Failure::Value(format!(
                "row_group_size={rows} is above this writer's largest ({})",
                self.engine_rows
            )));
        }
        Ok((engine, (rows != self.engine_rows).then_some(rows)))
    }

    /// The Rust writer over `output`.
    fn start(&self, output: Output) -> Result<Engine> {
        let mut engine = Engine::open(
            self.kind,
            output,
            self.target.clone(),
            &self.settings,
            self.engine_rows,
            self.threads,
        )?;
        for kv in &self.metadata {
            engine.append_key_value_metadata(kv.clone());
        }
        Ok(engine)
    }

    fn finish(&self, state: &mut State) -> Result<()> {
        let engine = match std::mem::replace(state, State::Done) {
            State::Done => return Ok(()),
            State::Pending(output) => self.start(output)?,
            State::Open(engine) => engine,
        };
        let mut output = engine.finish()?;
        std::io::Write::flush(&mut output)?;
        if let Output::Object(o) = output {
            o.into_inner().map_err(|e| Failure::Io(e.into_error()))?;
        }
        Ok(())
    }

    /// Reports `result`; after a failure that leaves the file unusable (a
    /// panic, or a failure while closing), the file is abandoned.
    fn settle(&self, state: &mut State, result: Result<()>) -> PyResult<()> {
        let Err(failure) = result else {
            return Ok(());
        };
        let failure = self.sink.explain(failure);
        let fatal = matches!(failure, Failure::Panic(_)) || matches!(state, State::Done);
        if fatal {
            *state = State::Done;
            self.sink.discard();
        }
        Err(failure.into())
    }
}

/// Writes `batch` in row groups of `rows` rows, `in_group` being the rows
/// the row group in progress already has.
fn write_cut(
    engine: &mut Engine,
    batch: &RecordBatch,
    rows: usize,
    in_group: &mut usize,
) -> Result<()> {
    let mut offset = 0;
    while offset < batch.num_rows() {
        let take = (rows - *in_group).min(batch.num_rows() - offset);
        engine.write(&batch.slice(offset, take))?;
        offset += take;
        *in_group += take;
        if *in_group == rows {
            engine.flush()?;
            *in_group = 0;
        }
    }
    Ok(())
}
