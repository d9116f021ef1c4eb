//! The open-addressing probe both dictionaries share (this one of
//! fixed-width values and the byte-array one).
//!
//! A table is a power of two of `u32` slots: 0 for an empty slot, else one
//! more than an entry's key in the bits of `low` and the entry's hash in the
//! bits above (a tag, so that most probes meeting another entry are told
//! apart without reading that entry). A probe walks forward from the slot
//! the hash picks, one slot at a time, to the entry or an empty slot.

/// Where a probe ended.
pub(crate) enum Probe {
    /// The key of the entry the value equals.
    Found(u32),
    /// The empty slot where the value goes, if it is added.
    Vacant(usize),
}

/// Looks a value of hash `hash` up in `slots`: the key of the first entry
/// whose tag matches the hash and for whose key `is` holds (the entry
/// equals the value), or the empty slot where the walk stopped.
#[inline(always)]
pub(crate) fn probe(slots: &[u32], low: u32, hash: u32, mut is: impl FnMut(u32) -> bool) -> Probe {
    let mask = slots.len() - 1;
    let mut pos = hash as usize & mask;
    loop {
        let slot = slots[pos];
        if slot == 0 {
            return Probe::Vacant(pos);
        }
        if (slot ^ hash) & !low == 0 {
            let key = (slot & low) - 1;
            if is(key) {
                return Probe::Found(key);
            }
        }
        pos = (pos + 1) & mask;
    }
}

/// The slot an entry of hash `hash` goes to when it is known not to be in
/// the table (a rehash): the first empty one from where the hash points.
#[inline(always)]
pub(crate) fn vacant(slots: &[u32], hash: u32) -> usize {
    let mask = slots.len() - 1;
    let mut pos = hash as usize & mask;
    while slots[pos] != 0 {
        pos = (pos + 1) & mask;
    }
    pos
}

/// The slot's contents for the entry `key` of hash `hash`.
#[inline(always)]
pub(crate) fn slot_of(hash: u32, low: u32, key: usize) -> u32 {
    (hash & !low) | (key as u32 + 1)
}
