//! Builds a Rust GPU kernel crate to a PTX module and checks it, from a host crate's `build.rs`
//! ([`Builder::build_script`]) or the command line (`const-layout-ptx build CRATE_DIR`), as
//! rust-cuda's `cuda_builder` and rust-gpu's `spirv-builder` do for theirs.
//!
//! The kernel crate is any `crate-type = ["cdylib"]` crate of `extern "ptx-kernel"` entry points
//! (const-layout's kernels, or anyone's). The builder
//!
//! 1. finds a toolchain ([`Toolchain`]: Debian's rustc 1.96+ or a rustup nightly, each with core's
//!    source and `llvm-bitcode-linker`) and runs `cargo build --release --target
//!    nvptx64-nvidia-cuda -Zbuild-std=core` in an environment cleaned of the outer cargo's
//!    build variables, with its own target directory;
//! 2. writes the launch bounds that `const_layout_device::launch_bounds!` marked in the module as
//!    `.maxntid` / `.minnctapersm` ([`apply_launch_bounds`]);
//! 3. checks the module ([`check`]): no integer division or remainder (index math that did not
//!    fold), no local memory (a register array that spilled), no `call` (a function not
//!    inlined, or a panic path), and each entry point the source declares present with the
//!    parameters its Rust types need ([`SourceAbi`], read with syn);
//! 4. reports each entry point: parameters, instructions, launch bounds and, where `ptxas` is
//!    installed, registers, spills and stack ([`Report`]).
//!
//! ```no_run
//! // build.rs of a host crate
//! fn main() {
//!     const_layout_builder::Builder::new("../kernels") // the kernel crate's directory
//!         .target_cpu("sm_90a")
//!         .build_script()
//!         .unwrap();
//! }
//! // in the host crate: `pub const PTX: Option<&str>` (None where no toolchain was found)
//! // include!(concat!(env!("OUT_DIR"), "/kernels_ptx.rs"));
//! ```
//!
//! The checks run on any module, without a toolchain:
//!
//! ```
//! let ptx = ".version 8.3\n.target sm_90a\n.visible .entry k(\n\t.param .u32 k_param_0\n)\n{\n\trem.u32 %r1, %r2, %r3;\n\tret;\n}\n";
//! let err = const_layout_builder::check(ptx, None).unwrap_err();
//! assert_eq!(err.to_string(), "line 7: k: an integer division or remainder: rem.u32 %r1, %r2, %r3");
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// The examples are build scripts, whose `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

mod builder;
mod check;
mod launch_bounds;
mod ptx;
mod report;
mod source;
mod toolchain;

pub use builder::{BuildError, Builder, Mode, Ptx};
pub use check::{CheckFailed, Failure, check};
pub use launch_bounds::{LAUNCH_BOUNDS_MARKER, LaunchBounds, apply_launch_bounds};
pub use ptx::{ParamDecl, PtxFunction, PtxModule};
pub use report::{EntryReport, ParamsCheck, Ptxas, Report, Resources};
pub use source::{ExpectedParam, ParamKind, SourceAbi, SourceEntry, SourceError};
pub use toolchain::{INSTALL_SCRIPT, Toolchain, ToolchainError, install_toolchain, user_toolchain_dir};

/// The environment variable that says what [`Builder::build_script`] does without a toolchain:
/// `auto` (the default), `require` or `skip` ([`Mode`]).
///
/// ```
/// assert_eq!(const_layout_builder::ENV_MODE, "CONST_LAYOUT_PTX");
/// ```
pub const ENV_MODE: &str = "CONST_LAYOUT_PTX";

/// The environment variable naming a directory that holds `llvm-bitcode-linker` (and, where
/// [`install_toolchain`] made it, links to LLVM's `llc`, `opt` and `llvm-link`), for Debian's
/// route.
///
/// ```
/// assert_eq!(const_layout_builder::ENV_TOOLCHAIN_DIR, "CONST_LAYOUT_PTX_TOOLCHAIN");
/// ```
pub const ENV_TOOLCHAIN_DIR: &str = "CONST_LAYOUT_PTX_TOOLCHAIN";
