//! [`SpillPageStoreFactory`]: a [`PageStoreFactory`] that keeps finished pages
//! in memory up to a budget shared by every column, and spills the rest to
//! temporary files.
//!
//! While a row group is being written every column's encoded pages must be
//! buffered, because a column chunk is contiguous in the file. By default
//! (`parquet`'s `InMemoryPageStore`) they are all on the heap, so memory grows
//! with the row group. With this factory, memory for finished pages is bounded
//! by the budget; pages beyond it go to disk and are read back one at a time
//! when the row group is written out.
//!
//! It implements `parquet`'s own [`PageStoreFactory`] / [`PageStore`] traits,
//! so it works with `parquet::arrow::ArrowWriter` as well as with this
//! crate's [`ArrowWriter`](crate::ArrowWriter), and does not change a byte of
//! the file.
//!
//! # Spill files
//!
//! Each store (one per column chunk) that has to spill creates **its own**
//! file, lazily, on its first spilled page; a store that never spills creates
//! nothing, and the spill directory is not even created. One file per store
//! rather than one per factory because:
//!
//! * a store is owned by one column writer, and column writers may run on
//!   different threads: separate files need no lock and no positional I/O
//!   shared between them;
//! * a file can be deleted as soon as its column chunk has been written into
//!   the row group (all its pages taken back), so disk usage stays about one
//!   row group, whereas a shared file could only shrink once every column of
//!   every row group written through the factory was done with it;
//! * cleanup is local: the store that created a file removes it, when its
//!   last spilled page is taken and, at the latest, when the store is dropped
//!   (which also covers failed writes and writers dropped without closing).
//!
//! File names are unique (`parquet-flba-spill-<pid>-<counter>-<nanos>.tmp`,
//! opened with `create_new`), so several writers and processes can share a
//! spill directory.

use parquet::arrow::arrow_writer::{PageStore, PageStoreArgs, PageStoreFactory};
use parquet::errors::Result;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

mod store;
use store::SpillPageStore;

/// Process-wide counter that makes spill file names unique.
static FILE_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A [`PageStoreFactory`] whose stores keep pages in memory while a budget
/// shared by all of them allows, and spill later pages to temporary files.
///
/// ```
/// # use parquet_flba::{arrow_array, arrow_schema, parquet};
/// # use std::sync::Arc;
/// # use arrow_array::{ArrayRef, Decimal128Array, RecordBatch};
/// use parquet_flba::{ArrowWriter, ArrowWriterOptions, SpillPageStoreFactory};
///
/// // Keep at most 64 MiB of finished pages in memory, spill the rest.
/// let spill = SpillPageStoreFactory::new(64 * 1024 * 1024)
///     .with_spill_dir(std::env::temp_dir())
///     .with_max_spill_bytes(Some(10 * 1024 * 1024 * 1024));
/// let options = ArrowWriterOptions::new().with_page_store_factory(Arc::new(spill.clone()));
///
/// let prices = Decimal128Array::from(vec![12_345, -6_789, 0])
///     .with_precision_and_scale(38, 10)
///     .unwrap();
/// let batch = RecordBatch::try_from_iter([("price", Arc::new(prices) as ArrayRef)]).unwrap();
/// let mut writer =
///     ArrowWriter::try_new_with_options(Vec::new(), batch.schema(), options).unwrap();
/// writer.write(&batch).unwrap();
/// writer.close().unwrap();
/// assert_eq!(spill.total_spilled_bytes(), 0); // small enough to stay in memory
/// ```
///
/// # Memory budget
///
/// The budget counts the bytes of the pages the stores hold in memory, across
/// all the columns (and row groups) written through this factory and its
/// clones. A page is kept in memory if it fits in what is left of the budget;
/// otherwise it is written to the store's spill file. Pages taken back (when a
/// column chunk is written into its row group) give their bytes back to the
/// budget. Besides the budget, a store that spills holds an 8 KiB write
/// buffer, and reading a spilled page back allocates that page only.
///
/// # Spill limit
///
/// [`with_max_spill_bytes`](Self::with_max_spill_bytes) limits the bytes held
/// in spill files at any one time, across all stores. A page that would
/// exceed it makes [`PageStore::put`] fail with a [`ParquetError`](parquet::errors::ParquetError) naming
/// the limit and the page size; the writer's `write` then fails, and the
/// spill files are removed when the writer is dropped.
///
/// # Clones
///
/// Clones share the budget and the counters: keep a clone to watch
/// [`resident_bytes`](Self::resident_bytes) or
/// [`total_spilled_bytes`](Self::total_spilled_bytes) while the writer runs.
#[derive(Debug, Clone)]
pub struct SpillPageStoreFactory {
    config: Arc<Config>,
    counters: Arc<Counters>,
}

#[derive(Debug, Clone)]
struct Config {
    budget: usize,
    dir: PathBuf,
    max_spill_bytes: Option<u64>,
}

/// Counters shared by a factory, its clones and all their stores.
#[derive(Debug, Default)]
struct Counters {
    /// Bytes of pages held in memory, over all stores.
    resident: AtomicUsize,
    /// Bytes in spill files that exist now.
    spilled: AtomicU64,
    /// Bytes ever written to spill files.
    total_spilled: AtomicU64,
    /// Spill files that exist now.
    files: AtomicUsize,
}

impl SpillPageStoreFactory {
    /// A factory whose stores keep up to `memory_budget` bytes of pages in
    /// memory between them, spilling the rest to files in
    /// [`std::env::temp_dir`], with no limit on the spilled bytes.
    ///
    /// A budget of 0 spills every page.
    pub fn new(memory_budget: usize) -> Self {
        Self {
            config: Arc::new(Config {
                budget: memory_budget,
                dir: std::env::temp_dir(),
                max_spill_bytes: None,
            }),
            counters: Arc::default(),
        }
    }

    /// Sets the directory spill files are created in (default
    /// [`std::env::temp_dir`]). It is created, with its parents, on the first
    /// spill, and never removed.
    pub fn with_spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        Arc::make_mut(&mut self.config).dir = dir.into();
        self
    }

    /// Limits the bytes held in spill files at any one time, across all the
    /// stores of this factory (default `None`: no limit).
    pub fn with_max_spill_bytes(mut self, max_spill_bytes: Option<u64>) -> Self {
        Arc::make_mut(&mut self.config).max_spill_bytes = max_spill_bytes;
        self
    }

    /// The memory budget, in bytes.
    pub fn memory_budget(&self) -> usize {
        self.config.budget
    }

    /// The directory spill files are created in.
    pub fn spill_dir(&self) -> &Path {
        &self.config.dir
    }

    /// The limit on bytes held in spill files, if any.
    pub fn max_spill_bytes(&self) -> Option<u64> {
        self.config.max_spill_bytes
    }

    /// Bytes of pages held in memory now, over all the stores.
    pub fn resident_bytes(&self) -> usize {
        self.counters.resident.load(Ordering::Relaxed)
    }

    /// Bytes held in spill files now, over all the stores.
    pub fn spilled_bytes(&self) -> u64 {
        self.counters.spilled.load(Ordering::Relaxed)
    }

    /// Bytes ever written to spill files by this factory's stores.
    pub fn total_spilled_bytes(&self) -> u64 {
        self.counters.total_spilled.load(Ordering::Relaxed)
    }

    /// Number of spill files that exist now.
    pub fn spill_files(&self) -> usize {
        self.counters.files.load(Ordering::Relaxed)
    }
}

impl PageStoreFactory for SpillPageStoreFactory {
    fn create(&self, _args: &PageStoreArgs<'_>) -> Result<Box<dyn PageStore>> {
        Ok(Box::new(SpillPageStore {
            config: Arc::clone(&self.config),
            counters: Arc::clone(&self.counters),
            slots: Vec::new(),
            resident: 0,
            file: None,
            on_disk: 0,
            counted: 0,
        }))
    }
}
