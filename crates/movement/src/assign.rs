//! Putting entrants (or a Swiss event's partnerships), numbered 0.. by the caller, at tables of
//! given sizes: a complete depth-first search for a seating without a forbidden pair, a greedy
//! fill, a local search by swaps, and a repair that separates apart pairs. Pinned entrants (those
//! who stay) are never moved. Deterministic: candidates are tried in the order given.

/// Tables of entrants by number, table 1 first.
pub(crate) type Tables = Vec<Vec<usize>>;

/// Whether each entrant (by number) is pinned.
pub(crate) type Pinned = [bool];

/// The cost that stands for "never": an apart pair at one table.
pub(crate) const NEVER: u64 = 1 << 50;

/// A seating of `order` into `tables` (already holding the pinned) up to `sizes`, with no two of
/// a table `forbidden`, trying each entrant (in order) at the lowest-numbered table that works
/// first: the first seating found seats the top of `order` together. `None` if there is none,
/// or if the search takes more than `budget` steps.
pub(crate) fn search(
    order: &[usize],
    tables: &Tables,
    sizes: &[usize],
    forbidden: &dyn Fn(usize, usize) -> bool,
    budget: usize,
) -> Option<Tables> {
    fn step(
        i: usize,
        order: &[usize],
        tables: &mut Tables,
        sizes: &[usize],
        forbidden: &dyn Fn(usize, usize) -> bool,
        budget: &mut usize,
    ) -> bool {
        let Some(e) = order.get(i) else {
            return true;
        };
        for j in 0..tables.len() {
            if *budget == 0 {
                return false;
            }
            if tables[j].len() >= sizes[j] || tables[j].iter().any(|o| forbidden(*o, *e)) {
                continue;
            }
            // Empty tables of one size are interchangeable: try only the first.
            if tables[j].is_empty() && (0..j).any(|p| tables[p].is_empty() && sizes[p] == sizes[j]) {
                continue;
            }
            *budget -= 1;
            tables[j].push(*e);
            if step(i + 1, order, tables, sizes, forbidden, budget) {
                return true;
            }
            tables[j].pop();
        }
        false
    }
    let mut tables = tables.clone();
    let mut budget = budget;
    step(0, order, &mut tables, sizes, forbidden, &mut budget).then_some(tables)
}

/// Seats `order` one by one at the table (with room) where it costs least, lowest number first
/// on a tie.
pub(crate) fn greedy(order: &[usize], tables: &mut Tables, sizes: &[usize], cost: &dyn Fn(usize, usize) -> u64) {
    for e in order {
        let best = (0..tables.len())
            .filter(|j| tables[*j].len() < sizes[*j])
            .min_by_key(|j| tables[*j].iter().map(|o| cost(*o, *e)).fold(0u64, u64::saturating_add));
        if let Some(j) = best {
            tables[j].push(*e);
        }
    }
}

/// Swaps entrants between tables while a swap lowers the total cost of the pairs seated
/// together; the pinned never move. Stops after a bounded number of passes. Each entrant's cost
/// at each table is kept up to date, so that a swap is weighed in constant time.
pub(crate) fn improve(tables: &mut Tables, pinned: &Pinned, cost: &dyn Fn(usize, usize) -> u64) {
    let n = tables.iter().flatten().max().map_or(0, |m| m + 1);
    let t = tables.len();
    // Costs are at most `NEVER` (2^50), and a table seats at most 16: sums fit an i64.
    let c: Vec<i64> = (0..n * n)
        .map(|i| {
            if i / n == i % n {
                0
            } else {
                i64::try_from(cost(i / n, i % n)).unwrap_or(i64::MAX >> 8)
            }
        })
        .collect();
    // sum[x * t + j]: what x pays for the others at table j.
    let mut sum = vec![0i64; n * t];
    for x in tables.iter().flatten() {
        for (j, table) in tables.iter().enumerate() {
            sum[x * t + j] = table.iter().map(|o| c[x * n + o]).sum();
        }
    }
    let seated: Vec<usize> = tables.iter().flatten().copied().collect();
    for _pass in 0..40 {
        let mut better = false;
        for a in 0..t {
            for b in a + 1..t {
                for i in 0..tables[a].len() {
                    for j in 0..tables[b].len() {
                        let (x, y) = (tables[a][i], tables[b][j]);
                        if pinned[x] || pinned[y] {
                            continue;
                        }
                        let now = sum[x * t + a] + sum[y * t + b];
                        let then = sum[y * t + a] + sum[x * t + b] - 2 * c[x * n + y];
                        if then < now {
                            tables[a][i] = y;
                            tables[b][j] = x;
                            for z in &seated {
                                let (zx, zy) = (c[z * n + x], c[z * n + y]);
                                sum[z * t + a] += zy - zx;
                                sum[z * t + b] += zx - zy;
                            }
                            better = true;
                        }
                    }
                }
            }
        }
        if !better {
            return;
        }
    }
}

/// Whether some table seats an apart pair.
pub(crate) fn clash(tables: &Tables, apart: &dyn Fn(usize, usize) -> bool) -> Option<(usize, usize)> {
    tables.iter().enumerate().find_map(|(t, table)| {
        table
            .iter()
            .enumerate()
            .find_map(|(i, a)| table[i + 1..].iter().any(|b| apart(*a, *b)).then_some((t, *a)))
    })
}

/// Separates apart pairs by swapping one of them with someone at the nearest table where
/// neither ends up beside an apart partner. `false` if a clash remains.
pub(crate) fn repair(tables: &mut Tables, pinned: &Pinned, apart: &dyn Fn(usize, usize) -> bool) -> bool {
    let fits = |table: &[usize], e: usize, leaving: usize| table.iter().all(|o| *o == leaving || !apart(*o, e));
    for _ in 0..tables.iter().map(Vec::len).sum::<usize>() {
        let Some((t, _)) = clash(tables, apart) else {
            return true;
        };
        // Either member of a clashing pair that is not pinned.
        let movers: Vec<usize> = tables[t]
            .iter()
            .copied()
            .filter(|x| !pinned[*x] && tables[t].iter().any(|o| apart(*o, *x)))
            .collect();
        let mut others: Vec<usize> = (0..tables.len()).filter(|u| *u != t).collect();
        others.sort_by_key(|u| u.abs_diff(t));
        let swap = movers.iter().find_map(|x| {
            others.iter().find_map(|u| {
                tables[*u].iter().find_map(|y| {
                    let ok = !pinned[*y] && fits(&tables[*u], *x, *y) && fits(&tables[t], *y, *x);
                    ok.then_some((*x, *u, *y))
                })
            })
        });
        let Some((x, u, y)) = swap else {
            return false;
        };
        for e in &mut tables[t] {
            if *e == x {
                *e = y;
            }
        }
        for e in &mut tables[u] {
            if *e == y {
                *e = x;
            }
        }
    }
    clash(tables, apart).is_none()
}

/// Min-conflicts by swaps: while some unpinned entrant shares a table with one it must not, one
/// of them (chosen by a fixed xorshift from `seed`) swaps with the unpinned entrant of another
/// table that leaves the fewest such pairs, sideways moves included, for at most `steps` swaps.
/// Whether no forbidden pair is left. The classic remedy when swaps that must lower the cost
/// stall on a plateau.
pub(crate) fn min_conflicts(
    tables: &mut Tables,
    pinned: &Pinned,
    forbidden: &dyn Fn(usize, usize) -> bool,
    mut seed: u64,
    steps: usize,
) -> bool {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // What x clashes with at table t, leaving `without` out.
    let clashes = |tables: &Tables, x: usize, t: usize, without: usize| {
        tables[t]
            .iter()
            .filter(|o| **o != x && **o != without && forbidden(**o, x))
            .count()
    };
    for _ in 0..steps {
        let conflicted: Vec<(usize, usize)> = tables
            .iter()
            .enumerate()
            .flat_map(|(t, table)| table.iter().enumerate().map(move |(i, _)| (t, i)))
            .filter(|(t, i)| {
                let x = tables[*t][*i];
                !pinned[x] && clashes(tables, x, *t, usize::MAX) > 0
            })
            .collect();
        if conflicted.is_empty() {
            return true;
        }
        let pick = usize::try_from(next() % conflicted.len() as u64).unwrap_or(0);
        let (a, i) = conflicted[pick];
        let x = tables[a][i];
        let here = clashes(tables, x, a, usize::MAX);
        let mut best: Vec<(usize, usize)> = Vec::new();
        let mut best_delta = i64::MAX;
        for b in (0..tables.len()).filter(|b| *b != a) {
            for (j, &y) in tables[b].iter().enumerate() {
                if pinned[y] {
                    continue;
                }
                let before = here + clashes(tables, y, b, usize::MAX);
                let after = clashes(tables, x, b, y) + clashes(tables, y, a, x);
                let delta = i64::try_from(after).unwrap_or(i64::MAX) - i64::try_from(before).unwrap_or(0);
                if delta < best_delta {
                    best_delta = delta;
                    best.clear();
                }
                if delta == best_delta {
                    best.push((b, j));
                }
            }
        }
        if best.is_empty() {
            return false;
        }
        let (b, j) = best[usize::try_from(next() % best.len() as u64).unwrap_or(0)];
        let y = tables[b][j];
        tables[a][i] = y;
        tables[b][j] = x;
    }
    tables.iter().all(|t| {
        t.iter()
            .enumerate()
            .all(|(i, a)| t[i + 1..].iter().all(|b| !forbidden(*a, *b)))
    })
}
