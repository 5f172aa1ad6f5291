//! Shared-memory bank conflicts: how many wavefronts an access takes, on a bank model
//! ([`BankModel`]: NVIDIA's, measured on the H200, or AMD's LDS as stated there).
//!
//! An access is one instruction of a warp ([`AccessKind`]): each lane reads or writes `bytes`
//! contiguous bytes at its own byte address (`ldmatrix`/`stmatrix`: one 16-byte row a lane). The
//! instruction runs in phases of lanes; within a phase, each bank serves one distinct word per
//! wavefront, and lanes that touch the same word share it (broadcast). A phase takes as many
//! wavefronts as its busiest bank has distinct words; the instruction, the sum over its phases;
//! the ideal is one wavefront a phase. On NVIDIA's hardware (Volta to Hopper; every rule below
//! measured with Nsight Compute on the H200, the probe table in PERFORMANCE.md):
//!
//! - accesses of 1, 2 and 4 bytes: one phase of all 32 lanes;
//! - stores (and `cp.async`'s shared-memory side) of 8 and 16 bytes: phases of 16 and 8 lanes
//!   (128 bytes a phase);
//! - loads of 8 and 16 bytes: the same, except when every quad of lanes (4q to 4q+3) reads at
//!   most two distinct addresses: then the phases are twice as wide (8 bytes: one phase of 32
//!   lanes; 16 bytes: two of 16). Sharing across quads merges nothing (lanes `l` and `l^4`, or `l`
//!   and `l+16`, reading one address leave 16-byte loads at 4 phases);
//! - `ldmatrix` and `stmatrix` `.x1/.x2/.x4` (`.trans` or not): one phase of 8 rows per matrix,
//!   repeated rows merging nothing beyond the shared words of a phase.
//!
//! Lanes left out of an instruction ([`INACTIVE`]) take no part; a phase with no lane takes no
//! wavefront. Nsight Compute counts `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld` /
//! `_op_st` as these wavefronts and `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld` /
//! `_op_st` as wavefronts minus phases ([`Conflicts::extra`]). It does not count the 16-byte
//! `cp.async.cg` writes into shared memory at all, and its `_op_ldgsts` counts for the 4- and
//! 8-byte `cp.async.ca` follow the source's sectors, not this model: for `cp.async` the model's
//! count is the store's, which no counter confirms.
//!
//! [`access`] is the closed form over F2 for an access whose maps are linear ([`crate::f2::linear`]);
//! [`simulate`] simulates every instruction of an access over any layouts, and [`wavefronts`] one
//! instruction from its addresses.
//!
//! ```
//! use const_layout::bank::{wavefronts, AccessKind, NVIDIA};
//! // 32 lanes, 4 bytes each, all in bank 0 (a stride of 128 bytes): a 32-way conflict.
//! let addrs: [u32; 32] = core::array::from_fn(|t| 128 * t as u32);
//! let c = wavefronts(&NVIDIA, AccessKind::Load, &addrs, 4).unwrap();
//! assert_eq!((c.wavefronts, c.ideal), (32, 1));
//! // 16-byte loads, lanes 2k and 2k+1 reading one address: two phases of 16 lanes, not four.
//! let addrs: [u32; 32] = core::array::from_fn(|t| 16 * (t as u32 / 2));
//! assert_eq!(wavefronts(&NVIDIA, AccessKind::Load, &addrs, 16).unwrap().wavefronts, 2);
//! assert_eq!(wavefronts(&NVIDIA, AccessKind::Store, &addrs, 16).unwrap().wavefronts, 4);
//! ```

use crate::error::LayoutError;

mod linear;
pub(crate) mod simulate;
pub use linear::access;
pub use simulate::{MAX_SIMULATED, Offsets, simulate};

/// A shared-memory bank model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankModel {
    /// The number of banks.
    pub banks: u32,
    /// The bytes of one bank word.
    pub bank_bytes: u32,
    /// The bytes one wavefront serves: an access of `b` bytes a lane runs in phases of
    /// `wavefront_bytes / b` lanes.
    pub wavefront_bytes: u32,
    /// Lanes of one instruction (a warp, a wave).
    pub threads: u32,
    /// Whether loads wider than a bank word whose quads of lanes read at most two distinct
    /// addresses each run in phases of twice the lanes (NVIDIA's hardware; see the module).
    pub paired_loads: bool,
}

/// NVIDIA's shared memory (Volta to Hopper): 32 banks of 4 bytes, 128-byte wavefronts, warps of 32
/// lanes; 8- and 16-byte accesses in phases of 16 and 8 lanes, loads paired as the module says.
pub const NVIDIA: BankModel =
    BankModel { banks: 32, bank_bytes: 4, wavefront_bytes: 128, threads: 32, paired_loads: true };

/// AMD's LDS with 32 banks (CDNA2 and CDNA3, MI200 and MI300), as CK's documentation describes it
/// (rocm.docs.amd.com, Composable Kernel, "Understanding AMD GPU LDS and Bank Conflicts"): banks of
/// 4 bytes, waves of 64 lanes, an access served in phases of 128 bytes (`ds_write_b128`: 8 phases
/// of 8 lanes; `ds_read_b32`: two half-waves). Not checked against AMD hardware here.
pub const AMD_LDS_32: BankModel =
    BankModel { banks: 32, bank_bytes: 4, wavefront_bytes: 128, threads: 64, paired_loads: false };

/// AMD's LDS with 64 banks of 4 bytes (the same documentation's other organisation), 256 bytes a
/// phase, waves of 64 lanes (`ds_read_b128`: 16 lanes a phase). Not checked against AMD hardware
/// here.
pub const AMD_LDS: BankModel =
    BankModel { banks: 64, bank_bytes: 4, wavefront_bytes: 256, threads: 64, paired_loads: false };

impl BankModel {
    /// An error unless the model can be simulated: banks, bank bytes, wavefront bytes and lanes
    /// powers of two, a wavefront at least a bank word, at most [`MAX_THREADS`] lanes.
    ///
    /// ```
    /// use const_layout::bank::{BankModel, NVIDIA};
    /// assert!(NVIDIA.check().is_ok());
    /// let bad = BankModel { banks: 0, ..NVIDIA };
    /// assert_eq!(bad.check().unwrap_err().to_string(), "bank conflicts: the banks (a power of two): 0");
    /// ```
    pub const fn check(&self) -> Result<(), LayoutError> {
        if !self.banks.is_power_of_two() {
            return Err(err("the banks (a power of two)", self.banks as isize));
        }
        if !self.bank_bytes.is_power_of_two() || self.bank_bytes > 16 {
            return Err(err(
                "the bytes of a bank word (a power of two, at most 16)",
                self.bank_bytes as isize,
            ));
        }
        if !self.wavefront_bytes.is_power_of_two() || self.wavefront_bytes < self.bank_bytes {
            return Err(err(
                "the bytes of a wavefront (a power of two, at least a word)",
                self.wavefront_bytes as isize,
            ));
        }
        if !self.threads.is_power_of_two() || self.threads as usize > MAX_THREADS {
            return Err(err(
                "the lanes of an instruction (a power of two, at most 64)",
                self.threads as isize,
            ));
        }
        Ok(())
    }

    /// The lanes of one phase for accesses of `bytes` a lane, without pairing: as many as fill
    /// `wavefront_bytes` with accesses of at least a bank word, at most the instruction's lanes.
    ///
    /// ```
    /// use const_layout::bank::{AMD_LDS_32, NVIDIA};
    /// assert_eq!((NVIDIA.lanes_per_phase(16), NVIDIA.lanes_per_phase(2)), (8, 32));
    /// assert_eq!((AMD_LDS_32.lanes_per_phase(16), AMD_LDS_32.lanes_per_phase(4)), (8, 32));
    /// ```
    pub const fn lanes_per_phase(&self, bytes: u32) -> u32 {
        let b = if bytes > self.bank_bytes { bytes } else { self.bank_bytes };
        let lanes = self.wavefront_bytes / b;
        if lanes < self.threads { lanes } else { self.threads }
    }
}

/// The instruction an access is: what it does to shared memory, for the bank model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// `ld.shared` (`LDS`), 1 to 16 bytes a lane.
    Load,
    /// `st.shared` (`STS`), 1 to 16 bytes a lane.
    Store,
    /// `ldmatrix.sync.aligned.m8n8.x{matrices}[.trans]`: lanes 0 to `8 matrices - 1` each give the
    /// address of one 16-byte row; `.trans` changes the registers, not the shared-memory side.
    Ldmatrix {
        /// 1, 2 or 4.
        matrices: u32,
        /// `.trans`.
        trans: bool,
    },
    /// `stmatrix.sync.aligned.x{matrices}[.trans].m8n8` (sm_90): as `Ldmatrix`, writing.
    Stmatrix {
        /// 1, 2 or 4.
        matrices: u32,
        /// `.trans`.
        trans: bool,
    },
    /// `cp.async` (`LDGSTS`), its shared-memory side: 4, 8 or 16 bytes a lane, counted as a store
    /// (see the module for what Nsight Compute counts).
    CpAsync,
}

impl AccessKind {
    /// The bytes each lane accesses given `bytes` a lane: `bytes`, or 16 (a row) for
    /// `ldmatrix`/`stmatrix`.
    ///
    /// ```
    /// use const_layout::bank::AccessKind;
    /// assert_eq!(AccessKind::Load.width(8), 8);
    /// assert_eq!(AccessKind::Ldmatrix { matrices: 4, trans: false }.width(2), 16);
    /// ```
    pub const fn width(&self, bytes: u32) -> u32 {
        match self {
            AccessKind::Ldmatrix { .. } | AccessKind::Stmatrix { .. } => 16,
            _ => bytes,
        }
    }

    /// The lanes one instruction takes addresses from: the model's lanes, or 8 a matrix.
    ///
    /// ```
    /// use const_layout::bank::{AccessKind, NVIDIA};
    /// assert_eq!(AccessKind::Store.lanes(&NVIDIA), 32);
    /// assert_eq!(AccessKind::Ldmatrix { matrices: 2, trans: true }.lanes(&NVIDIA), 16);
    /// ```
    pub const fn lanes(&self, model: &BankModel) -> u32 {
        match self {
            AccessKind::Ldmatrix { matrices, .. } | AccessKind::Stmatrix { matrices, .. } => {
                let l = 8 * *matrices;
                if l < model.threads { l } else { model.threads }
            }
            _ => model.threads,
        }
    }

    /// An error if the kind cannot move `bytes` a lane (widths 1, 2, 4, 8, 16; `cp.async` 4, 8,
    /// 16; `ldmatrix`/`stmatrix`: 1, 2 or 4 matrices).
    ///
    /// ```
    /// use const_layout::bank::AccessKind;
    /// assert!(AccessKind::CpAsync.check(16).is_ok());
    /// assert_eq!(
    ///     AccessKind::CpAsync.check(2).unwrap_err().to_string(),
    ///     "bank conflicts: the bytes of a cp.async (4, 8 or 16): 2"
    /// );
    /// ```
    pub const fn check(&self, bytes: u32) -> Result<(), LayoutError> {
        match self {
            AccessKind::Ldmatrix { matrices, .. } | AccessKind::Stmatrix { matrices, .. } => {
                if !matches!(*matrices, 1 | 2 | 4) {
                    return Err(err("the matrices of an ldmatrix/stmatrix (1, 2 or 4)", *matrices as isize));
                }
            }
            AccessKind::CpAsync => {
                if !matches!(bytes, 4 | 8 | 16) {
                    return Err(err("the bytes of a cp.async (4, 8 or 16)", bytes as isize));
                }
            }
            AccessKind::Load | AccessKind::Store => {
                if !matches!(bytes, 1 | 2 | 4 | 8 | 16) {
                    return Err(err("the bytes of an access (1, 2, 4, 8 or 16)", bytes as isize));
                }
            }
        }
        Ok(())
    }

    /// What a copy falls back to when the layout does not give this kind the vector it needs
    /// (CuTe's `UniversalCopy`): `ld` for `ldmatrix`, `st` for `stmatrix` and `cp.async`.
    ///
    /// ```
    /// use const_layout::bank::AccessKind;
    /// assert_eq!(AccessKind::Ldmatrix { matrices: 4, trans: true }.fallback(), AccessKind::Load);
    /// assert_eq!(AccessKind::CpAsync.fallback(), AccessKind::Store);
    /// ```
    pub const fn fallback(&self) -> AccessKind {
        match self {
            AccessKind::Load | AccessKind::Ldmatrix { .. } => AccessKind::Load,
            _ => AccessKind::Store,
        }
    }

    /// The kind that moves `bytes` a lane: this one if it can, else its [`AccessKind::fallback`].
    ///
    /// ```
    /// use const_layout::bank::AccessKind;
    /// let ldsm = AccessKind::Ldmatrix { matrices: 4, trans: false };
    /// assert_eq!((ldsm.for_bytes(16), ldsm.for_bytes(4)), (ldsm, AccessKind::Load));
    /// ```
    pub const fn for_bytes(&self, bytes: u32) -> AccessKind {
        if self.check(bytes).is_ok() && self.width(bytes) == bytes { *self } else { self.fallback() }
    }

    /// The lanes of one phase for `width` bytes a lane, `paired` if the loads pair (see the
    /// module).
    pub(crate) const fn phase_lanes(&self, model: &BankModel, width: u32, paired: bool) -> u32 {
        let lanes = self.lanes(model);
        let base = match self {
            AccessKind::Ldmatrix { .. } | AccessKind::Stmatrix { .. } => 8,
            _ => model.lanes_per_phase(width),
        };
        let p = if paired { 2 * base } else { base };
        if p < lanes { p } else { lanes }
    }

    /// Whether this kind pairs on `model` at `width` bytes, if its quads allow: loads wider than
    /// a word whose phases hold at least two lanes (a paired phase's quads then read at most
    /// the unpaired phase's addresses, within one wavefront's bytes).
    pub(crate) const fn may_pair(&self, model: &BankModel, width: u32) -> bool {
        matches!(self, AccessKind::Load)
            && model.paired_loads
            && width > model.bank_bytes
            && model.lanes_per_phase(width) >= 2
    }
}

impl core::fmt::Display for AccessKind {
    /// The PTX name, as `--op` takes it: `ld`, `st`, `ldmatrix.x4.trans`, `stmatrix.x2`,
    /// `cp.async`.
    ///
    /// ```
    /// use const_layout::bank::AccessKind;
    /// assert_eq!(AccessKind::Ldmatrix { matrices: 4, trans: true }.to_string(), "ldmatrix.x4.trans");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            AccessKind::Load => f.write_str("ld"),
            AccessKind::Store => f.write_str("st"),
            AccessKind::CpAsync => f.write_str("cp.async"),
            AccessKind::Ldmatrix { matrices, trans } | AccessKind::Stmatrix { matrices, trans } => {
                let name = if matches!(self, AccessKind::Ldmatrix { .. }) { "ldmatrix" } else { "stmatrix" };
                write!(f, "{name}.x{matrices}{}", if *trans { ".trans" } else { "" })
            }
        }
    }
}

impl core::str::FromStr for AccessKind {
    type Err = LayoutError;

    /// `ld`, `st`, `cp.async`, `ldmatrix` or `stmatrix` with an optional `.x1`, `.x2` or `.x4`
    /// (default `.x4`) and `.trans`, in either order.
    ///
    /// ```
    /// use const_layout::bank::AccessKind;
    /// assert_eq!("ldmatrix.trans".parse::<AccessKind>().unwrap(), AccessKind::Ldmatrix { matrices: 4, trans: true });
    /// assert_eq!("stmatrix.x1".parse::<AccessKind>().unwrap(), AccessKind::Stmatrix { matrices: 1, trans: false });
    /// assert!("ld.global".parse::<AccessKind>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, LayoutError> {
        let bad = || {
            err(
                "not an access kind (ld, st, ldmatrix[.x1|.x2|.x4][.trans], stmatrix[...], cp.async); its length",
                s.len() as isize,
            )
        };
        match s {
            "ld" => return Ok(AccessKind::Load),
            "st" => return Ok(AccessKind::Store),
            "cp.async" => return Ok(AccessKind::CpAsync),
            _ => {}
        }
        let mut parts = s.split('.');
        let load = match parts.next() {
            Some("ldmatrix") => true,
            Some("stmatrix") => false,
            _ => return Err(bad()),
        };
        let (mut matrices, mut trans) = (None, None);
        for p in parts {
            match p {
                "x1" | "x2" | "x4" if matrices.is_none() => {
                    matrices = Some(p.as_bytes()[1] as u32 - b'0' as u32)
                }
                "trans" if trans.is_none() => trans = Some(true),
                _ => return Err(bad()),
            }
        }
        let (matrices, trans) = (matrices.unwrap_or(4), trans.unwrap_or(false));
        Ok(if load {
            AccessKind::Ldmatrix { matrices, trans }
        } else {
            AccessKind::Stmatrix { matrices, trans }
        })
    }
}

/// The address of a lane left out of an instruction (a predicated-off lane).
pub const INACTIVE: u32 = u32::MAX;

const fn err(what: &'static str, value: isize) -> LayoutError {
    LayoutError::Access { op: "bank conflicts", what, value }
}

/// The wavefronts an access takes and the ideal (one a phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Conflicts {
    /// Wavefronts taken.
    pub wavefronts: u32,
    /// Wavefronts without conflicts: one a phase.
    pub ideal: u32,
}

impl Conflicts {
    /// The extra wavefronts: conflicts (Nsight Compute's `l1tex__data_bank_conflicts_...`).
    ///
    /// ```
    /// # use const_layout::bank::Conflicts;
    /// assert_eq!(Conflicts { wavefronts: 12, ideal: 4 }.extra(), 8);
    /// ```
    pub const fn extra(&self) -> u32 {
        self.wavefronts - self.ideal
    }

    /// The sum of two accesses' counts (saturating: a count past `u32::MAX` stays there).
    ///
    /// ```
    /// # use const_layout::bank::Conflicts;
    /// let c = Conflicts { wavefronts: 3, ideal: 1 }.plus(Conflicts { wavefronts: 1, ideal: 1 });
    /// assert_eq!((c.wavefronts, c.ideal), (4, 2));
    /// ```
    pub const fn plus(self, other: Conflicts) -> Conflicts {
        Conflicts {
            wavefronts: self.wavefronts.saturating_add(other.wavefronts),
            ideal: self.ideal.saturating_add(other.ideal),
        }
    }
}

/// The most lanes an instruction has in any model here.
pub const MAX_THREADS: usize = 64;

/// The wavefronts of one instruction of `kind`: lane `l` accesses `bytes` bytes (`ldmatrix`,
/// `stmatrix`: a 16-byte row, whatever `bytes`) from byte address `addrs[l]`, or nothing if it is
/// [`INACTIVE`]. At most the model's lanes; `ldmatrix`/`stmatrix` `.xN` read the first `8 N`
/// (the hardware ignores the other lanes' addresses). An error names a width the kind does not
/// take, too many lanes, or an address not aligned to its access.
///
/// ```
/// use const_layout::bank::{wavefronts, AccessKind, NVIDIA, INACTIVE};
/// // ldmatrix.x4 on 8 x 64 halves, row-major: each matrix's 8 rows 128 bytes apart, 8-way.
/// let rows: [u32; 32] = core::array::from_fn(|l| 128 * l as u32);
/// let x4 = AccessKind::Ldmatrix { matrices: 4, trans: false };
/// assert_eq!(wavefronts(&NVIDIA, x4, &rows, 2).unwrap().wavefronts, 32);
/// // Half the lanes predicated off: 16-byte loads, two phases of 8 lanes.
/// let half: [u32; 32] = core::array::from_fn(|l| if l < 16 { 16 * l as u32 } else { INACTIVE });
/// assert_eq!(wavefronts(&NVIDIA, AccessKind::Load, &half, 16).unwrap().ideal, 2);
/// ```
pub const fn wavefronts(
    model: &BankModel,
    kind: AccessKind,
    addrs: &[u32],
    bytes: u32,
) -> Result<Conflicts, LayoutError> {
    let (n, per_phase) = match phases(model, kind, addrs, bytes) {
        Ok(p) => p,
        Err(e) => return Err(e),
    };
    let width = kind.width(bytes);
    let words_each = if width <= model.bank_bytes { 1 } else { width / model.bank_bytes };
    let mut total = Conflicts { wavefronts: 0, ideal: 0 };
    let mut start = 0;
    while start < n {
        let end = if start + per_phase < n { start + per_phase } else { n };
        let busiest = busiest_bank(model, addrs, start, end, words_each);
        if busiest > 0 {
            total.wavefronts += busiest;
            total.ideal += 1;
        }
        start = end;
    }
    Ok(total)
}

/// How one instruction runs: the lanes it takes addresses from (the first `n` of `addrs`) and
/// the lanes of each of its phases (paired loads included); the errors of [`wavefronts`].
///
/// ```
/// use const_layout::bank::{phases, AccessKind, NVIDIA};
/// let pairs: [u32; 32] = core::array::from_fn(|l| 16 * (l as u32 / 2));
/// assert_eq!(phases(&NVIDIA, AccessKind::Load, &pairs, 16).unwrap(), (32, 16));
/// assert_eq!(phases(&NVIDIA, AccessKind::Store, &pairs, 16).unwrap(), (32, 8));
/// let x1 = AccessKind::Ldmatrix { matrices: 1, trans: false };
/// assert_eq!(phases(&NVIDIA, x1, &pairs, 16).unwrap(), (8, 8));
/// ```
pub const fn phases(
    model: &BankModel,
    kind: AccessKind,
    addrs: &[u32],
    bytes: u32,
) -> Result<(usize, usize), LayoutError> {
    if let Err(e) = model.check() {
        return Err(e);
    }
    if let Err(e) = kind.check(bytes) {
        return Err(e);
    }
    let width = kind.width(bytes);
    if addrs.len() > model.threads as usize || addrs.len() > MAX_THREADS {
        return Err(err("the lanes of an instruction, past the model's", addrs.len() as isize));
    }
    let lanes = kind.lanes(model) as usize;
    let n = if addrs.len() < lanes { addrs.len() } else { lanes };
    let mut l = 0;
    while l < n {
        if addrs[l] != INACTIVE && !addrs[l].is_multiple_of(width) {
            return Err(err("an address not aligned to its access", addrs[l] as isize));
        }
        l += 1;
    }
    let paired = kind.may_pair(model, width) && quads_pair(addrs, n);
    Ok((n, kind.phase_lanes(model, width, paired) as usize))
}

/// Whether every quad of lanes (`4q` to `4q+3`, of the first `n`) reads at most two distinct
/// addresses: the condition under which NVIDIA's loads of 8 and 16 bytes run in phases twice as
/// wide.
const fn quads_pair(addrs: &[u32], n: usize) -> bool {
    let mut q = 0;
    while q < n {
        let (mut first, mut second) = (INACTIVE, INACTIVE);
        let mut l = q;
        while l < q + 4 && l < n {
            let a = addrs[l];
            if a != INACTIVE && a != first && a != second {
                if first == INACTIVE {
                    first = a;
                } else if second == INACTIVE {
                    second = a;
                } else {
                    return false;
                }
            }
            l += 1;
        }
        q += 4;
    }
    true
}

/// The most distinct words on one bank among the words lanes `start..end` touch (`words_each`
/// words from each active lane's address); 0 if no lane is active.
const fn busiest_bank(model: &BankModel, addrs: &[u32], start: usize, end: usize, words_each: u32) -> u32 {
    let mut words = [0u32; 16 * MAX_THREADS];
    let mut count = 0;
    let mut t = start;
    while t < end {
        if addrs[t] != INACTIVE {
            let mut w = 0;
            while w < words_each {
                let word = addrs[t] / model.bank_bytes + w;
                let mut seen = false;
                let mut i = 0;
                while i < count {
                    if words[i] == word {
                        seen = true;
                    }
                    i += 1;
                }
                if !seen && count < words.len() {
                    words[count] = word;
                    count += 1;
                }
                w += 1;
            }
        }
        t += 1;
    }
    let mut busiest = 0;
    let mut i = 0;
    while i < count {
        let bank = words[i] % model.banks;
        let mut on_bank = 0;
        let mut j = 0;
        while j < count {
            if words[j] % model.banks == bank {
                on_bank += 1;
            }
            j += 1;
        }
        if on_bank > busiest {
            busiest = on_bank;
        }
        i += 1;
    }
    busiest
}
