//! A table whose batches are made as the query pulls them, counting the
//! rows handed out, and optionally failing: a decimal too wide for its
//! column (an error of the column writer) or an error of the input stream
//! itself, at a given row.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use datafusion::arrow::array::{ArrayRef, Decimal128Array, RecordBatch};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;

/// How the table fails, if it does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    None,
    /// Column `small` (`Decimal128(9, 2)`, stored as INT32) holds a value
    /// that does not fit 32 bits at this row: parquet-flba refuses it.
    WideDecimal(usize),
    /// The input stream fails instead of handing out the batch that holds
    /// this row.
    InputError(usize),
}

/// The test table (`super::schema()`) in `batches` batches of `rows` rows.
#[derive(Debug)]
pub struct Lazy {
    batches: usize,
    rows: usize,
    fault: Fault,
    /// Rows handed out so far.
    pub pulled: Arc<AtomicUsize>,
}

impl Lazy {
    pub fn new(batches: usize, rows: usize, fault: Fault) -> Arc<Self> {
        Arc::new(Self {
            batches,
            rows,
            fault,
            pulled: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// Rows handed out so far.
    pub fn pulled(&self) -> usize {
        self.pulled.load(Ordering::SeqCst)
    }

    /// A table over this stream (one partition).
    pub fn table(self: &Arc<Self>) -> Arc<StreamingTable> {
        Arc::new(StreamingTable::try_new(super::schema(), vec![Arc::clone(self) as _]).unwrap())
    }

    fn make(&self, n: usize) -> Result<RecordBatch, DataFusionError> {
        let first = n * self.rows;
        let rows = first..first + self.rows;
        if let Fault::InputError(row) = self.fault
            && rows.contains(&row)
        {
            return Err(DataFusionError::Execution(format!(
                "the input failed at row {row}"
            )));
        }
        let batch = super::batch(n as u64, first as i64, self.rows);
        self.pulled.fetch_add(self.rows, Ordering::SeqCst);
        match self.fault {
            Fault::WideDecimal(row) if rows.contains(&row) => {
                let small = batch
                    .column(5)
                    .as_any()
                    .downcast_ref::<Decimal128Array>()
                    .unwrap();
                let mut values: Vec<Option<i128>> = small.iter().collect();
                values[row - first] = Some(1_000_000_000_000);
                let wide = Decimal128Array::from(values)
                    .with_precision_and_scale(9, 2)
                    .unwrap();
                let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
                columns[5] = Arc::new(wide);
                Ok(RecordBatch::try_new(batch.schema(), columns).unwrap())
            }
            _ => Ok(batch),
        }
    }
}

impl PartitionStream for Lazy {
    fn schema(&self) -> &SchemaRef {
        static SCHEMA: std::sync::OnceLock<SchemaRef> = std::sync::OnceLock::new();
        SCHEMA.get_or_init(super::schema)
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let this = Lazy {
            batches: self.batches,
            rows: self.rows,
            fault: self.fault,
            pulled: Arc::clone(&self.pulled),
        };
        let stream = futures::stream::iter(0..self.batches).map(move |n| this.make(n));
        Box::pin(RecordBatchStreamAdapter::new(super::schema(), stream))
    }
}

use futures::StreamExt;
