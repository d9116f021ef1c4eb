//! Where the file goes: a path, or a writable binary Python file object.
//!
//! A path is opened (created or truncated) by the writer, and removed
//! again if the write fails or is abandoned ([`Sink::discard`]), so no
//! partial file is left behind. A file object gets the bytes through its
//! `write` method, in pieces of up to 1 MiB, taking the GIL for each call;
//! if `write` raises, that exception is what the write raises.

use crate::errors::{Failure, Result};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// How much output is gathered before each write to the file or object.
const BUFFER: usize = 1 << 20;

/// A Python exception raised by a file object's `write`, kept for the
/// caller (parquet's errors carry only a message).
pub type PyErrSlot = Arc<Mutex<Option<PyErr>>>;

/// The output of a writer.
pub enum Output {
    /// A file the writer opened.
    File(BufWriter<File>),
    /// A Python file object.
    Object(BufWriter<PyFile>),
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::File(f) => f.write(buf),
            Output::Object(o) => o.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::File(f) => f.write_all(buf),
            Output::Object(o) => o.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::File(f) => f.flush(),
            Output::Object(o) => o.flush(),
        }
    }
}

/// A Python object with a `write(bytes)` method.
pub struct PyFile {
    object: Py<PyAny>,
    error: PyErrSlot,
}

impl Write for PyFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf).map(|()| buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        Python::attach(|py| {
            let bytes = PyBytes::new(py, buf);
            let written = self.object.call_method1(py, "write", (bytes,));
            match written {
                Ok(n) => match n.extract::<Option<usize>>(py) {
                    // A raw (unbuffered) file may take less than all.
                    Ok(Some(n)) if n < buf.len() => Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        format!("the file object's write took {n} of {} bytes", buf.len()),
                    )),
                    _ => Ok(()),
                },
                Err(e) => {
                    let message = e.to_string();
                    self.error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                    Err(io::Error::other(message))
                }
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where a writer's output goes, and what to do with it on failure.
pub struct Sink {
    /// A path the writer created or truncated (removed on failure).
    pub path: Option<PathBuf>,
    /// The exception a file object's `write` raised, if any.
    pub error: PyErrSlot,
}

impl Sink {
    /// Opens `target`: a `str` path (already `os.fspath`-ed by the Python
    /// side) or an object with a `write` method.
    pub fn open(target: &Bound<'_, PyAny>) -> Result<(Sink, Output)> {
        let error = PyErrSlot::default();
        if let Ok(path) = target.extract::<PathBuf>() {
            let file = File::create(&path).map_err(|e| {
                Failure::Io(io::Error::new(
                    e.kind(),
                    format!("cannot create {}: {e}", path.display()),
                ))
            })?;
            let output = Output::File(BufWriter::with_capacity(BUFFER, file));
            return Ok((
                Sink {
                    path: Some(path),
                    error,
                },
                output,
            ));
        }
        if !target.hasattr("write")? {
            return Err(Failure::Type(format!(
                "where: expected a path (str or os.PathLike) or a writable binary file object, \
                 got {}",
                target.get_type().name()?
            )));
        }
        let object = PyFile {
            object: target.clone().unbind(),
            error: error.clone(),
        };
        let output = Output::Object(BufWriter::with_capacity(BUFFER, object));
        Ok((Sink { path: None, error }, output))
    }

    /// The failure to report for `failure`: the file object's own
    /// exception if its `write` raised.
    pub fn explain(&self, failure: Failure) -> Failure {
        match self.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Failure::Py(e),
            None => failure,
        }
    }

    /// Removes the file at the path the writer opened (after a failed or
    /// abandoned write).
    pub fn discard(&self) {
        if let Some(path) = &self.path {
            let _ = std::fs::remove_file(path);
        }
    }
}
