//! Writing the same scenario through `parquet::arrow` (the oracle) and
//! `parquet_flba`, with the same calls.
//!
//! Shared with the main crate's integration tests (`tests/common`, with
//! `#[path]`): it uses only crates the main crate depends on, and of the
//! harness only its sibling `release`.
//!
//! [`up`] and [`flba`] are generated from one macro, so the two sides cannot
//! drift apart: the module name and the memory listener (which only
//! `parquet_flba` has; see [`Listener`]) are the only differences.
//!
//! Both sides buffer their pages in the page store the scenario picks
//! ([`PageStoreChoice`]): parquet's default, `InMemoryPageStoreFactory`, or
//! a `SpillPageStoreFactory` (a fresh one per write, with a budget that
//! spills some or all pages); after each write every spill file must be
//! gone and the budget given back.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::file::properties::WriterProperties;
use parquet::schema::types::SchemaDescriptor;
use parquet_flba::MemoryListener;

use super::planned::{ColumnsPlanned, check_chunk};
use super::release::{PageStores, WithPageStores};

/// The spill store of a write, for its counters.
#[cfg(not(feature = "parquet-58"))]
type Spill = parquet_flba::SpillPageStoreFactory;
/// parquet 58 has no page stores (the scenario never picks one there).
#[cfg(feature = "parquet-58")]
type Spill = std::convert::Infallible;

/// Which public API writes the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Api {
    /// `ArrowWriter::write` per batch, `flush()` after the batches flagged,
    /// then `close()`.
    ArrowWriter {
        /// `flush_after[i]`: call `flush()` after batch `i`.
        flush_after: Vec<bool>,
    },
    /// The column-level flow of parallel writers: a `SerializedFileWriter`,
    /// an `ArrowRowGroupWriterFactory`, `compute_leaves` and one
    /// `ArrowColumnWriter` per leaf, a row group per group of batches.
    Columns {
        /// `new_group_after[i]`: start a new row group after batch `i`.
        new_group_after: Vec<bool>,
        /// Take the file writer and the factory from
        /// `ArrowWriter::into_serialized_writer` (so the writer options,
        /// page store included, apply) rather than from
        /// `SerializedFileWriter::new` + `ArrowRowGroupWriterFactory::new`.
        via_into_serialized: bool,
    },
}

/// Where the writers buffer a row group's finished pages.
#[derive(Clone, Debug, Default)]
pub enum PageStoreChoice {
    /// No page store factory in the options (parquet's default).
    #[default]
    Default,
    /// `InMemoryPageStoreFactory`, set explicitly.
    InMemory,
    /// A `SpillPageStoreFactory` with this memory budget (0 spills every
    /// page).
    Spill(usize),
    /// This factory, the same one for every write (a test's own store).
    Custom(PageStores),
}

impl PageStoreChoice {
    /// A fresh factory for one write: the spill factory too, for its
    /// counters (`None` for [`PageStoreChoice::Default`]).
    #[cfg(not(feature = "parquet-58"))]
    fn factory(&self) -> (Option<PageStores>, Option<Spill>) {
        match *self {
            PageStoreChoice::Default => (None, None),
            PageStoreChoice::InMemory => (
                Some(Arc::new(
                    parquet::arrow::arrow_writer::InMemoryPageStoreFactory,
                )),
                None,
            ),
            PageStoreChoice::Spill(budget) => {
                let spill = Spill::new(budget);
                (Some(Arc::new(spill.clone())), Some(spill))
            }
            PageStoreChoice::Custom(ref stores) => (Some(stores.clone()), None),
        }
    }

    /// No page stores under parquet 58: every choice is the default.
    #[cfg(feature = "parquet-58")]
    fn factory(&self) -> (Option<PageStores>, Option<Spill>) {
        match self {
            PageStoreChoice::Custom(never) => match *never {},
            _ => (None, None),
        }
    }
}

/// After a write through a spill store (finished or failed, the writer
/// dropped): every spill file removed and every in-memory page given back.
///
/// # Panics
///
/// When something is left.
fn check_spill_released(spill: Option<&Spill>, side: &str) {
    #[cfg(feature = "parquet-58")]
    if let Some(never) = spill {
        let _ = side;
        match *never {}
    }
    #[cfg(not(feature = "parquet-58"))]
    if let Some(spill) = spill {
        assert!(
            spill.spill_files() == 0 && spill.spilled_bytes() == 0 && spill.resident_bytes() == 0,
            "BUG: {side}'s spill store kept {} spill files ({} bytes) and {} resident bytes \
             after the writer was done",
            spill.spill_files(),
            spill.spilled_bytes(),
            spill.resident_bytes()
        );
    }
}

/// A [`MemoryListener`] without a limit that counts what it granted and
/// panics if more is given back than was granted.
#[derive(Debug, Default)]
pub struct Listener {
    held: AtomicUsize,
}

impl Listener {
    /// Bytes granted and not given back.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }
}

impl MemoryListener for Listener {
    fn try_grow(&self, bytes: usize) -> parquet::errors::Result<()> {
        self.held.fetch_add(bytes, Ordering::SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        let before = self.held.fetch_sub(bytes, Ordering::SeqCst);
        assert!(
            before >= bytes,
            "BUG: the writer gave back {bytes} bytes to its memory listener, which had \
             granted only {before}"
        );
    }
}

/// The reservation of a memory-accounted writer after a write or flush
/// (on one thread; after a flush on any): the listener's count, and
/// exactly the whole blocks that cover `memory_size()`.
fn check_reservation(reserved: usize, memory: usize, block: usize, listener: &Listener, at: &str) {
    let want = memory.div_ceil(block) * block;
    assert!(
        reserved == want && listener.held() == reserved,
        "BUG: after {at}: reserved_memory() = {reserved}, listener holds {}, memory_size() = \
         {memory}, expected {want} (blocks of {block})",
        listener.held()
    );
}

/// Sets the threads of `o` and attaches its memory listener (parquet_flba
/// only).
fn attach_listener<W: std::io::Write + Send>(
    wr: parquet_flba::ArrowWriter<W>,
    o: &Opts,
    listener: &Arc<Listener>,
) -> parquet_flba::ArrowWriter<W> {
    let wr = wr.with_threads(o.threads);
    let wr = match o.small_writes_inline {
        true => wr,
        false => wr.with_min_parallel_work(std::time::Duration::ZERO),
    };
    match o.memory_block {
        Some(block) => wr
            .with_memory_listener(listener.clone())
            .with_memory_reservation_block(block),
        None => wr,
    }
}

/// Checks the reservation of a parquet_flba writer that has a listener.
fn check_flba_reservation<W: std::io::Write + Send>(
    wr: &parquet_flba::ArrowWriter<W>,
    o: &Opts,
    listener: &Listener,
    at: &str,
) {
    let Some(block) = o.memory_block else {
        return;
    };
    if o.threads > 1 && at.starts_with("write") {
        // On several threads a write returns with work queued: its
        // reservation keeps room for it, and the columns reserve what they
        // come to hold beyond that themselves. Once the work is done
        // (`memory_size` waits for it), the reservation covers it.
        let memory = wr.memory_size();
        let reserved = wr.reserved_memory();
        assert!(
            reserved >= memory && listener.held() == reserved && reserved.is_multiple_of(block),
            "BUG: after {at} on {} threads: reserved_memory() = {reserved}, listener holds {}, \
             memory_size() = {memory} (blocks of {block})",
            o.threads,
            listener.held()
        );
        return;
    }
    check_reservation(wr.reserved_memory(), wr.memory_size(), block, listener, at);
}

/// parquet's writer has no memory listener.
fn no_listener<W: std::io::Write + Send>(
    wr: parquet::arrow::ArrowWriter<W>,
    _: &Opts,
    _: &Arc<Listener>,
) -> parquet::arrow::ArrowWriter<W> {
    wr
}

/// parquet's writer has no memory listener.
fn no_reservation<W: std::io::Write + Send>(
    _: &parquet::arrow::ArrowWriter<W>,
    _: &Opts,
    _: &Listener,
    _: &str,
) {
}

/// A parquet_flba writer's plan against what this crate writes
/// ([`check_plan_fast`](super::planned::check_plan_fast): a plan that sends
/// everything to parquet fails it), and what ran against the plan, after
/// `finish`.
fn check_plan<W: std::io::Write + Send>(
    wr: &parquet_flba::ArrowWriter<W>,
    row_groups: usize,
    o: &Opts,
) -> Result<(), String> {
    super::planned::check_plan_fast(wr.column_plan(), &o.props, o.parquet_schema.is_some())?;
    check_ran_as_planned(wr.column_plan(), &wr.leaf_chunks(), row_groups)
}

/// parquet's writer has no plan.
fn no_plan<W: std::io::Write + Send>(
    _: &parquet::arrow::ArrowWriter<W>,
    _: usize,
    _: &Opts,
) -> Result<(), String> {
    Ok(())
}

/// The one check of "what ran equals the plan", for any writer of
/// `parquet_flba` (`ArrowWriter`, `AsyncArrowWriter`): `Err` naming the
/// first leaf of `plan` whose chunks (`ran`, from the writer's
/// `leaf_chunks()`) came from another writer than the plan says, for a file
/// of `row_groups` row groups. Identical bytes cannot tell the fast path
/// from a fallback; this can.
pub fn check_ran_as_planned(
    plan: &parquet_flba::ColumnPlan,
    ran: &[parquet_flba::LeafChunks],
    row_groups: usize,
) -> Result<(), String> {
    use parquet_flba::{LeafChunks, LeafPath};
    for (i, leaf) in plan.leaves().iter().enumerate() {
        let chunks = ran.get(i).copied().unwrap_or_default();
        let as_planned = match leaf.path() {
            // Every row group's chunk of a fast leaf came from this
            // crate's writer.
            LeafPath::Fast => chunks.fast_path == row_groups && chunks.parquet_path == 0,
            // None of a delegated leaf's did (an inner `parquet` writer
            // may have written it whole: no chunk counted).
            LeafPath::Parquet => chunks.fast_path == 0,
        };
        if !as_planned {
            let LeafChunks {
                fast_path,
                parquet_path,
                ..
            } = chunks;
            return Err(format!(
                "leaf {i} ({}) is planned {:?} but {fast_path} of its chunks came from the fast \
                 writer and {parquet_path} from parquet's ({row_groups} row groups)",
                leaf.column_path().string(),
                leaf.path()
            ));
        }
    }
    Ok(())
}

/// Everything `ArrowWriterOptions` carries that the harness varies.
#[derive(Clone, Debug, Default)]
pub struct Opts {
    /// Writer properties.
    pub props: WriterProperties,
    /// `with_skip_arrow_metadata`.
    pub skip_arrow_metadata: bool,
    /// `with_schema_root`.
    pub schema_root: Option<String>,
    /// `with_parquet_schema`.
    pub parquet_schema: Option<SchemaDescriptor>,
    /// `with_page_store_factory`, on both sides.
    pub page_store: PageStoreChoice,
    /// `parquet_flba` only: attach a [`Listener`] with this reservation
    /// block size (`ArrowWriter` API; the file must not change).
    pub memory_block: Option<usize>,
    /// `parquet_flba` only: `with_threads` (`ArrowWriter` API; 0 and 1
    /// are one thread; the file and the writer's state after each write
    /// must not change).
    pub threads: usize,
    /// `parquet_flba` only, with threads: keep `with_min_parallel_work` at
    /// its default (small writes stay on the calling thread); otherwise
    /// `Duration::ZERO`, every write handed to the threads.
    pub small_writes_inline: bool,
}

impl Opts {
    /// Options with just these properties.
    pub fn props(props: WriterProperties) -> Self {
        Self {
            props,
            ..Default::default()
        }
    }
}

/// The writer's observable state after one write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// `in_progress_size()` (or, column level, the sum of
    /// `get_estimated_total_bytes()`).
    pub in_progress_size: usize,
    /// `in_progress_rows()` (0 at the column level).
    pub in_progress_rows: usize,
    /// `bytes_written()`.
    pub bytes_written: usize,
    /// `flushed_row_groups().len()`.
    pub flushed_row_groups: usize,
}

impl Step {
    /// Whether parquet_flba's state after a write (`self`, written on
    /// `threads` threads) is parquet's (`upstream`): the same, except
    /// that on several threads a row group that a write filled may be
    /// spliced into the output by a later call (`flushed_row_groups()`
    /// one behind; its bytes already count in `bytes_written()`).
    pub fn matches(&self, upstream: &Step, threads: usize) -> bool {
        let lag = upstream
            .flushed_row_groups
            .checked_sub(self.flushed_row_groups);
        let allowed = if threads > 1 { 1 } else { 0 };
        (
            self.in_progress_size,
            self.in_progress_rows,
            self.bytes_written,
        ) == (
            upstream.in_progress_size,
            upstream.in_progress_rows,
            upstream.bytes_written,
        ) && lag.is_some_and(|l| l <= allowed)
    }

    /// [`Self::matches`] over every write.
    pub fn all_match(ours: &[Step], upstream: &[Step], threads: usize) -> bool {
        ours.len() == upstream.len()
            && ours
                .iter()
                .zip(upstream)
                .all(|(o, u)| o.matches(u, threads))
    }
}

/// A file written by one implementation.
#[derive(Debug)]
pub struct Written {
    /// The file.
    pub bytes: Vec<u8>,
    /// The state after each write.
    pub steps: Vec<Step>,
    /// `memory_size()` after each write (column level: the sum over the
    /// column writers).
    pub memory: Vec<usize>,
    /// The file's metadata as `finish()` returned it, `Debug`-formatted.
    pub metadata: String,
    /// `finish()`'s row-group count.
    pub num_row_groups: usize,
    /// `finish()`'s total row count.
    pub num_rows: i64,
}

impl Written {
    /// What a writer wrote and returned from `finish()`.
    fn new(
        bytes: Vec<u8>,
        steps: Vec<Step>,
        memory: Vec<usize>,
        md: &parquet::file::metadata::ParquetMetaData,
    ) -> Self {
        Self {
            bytes,
            steps,
            memory,
            metadata: format!("{md:?}"),
            num_row_groups: md.num_row_groups(),
            num_rows: md.file_metadata().num_rows(),
        }
    }
}

/// Where writing failed, and how.
#[derive(Debug)]
pub struct Failed {
    /// The step: `try_new`, `write #i`, `close`, ...
    pub at: String,
    /// The error.
    pub error: String,
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.error)
    }
}

/// Attach the step name to a `ParquetError`.
fn at<T>(step: impl Into<String>, r: parquet::errors::Result<T>) -> Result<T, Failed> {
    r.map_err(|e| Failed {
        at: step.into(),
        error: e.to_string(),
    })
}

macro_rules! writer_impl {
    ($modname:ident, $attach:ident, $check:ident, $planned:ident, $($path:ident)::+) => {
        /// Writes through one implementation (the module's name says which).
        pub mod $modname {
            use super::*;
            use parquet::arrow::ArrowSchemaConverter;
            use parquet::file::writer::SerializedFileWriter;
            use $($path)::+ as w;

            /// This implementation's `ArrowWriterOptions` for `o`, with
            /// `store` as its page store factory.
            pub fn options(
                o: &Opts,
                store: Option<PageStores>,
            ) -> w::ArrowWriterOptions {
                let mut opts = w::ArrowWriterOptions::new()
                    .with_properties(o.props.clone())
                    .with_skip_arrow_metadata(o.skip_arrow_metadata);
                if let Some(root) = &o.schema_root {
                    opts = opts.with_schema_root(root.clone());
                }
                if let Some(schema) = &o.parquet_schema {
                    opts = opts.with_parquet_schema(schema.clone());
                }
                opts = opts.with_page_stores(store);
                opts
            }

            /// A new `ArrowWriter` over `sink` with the options of `o`, a
            /// fresh page store of its choice included.
            pub fn writer<W: std::io::Write + Send>(
                sink: W,
                schema: &SchemaRef,
                o: &Opts,
            ) -> parquet::errors::Result<w::ArrowWriter<W>> {
                let (store, _) = o.page_store.factory();
                w::ArrowWriter::try_new_with_options(sink, schema.clone(), options(o, store))
            }

            /// The state of an `ArrowWriter`.
            pub fn step<W: std::io::Write + Send>(wr: &w::ArrowWriter<W>) -> Step {
                Step {
                    in_progress_size: wr.in_progress_size(),
                    in_progress_rows: wr.in_progress_rows(),
                    bytes_written: wr.bytes_written(),
                    flushed_row_groups: wr.flushed_row_groups().len(),
                }
            }

            /// Write `batches` through `api`, with the page store (a
            /// fresh one) and, for parquet_flba, the memory listener of
            /// `o`.
            ///
            /// # Panics
            ///
            /// When a spill store keeps files or memory once the writer is
            /// done, or a memory reservation is off (see the module docs).
            pub fn write(
                schema: &SchemaRef,
                batches: &[RecordBatch],
                o: &Opts,
                api: &Api,
            ) -> Result<Written, Failed> {
                let (store, spill) = o.page_store.factory();
                let listener = Arc::new(Listener::default());
                let written = match api {
                    Api::ArrowWriter { flush_after } => {
                        write_rows(schema, batches, o, store, flush_after, &listener)
                    }
                    Api::Columns {
                        new_group_after,
                        via_into_serialized,
                    } => write_columns(schema, batches, o, store, new_group_after, *via_into_serialized),
                };
                check_spill_released(spill.as_ref(), stringify!($modname));
                assert!(
                    listener.held() == 0,
                    "BUG: the writer kept {} bytes of its memory reservation after it was done",
                    listener.held()
                );
                written
            }

            fn write_rows(
                schema: &SchemaRef,
                batches: &[RecordBatch],
                o: &Opts,
                store: Option<PageStores>,
                flush_after: &[bool],
                listener: &Arc<Listener>,
            ) -> Result<Written, Failed> {
                let mut bytes = Vec::new();
                let wr = at(
                    "try_new_with_options",
                    w::ArrowWriter::try_new_with_options(&mut bytes, schema.clone(), options(o, store)),
                )?;
                let mut wr = $attach(wr, o, listener);
                let mut steps = Vec::new();
                let mut memory = Vec::new();
                for (i, b) in batches.iter().enumerate() {
                    at(format!("write #{i}"), wr.write(b))?;
                    $check(&wr, o, listener, &format!("write #{i}"));
                    if flush_after.get(i).copied().unwrap_or(false) {
                        at(format!("flush after #{i}"), wr.flush())?;
                        $check(&wr, o, listener, &format!("flush after #{i}"));
                    }
                    steps.push(step(&wr));
                    memory.push(wr.memory_size());
                }
                let md = at("close", wr.finish())?;
                $planned(&wr, md.num_row_groups(), o).map_err(|error| Failed {
                    at: "what ran against the plan".into(),
                    error,
                })?;
                drop(wr);
                Ok(Written::new(bytes, steps, memory, &md))
            }

            /// The file writer and row-group writer factory of the
            /// column-level flow.
            fn column_writers(
                schema: &SchemaRef,
                o: &Opts,
                store: Option<PageStores>,
                via_into_serialized: bool,
            ) -> Result<(SerializedFileWriter<Vec<u8>>, w::ArrowRowGroupWriterFactory), Failed> {
                if via_into_serialized {
                    let wr = at(
                        "try_new_with_options",
                        w::ArrowWriter::try_new_with_options(
                            Vec::new(),
                            schema.clone(),
                            options(o, store),
                        ),
                    )?;
                    return at("into_serialized_writer", wr.into_serialized_writer());
                }
                let props = &o.props;
                let parquet_schema = at(
                    "convert schema",
                    ArrowSchemaConverter::new()
                        .with_coerce_types(props.coerce_types())
                        .convert(schema),
                )?;
                let fw = at(
                    "SerializedFileWriter::new",
                    SerializedFileWriter::new(
                        Vec::new(),
                        parquet_schema.root_schema_ptr(),
                        Arc::new(props.clone()),
                    ),
                )?;
                // parquet 60.2 deprecates `new` for `try_new`, which 60.1 and earlier lack.
                #[allow(deprecated)]
                let factory = w::ArrowRowGroupWriterFactory::new(&fw, schema.clone());
                Ok((fw, factory))
            }

            fn write_columns(
                schema: &SchemaRef,
                batches: &[RecordBatch],
                o: &Opts,
                store: Option<PageStores>,
                new_group_after: &[bool],
                via_into_serialized: bool,
            ) -> Result<Written, Failed> {
                let (mut fw, factory) = column_writers(schema, o, store, via_into_serialized)?;
                // What this crate writes is planned fast (parquet's factory
                // has no plan), and each chunk comes from the planned writer.
                let explicit_schema = via_into_serialized && o.parquet_schema.is_some();
                factory
                    .check_plan_fast(&o.props, explicit_schema)
                    .map_err(|error| Failed {
                        at: "the factory's plan".into(),
                        error,
                    })?;
                let mut groups: Vec<&[RecordBatch]> = Vec::new();
                let mut start = 0;
                for i in 0..batches.len() {
                    if i + 1 == batches.len() || new_group_after.get(i).copied().unwrap_or(false) {
                        groups.push(&batches[start..=i]);
                        start = i + 1;
                    }
                }
                let mut steps = Vec::new();
                let mut memory = Vec::new();
                for (g, group) in groups.iter().enumerate() {
                    let mut writers = at(
                        format!("create_column_writers({g})"),
                        factory.create_column_writers(g),
                    )?;
                    for (i, b) in group.iter().enumerate() {
                        let mut leaf_index = 0;
                        for (field, col) in schema.fields().iter().zip(b.columns()) {
                            let leaves = at(
                                format!("compute_leaves of {} in group {g} batch {i}", field.name()),
                                w::compute_leaves(field, col),
                            )?;
                            for leaf in leaves {
                                let cw = writers.get_mut(leaf_index).ok_or_else(|| Failed {
                                    at: format!("group {g} batch {i}"),
                                    error: "more leaves than column writers".into(),
                                })?;
                                at(
                                    format!("column {leaf_index} write in group {g} batch {i}"),
                                    cw.write(&leaf),
                                )?;
                                leaf_index += 1;
                            }
                        }
                        steps.push(Step {
                            in_progress_size: writers
                                .iter()
                                .map(|c| c.get_estimated_total_bytes())
                                .sum(),
                            in_progress_rows: 0,
                            bytes_written: fw.bytes_written(),
                            flushed_row_groups: fw.flushed_row_groups().len(),
                        });
                        memory.push(writers.iter().map(|c| c.memory_size()).sum());
                    }
                    let mut rg = at(format!("next_row_group {g}"), fw.next_row_group())?;
                    for (c, cw) in writers.into_iter().enumerate() {
                        let chunk = at(format!("close column {c} of group {g}"), cw.close())?;
                        check_chunk(&factory, c, &chunk).map_err(|error| Failed {
                            at: format!("column {c} of group {g} against the plan"),
                            error,
                        })?;
                        at(
                            format!("append column {c} of group {g}"),
                            chunk.append_to_row_group(&mut rg),
                        )?;
                    }
                    at(format!("close row group {g}"), rg.close())?;
                }
                let md = at("finish", fw.finish())?;
                // `into_inner` would write the footer a second time (and
                // fail: "already finished").
                let bytes = fw.inner().clone();
                Ok(Written::new(bytes, steps, memory, &md))
            }
        }
    };
}

writer_impl!(
    up,
    no_listener,
    no_reservation,
    no_plan,
    parquet::arrow::arrow_writer
);
writer_impl!(
    flba,
    attach_listener,
    check_flba_reservation,
    check_plan,
    parquet_flba
);
