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

use bytes::Bytes;
use parquet::arrow::arrow_writer::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::errors::{ParquetError, Result};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Process-wide counter that makes spill file names unique.
static FILE_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A [`PageStoreFactory`] whose stores keep pages in memory while a budget
/// shared by all of them allows, and spill later pages to temporary files.
///
/// ```
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
/// exceed it makes [`PageStore::put`] fail with a [`ParquetError`] naming
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

/// Where a page is.
#[derive(Debug)]
enum Slot {
    Memory(Bytes),
    Disk { offset: u64, len: usize },
    Taken,
}

/// The store of one column chunk.
#[derive(Debug)]
struct SpillPageStore {
    config: Arc<Config>,
    counters: Arc<Counters>,
    slots: Vec<Slot>,
    /// Bytes of this store's pages in memory (its share of `counters.resident`).
    resident: usize,
    file: Option<SpillFile>,
    /// Spilled pages not taken back yet; the file goes when it reaches 0.
    on_disk: usize,
    /// Bytes of the current file counted in `counters.spilled`.
    counted: u64,
}

#[derive(Debug)]
struct SpillFile {
    path: PathBuf,
    writer: BufWriter<File>,
    /// Bytes written (the file's length once the buffer is flushed).
    end: u64,
    /// Whether the file position is at `end` (reads move it).
    at_end: bool,
}

/// Reserves `n` more units of `counter` if the total stays within `max`.
fn reserve_usize(counter: &AtomicUsize, n: usize, max: usize) -> bool {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
            v.checked_add(n).filter(|&t| t <= max)
        })
        .is_ok()
}

fn reserve_u64(counter: &AtomicU64, n: u64, max: Option<u64>) -> std::result::Result<(), u64> {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
            v.checked_add(n).filter(|&t| max.is_none_or(|max| t <= max))
        })
        .map(|_| ())
}

impl SpillPageStore {
    /// Creates the spill file (and the directory) on the first spill.
    fn file(&mut self) -> Result<&mut SpillFile> {
        if self.file.is_none() {
            let dir = &self.config.dir;
            std::fs::create_dir_all(dir).map_err(|e| {
                ParquetError::General(format!(
                    "cannot create the spill directory {}: {e}",
                    dir.display()
                ))
            })?;
            let (path, file) = create_unique(dir)?;
            self.counters.files.fetch_add(1, Ordering::Relaxed);
            self.file = Some(SpillFile {
                path,
                writer: BufWriter::new(file),
                end: 0,
                at_end: true,
            });
        }
        Ok(self.file.as_mut().unwrap())
    }

    fn spill(&mut self, value: &[u8]) -> Result<Slot> {
        let len = value.len() as u64;
        let limit = self.config.max_spill_bytes;
        if let Err(used) = reserve_u64(&self.counters.spilled, len, limit) {
            return Err(ParquetError::General(format!(
                "spill limit exceeded: spilling a page of {len} bytes would take the spill \
                 files past the limit of {} bytes ({used} bytes already spilled in {})",
                limit.unwrap_or(u64::MAX),
                self.config.dir.display(),
            )));
        }
        let written = self.file().and_then(|f| {
            let io = |e: std::io::Error| {
                ParquetError::General(format!(
                    "cannot write to the spill file {}: {e}",
                    f.path.display()
                ))
            };
            if !f.at_end {
                f.writer.seek(SeekFrom::Start(f.end)).map_err(io)?;
                f.at_end = true;
            }
            f.writer.write_all(value).map_err(io)?;
            let offset = f.end;
            f.end += len;
            Ok(offset)
        });
        match written {
            Ok(offset) => {
                self.counted += len;
                self.counters
                    .total_spilled
                    .fetch_add(len, Ordering::Relaxed);
                self.on_disk += 1;
                Ok(Slot::Disk {
                    offset,
                    len: value.len(),
                })
            }
            Err(e) => {
                // The next page overwrites whatever part of this one was
                // written: it goes at `end`, which did not move.
                if let Some(f) = &mut self.file {
                    f.at_end = false;
                }
                self.counters.spilled.fetch_sub(len, Ordering::AcqRel);
                Err(e)
            }
        }
    }

    fn read_back(&mut self, offset: u64, len: usize) -> Result<Bytes> {
        let f = self
            .file
            .as_mut()
            .ok_or_else(|| ParquetError::General("spilled page without a spill file".into()))?;
        let io = |e: std::io::Error| {
            ParquetError::General(format!(
                "cannot read back {len} bytes at offset {offset} of the spill file {}: {e}",
                f.path.display()
            ))
        };
        // Seeking a `BufWriter` flushes it first.
        f.writer.seek(SeekFrom::Start(offset)).map_err(io)?;
        f.at_end = false;
        let mut buf = vec![0u8; len];
        f.writer.get_mut().read_exact(&mut buf).map_err(io)?;
        Ok(Bytes::from(buf))
    }

    /// Removes the spill file, if any, and gives its bytes back to the limit.
    fn remove_file(&mut self) -> Result<()> {
        let Some(f) = self.file.take() else {
            return Ok(());
        };
        // Close the file first (without flushing what is buffered: nobody
        // will read it), so that removing it works on every platform.
        drop(f.writer.into_parts());
        self.counters
            .spilled
            .fetch_sub(std::mem::take(&mut self.counted), Ordering::AcqRel);
        self.counters.files.fetch_sub(1, Ordering::Relaxed);
        self.on_disk = 0;
        std::fs::remove_file(&f.path).map_err(|e| {
            ParquetError::General(format!(
                "cannot remove the spill file {}: {e}",
                f.path.display()
            ))
        })
    }

    /// Gives this store's resident bytes back to the budget.
    fn release_resident(&mut self, n: usize) {
        self.resident -= n;
        self.counters.resident.fetch_sub(n, Ordering::AcqRel);
    }
}

/// Creates a new, uniquely named file in `dir`.
fn create_unique(dir: &Path) -> Result<(PathBuf, File)> {
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..16 {
        let n = FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = dir.join(format!("parquet-flba-spill-{pid}-{n}-{nanos}.tmp"));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(path),
            Err(e) => {
                return Err(ParquetError::General(format!(
                    "cannot create the spill file {}: {e}",
                    path.display()
                )));
            }
        }
    }
    Err(ParquetError::General(format!(
        "cannot create a spill file in {}: names already taken (last tried {})",
        dir.display(),
        last.map_or_else(String::new, |p| p.display().to_string())
    )))
}

impl PageStore for SpillPageStore {
    fn put(&mut self, value: Bytes) -> Result<PageKey> {
        let key = PageKey::new(self.slots.len() as u64);
        let len = value.len();
        let slot = if reserve_usize(&self.counters.resident, len, self.config.budget) {
            self.resident += len;
            Slot::Memory(value)
        } else {
            self.spill(&value)?
        };
        self.slots.push(slot);
        Ok(key)
    }

    fn take(&mut self, key: PageKey) -> Result<Bytes> {
        let slot = usize::try_from(key.get())
            .ok()
            .and_then(|i| self.slots.get_mut(i))
            .ok_or_else(|| ParquetError::General(format!("invalid page key {}", key.get())))?;
        match std::mem::replace(slot, Slot::Taken) {
            Slot::Memory(bytes) => {
                self.release_resident(bytes.len());
                Ok(bytes)
            }
            Slot::Disk { offset, len } => {
                let bytes = self.read_back(offset, len)?;
                self.on_disk -= 1;
                if self.on_disk == 0 {
                    // The page is intact: a file that cannot be removed
                    // (its directory was removed, say) does not fail the write.
                    let _ = self.remove_file();
                }
                Ok(bytes)
            }
            Slot::Taken => Err(ParquetError::General(format!(
                "page key {} was already taken",
                key.get()
            ))),
        }
    }

    fn memory_size(&self) -> usize {
        self.resident + self.file.as_ref().map_or(0, |f| f.writer.capacity())
    }
}

impl Drop for SpillPageStore {
    fn drop(&mut self) {
        self.release_resident(self.resident);
        // Nothing to report an error to; a file that cannot be removed stays.
        let _ = self.remove_file();
    }
}
