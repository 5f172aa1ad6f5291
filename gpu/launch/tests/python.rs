//! The Python helper (`python/const_layout_launch.py`) against Rust: for thousands of random
//! layouts of a dozen types (rank 1 to 4, nested, static and runtime integers of several integer
//! types), the bytes of `TensorParam::new(..).to_words()` or its refusal's message, and for random
//! launch geometries `KernelLimits::check`'s verdict, and for random TMA tensors of rank 1 to 6
//! `TensorMapSpecNd::new`'s; `tests/python_parity.py` must give the same bytes, specs and messages. Then the helper's own tests (`tests/test_python_helper.py`).
//!
//! `python3` is needed (CI and the development machines have it): without it the test fails and
//! says so, it does not pass.

use const_layout::dyn_layout::DynIntTuple;
use const_layout::int_tuple::IntTuple;
use const_layout::layout::{IntoStride, LayoutShape};
use const_layout::{C, make_layout};
use const_layout_device::{Dim3, LaunchConfig, TensorParam};
use const_layout_launch::KernelLimits;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A value for an integer: mostly what a kernel's layout has, sometimes what a check refuses.
    fn value(&mut self, is_static: bool, static_value: isize, extent: bool) -> isize {
        if is_static && self.below(20) != 0 {
            return static_value;
        }
        match self.below(40) {
            0 => 0,
            1 => -(1 + self.below(1000) as isize),
            2 => (1 << 31) + self.below(1 << 32) as isize,
            3 => 1 << (32 + self.below(10)),
            4 => 65536 + self.below(1 << 20) as isize,
            _ if extent => 1 + self.below(300) as isize,
            _ => self.below(3000) as isize,
        }
    }
}

/// `tree` (a type's structure, from `IntTuple::TREE`) with each integer replaced by a random value.
fn random_values(tree: &DynIntTuple, rng: &mut Rng, extent: bool) -> (String, Vec<isize>) {
    let text = tree.to_string();
    let mut leaves = tree.leaves();
    let (mut out, mut values) = (String::new(), Vec::new());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' || c.is_ascii_digit() || c == '-' {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
            let leaf = leaves.next().expect("as many integers as leaves");
            let v = rng.value(leaf.is_static, leaf.value, extent);
            values.push(v);
            write!(out, "{v}").unwrap();
        } else {
            out.push(c);
        }
    }
    (out, values)
}

/// One random case of the layout type `ty` (`S:D` in CuTe's notation with Rust's integer types):
/// a line `tensor<TAB>type<TAB>addr<TAB>len<TAB>shape<TAB>stride<TAB>ok HEX|err MESSAGE`.
fn case<S, D>(ty: &str, rng: &mut Rng, out: &mut String)
where
    S: IntTuple + LayoutShape<D> + 'static,
    D: IntTuple + IntoStride<S, Stride = D> + 'static,
{
    let (shape_text, s) = random_values(&S::TREE, rng, true);
    let (stride_text, d) = random_values(&D::TREE, rng, false);
    let span: i128 = s.iter().zip(&d).map(|(&s, &d)| (s as i128 - 1) * (d as i128).abs()).sum();
    let len = match rng.below(8) {
        0 => (span + 1 - 1 - rng.below(3) as i128).max(0),
        1 => 1 << 40,
        _ => span + 1 + rng.below(100) as i128,
    }
    .clamp(0, u32::MAX as i128 * 8) as usize;
    let addr = 0x7f00_0000_0000u64 + 16 * rng.below(1 << 20) + if rng.below(16) == 0 { 8 } else { 0 };
    let shape_dyn: DynIntTuple = shape_text.parse().expect("a value text");
    let stride_dyn: DynIntTuple = stride_text.parse().expect("a value text");
    let layout = S::try_from_dyn(&shape_dyn, "shape")
        .and_then(|s| Ok((s, D::try_from_dyn(&stride_dyn, "stride")?)))
        .and_then(|(s, d)| make_layout(s, d));
    let result = match layout.map(|l| TensorParam::<u32, S, D>::new(addr, len, &l)) {
        Err(e) => format!("err {e}"),
        Ok(Err(e)) => format!("err {e}"),
        Ok(Ok(p)) => {
            let w = p.to_words();
            let mut hex = String::new();
            for b in w.addr.to_le_bytes().into_iter().chain(w.len.to_le_bytes()) {
                write!(hex, "{b:02x}").unwrap();
            }
            for word in w.layout.0 {
                for b in word.to_le_bytes() {
                    write!(hex, "{b:02x}").unwrap();
                }
            }
            format!("ok {hex}")
        }
    };
    writeln!(out, "tensor\t{ty}\t{addr}\t{len}\t{shape_text}\t{stride_text}\t{result}").unwrap();
}

/// A random launch geometry and limits, and `KernelLimits::check`'s verdict:
/// `config<TAB>gx gy gz<TAB>bx by bz<TAB>smem<TAB>max_threads static max_smem<TAB>ok|err MESSAGE`.
fn config_case(rng: &mut Rng, out: &mut String) {
    let mut extent = |big: u64| match rng.below(10) {
        0 => 0,
        1 => big + rng.below(3) as u32 as u64,
        _ => 1 + rng.below(big.min(600)),
    } as u32;
    let grid = Dim3 { x: extent((1 << 31) - 1), y: extent(65535), z: extent(65535) };
    let block = Dim3 { x: extent(1024), y: extent(8), z: extent(4) };
    let limits = KernelLimits {
        max_threads_per_block: [1024, 384, 256, 128][rng.below(4) as usize],
        static_smem_bytes: [0, 16384, 1024][rng.below(3) as usize],
        max_smem_per_block: 232448,
    };
    let smem = [0, 49152, 197696, 232448, 232449, 216065][rng.below(6) as usize];
    let cfg = LaunchConfig { grid, block, dynamic_smem_bytes: smem };
    let result = match limits.check("hgemm_sm90_tn_f32", &cfg) {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("err {e}"),
    };
    let KernelLimits { max_threads_per_block: t, static_smem_bytes: s, max_smem_per_block: m } = limits;
    writeln!(
        out,
        "config\t{} {} {}\t{} {} {}\t{smem}\t{t} {s} {m}\t{result}",
        grid.x, grid.y, grid.z, block.x, block.y, block.z
    )
    .unwrap();
}

/// A random TMA tensor of 16-bit elements (rank 1 to 6: 2 to 5 are TMA's), box and allocation, and
/// `TensorMapSpecNd::new`'s verdict:
/// `tmap<TAB>addr<TAB>words<TAB>dims<TAB>strides<TAB>inner outer bits swizzle<TAB>ok SPEC|err MESSAGE`.
fn tensor_map_case(rng: &mut Rng, out: &mut String) {
    use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    use const_layout_launch::TensorMapSpecNd;
    let rank = [2, 3, 4, 4, 5, 3, 1, 6][rng.below(8) as usize];
    let dims: Vec<u64> = (0..rank)
        .map(|_| match rng.below(30) {
            0 => 0,
            1 => (1 << 32) + rng.below(2),
            _ => 1 + rng.below(700),
        })
        .collect();
    let mut strides = vec![if rng.below(20) == 0 { 2 } else { 1 }];
    let mut span = 1u64;
    for d in 1..rank {
        span = span.saturating_mul(dims[d - 1].max(1));
        strides.push(match rng.below(12) {
            0 => 8 * rng.below(100) + 4,
            1 => 1 << (37 + rng.below(3)),
            2 => 8 * rng.below(1000),
            _ => span.div_ceil(8).saturating_mul(8),
        });
    }
    let last: u128 = dims.iter().zip(&strides).map(|(&d, &s)| d.saturating_sub(1) as u128 * s as u128).sum();
    let words = match rng.below(6) {
        0 => (last / 2) as u64,
        1 => 1 << 40,
        _ => (last / 2 + 1 + rng.below(50) as u128).min(u64::MAX as u128) as u64,
    };
    let addr = 0x7f00_0000_0000u64 + 16 * rng.below(1 << 20) + if rng.below(16) == 0 { 8 } else { 0 };
    let swizzle =
        [TmaSwizzle::None, TmaSwizzle::B32, TmaSwizzle::B64, TmaSwizzle::B128][rng.below(4) as usize];
    let tma_box = TmaBox {
        inner: [8, 16, 32, 64, 64, 128, 12, 0, 264][rng.below(9) as usize],
        outer: [1, 64, 128, 256, 257, 0, 80][rng.below(7) as usize],
        element_bits: if rng.below(20) == 0 { 32 } else { 16 },
        swizzle,
    };
    macro_rules! spec {
        ($($n:literal)*) => {
            match rank {
                $($n => TensorMapSpecNd::new::<$n>(addr, words, dims[..].try_into().unwrap(), strides[..].try_into().unwrap(), tma_box),)*
                _ => unreachable!(),
            }
        };
    }
    let result = match spec!(1 2 3 4 5 6) {
        Ok(s) => format!(
            "ok {} {} {:?} {:?} {:?} {}",
            s.addr, s.rank, s.dims, s.strides_bytes, s.box_dims, s.swizzle as u32
        ),
        Err(e) => format!("err {e}"),
    };
    let TmaBox { inner, outer, element_bits, .. } = tma_box;
    writeln!(
        out,
        "tmap\t{addr}\t{words}\t{dims:?}\t{strides:?}\t{inner} {outer} {element_bits} {}\t{result}",
        swizzle as u32
    )
    .unwrap();
}

/// Every case, for every type, `n` of each.
fn cases(n: usize) -> String {
    let mut rng = Rng(0x636f_6e73_742d_6c61);
    let mut out = String::new();
    macro_rules! types {
        ($($text:literal => $s:ty, $d:ty;)*) => {$(
            for _ in 0..n {
                case::<$s, $d>($text, &mut rng, &mut out);
            }
        )*};
    }
    types! {
        "(u32,u32):(_1,u32)" => (u32, u32), (C<1>, u32);
        "(u32,u32):(u32,_1)" => (u32, u32), (u32, C<1>);
        "_16:_1" => C<16>, C<1>;
        "u32:u32" => u32, u32;
        "(u32,u32,u32):(u32,u32,_1)" => (u32, u32, u32), (u32, u32, C<1>);
        "(u32,(_4,i32)):(_1,(u32,i32))" => (u32, (C<4>, i32)), (C<1>, (u32, i32));
        "(usize,u32,_8,i32):(isize,_1,u64,i32)" => (usize, u32, C<8>, i32), (isize, C<1>, u64, i32);
        "((u32,u32),(u32,u32)):((_1,u32),(u32,u32))" => ((u32, u32), (u32, u32)), ((C<1>, u32), (u32, u32));
        "(_8,_4):(_1,_8)" => (C<8>, C<4>), (C<1>, C<8>);
        "(u64,i64):(i64,u64)" => (u64, i64), (i64, u64);
        "(i32,i32,i32,i32):(i32,i32,i32,i32)" => (i32, i32, i32, i32), (i32, i32, i32, i32);
        "((u32,u32,u32),(u32,u32,u32)):((u32,u32,u32),(u32,u32,u32))" => ((u32, u32, u32), (u32, u32, u32)), ((u32, u32, u32), (u32, u32, u32));
        "(u32,(u32,(u32,_2))):(_1,(u32,(u32,u32)))" => (u32, (u32, (u32, C<2>))), (C<1>, (u32, (u32, u32)));
        "(_1,u32):(_0,_1)" => (C<1>, u32), (C<0>, C<1>);
    }
    for _ in 0..n {
        config_case(&mut rng, &mut out);
    }
    for _ in 0..4 * n {
        tensor_map_case(&mut rng, &mut out);
    }
    out
}

/// `python3`, or a failure saying it is needed.
fn python3() -> Command {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(
        found,
        "python3 was not found: this test runs the Python helper (gpu/launch/python) against Rust; install python3"
    );
    Command::new("python3")
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn python_writes_the_bytes_and_messages_rust_does() {
    let text = cases(600);
    let (ok, err) = (text.matches("\tok ").count(), text.matches("\terr ").count());
    // Both sides of every check are exercised.
    assert!(ok > 2000 && err > 2000, "{ok} accepted, {err} refused");
    let maps = text.lines().filter(|l| l.starts_with("tmap\t") && l.contains("\tok ")).count();
    assert!(maps > 100, "{maps} tensor maps accepted");
    for message in [
        "is not 16-byte aligned",
        "has the negative stride",
        "the layout reaches element",
        "past the 2^32 elements",
        "kernel parameter (32 bits)",
        "extents must be positive",
        "where the type has the static",
        "outside the type's integer type",
        "does not fit in the layout's integer type",
        "this kernel takes 1 to",
        "exceeds CUDA's limits",
        "bytes of dynamic shared memory",
        "TMA loads ranks 2 to 5",
        "extent 0 is outside 1..=256",
        "wider than its swizzle's",
        "are not a multiple of 16 bytes",
        "-bit elements; tensor maps here",
        "elements is outside 1..=2^32",
        "TMA needs it contiguous",
        "is not a multiple of 16 bytes below 2^40",
        "past its allocation's",
    ] {
        assert!(text.contains(message), "no case is refused with `{message}`");
    }
    let path = std::env::temp_dir().join(format!("const-layout-launch-parity-{}.tsv", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let out = python3()
        .arg(dir().join("tests/python_parity.py"))
        .arg(dir().join("python"))
        .arg(&path)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the Python helper differs from Rust:\n{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("{} cases, 0 differ", text.lines().count())), "{stdout}");
    eprintln!("{ok} accepted, {err} refused; python: {stdout}");
}

#[test]
fn python_helper_tests() {
    let out = python3()
        .args(["-m", "unittest", "-v", "test_python_helper"])
        .current_dir(dir().join("tests"))
        .env("PYTHONPATH", dir().join("python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("OK") && !stderr.contains("Ran 0 tests"), "{stderr}");
}
