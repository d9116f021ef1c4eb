//! [`ArrowRowGroupWriterFactory`]: decides, per top-level field, whether its
//! leaf goes through this crate's FIXED_LEN_BYTE_ARRAY writer or through
//! `parquet`'s own column writer, and creates the writers of each row group.
//!
//! A field takes the fast path when it is a single FIXED_LEN_BYTE_ARRAY leaf
//! (no nesting, no dictionary or run-end-encoded schema type) whose Parquet
//! descriptor is exactly what `parquet`'s schema converter makes of its Arrow
//! type. Every other field is delegated: `parquet`'s writers for those fields
//! come from a `parquet` factory over the same schema, so their output is
//! unchanged.

use crate::column::{ArrowColumnWriter, WriterInner};
use crate::leaf::{FlbaColumnWriter, LeafShape};
use crate::values::{FlbaKind, decimal_width};
use arrow_schema::{DataType, Field, IntervalUnit, Schema, SchemaRef};
use parquet::arrow::arrow_writer::{
    self as upstream, InMemoryPageStore, PageStore, PageStoreArgs, PageStoreFactory,
};
use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as PhysicalType};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterPropertiesPtr;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnDescPtr, ColumnDescriptor, Type, TypePtr};
use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// How one top-level field is written.
#[derive(Debug, Clone)]
pub(crate) enum FieldPlan {
    /// One FLBA leaf on the fast path.
    Fast { kind: FlbaKind, leaf: usize },
    /// `leaves` leaves through `parquet`'s writers.
    Delegated { leaves: usize },
    /// A nested or dictionary-typed field: leaves whose kind is given take
    /// the fast path with levels computed by this crate, the others go
    /// through `parquet`'s writers.
    Leveled {
        first_leaf: usize,
        fast: Vec<Option<FlbaKind>>,
    },
}

impl FieldPlan {
    /// Number of Parquet leaves of this field.
    pub(crate) fn leaf_count(&self) -> usize {
        match self {
            Self::Fast { .. } => 1,
            Self::Delegated { leaves } => *leaves,
            Self::Leveled { fast, .. } => fast.len(),
        }
    }

    /// Whether `parquet`'s writers are needed for some leaf of this field.
    pub(crate) fn needs_upstream(&self) -> bool {
        match self {
            Self::Fast { .. } => false,
            Self::Delegated { .. } => true,
            Self::Leveled { fast, .. } => fast.iter().any(Option::is_none),
        }
    }

    /// Whether every leaf of this field takes the fast path.
    pub(crate) fn all_fast(&self) -> bool {
        !self.needs_upstream()
    }
}

/// Creates the column writers of each row group, see [`ArrowColumnWriter`].
///
/// Same as `parquet::arrow::arrow_writer::ArrowRowGroupWriterFactory`: create
/// it from the file writer with [`Self::new`] (or get it from
/// [`ArrowWriter::into_serialized_writer`](crate::ArrowWriter::into_serialized_writer)).
pub struct ArrowRowGroupWriterFactory {
    columns: Vec<ColumnDescPtr>,
    props: WriterPropertiesPtr,
    arrow_schema: SchemaRef,
    mode: Mode,
}

enum Mode {
    /// Every leaf through `parquet`'s writers (encryption, or a schema this
    /// crate does not map field by field).
    Upstream(upstream::ArrowRowGroupWriterFactory),
    /// Fast FLBA leaves; the other fields through a `parquet` factory over
    /// the sub-schema of delegated fields (`None` if there are none).
    Split {
        plan: Vec<FieldPlan>,
        root: TypePtr,
        delegated: Option<upstream::ArrowRowGroupWriterFactory>,
        /// With a page store factory: a `parquet` factory over the whole schema,
        /// so every store is created with its true column index.
        routed: Option<Routed>,
    },
}

struct Routed {
    factory: upstream::ArrowRowGroupWriterFactory,
    stash: Arc<Stash>,
}

impl std::fmt::Debug for ArrowRowGroupWriterFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plan = match &self.mode {
            Mode::Upstream(_) => None,
            Mode::Split { plan, .. } => Some(plan),
        };
        f.debug_struct("ArrowRowGroupWriterFactory")
            .field("arrow_schema", &self.arrow_schema)
            .field("plan", &plan)
            .finish_non_exhaustive()
    }
}

impl ArrowRowGroupWriterFactory {
    /// Creates a factory for the given file writer and Arrow schema.
    pub fn new<W: Write + Send>(
        file_writer: &SerializedFileWriter<W>,
        arrow_schema: SchemaRef,
    ) -> Self {
        let props = Arc::clone(file_writer.properties());
        let descr = file_writer.schema_descr();
        let columns = descr.columns().to_vec();
        let root = descr.root_schema_ptr();
        let mode = match plan_fields(&arrow_schema, &root, &columns, &props) {
            Some(plan) if !encrypted(&props) => {
                match delegated_factory(&plan, &arrow_schema, &root, &props) {
                    Ok(delegated) => Mode::Split {
                        plan,
                        root,
                        delegated,
                        routed: None,
                    },
                    Err(_) => Mode::Upstream(upstream::ArrowRowGroupWriterFactory::new(
                        file_writer,
                        arrow_schema.clone(),
                    )),
                }
            }
            _ => Mode::Upstream(upstream::ArrowRowGroupWriterFactory::new(
                file_writer,
                arrow_schema.clone(),
            )),
        };
        Self {
            columns,
            props,
            arrow_schema,
            mode,
        }
    }

    /// Sets the [`PageStoreFactory`] that holds each column chunk's finished
    /// pages until the row group is written (default: in memory).
    pub fn with_page_store_factory(
        mut self,
        page_store_factory: Arc<dyn PageStoreFactory>,
    ) -> Self {
        self.mode = match self.mode {
            Mode::Upstream(f) => Mode::Upstream(f.with_page_store_factory(page_store_factory)),
            Mode::Split {
                plan,
                root,
                delegated,
                ..
            } => {
                let fast: Vec<usize> = plan
                    .iter()
                    .flat_map(|p| match p {
                        FieldPlan::Fast { leaf, .. } => vec![*leaf],
                        FieldPlan::Leveled { first_leaf, fast } => fast
                            .iter()
                            .enumerate()
                            .filter(|(_, k)| k.is_some())
                            .map(|(i, _)| first_leaf + i)
                            .collect(),
                        FieldPlan::Delegated { .. } => vec![],
                    })
                    .collect();
                let stash = Arc::new(Stash {
                    inner: page_store_factory,
                    fast,
                    stores: Mutex::new(HashMap::new()),
                    handoff: Mutex::new(Vec::new()),
                    handed: Mutex::new(HashMap::new()),
                    creating: Mutex::new(()),
                });
                let routed = dummy_writer(&root, &self.props).map(|w| Routed {
                    factory: upstream::ArrowRowGroupWriterFactory::new(
                        &w,
                        self.arrow_schema.clone(),
                    )
                    .with_page_store_factory(stash.clone()),
                    stash,
                });
                match routed {
                    Ok(routed) => Mode::Split {
                        plan,
                        root,
                        delegated,
                        routed: Some(routed),
                    },
                    Err(_) => Mode::Split {
                        plan,
                        root,
                        delegated,
                        routed: None,
                    },
                }
            }
        };
        self
    }

    /// Creates the column writers of row group `row_group_index`, one per
    /// Parquet leaf, in schema order.
    pub fn create_column_writers(&self, row_group_index: usize) -> Result<Vec<ArrowColumnWriter>> {
        match &self.mode {
            Mode::Upstream(f) => Ok(f
                .create_column_writers(row_group_index)?
                .into_iter()
                .map(|w| ArrowColumnWriter(WriterInner::Upstream(w)))
                .collect()),
            Mode::Split {
                plan,
                delegated,
                routed: None,
                ..
            } => {
                let mut others = match delegated {
                    Some(f) => f.create_column_writers(row_group_index)?,
                    None => Vec::new(),
                }
                .into_iter();
                let mut out = Vec::with_capacity(self.columns.len());
                let mut next_other = || {
                    others.next().ok_or_else(|| {
                        ParquetError::General("missing delegated column writer".into())
                    })
                };
                for p in plan {
                    match p {
                        FieldPlan::Fast { kind, leaf } => {
                            out.push(self.fast_writer(*kind, *leaf, None)?)
                        }
                        FieldPlan::Delegated { leaves } => {
                            for _ in 0..*leaves {
                                out.push(ArrowColumnWriter(WriterInner::Upstream(next_other()?)));
                            }
                        }
                        FieldPlan::Leveled { first_leaf, fast } => {
                            let upstream = p.needs_upstream();
                            for (i, kind) in fast.iter().enumerate() {
                                let theirs = if upstream { Some(next_other()?) } else { None };
                                out.push(match (kind, theirs) {
                                    (Some(kind), _) => {
                                        self.fast_writer(*kind, first_leaf + i, None)?
                                    }
                                    (None, Some(w)) => ArrowColumnWriter(WriterInner::Upstream(w)),
                                    (None, None) => unreachable!("a delegated leaf has a writer"),
                                });
                            }
                        }
                    }
                }
                Ok(out)
            }
            Mode::Split {
                plan,
                routed: Some(routed),
                ..
            } => {
                let _creating = routed
                    .stash
                    .creating
                    .lock()
                    .map_err(|_| ParquetError::General("page store lock poisoned".into()))?;
                let all = routed.factory.create_column_writers(row_group_index)?;
                let mut stores =
                    std::mem::take(
                        &mut *routed.stash.stores.lock().map_err(|_| {
                            ParquetError::General("page store lock poisoned".into())
                        })?,
                    );
                let handoff = routed.stash.handoff.lock().map_err(poisoned)?.clone();
                let mut all = all.into_iter().enumerate();
                let mut out = Vec::with_capacity(self.columns.len());
                for p in plan {
                    match p {
                        FieldPlan::Fast { kind, leaf } => {
                            let theirs = all.next();
                            if handoff.contains(leaf) {
                                // Written by another writer (whose store this is not).
                                let (_, w) = theirs.ok_or_else(|| {
                                    ParquetError::General("missing delegated column writer".into())
                                })?;
                                out.push(ArrowColumnWriter(WriterInner::Upstream(w)));
                                continue;
                            }
                            let store = stores.remove(leaf).ok_or_else(|| {
                                ParquetError::General("page store was not created".into())
                            })?;
                            out.push(self.fast_writer(*kind, *leaf, Some(store))?);
                        }
                        FieldPlan::Delegated { leaves } => {
                            for _ in 0..*leaves {
                                let (_, w) = all.next().ok_or_else(|| {
                                    ParquetError::General("missing delegated column writer".into())
                                })?;
                                out.push(ArrowColumnWriter(WriterInner::Upstream(w)));
                            }
                        }
                        FieldPlan::Leveled { first_leaf, fast } => {
                            for (i, kind) in fast.iter().enumerate() {
                                let (_, w) = all.next().ok_or_else(|| {
                                    ParquetError::General("missing delegated column writer".into())
                                })?;
                                let leaf = first_leaf + i;
                                out.push(match kind {
                                    Some(kind) if !handoff.contains(&leaf) => {
                                        let store = stores.remove(&leaf).ok_or_else(|| {
                                            ParquetError::General(
                                                "page store was not created".into(),
                                            )
                                        })?;
                                        self.fast_writer(*kind, leaf, Some(store))?
                                    }
                                    _ => ArrowColumnWriter(WriterInner::Upstream(w)),
                                });
                            }
                        }
                    }
                }
                Ok(out)
            }
        }
    }

    /// The column writers of row group `row_group_index` for the leaves
    /// `keep(leaf)` accepts (which must all be on the fast path), with their
    /// leaf indices. Without a page store factory, the other leaves' writers
    /// are not created at all (with one, every store is still created, in
    /// order, so the factory sees what `parquet`'s writer would make it
    /// create).
    pub(crate) fn create_column_writers_of(
        &self,
        row_group_index: usize,
        keep: impl Fn(usize) -> bool,
    ) -> Result<Vec<(usize, ArrowColumnWriter)>> {
        let Mode::Split {
            plan, routed: None, ..
        } = &self.mode
        else {
            return Ok(self
                .create_column_writers(row_group_index)?
                .into_iter()
                .enumerate()
                .filter(|(leaf, _)| keep(*leaf))
                .collect());
        };
        let mut out = Vec::new();
        let mut leaf = 0;
        for p in plan {
            let kinds = (0..p.leaf_count()).map(|i| match p {
                FieldPlan::Fast { kind, .. } => Some(*kind),
                FieldPlan::Leveled { fast, .. } => fast[i],
                FieldPlan::Delegated { .. } => None,
            });
            for kind in kinds {
                if keep(leaf) {
                    let kind = kind.ok_or_else(|| {
                        ParquetError::General(format!(
                            "leaf {leaf} needs parquet's writers and was not handed off"
                        ))
                    })?;
                    out.push((leaf, self.fast_writer(kind, leaf, None)?));
                }
                leaf += 1;
            }
        }
        debug_assert_eq!(leaf, self.columns.len());
        Ok(out)
    }

    fn fast_writer(
        &self,
        kind: FlbaKind,
        leaf: usize,
        store: Option<Box<dyn PageStore>>,
    ) -> Result<ArrowColumnWriter> {
        let writer =
            FlbaColumnWriter::try_new(self.columns[leaf].clone(), &self.props, kind, store)?;
        Ok(ArrowColumnWriter(WriterInner::Flba(Box::new(writer))))
    }

    /// The user's page store factory, if one was set.
    pub(crate) fn page_store_factory(&self) -> Option<Arc<dyn PageStoreFactory>> {
        match &self.mode {
            Mode::Split {
                routed: Some(r), ..
            } => Some(Arc::clone(&r.stash.inner)),
            _ => None,
        }
    }

    /// From now on, the page stores this factory creates for `leaves` (file
    /// leaf indices) are kept for another `parquet` writer of those leaves
    /// alone (whose leaf `i` is `leaves[i]`), which gets them from the
    /// returned factory. So the user's factory sees each store created once,
    /// in file order and with its true column index, as `parquet`'s writer
    /// would create them. None if no page store factory was set.
    pub(crate) fn hand_off_page_stores(
        &self,
        leaves: Vec<usize>,
    ) -> Option<Arc<dyn PageStoreFactory>> {
        let Mode::Split {
            routed: Some(r), ..
        } = &self.mode
        else {
            return None;
        };
        match r.stash.handoff.lock() {
            Ok(mut h) => *h = leaves.clone(),
            Err(_) => return None,
        }
        Some(Arc::new(Handoff {
            stash: Arc::clone(&r.stash),
            leaves,
        }))
    }

    /// What validation needs to know about fast leaf `leaf`.
    pub(crate) fn shape(&self, kind: FlbaKind, leaf: usize) -> LeafShape {
        let descr = &self.columns[leaf];
        LeafShape {
            kind,
            width: descr.type_length().max(0) as usize,
            max_def: descr.max_def_level(),
        }
    }

    /// The per-field plan, if fields are split between the two paths.
    pub(crate) fn plan(&self) -> Option<&[FieldPlan]> {
        match &self.mode {
            Mode::Upstream(_) => None,
            Mode::Split { plan, .. } => Some(plan),
        }
    }
}

#[cfg(feature = "encryption")]
fn encrypted(props: &WriterPropertiesPtr) -> bool {
    props.file_encryption_properties().is_some()
}

#[cfg(not(feature = "encryption"))]
fn encrypted(_props: &WriterPropertiesPtr) -> bool {
    false
}

/// Number of Parquet leaves `parquet`'s Arrow writer makes of a data type.
pub(crate) fn leaf_count(data_type: &DataType) -> Option<usize> {
    Some(match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => leaf_count(f.data_type())?,
        DataType::Struct(fields) => {
            let mut n = 0;
            for f in fields {
                n += leaf_count(f.data_type())?;
            }
            n
        }
        DataType::Map(f, _) => match f.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                leaf_count(kv[0].data_type())? + leaf_count(kv[1].data_type())?
            }
            _ => return None,
        },
        DataType::Dictionary(_, v) => match v.as_ref() {
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::Utf8View
            | DataType::BinaryView => 1,
            v => leaf_count(v)?,
        },
        DataType::RunEndEncoded(_, v) => leaf_count(v.data_type())?,
        t if t.is_primitive() => 1,
        DataType::FixedSizeBinary(_)
        | DataType::Boolean
        | DataType::Null
        | DataType::LargeBinary
        | DataType::Binary
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::BinaryView
        | DataType::Utf8View => 1,
        _ => return None,
    })
}

fn count_parquet_leaves(t: &Type) -> usize {
    match t {
        Type::PrimitiveType { .. } => 1,
        Type::GroupType { fields, .. } => fields.iter().map(|f| count_parquet_leaves(f)).sum(),
    }
}

/// Plans every field, or None when the Arrow and Parquet schemas do not line
/// up field by field (then everything is delegated).
fn plan_fields(
    arrow_schema: &Schema,
    root: &TypePtr,
    columns: &[ColumnDescPtr],
    props: &WriterPropertiesPtr,
) -> Option<Vec<FieldPlan>> {
    let top = root.get_fields();
    if top.len() != arrow_schema.fields().len() {
        return None;
    }
    let mut plan = Vec::with_capacity(top.len());
    let mut leaf = 0;
    for (field, parquet_field) in arrow_schema.fields().iter().zip(top) {
        let leaves = leaf_count(field.data_type())?;
        if leaves != count_parquet_leaves(parquet_field) {
            return None;
        }
        let flat = (leaves == 1)
            .then(|| fast_kind(field, &columns[leaf], props))
            .flatten();
        plan.push(match flat {
            Some(kind) => FieldPlan::Fast { kind, leaf },
            None => {
                let mut types = Vec::with_capacity(leaves);
                leaf_types(field.data_type(), &mut types);
                let fast: Vec<Option<FlbaKind>> = types
                    .iter()
                    .zip(&columns[leaf..leaf + leaves])
                    .map(|(t, descr)| leaf_kind(t, descr))
                    .collect();
                if fast.iter().any(Option::is_some) && types.len() == leaves {
                    FieldPlan::Leveled {
                        first_leaf: leaf,
                        fast,
                    }
                } else {
                    FieldPlan::Delegated { leaves }
                }
            }
        });
        leaf += leaves;
    }
    (leaf == columns.len()).then_some(plan)
}

/// The Arrow leaf types of a data type, depth first (dictionary and
/// run-end-encoded wrappers looked through), as `parquet` enumerates leaves.
pub(crate) fn leaf_types<'a>(data_type: &'a DataType, out: &mut Vec<&'a DataType>) {
    match data_type {
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::FixedSizeList(f, _)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => leaf_types(f.data_type(), out),
        DataType::Struct(fields) => {
            for f in fields {
                leaf_types(f.data_type(), out)
            }
        }
        DataType::Map(f, _) => {
            if let DataType::Struct(kv) = f.data_type() {
                for f in kv {
                    leaf_types(f.data_type(), out)
                }
            }
        }
        DataType::Dictionary(_, v) => leaf_types(v, out),
        DataType::RunEndEncoded(_, v) => leaf_types(v.data_type(), out),
        t => out.push(t),
    }
}

/// The kind of a leaf of a nested or dictionary-typed field that can take
/// the fast path: its descriptor must be what `parquet`'s schema converter
/// makes of its Arrow type.
fn leaf_kind(data_type: &DataType, descr: &ColumnDescriptor) -> Option<FlbaKind> {
    let kind = FlbaKind::of(data_type)?;
    (descr.physical_type() == PhysicalType::FIXED_LEN_BYTE_ARRAY
        && converter_type_matches(data_type, descr))
    .then_some(kind)
}

/// Whether `descr`'s width, logical and converted types are what `parquet`'s
/// schema converter makes of `data_type`.
fn converter_type_matches(data_type: &DataType, descr: &ColumnDescriptor) -> bool {
    let width = descr.type_length();
    let logical = descr.logical_type_ref();
    let converted = descr.converted_type();
    match data_type {
        DataType::FixedSizeBinary(n) => {
            *n > 0
                && width == *n
                && matches!(logical, None | Some(LogicalType::Uuid))
                && converted == ConvertedType::NONE
        }
        DataType::Decimal128(p, s) | DataType::Decimal256(p, s) => {
            *p >= 19
                && width as usize == decimal_width(*p)
                && matches!(logical, Some(LogicalType::Decimal(d))
                    if d.scale == *s as i32 && d.precision == *p as i32)
        }
        DataType::Float16 => width == 2 && matches!(logical, Some(LogicalType::Float16)),
        DataType::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => {
            width == 12 && logical.is_none() && converted == ConvertedType::INTERVAL
        }
        _ => false,
    }
}

/// The kind of a top-level field whose leaf can take the fast path: the
/// descriptor must be what `parquet`'s schema converter makes of the field.
fn fast_kind(
    field: &Field,
    descr: &ColumnDescriptor,
    _props: &WriterPropertiesPtr,
) -> Option<FlbaKind> {
    let kind = FlbaKind::of(field.data_type())?;
    if descr.physical_type() != PhysicalType::FIXED_LEN_BYTE_ARRAY
        || descr.max_rep_level() != 0
        || descr.max_def_level() != field.is_nullable() as i16
        || descr.self_type().get_basic_info().repetition()
            != if field.is_nullable() {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            }
        || descr.path().parts().len() != 1
    {
        return None;
    }
    converter_type_matches(field.data_type(), descr).then_some(kind)
}

/// A throw-away file writer over `root`, only used to build `parquet`
/// factories whose column descriptors equal the real file's.
fn dummy_writer(
    root: &TypePtr,
    props: &WriterPropertiesPtr,
) -> Result<SerializedFileWriter<std::io::Sink>> {
    SerializedFileWriter::new(std::io::sink(), root.clone(), Arc::clone(props))
}

/// The `parquet` factory for the delegated fields (None if all are fast).
fn delegated_factory(
    plan: &[FieldPlan],
    arrow_schema: &SchemaRef,
    root: &TypePtr,
    props: &WriterPropertiesPtr,
) -> Result<Option<upstream::ArrowRowGroupWriterFactory>> {
    let keep: Vec<usize> = plan
        .iter()
        .enumerate()
        .filter(|(_, p)| p.needs_upstream())
        .map(|(i, _)| i)
        .collect();
    if keep.is_empty() {
        return Ok(None);
    }
    if keep.len() == plan.len() {
        let w = dummy_writer(root, props)?;
        return Ok(Some(upstream::ArrowRowGroupWriterFactory::new(
            &w,
            arrow_schema.clone(),
        )));
    }
    let fields: Vec<TypePtr> = keep.iter().map(|&i| root.get_fields()[i].clone()).collect();
    let sub_root = Arc::new(
        Type::group_type_builder(root.name())
            .with_fields(fields)
            .build()?,
    );
    let sub_arrow = Arc::new(Schema::new_with_metadata(
        keep.iter()
            .map(|&i| arrow_schema.fields()[i].clone())
            .collect::<Vec<_>>(),
        arrow_schema.metadata().clone(),
    ));
    let w = dummy_writer(&sub_root, props)?;
    Ok(Some(upstream::ArrowRowGroupWriterFactory::new(
        &w, sub_arrow,
    )))
}

/// Routes a user's page store factory: stores of fast leaves are kept for
/// this crate's writers (`parquet`'s writer for that leaf gets a dummy).
struct Stash {
    inner: Arc<dyn PageStoreFactory>,
    fast: Vec<usize>,
    stores: Mutex<HashMap<usize, Box<dyn PageStore>>>,
    /// Leaves whose stores are handed off to another writer (see
    /// [`ArrowRowGroupWriterFactory::hand_off_page_stores`]).
    handoff: Mutex<Vec<usize>>,
    /// The stores created for `handoff` leaves, not yet taken.
    handed: Mutex<HashMap<usize, Box<dyn PageStore>>>,
    /// Serializes `create_column_writers` calls that use `stores`.
    creating: Mutex<()>,
}

impl std::fmt::Debug for Stash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stash")
            .field("inner", &self.inner)
            .field("fast", &self.fast)
            .finish_non_exhaustive()
    }
}

fn poisoned<T>(_: T) -> ParquetError {
    ParquetError::General("page store lock poisoned".into())
}

impl PageStoreFactory for Stash {
    fn create(&self, args: &PageStoreArgs<'_>) -> Result<Box<dyn PageStore>> {
        let store = self.inner.create(args)?;
        let column = args.column_index();
        if self.handoff.lock().map_err(poisoned)?.contains(&column) {
            self.handed.lock().map_err(poisoned)?.insert(column, store);
            Ok(Box::new(InMemoryPageStore::default()))
        } else if self.fast.contains(&column) {
            self.stores.lock().map_err(poisoned)?.insert(column, store);
            Ok(Box::new(InMemoryPageStore::default()))
        } else {
            Ok(store)
        }
    }
}

/// The page store factory of a `parquet` writer of some leaves of the file:
/// hands it the stores [`Stash`] created for those leaves.
struct Handoff {
    stash: Arc<Stash>,
    /// The file leaf of each of the writer's leaves.
    leaves: Vec<usize>,
}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff")
            .field("leaves", &self.leaves)
            .finish_non_exhaustive()
    }
}

impl PageStoreFactory for Handoff {
    fn create(&self, args: &PageStoreArgs<'_>) -> Result<Box<dyn PageStore>> {
        let leaf = self.leaves.get(args.column_index()).copied();
        let handed = match leaf {
            Some(leaf) => self.stash.handed.lock().map_err(poisoned)?.remove(&leaf),
            None => None,
        };
        match handed {
            Some(store) => Ok(store),
            // Not created through the file's factory (should not happen).
            None => self.stash.inner.create(args),
        }
    }
}
