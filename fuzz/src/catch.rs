//! Catching panics: quietly where they are expected (parquet's own writer
//! on bad input, a reader on a broken file), loudly where they are findings.
//!
//! Shared with the main crate's integration tests (`tests/common`, with
//! `#[path]`): std only.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// Install (once) a panic hook that stays silent while [`quiet_catch`] runs
/// on this thread, and for parquet's [`KNOWN_UPSTREAM_PANICS`] (which the
/// harnesses expect and check), and otherwise defers to the hook that was
/// installed before (under libFuzzer, one that aborts: any other panic is
/// a finding).
fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let known = is_known_upstream_panic(&panic_message(info.payload()));
            if !QUIET.with(Cell::get) && !known {
                previous(info);
            }
        }));
    });
}

/// The text of a panic payload.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".into()
    }
}

/// Run `f`, turning a panic into `Err(message)` without reporting it: for
/// calls whose panics are expected (parquet's own writer on bad input).
pub fn quiet_catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = QUIET.with(|q| q.replace(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| panic_message(p.as_ref()))
}

/// Run `f`, turning a panic into `Err(message)`. The panic is reported by
/// the panic hook as usual (under libFuzzer the process aborts right there,
/// which is what a finding should do).
pub fn loud_catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = QUIET.with(|q| q.replace(false));
    let r = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    r.map_err(|p| panic_message(p.as_ref()))
}

/// What `parquet`'s writer panics with on valid input, where `parquet_flba`
/// returns a `ParquetError` instead (`docs/fast-path.md`): content-defined
/// chunking that cuts an empty page of an RLE-encoded BOOLEAN column.
/// (Its other such panic, content-defined chunking over a list view whose
/// values are out of order, the generators do not make.)
pub const KNOWN_UPSTREAM_PANICS: &[&str] = &["RLE value encoder is not initialized"];

/// Whether a panic message is one of [`KNOWN_UPSTREAM_PANICS`].
pub fn is_known_upstream_panic(message: &str) -> bool {
    KNOWN_UPSTREAM_PANICS.iter().any(|p| message.contains(p))
}
