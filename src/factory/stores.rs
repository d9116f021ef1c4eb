//! Routing a user's [`PageStoreFactory`] so that it sees each column
//! chunk's store created once, in file order, with its true column index,
//! as `parquet`'s writer would create them, though this crate's writers and
//! (with content-defined chunking on a mixed table) an inner `parquet`
//! writer hold some of them.
//!
//! `PageStoreArgs` has no public constructor, so only `parquet`'s own row-group
//! factory can ask the user's factory for a store. A [`Router`] is given to
//! a `parquet` factory over the whole schema: it passes through the stores
//! of `parquet`'s leaves and keeps those of the others (giving `parquet`'s
//! throw-away writer for that leaf an in-memory store instead), for this
//! crate's writers and for the inner writer's [`HandOff`] to take.

use crate::compat::{InMemoryPageStore, PageStore, PageStoreArgs, PageStoreFactory};
use parquet::errors::{ParquetError, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// The page store factory given to `parquet`'s whole-schema factory.
pub(crate) struct Router {
    /// The user's factory.
    pub(crate) user: Arc<dyn PageStoreFactory>,
    /// Leaves whose stores are kept rather than passed through: the fast
    /// leaves, and the leaves handed off to an inner writer.
    kept_leaves: Vec<usize>,
    /// The stores of `kept_leaves` created and not yet taken.
    kept: Mutex<HashMap<usize, Box<dyn PageStore>>>,
    /// Held while one row group's stores are created and taken, so two
    /// threads creating row groups at once do not mix their stores.
    creating: Mutex<()>,
}

impl std::fmt::Debug for Router {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Router")
            .field("user", &self.user)
            .field("kept_leaves", &self.kept_leaves)
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> Result<MutexGuard<'_, T>> {
    mutex
        .lock()
        .map_err(|_| ParquetError::General("a page store lock was poisoned by a panic".into()))
}

impl Router {
    pub(crate) fn new(user: Arc<dyn PageStoreFactory>, kept_leaves: Vec<usize>) -> Self {
        Self {
            user,
            kept_leaves,
            kept: Mutex::new(HashMap::new()),
            creating: Mutex::new(()),
        }
    }

    /// Serializes row-group creation (see `creating`).
    pub(crate) fn creating(&self) -> Result<MutexGuard<'_, ()>> {
        lock(&self.creating)
    }

    /// Takes the kept store of leaf `leaf`.
    pub(crate) fn take(&self, leaf: usize) -> Result<Box<dyn PageStore>> {
        lock(&self.kept)?.remove(&leaf).ok_or_else(|| {
            ParquetError::General(format!("the page store of column {leaf} was not created"))
        })
    }
}

impl PageStoreFactory for Router {
    fn create(&self, args: &PageStoreArgs<'_>) -> Result<Box<dyn PageStore>> {
        let store = self.user.create(args)?;
        let column = args.column_index();
        if !self.kept_leaves.contains(&column) {
            return Ok(store);
        }
        lock(&self.kept)?.insert(column, store);
        Ok(Box::new(InMemoryPageStore::default()))
    }
}

/// The page store factory of an inner `parquet` writer of some of the
/// file's leaves: gives it the stores the [`Router`] kept for them.
/// (Never asked for a store under parquet 58, which has no page stores.)
#[cfg_attr(feature = "parquet-58", allow(dead_code))]
pub(crate) struct HandOff {
    pub(crate) router: Arc<Router>,
    /// The file leaf of each of the inner writer's leaves.
    pub(crate) leaves: Vec<usize>,
}

impl std::fmt::Debug for HandOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandOff")
            .field("leaves", &self.leaves)
            .finish_non_exhaustive()
    }
}

impl PageStoreFactory for HandOff {
    fn create(&self, args: &PageStoreArgs<'_>) -> Result<Box<dyn PageStore>> {
        let leaf = self.leaves.get(args.column_index()).ok_or_else(|| {
            ParquetError::General(format!(
                "the inner writer has no column {}",
                args.column_index()
            ))
        })?;
        self.router.take(*leaf)
    }
}
