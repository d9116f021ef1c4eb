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

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{
    AtomicBool, AtomicUsize, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// One unit of work: runs on any of the pool's threads.
pub(super) type Task<T> = Box<dyn FnOnce() -> T + Send + 'static>;

/// A queued task, wrapped to report its result.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// What a task ended with: its value, or the message of its panic.
pub(super) type Outcome<T> = std::result::Result<T, String>;

/// Which queued task the calling thread takes; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Take {
    /// The lightest: results are wanted all together.
    Lightest,
    /// The one with the lowest task number: results are consumed in order
    /// as they come.
    InOrder,
}

/// A queued job with what the scheduler orders it by.
struct Entry {
    index: usize,
    /// A page to compress ([`PageHelpers`]): queued ahead of column tasks.
    page: bool,
    job: Job,
}

/// The queue the caller and the workers take jobs from.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
    /// How many jobs are queued (`state.jobs.len()`, kept up to date under
    /// the lock), for threads spinning before they sleep.
    queued: AtomicUsize,
}

#[derive(Default)]
struct QueueState {
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
    fn remove(&mut self, at: usize) -> Option<Job> {
        let entry = self.jobs.remove(at)?;
        self.pages -= usize::from(entry.page);
        Some(entry.job)
    }
}

impl Queue {
    /// The queue's state; jobs never panic while holding the lock (they
    /// run outside it, under `catch_unwind`), so a poisoned lock still
    /// holds a consistent queue.
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the queue's length after a change (under the lock).
    fn counted(&self, state: &QueueState) {
        self.queued.store(state.jobs.len(), Relaxed);
    }

    /// The job the calling thread takes next, if any, without waiting.
    fn take(&self, how: Take) -> Option<Job> {
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
    fn take_page(&self) -> Option<Job> {
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

/// Worker threads for one writer; see the module documentation.
pub(super) struct Pool {
    /// Threads that run tasks, the caller included (at least 1).
    threads: usize,
    queue: Arc<Queue>,
    workers: Vec<JoinHandle<()>>,
    /// Pages handed to [`PageHelpers`] so far.
    pages: Arc<PageCounts>,
}

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
    pub(super) fn new(threads: usize) -> Self {
        Self {
            threads: threads.max(1),
            queue: Arc::default(),
            workers: Vec::new(),
            pages: Arc::default(),
        }
    }

    /// Threads that run tasks, the caller included.
    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// Pages sent to this pool's [`PageHelpers`] so far, and how many of
    /// them a worker compressed.
    pub(super) fn page_counts(&self) -> (usize, usize) {
        self.pages.get()
    }

    /// Starts workers until `wanted` run (or starting one fails).
    fn start(&mut self, wanted: usize) {
        while self.workers.len() < wanted {
            let queue = Arc::clone(&self.queue);
            let spawned = std::thread::Builder::new()
                .name(format!("{WORKER_NAME}{}", self.workers.len() + 1))
                .spawn(move || queue.work());
            match spawned {
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
    pub(super) fn submit<T: Send + 'static>(
        &mut self,
        tasks: Vec<(u64, Task<T>)>,
        take: Take,
    ) -> Results<T> {
        let count = tasks.len();
        // The caller takes one share of the tasks.
        let helpers = (self.threads - 1).min(count.saturating_sub(1));
        if helpers == 0 {
            return Results {
                inline: tasks.into_iter().map(|(_, task)| task).collect(),
                queued: None,
                ready: (0..count).map(|_| None).collect(),
                next: 0,
            };
        }
        self.start(helpers);
        let (sender, receiver) = mpsc::channel();
        let mut entries: Vec<(u64, Entry)> = tasks
            .into_iter()
            .enumerate()
            .map(|(index, (weight, task))| {
                let sender = sender.clone();
                let job: Job = Box::new(move || {
                    // The receiver is gone only if the caller unwound.
                    let _ = sender.send((index, run_caught(task)));
                });
                (
                    weight,
                    Entry {
                        index,
                        page: false,
                        job,
                    },
                )
            })
            .collect();
        // Heaviest first; a stable sort keeps task order among equals.
        entries.sort_by_key(|e| std::cmp::Reverse(e.0));
        {
            let mut state = self.queue.lock();
            state.jobs.extend(entries.into_iter().map(|(_, e)| e));
            self.queue.counted(&state);
        }
        drop(sender);
        self.queue.ready.notify_all();
        Results {
            inline: VecDeque::new(),
            queued: Some(Queued {
                queue: Arc::clone(&self.queue),
                take,
                receiver,
            }),
            ready: (0..count).map(|_| None).collect(),
            next: 0,
        }
    }

    /// Runs `local` on the calling thread and `tasks` on up to
    /// [`Self::threads`] threads (the caller joins in once `local` is
    /// done); returns each task's [`Outcome`], in task order, and
    /// `local`'s. A task (or `local`) that panics gives `Err` with the
    /// panic's message; the call returns only once every task has run.
    pub(super) fn run<T: Send + 'static, R>(
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
        PageHelpers {
            queue: Arc::clone(&self.queue),
            // Measured on one wide zstd column, two threads: one page out
            // at a time gained 5-15% (the caller, waiting for it,
            // compressed every other page itself), three 25-40%.
            in_flight: (2 * self.threads - 1).min(8),
            counts: Arc::clone(&self.pages),
        }
    }
}

/// Lets a column writer hand pages to compress to its writer's [`Pool`]
/// (see [`crate::page::output`]): jobs go ahead of the column tasks in the
/// queue, and a thread waiting for one ([`Ticket::wait`]) compresses queued
/// pages itself meanwhile, so a column task never waits on a queue that
/// nobody serves. Page jobs wait on nothing, so no wait can deadlock.
#[derive(Clone)]
pub(crate) struct PageHelpers {
    queue: Arc<Queue>,
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
        {
            let mut state = self.queue.lock();
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
            self.queue.counted(&state);
        }
        self.queue.ready.notify_one();
        Ticket {
            slot,
            queue: Arc::clone(&self.queue),
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
            match self.queue.take_page() {
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

impl Drop for Pool {
    fn drop(&mut self) {
        self.queue.lock().closed = true;
        self.queue.ready.notify_all();
        for worker in self.workers.drain(..) {
            // Jobs catch their panics, so a worker only ends by returning.
            let _ = worker.join();
        }
    }
}

/// The outcomes of [`Pool::submit`]'s tasks, in task order. Taking an
/// outcome that is not ready runs queued tasks on the calling thread, or
/// waits for a worker. Dropped early, it still runs (and discards) every
/// task left, so the queue is empty for the pool's next call.
pub(super) struct Results<T> {
    /// With no worker: the tasks not yet run, run one per outcome.
    inline: VecDeque<Task<T>>,
    queued: Option<Queued<T>>,
    /// Outcomes that came in ahead of their turn.
    ready: Vec<Option<Outcome<T>>>,
    /// The task number of the next outcome.
    next: usize,
}

/// The tasks of a [`Results`] that went to the queue.
struct Queued<T> {
    queue: Arc<Queue>,
    take: Take,
    receiver: mpsc::Receiver<(usize, Outcome<T>)>,
}

impl<T> Iterator for Results<T> {
    type Item = Outcome<T>;

    fn next(&mut self) -> Option<Outcome<T>> {
        if self.next == self.ready.len() {
            return None;
        }
        let Some(queued) = &self.queued else {
            self.next += 1;
            return Some(match self.inline.pop_front() {
                Some(task) => run_caught(task),
                None => Err("the task was dropped before it ran".into()),
            });
        };
        loop {
            if let Some(outcome) = self.ready[self.next].take() {
                self.next += 1;
                return Some(outcome);
            }
            if let Ok((index, outcome)) = queued.receiver.try_recv() {
                self.ready[index] = Some(outcome);
                continue;
            }
            if let Some(job) = queued.queue.take(queued.take) {
                job();
                continue;
            }
            match queued.receiver.recv() {
                Ok((index, outcome)) => self.ready[index] = Some(outcome),
                // Every job sends once, or is dropped unrun (dropping its
                // sender): all have reported and this one never will.
                Err(_) => {
                    self.next += 1;
                    return Some(Err("the task was dropped before it ran".into()));
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.ready.len() - self.next;
        (left, Some(left))
    }
}

impl<T> Drop for Results<T> {
    fn drop(&mut self) {
        if self.queued.is_some() {
            for _ in self.by_ref() {}
        }
    }
}

/// Spins until `ready` holds, or for at most [`SPIN`]; a thread that then
/// sleeps is woken faster this way when what it waits for comes soon.
fn spin_until(ready: impl Fn() -> bool) {
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
fn is_worker() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(WORKER_NAME))
}

/// The start of a worker thread's name.
const WORKER_NAME: &str = "parquet-flba-";

/// Runs `task`, turning a panic into its message.
pub(super) fn run_caught<T>(task: impl FnOnce() -> T) -> Outcome<T> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(n: usize) -> Vec<(u64, Task<usize>)> {
        (0..n)
            .map(|i| {
                let task = Box::new(move || {
                    std::thread::sleep(std::time::Duration::from_millis((n - i) as u64));
                    i * 10
                }) as Task<usize>;
                // Weights out of task order.
                ((i as u64 * 7) % 5, task)
            })
            .collect()
    }

    #[test]
    fn results_come_back_in_task_order() {
        for threads in [1, 2, 3, 8] {
            let mut pool = Pool::new(threads);
            for n in [0, 1, 2, 5] {
                let (out, local) = pool.run(tasks(n), || 7);
                assert_eq!(local, Ok(7));
                let out: Vec<usize> = out.into_iter().map(Result::unwrap).collect();
                assert_eq!(out, (0..n).map(|i| i * 10).collect::<Vec<_>>());
            }
            assert!(pool.workers.len() < threads.max(2));
        }
    }

    #[test]
    fn a_panic_becomes_its_message() {
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let mut pool = Pool::new(2);
        let panicking: Vec<(u64, Task<u8>)> = vec![
            (1, Box::new(|| 1)),
            (3, Box::new(|| panic!("boom {}", 2))),
            (2, Box::new(|| std::panic::panic_any(3_u32))),
        ];
        let (out, local) = pool.run(panicking, || panic!("local"));
        std::panic::set_hook(quiet);
        assert_eq!(local, Err("local".to_string()));
        assert_eq!(out[0], Ok(1));
        assert_eq!(out[1], Err("boom 2".to_string()));
        assert_eq!(out[2], Err("a panic without a message".to_string()));
        // The pool still works.
        let (out, local) = pool.run(vec![(0, Box::new(|| 4)), (9, Box::new(|| 5))], || ());
        assert_eq!(out, vec![Ok(4), Ok(5)]);
        assert_eq!(local, Ok(()));
    }

    #[test]
    fn results_in_order_as_they_come_and_an_early_drop_runs_the_rest() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        for threads in [1, 2, 4] {
            let mut pool = Pool::new(threads);
            let ran = Arc::new(AtomicUsize::new(0));
            let counted = |n: usize| -> Vec<(u64, Task<usize>)> {
                (0..n)
                    .map(|i| {
                        let ran = Arc::clone(&ran);
                        let task = Box::new(move || {
                            ran.fetch_add(1, SeqCst);
                            i
                        }) as Task<usize>;
                        (i as u64 % 3, task)
                    })
                    .collect()
            };
            let mut results = pool.submit(counted(6), Take::InOrder);
            assert_eq!(results.size_hint(), (6, Some(6)));
            assert_eq!(results.next(), Some(Ok(0)));
            assert_eq!(results.next(), Some(Ok(1)));
            drop(results);
            if threads > 1 {
                // Queued tasks all ran before the drop returned.
                assert_eq!(ran.load(SeqCst), 6, "threads={threads}");
            }
            // Nothing stale is left for the next call.
            let out: Vec<_> = pool.submit(counted(5), Take::Lightest).collect();
            assert_eq!(out, (0..5).map(Ok).collect::<Vec<_>>());
        }
    }

    #[test]
    fn page_jobs_come_back_and_a_waiter_helps() {
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        for threads in [1, 2, 4] {
            let mut pool = Pool::new(threads);
            let helpers = pool.page_helpers();
            assert_eq!(helpers.in_flight(), (2 * threads - 1).min(8));
            let tickets: Vec<Ticket<usize>> = (0..50)
                .map(|i| {
                    helpers.spawn(move || {
                        if i == 7 {
                            panic!("page {i}");
                        }
                        i * 3
                    })
                })
                .collect();
            // A column task queued behind the pages still runs.
            let (out, _) = pool.run(vec![(1, Box::new(|| 5_usize) as Task<usize>)], || ());
            assert_eq!(out, vec![Ok(5)]);
            for (i, ticket) in tickets.into_iter().enumerate().rev() {
                match i {
                    7 => assert_eq!(ticket.wait(), Err("page 7".to_string())),
                    _ => assert_eq!(ticket.wait(), Ok(i * 3)),
                }
            }
            let (sent, on_workers) = pool.page_counts();
            assert_eq!(sent, 50);
            if threads == 1 {
                // No worker: the waiting thread ran every page.
                assert_eq!(on_workers, 0);
            }
        }
        std::panic::set_hook(quiet);
    }

    #[test]
    fn a_page_job_dropped_unrun_reports_it() {
        let pool = Pool::new(1);
        let queue = Arc::clone(&pool.queue);
        let helpers = PageHelpers {
            queue: Arc::clone(&queue),
            in_flight: 1,
            counts: Arc::default(),
        };
        let ticket = helpers.spawn(|| 1);
        // The job is dropped without running (as if its queue went away).
        drop(queue.lock().remove(0));
        queue.counted(&queue.lock());
        assert!(ticket.wait().is_err());
        drop(pool);
    }
}
