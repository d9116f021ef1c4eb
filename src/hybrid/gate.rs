//! [`Gate`]: the output behind the hybrid sink's file writer.

use std::io::Write;

/// Passes bytes through to the output while open and drops them while
/// closed: the file writer's own footer, which the hybrid sink replaces, is
/// written through a closed gate.
#[derive(Debug)]
pub(super) struct Gate<W> {
    pub(super) out: W,
    pub(super) open: bool,
    /// Bytes passed through to `out`.
    pub(super) passed: u64,
}

impl<W> Gate<W> {
    pub(super) fn new(out: W) -> Self {
        Self {
            out,
            open: true,
            passed: 0,
        }
    }
}

impl<W: Write> Write for Gate<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.open {
            return Ok(buf.len());
        }
        let n = self.out.write(buf)?;
        self.passed += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.open {
            true => self.out.flush(),
            false => Ok(()),
        }
    }
}
