//! [`LevelStore`]: one leaf's definition or repetition levels while they are
//! produced, kept as a single repeated value for as long as `parquet` would.

use super::LevelData;

/// Levels under construction.
///
/// The states mirror what `parquet` keeps: nothing yet, one value repeated,
/// or a buffer. [`LevelStore::push_run`] keeps the repeated form while the
/// value does not change; [`LevelStore::buffer`] gives it up for good.
#[derive(Debug)]
pub(super) enum LevelStore {
    /// The leaf has no such levels (max level 0): everything is dropped.
    Off,
    /// No level yet.
    Empty,
    /// `count` (> 0) levels, all `value`, each appended as part of a run.
    Repeated { value: i16, count: usize },
    /// Levels as a buffer.
    Buffer(Vec<i16>),
}

impl LevelStore {
    /// An empty store, or [`LevelStore::Off`] when `max_level` is 0.
    pub(super) fn new(max_level: i16) -> Self {
        if max_level == 0 {
            Self::Off
        } else {
            Self::Empty
        }
    }

    /// Appends `count` copies of `value`.
    pub(super) fn push_run(&mut self, value: i16, count: usize) {
        if count == 0 {
            return;
        }
        match self {
            Self::Off => {}
            Self::Empty => *self = Self::Repeated { value, count },
            Self::Buffer(buf) if buf.is_empty() => *self = Self::Repeated { value, count },
            Self::Repeated { value: v, count: c } if *v == value => *c += count,
            Self::Repeated { .. } => {
                if let Some(buf) = self.buffer() {
                    buf.resize(buf.len() + count, value);
                }
            }
            Self::Buffer(buf) => buf.resize(buf.len() + count, value),
        }
    }

    /// The levels as a buffer to append to or patch (converting a repeated
    /// value into one); `None` when the store is [`LevelStore::Off`].
    ///
    /// An empty buffer still takes a run as a repeated value, as `parquet`'s
    /// empty buffer does.
    pub(super) fn buffer(&mut self) -> Option<&mut Vec<i16>> {
        match self {
            Self::Off => return None,
            Self::Empty => *self = Self::Buffer(Vec::new()),
            Self::Repeated { value, count } => *self = Self::Buffer(vec![*value; *count]),
            Self::Buffer(_) => {}
        }
        match self {
            Self::Buffer(buf) => Some(buf),
            _ => None,
        }
    }

    /// The finished levels.
    pub(super) fn finish(self) -> LevelData {
        match self {
            Self::Off => LevelData::Absent,
            Self::Empty => LevelData::Materialized(Vec::new()),
            Self::Repeated { value, count } => LevelData::Uniform { value, count },
            Self::Buffer(buf) => LevelData::Materialized(buf),
        }
    }
}
