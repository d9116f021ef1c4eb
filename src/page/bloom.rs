//! The column chunk's bloom filter, created on first insert.
//!
//! `parquet` allocates the filter (1 MiB at the default ndv) when the column
//! writer is created; here nothing is allocated until a value is inserted. An
//! untouched filter folds to a single empty block at close, which is what an
//! untouched full-size filter folds to.

use parquet::bloom_filter::Sbbf;
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::BloomFilterProperties;

/// A lazily created split-block bloom filter.
#[derive(Debug)]
pub(crate) struct BloomFilter {
    ndv: u64,
    fpp: f64,
    filter: Option<Sbbf>,
}

impl BloomFilter {
    /// Validates the properties up front, as `parquet` does when it creates
    /// the filter eagerly.
    pub(crate) fn try_new(props: &BloomFilterProperties) -> Result<Self> {
        let fpp = props.fpp();
        if !(0.0..1.0).contains(&fpp) {
            return Err(ParquetError::General(format!(
                "False positive probability must be between 0.0 and 1.0, got {fpp}"
            )));
        }
        Ok(Self {
            ndv: props.ndv(),
            fpp,
            filter: None,
        })
    }

    /// Inserts each `width`-byte value of `values`.
    pub(crate) fn insert_all(&mut self, values: &[u8], width: usize) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let filter = match &mut self.filter {
            Some(f) => f,
            None => self
                .filter
                .insert(Sbbf::new_with_ndv_fpp(self.ndv, self.fpp)?),
        };
        for value in values.chunks_exact(width) {
            filter.insert(value);
        }
        Ok(())
    }

    /// Bytes held by the filter.
    pub(crate) fn memory_size(&self) -> usize {
        self.filter.as_ref().map_or(0, |f| f.num_blocks() * 32)
    }

    /// The folded filter, as `parquet` hands it to the file writer.
    pub(crate) fn finish(self) -> Sbbf {
        match self.filter {
            Some(mut f) => {
                f.fold_to_target_fpp(self.fpp);
                f
            }
            None => Sbbf::new_with_num_of_bytes(32),
        }
    }
}
