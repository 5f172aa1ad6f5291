//! Which Rust toolchain builds the PTX, and the nested `cargo build` that does.
//!
//! Two routes, both `-Zbuild-std=core` for `nvptx64-nvidia-cuda` linked by `llvm-bitcode-linker`:
//! Debian's packaged rustc (1.96 or newer, with its library source, on a stable channel made to
//! accept `-Z` by `RUSTC_BOOTSTRAP=1`), or a rustup nightly with the `rust-src`, `llvm-tools` and
//! `llvm-bitcode-linker` components.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;

/// The command that installs Debian's route.
pub(crate) const DEBIAN_INSTALL: &str = "const-layout-ptx install-toolchain (Debian's rustc-web, cargo-web, rust-web-src and llvm, and llvm-bitcode-linker built from rustc's source; apt-get needs root)";

/// The script that installs Debian's route into a directory (`DIR/bin`), as
/// `const-layout-ptx install-toolchain` runs it; printed by `const-layout-ptx install-toolchain
/// --print`. Idempotent: it installs only what is missing.
///
/// ```
/// assert!(const_layout_builder::INSTALL_SCRIPT.contains("llvm-bitcode-linker"));
/// ```
pub const INSTALL_SCRIPT: &str = include_str!("../ptx-toolchain.sh");

/// Where `const-layout-ptx install-toolchain` installs Debian's route by default and where the
/// builder looks for it, for any kernel crate: `$CARGO_HOME/const-layout-ptx` (`~/.cargo` when
/// `CARGO_HOME` is not set); the linker is in its `bin`. `None` without a home directory.
///
/// ```
/// if let Some(dir) = const_layout_builder::user_toolchain_dir() {
///     assert!(dir.ends_with("const-layout-ptx"));
/// }
/// ```
pub fn user_toolchain_dir() -> Option<PathBuf> {
    let cargo_home =
        std::env::var_os("CARGO_HOME").filter(|d| !d.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|d| !d.is_empty()).map(|h| PathBuf::from(h).join(".cargo"))
        })?;
    Some(cargo_home.join("const-layout-ptx"))
}

/// Installs Debian's route into `dir` (`dir/bin` then holds `llvm-bitcode-linker` and links to
/// LLVM's tools) by running [`INSTALL_SCRIPT`] with bash (a copy left in `dir`); returns
/// `dir/bin`. The script reports its steps on standard error.
pub fn install_toolchain(dir: &Path) -> std::io::Result<PathBuf> {
    let fail = |what: &str, e: &dyn fmt::Display| std::io::Error::other(format!("{what}: {e}"));
    std::fs::create_dir_all(dir).map_err(|e| fail(&format!("cannot create {}", dir.display()), &e))?;
    let script = dir.join("ptx-toolchain.sh");
    std::fs::write(&script, INSTALL_SCRIPT)
        .map_err(|e| fail(&format!("cannot write {}", script.display()), &e))?;
    let status = Command::new("bash")
        .arg(&script)
        .arg(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .map_err(|e| fail("cannot run bash", &e))?;
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "the install script {} failed ({status})",
            script.display()
        )));
    }
    Ok(dir.join("bin"))
}

/// The oldest Debian rustc the route takes.
const DEBIAN_MIN: (u32, u32) = (1, 96);

/// The toolchain that builds the PTX.
///
/// ```
/// use const_layout_builder::Toolchain;
/// assert_eq!("auto".parse::<Toolchain>().unwrap(), Toolchain::Auto);
/// assert_eq!("rustup".parse::<Toolchain>().unwrap(), Toolchain::rustup("nightly"));
/// assert_eq!("rustup:nightly-2026-05-01".parse::<Toolchain>().unwrap().to_string(), "rustup:nightly-2026-05-01");
/// assert_eq!("debian".parse::<Toolchain>().unwrap(), Toolchain::debian());
/// assert!("gcc".parse::<Toolchain>().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Toolchain {
    /// Debian's route if it is complete, else rustup's nightly.
    #[default]
    Auto,
    /// Debian's packaged rustc (`rustc-web`, 1.96 or newer) with its library source
    /// (`rust-web-src`), `RUSTC_BOOTSTRAP=1`, and `llvm-bitcode-linker` with LLVM's `llc`, `opt`
    /// and `llvm-link` of rustc's LLVM version.
    Debian {
        /// The compiler (`/usr/bin/rustc`).
        rustc: PathBuf,
        /// Cargo (`/usr/bin/cargo`).
        cargo: PathBuf,
        /// The directory holding `llvm-bitcode-linker`; `None`: `$CONST_LAYOUT_PTX_TOOLCHAIN`, then
        /// PATH, then `target/ptx-toolchain/bin` of the kernel crate's directory or one above it
        /// (or of the host build's target directory; const-layout's repository installs it
        /// there), then [`user_toolchain_dir`]`/bin`, where `const-layout-ptx install-toolchain`
        /// installs it.
        linker_dir: Option<PathBuf>,
    },
    /// A rustup toolchain (a nightly) with the `rust-src`, `llvm-tools` and
    /// `llvm-bitcode-linker` components: `rustup run CHANNEL cargo build -Zbuild-std=core ...`.
    Rustup {
        /// The toolchain: `nightly`, `nightly-2026-05-01`, ...
        channel: String,
    },
}

impl Toolchain {
    /// Debian's route with its packages' paths: `/usr/bin/rustc`, `/usr/bin/cargo`, the linker
    /// searched for.
    ///
    /// ```
    /// use const_layout_builder::Toolchain;
    /// let Toolchain::Debian { rustc, .. } = Toolchain::debian() else { unreachable!() };
    /// assert_eq!(rustc, std::path::Path::new("/usr/bin/rustc"));
    /// ```
    pub fn debian() -> Toolchain {
        Toolchain::Debian { rustc: "/usr/bin/rustc".into(), cargo: "/usr/bin/cargo".into(), linker_dir: None }
    }

    /// rustup's route with the toolchain `channel`.
    ///
    /// ```
    /// use const_layout_builder::Toolchain;
    /// assert_eq!(Toolchain::rustup("nightly"), Toolchain::Rustup { channel: "nightly".into() });
    /// ```
    pub fn rustup(channel: impl Into<String>) -> Toolchain {
        Toolchain::Rustup { channel: channel.into() }
    }
}

/// `auto`, `debian`, `debian:RUSTC` (cargo beside it), `rustup`, `rustup:CHANNEL`.
impl FromStr for Toolchain {
    type Err = String;

    fn from_str(s: &str) -> Result<Toolchain, String> {
        match s.split_once(':') {
            None if s == "auto" => Ok(Toolchain::Auto),
            None if s == "debian" => Ok(Toolchain::debian()),
            None if s == "rustup" => Ok(Toolchain::rustup("nightly")),
            Some(("rustup", channel)) if !channel.is_empty() => Ok(Toolchain::rustup(channel)),
            Some(("debian", rustc)) if !rustc.is_empty() => {
                let rustc = PathBuf::from(rustc);
                let cargo = rustc.with_file_name("cargo");
                Ok(Toolchain::Debian { rustc, cargo, linker_dir: None })
            }
            _ => {
                Err(format!("unknown toolchain `{s}` (auto, debian, debian:RUSTC, rustup or rustup:CHANNEL)"))
            }
        }
    }
}

impl fmt::Display for Toolchain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Toolchain::Auto => f.write_str("auto"),
            Toolchain::Debian { .. } if *self == Toolchain::debian() => f.write_str("debian"),
            Toolchain::Debian { rustc, .. } => write!(f, "debian:{}", rustc.display()),
            Toolchain::Rustup { channel } => write!(f, "rustup:{channel}"),
        }
    }
}

/// No toolchain could build the PTX: what each route lacks and the commands that install one.
/// One line.
///
/// ```
/// use const_layout_builder::{Builder, BuildError, Toolchain};
/// let b = Builder::new(".").toolchain(Toolchain::Debian {
///     rustc: "/nonexistent/rustc".into(), cargo: "/nonexistent/cargo".into(), linker_dir: None });
/// let Err(BuildError::Toolchain(e)) = b.build() else { panic!() };
/// assert!(e.to_string().starts_with("no PTX toolchain: Debian's route: `/nonexistent/rustc` not found; install: const-layout-ptx install-toolchain"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolchainError {
    /// Each route tried and what it lacks: `("Debian's route", "`/usr/bin/rustc` not found")`.
    pub tried: Vec<(String, String)>,
    /// The commands that would install a route.
    pub install: Vec<String>,
}

impl fmt::Display for ToolchainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tried: Vec<String> =
            self.tried.iter().map(|(route, missing)| format!("{route}: {missing}")).collect();
        write!(f, "no PTX toolchain: {}; install: {}", tried.join("; "), self.install.join(", or "))
    }
}

impl std::error::Error for ToolchainError {}

/// Where to look for the tools, from the environment (or a test's fake one).
#[derive(Clone, Debug)]
pub(crate) struct Search {
    /// PATH.
    pub path: OsString,
    /// `$CONST_LAYOUT_PTX_TOOLCHAIN`: a directory with `llvm-bitcode-linker`.
    pub toolchain_dir: Option<PathBuf>,
    /// More directories that may hold `llvm-bitcode-linker` (`target/ptx-toolchain/bin`).
    pub extra_dirs: Vec<PathBuf>,
    /// Where Debian installs LLVM (`/usr/lib`, with `llvm-N/bin`).
    pub llvm_root: PathBuf,
    /// Debian's route for `Toolchain::Auto`.
    pub debian: Toolchain,
}

impl Search {
    /// From the environment, for the kernel crate at `crate_dir` (and the host build's target
    /// directory, in a build script).
    pub(crate) fn from_env(crate_dir: &Path, host_target: Option<&Path>) -> Search {
        let crate_dir = std::fs::canonicalize(crate_dir).unwrap_or_else(|_| crate_dir.to_path_buf());
        let mut extra_dirs: Vec<PathBuf> =
            crate_dir.ancestors().map(|a| a.join("target/ptx-toolchain/bin")).collect();
        if let Some(t) = host_target {
            extra_dirs.push(t.join("ptx-toolchain/bin"));
        }
        extra_dirs.extend(user_toolchain_dir().map(|d| d.join("bin")));
        Search {
            path: std::env::var_os("PATH").unwrap_or_default(),
            toolchain_dir: std::env::var_os(crate::ENV_TOOLCHAIN_DIR)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
            extra_dirs,
            llvm_root: PathBuf::from("/usr/lib"),
            debian: Toolchain::debian(),
        }
    }

    fn path_dirs(&self) -> Vec<PathBuf> {
        std::env::split_paths(&self.path).collect()
    }

    /// `name` in one of PATH's directories.
    fn on_path(&self, name: &str) -> Option<PathBuf> {
        self.path_dirs().into_iter().map(|d| d.join(name)).find(|p| p.is_file())
    }
}

/// A toolchain found complete: how to run its cargo.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    /// For the report: `Debian's rustc 1.96.0 (/usr/bin/rustc), llvm-bitcode-linker in DIR`.
    pub description: String,
    program: PathBuf,
    prefix: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    path: OsString,
}

/// What the nested cargo builds.
pub(crate) struct CargoBuild<'a> {
    pub crate_dir: &'a Path,
    pub target_dir: &'a Path,
    pub target_cpu: &'a str,
    pub ptx_isa: &'a str,
    pub locked: bool,
}

impl Resolved {
    /// `cargo build --release --target nvptx64-nvidia-cuda -Zbuild-std=core` of the kernel crate,
    /// in an environment without the outer cargo's build variables.
    pub(crate) fn cargo_build(&self, b: &CargoBuild<'_>) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.prefix);
        cmd.args(["build", "--release", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core"]);
        cmd.arg("--manifest-path").arg(b.crate_dir.join("Cargo.toml"));
        cmd.arg("--target-dir").arg(b.target_dir);
        cmd.arg("--config").arg(format!(
            "target.nvptx64-nvidia-cuda.rustflags=[\"-Ctarget-cpu={}\", \"-Ctarget-feature=+{}\"]",
            b.target_cpu, b.ptx_isa
        ));
        if b.locked {
            cmd.arg("--locked");
        }
        cmd.current_dir(b.crate_dir);
        self.environment(&mut cmd);
        // What a PTX module needs of its release profile, whatever the kernel crate's workspace
        // says (a kernel crate is often a member of the host's workspace, for its host build):
        // everything inlined into the entry points, one module, no unwinding.
        for (k, v) in [
            ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3"),
            ("CARGO_PROFILE_RELEASE_LTO", "fat"),
            ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1"),
            ("CARGO_PROFILE_RELEASE_PANIC", "abort"),
            ("CARGO_PROFILE_RELEASE_DEBUG", "false"),
        ] {
            cmd.env(k, v);
        }
        cmd
    }

    fn environment(&self, cmd: &mut Command) {
        clean_env(cmd);
        cmd.env("PATH", &self.path);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }
}

/// Whether the variable `name` is one that an outer cargo sets for a build script (or that
/// configures a build), which the nested build must not inherit: it would build for the host's
/// target, profile, flags, wrapper or target directory, or use its jobserver.
pub(crate) fn inherited_build_var(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "CARGO",
        "RUSTC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_LINKER",
        "RUSTC_BOOTSTRAP",
        "RUSTFLAGS",
        "RUSTDOC",
        "RUSTDOCFLAGS",
        "RUSTUP_TOOLCHAIN",
        "OUT_DIR",
        "TARGET",
        "HOST",
        "PROFILE",
        "OPT_LEVEL",
        "DEBUG",
        "NUM_JOBS",
    ];
    // Cargo's own settings that say nothing about the build: where its home and registries are,
    // how it talks to the network and the terminal.
    const KEEP: &[&str] =
        &["CARGO_HOME", "CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTRY_", "CARGO_REGISTRIES_", "CARGO_TERM_"];
    if EXACT.contains(&name) || name.starts_with("DEP_") || name.starts_with("__CARGO") {
        return true;
    }
    name.starts_with("CARGO_")
        && !KEEP.iter().any(|k| if k.ends_with('_') { name.starts_with(k) } else { name == *k })
}

/// Removes the outer cargo's build variables from `cmd`'s environment.
pub(crate) fn clean_env(cmd: &mut Command) {
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(inherited_build_var) {
            cmd.env_remove(&name);
        }
    }
}

/// The route's name and what it lacks.
type Missing = (String, String);

/// Finds the toolchain `t` complete, or says what it lacks.
pub(crate) fn resolve(t: &Toolchain, s: &Search) -> Result<Resolved, ToolchainError> {
    let debian_err = |missing: String| ("Debian's route".to_string(), missing);
    let rustup_err = |channel: &str, missing: String| (format!("rustup's route ({channel})"), missing);
    let rustup_install = |channel: &str| {
        format!("rustup toolchain install {channel} -c rust-src -c llvm-tools -c llvm-bitcode-linker")
    };
    let result: Result<Resolved, (Vec<Missing>, Vec<String>)> = match t {
        Toolchain::Debian { rustc, cargo, linker_dir } => debian(rustc, cargo, linker_dir.as_deref(), s)
            .map_err(|m| (vec![debian_err(m)], vec![DEBIAN_INSTALL.to_string()])),
        Toolchain::Rustup { channel } => {
            rustup(channel, s).map_err(|m| (vec![rustup_err(channel, m)], vec![rustup_install(channel)]))
        }
        Toolchain::Auto => {
            let Toolchain::Debian { rustc, cargo, linker_dir } = &s.debian else {
                unreachable!("Search::debian is Debian's route")
            };
            match debian(rustc, cargo, linker_dir.as_deref(), s) {
                Ok(r) => Ok(r),
                Err(d) => rustup("nightly", s).map_err(|r| {
                    (
                        vec![debian_err(d), rustup_err("nightly", r)],
                        vec![DEBIAN_INSTALL.to_string(), rustup_install("nightly")],
                    )
                }),
            }
        }
    };
    result.map_err(|(tried, install)| ToolchainError { tried, install })
}

/// Runs `program args` (outer build variables removed, PATH as searched) and returns its
/// standard output if it succeeds.
fn probe(program: &Path, args: &[&str], s: &Search) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null()).stderr(Stdio::null());
    clean_env(&mut cmd);
    cmd.env("PATH", &s.path).env("RUSTUP_AUTO_INSTALL", "0");
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A field of `rustc -vV`: `release`, `host`, `LLVM version`.
fn field<'a>(version: &'a str, name: &str) -> Option<&'a str> {
    version.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':')).map(str::trim)
}

/// `1.96.0` (or `1.97.0-nightly`) as `(1, 96)`.
fn major_minor(release: &str) -> Option<(u32, u32)> {
    let mut parts = release.split(['.', '-']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn has_core_source(sysroot: &Path) -> bool {
    sysroot.join("lib/rustlib/src/rust/library/core").is_dir()
}

const LLVM_TOOLS: [&str; 3] = ["llc", "opt", "llvm-link"];

fn has_llvm_tools(dir: &Path) -> bool {
    LLVM_TOOLS.iter().all(|t| dir.join(t).is_file())
}

fn join_path(first: &[&Path], rest: &OsStr) -> OsString {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for d in first {
        if !dirs.iter().any(|x| x == d) {
            dirs.push(d.to_path_buf());
        }
    }
    dirs.extend(std::env::split_paths(rest));
    std::env::join_paths(dirs).unwrap_or_else(|_| rest.to_os_string())
}

fn debian(rustc: &Path, cargo: &Path, linker_dir: Option<&Path>, s: &Search) -> Result<Resolved, String> {
    if !rustc.is_file() {
        return Err(format!("`{}` not found", rustc.display()));
    }
    let version = probe(rustc, &["-vV"], s).ok_or_else(|| format!("`{} -vV` failed", rustc.display()))?;
    let release = field(&version, "release").unwrap_or("?");
    match major_minor(release) {
        Some(v) if v >= DEBIAN_MIN => {}
        _ => {
            return Err(format!(
                "`{}` is {release}, older than {}.{}",
                rustc.display(),
                DEBIAN_MIN.0,
                DEBIAN_MIN.1
            ));
        }
    }
    let sysroot = PathBuf::from(probe(rustc, &["--print", "sysroot"], s).unwrap_or_default().trim());
    if !has_core_source(&sysroot) {
        return Err(format!(
            "no core source under {}/lib/rustlib/src/rust (Debian package rust-web-src)",
            sysroot.display()
        ));
    }
    if !cargo.is_file() {
        return Err(format!("`{}` not found (Debian package cargo-web)", cargo.display()));
    }
    let linker_dir = match linker_dir {
        Some(d) if d.join("llvm-bitcode-linker").is_file() => d.to_path_buf(),
        Some(d) => return Err(format!("no llvm-bitcode-linker in {}", d.display())),
        None => {
            let candidates =
                s.toolchain_dir.iter().cloned().chain(s.path_dirs()).chain(s.extra_dirs.iter().cloned());
            candidates.into_iter().find(|d| d.join("llvm-bitcode-linker").is_file()).ok_or_else(|| {
                format!(
                    "no llvm-bitcode-linker (in ${}, on PATH, in target/ptx-toolchain/bin, or in ~/.cargo/const-layout-ptx/bin)",
                    crate::ENV_TOOLCHAIN_DIR
                )
            })?
        }
    };
    // The linker runs LLVM's tools by name: they must be of rustc's LLVM version.
    let llvm = field(&version, "LLVM version").and_then(|v| v.split('.').next()).unwrap_or("?").to_string();
    let debian_llvm = s.llvm_root.join(format!("llvm-{llvm}/bin"));
    let llvm_dir = if has_llvm_tools(&linker_dir) {
        None
    } else if has_llvm_tools(&debian_llvm) {
        Some(debian_llvm)
    } else if LLVM_TOOLS.iter().all(|t| s.on_path(t).is_some()) {
        None
    } else {
        return Err(format!("no llc, opt and llvm-link of LLVM {llvm} (Debian package llvm-{llvm})"));
    };
    let rustc_dir = rustc.parent().unwrap_or(Path::new("/"));
    let mut first = vec![linker_dir.as_path()];
    first.extend(llvm_dir.as_deref());
    first.push(rustc_dir);
    Ok(Resolved {
        description: format!(
            "Debian's rustc {release} ({}), llvm-bitcode-linker in {}",
            rustc.display(),
            linker_dir.display()
        ),
        program: cargo.to_path_buf(),
        prefix: Vec::new(),
        env: vec![("RUSTC".into(), rustc.as_os_str().to_os_string()), ("RUSTC_BOOTSTRAP".into(), "1".into())],
        path: join_path(&first, &s.path),
    })
}

fn rustup(channel: &str, s: &Search) -> Result<Resolved, String> {
    let rustup = s.on_path("rustup").ok_or("rustup not found on PATH")?;
    let version = probe(&rustup, &["run", channel, "rustc", "-vV"], s)
        .ok_or_else(|| format!("no toolchain `{channel}`"))?;
    let sysroot = PathBuf::from(
        probe(&rustup, &["run", channel, "rustc", "--print", "sysroot"], s).unwrap_or_default().trim(),
    );
    let host = field(&version, "host").unwrap_or("?");
    let bin = sysroot.join("lib/rustlib").join(host).join("bin");
    let self_contained = bin.join("self-contained");
    let mut missing = Vec::new();
    if !has_core_source(&sysroot) {
        missing.push("rust-src");
    }
    if !has_llvm_tools(&bin) {
        missing.push("llvm-tools");
    }
    if !self_contained.join("llvm-bitcode-linker").is_file() && !bin.join("llvm-bitcode-linker").is_file() {
        missing.push("llvm-bitcode-linker");
    }
    if !missing.is_empty() {
        return Err(format!(
            "`{channel}` lacks the component{} {}",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        ));
    }
    Ok(Resolved {
        description: format!("rustup's {channel}, rustc {}", field(&version, "release").unwrap_or("?")),
        program: rustup,
        prefix: vec!["run".into(), channel.into(), "cargo".into()],
        env: Vec::new(),
        path: join_path(&[self_contained.as_path(), bin.as_path()], &s.path),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Held by every test that writes an executable or runs a program: a program forked by one
    /// test while another holds a script open for writing would make that script's exec fail
    /// ("text file busy").
    pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
        static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
        LOCK.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh directory for one test.
    pub(crate) fn temp_dir(name: &str) -> PathBuf {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("const-layout-builder-{}-{name}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// An executable shell script at `path`.
    pub(crate) fn script(path: &Path, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn touch(path: &Path) {
        script(path, "exit 0");
    }

    /// A fake Debian install under `root`: rustc `release` with LLVM 22, its sysroot with core's
    /// source (if `src`), cargo, LLVM 22's tools (if `llvm`), and the linker in `root/lbl` (if
    /// `linker`).
    fn fake_debian(root: &Path, release: &str, src: bool, llvm: bool, linker: bool) -> Search {
        let sysroot = root.join("sysroot");
        script(
            &root.join("bin/rustc"),
            &format!(
                "case \"$1\" in -vV) printf 'rustc {release}\\nbinary: rustc\\nhost: x86_64-unknown-linux-gnu\\nrelease: {release}\\nLLVM version: 22.1.8\\n';; \
                 --print) echo '{}';; *) exit 1;; esac",
                sysroot.display()
            ),
        );
        touch(&root.join("bin/cargo"));
        if src {
            std::fs::create_dir_all(sysroot.join("lib/rustlib/src/rust/library/core")).unwrap();
        }
        if llvm {
            for t in LLVM_TOOLS {
                touch(&root.join("usr-lib/llvm-22/bin").join(t));
            }
        }
        if linker {
            touch(&root.join("lbl/llvm-bitcode-linker"));
        }
        Search {
            path: OsString::from("/nonexistent-bin"),
            toolchain_dir: None,
            extra_dirs: vec![root.join("lbl")],
            llvm_root: root.join("usr-lib"),
            debian: Toolchain::Debian {
                rustc: root.join("bin/rustc"),
                cargo: root.join("bin/cargo"),
                linker_dir: None,
            },
        }
    }

    fn err(t: &Toolchain, s: &Search) -> String {
        resolve(t, s).unwrap_err().to_string()
    }

    fn args(cmd: &Command) -> Vec<String> {
        cmd.get_args().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    fn env(cmd: &Command, name: &str) -> Option<String> {
        cmd.get_envs()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| v)
            .map(|v| v.to_string_lossy().into_owned())
    }

    fn build<'a>(dir: &'a Path) -> CargoBuild<'a> {
        CargoBuild {
            crate_dir: dir,
            target_dir: Path::new("/t"),
            target_cpu: "sm_90a",
            ptx_isa: "ptx83",
            locked: true,
        }
    }

    #[test]
    fn debian_route_complete() {
        let _serial = serial();
        let root = temp_dir("debian-ok");
        let s = fake_debian(&root, "1.96.0", true, true, true);
        let r = resolve(&Toolchain::Auto, &s).unwrap();
        assert_eq!(
            r.description,
            format!(
                "Debian's rustc 1.96.0 ({}), llvm-bitcode-linker in {}",
                root.join("bin/rustc").display(),
                root.join("lbl").display()
            )
        );
        let cmd = r.cargo_build(&build(Path::new("/k")));
        assert_eq!(cmd.get_program(), root.join("bin/cargo"));
        assert_eq!(
            args(&cmd),
            [
                "build",
                "--release",
                "--target",
                "nvptx64-nvidia-cuda",
                "-Zbuild-std=core",
                "--manifest-path",
                "/k/Cargo.toml",
                "--target-dir",
                "/t",
                "--config",
                "target.nvptx64-nvidia-cuda.rustflags=[\"-Ctarget-cpu=sm_90a\", \"-Ctarget-feature=+ptx83\"]",
                "--locked"
            ]
        );
        assert_eq!(cmd.get_current_dir(), Some(Path::new("/k")));
        assert_eq!(env(&cmd, "RUSTC"), Some(root.join("bin/rustc").display().to_string()));
        assert_eq!(env(&cmd, "RUSTC_BOOTSTRAP").as_deref(), Some("1"));
        let path: Vec<PathBuf> = std::env::split_paths(&env(&cmd, "PATH").unwrap()).collect();
        assert_eq!(
            path,
            [
                root.join("lbl"),
                root.join("usr-lib/llvm-22/bin"),
                root.join("bin"),
                PathBuf::from("/nonexistent-bin")
            ]
        );
        // A newer release is fine too.
        let s = fake_debian(&temp_dir("debian-new"), "1.102.3", true, true, true);
        assert!(resolve(&s.debian.clone(), &s).is_ok());
    }

    #[test]
    fn the_user_directory_is_searched_last() {
        // Where `const-layout-ptx install-toolchain` installs: found for a crate anywhere.
        let s = Search::from_env(Path::new("."), Some(Path::new("/host-target")));
        let user = user_toolchain_dir().map(|d| d.join("bin"));
        assert_eq!(
            s.extra_dirs.last(),
            user.as_ref().or(Some(&PathBuf::from("/host-target/ptx-toolchain/bin")))
        );
        assert!(INSTALL_SCRIPT.starts_with("#!/usr/bin/env bash") && INSTALL_SCRIPT.contains("DIR=${1:?"));
    }

    #[test]
    fn debian_route_finds_the_linker() {
        let _serial = serial();
        let root = temp_dir("debian-linker");
        let mut s = fake_debian(&root, "1.96.0", true, true, false);
        s.extra_dirs.clear();
        let t = s.debian.clone();
        assert!(err(&t, &s).contains(
            "no llvm-bitcode-linker (in $CONST_LAYOUT_PTX_TOOLCHAIN, on PATH, in target/ptx-toolchain/bin, or in ~/.cargo/const-layout-ptx/bin)"
        ));
        // In $CONST_LAYOUT_PTX_TOOLCHAIN, on PATH, in a target/ptx-toolchain/bin.
        for (i, dir) in ["env", "path", "extra"].iter().enumerate() {
            let d = root.join(dir);
            touch(&d.join("llvm-bitcode-linker"));
            let mut s = s.clone();
            match i {
                0 => s.toolchain_dir = Some(d.clone()),
                1 => s.path = std::env::join_paths([PathBuf::from("/nonexistent"), d.clone()]).unwrap(),
                _ => s.extra_dirs = vec![PathBuf::from("/nonexistent"), d.clone()],
            }
            assert!(
                resolve(&t, &s)
                    .unwrap()
                    .description
                    .ends_with(&format!("llvm-bitcode-linker in {}", d.display()))
            );
        }
        // Given explicitly: only there.
        let given = Toolchain::Debian {
            rustc: root.join("bin/rustc"),
            cargo: root.join("bin/cargo"),
            linker_dir: Some(root.join("none")),
        };
        assert!(
            err(&given, &s).contains(&format!("no llvm-bitcode-linker in {}", root.join("none").display()))
        );
        // LLVM's tools beside the linker (what tools/gpu/ptx-toolchain.sh links) need no llvm-22.
        let root = temp_dir("debian-linker-tools");
        let s = fake_debian(&root, "1.96.0", true, false, true);
        assert!(
            err(&s.debian.clone(), &s)
                .contains("no llc, opt and llvm-link of LLVM 22 (Debian package llvm-22)")
        );
        for t in LLVM_TOOLS {
            touch(&root.join("lbl").join(t));
        }
        let cmd = resolve(&s.debian.clone(), &s).unwrap().cargo_build(&build(Path::new("/k")));
        let path: Vec<PathBuf> = std::env::split_paths(&env(&cmd, "PATH").unwrap()).collect();
        assert_eq!(path[..2], [root.join("lbl"), root.join("bin")]);
    }

    #[test]
    fn debian_route_incomplete() {
        let _serial = serial();
        let root = temp_dir("debian-old");
        let s = fake_debian(&root, "1.95.0", true, true, true);
        let e = err(&s.debian.clone(), &s);
        assert!(e.starts_with(&format!("no PTX toolchain: Debian's route: `{}` is 1.95.0, older than 1.96; install: const-layout-ptx install-toolchain", root.join("bin/rustc").display())), "{e}");
        let s = fake_debian(&temp_dir("debian-src"), "1.96.0", false, true, true);
        assert!(err(&s.debian.clone(), &s).contains("/lib/rustlib/src/rust (Debian package rust-web-src)"));
        let s = fake_debian(&temp_dir("debian-cargo"), "1.96.0", true, true, true);
        let Toolchain::Debian { rustc, .. } = s.debian.clone() else { unreachable!() };
        let t = Toolchain::Debian { rustc, cargo: "/nonexistent/cargo".into(), linker_dir: None };
        assert!(err(&t, &s).contains("`/nonexistent/cargo` not found (Debian package cargo-web)"));
        let t: Toolchain = "debian:/nonexistent/rustc".parse().unwrap();
        assert!(err(&t, &s).contains("Debian's route: `/nonexistent/rustc` not found;"));
    }

    /// A fake rustup on PATH with the toolchain `nightly`, its sysroot holding `components`.
    fn fake_rustup(root: &Path, components: &[&str]) -> Search {
        let sysroot = root.join("toolchains/nightly");
        script(
            &root.join("bin/rustup"),
            &format!(
                "[ \"$RUSTUP_AUTO_INSTALL\" = 0 ] || exit 3\n\
                 if [ \"$1\" = run ] && [ \"$2\" = nightly ]; then shift 2; case \"$*\" in \
                 'rustc -vV') printf 'rustc 1.97.0-nightly\\nhost: x86_64-unknown-linux-gnu\\nrelease: 1.97.0-nightly\\nLLVM version: 22.1.4\\n';; \
                 'rustc --print sysroot') echo '{}';; *) exit 1;; esac; \
                 else echo \"error: toolchain '$2' is not installed\" >&2; exit 1; fi",
                sysroot.display()
            ),
        );
        let bin = sysroot.join("lib/rustlib/x86_64-unknown-linux-gnu/bin");
        std::fs::create_dir_all(&bin).unwrap();
        for c in components {
            match *c {
                "rust-src" => {
                    std::fs::create_dir_all(sysroot.join("lib/rustlib/src/rust/library/core")).unwrap()
                }
                "llvm-tools" => LLVM_TOOLS.iter().for_each(|t| touch(&bin.join(t))),
                "llvm-bitcode-linker" => touch(&bin.join("self-contained/llvm-bitcode-linker")),
                _ => unreachable!(),
            }
        }
        Search {
            path: std::env::join_paths([root.join("bin")]).unwrap(),
            toolchain_dir: None,
            extra_dirs: Vec::new(),
            llvm_root: root.join("no-llvm"),
            debian: Toolchain::Debian {
                rustc: root.join("no/rustc"),
                cargo: root.join("no/cargo"),
                linker_dir: None,
            },
        }
    }

    #[test]
    fn rustup_route_complete() {
        let _serial = serial();
        let root = temp_dir("rustup-ok");
        let s = fake_rustup(&root, &["rust-src", "llvm-tools", "llvm-bitcode-linker"]);
        let r = resolve(&Toolchain::rustup("nightly"), &s).unwrap();
        assert_eq!(r.description, "rustup's nightly, rustc 1.97.0-nightly");
        let mut b = build(Path::new("/k"));
        b.locked = false;
        b.target_cpu = "sm_80";
        b.ptx_isa = "ptx78";
        let cmd = r.cargo_build(&b);
        assert_eq!(cmd.get_program(), root.join("bin/rustup"));
        let a = args(&cmd);
        assert_eq!(
            a[..8],
            [
                "run",
                "nightly",
                "cargo",
                "build",
                "--release",
                "--target",
                "nvptx64-nvidia-cuda",
                "-Zbuild-std=core"
            ]
        );
        assert_eq!(
            a.last().unwrap(),
            "target.nvptx64-nvidia-cuda.rustflags=[\"-Ctarget-cpu=sm_80\", \"-Ctarget-feature=+ptx78\"]"
        );
        assert_eq!(env(&cmd, "RUSTC"), None);
        let bin = root.join("toolchains/nightly/lib/rustlib/x86_64-unknown-linux-gnu/bin");
        let path: Vec<PathBuf> = std::env::split_paths(&env(&cmd, "PATH").unwrap()).collect();
        assert_eq!(path, [bin.join("self-contained"), bin, root.join("bin")]);
        // Auto falls back to it when Debian's route is missing.
        assert_eq!(
            resolve(&Toolchain::Auto, &s).unwrap().description,
            "rustup's nightly, rustc 1.97.0-nightly"
        );
    }

    #[test]
    fn rustup_route_incomplete() {
        let _serial = serial();
        let root = temp_dir("rustup-missing");
        let s = fake_rustup(&root, &["llvm-tools"]);
        let e = err(&Toolchain::rustup("nightly"), &s);
        assert_eq!(
            e,
            "no PTX toolchain: rustup's route (nightly): `nightly` lacks the components rust-src, llvm-bitcode-linker; \
             install: rustup toolchain install nightly -c rust-src -c llvm-tools -c llvm-bitcode-linker"
        );
        let e = err(&Toolchain::rustup("nightly-2026-01-01"), &s);
        assert!(
            e.starts_with(
                "no PTX toolchain: rustup's route (nightly-2026-01-01): no toolchain `nightly-2026-01-01`;"
            ),
            "{e}"
        );
        let mut s = s;
        s.path = OsString::from("/nonexistent");
        assert!(err(&Toolchain::rustup("nightly"), &s).contains("rustup not found on PATH"));
        // Auto: both routes, both ways to install.
        let e = err(&Toolchain::Auto, &s);
        assert_eq!(
            e,
            format!(
                "no PTX toolchain: Debian's route: `{}` not found; rustup's route (nightly): rustup not found on PATH; install: {DEBIAN_INSTALL}, \
                 or rustup toolchain install nightly -c rust-src -c llvm-tools -c llvm-bitcode-linker",
                root.join("no/rustc").display()
            )
        );
    }

    #[test]
    fn outer_build_variables_are_not_inherited() {
        for v in [
            "RUSTC",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "RUSTDOCFLAGS",
            "CARGO_TARGET_DIR",
            "CARGO_BUILD_TARGET",
            "CARGO_MAKEFLAGS",
            "CARGO_PRIMARY_PACKAGE",
            "CARGO_MANIFEST_DIR",
            "CARGO_PKG_NAME",
            "CARGO_CFG_TARGET_ARCH",
            "CARGO_FEATURE_STD",
            "CARGO_PROFILE_RELEASE_LTO",
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
            "CARGO",
            "OUT_DIR",
            "TARGET",
            "HOST",
            "PROFILE",
            "OPT_LEVEL",
            "DEBUG",
            "NUM_JOBS",
            "RUSTUP_TOOLCHAIN",
            "DEP_Z_INCLUDE",
            "__CARGO_FIX_PLZ",
        ] {
            assert!(inherited_build_var(v), "{v}");
        }
        for v in [
            "PATH",
            "HOME",
            "CARGO_HOME",
            "RUSTUP_HOME",
            "CARGO_NET_OFFLINE",
            "CARGO_HTTP_TIMEOUT",
            "CARGO_REGISTRIES_CRATES_IO_PROTOCOL",
            "CARGO_TERM_COLOR",
            "CUDA_HOME",
        ] {
            assert!(!inherited_build_var(v), "{v}");
        }
    }

    #[test]
    fn probes_run_without_the_outer_variables() {
        let _serial = serial();
        // This test runs under cargo, which sets CARGO_MANIFEST_DIR and CARGO_PKG_NAME: a probe
        // does not see them.
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let root = temp_dir("probe");
        script(&root.join("env"), "env");
        let s = Search {
            path: OsString::from("/usr/bin:/bin"),
            toolchain_dir: None,
            extra_dirs: Vec::new(),
            llvm_root: root.clone(),
            debian: Toolchain::debian(),
        };
        let out = probe(&root.join("env"), &[], &s).unwrap();
        assert!(
            !out.lines().any(|l| l.starts_with("CARGO_MANIFEST_DIR=") || l.starts_with("CARGO_PKG_NAME=")),
            "{out}"
        );
        assert!(out.lines().any(|l| l == "PATH=/usr/bin:/bin"), "{out}");
    }
}
