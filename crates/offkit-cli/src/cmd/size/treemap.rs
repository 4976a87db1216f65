//! A squarified treemap (Bruls, Huizing and van Wijk, 2000): rectangles whose areas are in
//! proportion to the values, laid out in rows along the shorter side so that they stay close to
//! squares. Pure arithmetic on `f64`, so the same values give the same layout everywhere.

/// A rectangle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn area(&self) -> f64 {
        self.w * self.h
    }
}

/// The worst aspect ratio of a row of `areas` laid along a side of length `side`.
fn worst(areas: &[f64], side: f64) -> f64 {
    let sum: f64 = areas.iter().sum();
    let (mut max, mut min) = (f64::MIN, f64::MAX);
    for &a in areas {
        max = max.max(a);
        min = min.min(a);
    }
    let (s2, w2) = (sum * sum, side * side);
    (w2 * max / s2).max(s2 / (w2 * min))
}

/// Rectangles filling `r` whose areas are in proportion to `values`, in the order of `values`
/// (a zero value gets an empty rectangle).
pub fn squarify(values: &[u64], r: Rect) -> Vec<Rect> {
    let empty = Rect {
        x: r.x,
        y: r.y,
        w: 0.0,
        h: 0.0,
    };
    let mut out = vec![empty; values.len()];
    let total: f64 = values.iter().map(|&v| v as f64).sum();
    if total <= 0.0 || r.area() <= 0.0 {
        return out;
    }
    let scale = r.area() / total;
    // Largest first (ties in input order), zeros left out.
    let mut order: Vec<usize> = (0..values.len()).filter(|&i| values[i] > 0).collect();
    order.sort_by(|&a, &b| values[b].cmp(&values[a]).then(a.cmp(&b)));
    let mut rest = r;
    let mut row: Vec<usize> = Vec::new();
    let area = |i: usize| values[i] as f64 * scale;
    let mut i = 0;
    while i < order.len() {
        let side = rest.w.min(rest.h);
        let cur: Vec<f64> = row.iter().map(|&j| area(j)).collect();
        let mut with = cur.clone();
        with.push(area(order[i]));
        if row.is_empty() || worst(&with, side) <= worst(&cur, side) {
            row.push(order[i]);
            i += 1;
        } else {
            rest = lay(&row, &cur, rest, &mut out, i == order.len());
            row.clear();
        }
    }
    if !row.is_empty() {
        let cur: Vec<f64> = row.iter().map(|&j| area(j)).collect();
        lay(&row, &cur, rest, &mut out, true);
    }
    out
}

/// Lays the row `row` (areas `areas`) along the shorter side of `r`, into `out`; returns what
/// is left of `r`. The last row takes all that is left (no gap from rounding).
fn lay(row: &[usize], areas: &[f64], r: Rect, out: &mut [Rect], last: bool) -> Rect {
    let sum: f64 = areas.iter().sum();
    if r.w >= r.h {
        // A column at the left.
        let w = if last { r.w } else { sum / r.h };
        let mut y = r.y;
        for (&i, &a) in row.iter().zip(areas) {
            let h = a / w;
            out[i] = Rect { x: r.x, y, w, h };
            y += h;
        }
        Rect {
            x: r.x + w,
            y: r.y,
            w: r.w - w,
            h: r.h,
        }
    } else {
        // A row at the top.
        let h = if last { r.h } else { sum / r.w };
        let mut x = r.x;
        for (&i, &a) in row.iter().zip(areas) {
            let w = a / h;
            out[i] = Rect { x, y: r.y, w, h };
            x += w;
        }
        Rect {
            x: r.x,
            y: r.y + h,
            w: r.w,
            h: r.h - h,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_are_in_proportion_and_fill_the_rectangle() {
        let r = Rect {
            x: 0.0,
            y: 0.0,
            w: 960.0,
            h: 600.0,
        };
        for values in [
            vec![6u64, 6, 4, 3, 2, 2, 1],
            vec![1],
            vec![100, 0, 1],
            vec![5000, 4496, 5328, 17, 1, 1, 1, 900],
        ] {
            let rects = squarify(&values, r);
            let total: u64 = values.iter().sum();
            let mut sum = 0.0;
            for (v, q) in values.iter().zip(&rects) {
                let want = *v as f64 / total as f64 * r.area();
                assert!((q.area() - want).abs() < 1e-6 * r.area(), "{values:?}");
                assert!(q.x >= -1e-9 && q.y >= -1e-9);
                assert!(q.x + q.w <= r.w + 1e-6 && q.y + q.h <= r.h + 1e-6);
                sum += q.area();
            }
            assert!((sum - r.area()).abs() < 1e-6 * r.area());
        }
    }
}
