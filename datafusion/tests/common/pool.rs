//! A memory pool that records every reservation: who reserved what, in
//! which order, and the most held at once; over a greedy pool of a given
//! size (or an unbounded one).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use datafusion::error::Result;
use datafusion::execution::memory_pool::{
    GreedyMemoryPool, MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
    UnboundedMemoryPool,
};

/// One change of a reservation.
#[derive(Debug, Clone)]
pub struct Event {
    /// The consumer's id.
    pub id: usize,
    pub name: String,
    /// The reservation's size after the change.
    pub size: usize,
}

#[derive(Debug, Default)]
struct Log {
    /// Consumers in the order they registered.
    consumers: Vec<(usize, String)>,
    sizes: HashMap<usize, usize>,
    events: Vec<Event>,
    total: usize,
    peak: usize,
    /// Names of the consumers that grew without asking (`grow`, which a
    /// bounded pool cannot refuse), once per grow.
    infallible: Vec<String>,
}

/// A recording pool.
#[derive(Debug)]
pub struct Recording {
    inner: Arc<dyn MemoryPool>,
    log: Mutex<Log>,
}

impl Recording {
    /// Over a greedy pool of `limit` bytes, or an unbounded one.
    pub fn new(limit: Option<usize>) -> Arc<Self> {
        let inner: Arc<dyn MemoryPool> = match limit {
            Some(limit) => Arc::new(GreedyMemoryPool::new(limit)),
            None => Arc::new(UnboundedMemoryPool::default()),
        };
        Arc::new(Self {
            inner,
            log: Mutex::new(Log::default()),
        })
    }

    /// The most bytes reserved at once.
    pub fn peak(&self) -> usize {
        self.log.lock().unwrap().peak
    }

    /// The consumers in the order they registered: (id, name).
    pub fn consumers(&self) -> Vec<(usize, String)> {
        self.log.lock().unwrap().consumers.clone()
    }

    /// The consumers (names starting with `prefix`) that grew without
    /// asking (`MemoryReservation::grow`: a bounded pool is exceeded rather
    /// than refusing), once per such grow.
    pub fn infallible_grows(&self, prefix: &str) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.infallible
            .iter()
            .filter(|n| n.starts_with(prefix))
            .cloned()
            .collect()
    }

    /// Every change, in order.
    pub fn events(&self) -> Vec<Event> {
        self.log.lock().unwrap().events.clone()
    }

    fn record(&self, reservation: &MemoryReservation, grown: isize) {
        let consumer = reservation.consumer();
        let mut log = self.log.lock().unwrap();
        let size = log.sizes.entry(consumer.id()).or_default();
        *size = size.checked_add_signed(grown).expect("reservation below 0");
        let size = *size;
        log.total = log.total.checked_add_signed(grown).expect("pool below 0");
        log.peak = log.peak.max(log.total);
        log.events.push(Event {
            id: consumer.id(),
            name: consumer.name().to_string(),
            size,
        });
    }
}

impl fmt::Display for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "recording({})", self.inner)
    }
}

impl MemoryPool for Recording {
    fn name(&self) -> &str {
        "recording"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.inner.register(consumer);
        let mut log = self.log.lock().unwrap();
        log.consumers
            .push((consumer.id(), consumer.name().to_string()));
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.inner.unregister(consumer);
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.inner.grow(reservation, additional);
        self.record(reservation, additional as isize);
        let name = reservation.consumer().name().to_string();
        self.log.lock().unwrap().infallible.push(name);
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.inner.shrink(reservation, shrink);
        self.record(reservation, -(shrink as isize));
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        self.inner.try_grow(reservation, additional)?;
        self.record(reservation, additional as isize);
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.inner.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.inner.memory_limit()
    }
}
