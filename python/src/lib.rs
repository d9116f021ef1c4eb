//! `parquet_flba._native`: the extension module behind the `parquet_flba`
//! Python package. The package's `__init__.py` has the pyarrow-compatible
//! API (`write_table`, `ParquetWriter`); this module has the writer
//! ([`writer::Writer`]) and the one-call [`write_table`].
//!
//! Data comes in through the Arrow PyCapsule interface ([`input`]), is
//! encoded by `parquet_flba::ArrowWriter` with the GIL released, and goes
//! to a path or a Python file object ([`sink`]). Errors become Python
//! exceptions ([`errors`]); no panic crosses into Python.

mod columns;
mod engine;
mod errors;
mod input;
mod options;
mod schema;
mod sink;
mod versions;
mod writer;

use input::Source;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use writer::Writer;

/// Writes all of `data` to `sink` in one call: opens the data first (so a
/// bad argument creates no file), then the file; on any failure the file
/// is abandoned (removed, if at a path). `oracle=True` writes with
/// parquet's own `ArrowWriter` instead (for the tests' byte comparisons).
#[pyfunction]
#[pyo3(signature = (data, sink, options, threads, row_group_size, oracle=false))]
fn write_table(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    sink: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
    threads: usize,
    row_group_size: usize,
    oracle: bool,
) -> PyResult<()> {
    let source = Source::from_py(data)?;
    let schema = source.schema().as_ref().clone();
    let writer = Writer::open(sink, schema, options, threads, row_group_size, oracle)?;
    let written = writer
        .write_from(py, source, row_group_size)
        .and_then(|()| writer.close_file(py));
    if written.is_err() {
        writer.abort_file();
    }
    written
}

/// The default number of threads: the machine's cores.
#[pyfunction]
fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The `parquet` release the package writes like ("60.2.0").
#[pyfunction]
fn parquet_release() -> &'static str {
    parquet_flba::PARQUET_RELEASE
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Writer>()?;
    m.add_function(wrap_pyfunction!(write_table, m)?)?;
    m.add_function(wrap_pyfunction!(default_threads, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_release, m)?)?;
    m.add(
        "ParquetError",
        m.py().get_type::<errors::exc::ParquetError>(),
    )?;
    Ok(())
}
