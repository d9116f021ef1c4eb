//! The lanes' cover under interleaved publishing.

use super::*;
use std::sync::atomic::AtomicUsize;

/// A listener that grants everything and counts what it holds.
#[derive(Debug, Default)]
struct Held(AtomicUsize);

impl MemoryListener for Held {
    fn try_grow(&self, bytes: usize) -> Result<()> {
        self.0.fetch_add(bytes, SeqCst);
        Ok(())
    }

    fn shrink(&self, bytes: usize) {
        self.0.fetch_sub(bytes, SeqCst);
    }
}

/// What the lanes have reserved (allowance and their own) against what
/// they published.
fn covered(lanes: &LaneMemory) -> (usize, usize) {
    let cover = lanes.cover.get().unwrap();
    let have = cover.allowance.load(SeqCst) + cover.extra.load(SeqCst);
    (have, lanes.published())
}

/// Column B publishes that it shrank but gives blocks back only after
/// column A published that it grew by as much (A's growth then found
/// itself covered): B's release must go by the total as it is then, not
/// as B left it, or the lanes hold more than they reserved (a fuzzed
/// write on two threads once ended 244 bytes short).
#[test]
fn a_release_after_another_columns_growth_keeps_it_covered() {
    let held = Arc::new(Held::default());
    let listener: Arc<dyn MemoryListener> = held.clone();
    let lanes = LaneMemory::default();
    assert!(lanes.attach(&listener, 1));
    lanes.set_allowance(0);
    lanes.change(0, 100); // A
    lanes.change(0, 50); // B
    assert_eq!(covered(&lanes), (150, 150));
    // B shrinks by 30: published first, its release delayed.
    lanes.published.fetch_sub(30, SeqCst);
    // A grows by 30 meanwhile: the blocks B is about to give back cover it.
    lanes.change(100, 130);
    assert_eq!(covered(&lanes), (150, 150));
    // B's release now.
    lanes.cover.get().unwrap().release(&lanes.published);
    let (have, published) = covered(&lanes);
    assert!(have >= published, "reserved {have} < published {published}");
    assert_eq!(held.0.load(SeqCst), have);
    // Without the interleaving, a release gives back all but a block.
    lanes.change(130, 30);
    assert_eq!(covered(&lanes), (51, 50));
    assert_eq!(held.0.load(SeqCst), 51);
}
