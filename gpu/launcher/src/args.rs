//! The command line, parsed by hand: every size checked (positive, within `i32`, each buffer's
//! bytes computed with checked arithmetic and at most 2^34, the grid within CUDA's limits) before
//! anything is allocated.

use crate::attention;
use crate::error::Error;
use crate::kernels::{Geometry, grid_fits};
use std::path::PathBuf;

/// The usage text (`--help`).
pub const USAGE: &str = "\
usage: gpu-bench [--ptx PATH] [--anchors FILE]... [--size-copy M N] [--size-gemm M N K]
                 [--size-hgemm M N K] [--size-attention B H HKV S D]
                 [--only copy|transpose|sgemm|hgemm|hgemm_sm90|attention] [--runs R]
                 [--check-only]

Checks and times const-layout's GPU kernels (copy_f32, transpose_f32, sgemm_{nt,tn}_f32,
hgemm_{tn,nt}_{f32,f16}, hgemm_sm90_tn_{f32,f16}, attention_sm90_d{64,128}) against cuMemcpyDtoD,
cuBLAS and the anchors of --anchors; prints one markdown table.

  --ptx PATH          the kernels' PTX module (default target/ptx/const_layout_kernels.ptx)
  --anchors FILE      extra anchor figures, one `key<TAB>value<TAB>unit` a line; may be given
                      more than once (e.g. run.sh's anchors.tsv and attention_anchors.tsv)
  --size-copy M N     copy and transpose size (default 8192 8192)
  --size-gemm M N K   SGEMM size (default 5120 5120 4096)
  --size-hgemm M N K  tensor-core GEMM size, multiples of 8 (default 5120 5120 4096)
  --size-attention B H HKV S D
                      attention: batch, query heads, key/value heads (dividing H), sequence
                      length (queries and keys), head dim 64, 128 or 256 (default 4 16 16 4096 128)
  --only KERNEL       copy, transpose, sgemm (NT and TN), hgemm (mma.sync: TN and NT, f32 and
                      f16 accumulators), hgemm_sm90 (TMA and wgmma: TN, f32 and f16) or
                      attention (the Hopper attention forward: f16 and bf16, causal and not)
  --runs R            timed launches per measurement, after 3 warm-ups (default 20)
  --check-only        correctness runs only, no timing
  -h, --help          this text
";

/// The largest buffer `gpu-bench` allocates, in bytes (16 GiB).
pub const MAX_BUFFER_BYTES: u64 = 1 << 34;
/// The most timed runs per measurement.
pub const MAX_RUNS: u32 = 100_000;

/// Which kernels to run (`--only`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Only {
    /// `copy_f32`.
    Copy,
    /// `transpose_f32`.
    Transpose,
    /// `sgemm_nt_f32` and `sgemm_tn_f32`.
    Sgemm,
    /// `hgemm_{tn,nt}_{f32,f16}`.
    Hgemm,
    /// `hgemm_sm90_tn_{f32,f16}`.
    HgemmSm90,
    /// `attention_sm90_d{64,128}`.
    Attention,
}

/// The options of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The PTX module.
    pub ptx: PathBuf,
    /// The anchors files (`--anchors`, any number).
    pub anchors: Vec<PathBuf>,
    /// Copy and transpose size, `(m, n)`.
    pub copy: (u32, u32),
    /// SGEMM size, `(m, n, k)`.
    pub gemm: (u32, u32, u32),
    /// Tensor-core GEMM size, `(m, n, k)`.
    pub hgemm: (u32, u32, u32),
    /// Attention size, `(batch, heads, kv_heads, seq, dim)`.
    pub attention: (u32, u32, u32, u32, u32),
    /// Only these kernels (all when `None`).
    pub only: Option<Only>,
    /// Timed runs per measurement.
    pub runs: u32,
    /// Correctness runs only.
    pub check_only: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ptx: PathBuf::from("target/ptx/const_layout_kernels.ptx"),
            anchors: Vec::new(),
            copy: (8192, 8192),
            gemm: (5120, 5120, 4096),
            hgemm: (5120, 5120, 4096),
            attention: (4, 16, 16, 4096, 128),
            only: None,
            runs: 20,
            check_only: false,
        }
    }
}

impl Options {
    /// Whether the kernels `which` run.
    pub fn runs(&self, which: Only) -> bool {
        self.only.is_none_or(|o| o == which)
    }
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Print the usage.
    Help,
    /// Check (and time) the kernels.
    Run(Options),
}

/// Parses the arguments (without the program name) and checks every size.
pub fn parse(args: &[String]) -> Result<Command, Error> {
    let mut o = Options::default();
    let mut rest = args.iter().map(String::as_str);
    while let Some(flag) = rest.next() {
        let mut values = |n: usize| take(&mut rest, flag, n);
        match flag {
            "-h" | "--help" => return Ok(Command::Help),
            "--ptx" => o.ptx = PathBuf::from(values(1)?[0]),
            "--anchors" => o.anchors.push(PathBuf::from(values(1)?[0])),
            "--size-copy" => o.copy = extents::<2>(flag, &values(2)?)?.into(),
            "--size-gemm" => o.gemm = extents::<3>(flag, &values(3)?)?.into(),
            "--size-hgemm" => o.hgemm = extents::<3>(flag, &values(3)?)?.into(),
            "--size-attention" => o.attention = extents::<5>(flag, &values(5)?)?.into(),
            "--only" => o.only = Some(only(values(1)?[0])?),
            "--runs" => o.runs = runs(values(1)?[0])?,
            "--check-only" => o.check_only = true,
            _ => return Err(Error::new(format!("unknown argument `{flag}` (see --help)"))),
        }
    }
    check_sizes(&o)?;
    Ok(Command::Run(o))
}

/// The `n` values after `flag`.
fn take<'a>(rest: &mut impl Iterator<Item = &'a str>, flag: &str, n: usize) -> Result<Vec<&'a str>, Error> {
    let values: Vec<&str> = rest.take(n).collect();
    if values.len() == n {
        Ok(values)
    } else {
        Err(Error::new(format!("{flag} needs {n} value{}", if n == 1 { "" } else { "s" })))
    }
}

/// `N` extents: positive integers that fit `i32` (cuBLAS's `int`, so also the kernels' `u32`).
fn extents<const N: usize>(flag: &str, values: &[&str]) -> Result<[u32; N], Error> {
    let mut out = [0u32; N];
    for (slot, text) in out.iter_mut().zip(values) {
        let bad = |why: &str| Error::new(format!("{flag}: `{text}` {why}"));
        let v: u64 = text.parse().map_err(|_| bad("is not a size (a positive integer)"))?;
        if v == 0 {
            return Err(bad("is zero: sizes must be positive"));
        }
        *slot =
            i32::try_from(v).map_err(|_| bad("is too large: an extent must be at most 2147483647"))? as u32;
    }
    Ok(out)
}

/// The value of `--only`.
fn only(text: &str) -> Result<Only, Error> {
    match text {
        "copy" => Ok(Only::Copy),
        "transpose" => Ok(Only::Transpose),
        "sgemm" => Ok(Only::Sgemm),
        "hgemm" => Ok(Only::Hgemm),
        "hgemm_sm90" => Ok(Only::HgemmSm90),
        "attention" => Ok(Only::Attention),
        _ => Err(Error::new(format!(
            "--only: `{text}` is not one of copy, transpose, sgemm, hgemm, hgemm_sm90, attention"
        ))),
    }
}

/// The value of `--runs`.
fn runs(text: &str) -> Result<u32, Error> {
    match text.parse::<u32>() {
        Ok(r) if (1..=MAX_RUNS).contains(&r) => Ok(r),
        _ => Err(Error::new(format!("--runs: `{text}` is not a number of runs (1 to {MAX_RUNS})"))),
    }
}

/// The bytes of a `rows x cols` buffer of `element` bytes an element, or an error naming it, with
/// checked arithmetic.
pub fn buffer_bytes(name: &str, rows: u32, cols: u32, element: u64) -> Result<u64, Error> {
    u64::from(rows)
        .checked_mul(u64::from(cols))
        .and_then(|e| e.checked_mul(element))
        .filter(|b| *b <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            Error::new(format!(
                "{name} ({rows}x{cols}, {element} bytes each) is larger than the limit of {MAX_BUFFER_BYTES} bytes (2^34) per buffer"
            ))
        })
}

/// Checks every buffer and grid the sizes of `o` lead to.
fn check_sizes(o: &Options) -> Result<(), Error> {
    let (m, n) = o.copy;
    let (gm, gn, gk) = o.gemm;
    let (hm, hn, hk) = o.hgemm;
    let in_copy = |what: &str| format!("--size-copy {m} {n}: {what}");
    let in_gemm = |what: &str| format!("--size-gemm {gm} {gn} {gk}: {what}");
    let in_hgemm = |what: &str| format!("--size-hgemm {hm} {hn} {hk}: {what}");
    buffer_bytes(&in_copy("the matrix"), m, n, 4)?;
    buffer_bytes(&in_gemm("A"), gm, gk, 4)?;
    buffer_bytes(&in_gemm("B"), gn, gk, 4)?;
    buffer_bytes(&in_gemm("C"), gm, gn, 4)?;
    if hm % 8 != 0 || hn % 8 != 0 || hk % 8 != 0 {
        return Err(Error::new(in_hgemm(
            "the tensor-core GEMMs take multiples of 8 (m and n for NT, k for TN and the TMA maps)",
        )));
    }
    buffer_bytes(&in_hgemm("A"), hm, hk, 2)?;
    buffer_bytes(&in_hgemm("B"), hn, hk, 2)?;
    buffer_bytes(&in_hgemm("C"), hm, hn, 4)?;
    let (ab, ah, akv, aseq, ad) = o.attention;
    attention::Shape::of_size(o.attention, false)
        .check()
        .map_err(|why| Error::new(format!("--size-attention {ab} {ah} {akv} {aseq} {ad}: {why}")))?;
    let grids = [
        (in_copy("copy_f32"), Geometry::Copy.dims(m, n).0),
        (in_copy("transpose_f32"), Geometry::Transpose.dims(m, n).0),
        (in_gemm("sgemm_nt_f32"), Geometry::Sgemm.dims(gm, gn).0),
        (in_hgemm("hgemm_tn_f32"), Geometry::Hgemm.dims(hm, hn).0),
        (in_hgemm("hgemm_sm90_tn_f32"), Geometry::HgemmSm90.dims(hm, hn).0),
    ];
    match grids.iter().find(|(_, g)| !grid_fits(*g)) {
        Some((what, g)) => Err(Error::new(format!(
            "{what}: the grid {g} exceeds CUDA's limits (x < 2^31, y and z <= 65535)"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Command, Error> {
        parse(&line.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    fn error(line: &str) -> String {
        parse_str(line).unwrap_err().to_string()
    }

    #[test]
    fn defaults_and_every_flag() {
        assert_eq!(parse_str("").unwrap(), Command::Run(Options::default()));
        let Command::Run(o) = parse_str(
            "--ptx k.ptx --anchors a.tsv --size-copy 100 200 --size-gemm 1 2 3 --size-hgemm 8 16 24 --only sgemm --runs 5 --check-only",
        )
        .unwrap() else {
            panic!("not a run")
        };
        assert_eq!(o.ptx, PathBuf::from("k.ptx"));
        assert_eq!(o.anchors, [PathBuf::from("a.tsv")]);
        assert_eq!(
            (o.copy, o.gemm, o.hgemm, o.runs, o.check_only),
            ((100, 200), (1, 2, 3), (8, 16, 24), 5, true)
        );
        assert!(o.runs(Only::Sgemm) && !o.runs(Only::Copy));
        assert_eq!(parse_str("--runs 3 --help").unwrap(), Command::Help);
        let Command::Run(o) =
            parse_str("--anchors a.tsv --anchors b.tsv --size-attention 2 8 2 1000 64 --only attention")
                .unwrap()
        else {
            panic!("not a run")
        };
        assert_eq!(o.anchors, [PathBuf::from("a.tsv"), PathBuf::from("b.tsv")]);
        assert_eq!(o.attention, (2, 8, 2, 1000, 64));
        assert!(o.runs(Only::Attention) && !o.runs(Only::HgemmSm90));
        assert!(Options::default().runs(Only::Attention));
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(error("--size-copy 0 8").contains("is zero"));
        assert!(error("--size-copy 8 x8").contains("`x8` is not a size"));
        assert!(error("--size-copy 8 -1").contains("is not a size"));
        assert!(error("--size-gemm 8 8 3000000000").contains("at most 2147483647"));
        assert!(error("--size-gemm 70000 70000 70000").contains("larger than the limit"));
        assert!(error("--size-copy 65536 65537").contains("per buffer"));
        assert!(error("--size-copy 8").contains("needs 2 values"));
        // 2^32 bytes fit the buffer limit but not the grid: 2^26 columns need 2^20 blocks in y.
        assert!(error("--size-copy 16 67108864").contains("exceeds CUDA's limits"));
        assert!(error("--size-hgemm 100 64 64").contains("multiples of 8"));
        assert!(error("--size-hgemm 64 64 12").contains("multiples of 8"));
        assert!(error("--size-hgemm 16 8 1073741824").contains("--size-hgemm 16 8 1073741824: A"));
        assert!(error("--size-hgemm 8 16777216 8").contains("hgemm_tn_f32: the grid"));
        let Command::Run(o) = parse_str("--only hgemm_sm90").unwrap() else { panic!("not a run") };
        assert!(o.runs(Only::HgemmSm90) && !o.runs(Only::Hgemm));
    }

    #[test]
    fn bad_attention_sizes_are_refused() {
        assert!(error("--size-attention 4 16 16 4096 96").contains("head dim 64, 128 or 256"));
        assert!(error("--size-attention 4 16 3 4096 128").contains("multiple of the key/value heads"));
        assert!(error("--size-attention 4 16 32 4096 128").contains("multiple of the key/value heads"));
        assert!(error("--size-attention 4 16 16 4096").contains("needs 5 values"));
        assert!(error("--size-attention 0 16 16 4096 128").contains("is zero"));
        // 2^35 bytes of q.
        let e = error("--size-attention 64 64 64 65536 128");
        assert!(e.starts_with("--size-attention 64 64 64 65536 128: q ") && e.contains("2^34"), "{e}");
        // A head of 2^31 words: the batch stride does not fit 32 bits.
        assert!(error("--size-attention 1 2 2 33554432 128").contains("32 bits"));
        assert!(error("--size-attention 1 65536 1 128 64").contains("exceeds CUDA's limits"));
        assert!(error("--size-attention 65536 1 1 128 64").contains("exceeds CUDA's limits"));
        assert!(parse_str("--size-attention 1 65535 5 128 64").is_ok());
    }

    #[test]
    fn bad_flags_are_refused() {
        assert!(error("--sizes 8 8").contains("unknown argument `--sizes`"));
        assert!(error("extra").contains("unknown argument"));
        assert!(error("--only gemm").contains("not one of"));
        assert!(error("--runs 0").contains("1 to 100000"));
        assert!(error("--ptx").contains("needs 1 value"));
    }

    #[test]
    fn buffer_bytes_use_checked_arithmetic() {
        assert_eq!(buffer_bytes("x", 8192, 8192, 4).unwrap(), 1 << 28);
        assert_eq!(buffer_bytes("x", 1 << 16, 1 << 16, 4).unwrap(), 1 << 34);
        assert_eq!(buffer_bytes("x", 1 << 16, 1 << 17, 2).unwrap(), 1 << 34);
        assert!(buffer_bytes("x", u32::MAX, u32::MAX, 4).is_err());
    }
}
