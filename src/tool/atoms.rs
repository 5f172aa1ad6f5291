//! `layout atom` (the MMA and copy atoms' layouts by CuTe's names, and an operand's TV picture)
//! and `layout tma-box` (the TMA box that writes a shared-memory tile, or why none does).

use super::{eval_picture, quote};
use const_layout::algebra::computed::StaticLayout;
use const_layout::atom::tma::{TmaSwizzle, make_tma_box};
use const_layout::atom::*;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::Value;
use const_layout::picture::print_svg_tv;
use const_layout::swizzle::{Outer, Swizzle};
use std::fmt::Write as _;

/// One atom: its name, what it is, and its layouts with the tile each maps into (for a
/// picture: `None` where the layout's values are bits, not a tile's elements).
struct Atom {
    name: String,
    about: String,
    layouts: Vec<(&'static str, DynLayout, Option<[usize; 2]>)>,
}

/// A static layout's value (`StaticLayout::LAYOUT`).
fn dyn_of<L: StaticLayout>(_: &L) -> DynLayout {
    L::LAYOUT
}

fn mma<A: MmaAtom + core::fmt::Debug>() -> Atom {
    let [m, n, k] = A::SHAPE_MNK;
    Atom {
        name: format!("{:?}", A::default()),
        about: format!(
            "MMA {m}x{n}x{k}: D ({}) = A ({}) x B ({}) + C; A (thread, value) -> m + {m} k, B -> n + {n} k, C -> m + {m} n",
            <A::ValC as Element>::NAME,
            <A::ValA as Element>::NAME,
            <A::ValB as Element>::NAME
        ),
        layouts: vec![
            ("ThrID", dyn_of(&A::thr_id()), None),
            ("ALayout", dyn_of(&A::a_layout()), Some([m, k])),
            ("BLayout", dyn_of(&A::b_layout()), Some([n, k])),
            ("CLayout", dyn_of(&A::c_layout()), Some([m, n])),
        ],
    }
}

fn copy<A: CopyAtom + core::fmt::Debug>() -> Atom {
    Atom {
        name: format!("{:?}", A::default()),
        about: "copy: (thread, value) -> bit of the source, of the destination and of the reference"
            .to_string(),
        layouts: vec![
            ("ThrID", dyn_of(&A::thr_id()), None),
            ("SrcLayout", dyn_of(&A::src_layout()), None),
            ("DstLayout", dyn_of(&A::dst_layout()), None),
            ("RefLayout", dyn_of(&A::ref_layout()), None),
        ],
    }
}

/// Every atom `layout atom` knows, in CuTe's names (the Hopper atoms at the N of their name).
fn atoms() -> Vec<Atom> {
    macro_rules! sm90 {
        ($($t:ident),+) => {
            [$([
                mma::<$t<8>>(),
                mma::<$t<16>>(),
                mma::<$t<32>>(),
                mma::<$t<64>>(),
                mma::<$t<128>>(),
                mma::<$t<256>>(),
            ]),+]
        };
    }
    let mut all = vec![
        mma::<SM80_16x8x8_F32F16F16F32_TN>(),
        mma::<SM80_16x8x8_F16F16F16F16_TN>(),
        mma::<SM80_16x8x8_F32BF16BF16F32_TN>(),
        mma::<SM80_16x8x16_F32F16F16F32_TN>(),
        mma::<SM80_16x8x16_F16F16F16F16_TN>(),
        mma::<SM80_16x8x16_F32BF16BF16F32_TN>(),
    ];
    all.extend(
        sm90!(
            SM90_64xNx16_F32F16F16_SS,
            SM90_64xNx16_F32F16F16_RS,
            SM90_64xNx16_F16F16F16_SS,
            SM90_64xNx16_F16F16F16_RS,
            SM90_64xNx16_F32BF16BF16_SS,
            SM90_64xNx16_F32BF16BF16_RS
        )
        .into_iter()
        .flatten(),
    );
    all.extend([
        copy::<SM75_U32x1_LDSM_N>(),
        copy::<SM75_U32x2_LDSM_N>(),
        copy::<SM75_U32x4_LDSM_N>(),
        copy::<SM75_U16x2_LDSM_T>(),
        copy::<SM75_U16x4_LDSM_T>(),
        copy::<SM75_U16x8_LDSM_T>(),
        copy::<SM80_CP_ASYNC_CACHEALWAYS<u128>>(),
        copy::<SM80_CP_ASYNC_CACHEGLOBAL<u128>>(),
        copy::<UniversalCopy<u32>>(),
    ]);
    all
}

/// `layout atom [NAME [--svg A|B|C]]`.
pub(super) fn atom(args: &[&str]) -> Result<String, String> {
    let all = atoms();
    let find = |name: &str| {
        all.iter().find(|a| a.name == name).ok_or_else(|| {
            format!(
                "no atom named {}; `layout atom` lists them (e.g. SM80_16x8x16_F32F16F16F32_TN)",
                quote(name)
            )
        })
    };
    match args {
        [] => Ok(all.iter().map(|a| format!("{}\n", a.name)).collect()),
        [name] => {
            let a = find(name)?;
            let mut out = format!("{}: {}\n", a.name, a.about);
            for (what, l, _) in &a.layouts {
                let _ = writeln!(out, "  {what:<9} {l}");
            }
            Ok(out)
        }
        [name, "--svg", operand] => {
            let a = find(name)?;
            if a.layouts.iter().all(|(_, _, tile)| tile.is_none()) {
                return Err(format!("{name} is a copy atom, whose layouts map to bits: no picture"));
            }
            let want = format!("{operand}Layout");
            let (_, l, tile) = a.layouts.iter().find(|(w, _, t)| *w == want && t.is_some()).ok_or_else(|| {
                format!("`--svg` takes A, B or C (an MMA atom's operand), not {}", quote(operand))
            })?;
            let [rows, cols] = tile.expect("found with a tile");
            let mode = |x: usize| DynIntTuple::int(DynInt::new_static(x as isize));
            let tile = DynIntTuple::tuple(&[mode(rows), mode(cols)]).map_err(|e| e.to_string())?;
            let svg = print_svg_tv(l, &tile).map_err(|e| e.to_string())?;
            Ok(svg.to_string())
        }
        _ => Err("`atom` takes an atom's name and optionally --svg A|B|C, e.g. layout atom SM80_16x8x16_F32F16F16F32_TN --svg C".to_string()),
    }
}

/// `layout tma-box SMEM [--bits B]`: the box and swizzle mode with which TMA writes the shared
/// tile SMEM (`(rows, k) -> element`, or `composition(Sw<B,M,S>, that)` in elements).
pub(super) fn tma_box(args: &[&str]) -> Result<String, String> {
    let (bits, expr) = match args {
        [expr] => (16, *expr),
        [expr, "--bits", b] | ["--bits", b, expr] => {
            let bits = b
                .parse::<usize>()
                .map_err(|_| format!("`--bits` takes 8, 16, 32 or 64, not {}", quote(b)))?;
            (bits, *expr)
        }
        _ => {
            return Err("`tma-box` takes a shared-memory tile and optionally --bits B, e.g. layout tma-box 'composition(Sw<3,3,3>, (_64,_64):(_64,_1))'".to_string());
        }
    };
    let (swizzle, layout) = match eval_picture(expr)? {
        Value::Layout(l) => (Swizzle::new(0, 4, 3).expect("the identity swizzle"), l),
        Value::Composed(c) => match c.outer() {
            Outer::Swizzle(s) if c.offset_value().value == 0 => (*s, *c.inner()),
            _ => return Err(format!("{} is not a swizzle over a layout (at offset 0)", quote(expr))),
        },
        _ => return Err(format!("{} is not a layout or a swizzled layout", quote(expr))),
    };
    let b = make_tma_box(&layout, swizzle, bits)
        .map_err(|e| format!("no TMA box writes {}: {e}", quote(expr)))?;
    let mode = match b.swizzle {
        TmaSwizzle::None => "CU_TENSOR_MAP_SWIZZLE_NONE",
        TmaSwizzle::B32 => "CU_TENSOR_MAP_SWIZZLE_32B",
        TmaSwizzle::B64 => "CU_TENSOR_MAP_SWIZZLE_64B",
        TmaSwizzle::B128 => "CU_TENSOR_MAP_SWIZZLE_128B",
    };
    Ok(format!(
        "boxDim {{{}, {}}} ({}-bit elements: {} a row, {} rows), {mode}; {} bytes a load, the destination aligned to {} bytes\n",
        b.inner,
        b.outer,
        b.element_bits,
        b.inner,
        b.outer,
        b.bytes(),
        b.alignment()
    ))
}
