//! The worker threads of [`ArrowWriter::with_threads`](crate::ArrowWriter::with_threads):
//! one pool for the whole process, shared by every writer, with at most
//! [`worker_threads`] threads ([`set_worker_threads`]; by default as many
//! as the machine has cores).
//!
//! Each writer holds a [`Pool`]: a handle with its own group of jobs,
//! which at most `threads - 1` workers run at once (the writer's own
//! thread is the last of its `threads`). Three kinds of jobs:
//!
//! * tasks ([`Pool::submit`], [`Pool::run`]) whose outcomes the writer's
//!   thread takes in task order ([`Results`]), running queued tasks itself
//!   while the one it needs is not ready;
//! * lane runs ([`Lane`]): each column's operations, queued by the writer
//!   and run in order by whichever thread takes the run, so the writer
//!   goes on without waiting ([`Pool::help_until`] waits when it must);
//! * pages to compress ([`PageHelpers`]), from inside a column's work.
//!
//! Jobs own what they work on (a column writer is moved into its task or
//! lane), so no borrow crosses a thread and no `unsafe` is needed. Which
//! thread runs which job changes nothing but timing: every job touches
//! only its own column's state, lanes keep their order, and results come
//! back in task order.
//!
//! Scheduling. Each job carries a weight (an estimate of its cost);
//! workers take pages first, then tasks, then lane runs, heaviest first
//! within each, skipping jobs of a writer whose share of workers is in
//! use. A writer's own thread takes only its own jobs: the lightest
//! ([`Take::Lightest`], so that it comes back to its own work soon), or,
//! when it consumes results in order, the lane it needs next, else the
//! heaviest ([`Take::Needed`]: it makes the one it needs next while the
//! workers make the expensive ones).
//!
//! Workers are started when a writer first needs them (never more than
//! the cap), and kept for the life of the process, idle when there is
//! nothing to do; a writer's drop joins nothing. A worker that cannot be
//! started is not an error: fewer threads run the same jobs. The one job
//! only a worker takes, a whole call of an `AsyncArrowWriter`
//! (`spawn_driver`), comes back to the task awaiting it when no worker
//! is left to run it (none could be started, or the cap went to 0 after
//! it was queued), and that task runs it.

#[cfg(any(feature = "async", test))]
mod driver;
mod lane;
mod pages;
mod queue;
mod results;
#[cfg(test)]
mod tests;

#[cfg(any(feature = "async", test))]
pub(crate) use driver::spawn as spawn_driver;
pub(crate) use lane::{Lane, Op};
pub(crate) use pages::{PageCounts, PageHelpers, Ticket};
pub(crate) use results::Results;

use queue::{Class, Group, Queue, queue};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

/// Sets the most worker threads the process runs for all writers together
/// (by default, [`std::thread::available_parallelism`]). Each writer's
/// [`with_threads(n)`](crate::ArrowWriter::with_threads) uses at most
/// `n - 1` of them at once, besides its own thread. Lowering it ends idle
/// workers above the new cap; 0 runs every writer on its own thread alone.
/// The bytes written never depend on it.
pub fn set_worker_threads(threads: usize) {
    queue().set_cap(threads);
}

/// The most worker threads the process runs for all writers together; see
/// [`set_worker_threads`].
pub fn worker_threads() -> usize {
    queue().cap()
}

/// Worker threads running now (started on demand, never more than
/// [`worker_threads`]).
pub fn worker_threads_started() -> usize {
    queue().workers()
}

/// One unit of work: runs on any of the pool's threads.
pub(crate) type Task<T> = Box<dyn FnOnce() -> T + Send + 'static>;

/// What a task ended with: its value, or the message of its panic.
pub(crate) type Outcome<T> = std::result::Result<T, String>;

/// Which queued job the writer's own thread takes; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    /// The lightest: results are wanted all together, or the thread has
    /// its own work to come back to.
    Lightest,
    /// Lane `n`'s run, the result needed next, if it is queued; else the
    /// heaviest (while lane `n` runs elsewhere, the longest work left is
    /// best started now).
    Needed(usize),
}

/// A writer's handle on the process's pool; see the module documentation.
/// Clones share the writer's group.
#[derive(Clone)]
pub(crate) struct Pool {
    /// Threads that run the writer's jobs, its own included (at least 1).
    threads: usize,
    queue: Arc<Queue>,
    group: Arc<Group>,
    /// Pages handed to [`PageHelpers`] so far.
    pages: Arc<PageCounts>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads)
            .field("group", &self.group)
            .field("pages", &self.pages)
            .finish()
    }
}

impl Pool {
    /// A handle for a writer on `threads` threads, its own included (0
    /// counts as 1, more than [`MAX_THREADS`] as that many). No thread is
    /// started yet.
    pub(crate) fn new(threads: usize) -> Self {
        let threads = clamp_threads(threads);
        Self {
            threads,
            queue: Arc::clone(queue()),
            group: Group::new(threads - 1),
            pages: Arc::default(),
        }
    }

    /// Threads that run the writer's jobs, its own included.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Whether any worker may help (more than one thread, and a cap above 0).
    fn has_helpers(&self) -> bool {
        self.threads > 1 && self.queue.cap() > 0
    }

    /// Pages sent to this writer's [`PageHelpers`] so far, and how many of
    /// them a worker compressed.
    pub(crate) fn page_counts(&self) -> (usize, usize) {
        self.pages.get()
    }

    /// Lane operations run so far by a worker, and by the writer's own
    /// thread.
    pub(crate) fn lane_counts(&self) -> (usize, usize) {
        let [workers, here] = &self.group.lane_ops;
        (workers.load(Relaxed), here.load(Relaxed))
    }

    /// Starts the workers this writer may use (within the cap).
    fn start(&self) {
        self.queue.start_workers(self.threads - 1);
    }

    /// Queues `tasks` (each with its weight) for the workers; the returned
    /// [`Results`] hands out their outcomes in task order, running queued
    /// tasks on the calling thread (chosen by `take`) while the next
    /// outcome is not ready. With one thread, or one task, the tasks run
    /// on the caller, one per outcome taken.
    pub(crate) fn submit<T: Send + 'static>(
        &self,
        tasks: Vec<(u64, Task<T>)>,
        take: Take,
    ) -> Results<T> {
        if !self.has_helpers() || tasks.len() < 2 {
            return Results::inline(tasks);
        }
        self.start();
        Results::queue(&self.queue, &self.group, tasks, take)
    }

    /// Runs `local` on the calling thread and `tasks` on up to
    /// [`Self::threads`] threads (the caller joins in once `local` is
    /// done); returns each task's [`Outcome`], in task order, and
    /// `local`'s. A task (or `local`) that panics gives `Err` with the
    /// panic's message; the call returns only once every task has run.
    pub(crate) fn run<T: Send + 'static, R>(
        &self,
        tasks: Vec<(u64, Task<T>)>,
        local: impl FnOnce() -> R,
    ) -> (Vec<Outcome<T>>, Outcome<R>) {
        let results = self.submit(tasks, Take::Lightest);
        let local = run_caught(local);
        (results.collect(), local)
    }

    /// A lane over `value`, number `index` of this writer's lanes (see
    /// [`Lane`]); starts the workers.
    pub(crate) fn lane<S: Send + 'static>(&self, index: usize, value: S) -> Lane<S> {
        self.start();
        Lane::new(
            Arc::clone(&self.queue),
            Arc::clone(&self.group),
            index,
            value,
        )
    }

    /// Queues each `(lane, size, weight, op)` as [`Lane::push`] does, the
    /// lanes' runs all at once (one wake-up for all the workers).
    pub(crate) fn push_all<'a, S: Send + 'static>(
        &self,
        ops: impl IntoIterator<Item = (&'a Lane<S>, usize, u64, Op<S>)>,
    ) {
        let runs: Vec<_> = ops
            .into_iter()
            .filter_map(|(lane, size, weight, op)| lane.queue_op(size, weight, op))
            .collect();
        self.queue.push_all(runs);
    }

    /// Returns once `done` holds, running this writer's queued pages and
    /// lane runs (as `take` chooses) on the calling thread meanwhile, or
    /// waiting for its lanes to change. `done` must become true through
    /// the lanes' work (every lane operation signals when it ends).
    pub(crate) fn help_until(&self, take: Take, mut done: impl FnMut() -> bool) {
        loop {
            let seen = self.group.generation();
            if done() {
                return;
            }
            if let Some(job) = self.queue.take_page(&self.group) {
                job();
                continue;
            }
            if let Some(job) = self.queue.take_own(&self.group, Class::Lane, take) {
                job();
                continue;
            }
            self.group.wait_change(seen);
        }
    }

    /// A handle that column writers use to compress their pages on the
    /// pool's threads ([`PageHelpers`]); starts the workers.
    pub(crate) fn page_helpers(&self) -> PageHelpers {
        self.start();
        // Measured on one wide zstd column, two threads: one page out at a
        // time gained 5-15% (the caller, waiting for it, compressed every
        // other page itself), three 25-40%.
        let in_flight = self.threads.saturating_mul(2).saturating_sub(1).min(8);
        PageHelpers::new(
            Arc::clone(&self.queue),
            Arc::clone(&self.group),
            in_flight,
            Arc::clone(&self.pages),
        )
    }
}

/// The most threads one writer counts: far beyond any machine (the pool's
/// cap bounds the workers anyway), low enough that no count derived from
/// it overflows.
pub(crate) const MAX_THREADS: usize = 1 << 16;

/// A writer's thread count as the pool takes it: 0 is 1, and anything
/// above [`MAX_THREADS`] is [`MAX_THREADS`].
pub(crate) fn clamp_threads(threads: usize) -> usize {
    threads.clamp(1, MAX_THREADS)
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
