//! The sink's metrics: DataFusion's (`rows_written`, `bytes_written`,
//! `elapsed_compute`) and which path parquet-flba's leaves took.

use datafusion::physical_plan::metrics::{
    Count, ExecutionPlanMetricsSet, MetricBuilder, MetricCategory, Time,
};
use parquet_flba::parquet::file::metadata::ParquetMetaData;
use parquet_flba::{ColumnPlan, LeafPath};

/// The sink's metrics.
pub(crate) struct SinkMetrics {
    rows: Count,
    bytes: Count,
    pub(crate) compute: Time,
    /// Leaf columns written by parquet-flba's fast path, summed over files.
    fast_leaves: Count,
    /// Leaf columns written by `parquet`'s column writer, summed over files.
    parquet_leaves: Count,
    /// Compressed bytes of the column chunks of fast-path leaves.
    fast_bytes: Count,
    /// Compressed bytes of the column chunks of `parquet`'s leaves.
    parquet_bytes: Count,
}

impl SinkMetrics {
    pub(crate) fn new(set: &ExecutionPlanMetricsSet) -> Self {
        let counter = |name: &'static str, category| {
            MetricBuilder::new(set)
                .with_category(category)
                .global_counter(name)
        };
        Self {
            rows: counter("rows_written", MetricCategory::Rows),
            // The row groups' compressed sizes, without footer and indexes.
            bytes: counter("bytes_written", MetricCategory::Bytes),
            compute: MetricBuilder::new(set).elapsed_compute(0),
            fast_leaves: counter("fast_path_leaves", MetricCategory::Rows),
            parquet_leaves: counter("parquet_path_leaves", MetricCategory::Rows),
            fast_bytes: counter("fast_path_bytes", MetricCategory::Bytes),
            parquet_bytes: counter("parquet_path_bytes", MetricCategory::Bytes),
        }
    }

    /// Counts a written file whose leaves were written as `plan` says.
    pub(crate) fn count(&self, file: &ParquetMetaData, plan: &ColumnPlan) {
        self.rows.add(file.file_metadata().num_rows() as usize);
        let fast = plan.fast_count();
        self.fast_leaves.add(fast);
        self.parquet_leaves.add(plan.leaves().len() - fast);
        for row_group in file.row_groups() {
            self.bytes.add(row_group.compressed_size() as usize);
            for (chunk, leaf) in row_group.columns().iter().zip(plan.leaves()) {
                let bytes = chunk.compressed_size() as usize;
                match leaf.path() {
                    LeafPath::Fast => self.fast_bytes.add(bytes),
                    LeafPath::Parquet => self.parquet_bytes.add(bytes),
                }
            }
        }
    }

    /// Rows written so far.
    pub(crate) fn rows(&self) -> usize {
        self.rows.value()
    }
}
