//! The worker threads of [`ArrowWriter::with_threads`](crate::ArrowWriter::with_threads):
//! a small pool owned by one writer that runs a row group's per-column tasks
//! (validating a field, writing a leaf, closing a column writer) side by
//! side and hands their results back in task order.
//!
//! Tasks own what they work on (a column writer is moved into its task and
//! back out with the result), so no borrow crosses a thread and no `unsafe`
//! is needed. The calling thread is one of the `threads`: it runs its own
//! sequential work first (`local`), then takes tasks from the same queue
//! until none is left, then waits for the workers' results. Which thread
//! runs which task changes nothing but timing: every task touches only its
//! own column's state, and the caller puts the results back in order.
//!
//! Workers are started on the first call that has more than one task (at
//! most `threads - 1`, never more than the tasks need), kept for the
//! writer's lifetime and joined when the pool is dropped. A worker that
//! cannot be started is not an error: fewer threads run the same tasks.

use std::any::Any;
use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// One unit of work: runs on any of the pool's threads.
pub(super) type Task<T> = Box<dyn FnOnce() -> T + Send + 'static>;

/// A queued task, wrapped to report its result.
type Job = Box<dyn FnOnce() + Send + 'static>;

/// What a task ended with: its value, or the message of its panic.
pub(super) type Outcome<T> = std::result::Result<T, String>;

/// The queue the caller and the workers take jobs from.
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

#[derive(Default)]
struct QueueState {
    jobs: VecDeque<Job>,
    /// Set when the pool is dropped: workers finish the queue and exit.
    closed: bool,
}

impl Queue {
    /// The queue's state; jobs never panic while holding the lock (they
    /// run outside it, under `catch_unwind`), so a poisoned lock still
    /// holds a consistent queue.
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next job, if any, without waiting.
    fn try_pop(&self) -> Option<Job> {
        self.lock().jobs.pop_front()
    }

    /// A worker's loop: run jobs until the pool is closed.
    fn work(&self) {
        loop {
            let job = {
                let mut state = self.lock();
                loop {
                    if let Some(job) = state.jobs.pop_front() {
                        break job;
                    }
                    if state.closed {
                        return;
                    }
                    state = self
                        .ready
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
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
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads)
            .field("started", &self.workers.len())
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
        }
    }

    /// Threads that run tasks, the caller included.
    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// Starts workers until `wanted` run (or starting one fails).
    fn start(&mut self, wanted: usize) {
        while self.workers.len() < wanted {
            let queue = Arc::clone(&self.queue);
            let spawned = std::thread::Builder::new()
                .name(format!("parquet-flba-{}", self.workers.len() + 1))
                .spawn(move || queue.work());
            match spawned {
                Ok(handle) => self.workers.push(handle),
                // Fewer threads run the same tasks.
                Err(_) => break,
            }
        }
    }

    /// Runs `local` on the calling thread and `tasks` on up to
    /// [`Self::threads`] threads (the caller joins in once `local` is
    /// done); returns each task's [`Outcome`], in task order, and
    /// `local`'s. A task (or `local`) that panics gives `Err` with the
    /// panic's message; the call returns only once every task has run.
    pub(super) fn run<T: Send + 'static, R>(
        &mut self,
        tasks: Vec<Task<T>>,
        local: impl FnOnce() -> R,
    ) -> (Vec<Outcome<T>>, Outcome<R>) {
        let count = tasks.len();
        // The caller takes one share of the tasks.
        let helpers = (self.threads - 1).min(count.saturating_sub(1));
        if helpers == 0 {
            let local = run_caught(local);
            return (tasks.into_iter().map(run_caught).collect(), local);
        }
        self.start(helpers);
        let (sender, results) = mpsc::channel();
        {
            let mut state = self.queue.lock();
            for (index, task) in tasks.into_iter().enumerate() {
                let sender = sender.clone();
                state.jobs.push_back(Box::new(move || {
                    // The receiver is gone only if the caller unwound.
                    let _ = sender.send((index, run_caught(task)));
                }));
            }
        }
        drop(sender);
        self.queue.ready.notify_all();
        let local = run_caught(local);
        while let Some(job) = self.queue.try_pop() {
            job();
        }
        let mut outcomes: Vec<Option<Outcome<T>>> = (0..count).map(|_| None).collect();
        // Every job sends once, or is dropped unrun (dropping its sender):
        // this ends when all have reported.
        for (index, outcome) in results.iter() {
            outcomes[index] = Some(outcome);
        }
        let outcomes = outcomes
            .into_iter()
            .map(|o| o.unwrap_or_else(|| Err("the task was dropped before it ran".into())))
            .collect();
        (outcomes, local)
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

/// Runs `task`, turning a panic into its message.
fn run_caught<T>(task: impl FnOnce() -> T) -> Outcome<T> {
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

    fn tasks(n: usize) -> Vec<Task<usize>> {
        (0..n)
            .map(|i| {
                Box::new(move || {
                    std::thread::sleep(std::time::Duration::from_millis((n - i) as u64));
                    i * 10
                }) as Task<usize>
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
        let panicking: Vec<Task<u8>> = vec![
            Box::new(|| 1),
            Box::new(|| panic!("boom {}", 2)),
            Box::new(|| std::panic::panic_any(3_u32)),
        ];
        let (out, local) = pool.run(panicking, || panic!("local"));
        std::panic::set_hook(quiet);
        assert_eq!(local, Err("local".to_string()));
        assert_eq!(out[0], Ok(1));
        assert_eq!(out[1], Err("boom 2".to_string()));
        assert_eq!(out[2], Err("a panic without a message".to_string()));
        // The pool still works.
        let (out, local) = pool.run(vec![Box::new(|| 4), Box::new(|| 5)], || ());
        assert_eq!(out, vec![Ok(4), Ok(5)]);
        assert_eq!(local, Ok(()));
    }
}
