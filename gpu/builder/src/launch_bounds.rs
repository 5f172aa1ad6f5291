//! CUDA's `__launch_bounds__` in the PTX module: `const_layout_device::launch_bounds!` leaves a
//! marker comment in the module (rustc has no attribute for it), and the builder turns it into the
//! entry point's `.maxntid` and `.minnctapersm` directives, what nvcc writes for
//! `__launch_bounds__(MAX_THREADS, MIN_BLOCKS)`.

use crate::check::{CheckFailed, Failure};
use crate::ptx::PtxModule;
use std::collections::{BTreeMap, HashSet};

/// The marker `const_layout_device::launch_bounds!` writes into the module (a PTX comment),
/// followed by `NAME MAX_THREADS MIN_BLOCKS`.
///
/// ```
/// assert_eq!(const_layout_builder::LAUNCH_BOUNDS_MARKER, "// const-layout: launch_bounds");
/// ```
pub const LAUNCH_BOUNDS_MARKER: &str = "// const-layout: launch_bounds";

/// An entry point's launch bounds: at most `max_threads` threads a block, and registers limited
/// so that `min_blocks` blocks fit on a multiprocessor.
///
/// ```
/// use const_layout_builder::LaunchBounds;
/// let b = LaunchBounds { entry: "k".into(), max_threads: 256, min_blocks: 2 };
/// assert_eq!(b.to_string(), "256 threads, 2 blocks/SM");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LaunchBounds {
    /// The entry point.
    pub entry: String,
    /// `.maxntid`: threads a block, at most.
    pub max_threads: u32,
    /// `.minnctapersm`: blocks a multiprocessor, at least.
    pub min_blocks: u32,
}

impl std::fmt::Display for LaunchBounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} threads, {} blocks/SM", self.max_threads, self.min_blocks)
    }
}

/// The module's launch-bounds markers, one per entry point (in name order), or the failures:
/// a malformed marker, two markers that disagree, numbers out of range.
pub(crate) fn markers(ptx: &str) -> Result<Vec<(usize, LaunchBounds)>, Vec<Failure>> {
    let mut found: BTreeMap<String, (usize, LaunchBounds)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, line) in ptx.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix(LAUNCH_BOUNDS_MARKER) else { continue };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let parsed = match words[..] {
            [name, threads, blocks] => {
                threads.parse::<u32>().ok().zip(blocks.parse::<u32>().ok()).map(|(t, b)| (name, t, b))
            }
            _ => None,
        };
        let Some((name, max_threads, min_blocks)) = parsed else {
            failures.push(Failure::new(
                Some(i + 1),
                None,
                format!(
                    "a launch-bounds marker that is not `NAME MAX_THREADS MIN_BLOCKS`: `{}`",
                    line.trim()
                ),
            ));
            continue;
        };
        if !(1..=1024).contains(&max_threads) || min_blocks == 0 {
            failures.push(Failure::new(
                Some(i + 1),
                Some(name),
                format!("launch bounds of {max_threads} threads and {min_blocks} blocks: at most 1024 threads a block (at least 1), and at least 1 block"),
            ));
            continue;
        }
        let bounds = LaunchBounds { entry: name.to_string(), max_threads, min_blocks };
        match found.get(name) {
            Some((_, b)) if *b != bounds => failures.push(Failure::new(
                Some(i + 1),
                Some(name),
                format!("two launch-bounds markers disagree: {b} and {bounds}"),
            )),
            Some(_) => {}
            None => {
                found.insert(name.to_string(), (i, bounds));
            }
        }
    }
    if failures.is_empty() { Ok(found.into_values().collect()) } else { Err(failures) }
}

/// Writes each launch-bounds marker of the module as its entry point's directives: `.maxntid
/// MAX_THREADS, 1, 1` and `.minnctapersm MIN_BLOCKS` right after the entry's parameter list
/// (replacing any the entry had, so running it twice changes nothing). A marker that names no
/// entry point of the module is an error.
///
/// ```
/// let ptx = "// const-layout: launch_bounds k 256 2\n.visible .entry k(\n\t.param .u32 k_param_0\n)\n{\n\tret;\n}\n";
/// let out = const_layout_builder::apply_launch_bounds(ptx).unwrap();
/// assert!(out.contains(")\n.maxntid 256, 1, 1\n.minnctapersm 2\n{"));
/// assert_eq!(const_layout_builder::apply_launch_bounds(&out).unwrap(), out);
///
/// let err = const_layout_builder::apply_launch_bounds("// const-layout: launch_bounds nope 64 1\n").unwrap_err();
/// assert_eq!(err.to_string(), "line 1: nope: launch bounds for `nope`, which is not an entry point of the module");
/// ```
pub fn apply_launch_bounds(ptx: &str) -> Result<String, CheckFailed> {
    let marks = markers(ptx).map_err(CheckFailed::new)?;
    if marks.is_empty() {
        return Ok(ptx.to_string());
    }
    let module = PtxModule::parse(ptx);
    let lines: Vec<&str> = ptx.lines().collect();
    let mut failures = Vec::new();
    let mut drop = HashSet::new();
    let mut insert = BTreeMap::new();
    for (line, bounds) in marks {
        let Some(entry) = module.entry(&bounds.entry) else {
            failures.push(Failure::new(
                Some(line + 1),
                Some(&bounds.entry),
                format!("launch bounds for `{}`, which is not an entry point of the module", bounds.entry),
            ));
            continue;
        };
        for &d in &entry.directives {
            let directive = lines[d].trim_start();
            if directive.starts_with(".maxntid") || directive.starts_with(".minnctapersm") {
                drop.insert(d);
            } else if directive.starts_with(".reqntid") {
                failures.push(Failure::new(
                    Some(d + 1),
                    Some(&bounds.entry),
                    "the entry point has both `.reqntid` and launch bounds".to_string(),
                ));
            }
        }
        insert.insert(entry.close, bounds);
    }
    if !failures.is_empty() {
        return Err(CheckFailed::new(failures));
    }
    let mut out = String::with_capacity(ptx.len() + 64 * insert.len());
    for (i, line) in lines.iter().enumerate() {
        if drop.contains(&i) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(b) = insert.get(&i) {
            out.push_str(&format!(".maxntid {}, 1, 1\n.minnctapersm {}\n", b.max_threads, b.min_blocks));
        }
    }
    if !ptx.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "\
.version 8.3
// const-layout: launch_bounds b 128 4
\t// const-layout: launch_bounds a 256 2
.visible .entry a(
\t.param .u32 a_param_0
)                                       // @a
{
\tret;
}
.visible .entry b()
.maxntid 64, 1, 1
{
\tret;
}
.visible .entry c()
{
\tret;
}";

    #[test]
    fn inserts_after_the_parameter_list() {
        let out = apply_launch_bounds(TWO).unwrap();
        let want = "\
.version 8.3
// const-layout: launch_bounds b 128 4
\t// const-layout: launch_bounds a 256 2
.visible .entry a(
\t.param .u32 a_param_0
)                                       // @a
.maxntid 256, 1, 1
.minnctapersm 2
{
\tret;
}
.visible .entry b()
.maxntid 128, 1, 1
.minnctapersm 4
{
\tret;
}
.visible .entry c()
{
\tret;
}";
        assert_eq!(out, want);
        let m = PtxModule::parse(&out);
        assert_eq!(
            (m.entry("a").unwrap().max_threads, m.entry("a").unwrap().min_blocks),
            (Some(256), Some(2))
        );
        assert_eq!(m.entry("c").unwrap().max_threads, None);
    }

    #[test]
    fn idempotent() {
        let once = apply_launch_bounds(TWO).unwrap();
        assert_eq!(apply_launch_bounds(&once).unwrap(), once);
        let with_newline = format!("{TWO}\n");
        let once = apply_launch_bounds(&with_newline).unwrap();
        assert!(once.ends_with("}\n") && !once.ends_with("\n\n"));
        assert_eq!(apply_launch_bounds(&once).unwrap(), once);
    }

    #[test]
    fn no_markers_no_change() {
        let ptx = ".visible .entry c()\n{\n\tret;\n}\n";
        assert_eq!(apply_launch_bounds(ptx).unwrap(), ptx);
    }

    #[test]
    fn unknown_name() {
        let ptx = format!("{TWO}\n// const-layout: launch_bounds sgemm 256 2\n");
        let err = apply_launch_bounds(&ptx).unwrap_err();
        assert_eq!(err.failures.len(), 1);
        assert_eq!(
            err.to_string(),
            "line 19: sgemm: launch bounds for `sgemm`, which is not an entry point of the module"
        );
    }

    #[test]
    fn bad_markers() {
        let err = apply_launch_bounds("// const-layout: launch_bounds a 256\n").unwrap_err();
        assert!(err.to_string().contains("not `NAME MAX_THREADS MIN_BLOCKS`"), "{err}");
        let err = apply_launch_bounds("// const-layout: launch_bounds a 2048 1\n").unwrap_err();
        assert!(err.to_string().contains("at most 1024 threads"), "{err}");
        let ptx = format!("{TWO}\n// const-layout: launch_bounds a 128 2\n");
        let err = apply_launch_bounds(&ptx).unwrap_err();
        assert!(
            err.to_string().contains(
                "two launch-bounds markers disagree: 256 threads, 2 blocks/SM and 128 threads, 2 blocks/SM"
            ),
            "{err}"
        );
        // The same marker twice (two crates of the module declaring it) is one.
        let ptx = format!("{TWO}\n// const-layout: launch_bounds a 256 2\n");
        assert_eq!(apply_launch_bounds(&ptx).unwrap().matches(".maxntid 256").count(), 1);
    }

    #[test]
    fn reqntid_conflicts() {
        let ptx =
            "// const-layout: launch_bounds k 64 1\n.visible .entry k()\n.reqntid 32, 1, 1\n{\n\tret;\n}\n";
        let err = apply_launch_bounds(ptx).unwrap_err();
        assert!(err.to_string().contains("both `.reqntid` and launch bounds"), "{err}");
    }
}
