//! A one-line progress display on standard error, drawn only when it is a
//! terminal (piped output stays clean). The demo and `rewrite` use it; it
//! draws when told to (no ticker thread), so nothing allocates behind the
//! demo's allocation counts.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Instant;

/// Progress over a known number of steps (`pos/len`), or a spinner-less
/// message when the length is unknown.
pub struct Progress {
    state: Mutex<State>,
    start: Instant,
    draw: bool,
    unit: &'static str,
}

struct State {
    pos: u64,
    len: Option<u64>,
    message: String,
}

impl Progress {
    /// Progress over `len` steps, each called `unit` (may be empty).
    pub fn new(len: u64, unit: &'static str) -> Self {
        Self::with(Some(len), unit, String::new())
    }

    /// A message with the elapsed time, no count.
    pub fn message(message: String) -> Self {
        Self::with(None, "", message)
    }

    fn with(len: Option<u64>, unit: &'static str, message: String) -> Self {
        let this = Self {
            state: Mutex::new(State {
                pos: 0,
                len,
                message,
            }),
            start: Instant::now(),
            draw: std::io::stderr().is_terminal(),
            unit,
        };
        this.redraw();
        this
    }

    /// Sets the message after the count.
    pub fn set_message(&self, message: impl Into<String>) {
        self.lock().message = message.into();
        self.redraw();
    }

    /// Advances by `n` steps.
    pub fn inc(&self, n: u64) {
        self.lock().pos += n;
        self.redraw();
    }

    /// Sets the position.
    pub fn set_position(&self, pos: u64) {
        self.lock().pos = pos;
        self.redraw();
    }

    /// Clears the line, runs `f` (which may print), draws the line again.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.clear();
        let out = f();
        self.redraw();
        out
    }

    /// Clears the line for good.
    pub fn finish_and_clear(&self) {
        self.clear();
    }

    /// Leaves the line as it is and moves below it (before an error).
    pub fn abandon(&self) {
        if self.draw {
            eprintln!();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn clear(&self) {
        if self.draw {
            eprint!("\r\x1b[2K");
        }
    }

    fn redraw(&self) {
        if !self.draw {
            return;
        }
        let state = self.lock();
        let secs = self.start.elapsed().as_secs();
        let mut line = format!("[{:02}:{:02}] ", secs / 60, secs % 60);
        if let Some(len) = state.len {
            const WIDTH: u64 = 30;
            let filled = (state.pos.min(len) * WIDTH)
                .checked_div(len)
                .unwrap_or(WIDTH);
            let bar: String = (0..WIDTH)
                .map(|i| if i < filled { '=' } else { ' ' })
                .collect();
            line += &format!("{bar} {}/{len}", state.pos);
            if !self.unit.is_empty() {
                line += " ";
                line += self.unit;
            }
            line += " ";
        }
        line += &state.message;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }
}
