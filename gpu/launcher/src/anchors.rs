//! The anchors file (`--anchors`): figures measured by other programs of the same run on the same
//! GPU. One anchor a line, `key<TAB>value<TAB>unit`; blank lines and `#` comments are skipped.
//! Several files may be given (`--anchors` more than once): their anchors are read as one list,
//! each key once. The attention anchors of `tools/gpu/attention_anchors.py`
//! (`attention_anchors.tsv`: `attn_{cudnn,fa2,cutlass88}_d{D}_h{H}_b{B}_s{S}_{causal,full}_{fp16,bf16}`)
//! are compared with the attention rows of the same shape ([`attention_shape`]).

use crate::error::Error;
use crate::report::Rate;
use std::path::Path;

/// The kernel an anchor is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `copy_f32` (a bandwidth).
    Copy,
    /// `sgemm_nt_f32` (a FLOP rate).
    SgemmNt,
    /// `sgemm_tn_f32` (a FLOP rate).
    SgemmTn,
    /// `hgemm_tn_f16` (a FLOP rate): CuTe's `sgemm_sm80`, TN, f16 in and out, f16 accumulators.
    HgemmTnF16,
    /// `hgemm_sm90_tn_f16` (a FLOP rate): CuTe's `wgmma_tma_sm90`, TN, f16 in, out and accumulators.
    HgemmSm90TnF16,
    /// `attention_sm90_d{64,128}` (a FLOP rate) at the shape the key names ([`attention_shape`]).
    Attention,
    /// No kernel: listed as an extra row.
    Extra,
}

/// The prefixes of `tools/gpu/attention_anchors.py`'s keys: cuDNN's fused attention and
/// FlashAttention-2 through PyTorch's SDPA, and CUTLASS's example 88 (Hopper FMHA, best variant).
pub const ATTENTION_PREFIXES: [&str; 3] = ["attn_cudnn_", "attn_fa2_", "attn_cutlass88_"];

/// The shape an attention anchor's key names (`d128_h16_b4_s4096_causal_fp16` of
/// `attn_fa2_d128_h16_b4_s4096_causal_fp16`), or `None` for a key of another kind.
pub fn attention_shape(key: &str) -> Option<&str> {
    ATTENTION_PREFIXES.iter().find_map(|p| key.strip_prefix(p)).filter(|rest| !rest.is_empty())
}

/// The keys `gpu-bench` knows, and what each is compared with. `torch_*` are written by
/// `tools/gpu/torch_anchors.py`, `cute_*` by `tools/gpu/run.sh`.
const KNOWN: [(&str, Target); 9] = [
    ("cute_copy", Target::Copy),
    ("torch_copy", Target::Copy),
    ("cute_sgemm_nt", Target::SgemmNt),
    ("torch_cublas_sgemm_nt", Target::SgemmNt),
    ("cute_sgemm_tn", Target::SgemmTn),
    ("torch_cublas_sgemm_tn", Target::SgemmTn),
    ("cute_sgemm_sm80", Target::HgemmTnF16),
    ("cute_wgmma_tma_sm90", Target::HgemmSm90TnF16),
    // Informational: a cuBLAS SGEMM of PyTorch's choosing, an extra row.
    ("torch_cublas_sgemm", Target::Extra),
];

/// One anchor figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    /// The key.
    pub key: String,
    /// The value, in `unit`.
    pub value: f64,
    /// The unit as written.
    pub unit: String,
    /// The value as a rate, when the unit is one of GB/s, TB/s, GFLOP/s, TFLOP/s.
    pub rate: Option<Rate>,
    /// The kernel it is compared with.
    pub target: Target,
}

/// The rate of `value` `unit`.
fn rate(value: f64, unit: &str) -> Option<Rate> {
    match unit {
        "GB/s" => Some(Rate::Bytes(value * 1e9)),
        "TB/s" => Some(Rate::Bytes(value * 1e12)),
        "GFLOP/s" => Some(Rate::Flops(value * 1e9)),
        "TFLOP/s" => Some(Rate::Flops(value * 1e12)),
        _ => None,
    }
}

/// Reads and parses the anchors files `paths`, as one list (a key given in two files is an error).
pub fn read_all(paths: &[std::path::PathBuf]) -> Result<Vec<Anchor>, Error> {
    let mut all: Vec<Anchor> = Vec::new();
    for path in paths {
        for a in read(path)? {
            if all.iter().any(|b| b.key == a.key) {
                return Err(Error::new(format!(
                    "anchors file {}: `{}` is given in an earlier anchors file too",
                    path.display(),
                    a.key
                )));
            }
            all.push(a);
        }
    }
    Ok(all)
}

/// Reads and parses the anchors file at `path`.
pub fn read(path: &Path) -> Result<Vec<Anchor>, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(format!("cannot read the anchors file {}: {e}", path.display())))?;
    parse(&text).map_err(|e| Error::new(format!("anchors file {}: {e}", path.display())))
}

/// Parses an anchors file's text.
pub fn parse(text: &str) -> Result<Vec<Anchor>, Error> {
    let mut anchors: Vec<Anchor> = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let anchor = parse_line(line).map_err(|why| Error::new(format!("line {number}: {why}")))?;
        if anchors.iter().any(|a| a.key == anchor.key) {
            return Err(Error::new(format!("line {number}: `{}` is given twice", anchor.key)));
        }
        anchors.push(anchor);
    }
    Ok(anchors)
}

/// One anchor line, or what is wrong with it.
fn parse_line(line: &str) -> Result<Anchor, String> {
    let shown: String = line.chars().take(60).collect::<String>().replace('\t', "<TAB>");
    let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
    let [key, value, unit] = fields[..] else {
        return Err(format!("expected key<TAB>value<TAB>unit, got `{shown}`"));
    };
    let value: f64 = match value.parse() {
        Ok(v) if v > 0.0 && f64::is_finite(v) && !key.is_empty() && !unit.is_empty() => v,
        _ => return Err(format!("expected key<TAB>positive number<TAB>unit, got `{shown}`")),
    };
    let target = match KNOWN.iter().find(|(k, _)| *k == key) {
        Some((_, t)) => *t,
        None if attention_shape(key).is_some() => Target::Attention,
        None => Target::Extra,
    };
    let rate = rate(value, unit);
    let fits = match target {
        Target::Copy => matches!(rate, Some(Rate::Bytes(_))),
        Target::SgemmNt
        | Target::SgemmTn
        | Target::HgemmTnF16
        | Target::HgemmSm90TnF16
        | Target::Attention => {
            matches!(rate, Some(Rate::Flops(_)))
        }
        Target::Extra => true,
    };
    if !fits {
        let want = if target == Target::Copy { "GB/s or TB/s" } else { "GFLOP/s or TFLOP/s" };
        return Err(format!("`{key}` needs a figure in {want}, got `{unit}`"));
    }
    Ok(Anchor { key: key.to_string(), value, unit: unit.to_string(), rate, target })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_and_extra_keys() {
        let text = "# CuTe\n\ncute_sgemm_nt\t44213.2\tGFLOP/s\ncute_copy\t2.9\tTB/s\nmy_probe\t7\twidgets/s\n\
                    cute_sgemm_sm80\t340512.3\tGFLOP/s\ncute_wgmma_tma_sm90\t534.7\tTFLOP/s\n";
        let a = parse(text).unwrap();
        assert_eq!(a.len(), 5);
        assert_eq!((a[3].target, a[3].rate), (Target::HgemmTnF16, Some(Rate::Flops(340512.3e9))));
        assert_eq!(a[4].target, Target::HgemmSm90TnF16);
        assert_eq!((a[0].target, a[0].rate), (Target::SgemmNt, Some(Rate::Flops(44213.2e9))));
        assert_eq!((a[1].target, a[1].rate), (Target::Copy, Some(Rate::Bytes(2.9e12))));
        assert_eq!((a[2].target, a[2].rate, a[2].unit.as_str()), (Target::Extra, None, "widgets/s"));
    }

    #[test]
    fn attention_keys_name_their_shape() {
        // As tools/gpu/attention_anchors.py writes them.
        let text = "attn_cudnn_d128_h16_b4_s4096_full_fp16\t601.2\tTFLOP/s\n\
                    attn_fa2_d64_h32_b2_s8192_causal_bf16\t330.0\tTFLOP/s\n\
                    attn_cutlass88_d128_h16_b4_s4096_causal_fp16\t512.5\tTFLOP/s\n";
        let a = parse(text).unwrap();
        assert!(a.iter().all(|a| a.target == Target::Attention));
        assert_eq!(attention_shape(&a[0].key), Some("d128_h16_b4_s4096_full_fp16"));
        assert_eq!(attention_shape(&a[1].key), Some("d64_h32_b2_s8192_causal_bf16"));
        assert_eq!(attention_shape(&a[2].key), Some("d128_h16_b4_s4096_causal_fp16"));
        assert_eq!(attention_shape("attn_fa2_"), None);
        assert_eq!(attention_shape("cute_copy"), None);
        assert!(parse("attn_fa2_d64_h32_b2_s8192_causal_bf16\t1\tGB/s").is_err());
    }

    #[test]
    fn several_files_are_one_list() {
        let dir = std::env::temp_dir().join(format!("gpu-bench-anchors-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (one, two) = (dir.join("one.tsv"), dir.join("two.tsv"));
        std::fs::write(&one, "cute_copy\t2.9\tTB/s\n").unwrap();
        std::fs::write(&two, "attn_fa2_d128_h16_b4_s4096_full_fp16\t400\tTFLOP/s\n").unwrap();
        let a = read_all(&[one.clone(), two.clone()]).unwrap();
        assert_eq!((a.len(), a[1].target), (2, Target::Attention));
        let e = read_all(&[one.clone(), one.clone()]).unwrap_err().to_string();
        assert!(e.contains("earlier anchors file"), "{e}");
        assert!(read_all(&[dir.join("missing.tsv")]).unwrap_err().to_string().contains("cannot read"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn malformed_lines_are_one_line_errors() {
        let e = |t: &str| parse(t).unwrap_err().to_string();
        assert!(
            e("ok\t1\tGB/s\ncute_copy 2841 GB/s\n").starts_with("line 2: expected key<TAB>value<TAB>unit")
        );
        assert!(e("cute_copy\tfast\tGB/s").contains("positive number"));
        assert!(e("cute_copy\t-3\tGB/s").contains("positive number"));
        assert!(e("cute_copy\tNaN\tGB/s").contains("positive number"));
        assert!(e("cute_copy\t1\tGB/s\textra").contains("expected key"));
        assert!(e("cute_sgemm_tn\t1\tGB/s").contains("needs a figure in GFLOP/s"));
        assert!(e("cute_wgmma_tma_sm90\t1\tGB/s").contains("needs a figure in GFLOP/s"));
        assert!(e("cute_copy\t1\tGB/s\ncute_copy\t2\tGB/s").contains("given twice"));
        assert!(!e("x\ty\tz").contains('\n'));
    }
}
