//! Minimum and maximum of decimal values, folded in while they are converted
//! so that page statistics need no second pass over the values.

use arrow_buffer::i256;

/// Minimum and maximum of converted decimal values, with their positions
/// among the values converted so far.
#[derive(Debug, Default, Clone)]
pub(crate) struct Extremes {
    count: usize,
    min: i256,
    max: i256,
    min_pos: usize,
    max_pos: usize,
}

impl Extremes {
    /// Positions of the minimum and maximum, if any value was seen.
    pub(crate) fn positions(&self) -> Option<(usize, usize)> {
        (self.count > 0).then_some((self.min_pos, self.max_pos))
    }

    /// Folds `values` (the next ones, in order) in. They are compared as
    /// `T`; `widen` and `narrow` move the running extremes between `T` and
    /// the stored `i256`. The first minimum and the first maximum win ties.
    #[inline(always)]
    pub(super) fn fold<T: Ord + Copy>(
        &mut self,
        mut values: impl Iterator<Item = T>,
        widen: impl Fn(T) -> i256,
        narrow: impl Fn(i256) -> T,
    ) {
        let (mut min, mut max, mut min_pos, mut max_pos, mut pos) = if self.count == 0 {
            match values.next() {
                Some(v) => (v, v, 0, 0, 1),
                None => return,
            }
        } else {
            (
                narrow(self.min),
                narrow(self.max),
                self.min_pos,
                self.max_pos,
                self.count,
            )
        };
        for v in values {
            if v < min {
                min = v;
                min_pos = pos;
            } else if v > max {
                max = v;
                max_pos = pos;
            }
            pos += 1;
        }
        self.count = pos;
        self.min = widen(min);
        self.max = widen(max);
        self.min_pos = min_pos;
        self.max_pos = max_pos;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_extremes_win_across_folds() {
        let mut e = Extremes::default();
        assert_eq!(e.positions(), None);
        e.fold([5i128, 3, 9].into_iter(), i256::from_i128, |x| x.as_i128());
        e.fold([3i128, 9, 10, 1].into_iter(), i256::from_i128, |x| {
            x.as_i128()
        });
        assert_eq!(e.positions(), Some((6, 5)));
    }
}
