//! The process-wide queue that every writer's jobs go to, the worker
//! threads that take them, and the groups (one per writer) that cap how
//! many workers one writer's jobs occupy at once.
//!
//! Jobs are kept in one list ordered by [`Class`] (pages to compress
//! first, oldest first; then column tasks, heaviest first; then lane runs,
//! heaviest first). A worker takes the first job whose group has a worker
//! to spare; a writer's own thread takes only its own group's jobs, as its
//! [`Take`] says. One lock guards the list: jobs are column chunks' worth
//! of work or compressed pages, so it is taken a few thousand times per
//! second at most, never per value.

use super::Take;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

/// A queued job.
pub(super) type Job = Box<dyn FnOnce() + Send + 'static>;

/// What kind of job an entry is; the queue is ordered by class first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    /// A page to compress ([`PageHelpers`](super::PageHelpers)): a column
    /// task waits for it.
    Page,
    /// A whole writer call (`spawn_driver`, feature `async`): only a
    /// worker takes it, so it is handed back, dropped unrun, when no
    /// worker is left to (its awaiting task then runs it).
    #[cfg_attr(not(any(feature = "async", test)), allow(dead_code))]
    Driver,
    /// A task whose result the writer's thread waits for.
    Task,
    /// A run of a [`Lane`](super::Lane)'s queued operations.
    Lane,
}

/// The jobs of one writer: how many workers may run them at once, how many
/// do, and a signal for the writer's thread waiting on their effects.
pub(crate) struct Group {
    /// Workers that may run this group's jobs at once.
    limit: usize,
    /// Workers running this group's jobs now (changed under the queue lock).
    running: AtomicUsize,
    /// Bumped (and waiters woken) whenever a job of the group changes
    /// something a waiter may wait for.
    generation: Mutex<u64>,
    changed: Condvar,
    /// `generation`, readable without the lock.
    seen: AtomicU64,
    /// Lane operations run by a worker, and by any other thread.
    pub(super) lane_ops: [AtomicUsize; 2],
}

impl std::fmt::Debug for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("limit", &self.limit)
            .field("running", &self.running.load(Relaxed))
            .finish()
    }
}

impl Group {
    /// A group whose jobs occupy at most `limit` workers at once.
    pub(super) fn new(limit: usize) -> Arc<Self> {
        Arc::new(Self {
            limit,
            running: AtomicUsize::new(0),
            generation: Mutex::new(0),
            changed: Condvar::new(),
            seen: AtomicU64::new(0),
            lane_ops: [AtomicUsize::new(0), AtomicUsize::new(0)],
        })
    }

    /// The current generation, to wait for a change after checking a
    /// condition ([`Self::wait_change`]).
    pub(super) fn generation(&self) -> u64 {
        self.seen.load(SeqCst)
    }

    /// Tells waiters that something changed.
    pub(super) fn signal(&self) {
        let mut generation = self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *generation += 1;
        self.seen.store(*generation, SeqCst);
        drop(generation);
        self.changed.notify_all();
    }

    /// Waits until the generation is no longer `seen` (spinning briefly
    /// first, as changes often come soon).
    pub(super) fn wait_change(&self, seen: u64) {
        spin_until(|| self.seen.load(SeqCst) != seen);
        let mut generation = self
            .generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *generation == seen {
            generation = self
                .changed
                .wait(generation)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A queued job with what the scheduler orders and filters it by.
pub(super) struct Entry {
    pub(super) group: Arc<Group>,
    pub(super) class: Class,
    /// Task or lane number within its group ([`Take::Needed`]).
    pub(super) index: usize,
    /// Estimated cost: heavier jobs of a class go first.
    pub(super) weight: u64,
    pub(super) job: Job,
}

impl Entry {
    /// Whether `self` goes after `other` in the queue.
    fn after(&self, other: &Entry) -> bool {
        match self.class.cmp(&other.class) {
            std::cmp::Ordering::Equal => {
                // Pages oldest first; the others heaviest first, in the
                // order they came among equals.
                self.class == Class::Page || self.weight <= other.weight
            }
            order => order.is_gt(),
        }
    }
}

/// The queue the workers and the writers' threads take jobs from.
pub(super) struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
    /// How many jobs are queued, for threads spinning before they sleep.
    queued: AtomicUsize,
    /// Most worker threads (see [`set_worker_threads`](super::set_worker_threads)).
    cap: AtomicUsize,
    /// Tests: every worker start fails.
    #[cfg(test)]
    pub(super) spawns_fail: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct QueueState {
    jobs: Vec<Entry>,
    /// Worker threads started and not yet ended.
    workers: usize,
    /// Workers numbered above this end (the cap was lowered).
    keep: usize,
    /// Total worker threads ever started, for names.
    spawned: usize,
}

/// The process's queue.
pub(super) fn queue() -> &'static Arc<Queue> {
    static QUEUE: OnceLock<Arc<Queue>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let cap = std::thread::available_parallelism().map_or(4, usize::from);
        Queue::new(cap)
    })
}

impl Queue {
    /// A queue of at most `cap` workers, none started (the process has one,
    /// [`queue`]; tests make their own).
    pub(super) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Queue {
            state: Mutex::default(),
            ready: Condvar::new(),
            queued: AtomicUsize::new(0),
            cap: AtomicUsize::new(cap),
            #[cfg(test)]
            spawns_fail: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The queue's state; jobs never run under the lock (they run outside
    /// it, under `catch_unwind`), so a poisoned lock still holds a
    /// consistent queue.
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The most worker threads.
    pub(super) fn cap(&self) -> usize {
        self.cap.load(Relaxed)
    }

    /// Worker threads running now.
    pub(super) fn workers(&self) -> usize {
        self.lock().workers
    }

    /// Sets the most worker threads; workers above it end once idle.
    pub(super) fn set_cap(self: &Arc<Self>, cap: usize) {
        self.cap.store(cap, Relaxed);
        let mut state = self.lock();
        state.keep = cap;
        drop(state);
        self.ready.notify_all();
    }

    /// Starts workers until `wanted` run (at most the cap; fewer if
    /// starting one fails: fewer threads run the same jobs).
    pub(super) fn start_workers(self: &Arc<Self>, wanted: usize) {
        let wanted = wanted.min(self.cap());
        let mut state = self.lock();
        state.keep = self.cap();
        while state.workers < wanted {
            state.spawned += 1;
            let queue = Arc::clone(self);
            let number = state.workers + 1;
            let spawned = self.spawn_thread(
                std::thread::Builder::new().name(format!("{WORKER_NAME}{}", state.spawned)),
                move || queue.work(number),
            );
            match spawned {
                Ok(_) => state.workers += 1,
                Err(_) => break,
            }
        }
    }

    /// Starts a thread (tests can make every start fail).
    fn spawn_thread(
        &self,
        builder: std::thread::Builder,
        f: impl FnOnce() + Send + 'static,
    ) -> std::io::Result<()> {
        #[cfg(test)]
        if self.spawns_fail.load(Relaxed) {
            return Err(std::io::Error::other("thread starts fail (test)"));
        }
        builder.spawn(f).map(drop)
    }

    fn counted(&self, state: &QueueState) {
        self.queued.store(state.jobs.len(), Relaxed);
    }

    /// Queues `entry` in its place and wakes a worker.
    pub(super) fn push(&self, entry: Entry) {
        self.push_all(std::iter::once(entry));
    }

    /// Queues `entries`, each in its place, and wakes the workers. A
    /// [`Class::Driver`] entry is dropped unrun (outside the lock) when no
    /// worker runs: nothing else would ever take it.
    pub(super) fn push_all(&self, entries: impl IntoIterator<Item = Entry>) {
        let mut state = self.lock();
        let mut pushed = 0;
        let mut orphans = Vec::new();
        for entry in entries {
            if entry.class == Class::Driver && state.workers == 0 {
                orphans.push(entry);
                continue;
            }
            // Before the first entry it does not go after.
            let at = state
                .jobs
                .iter()
                .position(|queued| !entry.after(queued))
                .unwrap_or(state.jobs.len());
            state.jobs.insert(at, entry);
            pushed += 1;
        }
        self.counted(&state);
        drop(state);
        drop(orphans);
        match pushed {
            0 => {}
            1 => self.ready.notify_one(),
            _ => self.ready.notify_all(),
        }
    }

    /// A job of `group` in `class` for the group's own thread, without
    /// waiting, as `how` says; `None` if it has none queued.
    pub(super) fn take_own(&self, group: &Arc<Group>, class: Class, how: Take) -> Option<Job> {
        let mut state = self.lock();
        let own = |e: &Entry| Arc::ptr_eq(&e.group, group) && e.class == class;
        let at = match how {
            Take::Lightest => state.jobs.iter().rposition(own)?,
            Take::Needed(index) => state
                .jobs
                .iter()
                .position(|e| own(e) && e.index == index)
                .or_else(|| state.jobs.iter().position(own))?,
        };
        let entry = state.jobs.remove(at);
        self.counted(&state);
        Some(entry.job)
    }

    /// The oldest page job of `group`, if any, without waiting.
    pub(super) fn take_page(&self, group: &Arc<Group>) -> Option<Job> {
        let mut state = self.lock();
        let at = state
            .jobs
            .iter()
            .take_while(|e| e.class == Class::Page)
            .position(|e| Arc::ptr_eq(&e.group, group))?;
        let entry = state.jobs.remove(at);
        self.counted(&state);
        Some(entry.job)
    }

    /// Drops every queued job of `group` in `class` unrun (outside the
    /// lock).
    #[cfg(test)]
    pub(super) fn drop_jobs(&self, group: &Arc<Group>, class: Class) {
        let mut state = self.lock();
        let (gone, kept): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut state.jobs)
            .into_iter()
            .partition(|e| Arc::ptr_eq(&e.group, group) && e.class == class);
        state.jobs = kept;
        self.counted(&state);
        drop(state);
        drop(gone);
    }

    /// Takes every [`Class::Driver`] entry out of the queue (to drop them
    /// outside the lock).
    fn take_drivers(&self, state: &mut QueueState) -> Vec<Entry> {
        let (drivers, kept) = std::mem::take(&mut state.jobs)
            .into_iter()
            .partition(|e| e.class == Class::Driver);
        state.jobs = kept;
        self.counted(state);
        drivers
    }

    /// A worker's loop: runs the first job whose group has a worker to
    /// spare, until the cap drops below this worker's number.
    fn work(&self, number: usize) {
        let mut state = self.lock();
        loop {
            if number > state.keep {
                state.workers -= 1;
                // The last worker hands back the jobs only a worker takes.
                let orphans = match state.workers {
                    0 => self.take_drivers(&mut state),
                    _ => Vec::new(),
                };
                drop(state);
                drop(orphans);
                return;
            }
            let at = state
                .jobs
                .iter()
                .position(|e| e.group.running.load(Relaxed) < e.group.limit);
            if let Some(at) = at {
                let entry = state.jobs.remove(at);
                self.counted(&state);
                entry.group.running.fetch_add(1, Relaxed);
                drop(state);
                (entry.job)();
                state = self.lock();
                entry.group.running.fetch_sub(1, Relaxed);
                // A job of this group may have waited for the slot.
                if state
                    .jobs
                    .iter()
                    .any(|e| Arc::ptr_eq(&e.group, &entry.group))
                {
                    self.ready.notify_one();
                }
                continue;
            }
            if state.jobs.is_empty() {
                // Jobs often come in quick succession (pages of a column,
                // a writer's next batch): look out for one briefly before
                // sleeping, as waking a sleeping thread takes longer.
                drop(state);
                spin_until(|| self.queued.load(Relaxed) > 0);
                state = self.lock();
                // A job came, or the cap went down while the lock was not
                // held (its wake-up found no one waiting): not to sleep.
                if !state.jobs.is_empty() || number > state.keep {
                    continue;
                }
            }
            // Nothing to take (or only jobs of groups at their limit).
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
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

/// Whether the current thread is one of the pool's workers.
pub(super) fn is_worker() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(WORKER_NAME))
}

/// The start of a worker thread's name.
pub(crate) const WORKER_NAME: &str = "parquet-flba-";
