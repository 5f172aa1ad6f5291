//! The builder: a kernel crate to a checked PTX module, from a build script or the tool.

use crate::check::{CheckFailed, check};
use crate::launch_bounds::apply_launch_bounds;
use crate::report::{Ptxas, Report, find_ptxas};
use crate::source::{SourceAbi, SourceError, rust_files};
use crate::toolchain::{CargoBuild, Resolved, Search, Toolchain, ToolchainError, resolve};
use crate::{ENV_MODE, ENV_TOOLCHAIN_DIR};
use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::str::FromStr;

/// Builds a kernel crate to PTX for `nvptx64-nvidia-cuda`, writes its launch bounds, and checks it.
///
/// ```no_run
/// // build.rs of a host crate whose kernels are the crate `../kernels`:
/// fn main() {
///     const_layout_builder::Builder::new("../kernels").build_script().unwrap();
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Builder {
    crate_dir: PathBuf,
    target_cpu: String,
    ptx_isa: String,
    toolchain: Toolchain,
    target_dir: Option<PathBuf>,
    output: Option<PathBuf>,
    locked: bool,
    ptxas: bool,
}

/// A built and checked PTX module.
///
/// ```no_run
/// let ptx = const_layout_builder::Builder::new("gpu/ptx").build().unwrap();
/// println!("{} ({} bytes, by {})", ptx.path.display(), ptx.text.len(), ptx.toolchain);
/// print!("{}", ptx.report);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ptx {
    /// The module's text, launch bounds written.
    pub text: String,
    /// Where it was written.
    pub path: PathBuf,
    /// Its entry points and what the checks and `ptxas` found.
    pub report: Report,
    /// The toolchain that built it: `Debian's rustc 1.96.0 (/usr/bin/rustc), llvm-bitcode-linker in DIR`.
    pub toolchain: String,
}

/// Why a build failed. `Display` is one line, but for failed checks: one line each.
///
/// ```
/// use const_layout_builder::{BuildError, Builder};
/// let err = Builder::new("/nonexistent/kernels").build().unwrap_err();
/// assert!(matches!(err, BuildError::Manifest { .. }));
/// assert!(err.to_string().starts_with("/nonexistent/kernels/Cargo.toml: "));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// A setting or an environment variable that cannot be: `CONST_LAYOUT_PTX=sometimes`, a
    /// target CPU with a quote, `build_script` outside a build script.
    Config(String),
    /// The kernel crate's `Cargo.toml` is missing or names no package.
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// No toolchain can build PTX here.
    Toolchain(ToolchainError),
    /// The nested `cargo build` failed (its errors are on standard error).
    Cargo {
        /// The command.
        command: String,
        /// How it ended.
        status: ExitStatus,
    },
    /// The build wrote no PTX where it should have.
    NoPtx {
        /// Where the PTX should be.
        path: PathBuf,
    },
    /// Reading or writing a file, or starting a program, failed.
    Io {
        /// The file or program.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The kernel crate's source could not be read.
    Source(SourceError),
    /// The module failed its checks (or a launch-bounds marker is wrong).
    Check(Box<CheckFailed>),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Config(m) => f.write_str(m),
            BuildError::Manifest { path, message } => write!(f, "{}: {message}", path.display()),
            BuildError::Toolchain(e) => e.fmt(f),
            BuildError::Cargo { command, status } => write!(f, "the PTX build failed ({status}): {command}"),
            BuildError::NoPtx { path } => write!(
                f,
                "the build wrote no PTX at {} (is the kernel crate's `[lib] crate-type = [\"cdylib\"]`?)",
                path.display()
            ),
            BuildError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            BuildError::Source(e) => e.fmt(f),
            BuildError::Check(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Toolchain(e) => Some(e),
            BuildError::Io { error, .. } => Some(error),
            BuildError::Source(e) => Some(e),
            BuildError::Check(e) => Some(&**e),
            _ => None,
        }
    }
}

impl From<ToolchainError> for BuildError {
    fn from(e: ToolchainError) -> Self {
        BuildError::Toolchain(e)
    }
}

impl From<SourceError> for BuildError {
    fn from(e: SourceError) -> Self {
        BuildError::Source(e)
    }
}

/// What `build_script` does when no toolchain is found: `CONST_LAYOUT_PTX` = `auto` (the
/// default: `PTX` is `None` and cargo prints a warning), `require` (an error), `skip` (never
/// build, no warning).
///
/// ```
/// use const_layout_builder::Mode;
/// assert_eq!("require".parse::<Mode>().unwrap(), Mode::Require);
/// assert_eq!("".parse::<Mode>().unwrap(), Mode::Auto);
/// assert!("sometimes".parse::<Mode>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Build where a toolchain is found; elsewhere `PTX` is `None`, with a cargo warning.
    #[default]
    Auto,
    /// Build; a missing toolchain is an error.
    Require,
    /// Never build: `PTX` is `None`.
    Skip,
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "" | "auto" => Ok(Mode::Auto),
            "require" => Ok(Mode::Require),
            "skip" => Ok(Mode::Skip),
            other => Err(format!("{ENV_MODE}={other}: expected auto, require or skip")),
        }
    }
}

impl Mode {
    /// The mode `CONST_LAYOUT_PTX` asks for (`auto` when it is unset).
    ///
    /// ```
    /// // Unset in doctests unless the caller set it.
    /// let mode = const_layout_builder::Mode::from_env();
    /// assert!(mode.is_ok() || std::env::var_os("CONST_LAYOUT_PTX").is_some());
    /// ```
    pub fn from_env() -> Result<Mode, BuildError> {
        mode_of(std::env::var_os(ENV_MODE))
    }
}

fn mode_of(value: Option<OsString>) -> Result<Mode, BuildError> {
    let Some(v) = value else { return Ok(Mode::Auto) };
    let v = v.into_string().map_err(|v| {
        BuildError::Config(format!("{ENV_MODE}={}: expected auto, require or skip", v.to_string_lossy()))
    })?;
    v.parse().map_err(BuildError::Config)
}

/// What a build script gets from cargo.
pub(crate) struct ScriptEnv {
    pub mode: Option<OsString>,
    pub out_dir: Option<PathBuf>,
}

impl Builder {
    /// The builder of the kernel crate in `crate_dir` (its `Cargo.toml`'s directory; relative to
    /// the current directory, which in a build script is the host crate's). Its library must be
    /// `crate-type = ["cdylib"]`: the PTX module is its link.
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("../kernels");
    /// assert_eq!(b, const_layout_builder::Builder::new("../kernels").target_cpu("sm_90a").ptx_isa("ptx83"));
    /// ```
    pub fn new(crate_dir: impl Into<PathBuf>) -> Builder {
        Builder {
            crate_dir: crate_dir.into(),
            target_cpu: "sm_90a".into(),
            ptx_isa: "ptx83".into(),
            toolchain: Toolchain::Auto,
            target_dir: None,
            output: None,
            locked: false,
            ptxas: true,
        }
    }

    /// The GPU architecture (`-Ctarget-cpu`): `sm_90a` by default (Hopper's `wgmma` and
    /// `setmaxnreg` need the `a`), `sm_80`, ...
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("../kernels").target_cpu("sm_80");
    /// # let _ = b;
    /// ```
    pub fn target_cpu(mut self, cpu: impl Into<String>) -> Builder {
        self.target_cpu = cpu.into();
        self
    }

    /// The PTX ISA version as LLVM's target feature (`-Ctarget-feature=+ptx83`): `ptx83` by
    /// default (PTX 8.3, CUDA 12.3); a leading `+` is allowed.
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("../kernels").ptx_isa("+ptx80");
    /// assert_eq!(b, const_layout_builder::Builder::new("../kernels").ptx_isa("ptx80"));
    /// ```
    pub fn ptx_isa(mut self, feature: impl Into<String>) -> Builder {
        let feature = feature.into();
        self.ptx_isa = feature.strip_prefix('+').unwrap_or(&feature).to_string();
        self
    }

    /// The toolchain: [`Toolchain::Auto`] by default (Debian's route, else rustup's nightly).
    ///
    /// ```
    /// use const_layout_builder::{Builder, Toolchain};
    /// let b = Builder::new("../kernels").toolchain(Toolchain::rustup("nightly-2026-05-01"));
    /// # let _ = b;
    /// ```
    pub fn toolchain(mut self, toolchain: Toolchain) -> Builder {
        self.toolchain = toolchain;
        self
    }

    /// The nested build's target directory. By default `CRATE_DIR/target` for
    /// [`build`](Builder::build), and `HOST_TARGET/const-layout-ptx/LIB` for
    /// [`build_script`](Builder::build_script) (the host build's target directory, the same for
    /// every host profile, so `core` is built once).
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("gpu/ptx").target_dir("target/ptx");
    /// # let _ = b;
    /// ```
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.target_dir = Some(dir.into());
        self
    }

    /// Where [`build`](Builder::build) writes the checked module: `TARGET_DIR/LIB.ptx` by default
    /// (a build script writes `$OUT_DIR/LIB.ptx`).
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("gpu/ptx").output("target/ptx/const_layout_kernels.ptx");
    /// # let _ = b;
    /// ```
    pub fn output(mut self, path: impl Into<PathBuf>) -> Builder {
        self.output = Some(path.into());
        self
    }

    /// Builds with `--locked` (the kernel crate's `Cargo.lock` as it is). Off by default.
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("gpu/ptx").locked(true);
    /// # let _ = b;
    /// ```
    pub fn locked(mut self, locked: bool) -> Builder {
        self.locked = locked;
        self
    }

    /// Whether to run `ptxas -v` (where it is installed) for each entry point's registers,
    /// spills and stack. On by default.
    ///
    /// ```
    /// let b = const_layout_builder::Builder::new("gpu/ptx").ptxas(false);
    /// # let _ = b;
    /// ```
    pub fn ptxas(mut self, run: bool) -> Builder {
        self.ptxas = run;
        self
    }

    /// Builds the kernel crate (`cargo build --release --target nvptx64-nvidia-cuda
    /// -Zbuild-std=core`, cargo's progress on standard error), writes its launch bounds, checks
    /// the module against the crate's source, writes it to [`output`](Builder::output), and
    /// measures it with `ptxas` where it is installed. A missing toolchain, a failed build and a
    /// failed check are errors.
    ///
    /// ```no_run
    /// let ptx = const_layout_builder::Builder::new("gpu/ptx").locked(true).build().unwrap();
    /// assert!(ptx.report.entries.iter().any(|e| e.name == "copy_f32"));
    /// ```
    pub fn build(&self) -> Result<Ptx, BuildError> {
        self.validate()?;
        let lib = lib_name(&self.crate_dir)?;
        let resolved = resolve(&self.toolchain, &Search::from_env(&self.crate_dir, None))?;
        let target_dir = self.target_dir.clone().unwrap_or_else(|| self.crate_dir.join("target"));
        let output = self.output.clone().unwrap_or_else(|| target_dir.join(format!("{lib}.ptx")));
        self.compile(&resolved, &lib, &target_dir, &output)
    }

    /// [`build`](Builder::build) for a host crate's `build.rs`. Tells cargo to run it again when
    /// the kernel crate's `Cargo.toml`, `Cargo.lock` or any source file it was built from changes
    /// (and `CONST_LAYOUT_PTX`, `CONST_LAYOUT_PTX_TOOLCHAIN` or `CUDA_HOME`), writes
    /// `$OUT_DIR/LIB.ptx` and `$OUT_DIR/LIB_ptx.rs`, which defines
    ///
    /// ```text
    /// pub const PTX: Option<&str>;       // the module, include_str!'d, or None
    /// pub const PTX_PATH: Option<&str>;  // its file, or None
    /// pub const PTX_REPORT: Option<&str>; // the build's report (what `const-layout-ptx build`
    ///                                     // prints: entry points, launch bounds, registers), or None
    /// ```
    ///
    /// for the host crate to `include!(concat!(env!("OUT_DIR"), "/LIB_ptx.rs"))`. Where no
    /// toolchain is found it succeeds with `PTX = None` and one `cargo:warning` naming what is
    /// missing and how to install it, so that `cargo test` runs on any machine (the kernels run
    /// on the CPU emulator there); `CONST_LAYOUT_PTX=require` makes that an error,
    /// `CONST_LAYOUT_PTX=skip` never builds. Returns the module, or `None` when it was not built.
    ///
    /// ```no_run
    /// // build.rs
    /// fn main() {
    ///     const_layout_builder::Builder::new("../kernels").target_cpu("sm_90a").build_script().unwrap();
    /// }
    /// // src/lib.rs of the host crate:
    /// // include!(concat!(env!("OUT_DIR"), "/kernels_ptx.rs"));
    /// ```
    pub fn build_script(&self) -> Result<Option<Ptx>, BuildError> {
        let env = ScriptEnv {
            mode: std::env::var_os(ENV_MODE),
            out_dir: std::env::var_os("OUT_DIR").map(PathBuf::from),
        };
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        self.build_script_with(&env, &mut out, Search::from_env)
    }

    pub(crate) fn build_script_with(
        &self,
        env: &ScriptEnv,
        cargo: &mut dyn Write,
        search: impl FnOnce(&Path, Option<&Path>) -> Search,
    ) -> Result<Option<Ptx>, BuildError> {
        let say = |cargo: &mut dyn Write, line: String| {
            writeln!(cargo, "{line}")
                .map_err(|error| BuildError::Io { path: PathBuf::from("standard output"), error })
        };
        for var in [ENV_MODE, ENV_TOOLCHAIN_DIR, "CUDA_HOME"] {
            say(cargo, format!("cargo:rerun-if-env-changed={var}"))?;
        }
        let mode = mode_of(env.mode.clone())?;
        self.validate()?;
        let out_dir = env.out_dir.clone().ok_or_else(|| {
            BuildError::Config("OUT_DIR is not set: build_script runs in a build script".into())
        })?;
        let lib = lib_name(&self.crate_dir)?;
        let manifest = self.crate_dir.join("Cargo.toml");
        let lock = self.crate_dir.join("Cargo.lock");
        say(cargo, format!("cargo:rerun-if-changed={}", manifest.display()))?;
        if lock.is_file() {
            say(cargo, format!("cargo:rerun-if-changed={}", lock.display()))?;
        }
        for file in rust_files(&self.crate_dir.join("src"))? {
            say(cargo, format!("cargo:rerun-if-changed={}", file.display()))?;
        }
        let rs = out_dir.join(format!("{lib}_ptx.rs"));
        let ptx_file = out_dir.join(format!("{lib}.ptx"));
        let none = |why: &str| -> Result<Option<Ptx>, BuildError> {
            let _ = std::fs::remove_file(&ptx_file);
            write(&rs, &generated_none(&lib, why))?;
            Ok(None)
        };
        if mode == Mode::Skip {
            return none(&format!("{ENV_MODE}=skip"));
        }
        let host_target = host_target_dir(&out_dir);
        let resolved = match resolve(&self.toolchain, &search(&self.crate_dir, Some(&host_target))) {
            Ok(r) => r,
            Err(e) if mode == Mode::Auto => {
                say(
                    cargo,
                    format!(
                        "cargo:warning=const-layout-builder: {}: PTX is None: {e} ({ENV_MODE}=skip silences this, {ENV_MODE}=require makes it an error)",
                        self.crate_dir.display()
                    ),
                )?;
                return none("no PTX toolchain was found");
            }
            Err(e) => return Err(e.into()),
        };
        let target_dir =
            self.target_dir.clone().unwrap_or_else(|| host_target.join("const-layout-ptx").join(&lib));
        let ptx = self.compile(&resolved, &lib, &target_dir, &ptx_file)?;
        // Every file the module was built from (the kernel crate's path dependencies too).
        let dep_info = target_dir.join("nvptx64-nvidia-cuda/release").join(format!("{lib}.d"));
        if let Ok(text) = std::fs::read_to_string(&dep_info) {
            for path in dep_info_paths(&text) {
                say(cargo, format!("cargo:rerun-if-changed={}", path.display()))?;
            }
        }
        if let Ptxas::Failed { .. } = &ptx.report.ptxas {
            say(cargo, format!("cargo:warning=const-layout-builder: {}", ptx.report.ptxas))?;
        }
        let _ = write!(std::io::stderr(), "{}", ptx.report);
        let path = ptx
            .path
            .to_str()
            .ok_or_else(|| BuildError::Config(format!("{} is not UTF-8", ptx.path.display())))?;
        write(&rs, &generated_some(&lib, path, &ptx.report.to_string()))?;
        Ok(Some(ptx))
    }

    fn validate(&self) -> Result<(), BuildError> {
        let ok = |s: &str| {
            !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        };
        if !ok(&self.target_cpu) {
            return Err(BuildError::Config(format!(
                "target CPU `{}`: expected a name like sm_90a",
                self.target_cpu
            )));
        }
        if !ok(&self.ptx_isa) {
            return Err(BuildError::Config(format!(
                "PTX ISA `{}`: expected a feature like ptx83",
                self.ptx_isa
            )));
        }
        Ok(())
    }

    fn compile(
        &self,
        resolved: &Resolved,
        lib: &str,
        target_dir: &Path,
        output: &Path,
    ) -> Result<Ptx, BuildError> {
        // The nested cargo runs in the kernel crate's directory: paths given relative to ours
        // are made absolute first.
        let absolute = |p: &Path| {
            std::path::absolute(p).map_err(|error| BuildError::Io { path: p.to_path_buf(), error })
        };
        let crate_dir = absolute(&self.crate_dir)?;
        let target_dir = &absolute(target_dir)?;
        let build = CargoBuild {
            crate_dir: &crate_dir,
            target_dir,
            target_cpu: &self.target_cpu,
            ptx_isa: &self.ptx_isa,
            locked: self.locked,
        };
        let mut cmd = resolved.cargo_build(&build);
        // Cargo's progress goes to standard error; standard output is a build script's channel to
        // the outer cargo, so nothing of the nested build goes there.
        cmd.stdin(Stdio::null()).stdout(Stdio::from(std::io::stderr()));
        let args: Vec<String> = cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let command = format!(
            "{} {} (in {})",
            cmd.get_program().to_string_lossy(),
            args.join(" "),
            crate_dir.display()
        );
        let status =
            cmd.status().map_err(|error| BuildError::Io { path: PathBuf::from(cmd.get_program()), error })?;
        if !status.success() {
            return Err(BuildError::Cargo { command, status });
        }
        let artifact = target_dir.join("nvptx64-nvidia-cuda/release").join(format!("{lib}.ptx"));
        let raw = match std::fs::read_to_string(&artifact) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BuildError::NoPtx { path: artifact });
            }
            Err(error) => return Err(BuildError::Io { path: artifact, error }),
        };
        let text =
            apply_launch_bounds(&raw).map_err(|e| BuildError::Check(Box::new(e.with_file(&artifact))))?;
        write(output, &text)?;
        let source = SourceAbi::from_crate(&self.crate_dir)?;
        let mut report =
            check(&text, Some(&source)).map_err(|e| BuildError::Check(Box::new(e.with_file(output))))?;
        if self.ptxas {
            let ptxas =
                find_ptxas(std::env::var_os("PATH").as_deref(), std::env::var_os("CUDA_HOME").as_deref());
            report.measure(ptxas, output, &self.target_cpu, &output.with_extension("cubin"));
        }
        Ok(Ptx { text, path: output.to_path_buf(), report, toolchain: resolved.description.clone() })
    }
}

fn write(path: &Path, text: &str) -> Result<(), BuildError> {
    let io = |error| BuildError::Io { path: path.to_path_buf(), error };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(path, text).map_err(io)
}

/// The kernel crate's library name: `[lib] name`, else the package's name with `-` as `_`.
pub(crate) fn lib_name(crate_dir: &Path) -> Result<String, BuildError> {
    let path = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| BuildError::Manifest { path: path.clone(), message: e.to_string() })?;
    lib_name_of(&text).ok_or(BuildError::Manifest { path, message: "no package name".into() })
}

/// `[lib] name` or `[package] name` of a manifest (the keys as `cargo new` writes them, or
/// dotted at the top).
pub(crate) fn lib_name_of(manifest: &str) -> Option<String> {
    let (mut section, mut package, mut lib) = (String::new(), None, None);
    for line in manifest.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            section = line.trim_matches(['[', ']', ' ']).to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let key = key.trim();
        let full = if section.is_empty() { key.to_string() } else { format!("{section}.{key}") };
        let value = value.trim().trim_matches(['"', '\'']).to_string();
        match full.as_str() {
            "package.name" => package = Some(value),
            "lib.name" => lib = Some(value),
            _ => {}
        }
    }
    lib.or(package.map(|p| p.replace('-', "_"))).filter(|n| !n.is_empty())
}

/// The host build's target directory from a build script's `OUT_DIR`
/// (`TARGET/[TRIPLE/]PROFILE/build/PKG-HASH/out`): the ancestor cargo marked with
/// `CACHEDIR.TAG`, else the one above `PROFILE/build`.
pub(crate) fn host_target_dir(out_dir: &Path) -> PathBuf {
    if let Some(t) = out_dir.ancestors().find(|a| a.join("CACHEDIR.TAG").is_file()) {
        return t.to_path_buf();
    }
    out_dir
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "build"))
        .and_then(|b| b.parent()?.parent())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| out_dir.to_path_buf())
}

/// The files of a dep-info file (`target: file file ...`, spaces in names escaped).
pub(crate) fn dep_info_paths(text: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for line in text.lines() {
        let Some((_, deps)) = line.split_once(": ") else { continue };
        let mut current = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => current.push(chars.next().unwrap_or(' ')),
                c if c.is_whitespace() => {
                    if !current.is_empty() {
                        out.push(PathBuf::from(std::mem::take(&mut current)));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            out.push(PathBuf::from(current));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn generated_some(lib: &str, path: &str, report: &str) -> String {
    format!(
        "// Written by const-layout-builder's build_script.\n\
         /// The PTX module of the kernel crate `{lib}`, built and checked by const-layout-builder (or\n\
         /// `None` where it was not built).\n\
         pub const PTX: Option<&str> = Some(include_str!({path:?}));\n\
         /// The file of [`PTX`] (or `None`).\n\
         pub const PTX_PATH: Option<&str> = Some({path:?});\n\
         /// The build's report: each entry point's parameters, instructions, launch bounds and,\n\
         /// where ptxas ran, registers and spills (or `None`).\n\
         pub const PTX_REPORT: Option<&str> = Some({report:?});\n"
    )
}

fn generated_none(lib: &str, why: &str) -> String {
    format!(
        "// Written by const-layout-builder's build_script.\n\
         /// The PTX module of the kernel crate `{lib}`: `None`, it was not built ({why}).\n\
         pub const PTX: Option<&str> = None;\n\
         /// The file of [`PTX`]: `None`, it was not built.\n\
         pub const PTX_PATH: Option<&str> = None;\n\
         /// The build's report: `None`, it was not built.\n\
         pub const PTX_REPORT: Option<&str> = None;\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolchain::tests::{script, serial, temp_dir};

    #[test]
    fn library_names() {
        assert_eq!(
            lib_name_of("[package]\nname = \"my-kernels\"\nversion = \"0.1.0\"\n").as_deref(),
            Some("my_kernels")
        );
        assert_eq!(
            lib_name_of("[package]\nname = \"const-layout-ptx\" # the module\n\n[lib]\ncrate-type = [\"cdylib\"]\nname = \"kernels\"\n[dependencies]\nname = \"x\"\n").as_deref(),
            Some("kernels")
        );
        assert_eq!(lib_name_of("package.name = 'dotted'\n").as_deref(), Some("dotted"));
        assert_eq!(lib_name_of("[workspace]\n"), None);
    }

    #[test]
    fn target_dirs_from_out_dir() {
        let root = temp_dir("out-dir");
        let out = root.join("target/debug/build/host-1234/out");
        std::fs::create_dir_all(&out).unwrap();
        assert_eq!(host_target_dir(&out), root.join("target"));
        let out = root.join("t2/x86_64-unknown-linux-gnu/release/build/host-1234/out");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(root.join("t2/CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55").unwrap();
        assert_eq!(host_target_dir(&out), root.join("t2"));
    }

    #[test]
    fn dep_info() {
        let text = "/t/release/k.ptx: /src/k/src/lib.rs /src/my\\ dir/a.rs /src/k/src/lib.rs\n\n/t/release/libk.rlib: /src/k/src/b.rs\n";
        assert_eq!(
            dep_info_paths(text),
            [PathBuf::from("/src/k/src/b.rs"), "/src/k/src/lib.rs".into(), "/src/my dir/a.rs".into()]
        );
    }

    #[test]
    fn modes() {
        assert_eq!(mode_of(None).unwrap(), Mode::Auto);
        assert_eq!(mode_of(Some("skip".into())).unwrap(), Mode::Skip);
        assert_eq!(
            mode_of(Some("yes".into())).unwrap_err().to_string(),
            "CONST_LAYOUT_PTX=yes: expected auto, require or skip"
        );
    }

    #[test]
    fn settings_are_checked() {
        let e = Builder::new(".").target_cpu("sm_90\"]").build().unwrap_err();
        assert_eq!(e.to_string(), "target CPU `sm_90\"]`: expected a name like sm_90a");
        let e = Builder::new(".").ptx_isa("").build().unwrap_err();
        assert_eq!(e.to_string(), "PTX ISA ``: expected a feature like ptx83");
    }

    /// A kernel crate with one source file, and a build script's `OUT_DIR` for it.
    fn kernel_crate(name: &str) -> (PathBuf, PathBuf) {
        let root = temp_dir(name);
        let k = root.join("kernels");
        std::fs::create_dir_all(k.join("src")).unwrap();
        std::fs::write(
            k.join("Cargo.toml"),
            "[package]\nname = \"my-kernels\"\n[lib]\ncrate-type = [\"cdylib\"]\n",
        )
        .unwrap();
        std::fs::write(k.join("src/lib.rs"), "").unwrap();
        let out = root.join("target/debug/build/host-0/out");
        std::fs::create_dir_all(&out).unwrap();
        (k, out)
    }

    fn no_toolchain(_: &Path, _: Option<&Path>) -> Search {
        Search {
            path: OsString::from("/nonexistent"),
            toolchain_dir: None,
            extra_dirs: Vec::new(),
            llvm_root: PathBuf::from("/nonexistent"),
            debian: Toolchain::Debian {
                rustc: "/nonexistent/rustc".into(),
                cargo: "/nonexistent/cargo".into(),
                linker_dir: None,
            },
        }
    }

    fn run(b: &Builder, mode: Option<&str>, out_dir: &Path) -> (Result<Option<Ptx>, BuildError>, String) {
        let env = ScriptEnv { mode: mode.map(OsString::from), out_dir: Some(out_dir.to_path_buf()) };
        let mut said = Vec::new();
        let r = b.build_script_with(&env, &mut said, no_toolchain);
        (r, String::from_utf8(said).unwrap())
    }

    #[test]
    fn build_script_without_a_toolchain() {
        let _serial = serial();
        let (k, out) = kernel_crate("script-auto");
        std::fs::write(out.join("my_kernels.ptx"), "stale").unwrap();
        let (r, said) = run(&Builder::new(&k), None, &out);
        assert!(r.unwrap().is_none());
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[..6],
            [
                "cargo:rerun-if-env-changed=CONST_LAYOUT_PTX",
                "cargo:rerun-if-env-changed=CONST_LAYOUT_PTX_TOOLCHAIN",
                "cargo:rerun-if-env-changed=CUDA_HOME",
                &format!("cargo:rerun-if-changed={}", k.join("Cargo.toml").display()),
                &format!("cargo:rerun-if-changed={}", k.join("src/lib.rs").display()),
                &format!(
                    "cargo:warning=const-layout-builder: {}: PTX is None: no PTX toolchain: Debian's route: `/nonexistent/rustc` not found; \
                     rustup's route (nightly): rustup not found on PATH; install: {}, or rustup toolchain install nightly -c rust-src -c llvm-tools \
                     -c llvm-bitcode-linker (CONST_LAYOUT_PTX=skip silences this, CONST_LAYOUT_PTX=require makes it an error)",
                    k.display(),
                    crate::toolchain::DEBIAN_INSTALL
                ),
            ]
        );
        assert_eq!(lines.len(), 6);
        let rs = std::fs::read_to_string(out.join("my_kernels_ptx.rs")).unwrap();
        assert!(
            rs.contains("pub const PTX: Option<&str> = None;") && rs.contains("(no PTX toolchain was found)"),
            "{rs}"
        );
        assert!(!out.join("my_kernels.ptx").exists());
        syn::parse_file(&rs).unwrap();
    }

    #[test]
    fn build_script_require_and_skip() {
        let _serial = serial();
        let (k, out) = kernel_crate("script-require");
        let (r, said) = run(&Builder::new(&k), Some("require"), &out);
        assert!(matches!(r, Err(BuildError::Toolchain(_))));
        assert!(!said.contains("cargo:warning"));
        let (r, said) = run(&Builder::new(&k), Some("skip"), &out);
        assert!(r.unwrap().is_none());
        assert!(!said.contains("cargo:warning"));
        let rs = std::fs::read_to_string(out.join("my_kernels_ptx.rs")).unwrap();
        assert!(rs.contains("it was not built (CONST_LAYOUT_PTX=skip)"), "{rs}");
        let (r, _) = run(&Builder::new(&k), Some("always"), &out);
        assert_eq!(r.unwrap_err().to_string(), "CONST_LAYOUT_PTX=always: expected auto, require or skip");
        let env = ScriptEnv { mode: None, out_dir: None };
        let e = Builder::new(&k).build_script_with(&env, &mut Vec::new(), no_toolchain).unwrap_err();
        assert_eq!(e.to_string(), "OUT_DIR is not set: build_script runs in a build script");
    }

    #[test]
    fn generated_files_are_rust() {
        let some = generated_some("k", "/out dir/k \"1\".ptx", "k: 12 instructions\n  \"quoted\"\n");
        let file = syn::parse_file(&some).unwrap();
        assert_eq!(file.items.len(), 3);
        assert!(some.contains(r#"include_str!("/out dir/k \"1\".ptx")"#), "{some}");
        assert!(some.contains(r#"Some("k: 12 instructions\n  \"quoted\"\n")"#), "{some}");
        let none = generated_none("k", "no toolchain");
        assert_eq!(syn::parse_file(&none).unwrap().items.len(), 3);
    }

    #[test]
    fn a_failing_nested_build_is_an_error() {
        let _serial = serial();
        // A fake Debian toolchain whose cargo fails: the build's error names the command.
        let root = temp_dir("failing-cargo");
        let sysroot = root.join("sysroot");
        std::fs::create_dir_all(sysroot.join("lib/rustlib/src/rust/library/core")).unwrap();
        script(
            &root.join("bin/rustc"),
            &format!(
                "case \"$1\" in -vV) printf 'release: 1.96.0\\nLLVM version: 22.1.8\\n';; --print) echo '{}';; esac",
                sysroot.display()
            ),
        );
        script(&root.join("bin/cargo"), "echo 'error: could not compile' >&2; exit 101");
        for t in ["llvm-bitcode-linker", "llc", "opt", "llvm-link"] {
            script(&root.join("lbl").join(t), "exit 0");
        }
        let (k, _) = kernel_crate("failing-cargo-crate");
        let b = Builder::new(&k).toolchain(Toolchain::Debian {
            rustc: root.join("bin/rustc"),
            cargo: root.join("bin/cargo"),
            linker_dir: Some(root.join("lbl")),
        });
        let e = b.build().unwrap_err();
        let BuildError::Cargo { status, command } = &e else { panic!("{e}") };
        assert_eq!(status.code(), Some(101));
        assert!(command.contains("-Zbuild-std=core"), "{command}");
        // A cargo that succeeds but writes nothing: no PTX.
        script(&root.join("bin/cargo"), "exit 0");
        let e = b.build().unwrap_err();
        assert!(matches!(e, BuildError::NoPtx { .. }), "{e}");
        assert!(
            e.to_string()
                .ends_with("my_kernels.ptx (is the kernel crate's `[lib] crate-type = [\"cdylib\"]`?)"),
            "{e}"
        );
        // One that writes a module that fails a check: the failure names the written file.
        script(
            &root.join("bin/cargo"),
            "while [ \"$1\" != --target-dir ]; do shift; done; d=\"$2/nvptx64-nvidia-cuda/release\"; mkdir -p \"$d\"; \
             printf '.visible .entry k()\\n{\\n\\trem.u32 %%r1, %%r2, %%r3;\\n}\\n' > \"$d/my_kernels.ptx\"",
        );
        let e = b.clone().ptxas(false).build().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}:3: k: an integer division or remainder: rem.u32 %r1, %r2, %r3",
                k.join("target/my_kernels.ptx").display()
            )
        );
        // And one whose module passes: the report, launch bounds written.
        script(
            &root.join("bin/cargo"),
            "while [ \"$1\" != --target-dir ]; do shift; done; d=\"$2/nvptx64-nvidia-cuda/release\"; mkdir -p \"$d\"; \
             printf '// const-layout: launch_bounds k 64 1\\n.visible .entry k()\\n{\\n\\tret;\\n}\\n' > \"$d/my_kernels.ptx\"",
        );
        let ptx = b.clone().ptxas(false).output(root.join("out/k.ptx")).build().unwrap();
        assert_eq!(ptx.path, root.join("out/k.ptx"));
        assert_eq!(std::fs::read_to_string(&ptx.path).unwrap(), ptx.text);
        assert!(ptx.text.contains(".maxntid 64, 1, 1\n.minnctapersm 1\n{"));
        assert_eq!(ptx.report.entries[0].launch_bounds.as_ref().map(|b| b.max_threads), Some(64));
        assert!(ptx.toolchain.starts_with("Debian's rustc 1.96.0"));
    }
}
