//! Running a whole writer call on a worker thread and awaiting it from an
//! async task ([`spawn`]): the executor thread is free while the call
//! (which waits for its own column tasks) runs on the pool.

use super::queue::{Class, Entry, Group, Queue, queue};
use super::{Outcome, run_caught};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// Runs `job` on a worker thread, starting workers until `workers` run
/// (within the cap); the returned future resolves to its outcome. When no
/// worker runs it (a cap of 0, workers that cannot be started, or the last
/// worker ended by a lowered cap before it took the job), the future runs
/// it itself, on the task that awaits it.
pub(crate) fn spawn<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
    workers: usize,
) -> Completion<T> {
    spawn_on(queue(), job, workers)
}

/// [`spawn`] on `queue`.
pub(super) fn spawn_on<T: Send + 'static>(
    queue: &Arc<Queue>,
    job: impl FnOnce() -> T + Send + 'static,
    workers: usize,
) -> Completion<T> {
    let shared = Arc::new(Mutex::new(Shared {
        outcome: None,
        waker: None,
        job: Some(Box::new(job)),
        handed_back: false,
    }));
    queue.start_workers(workers.max(1));
    let orphan = Orphan(Arc::clone(&shared));
    // Queued even when no worker runs: the queue then drops it unrun,
    // which hands it back.
    queue.push(Entry {
        // Its own group, without a limit: it stands in for the writer's
        // own thread, which the writer's limit does not count.
        group: Group::new(usize::MAX),
        class: Class::Driver,
        index: 0,
        weight: u64::MAX,
        job: Box::new(move || {
            let job = orphan.lock().job.take();
            if let Some(job) = job {
                let outcome = run_caught(job);
                fill(&orphan.0, outcome);
            }
        }),
    });
    Completion { shared }
}

struct Shared<T> {
    outcome: Option<Outcome<T>>,
    waker: Option<Waker>,
    /// The job, until a worker (or the awaiting task) takes it.
    job: Option<Box<dyn FnOnce() -> T + Send>>,
    /// The queue dropped the job's entry unrun: the awaiting task runs it.
    handed_back: bool,
}

fn fill<T>(shared: &Mutex<Shared<T>>, outcome: Outcome<T>) {
    let mut shared = shared.lock().unwrap_or_else(PoisonError::into_inner);
    shared.outcome = Some(outcome);
    let waker = shared.waker.take();
    drop(shared);
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// Held by the queued entry: if the entry is dropped with the job still
/// in place (no worker took it), hands the job back to the future.
struct Orphan<T>(Arc<Mutex<Shared<T>>>);

impl<T> Orphan<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Shared<T>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> Drop for Orphan<T> {
    fn drop(&mut self) {
        let mut shared = self.lock();
        if shared.job.is_some() {
            shared.handed_back = true;
            let waker = shared.waker.take();
            drop(shared);
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

/// The outcome of a job started with [`spawn`], as a future.
pub(crate) struct Completion<T> {
    shared: Arc<Mutex<Shared<T>>>,
}

impl<T> Future for Completion<T> {
    type Output = Outcome<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome<T>> {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(outcome) = shared.outcome.take() {
            return Poll::Ready(outcome);
        }
        if shared.handed_back
            && let Some(job) = shared.job.take()
        {
            // No worker will run it: run it here.
            drop(shared);
            return Poll::Ready(run_caught(job));
        }
        shared.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}
