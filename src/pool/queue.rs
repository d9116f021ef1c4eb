//! The queue a [`Pool`](super::Pool)'s threads take jobs from, and the
//! loop its worker threads run.
//!
//! Page jobs ([`PageHelpers`](super::PageHelpers)) sit at the front, oldest
//! first; column tasks follow, heaviest first. Workers take from the front;
//! the calling thread takes as its [`Take`] says.

use super::Take;
use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// A queued task, wrapped to report its result.
pub(super) type Job = Box<dyn FnOnce() + Send + 'static>;

/// A queued job with what the scheduler orders it by.
pub(super) struct Entry {
    index: usize,
    /// A page to compress ([`PageHelpers`](super::PageHelpers)): queued
    /// ahead of column tasks.
    page: bool,
    job: Job,
}

impl Entry {
    /// Column task number `index`.
    pub(super) fn task(index: usize, job: Job) -> Self {
        Self {
            index,
            page: false,
            job,
        }
    }
}

/// The queue the caller and the workers take jobs from.
#[derive(Default)]
pub(super) struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
    /// How many jobs are queued (`state.jobs.len()`, kept up to date under
    /// the lock), for threads spinning before they sleep.
    queued: AtomicUsize,
}

#[derive(Default)]
pub(super) struct QueueState {
    /// Pages to compress first, oldest first; then column tasks, heaviest
    /// first.
    jobs: VecDeque<Entry>,
    /// How many of `jobs` (all at the front) are pages.
    pages: usize,
    /// Set when the pool is dropped: workers finish the queue and exit.
    closed: bool,
}

impl QueueState {
    /// Takes the job at `at` out of the queue.
    pub(super) fn remove(&mut self, at: usize) -> Option<Job> {
        let entry = self.jobs.remove(at)?;
        self.pages -= usize::from(entry.page);
        Some(entry.job)
    }
}

impl Queue {
    /// The queue's state; jobs never panic while holding the lock (they
    /// run outside it, under `catch_unwind`), so a poisoned lock still
    /// holds a consistent queue.
    pub(super) fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the queue's length after a change (under the lock).
    pub(super) fn counted(&self, state: &QueueState) {
        self.queued.store(state.jobs.len(), Relaxed);
    }

    /// The job the calling thread takes next, if any, without waiting.
    pub(super) fn take(&self, how: Take) -> Option<Job> {
        let mut state = self.lock();
        let at = match how {
            Take::Lightest => state.jobs.len().checked_sub(1)?,
            Take::InOrder => {
                let (at, _) = state.jobs.iter().enumerate().min_by_key(|(_, e)| e.index)?;
                at
            }
        };
        let job = state.remove(at);
        self.counted(&state);
        job
    }

    /// The oldest page job, if any, without waiting.
    pub(super) fn take_page(&self) -> Option<Job> {
        let mut state = self.lock();
        match state.pages {
            0 => None,
            _ => {
                let job = state.remove(0);
                self.counted(&state);
                job
            }
        }
    }

    /// Queues column tasks behind what is queued (the caller orders them,
    /// heaviest first) and wakes every worker.
    pub(super) fn push_tasks(&self, entries: impl IntoIterator<Item = Entry>) {
        {
            let mut state = self.lock();
            state.jobs.extend(entries);
            self.counted(&state);
        }
        self.ready.notify_all();
    }

    /// Queues a page job after the pages queued before it, ahead of every
    /// column task, and wakes one worker.
    pub(super) fn push_page(&self, job: Job) {
        {
            let mut state = self.lock();
            let at = state.pages;
            state.jobs.insert(
                at,
                Entry {
                    index: usize::MAX,
                    page: true,
                    job,
                },
            );
            state.pages += 1;
            self.counted(&state);
        }
        self.ready.notify_one();
    }

    /// Tells the workers to finish the queue and exit.
    pub(super) fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// A worker's loop: run the heaviest job left until the pool is closed.
    fn work(&self) {
        loop {
            let job = {
                let mut state = self.lock();
                loop {
                    if let Some(job) = state.remove(0) {
                        self.counted(&state);
                        break job;
                    }
                    if state.closed {
                        return;
                    }
                    // Jobs often come in quick succession (pages of a
                    // column): look out for one briefly before sleeping,
                    // as waking a sleeping thread takes longer.
                    drop(state);
                    spin_until(|| self.queued.load(Relaxed) > 0);
                    state = self.lock();
                    if state.jobs.is_empty() && !state.closed {
                        state = self
                            .ready
                            .wait(state)
                            .unwrap_or_else(PoisonError::into_inner);
                    }
                }
            };
            job();
        }
    }
}

/// Spins until `ready` holds, or for at most [`SPIN`]; a thread that then
/// sleeps is woken faster this way when what it waits for comes soon.
pub(super) fn spin_until(ready: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    loop {
        for _ in 0..64 {
            if ready() {
                return;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= SPIN {
            return;
        }
    }
}

/// How long a thread looks out for work (or a result) before sleeping.
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// Whether the current thread is one of a pool's workers.
pub(super) fn is_worker() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(WORKER_NAME))
}

/// The start of a worker thread's name.
const WORKER_NAME: &str = "parquet-flba-";

/// Starts worker number `number` (from 1) on `queue`.
pub(super) fn spawn_worker(queue: &Arc<Queue>, number: usize) -> io::Result<JoinHandle<()>> {
    let queue = Arc::clone(queue);
    std::thread::Builder::new()
        .name(format!("{WORKER_NAME}{number}"))
        .spawn(move || queue.work())
}
