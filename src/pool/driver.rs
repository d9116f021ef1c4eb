//! Running a whole writer call on a worker thread and awaiting it from an
//! async task ([`spawn`]): the executor thread is free while the call
//! (which waits for its own column tasks) runs on the pool.

use super::queue::{Class, Entry, Group, queue};
use super::{Outcome, run_caught};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// Runs `job` on a worker thread, starting workers until `workers` run
/// (within the cap); the returned future resolves to its outcome. The job
/// comes back when no worker may be started (a cap of 0): run it here.
pub(crate) fn spawn<T: Send + 'static, F: FnOnce() -> T + Send + 'static>(
    job: F,
    workers: usize,
) -> Result<Completion<T>, F> {
    let queue = queue();
    if queue.cap() == 0 {
        return Err(job);
    }
    queue.start_workers(workers.max(1));
    let shared = Arc::new(Mutex::new(Shared {
        outcome: None,
        waker: None,
    }));
    let mut filler = Filler(Some(Arc::clone(&shared)));
    queue.push(Entry {
        // Its own group, without a limit: it stands in for the writer's
        // own thread, which the writer's limit does not count.
        group: Group::new(usize::MAX),
        class: Class::Task,
        index: 0,
        weight: u64::MAX,
        job: Box::new(move || {
            let outcome = run_caught(job);
            if let Some(shared) = filler.0.take() {
                fill(&shared, outcome);
            }
        }),
    });
    Ok(Completion { shared })
}

struct Shared<T> {
    outcome: Option<Outcome<T>>,
    waker: Option<Waker>,
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

/// Fills the outcome with an error if the job is dropped unrun.
struct Filler<T>(Option<Arc<Mutex<Shared<T>>>>);

impl<T> Drop for Filler<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.0.take() {
            fill(&shared, Err("the job was dropped before it ran".into()));
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
        match shared.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                shared.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
