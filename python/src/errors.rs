//! Every way a write can fail, and the Python exception each becomes.
//!
//! The encoding runs with the GIL released, so failures are collected as
//! [`Failure`] (plain Rust data) and turned into Python exceptions once the
//! GIL is held again. A panic anywhere in Rust code is caught
//! ([`guard`]) and raised as a `RuntimeError`: nothing unwinds into Python.

use crate::versions::{ArrowError, ParquetError};
use pyo3::exceptions::{
    PyKeyboardInterrupt, PyNotImplementedError, PyOSError, PyRuntimeError, PyTypeError,
    PyValueError,
};
use pyo3::{PyErr, create_exception};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The Python exception classes of the module.
pub mod exc {
    use super::*;
    create_exception!(
        parquet_flba,
        ParquetError,
        PyValueError,
        "A write that parquet_flba refused: bad input data (the message names the column and the row), or properties the writer cannot honour."
    );
}

/// Why a call failed.
#[derive(Debug)]
pub enum Failure {
    /// The writer (parquet-flba or parquet) refused: bad data, bad settings.
    Parquet(ParquetError),
    /// Arrow refused: the C data import or the validation of an array.
    Arrow(ArrowError),
    /// Bad input data (`ParquetError`, a `ValueError`).
    Data(String),
    /// A bad argument (`ValueError`).
    Value(String),
    /// An argument of the wrong kind (`TypeError`).
    Type(String),
    /// Writing the output failed.
    Io(std::io::Error),
    /// A Python exception (from a file object's `write`, or Ctrl-C).
    Py(PyErr),
    /// A panic in Rust code (a bug): raised as `RuntimeError`.
    Panic(String),
}

/// What this module's functions return.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl From<ParquetError> for Failure {
    fn from(e: ParquetError) -> Self {
        Failure::Parquet(e)
    }
}

impl From<ArrowError> for Failure {
    fn from(e: ArrowError) -> Self {
        Failure::Arrow(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

impl Failure {
    /// Prefixes the message with what was being done (a keyword's name).
    pub fn context(self, what: &str) -> Self {
        match self {
            Failure::Value(m) => Failure::Value(format!("{what}: {m}")),
            Failure::Data(m) => Failure::Data(format!("{what}: {m}")),
            Failure::Type(m) => Failure::Type(format!("{what}: {m}")),
            Failure::Parquet(e) => {
                Failure::Value(format!("{what}: {}", strip_prefix(e.to_string())))
            }
            Failure::Arrow(e) => Failure::Value(format!("{what}: {e}")),
            other => other,
        }
    }

    /// Whether the failure is the user's Ctrl-C.
    pub fn is_interrupt(&self) -> bool {
        matches!(self, Failure::Py(e) if pyo3::Python::attach(|py| e.is_instance_of::<PyKeyboardInterrupt>(py)))
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Parquet(e) => parquet_error(e),
            Failure::Arrow(e) => arrow_error(e),
            Failure::Data(m) => exc::ParquetError::new_err(m),
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Type(m) => PyTypeError::new_err(m),
            Failure::Io(e) => PyOSError::new_err(e.to_string()),
            Failure::Py(e) => e,
            Failure::Panic(m) => PyRuntimeError::new_err(format!(
                "internal error in parquet_flba (please report it): {m}"
            )),
        }
    }
}

fn parquet_error(e: ParquetError) -> PyErr {
    match e {
        ParquetError::NYI(m) => PyNotImplementedError::new_err(format!("not supported: {m}")),
        ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => PyOSError::new_err(io.to_string()),
            Err(other) => exc::ParquetError::new_err(other.to_string()),
        },
        other => exc::ParquetError::new_err(strip_prefix(other.to_string())),
    }
}

fn arrow_error(e: ArrowError) -> PyErr {
    match e {
        ArrowError::IoError(m, _) => PyOSError::new_err(m),
        ArrowError::NotYetImplemented(m) => PyNotImplementedError::new_err(m),
        other => exc::ParquetError::new_err(format!("invalid Arrow data: {other}")),
    }
}

/// parquet's `Display` starts with "Parquet error: "; the exception's class
/// says that already.
fn strip_prefix(message: String) -> String {
    match message.strip_prefix("Parquet error: ") {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

/// Runs `f`, turning a panic into [`Failure::Panic`].
pub fn guard<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(Failure::Panic(panic_message(payload.as_ref()))),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}
