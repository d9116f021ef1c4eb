//! Compressing a column's pages on the pool's threads: [`PageHelpers`]
//! queues a page job ahead of the column tasks and hands back a
//! [`Ticket`] for its outcome; a thread that waits on a ticket runs queued
//! page jobs itself meanwhile.

use super::queue::{Class, Entry, Group, Job, Queue, is_worker, spin_until};
use super::{Outcome, run_caught};
use std::sync::atomic::{
    AtomicBool, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// How many pages went to [`PageHelpers`], and how many of them a worker
/// (rather than a thread waiting for one) compressed.
#[derive(Debug, Default)]
pub(crate) struct PageCounts {
    sent: AtomicUsize,
    on_workers: AtomicUsize,
}

impl PageCounts {
    /// (pages sent, pages compressed by a worker thread).
    pub(crate) fn get(&self) -> (usize, usize) {
        (self.sent.load(Relaxed), self.on_workers.load(Relaxed))
    }
}

/// Lets a column writer hand pages to compress to its writer's [`Pool`](super::Pool)
/// (the page stage's output does): jobs go ahead of the column tasks in the
/// queue, and a thread waiting for one ([`Ticket::wait`]) compresses queued
/// pages itself meanwhile, so a column task never waits on a queue that
/// nobody serves. Page jobs wait on nothing, so no wait can deadlock.
#[derive(Clone)]
pub(crate) struct PageHelpers {
    queue: Arc<Queue>,
    group: Arc<Group>,
    in_flight: usize,
    counts: Arc<PageCounts>,
}

impl std::fmt::Debug for PageHelpers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageHelpers")
            .field("in_flight", &self.in_flight)
            .finish()
    }
}

impl PageHelpers {
    /// Helpers that queue on `queue` as jobs of `group`, with up to
    /// `in_flight` pages of one column out at a time, counted in `counts`.
    pub(super) fn new(
        queue: Arc<Queue>,
        group: Arc<Group>,
        in_flight: usize,
        counts: Arc<PageCounts>,
    ) -> Self {
        Self {
            queue,
            group,
            in_flight,
            counts,
        }
    }

    /// How many pages of one column may be out being compressed while its
    /// writer goes on (enough that a worker is seldom waited for).
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight.max(1)
    }

    /// Queues `job` ahead of the column tasks (after earlier pages).
    pub(crate) fn spawn<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Ticket<T> {
        let slot = Arc::new(Slot {
            value: Mutex::new(None),
            filled: Condvar::new(),
            done: AtomicBool::new(false),
        });
        let mut filler = Filler(Some(Arc::clone(&slot)));
        let counts = Arc::clone(&self.counts);
        counts.sent.fetch_add(1, Relaxed);
        let job: Job = Box::new(move || {
            if is_worker() {
                counts.on_workers.fetch_add(1, Relaxed);
            }
            let outcome = run_caught(job);
            if let Some(slot) = filler.0.take() {
                slot.fill(outcome);
            }
        });
        self.queue.push(Entry {
            group: Arc::clone(&self.group),
            class: Class::Page,
            index: 0,
            weight: 0,
            job,
        });
        Ticket {
            slot,
            queue: Arc::clone(&self.queue),
            group: Arc::clone(&self.group),
        }
    }
}

/// Where a page job leaves its outcome.
struct Slot<T> {
    value: Mutex<Option<Outcome<T>>>,
    filled: Condvar,
    /// Set once `value` is, for a waiter spinning before it sleeps.
    done: AtomicBool,
}

impl<T> Slot<T> {
    fn fill(&self, outcome: Outcome<T>) {
        let mut value = self.value.lock().unwrap_or_else(PoisonError::into_inner);
        *value = Some(outcome);
        // Under the lock, so a waiter that saw it unset is already waiting.
        self.done.store(true, Release);
        drop(value);
        self.filled.notify_all();
    }
}

/// Fills its slot with an error if the job is dropped before it runs.
struct Filler<T>(Option<Arc<Slot<T>>>);

impl<T> Drop for Filler<T> {
    fn drop(&mut self) {
        if let Some(slot) = self.0.take() {
            slot.fill(Err("the page job was dropped before it ran".into()));
        }
    }
}

/// The outcome of a job queued with [`PageHelpers::spawn`].
pub(crate) struct Ticket<T> {
    slot: Arc<Slot<T>>,
    queue: Arc<Queue>,
    group: Arc<Group>,
}

impl<T> Ticket<T> {
    /// The job's outcome; see [`Self::peek`].
    pub(crate) fn wait(self) -> Outcome<T> {
        let mut value = self.ready();
        match value.take() {
            Some(outcome) => outcome,
            None => Err("the page job's outcome was taken".into()),
        }
    }

    /// `f` of the job's outcome, left in place. While it is not ready,
    /// runs queued page jobs on this thread (this one's among them, if no
    /// thread has taken it yet), then waits for the thread that runs it.
    pub(crate) fn peek<R>(&self, f: impl FnOnce(Option<&Outcome<T>>) -> R) -> R {
        f(self.ready().as_ref())
    }

    /// The slot, once the job has filled it.
    fn ready(&self) -> MutexGuard<'_, Option<Outcome<T>>> {
        let lock = || {
            self.slot
                .value
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        };
        loop {
            if self.slot.done.load(Acquire) {
                return lock();
            }
            match self.queue.take_page(&self.group) {
                Some(job) => job(),
                None => break,
            }
        }
        // No page is queued, so this one is running on another thread.
        spin_until(|| self.slot.done.load(Acquire));
        let mut value = lock();
        while !self.slot.done.load(Acquire) {
            value = self
                .slot
                .filled
                .wait(value)
                .unwrap_or_else(PoisonError::into_inner);
        }
        value
    }
}
