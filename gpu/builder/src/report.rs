//! What the builder reports of a module: per entry point its parameters, instructions, launch
//! bounds and, where `ptxas` is installed, its registers, spills and stack.

use crate::launch_bounds::LaunchBounds;
use crate::ptx::ParamDecl;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How an entry point's parameters were checked.
///
/// ```
/// use const_layout_builder::ParamsCheck;
/// let c = ParamsCheck::Checked { origins: vec!["src/lib.rs: fn k".into()], unchecked: vec![] };
/// assert_eq!(c.to_string(), "parameters checked (src/lib.rs: fn k)");
/// assert_eq!(ParamsCheck::NotInSource.to_string(), "parameters not checked (not found in the source)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamsCheck {
    /// Against the source's declarations (a function, an `Entry`, or both); `unchecked` lists the
    /// parameters whose types the builder cannot size, with the reason.
    Checked {
        /// Where the source declares the entry point.
        origins: Vec<String>,
        /// The parameters not checked, and why.
        unchecked: Vec<String>,
    },
    /// The source declares no entry point of this name (a `macro_rules!` wrote it, and no `Entry`
    /// declares it): not checked, not an error.
    NotInSource,
    /// The check was given no source.
    NoSource,
}

impl fmt::Display for ParamsCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamsCheck::Checked { origins, unchecked } => {
                write!(f, "parameters checked ({})", origins.join("; "))?;
                if !unchecked.is_empty() {
                    write!(f, " but {}", unchecked.join("; "))?;
                }
                Ok(())
            }
            ParamsCheck::NotInSource => f.write_str("parameters not checked (not found in the source)"),
            ParamsCheck::NoSource => f.write_str("parameters not checked (no source given)"),
        }
    }
}

/// What `ptxas -v` says an entry point uses.
///
/// ```
/// use const_layout_builder::Resources;
/// let r = Resources { registers: 128, stack_bytes: 0, spill_store_bytes: 0, spill_load_bytes: 0 };
/// assert_eq!(r.to_string(), "128 registers, no spills, 0 B stack");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    /// Registers a thread.
    pub registers: u32,
    /// The stack frame, bytes.
    pub stack_bytes: u32,
    /// Bytes of spill stores.
    pub spill_store_bytes: u32,
    /// Bytes of spill loads.
    pub spill_load_bytes: u32,
}

impl fmt::Display for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} registers, ", self.registers)?;
        if self.spill_store_bytes == 0 && self.spill_load_bytes == 0 {
            f.write_str("no spills")?;
        } else {
            write!(f, "spills {} B stored, {} B loaded", self.spill_store_bytes, self.spill_load_bytes)?;
        }
        write!(f, ", {} B stack", self.stack_bytes)
    }
}

/// Whether `ptxas` (CUDA's assembler) measured the module.
///
/// ```
/// use const_layout_builder::Ptxas;
/// assert_eq!(Ptxas::NotRun.to_string(), "ptxas not run");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ptxas {
    /// Not asked for (a check alone, or `Builder::ptxas(false)`).
    NotRun,
    /// Not on PATH, in `$CUDA_HOME/bin` or in `/usr/local/cuda/bin`.
    NotFound,
    /// It ran: the entries' `resources` are its figures.
    Ran {
        /// The `ptxas` that ran.
        path: PathBuf,
    },
    /// It ran and rejected the module (an old `ptxas` may not know the PTX version or the target).
    Failed {
        /// The `ptxas` that ran.
        path: PathBuf,
        /// The first line of its error.
        message: String,
    },
}

impl fmt::Display for Ptxas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ptxas::NotRun => f.write_str("ptxas not run"),
            Ptxas::NotFound => f.write_str(
                "ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin): no registers, spills or stack",
            ),
            Ptxas::Ran { path } => write!(f, "registers, spills and stack from {} -v", path.display()),
            Ptxas::Failed { path, message } => write!(f, "{} failed: {message}", path.display()),
        }
    }
}

/// One entry point of the module.
///
/// ```
/// let report = const_layout_builder::check(".visible .entry k(\n\t.param .u32 k_param_0\n)\n{\n\tret;\n}\n", None).unwrap();
/// let k = &report.entries[0];
/// assert_eq!((k.name.as_str(), k.instructions, k.params[0].to_string().as_str()), ("k", 1, ".param .u32"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntryReport {
    /// Its name.
    pub name: String,
    /// Its PTX parameter declarations.
    pub params: Vec<ParamDecl>,
    /// Its instructions (statements of the body that are not declarations or labels; an inline
    /// assembly block counts each of its instructions).
    pub instructions: usize,
    /// Its `.maxntid` and `.minnctapersm`, when it has them.
    pub launch_bounds: Option<LaunchBounds>,
    /// How its parameters were checked.
    pub params_check: ParamsCheck,
    /// Registers, spills and stack, when `ptxas` ran.
    pub resources: Option<Resources>,
}

/// What the builder read of a module: its version and target, its entry points, the notes of
/// the source it checked against, and whether `ptxas` measured it. `Display` writes it for a
/// person, a line per entry point and a line of its parameters.
///
/// ```
/// let report = const_layout_builder::check(".version 8.3\n.target sm_90a\n.visible .entry k()\n{\n\tret;\n}\n", None).unwrap();
/// assert_eq!(report.to_string(), "\
/// PTX 8.3 for sm_90a: 1 entry point; no integer division or remainder, no local memory, no call
///   k: 1 instructions; parameters not checked (no source given)
///       (no parameters)
/// ptxas not run
/// ");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Report {
    /// `.version`.
    pub version: Option<String>,
    /// `.target`.
    pub target: Option<String>,
    /// The entry points, in the module's order.
    pub entries: Vec<EntryReport>,
    /// What the source reader noted (files it could not parse, declarations it could not read).
    pub source_notes: Vec<String>,
    /// Whether `ptxas` measured the module.
    pub ptxas: Ptxas,
    /// Whether every check passed (the report of a [`CheckFailed`](crate::CheckFailed) has
    /// `false`).
    pub checks_passed: bool,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.entries.len();
        writeln!(
            f,
            "PTX {} for {}: {n} entry point{}; {}",
            self.version.as_deref().unwrap_or("?"),
            self.target.as_deref().unwrap_or("?"),
            if n == 1 { "" } else { "s" },
            if self.checks_passed {
                "no integer division or remainder, no local memory, no call"
            } else {
                "the checks failed"
            }
        )?;
        for e in &self.entries {
            write!(f, "  {}: {} instructions", e.name, e.instructions)?;
            if let Some(b) = &e.launch_bounds {
                write!(f, "; launch bounds {b}")?;
            }
            if let Some(r) = &e.resources {
                write!(f, "; {r}")?;
            }
            writeln!(f, "; {}", e.params_check)?;
            let params: Vec<String> = e.params.iter().map(|p| p.to_string()).collect();
            writeln!(
                f,
                "      {}",
                if params.is_empty() { "(no parameters)".to_string() } else { params.join(", ") }
            )?;
        }
        writeln!(f, "{}", self.ptxas)?;
        for note in &self.source_notes {
            writeln!(f, "note: {note}")?;
        }
        Ok(())
    }
}

impl Report {
    /// Runs `ptxas -v` on the module at `ptx_file` for `arch` (writing its cubin to `cubin`) and
    /// adds what it says to each entry point.
    pub(crate) fn measure(&mut self, ptxas: Option<PathBuf>, ptx_file: &Path, arch: &str, cubin: &Path) {
        let Some(path) = ptxas else {
            self.ptxas = Ptxas::NotFound;
            return;
        };
        let out = Command::new(&path)
            .arg("-v")
            .arg(format!("-arch={arch}"))
            .arg(ptx_file)
            .arg("-o")
            .arg(cubin)
            .output();
        self.ptxas = match out {
            Err(e) => Ptxas::Failed { path, message: e.to_string() },
            Ok(out) => {
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                if out.status.success() {
                    let measured = parse_ptxas(&text);
                    for e in &mut self.entries {
                        e.resources = measured.get(&e.name).copied();
                    }
                    Ptxas::Ran { path }
                } else {
                    let message = text
                        .lines()
                        .find(|l| l.contains("error"))
                        .or_else(|| text.lines().next())
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    Ptxas::Failed { path, message: format!("{message} ({})", out.status) }
                }
            }
        };
    }
}

/// `ptxas` on PATH, in `$CUDA_HOME/bin` or in `/usr/local/cuda/bin`.
pub(crate) fn find_ptxas(path: Option<&OsStr>, cuda_home: Option<&OsStr>) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = path.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    if let Some(home) = cuda_home {
        dirs.push(Path::new(home).join("bin"));
    }
    dirs.push(PathBuf::from("/usr/local/cuda/bin"));
    dirs.into_iter().map(|d| d.join("ptxas")).find(|p| p.is_file())
}

/// The figures `ptxas -v` prints for each function:
///
/// ```text
/// ptxas info    : Compiling entry function 'copy_f32' for 'sm_90a'
/// ptxas info    : Function properties for copy_f32
///     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
/// ptxas info    : Used 26 registers, used 0 barriers, 448 bytes cmem[0]
/// ```
pub(crate) fn parse_ptxas(text: &str) -> HashMap<String, Resources> {
    let mut out: HashMap<String, Resources> = HashMap::new();
    let mut current: Option<String> = None;
    let number_before = |line: &str, word: &str| -> Option<u32> {
        let at = line.find(word)?;
        line[..at].split(|c: char| !c.is_ascii_digit()).rfind(|s| !s.is_empty())?.parse().ok()
    };
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            current = rest.split('\'').next().map(str::to_string);
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim().to_string());
        }
        let Some(name) = &current else { continue };
        let r = out.entry(name.clone()).or_default();
        if line.contains("bytes stack frame") {
            r.stack_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
            r.spill_store_bytes = number_before(line, "bytes spill stores").unwrap_or(0);
            r.spill_load_bytes = number_before(line, "bytes spill loads").unwrap_or(0);
        }
        if let Some(n) = number_before(line, " registers") {
            r.registers = n;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ptxas_output() {
        let text = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'copy_f32' for 'sm_90a'
ptxas info    : Function properties for copy_f32
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 26 registers, used 0 barriers, 448 bytes cmem[0]
ptxas info    : Compile time = 3.123 ms
ptxas info    : Compiling entry function 'sgemm_nt_f32' for 'sm_90a'
ptxas info    : Function properties for sgemm_nt_f32
    16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers, 424 bytes cmem[0]
";
        let got = parse_ptxas(text);
        assert_eq!(
            got["copy_f32"],
            Resources { registers: 26, stack_bytes: 0, spill_store_bytes: 0, spill_load_bytes: 0 }
        );
        assert_eq!(
            got["sgemm_nt_f32"],
            Resources { registers: 128, stack_bytes: 16, spill_store_bytes: 12, spill_load_bytes: 8 }
        );
        assert_eq!(
            got["sgemm_nt_f32"].to_string(),
            "128 registers, spills 12 B stored, 8 B loaded, 16 B stack"
        );
    }

    #[test]
    fn finds_ptxas() {
        let _serial = crate::toolchain::tests::serial();
        let dir = crate::toolchain::tests::temp_dir("ptxas");
        assert_eq!(find_ptxas(Some(dir.as_os_str()), None).filter(|p| p.starts_with(&dir)), None);
        std::fs::create_dir_all(dir.join("cuda/bin")).unwrap();
        crate::toolchain::tests::script(&dir.join("cuda/bin/ptxas"), "exit 0");
        assert_eq!(
            find_ptxas(Some(OsStr::new("/nonexistent")), Some(dir.join("cuda").as_os_str())),
            Some(dir.join("cuda/bin/ptxas"))
        );
        crate::toolchain::tests::script(&dir.join("ptxas"), "exit 0");
        assert_eq!(
            find_ptxas(Some(dir.as_os_str()), Some(dir.join("cuda").as_os_str())),
            Some(dir.join("ptxas"))
        );
    }

    #[test]
    fn measures_with_a_fake_ptxas() {
        let _serial = crate::toolchain::tests::serial();
        let dir = crate::toolchain::tests::temp_dir("ptxas-run");
        let ptxas = dir.join("ptxas");
        crate::toolchain::tests::script(
            &ptxas,
            "case \"$2\" in -arch=sm_90a) ;; *) echo \"ptxas fatal: bad arch $2\" >&2; exit 2;; esac\n\
             echo \"ptxas info    : Compiling entry function 'k' for 'sm_90a'\" >&2\n\
             echo \"ptxas info    : Function properties for k\" >&2\n\
             echo \"    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\" >&2\n\
             echo \"ptxas info    : Used 40 registers, used 0 barriers\" >&2",
        );
        let mut report = crate::check(".visible .entry k()\n{\n\tret;\n}\n", None).unwrap();
        report.measure(Some(ptxas.clone()), &dir.join("k.ptx"), "sm_90a", &dir.join("k.cubin"));
        assert_eq!(report.ptxas, Ptxas::Ran { path: ptxas.clone() });
        assert_eq!(
            report.entries[0].resources,
            Some(Resources { registers: 40, stack_bytes: 8, spill_store_bytes: 4, spill_load_bytes: 4 })
        );
        assert!(
            report
                .to_string()
                .contains("  k: 1 instructions; 40 registers, spills 4 B stored, 4 B loaded, 8 B stack;"),
            "{report}"
        );
        report.measure(Some(ptxas.clone()), &dir.join("k.ptx"), "sm_80", &dir.join("k.cubin"));
        assert_eq!(
            report.ptxas,
            Ptxas::Failed {
                path: ptxas,
                message: "ptxas fatal: bad arch -arch=sm_80 (exit status: 2)".into()
            }
        );
        report.measure(None, &dir.join("k.ptx"), "sm_90a", &dir.join("k.cubin"));
        assert_eq!(report.ptxas, Ptxas::NotFound);
    }
}
