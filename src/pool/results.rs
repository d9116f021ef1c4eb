//! The outcomes of a [`Pool::submit`](super::Pool::submit) call, handed out
//! in task order while the calling thread helps run what is queued.

use super::queue::{Class, Entry, Group, Job, Queue};
use super::{Outcome, Take, Task, run_caught};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::mpsc;

/// The outcomes of [`Pool::submit`](super::Pool::submit)'s tasks, in task order. Taking an
/// outcome that is not ready runs queued tasks on the calling thread, or
/// waits for a worker. Dropped early, it still runs (and discards) every
/// task left, so the queue is empty for the pool's next call.
pub(crate) struct Results<T> {
    /// With no worker: the tasks not yet run, run one per outcome.
    inline: VecDeque<Task<T>>,
    queued: Option<Queued<T>>,
    /// Outcomes that came in ahead of their turn.
    ready: Vec<Option<Outcome<T>>>,
    /// The task number of the next outcome.
    next: usize,
}

impl<T: Send + 'static> Results<T> {
    /// `tasks` left to run on the caller, one per outcome taken.
    pub(super) fn inline(tasks: Vec<(u64, Task<T>)>) -> Self {
        let count = tasks.len();
        Self {
            inline: tasks.into_iter().map(|(_, task)| task).collect(),
            queued: None,
            ready: (0..count).map(|_| None).collect(),
            next: 0,
        }
    }

    /// Queues `tasks` on `queue`, heaviest first (task order among equal
    /// weights); the caller takes from the queue as `take` says.
    pub(super) fn queue(
        queue: &Arc<Queue>,
        group: &Arc<Group>,
        tasks: Vec<(u64, Task<T>)>,
        take: Take,
    ) -> Self {
        let count = tasks.len();
        let (sender, receiver) = mpsc::channel();
        let entries: Vec<Entry> = tasks
            .into_iter()
            .enumerate()
            .map(|(index, (weight, task))| {
                let sender = sender.clone();
                let job: Job = Box::new(move || {
                    // The receiver is gone only if the caller unwound.
                    let _ = sender.send((index, run_caught(task)));
                });
                Entry {
                    group: Arc::clone(group),
                    class: Class::Task,
                    index,
                    weight,
                    job,
                }
            })
            .collect();
        drop(sender);
        queue.push_all(entries);
        Self {
            inline: VecDeque::new(),
            queued: Some(Queued {
                queue: Arc::clone(queue),
                group: Arc::clone(group),
                take,
                receiver,
            }),
            ready: (0..count).map(|_| None).collect(),
            next: 0,
        }
    }
}

/// The tasks of a [`Results`] that went to the queue.
struct Queued<T> {
    queue: Arc<Queue>,
    group: Arc<Group>,
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
            if let Some(job) = queued
                .queue
                .take_own(&queued.group, Class::Task, queued.take)
            {
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
