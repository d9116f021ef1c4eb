//! [`Lane`]: one column's state with the operations queued for it, run in
//! order, one at a time, by whichever thread takes the lane's run from the
//! queue. A writer hands each write's work for a column to its lane and
//! goes on without waiting; the operations of one lane never overlap and
//! never change order, so the column sees exactly the sequence it would
//! see on one thread.

use super::queue::{Class, Entry, Group, Queue, is_worker};
use super::run_caught;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Operations a worker runs in one go before the lane goes back to the
/// queue.
const RUN: usize = 8;

/// An operation on a lane's state.
pub(crate) type Op<S> = Box<dyn FnOnce(&mut S) + Send + 'static>;

/// A lane of operations on a state `S`; see the module docs.
pub(crate) struct Lane<S: Send + 'static> {
    inner: Arc<Inner<S>>,
}

struct Inner<S> {
    state: Mutex<State<S>>,
    queue: Arc<Queue>,
    group: Arc<Group>,
    /// The lane's number in its group (the order its owner needs it in).
    index: usize,
    /// Total size of the operations queued or running.
    pending: AtomicUsize,
}

struct State<S> {
    ops: VecDeque<(usize, Op<S>)>,
    /// The state; taken out while a run holds it.
    value: Option<S>,
    /// A run is queued or running.
    scheduled: bool,
    /// The weight the lane's run is queued with.
    weight: u64,
    /// The message of an operation's panic: the state may be inconsistent,
    /// so later operations are dropped unrun.
    panicked: Option<String>,
}

impl<S: Send + 'static> Lane<S> {
    /// A lane over `value`, number `index` of `group`.
    pub(super) fn new(queue: Arc<Queue>, group: Arc<Group>, index: usize, value: S) -> Self {
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    ops: VecDeque::new(),
                    value: Some(value),
                    scheduled: false,
                    weight: 0,
                    panicked: None,
                }),
                queue,
                group,
                index,
                pending: AtomicUsize::new(0),
            }),
        }
    }

    /// Queues `op` of size `size` (what [`Self::pending`] counts), to run
    /// after the operations queued before it; the lane's run is queued with
    /// `weight` if none is. Dropped unrun after a panic.
    #[cfg(test)]
    pub(crate) fn push(&self, size: usize, weight: u64, op: Op<S>) {
        if let Some(run) = self.queue_op(size, weight, op) {
            self.inner.queue.push(run);
        }
    }

    /// [`Self::push`], but the lane's run, if one is to be queued, is
    /// returned for the caller to queue (with others, in one go).
    pub(super) fn queue_op(&self, size: usize, weight: u64, op: Op<S>) -> Option<Entry> {
        let mut state = self.inner.lock();
        if state.panicked.is_some() {
            return None;
        }
        self.inner.pending.fetch_add(size, SeqCst);
        state.ops.push_back((size, op));
        state.weight = weight;
        if state.scheduled {
            return None;
        }
        state.scheduled = true;
        drop(state);
        Some(Inner::run_entry(&self.inner, weight))
    }

    /// The lane's number in its group ([`Take::Needed`](super::Take::Needed)).
    pub(crate) fn index(&self) -> usize {
        self.inner.index
    }

    /// Total size of the operations queued or running.
    pub(crate) fn pending(&self) -> usize {
        self.inner.pending.load(SeqCst)
    }

    /// Whether nothing is queued or running.
    pub(crate) fn is_idle(&self) -> bool {
        !self.inner.lock().scheduled
    }

    /// `f` of the state, on this thread, if the lane is idle (under the
    /// lane's lock: nothing can be queued meanwhile).
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut S) -> R) -> Option<R> {
        let mut state = self.inner.lock();
        if state.scheduled {
            return None;
        }
        state.value.as_mut().map(f)
    }

    /// The message of the panic that stopped the lane, if one did.
    pub(crate) fn panicked(&self) -> Option<String> {
        self.inner.lock().panicked.clone()
    }

    /// Drops the queued operations unrun (the one running finishes).
    pub(crate) fn cancel(&self) {
        let mut state = self.inner.lock();
        let dropped: usize = state.ops.drain(..).map(|(size, _)| size).sum();
        self.inner.pending.fetch_sub(dropped, SeqCst);
    }
}

impl<S: Send + 'static> Inner<S> {
    fn lock(&self) -> MutexGuard<'_, State<S>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a run of the lane.
    fn schedule(this: &Arc<Self>, weight: u64) {
        this.queue.push(Inner::run_entry(this, weight));
    }

    /// A run of the lane, to queue.
    fn run_entry(this: &Arc<Self>, weight: u64) -> Entry {
        let lane = Arc::clone(this);
        Entry {
            group: Arc::clone(&this.group),
            class: Class::Lane,
            index: this.index,
            weight,
            job: Box::new(move || Inner::run(&lane)),
        }
    }

    /// Runs the lane's queued operations in order: up to [`RUN`] of them
    /// on a worker (its caches stay warm), one on the writer's own thread
    /// (which has other work to come back to), then queues the rest as a
    /// new run (behind heavier work).
    fn run(this: &Arc<Self>) {
        let worker = is_worker();
        let most = if worker { RUN } else { 1 };
        let mut value = this.lock().value.take();
        let mut ran = 0;
        loop {
            let mut state = this.lock();
            let next = match (&value, ran < most) {
                (Some(_), true) => state.ops.pop_front(),
                _ => None,
            };
            let Some((size, op)) = next else {
                if value.is_some() {
                    state.value = value.take();
                }
                let more = !state.ops.is_empty();
                state.scheduled = more;
                let weight = state.weight;
                drop(state);
                if more {
                    Inner::schedule(this, weight);
                }
                this.group.signal();
                return;
            };
            drop(state);
            let outcome = match value.as_mut() {
                Some(value) => run_caught(move || op(value)),
                None => Ok(()),
            };
            ran += 1;
            this.group.lane_ops[usize::from(!worker)].fetch_add(1, Relaxed);
            if let Err(message) = outcome {
                let mut state = this.lock();
                let dropped: usize = state.ops.drain(..).map(|(size, _)| size).sum();
                this.pending.fetch_sub(dropped, SeqCst);
                state.panicked = Some(message);
            }
            this.pending.fetch_sub(size, SeqCst);
            this.group.signal();
        }
    }
}
