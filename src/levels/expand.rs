//! Phase 2: one leaf's levels, from the chain of nodes above it.
//!
//! [`Expand::slots`] takes a range of slots of the node at some depth of the
//! chain and appends the levels they produce. A null slot, an empty list, or
//! a zero-size fixed-size list produces one level right there; a valid
//! struct slot hands the same slot to the next depth; a non-empty list hands
//! its elements down. Spans of slots that behave alike (runs of valid or null
//! slots, runs of empty or non-empty lists) are handed on as one range.
//!
//! The repetition level of a level is the node's own unless the level is the
//! first of a list: each list element range handed down carries one
//! [`Mark`] per list, at the slot that starts it, with the level the list's
//! first level must have. Marks travel down with their slots until a level is
//! produced for them, so nothing is patched afterwards.

use super::LeafLevels;
use super::bits;
use super::shape::{Kind, LeafShape, Node, Required, Shape};
use super::store::LevelStore;
use arrow_array::OffsetSizeTrait;
use std::ops::Range;

/// The slot `at` starts a list: its first level has repetition level `rep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Mark {
    /// A slot of the node the mark is handed to.
    pub(super) at: usize,
    /// The repetition level of the first level that slot produces.
    pub(super) rep: i16,
}

/// The levels of `leaf` for the first `rows` rows of the field.
pub(super) fn leaf_levels(shape: &Shape, leaf: &LeafShape, rows: usize) -> LeafLevels {
    let mut expand = Expand {
        shape,
        leaf,
        def: LevelStore::new(leaf.max_def),
        rep: LevelStore::new(leaf.max_rep),
        non_null: Vec::new(),
        error: None,
        spare: vec![Vec::new(); leaf.path.len()],
    };
    expand.slots(0, 0..rows, &[]);
    LeafLevels {
        def: expand.def.finish(),
        rep: expand.rep.finish(),
        non_null_indices: expand.non_null,
        max_def: leaf.max_def,
        max_rep: leaf.max_rep,
        array: leaf.array.clone(),
        validation_error: expand.error,
    }
}

/// The levels of one leaf while they are produced.
struct Expand<'a> {
    shape: &'a Shape,
    leaf: &'a LeafShape,
    def: LevelStore,
    rep: LevelStore,
    non_null: Vec<usize>,
    error: Option<String>,
    /// Mark buffers for lists handed down from each depth, kept for reuse.
    spare: Vec<Vec<Mark>>,
}

/// Splits off the marks before slot `end` (marks are sorted by slot).
fn marks_before<'m>(marks: &mut &'m [Mark], end: usize) -> &'m [Mark] {
    let (head, tail) = marks.split_at(marks.partition_point(|m| m.at < end));
    *marks = tail;
    head
}

impl<'a> Expand<'a> {
    /// Appends the levels of `range`, slots of the node at `depth` of the
    /// leaf's chain (the leaf itself past the last node).
    fn slots(&mut self, depth: usize, range: Range<usize>, marks: &[Mark]) {
        let shape = self.shape;
        let Some(&id) = self.leaf.path.get(depth) else {
            return self.values(range, marks);
        };
        let node = &shape.nodes[id];
        self.check(node.required.as_ref(), &range);
        if bits::all_null(node.nulls.as_ref()) {
            return self.gap(node.def - 1, node.rep, range, marks);
        }
        match &node.kind {
            Kind::Struct => self.struct_slots(depth, node, range, marks),
            Kind::List(offsets) => self.list_slots(depth, node, offsets, range, marks),
            Kind::LargeList(offsets) => self.list_slots(depth, node, offsets, range, marks),
            Kind::FixedList(size) => self.fixed_slots(depth, node, *size, range, marks),
            Kind::View(offsets, sizes) => {
                self.view_slots(depth, node, offsets, sizes, range, marks)
            }
            Kind::LargeView(offsets, sizes) => {
                self.view_slots(depth, node, offsets, sizes, range, marks)
            }
        }
    }

    /// Records the first null of `range` in a non-nullable field, unless an
    /// earlier one was recorded.
    fn check(&mut self, required: Option<&Required>, range: &Range<usize>) {
        // parquet 59 writes a required field's nulls as stored (D15).
        let checked = crate::compat::REQUIRED_NULLS_REJECTED && self.error.is_none();
        let Some(required) = required.filter(|_| checked) else {
            return;
        };
        if let Some(index) = bits::first_null(&required.nulls, range.clone()) {
            self.error = Some(format!(
                "Found null at index {index} for required field '{}'",
                required.name
            ));
        }
    }

    /// One level per slot of `range`, all `def`, with repetition level `rep`
    /// unless marked.
    fn gap(&mut self, def: i16, rep: i16, range: Range<usize>, marks: &[Mark]) {
        self.def.push_run(def, range.len());
        self.push_reps(rep, range, marks);
    }

    /// Repetition levels for one level per slot of `range`: `rep`, or the
    /// mark's level at a marked slot.
    fn push_reps(&mut self, rep: i16, range: Range<usize>, marks: &[Mark]) {
        if marks.is_empty() {
            return self.rep.push_run(rep, range.len());
        }
        if let Some(levels) = self.rep.buffer() {
            let base = levels.len();
            levels.resize(base + range.len(), rep);
            for mark in marks {
                levels[base + (mark.at - range.start)] = mark.rep;
            }
        }
    }

    /// Levels of the leaf's own values.
    fn values(&mut self, range: Range<usize>, marks: &[Mark]) {
        let leaf = self.leaf;
        self.check(leaf.required.as_ref(), &range);
        let count = range.len();
        match &leaf.nulls {
            _ if matches!(self.def, LevelStore::Off) => self.non_null.extend(range.clone()),
            Some(nulls) if bits::all_null(Some(nulls)) => {
                self.def.push_run(leaf.max_def - 1, count)
            }
            Some(nulls) => {
                if let Some(defs) = self.def.buffer() {
                    let (bits, valid) = (nulls.inner(), &mut self.non_null);
                    bits::push_leaf_levels(defs, valid, bits, range.clone(), leaf.max_def);
                }
            }
            None => {
                self.def.push_run(leaf.max_def, count);
                self.non_null.extend(range.clone());
            }
        }
        self.push_reps(leaf.max_rep, range, marks);
    }

    /// A struct: valid runs go to the children, null runs are one level each.
    fn struct_slots(&mut self, depth: usize, node: &Node, range: Range<usize>, mut marks: &[Mark]) {
        for (valid, run) in bits::runs(node.nulls.as_ref(), range) {
            let here = marks_before(&mut marks, run.end);
            match valid {
                true => self.slots(depth + 1, run, here),
                false => self.gap(node.def - 1, node.rep, run, here),
            }
        }
    }

    /// A list or map: null and empty lists are one level each, runs of
    /// non-empty lists hand their elements down.
    fn list_slots<O: OffsetSizeTrait>(
        &mut self,
        depth: usize,
        node: &Node,
        offsets: &[O],
        range: Range<usize>,
        mut marks: &[Mark],
    ) {
        for (valid, run) in bits::runs(node.nulls.as_ref(), range) {
            if !valid {
                let here = marks_before(&mut marks, run.end);
                self.gap(node.def - 1, node.rep, run, here);
                continue;
            }
            let mut from = run.start;
            while from < run.end {
                let filled = offsets[from] != offsets[from + 1];
                let to = (from + 1..run.end)
                    .find(|&i| (offsets[i] != offsets[i + 1]) != filled)
                    .unwrap_or(run.end);
                let here = marks_before(&mut marks, to);
                match filled {
                    true => self.open(depth, node, from..to, here, |i| offsets[i].as_usize()),
                    false => self.gap(node.def, node.rep, from..to, here),
                }
                from = to;
            }
        }
    }

    /// A fixed-size list: null lists are one level each, so are all lists
    /// when the size is 0; runs of valid lists hand their elements down.
    fn fixed_slots(
        &mut self,
        depth: usize,
        node: &Node,
        size: usize,
        range: Range<usize>,
        mut marks: &[Mark],
    ) {
        for (valid, run) in bits::runs(node.nulls.as_ref(), range) {
            let here = marks_before(&mut marks, run.end);
            match (valid, size) {
                (false, _) => self.gap(node.def - 1, node.rep, run, here),
                (true, 0) => self.gap(node.def, node.rep, run, here),
                (true, _) => self.open(depth, node, run, here, |i| i * size),
            }
        }
    }

    /// Hands down the elements of the non-empty lists `lists`, list `i`
    /// starting at element `start(i)` and the last ending at
    /// `start(lists.end)`; each list's first element is marked.
    fn open(
        &mut self,
        depth: usize,
        node: &Node,
        lists: Range<usize>,
        marks: &[Mark],
        start: impl Fn(usize) -> usize,
    ) {
        let mut starts = std::mem::take(&mut self.spare[depth]);
        starts.clear();
        let mut marks = marks.iter().peekable();
        for i in lists.clone() {
            let rep = marks.next_if(|m| m.at == i).map_or(node.rep, |m| m.rep);
            starts.push(Mark { at: start(i), rep });
        }
        self.slots(depth + 1, start(lists.start)..start(lists.end), &starts);
        self.spare[depth] = starts;
        self.rep.buffer();
    }

    /// A list view: each list on its own, as its elements need not follow
    /// the previous list's.
    fn view_slots<O: OffsetSizeTrait>(
        &mut self,
        depth: usize,
        node: &Node,
        offsets: &[O],
        sizes: &[O],
        range: Range<usize>,
        marks: &[Mark],
    ) {
        let mut marks = marks.iter().peekable();
        for i in range {
            let rep = marks.next_if(|m| m.at == i).map_or(node.rep, |m| m.rep);
            let valid = node.nulls.as_ref().is_none_or(|n| n.is_valid(i));
            let size = sizes[i].as_usize();
            if !valid || size == 0 {
                self.def.push_run(node.def - !valid as i16, 1);
                self.rep.push_run(rep, 1);
                continue;
            }
            let at = offsets[i].as_usize();
            self.slots(depth + 1, at..at + size, &[Mark { at, rep }]);
            self.rep.buffer();
        }
    }
}
