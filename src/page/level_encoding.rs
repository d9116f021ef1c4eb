//! A page's definition and repetition levels: taken per mini-batch, RLE
//! encoded, counted into the page's level histograms, and finished into the
//! page's level bytes when it is cut.

use super::settings::ColumnSettings;
use crate::encoding::rle::{RleEncoder, num_required_bits};
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::LevelHistogram;
use parquet::file::properties::WriterVersion;

/// How definition levels of a mini-batch are given.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MiniBatchLevels<'a> {
    /// `max_def == 0`: every level is a value.
    Absent,
    /// Every level has this value.
    Uniform(i16),
    /// Levels from a validity bitmap: `(bitmap bytes, bit offset)`; a set bit is
    /// level 1, a clear bit level 0 (a top-level nullable leaf).
    Bitmap(&'a [u8], usize),
    /// Levels as they are.
    Slice(&'a [i16]),
}

/// One kind of level (definition or repetition) of the current page.
#[derive(Debug)]
struct LevelStream {
    max: i16,
    encoder: RleEncoder,
    /// Levels counted by value; empty when no histogram is kept.
    histogram: Vec<i64>,
}

impl LevelStream {
    fn new(s: &ColumnSettings, max: i16) -> Self {
        Self {
            max,
            encoder: RleEncoder::new(num_required_bits(max as u64)),
            histogram: match s.histograms(max) {
                true => vec![0; max as usize + 1],
                false => Vec::new(),
            },
        }
    }

    fn put_run(&mut self, level: i16, count: usize) {
        self.encoder.put_run(level as u32, count);
        if let Some(h) = self.histogram.get_mut(level as usize) {
            *h += count as i64;
        }
    }

    /// Encodes `levels` run by run.
    fn put_slice(&mut self, levels: &[i16]) {
        let mut i = 0;
        while i < levels.len() {
            let v = levels[i];
            let run = levels[i..].iter().take_while(|&&x| x == v).count();
            self.put_run(v, run);
            i += run;
        }
    }

    /// Appends the page's levels (V1: prefixed with their length).
    fn finish_into(&mut self, version: WriterVersion, out: &mut Vec<u8>) {
        if self.max == 0 {
            return;
        }
        match version {
            WriterVersion::PARQUET_1_0 => {
                let start = out.len();
                out.extend_from_slice(&[0; 4]);
                self.encoder.finish_into(out);
                let len = (out.len() - start - 4) as u32;
                out[start..start + 4].copy_from_slice(&len.to_le_bytes());
            }
            WriterVersion::PARQUET_2_0 => self.encoder.finish_into(out),
        }
    }
}

/// The levels of the current page.
#[derive(Debug)]
pub(crate) struct PageLevels {
    def: LevelStream,
    rep: LevelStream,
    /// The finished levels of the page being cut.
    bytes: Vec<u8>,
}

impl PageLevels {
    /// Empty levels for a column with `s`'s maximum levels.
    pub(crate) fn new(s: &ColumnSettings) -> Self {
        Self {
            def: LevelStream::new(s, s.max_def),
            rep: LevelStream::new(s, s.max_rep),
            bytes: Vec::new(),
        }
    }

    /// Takes a mini-batch of `num_levels` levels of which `num_values` are
    /// values; returns the number of rows it starts.
    pub(crate) fn put(
        &mut self,
        num_levels: usize,
        num_values: usize,
        def: MiniBatchLevels<'_>,
        rep: MiniBatchLevels<'_>,
    ) -> Result<usize> {
        if self.rep.max > 0
            && !matches!(rep, MiniBatchLevels::Uniform(_) | MiniBatchLevels::Slice(_))
        {
            return Err(ParquetError::General(format!(
                "Repetition levels are required, because max repetition level = {}",
                self.rep.max
            )));
        }
        match def {
            MiniBatchLevels::Absent => {}
            MiniBatchLevels::Uniform(level) => self.def.put_run(level, num_levels),
            MiniBatchLevels::Bitmap(bits, offset) => {
                self.def.encoder.put_bits(bits, offset, num_levels);
                if let [nulls, valid, ..] = self.def.histogram.as_mut_slice() {
                    *valid += num_values as i64;
                    *nulls += (num_levels - num_values) as i64;
                }
            }
            MiniBatchLevels::Slice(levels) => self.def.put_slice(levels),
        }
        Ok(match rep {
            _ if self.rep.max == 0 => num_levels,
            MiniBatchLevels::Uniform(level) => {
                self.rep.put_run(level, num_levels);
                if level == 0 { num_levels } else { 0 }
            }
            MiniBatchLevels::Slice(levels) => {
                self.rep.put_slice(levels);
                levels.iter().filter(|&&l| l == 0).count()
            }
            _ => 0,
        })
    }

    /// Finishes the page's levels (V1: each with a 4-byte length prefix),
    /// repetition first; returns them and the repetition levels' length.
    pub(crate) fn finish(&mut self, version: WriterVersion) -> (&[u8], usize) {
        self.bytes.clear();
        self.rep.finish_into(version, &mut self.bytes);
        let rep_len = self.bytes.len();
        self.def.finish_into(version, &mut self.bytes);
        (&self.bytes, rep_len)
    }

    /// Bytes of the last finished page's levels.
    pub(crate) fn last_len(&self) -> usize {
        self.bytes.len()
    }

    /// The page's (repetition, definition) histograms, as kept.
    pub(crate) fn histograms(&self) -> (&[i64], &[i64]) {
        (&self.rep.histogram, &self.def.histogram)
    }

    /// The page's histograms for the column index: present when kept.
    pub(crate) fn index_histograms(&self) -> (Option<LevelHistogram>, Option<LevelHistogram>) {
        let kept = |h: &Vec<i64>| (!h.is_empty()).then(|| LevelHistogram::from(h.clone()));
        (kept(&self.rep.histogram), kept(&self.def.histogram))
    }

    /// Zeroes the histograms for the next page.
    pub(crate) fn reset_histograms(&mut self) {
        self.rep.histogram.fill(0);
        self.def.histogram.fill(0);
    }

    /// Heap bytes held by the encoders and the finished levels.
    pub(crate) fn memory_size(&self) -> usize {
        self.def.encoder.memory_size() + self.rep.encoder.memory_size() + self.bytes.capacity()
    }
}
