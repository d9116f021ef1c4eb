//! The worker threads of [`ArrowWriter::with_threads`](crate::ArrowWriter::with_threads):
//! a small pool owned by one writer that runs a row group's per-column tasks
//! (validating a field, writing a leaf, closing a column writer) side by
//! side and hands their results back in task order.
//!
//! Tasks own what they work on (a column writer is moved into its task and
//! back out with the result), so no borrow crosses a thread and no `unsafe`
//! is needed. Which thread runs which task changes nothing but timing: every
//! task touches only its own column's state, and results come back in task
//! order.
//!
//! Scheduling. Each task carries a weight (an estimate of its cost). The
//! workers take the heaviest task left; the calling thread — which also
//! consumes the results — takes either the lightest ([`Take::Lightest`],
//! so that with steady weights each column keeps to one thread from one
//! batch to the next and its state stays in that core's cache) or the
//! lowest-numbered ([`Take::InOrder`], when results are consumed as they
//! come: the caller makes the result it needs next, e.g. the next chunk to
//! splice into the file, while the workers make the expensive ones).
//! Results are handed out by [`Results`], an iterator that runs queued
//! tasks on the caller while the result it needs next is not ready.
//!
//! Workers are started on the first call that has more than one task (at
//! most `threads - 1`, never more than the tasks need), kept for the
//! writer's lifetime and joined when the pool is dropped. A worker that
//! cannot be started is not an error: fewer threads run the same tasks.

mod pages;
mod queue;
mod results;
#[cfg(test)]
mod tests;

pub(crate) use pages::{PageCounts, PageHelpers, Ticket};
pub(crate) use results::Results;

use queue::{Queue, spawn_worker};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;

/// One unit of work: runs on any of the pool's threads.
pub(crate) type Task<T> = Box<dyn FnOnce() -> T + Send + 'static>;

/// What a task ended with: its value, or the message of its panic.
pub(crate) type Outcome<T> = std::result::Result<T, String>;

/// Which queued task the calling thread takes; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    /// The lightest: results are wanted all together.
    Lightest,
    /// The one with the lowest task number: results are consumed in order
    /// as they come.
    InOrder,
}

/// Worker threads for one writer; see the module documentation.
pub(crate) struct Pool {
    /// Threads that run tasks, the caller included (at least 1).
    threads: usize,
    queue: Arc<Queue>,
    workers: Vec<JoinHandle<()>>,
    /// Pages handed to [`PageHelpers`] so far.
    pages: Arc<PageCounts>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads)
            .field("started", &self.workers.len())
            .field("pages", &self.pages)
            .finish()
    }
}

impl Pool {
    /// A pool of `threads` threads, the caller included (0 counts as 1).
    /// No thread is started yet.
    pub(crate) fn new(threads: usize) -> Self {
        Self {
            threads: threads.max(1),
            queue: Arc::default(),
            workers: Vec::new(),
            pages: Arc::default(),
        }
    }

    /// Threads that run tasks, the caller included.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Pages sent to this pool's [`PageHelpers`] so far, and how many of
    /// them a worker compressed.
    pub(crate) fn page_counts(&self) -> (usize, usize) {
        self.pages.get()
    }

    /// Starts workers until `wanted` run (or starting one fails).
    fn start(&mut self, wanted: usize) {
        while self.workers.len() < wanted {
            match spawn_worker(&self.queue, self.workers.len() + 1) {
                Ok(handle) => self.workers.push(handle),
                // Fewer threads run the same tasks.
                Err(_) => break,
            }
        }
    }

    /// Queues `tasks` (each with its weight) for the workers; the returned
    /// [`Results`] hands out their outcomes in task order, running queued
    /// tasks on the calling thread (chosen by `take`) while the next
    /// outcome is not ready. With one thread, or one task, the tasks run
    /// on the caller, one per outcome taken.
    pub(crate) fn submit<T: Send + 'static>(
        &mut self,
        tasks: Vec<(u64, Task<T>)>,
        take: Take,
    ) -> Results<T> {
        // The caller takes one share of the tasks.
        let helpers = (self.threads - 1).min(tasks.len().saturating_sub(1));
        if helpers == 0 {
            return Results::inline(tasks);
        }
        self.start(helpers);
        Results::queue(&self.queue, tasks, take)
    }

    /// Runs `local` on the calling thread and `tasks` on up to
    /// [`Self::threads`] threads (the caller joins in once `local` is
    /// done); returns each task's [`Outcome`], in task order, and
    /// `local`'s. A task (or `local`) that panics gives `Err` with the
    /// panic's message; the call returns only once every task has run.
    pub(crate) fn run<T: Send + 'static, R>(
        &mut self,
        tasks: Vec<(u64, Task<T>)>,
        local: impl FnOnce() -> R,
    ) -> (Vec<Outcome<T>>, Outcome<R>) {
        let results = self.submit(tasks, Take::Lightest);
        let local = run_caught(local);
        (results.collect(), local)
    }

    /// A handle that column writers use to compress their pages on the
    /// pool's threads ([`PageHelpers`]); starts every worker, since pages
    /// come from inside a single column's task.
    pub(crate) fn page_helpers(&mut self) -> PageHelpers {
        self.start(self.threads - 1);
        // Measured on one wide zstd column, two threads: one page out at a
        // time gained 5-15% (the caller, waiting for it, compressed every
        // other page itself), three 25-40%.
        let in_flight = (2 * self.threads - 1).min(8);
        PageHelpers::new(Arc::clone(&self.queue), in_flight, Arc::clone(&self.pages))
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.queue.close();
        for worker in self.workers.drain(..) {
            // Jobs catch their panics, so a worker only ends by returning.
            let _ = worker.join();
        }
    }
}

/// Runs `task`, turning a panic into its message.
pub(crate) fn run_caught<T>(task: impl FnOnce() -> T) -> Outcome<T> {
    catch_unwind(AssertUnwindSafe(task)).map_err(|payload| panic_message(payload.as_ref()))
}

/// The message of a panic payload (`panic!` with a string or format).
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".into()
    }
}
