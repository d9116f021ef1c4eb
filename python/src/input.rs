//! Arrow data from Python, through the Arrow PyCapsule interface.
//!
//! Any object with `__arrow_c_stream__` (pyarrow `Table` and
//! `RecordBatchReader`, polars `DataFrame`, DuckDB relations, ...) or
//! `__arrow_c_array__` (a pyarrow `RecordBatch`, or any struct array) is
//! taken, batch by batch, without converting a value to Python. Each batch is
//! imported with arrow's C data interface and then validated in full
//! (offsets, UTF-8, dictionary keys, child lengths, ...): a malformed array is
//! an error, never undefined behaviour. What cannot be checked is what the C
//! data interface takes on trust: that the buffer pointers a producer hands
//! over point to buffers as long as its lengths say.

use crate::errors::{Failure, Result, guard};
use crate::versions::{
    DataType, FFI_ArrowArray, FFI_ArrowArrayStream, FFI_ArrowSchema, RecordBatch,
    RecordBatchOptions, Schema, SchemaRef, StructArray, from_ffi_and_data_type,
};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};
use std::ffi::{CStr, c_void};
use std::ptr::NonNull;
use std::sync::Arc;

/// A source of record batches, read with the GIL released.
pub enum Source {
    /// An Arrow C stream.
    Stream {
        /// The stream, moved out of its capsule.
        stream: Box<FFI_ArrowArrayStream>,
        /// Its schema.
        schema: SchemaRef,
    },
    /// One struct array, not yet imported (or already returned).
    Array {
        /// The array, moved out of its capsule.
        array: Option<FFI_ArrowArray>,
        /// Its schema (the struct's fields).
        schema: SchemaRef,
    },
}

/// What `write_table` and `ParquetWriter.write` take.
const WANTED: &str = "a pyarrow Table, RecordBatch or RecordBatchReader, a polars DataFrame, \
a DuckDB relation, or any object with __arrow_c_stream__ or __arrow_c_array__";

impl Source {
    /// Opens `data`'s Arrow stream (or its array). Needs the GIL.
    pub fn from_py(data: &Bound<'_, PyAny>) -> Result<Source> {
        if data.hasattr("__arrow_c_stream__")? {
            let capsule = data.call_method0("__arrow_c_stream__")?;
            let ptr = capsule_pointer(&capsule, c"arrow_array_stream")?;
            // SAFETY: the capsule is named "arrow_array_stream", so (by the
            // Arrow PyCapsule interface) it holds an `ArrowArrayStream`;
            // `from_raw` moves it out and leaves a released one behind, which
            // the capsule's destructor then ignores.
            let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr.cast().as_ptr()) };
            return guard(|| {
                let mut stream = Box::new(stream);
                let schema = stream_schema(&mut stream)?;
                Ok(Source::Stream { stream, schema })
            });
        }
        if data.hasattr("__arrow_c_array__")? {
            let pair = data.call_method0("__arrow_c_array__")?;
            let pair = pair
                .cast::<PyTuple>()
                .map_err(|_| Failure::Type("__arrow_c_array__ did not return a tuple".into()))?;
            if pair.len() != 2 {
                return Err(Failure::Type(
                    "__arrow_c_array__ did not return (schema, array) capsules".into(),
                ));
            }
            let schema_ptr = capsule_pointer(&pair.get_item(0)?, c"arrow_schema")?;
            let array_ptr = capsule_pointer(&pair.get_item(1)?, c"arrow_array")?;
            // SAFETY: capsules so named hold an `ArrowSchema` and an
            // `ArrowArray`; both are moved out, leaving released structs.
            let (ffi_schema, array) = unsafe {
                (
                    FFI_ArrowSchema::from_raw(schema_ptr.cast().as_ptr()),
                    FFI_ArrowArray::from_raw(array_ptr.cast().as_ptr()),
                )
            };
            return guard(|| {
                let schema = Arc::new(record_schema(&ffi_schema)?);
                Ok(Source::Array {
                    array: Some(array),
                    schema,
                })
            });
        }
        Err(Failure::Type(format!(
            "expected {WANTED}; got {}",
            data.get_type().name()?
        )))
    }

    /// The batches' schema.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Source::Stream { schema, .. } | Source::Array { schema, .. } => schema.clone(),
        }
    }

    /// The next batch, imported and validated; `None` at the end. Runs
    /// without the GIL (a producer that needs it takes it).
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        guard(|| match self {
            Source::Stream { stream, schema } => {
                let Some(get_next) = stream.get_next() else {
                    return Err(Failure::Value("the Arrow stream has no get_next".into()));
                };
                let mut array = FFI_ArrowArray::empty();
                // SAFETY: `stream` is a live stream (released only on drop)
                // and `array` an empty struct for it to fill.
                let code = unsafe { get_next(&raw mut **stream, &raw mut array) };
                if code != 0 {
                    return Err(stream_error(stream, code, "reading the next batch"));
                }
                if array.is_released() {
                    return Ok(None);
                }
                import(array, schema).map(Some)
            }
            Source::Array { array, schema } => match array.take() {
                Some(array) => import(array, schema).map(Some),
                None => Ok(None),
            },
        })
    }
}

/// The pointer of a capsule named `name`.
fn capsule_pointer(obj: &Bound<'_, PyAny>, name: &CStr) -> Result<NonNull<c_void>> {
    let capsule = obj
        .cast::<PyCapsule>()
        .map_err(|_| Failure::Type(format!("expected a PyCapsule named {name:?}")))?;
    capsule.pointer_checked(Some(name)).map_err(|_| {
        Failure::Type(format!(
            "expected a PyCapsule named {name:?} (Arrow PyCapsule interface)"
        ))
    })
}

/// The schema of a stream of record batches.
fn stream_schema(stream: &mut FFI_ArrowArrayStream) -> Result<SchemaRef> {
    if stream.release().is_none() {
        return Err(Failure::Value(
            "the Arrow stream was already consumed".into(),
        ));
    }
    let Some(get_schema) = stream.get_schema() else {
        return Err(Failure::Value("the Arrow stream has no get_schema".into()));
    };
    let mut ffi_schema = FFI_ArrowSchema::empty();
    // SAFETY: `stream` is live and `ffi_schema` empty for it to fill.
    let code = unsafe { get_schema(stream, &raw mut ffi_schema) };
    if code != 0 {
        return Err(stream_error(stream, code, "reading its schema"));
    }
    Ok(Arc::new(record_schema(&ffi_schema)?))
}

/// A schema of record batches: the struct type's fields.
fn record_schema(ffi: &FFI_ArrowSchema) -> Result<Schema> {
    let data_type = DataType::try_from(ffi)?;
    match data_type {
        DataType::Struct(fields) => {
            let metadata = Schema::try_from(ffi)
                .map(|s| s.metadata)
                .unwrap_or_default();
            Ok(Schema::new_with_metadata(fields, metadata))
        }
        other => Err(Failure::Type(format!(
            "expected record batches (a struct type), got Arrow data of type {other}"
        ))),
    }
}

/// The producer's message for a failed stream call.
fn stream_error(stream: &mut FFI_ArrowArrayStream, code: i32, doing: &str) -> Failure {
    let message = stream.get_last_error().and_then(|last| {
        // SAFETY: a stream whose call failed may be asked for its last
        // error; the string it returns lives until its next call.
        let ptr = unsafe { last(stream) };
        (!ptr.is_null()).then(|| {
            // SAFETY: non-null, a NUL-terminated string (see above).
            let text = unsafe { CStr::from_ptr(ptr) };
            text.to_string_lossy().into_owned()
        })
    });
    // A Python producer (pyarrow's reader over a generator) that Ctrl-C
    // stopped reports the KeyboardInterrupt as its error: raise it as such.
    let interrupted = message
        .as_deref()
        .and_then(|m| m.trim_end().lines().last())
        .is_some_and(|last| last.trim() == "KeyboardInterrupt");
    if interrupted {
        return Failure::Py(PyKeyboardInterrupt::new_err(
            "interrupted while the Arrow stream was producing a batch",
        ));
    }
    Failure::Value(format!(
        "the Arrow stream failed {doing} (error {code}){}",
        message.map(|m| format!(": {m}")).unwrap_or_default()
    ))
}

/// Imports one struct array as a batch of `schema`, validating it in full.
fn import(array: FFI_ArrowArray, schema: &SchemaRef) -> Result<RecordBatch> {
    let struct_type = DataType::Struct(schema.fields().clone());
    // SAFETY: `array` came from a producer of the Arrow C data interface,
    // for `schema`; its contents are validated before use just below.
    let data = unsafe { from_ffi_and_data_type(array, struct_type) }?;
    data.validate()?;
    for (field, child) in schema.fields().iter().zip(data.child_data()) {
        child.validate_full().map_err(|e| {
            Failure::Data(format!(
                "column {:?}: invalid Arrow data: {e}",
                field.name()
            ))
        })?;
    }
    if data.null_count() != 0 {
        return Err(Failure::Data(
            "a record batch (the top-level struct array) has nulls".into(),
        ));
    }
    let rows = data.len();
    let columns = StructArray::from(data).into_parts().1;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &options,
    )?)
}

/// The schema of `obj`, an object with `__arrow_c_schema__` (a pyarrow
/// `Schema`, ...) describing record batches.
pub fn schema_of(obj: &Bound<'_, PyAny>) -> Result<Schema> {
    if !obj.hasattr("__arrow_c_schema__")? {
        return Err(Failure::Type(format!(
            "schema: expected a pyarrow Schema or any object with __arrow_c_schema__, got {}",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_schema__")?;
    let ptr = capsule_pointer(&capsule, c"arrow_schema")?;
    // SAFETY: a capsule named "arrow_schema" holds an `ArrowSchema`, alive
    // as long as the capsule (held here); it is only read.
    let ffi: &FFI_ArrowSchema = unsafe { ptr.cast().as_ref() };
    guard(|| record_schema(ffi))
}
