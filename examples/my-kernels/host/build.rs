//! Builds the kernel crate (`../kernels`) to PTX and embeds it: `src/main.rs` includes
//! `$OUT_DIR/my_kernels_ptx.rs`, which defines `PTX: Option<&str>`. Where no PTX toolchain is
//! installed the build goes on with `PTX = None` (and a warning saying how to install one), so
//! `cargo test` runs everywhere; `CONST_LAYOUT_PTX=require` makes a missing toolchain an error.
fn main() {
    if let Err(e) = const_layout_builder::Builder::new("../kernels").target_cpu("sm_90a").build_script() {
        // A kernel that does not compile, or whose PTX fails the checks, fails the host's build.
        eprintln!("{e}");
        std::process::exit(1);
    }
}
