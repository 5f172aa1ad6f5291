#!/usr/bin/env python3
"""Writes gpu/device/src/backend/ptx/warp.rs: warp-collective instructions in batches, each batch one
`asm!` block that checks once that the warp is converged (`converged!` in backend/ptx/mod.rs) and then issues
all of its instructions. A batch costs the three instructions of the check once instead of once an
instruction, and leaves ptxas one basic block to schedule instead of one an instruction.

Rust's `asm!` names every register operand, so each batch shape is written out: this script is
the one place those operand lists are spelled. The checked-in file is rustfmt's output of what it
writes (tools/regen.sh runs both; CI checks the result is unchanged).

usage: gen_warp_asm.py
"""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "gpu", "device", "src", "backend", "ptx", "warp.rs")

# (MI, NI): MI fragments of A against NI fragments of B, MI * NI mma.sync.m16n8k16.
MMA_SHAPES = [(1, 1), (1, 2), (1, 4), (1, 8), (2, 1), (2, 2), (2, 4), (2, 8), (4, 1), (4, 2), (4, 4), (4, 8)]
# N: ldmatrix.x4 with N addresses.
LDSM_COUNTS = [1, 2, 4, 8]

# Accumulator kinds: (name, Rust element of C, words of C a fragment, {input kind: instruction}).
ACCUMULATORS = [
    ("f32", "f32", 4, {
        "f16": "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        "bf16": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    }),
    ("f16", "u32", 2, {
        "f16": "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
    }),
]


def mma_fn(acc, mi, ni):
    name, elem, words, ins = acc
    lines = []
    fname = f"mma_m16n8k16_{name}_{mi}x{ni}"
    kinds = ",".join(ins)
    lines.append(f"/// {mi}x{ni} `mma.sync.aligned.m16n8k16` with {name} accumulators ({kinds} in; `c[i][j] += a[i] b[j]`)")
    lines.append("/// after one converged-warp check ([`converged!`]); a lane of a diverged warp traps before any of them.")
    lines.append("#[inline(always)]")
    args = f"a: &[[u32; 4]; {mi}], b: &[[u32; 2]; {ni}], c: &mut [[[{elem}; {words}]; {ni}]; {mi}]"
    if len(ins) > 1:
        args += ", bf16: bool"
    lines.append(f"pub(crate) fn {fname}({args}) {{")
    lines.append("    macro_rules! batch {")
    lines.append("        ($ins:literal) => {")
    lines.append("            // SAFETY: register operands only; the warp is converged or the lane traps first.")
    lines.append("            unsafe {")
    lines.append("                asm!(converged!(concat!(")
    for i in range(mi):
        for j in range(ni):
            d = ", ".join("{c%d_%d_%d}" % (i, j, v) for v in range(words))
            av = ", ".join("{a%d_%d}" % (i, v) for v in range(4))
            bv = ", ".join("{b%d_%d}" % (j, v) for v in range(2))
            lines.append(f'                    $ins, " {{{{{d}}}}}, {{{{{av}}}}}, {{{{{bv}}}}}, {{{{{d}}}}}; ",')
    lines.append("                )),")
    ops = []
    for i in range(mi):
        for v in range(4):
            ops.append(f"a{i}_{v} = in(reg32) a[{i}][{v}]")
    for j in range(ni):
        for v in range(2):
            ops.append(f"b{j}_{v} = in(reg32) b[{j}][{v}]")
    for i in range(mi):
        for j in range(ni):
            for v in range(words):
                ops.append(f"c{i}_{j}_{v} = inout(reg32) c[{i}][{j}][{v}]")
    for o in ops:
        lines.append(f"                     {o},")
    lines.append("                     options(nomem, nostack))")
    lines.append("            }")
    lines.append("        };")
    lines.append("    }")
    if len(ins) > 1:
        lines.append("    if bf16 {")
        lines.append(f'        batch!("{ins["bf16"]}");')
        lines.append("    } else {")
        lines.append(f'        batch!("{ins["f16"]}");')
        lines.append("    }")
    else:
        lines.append(f'    batch!("{ins["f16"]}");')
    lines.append("}")
    return "\n".join(lines)


def ldsm_fn(n):
    lines = []
    name = f"ldmatrix_x4_{n}"
    lines.append(f"/// {n} `ldmatrix.sync.aligned.m8n8.x4{{,.trans}}.shared.b16` after one converged-warp check")
    lines.append("/// ([`converged!`]).")
    lines.append("///")
    lines.append("/// # Safety")
    lines.append("/// Each lane's `addr[i]` is a 16-byte aligned shared address of 16 readable bytes.")
    lines.append("#[inline(always)]")
    lines.append(f"pub(crate) unsafe fn {name}(addr: [u32; {n}], trans: bool) -> [[u32; 4]; {n}] {{")
    lines.append(f"    let mut r = [[0u32; 4]; {n}];")
    lines.append("    macro_rules! batch {")
    lines.append("        ($ins:literal) => {")
    lines.append("            // SAFETY: the caller's contract (the addresses); the warp is converged or the lane")
    lines.append("            // traps first.")
    lines.append("            unsafe {")
    lines.append("                asm!(converged!(concat!(")
    for i in range(n):
        d = ", ".join("{r%d_%d}" % (i, v) for v in range(4))
        lines.append(f'                    $ins, " {{{{{d}}}}}, [{{a{i}}}]; ",')
    lines.append("                )),")
    for i in range(n):
        lines.append(f"                     a{i} = in(reg32) addr[{i}],")
        for v in range(4):
            lines.append(f"                     r{i}_{v} = out(reg32) r[{i}][{v}],")
    lines.append("                     options(readonly, nostack))")
    lines.append("            }")
    lines.append("        };")
    lines.append("    }")
    lines.append("    if trans {")
    lines.append('        batch!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");')
    lines.append("    } else {")
    lines.append('        batch!("ldmatrix.sync.aligned.m8n8.x4.shared.b16");')
    lines.append("    }")
    lines.append("    r")
    lines.append("}")
    return "\n".join(lines)


# Hopper: one warpgroup's k tile of 64, WGMMA_K k blocks of MI atoms of m64nNk16 along m, fenced,
# committed and waited for in one block: (N, MI) for a 64 x 256 half of a 128 x 256 tile.
WGMMA_SHAPES = [(256, 1)]
WGMMA_K = 4


def wgmma_accumulators(n):
    return [
        ("f32", "f32", n // 2, {
            "f16": f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16",
            "bf16": f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16",
        }),
        ("f16", "u32", n // 4, {
            "f16": f"wgmma.mma_async.sync.aligned.m64n{n}k16.f16.f16.f16",
        }),
    ]


def wgmma_fn(acc, n, mi):
    name, elem, words, ins = acc
    kb = WGMMA_K
    lines = []
    kinds = ",".join(ins)
    lines.append(f"/// {mi}x{kb} `wgmma.mma_async.sync.aligned.m64n{n}k16` with {name} accumulators ({kinds} in; `d[i] +=")
    lines.append(f"/// A(a[i][k]) B(b[k])^T` over the {kb} k blocks, both operands K-major in shared memory by their")
    lines.append("/// descriptors) after one converged-warp check ([`converged!`]), between `wgmma.fence` and")
    lines.append("/// `wgmma.commit_group`, `wgmma.wait_group 1`: on return this batch may still run (and read its")
    lines.append("/// operands), every earlier one is done. The accumulators stay the tensor cores' until a")
    lines.append("/// `wgmma.wait_group 0` (ptxas orders any other use of them after it).")
    lines.append("///")
    lines.append("/// # Safety")
    lines.append("/// All 128 threads of the warpgroup execute this call together, and each descriptor describes a")
    lines.append("/// canonical `wgmma` operand inside the block's shared memory whose writes are visible to the")
    lines.append("/// async proxy (TMA's, or fenced generic writes before a barrier).")
    lines.append("#[inline(always)]")
    args = f"a: &[[u64; {kb}]; {mi}], b: &[u64; {kb}], d: &mut [[{elem}; {words}]; {mi}]"
    if len(ins) > 1:
        args += ", bf16: bool"
    lines.append(f"pub(crate) unsafe fn wgmma_m64n{n}k16_{name}_{mi}x{kb}_pipelined({args}) {{")
    lines.append("    macro_rules! batch {")
    lines.append("        ($ins:literal) => {")
    lines.append("            // SAFETY: the caller's contract (the warpgroup, the descriptors); the warp is converged")
    lines.append("            // or the lane traps first.")
    lines.append("            unsafe {")
    lines.append("                asm!(converged!(concat!(")
    lines.append('                    "{{ .reg .pred sd; .reg .b32 one; mov.b32 one, 1; setp.ne.b32 sd, one, 0; wgmma.fence.sync.aligned; ",')
    for i in range(mi):
        d = ", ".join("{d%d_%d}" % (i, v) for v in range(words))
        for k in range(kb):
            lines.append(f'                    $ins, " {{{{{d}}}}}, {{a{i}_{k}}}, {{b{k}}}, sd, 1, 1, 0, 0; ",')
    lines.append(f'                    "wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 1; }}}}"')
    lines.append("                )),")
    for i in range(mi):
        for k in range(kb):
            lines.append(f"                     a{i}_{k} = in(reg64) a[{i}][{k}],")
    for k in range(kb):
        lines.append(f"                     b{k} = in(reg64) b[{k}],")
    for i in range(mi):
        for v in range(words):
            lines.append(f"                     d{i}_{v} = inout(reg32) d[{i}][{v}],")
    lines.append("                     options(readonly, nostack))")
    lines.append("            }")
    lines.append("        };")
    lines.append("    }")
    if len(ins) > 1:
        lines.append("    if bf16 {")
        lines.append(f'        batch!("{ins["bf16"]}");')
        lines.append("    } else {")
        lines.append(f'        batch!("{ins["f16"]}");')
        lines.append("    }")
    else:
        lines.append(f'    batch!("{ins["f16"]}");')
    lines.append("}")
    return "\n".join(lines)


def wgmma_wait_fn(acc, mi):
    name, elem, words, ins = acc
    lines = [f"/// `wgmma.wait_group 0` for {mi}x{words} {name} accumulators: every batch of the warpgroup is done and `d` is",
             "/// this thread's again (the registers tied to the instruction, so nothing reads them before it).",
             "/// The warp is checked converged first ([`converged!`]).",
             "#[inline(always)]",
             f"pub(crate) fn wgmma_wait0_{name}_{mi}x{words}(d: &mut [[{elem}; {words}]; {mi}]) {{",
             "    // SAFETY: a wait on the warp's own batches; no memory is accessed. The warp is converged or",
             "    // the lane traps first.",
             "    unsafe {",
             '        asm!(converged!(concat!(',
             '            "wgmma.wait_group.sync.aligned 0; /* the accumulators: ",']
    for i in range(mi):
        regs = " ".join("{d%d_%d}" % (i, v) for v in range(words))
        lines.append(f'            "{regs} ",')
    lines.append('            "*/"')
    lines.append('        )),')
    for i in range(mi):
        for v in range(words):
            lines.append(f"             d{i}_{v} = inout(reg32) d[{i}][{v}],")
    lines.append("             options(nostack))")
    lines.append("    };")
    lines.append("}")
    return "\n".join(lines)



# The general interface (`wgmma::Batch`): a chain of K instructions (k blocks 0..K of one GEMM,
# accumulating into the same registers) in one `asm!` block, the fence and the commit apart, so a
# warpgroup issues several chains into one group and waits for it later. One check a chain, not
# one an instruction: a `call` between two `wgmma`s of a chain (the check's fault) makes ptxas
# inject a `warpgroup.arrive` before each (C7519), and each then waits for the one before, which
# serializes the chain. N of the instructions (f32 accumulators, N / 2 registers a thread); K 1 to
# WGMMA_CHAIN_MAX; `TB` (imm-trans-b, 1 for an MN-major B) is a const generic of the function,
# scale-d (of the first instruction; the others accumulate) a register turned into the predicate.
WGMMA_ONE_N = [64, 128, 256]
WGMMA_CHAIN_MAX = 8


def wgmma_chain_fn(n, rs, k):
    r = n // 2
    form = "rs" if rs else "ss"
    lines = []
    what = "`A` from registers (`ALayout_64x16`: value `2 j + h` in half `h` of `a[i][j]`)" if rs else \
        "`A` from shared memory by its descriptors (K-major)"
    lines.append(f"/// {k} `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{{f16,bf16}}` into the same accumulators:")
    lines.append("/// `d = sum_i A_i B_i^T + (scale_d != 0 ? d : 0)`,")
    lines.append(f"/// {what}, `B` by its descriptors (K-major, or MN-major for `TB` = 1),")
    lines.append("/// after one check that the warp is converged and `ok` is not 0 (the lane traps otherwise, as")
    lines.append("/// [`converged!`]); no fence, no commit (the caller's batch).")
    lines.append("///")
    lines.append("/// # Safety")
    lines.append("/// All 128 threads of the warpgroup execute this call together, after a `wgmma.fence` that")
    lines.append("/// follows every write of `d` (and `a`); each descriptor describes a canonical `wgmma` operand")
    lines.append("/// inside the block's shared memory whose writes are visible to the async proxy, or `ok` is 0;")
    lines.append("/// `TB` is 0 or 1.")
    lines.append("#[inline(always)]")
    a_ty = f"&[[u32; 4]; {k}]" if rs else f"&[u64; {k}]"
    lines.append(f"pub(crate) unsafe fn wgmma_{form}_m64n{n}k16_f32_x{k}<const TB: u32>(a: {a_ty}, b: &[u64; {k}], ok: u32, scale_d: u32, d: &mut [f32; {r}], bf16: bool) {{")
    lines.append("    macro_rules! chain {")
    lines.append("        ($ins:literal) => {")
    lines.append("            // SAFETY: the caller's contract (the warpgroup, the fence, the descriptors); the warp is")
    lines.append("            // converged and `ok` is not 0, or the lane traps first.")
    lines.append("            unsafe {")
    lines.append("                asm!(concat!(")
    lines.append('                    "{{ .reg .b32 cl_mask; .reg .pred cl_bad, sd, acc; activemask.b32 cl_mask; ",')
    lines.append('                    "setp.ne.b32 cl_bad, cl_mask, 0xffffffff; setp.eq.or.b32 cl_bad, {ok}, 0, cl_bad; ",')
    # `acc`, true, is the scale-d of the chain's later instructions.
    lines.append('                    "@cl_bad call const_layout_trap; setp.ne.b32 sd, {s}, 0; setp.eq.b32 acc, {s}, {s}; ",')
    dl = ", ".join("{d%d}" % v for v in range(r))
    for i in range(k):
        pred = "sd" if i == 0 else "acc"
        if rs:
            av = ", ".join("{a%d_%d}" % (i, v) for v in range(4))
            ops = f"{{{{{av}}}}}"
            lines.append(f'                    $ins, " {{{{{dl}}}}}, {ops}, {{b{i}}}, {pred}, 1, 1, {{tb}}; ",')
        else:
            lines.append(f'                    $ins, " {{{{{dl}}}}}, {{a{i}}}, {{b{i}}}, {pred}, 1, 1, 0, {{tb}}; ",')
    lines.append('                    "}}"')
    lines.append("                ),")
    for i in range(k):
        if rs:
            for v in range(4):
                lines.append(f"                     a{i}_{v} = in(reg32) a[{i}][{v}],")
        else:
            lines.append(f"                     a{i} = in(reg64) a[{i}],")
    for i in range(k):
        lines.append(f"                     b{i} = in(reg64) b[{i}],")
    lines.append("                     ok = in(reg32) ok,")
    lines.append("                     s = in(reg32) scale_d,")
    lines.append("                     tb = const TB,")
    for v in range(r):
        lines.append(f"                     d{v} = inout(reg32) d[{v}],")
    lines.append("                     options(readonly, nostack))")
    lines.append("            }")
    lines.append("        };")
    lines.append("    }")
    lines.append("    if bf16 {")
    lines.append(f'        chain!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16");')
    lines.append("    } else {")
    lines.append(f'        chain!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16");')
    lines.append("    }")
    lines.append("}")
    return "\n".join(lines)


# The two-group blocks (`wgmma_pair_fn`): (K1, N1, K2, N2), an SS chain of K1 k blocks into
# N1 / 2 accumulators, then an RS chain of K2 into N2 / 2. FlashAttention's forward: S = Q K^T
# (K1 = the head dim of Q and K / 16, N1 = the key tile) and O += P V (K2 = the key tile / 16,
# N2 = the head dim of V): each of the three 64 or 128, and what the attention kernel's head dim
# 256 needs (key tiles of 64; its code for every head dim names S's chain of 64, 128 and 256).
WGMMA_PAIRS = [(dqk // 16, bn, bn // 16, dv) for dqk in (64, 128) for bn in (64, 128) for dv in (64, 128)] + [
    (16, 128, 8, 64), (16, 128, 8, 128), (4, 64, 4, 256), (8, 64, 4, 256), (16, 64, 4, 256)]


def wgmma_pair_fn(k1, n1, k2, n2):
    r1, r2 = n1 // 2, n2 // 2
    lines = []
    lines.append(f"/// Two groups in one block: {k1} `wgmma.mma_async.m64n{n1}k16` with `A` and `B` from shared memory")
    lines.append(f"/// into `d1` (`d1 = sum_i A1_i B1_i^T + (s1 != 0 ? d1 : 0)`), committed, then {k2} `m64n{n2}k16` with `A`")
    lines.append("/// from registers into `d2` (the same with `s2`), committed; `B` K-major, or MN-major for `TB1` /")
    lines.append("/// `TB2` = 1. One check that the warp is converged and `ok` is not 0 (the lane traps otherwise, as")
    lines.append("/// [`converged!`]), then `wgmma.fence` and the instructions: no call between the fence and the")
    lines.append("/// last instruction, so ptxas issues the two chains back to back.")
    lines.append("///")
    lines.append("/// # Safety")
    lines.append("/// All 128 threads of the warpgroup execute this call together; each descriptor describes a")
    lines.append("/// canonical `wgmma` operand inside the block's shared memory whose writes are visible to the")
    lines.append("/// async proxy, or `ok` is 0; `TB1` and `TB2` are 0 or 1.")
    lines.append("#[inline(always)]")
    lines.append(f"pub(crate) unsafe fn wgmma_ss_rs_m64n{n1}n{n2}k16_f32_x{k1}_x{k2}<const TB1: u32, const TB2: u32>(")
    lines.append(f"    a1: &[u64; {k1}], b1: &[u64; {k1}], s1: u32, d1: &mut [f32; {r1}],")
    lines.append(f"    a2: &[[u32; 4]; {k2}], b2: &[u64; {k2}], s2: u32, d2: &mut [f32; {r2}], ok: u32, bf16: bool) {{")
    lines.append("    macro_rules! pair {")
    lines.append("        ($ss:literal, $rs:literal) => {")
    lines.append("            // SAFETY: the caller's contract (the warpgroup, the descriptors); the warp is converged")
    lines.append("            // and `ok` is not 0, or the lane traps first.")
    lines.append("            unsafe {")
    lines.append("                asm!(concat!(")
    lines.append('                    "{{ .reg .b32 cl_mask; .reg .pred cl_bad, sd1, sd2, acc; activemask.b32 cl_mask; ",')
    lines.append('                    "setp.ne.b32 cl_bad, cl_mask, 0xffffffff; setp.eq.or.b32 cl_bad, {ok}, 0, cl_bad; ",')
    lines.append('                    "@cl_bad call const_layout_trap; setp.ne.b32 sd1, {s1}, 0; setp.ne.b32 sd2, {s2}, 0; ",')
    lines.append('                    "setp.eq.b32 acc, {ok}, {ok}; wgmma.fence.sync.aligned; ",')
    d1 = ", ".join("{d1_%d}" % v for v in range(r1))
    d2 = ", ".join("{d2_%d}" % v for v in range(r2))
    for i in range(k1):
        pred = "sd1" if i == 0 else "acc"
        lines.append(f'                    $ss, " {{{{{d1}}}}}, {{a1_{i}}}, {{b1_{i}}}, {pred}, 1, 1, 0, {{tb1}}; ",')
    lines.append('                    "wgmma.commit_group.sync.aligned; ",')
    for i in range(k2):
        pred = "sd2" if i == 0 else "acc"
        av = ", ".join("{a2_%d_%d}" % (i, v) for v in range(4))
        lines.append(f'                    $rs, " {{{{{d2}}}}}, {{{{{av}}}}}, {{b2_{i}}}, {pred}, 1, 1, {{tb2}}; ",')
    lines.append('                    "wgmma.commit_group.sync.aligned; }}"')
    lines.append("                ),")
    for i in range(k1):
        lines.append(f"                     a1_{i} = in(reg64) a1[{i}],")
    for i in range(k1):
        lines.append(f"                     b1_{i} = in(reg64) b1[{i}],")
    for i in range(k2):
        for v in range(4):
            lines.append(f"                     a2_{i}_{v} = in(reg32) a2[{i}][{v}],")
    for i in range(k2):
        lines.append(f"                     b2_{i} = in(reg64) b2[{i}],")
    lines.append("                     ok = in(reg32) ok,")
    lines.append("                     s1 = in(reg32) s1,")
    lines.append("                     s2 = in(reg32) s2,")
    lines.append("                     tb1 = const TB1,")
    lines.append("                     tb2 = const TB2,")
    for v in range(r1):
        lines.append(f"                     d1_{v} = inout(reg32) d1[{v}],")
    for v in range(r2):
        lines.append(f"                     d2_{v} = inout(reg32) d2[{v}],")
    lines.append("                     options(readonly, nostack))")
    lines.append("            }")
    lines.append("        };")
    lines.append("    }")
    lines.append("    if bf16 {")
    lines.append(f'        pair!("wgmma.mma_async.sync.aligned.m64n{n1}k16.f32.bf16.bf16", "wgmma.mma_async.sync.aligned.m64n{n2}k16.f32.bf16.bf16");')
    lines.append("    } else {")
    lines.append(f'        pair!("wgmma.mma_async.sync.aligned.m64n{n1}k16.f32.f16.f16", "wgmma.mma_async.sync.aligned.m64n{n2}k16.f32.f16.f16");')
    lines.append("    }")
    lines.append("}")
    return "\n".join(lines)


def wgmma_wait_n_fn(rs):
    """`wgmma.wait_group P` with the accumulator arrays of sizes `rs` tied to it."""
    name = "_".join(str(r) for r in rs)
    arrays = ", ".join(f"d{i}: &mut [f32; {r}]" for i, r in enumerate(rs))
    lines = [f"/// `wgmma.wait_group P` with f32 accumulators of {' and '.join(str(r) for r in rs)} registers tied to it: the",
             "/// warpgroup's groups but the newest `P` are done, and their accumulators are this thread's",
             "/// again (nothing reads them before the wait). The warp is checked converged first, the trap",
             "/// inline ([`converged_inline!`]).",
             "#[inline(always)]",
             f"pub(crate) fn wgmma_wait_f32_{name}<const P: u32>({arrays}) {{",
             "    // SAFETY: a wait on the warp's own groups; no memory is accessed. The warp is converged or",
             "    // the lane traps first.",
             "    unsafe {",
             '        asm!(converged_inline!(concat!(',
             '            "wgmma.wait_group.sync.aligned {p}; /* the accumulators: ",']
    for i, r in enumerate(rs):
        regs = " ".join("{d%d_%d}" % (i, v) for v in range(r))
        lines.append(f'            "{regs} ",')
    lines.append('            "*/"')
    lines.append('        )),')
    lines.append("             p = const P,")
    for i, r in enumerate(rs):
        for v in range(r):
            lines.append(f"             d{i}_{v} = inout(reg32) d{i}[{v}],")
    lines.append("             options(nostack))")
    lines.append("    };")
    lines.append("}")
    return "\n".join(lines)


def dispatch():
    batches = []
    for name, elem, words, ins in ACCUMULATORS:
        flag = ", bf16" if len(ins) > 1 else ""
        arms = "\n".join(
            f"        ({mi}, {ni}) => {{\n"
            f"            let mut cc = [[[{elem}::default(); {words}]; {ni}]; {mi}];\n"
            f"            copy_grid(c, &mut cc);\n"
            f"            mma_m16n8k16_{name}_{mi}x{ni}(fit(a), fit(b), &mut cc{flag});\n"
            f"            copy_grid(&cc, c);\n"
            f"        }}"
            for mi, ni in MMA_SHAPES
        )
        param = "\n    bf16: bool," if len(ins) > 1 else ""
        batches.append(f"""/// `MI x NI` mma.sync with {name} accumulators in one batch; `false` (nothing done) if that shape
/// is not written out.
#[inline(always)]
pub(crate) fn mma_m16n8k16_{name}_batch<const MI: usize, const NI: usize>(
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[{elem}; {words}]; NI]; MI],{param}
) -> bool {{
    match (MI, NI) {{
{arms}
        _ => return false,
    }}
    true
}}
""")
    for form, a_ty in (("ss", "&[u64; K]"), ("rs", "&[[u32; 4]; K]")):
        arms = "\n".join(
            f"        ({n // 2}, {k}) => wgmma_{form}_m64n{n}k16_f32_x{k}::<TB>(fit(a), fit(b), ok, scale_d, fit_mut(d), bf16),"
            for n in WGMMA_ONE_N for k in range(1, WGMMA_CHAIN_MAX + 1)
        )
        batches.append(f"""/// A chain of `K` `wgmma`s with `A` {"in shared memory" if form == "ss" else "in registers"} and `R` f32 accumulators
/// (`wgmma_{form}_m64n{{2 R}}k16_f32_x{{K}}`); `false` (nothing done) if that chain is not written out.
///
/// # Safety
/// As the `wgmma_{form}_*_x*` functions.
#[inline(always)]
pub(crate) unsafe fn wgmma_{form}_chain_f32<const K: usize, const R: usize, const TB: u32>(
    a: {a_ty},
    b: &[u64; K],
    ok: u32,
    scale_d: u32,
    d: &mut [f32; R],
    bf16: bool,
) -> bool {{
    // SAFETY: the caller's contract, passed on.
    unsafe {{
        match (R, K) {{
{arms}
            _ => return false,
        }}
    }}
    true
}}
""")
    pair_arms = "\n".join(
        f"            ({k1}, {n1 // 2}, {k2}, {n2 // 2}) => wgmma_ss_rs_m64n{n1}n{n2}k16_f32_x{k1}_x{k2}::<TB1, TB2>(fit(a1), fit(b1), s1, fit_mut(d1), fit(a2), fit(b2), s2, fit_mut(d2), ok, bf16),"
        for k1, n1, k2, n2 in WGMMA_PAIRS
    )
    batches.append(f"""/// Two groups in one block (`wgmma_ss_rs_m64n{{2 R1}}n{{2 R2}}k16_f32_x{{K1}}_x{{K2}}`); `false` (nothing
/// done) if that pair is not written out.
///
/// # Safety
/// As the `wgmma_ss_rs_*` functions.
#[inline(always)]
pub(crate) unsafe fn wgmma_ss_rs_pair_f32<
    const K1: usize,
    const R1: usize,
    const K2: usize,
    const R2: usize,
    const TB1: u32,
    const TB2: u32,
>(
    a1: &[u64; K1],
    b1: &[u64; K1],
    s1: u32,
    d1: &mut [f32; R1],
    a2: &[[u32; 4]; K2],
    b2: &[u64; K2],
    s2: u32,
    d2: &mut [f32; R2],
    ok: u32,
    bf16: bool,
) -> bool {{
    // SAFETY: the caller's contract, passed on.
    unsafe {{
        match (K1, R1, K2, R2) {{
{pair_arms}
            _ => return false,
        }}
    }}
    true
}}
""")
    ld_arms = "\n".join(f"        {n} => fit_out(unsafe {{ ldmatrix_x4_{n}(*fit(&addr), trans) }})," for n in LDSM_COUNTS)
    return "\n".join(batches) + f"""
/// `N` ldmatrix.x4 in one batch; `None` if that count is not written out.
///
/// # Safety
/// As the `ldmatrix_x4_*` functions.
#[inline(always)]
pub(crate) unsafe fn ldmatrix_x4_batch<const N: usize>(addr: [u32; N], trans: bool) -> Option<[[u32; 4]; N]> {{
    Some(match N {{
{ld_arms}
        _ => return None,
    }})
}}

/// `x` as an array of `M` (the same type when `M == N`: the dispatch above calls it only then, and
/// the conversion folds away).
#[inline(always)]
fn fit<T, const N: usize, const M: usize>(x: &[T; N]) -> &[T; M] {{
    match x.as_slice().try_into() {{
        Ok(y) => y,
        Err(_) => super::fault("unreachable: a batch of another size"),
    }}
}}

/// `x` as a mutable array of `M` (`M == N`, as [`fit`]).
#[inline(always)]
pub(super) fn fit_mut<T, const N: usize, const M: usize>(x: &mut [T; N]) -> &mut [T; M] {{
    match x.as_mut_slice().try_into() {{
        Ok(y) => y,
        Err(_) => super::fault("unreachable: a batch of another size"),
    }}
}}

/// `to = from` for grids of the same shape (the dispatch above calls it only then): register
/// moves that fold away.
#[inline(always)]
fn copy_grid<T: Copy, const W: usize, const MA: usize, const NA: usize, const MB: usize, const NB: usize>(
    from: &[[[T; W]; NA]; MA],
    to: &mut [[[T; W]; NB]; MB],
) {{
    for (i, row) in to.iter_mut().enumerate() {{
        for (j, x) in row.iter_mut().enumerate() {{
            *x = from[i][j];
        }}
    }}
}}

/// `x` by value as an array of `M` (`M == N`, as [`fit`]).
#[inline(always)]
fn fit_out<T: Copy + Default, const N: usize, const M: usize>(x: [T; N]) -> [T; M] {{
    *fit(&x)
}}"""


def main():
    parts = [
        "// @generated by tools/gpu/gen_warp_asm.py: do not edit; edit the script and run it.",
        "//! Warp-collective instructions in batches (see `tools/gpu/gen_warp_asm.py`): one",
        "//! converged-warp check, then every instruction of the batch, in one `asm!` block.",
        "#![allow(clippy::too_many_arguments)]",
        "",
        "use super::{converged, converged_inline};",
        "use core::arch::asm;",
        "",
    ]
    for acc in ACCUMULATORS:
        for mi, ni in MMA_SHAPES:
            parts.append(mma_fn(acc, mi, ni))
            parts.append("")
    for n in LDSM_COUNTS:
        parts.append(ldsm_fn(n))
        parts.append("")
    for n, mi in WGMMA_SHAPES:
        for acc in wgmma_accumulators(n):
            parts.append(wgmma_fn(acc, n, mi))
            parts.append("")
            parts.append(wgmma_wait_fn(acc, mi))
            parts.append("")
    for n in WGMMA_ONE_N:
        for rs in (False, True):
            for k in range(1, WGMMA_CHAIN_MAX + 1):
                parts.append(wgmma_chain_fn(n, rs, k))
                parts.append("")
    for k1, n1, k2, n2 in WGMMA_PAIRS:
        parts.append(wgmma_pair_fn(k1, n1, k2, n2))
        parts.append("")
    regs = [n // 2 for n in WGMMA_ONE_N]
    for r in regs:
        parts.append(wgmma_wait_n_fn([r]))
        parts.append("")
    for r1 in regs:
        for r2 in regs:
            parts.append(wgmma_wait_n_fn([r1, r2]))
            parts.append("")
    parts.append(dispatch())
    text = "\n".join(parts) + "\n"
    open(OUT, "w").write(text)


main()
