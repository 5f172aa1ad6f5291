//! The result table: one markdown row per (kernel, anchor) pair, units in the cells.

use std::fmt;

/// A throughput: bytes or floating-point operations per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// Bytes per second (read + written), shown in GB/s.
    Bytes(f64),
    /// Floating-point operations per second, shown in TFLOP/s.
    Flops(f64),
}

impl Rate {
    /// `self / other` when both measure the same thing.
    pub fn ratio(self, other: Rate) -> Option<f64> {
        match (self, other) {
            (Rate::Bytes(a), Rate::Bytes(b)) | (Rate::Flops(a), Rate::Flops(b)) => Some(a / b),
            _ => None,
        }
    }

    /// The rate of `amount` (bytes or operations, per `self`'s kind) done in `ms` milliseconds;
    /// `None` for a time the timer could not resolve.
    pub fn of(kind: fn(f64) -> Rate, amount: f64, ms: f64) -> Option<Rate> {
        (ms > 0.0).then(|| kind(amount / (ms * 1e-3)))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rate::Bytes(b) => write!(f, "{:.0} GB/s", b / 1e9),
            Rate::Flops(x) => write!(f, "{:.1} TFLOP/s", x / 1e12),
        }
    }
}

/// A figure cell: a rate, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A measured or given rate.
    Rate(Rate),
    /// Text (`n/a (libcublas not found)`, `-`).
    Text(String),
}

impl Cell {
    /// The cell `-`.
    pub fn none() -> Cell {
        Cell::Text("-".into())
    }

    /// The rate, or the text `n/a (why)`.
    pub fn rate_or(rate: Option<Rate>, why: &str) -> Cell {
        rate.map_or_else(|| Cell::Text(format!("n/a ({why})")), Cell::Rate)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cell::Rate(r) => r.fmt(f),
            Cell::Text(t) => f.write_str(t),
        }
    }
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Our kernel (`copy_f32`), or `-` for an anchor of no kernel.
    pub kernel: String,
    /// The problem size (`8192x8192`).
    pub size: String,
    /// Our kernel's figure.
    pub ours: Cell,
    /// The anchor's name.
    pub anchor: String,
    /// The anchor's figure.
    pub anchor_figure: Cell,
    /// The check our kernel passed.
    pub check: String,
}

impl Row {
    /// `ours / anchor`, to three decimals, or `-`.
    pub fn ratio(&self) -> String {
        match (&self.ours, &self.anchor_figure) {
            (Cell::Rate(a), Cell::Rate(b)) => a.ratio(*b).map_or("-".into(), |r| format!("{r:.3}")),
            _ => "-".into(),
        }
    }
}

/// The markdown table of `rows`, with its header.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| kernel | size | ours | anchor | anchor figure | ours / anchor | check |\n|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let cells = [
            &r.kernel,
            &r.size,
            &r.ours.to_string(),
            &r.anchor,
            &r.anchor_figure.to_string(),
            &r.ratio(),
            &r.check,
        ];
        out += "|";
        for c in cells {
            out += &format!(" {} |", c.replace('|', "\\|"));
        }
        out += "\n";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_show_units_and_ratios() {
        let row = Row {
            kernel: "sgemm_nt_f32".into(),
            size: "5120x5120x4096".into(),
            ours: Cell::Rate(Rate::Flops(45.3e12)),
            anchor: "cute_sgemm_nt".into(),
            anchor_figure: Cell::Rate(Rate::Flops(44_213.2e9)),
            check: "ok".into(),
        };
        let copy = Row {
            ours: Cell::Rate(Rate::Bytes(2841e9)),
            anchor_figure: Cell::rate_or(None, "libcublas not found"),
            ..row.clone()
        };
        let t = table(&[row, copy]);
        assert!(
            t.contains(
                "| sgemm_nt_f32 | 5120x5120x4096 | 45.3 TFLOP/s | cute_sgemm_nt | 44.2 TFLOP/s | 1.025 | ok |"
            ),
            "{t}"
        );
        assert!(t.contains("| 2841 GB/s | cute_sgemm_nt | n/a (libcublas not found) | - |"), "{t}");
        assert_eq!(Rate::Bytes(1.0).ratio(Rate::Flops(1.0)), None);
        assert_eq!(Rate::of(Rate::Bytes, 2e9, 1000.0), Some(Rate::Bytes(2e9)));
        assert_eq!(Rate::of(Rate::Bytes, 2e9, 0.0), None);
    }
}
