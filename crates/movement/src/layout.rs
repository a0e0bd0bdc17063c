//! How many tables, of what sizes, and how many byes.
//!
//! With `n` to seat and tables of `min..=max`, the engine uses the fewest tables that hold
//! everyone (`t = ceil(n / max)`) with sizes as equal as possible (the larger tables first),
//! provided the smaller ones still reach `min`. Only when no such split exists does anyone have
//! a bye, and then as few as make a split possible.

/// The tables of one round and the number of byes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Sizes of tables 1, 2, …, non-increasing.
    pub sizes: Vec<usize>,
    /// How many sit out.
    pub byes: usize,
}

/// The layout for `n` units at tables of `min..=max` units, or `None` if fewer than `min`.
pub(crate) fn layout(n: usize, min: usize, max: usize) -> Option<Layout> {
    (0..=n).find_map(|byes| {
        let seated = n - byes;
        if seated < min || seated == 0 {
            return None;
        }
        let tables = seated.div_ceil(max);
        (seated / tables >= min).then(|| Layout {
            sizes: (0..tables)
                .map(|t| seated / tables + usize::from(t < seated % tables))
                .collect(),
            byes,
        })
    })
}
