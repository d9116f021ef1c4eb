//! One column chunk's spill store: pages in memory up to the shared budget,
//! the rest in a file of its own, created on the first spill.

use super::{Config, Counters, FILE_COUNTER};
use bytes::Bytes;
use parquet::arrow::arrow_writer::{PageKey, PageStore};
use parquet::errors::{ParquetError, Result};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Where a page is.
#[derive(Debug)]
pub(super) enum Slot {
    Memory(Bytes),
    Disk { offset: u64, len: usize },
    Taken,
}

/// The store of one column chunk.
#[derive(Debug)]
pub(super) struct SpillPageStore {
    pub(super) config: Arc<Config>,
    pub(super) counters: Arc<Counters>,
    pub(super) slots: Vec<Slot>,
    /// Bytes of this store's pages in memory (its share of `counters.resident`).
    pub(super) resident: usize,
    pub(super) file: Option<SpillFile>,
    /// Spilled pages not taken back yet; the file goes when it reaches 0.
    pub(super) on_disk: usize,
    /// Bytes of the current file counted in `counters.spilled`.
    pub(super) counted: u64,
}

#[derive(Debug)]
pub(super) struct SpillFile {
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
        let mut options = OpenOptions::new();
        options.read(true).write(true).create_new(true);
        // Readable by this user only: the shared temporary directory is
        // the default, and the pages are the user's data.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(&path) {
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
