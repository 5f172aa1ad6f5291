//! The CPU grid emulator: a kernel body runs on the host with blocks and threads as OS threads,
//! barriers honoured, so `cargo test` runs every kernel without a GPU.
//!
//! [`launch`] runs one OS thread per thread of a block (the block's threads really run at the
//! same time, so a barrier is a real rendezvous) and the blocks one after another. Each thread
//! finds its indices, its block's shared memory and its barrier in a thread-local context, which
//! is what the device functions ([`thread_idx`](crate::thread_idx),
//! [`sync_threads`](crate::sync_threads), [`SmemRegion::dynamic`](crate::SmemRegion::dynamic), ...)
//! read on the host. Memory is made of `AtomicU32` words accessed with relaxed ordering: the
//! barrier orders them, as on the GPU.
//!
//! The emulator is stricter than the hardware where the hardware is silent:
//! - **Shared-memory races.** Every shared word remembers which thread last wrote it and which
//!   read it since the last barrier. A thread reading a word another thread wrote since the last
//!   barrier, or writing a word another thread read or wrote since then, is a race (a missing
//!   `__syncthreads()`), reported with both threads and the word.
//! - **Uninitialized shared memory** is a signalling NaN pattern at the start of every block, so
//!   a kernel that reads before it writes computes NaN.
//! - A fault (an index past an array, a misaligned vector) or any panic in a thread stops the
//!   launch and is returned as an [`EmuError`] naming the block and thread.
//!
//! ```
//! use const_layout_device::emu::{launch, LaunchConfig};
//! use const_layout_device::{block_idx, sync_threads, thread_idx, Dim3, Gmem, GmemMut, SmemRegion};
//! use std::sync::atomic::AtomicU32;
//!
//! // Reverse each block of 64 words through shared memory.
//! let input: Vec<AtomicU32> = (0..256).map(AtomicU32::new).collect();
//! let output: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
//! let (src, dst) = (Gmem::<u32>::from_cells(&input), GmemMut::<u32>::from_cells(&output));
//! let cfg = LaunchConfig { grid: Dim3::x(4), block: Dim3::x(64), dynamic_smem_bytes: 256 };
//! launch(&cfg, || {
//!     let smem = SmemRegion::dynamic().array::<u32, 64>(0).unwrap();
//!     let (t, b) = (thread_idx().x as usize, block_idx().x as usize);
//!     smem.store(t, src.load(b * 64 + t));
//!     sync_threads();
//!     dst.store(b * 64 + t, smem.load(63 - t));
//! })
//! .unwrap();
//! assert_eq!(output[0].load(std::sync::atomic::Ordering::Relaxed), 63);
//! ```

use crate::types::{Dim3, HalfKind};
use std::boxed::Box;
use std::cell::RefCell;
use std::fmt;
use std::string::{String, ToString};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, Once};
use std::vec::Vec;

/// The largest dynamic shared memory a block may ask for: an H100's opt-in limit per block.
pub const MAX_SHARED_BYTES: u32 = 227 * 1024;
/// The most threads a block may have.
pub const MAX_BLOCK_THREADS: u32 = 1024;
/// The most blocks the emulator runs in one launch (each runs its threads for real, one block
/// after another; larger grids belong on the GPU).
pub const MAX_BLOCKS: u64 = 1 << 16;
/// The pattern uninitialized shared memory holds: a signalling NaN as `f32`.
pub const POISON: u32 = 0x7fa0_dead;
/// The most static shared memory (`static_shared!`) a launch may declare: CUDA's 48 KiB.
pub const STATIC_SHARED_BYTES: u32 = 48 * 1024;

/// A kernel launch's geometry (the crate's [`LaunchConfig`](crate::LaunchConfig), here too).
pub use crate::types::LaunchConfig;

/// Why an emulated launch failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// The geometry is not launchable (a zero extent, too many threads, too much shared memory).
    Config(String),
    /// A thread faulted or panicked: its block, its thread and the message.
    Thread {
        /// The block's index.
        block: Dim3,
        /// The thread's index.
        thread: Dim3,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmuError::Config(m) => write!(f, "cannot launch: {m}"),
            EmuError::Thread { block, thread, message } => {
                write!(f, "block {block}, thread {thread}: {message}")
            }
        }
    }
}

impl std::error::Error for EmuError {}

/// The panic payload that unwinds the other threads of a launch once one has failed.
struct Abandon;

/// A barrier that threads may leave (an exited thread no longer holds the others back, as on the
/// GPU) and that a failure can break.
struct Rendezvous {
    state: Mutex<RvState>,
    cv: Condvar,
}

struct RvState {
    live: usize,
    arrived: usize,
    generation: u64,
    broken: bool,
}

impl Rendezvous {
    fn new(live: usize) -> Self {
        Rendezvous {
            state: Mutex::new(RvState { live, arrived: 0, generation: 0, broken: false }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, RvState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait for every live thread; the generation after the release.
    fn wait(&self) -> u64 {
        let mut s = self.lock();
        if s.broken {
            drop(s);
            std::panic::panic_any(Abandon);
        }
        s.arrived += 1;
        let generation = s.generation;
        if s.arrived == s.live {
            s.arrived = 0;
            s.generation += 1;
            self.cv.notify_all();
            return s.generation;
        }
        while s.generation == generation && !s.broken {
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.broken {
            drop(s);
            std::panic::panic_any(Abandon);
        }
        s.generation
    }

    /// [`wait`](Self::wait), failing the launch with `what()` (a deadlock) after `patience`.
    fn wait_patiently(&self, patience: std::time::Duration, what: impl Fn(usize, usize) -> String) -> u64 {
        let start = std::time::Instant::now();
        let mut s = self.lock();
        if s.broken {
            drop(s);
            std::panic::panic_any(Abandon);
        }
        s.arrived += 1;
        let generation = s.generation;
        if s.arrived == s.live {
            s.arrived = 0;
            s.generation += 1;
            self.cv.notify_all();
            return s.generation;
        }
        while s.generation == generation && !s.broken {
            if start.elapsed() > patience {
                let (arrived, live) = (s.arrived, s.live);
                drop(s);
                panic!("{}", what(arrived, live));
            }
            s = self
                .cv
                .wait_timeout(s, std::time::Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if s.broken {
            drop(s);
            std::panic::panic_any(Abandon);
        }
        s.generation
    }

    /// A thread is done: the others no longer wait for it.
    fn leave(&self) {
        let mut s = self.lock();
        s.live -= 1;
        if s.live > 0 && s.arrived == s.live {
            s.arrived = 0;
            s.generation += 1;
        }
        self.cv.notify_all();
    }

    /// Ready for the next block: every thread live again, and a new generation, so that the
    /// race tags of the block before never match the new block's.
    fn reset(&self, live: usize) {
        let mut s = self.lock();
        s.live = live;
        s.arrived = 0;
        s.generation += 1;
    }

    fn generation(&self) -> u64 {
        self.lock().generation
    }

    fn break_all(&self) {
        self.lock().broken = true;
        self.cv.notify_all();
    }
}

/// A shared word's history since the last barrier, for race detection: `epoch << 32 | (thread +
/// 1)` of the last write and of the last read (`MANY` when several threads read it).
struct Tags {
    write: Vec<AtomicU64>,
    read: Vec<AtomicU64>,
}

const MANY: u64 = 0xffff_ffff;

/// One launch's state, shared by its threads.
struct Launch {
    cfg: LaunchConfig,
    threads: usize,
    smem: Vec<AtomicU32>,
    tags: Tags,
    barrier: Rendezvous,
    block_end: Rendezvous,
    warps: Vec<Rendezvous>,
    warp_slots: Vec<AtomicU32>,
    /// Each thread's fragments for a warp-collective MMA (`FRAG_WORDS` words a thread).
    warp_frags: Vec<AtomicU32>,
    /// Where each thread called its current warp-collective instruction from (PTX's `.aligned`:
    /// every lane must execute the same instruction).
    warp_sites: Vec<Mutex<Option<&'static core::panic::Location<'static>>>>,
    /// Each warpgroup's rendezvous for a `wgmma` of [`crate::wgmma::Batch`] (`.sync.aligned` over
    /// the warpgroup: all 128 threads at one instruction).
    warpgroups: Vec<Rendezvous>,
    /// Where each thread called its current warpgroup instruction from.
    wg_sites: Vec<Mutex<Option<Site>>>,
    /// Each thread's `A` fragment for a `wgmma` with `A` in registers (4 words a thread).
    wg_frags: Vec<AtomicU32>,
    /// Each warpgroup's `wgmma` groups not yet retired by a wait: the shared words (and values)
    /// their instructions read, which must be unchanged when a wait retires the group.
    wg_groups: Vec<Mutex<WgGroups>>,
    failure: Mutex<Option<EmuError>>,
    /// The block's mbarriers by shared byte address (the words themselves are left alone).
    mbarriers: Mutex<std::collections::BTreeMap<u32, Mbar>>,
    /// The block's named barriers (`bar.sync id, threads`) by id.
    named: Mutex<std::collections::BTreeMap<u32, Named>>,
    named_cv: Condvar,
    /// The static shared arrays (`static_shared!`) by name: their byte offsets and sizes, after
    /// the dynamic shared memory; the same for every block.
    statics: Mutex<Vec<(&'static str, u32, u32)>>,
    /// The words of shared memory in use: the dynamic ones and the static arrays so far.
    smem_used: AtomicU32,
    /// How long a thread waits on a named barrier or an mbarrier before the launch fails as
    /// deadlocked ([`with_deadlock_patience`]).
    patience: std::time::Duration,
}

/// A named barrier's state: the thread count of its current phase, the threads arrived and the
/// phases completed.
#[derive(Clone, Copy, Debug)]
struct Named {
    threads: u32,
    arrived: u32,
    phases: u64,
}

/// An emulated mbarrier: arrivals a phase, arrivals still pending, bytes of asynchronous copies
/// still pending (negative when copies completed before their `expect_tx`), phases completed.
#[derive(Clone, Copy, Debug)]
struct Mbar {
    count: u32,
    pending: u32,
    tx: i64,
    phases: u64,
}

/// The thread-local context of an emulated thread.
struct Ctx {
    launch: Arc<Launch>,
    thread: Dim3,
    block: Dim3,
    linear: usize,
    epoch: u64,
    /// The `wgmma` groups this thread committed in the block ([`wgmma_commit`]).
    wg_commits: u64,
    /// Whether this thread wrote shared memory since its last proxy fence
    /// ([`fence_proxy_async_shared`]): [`wgmma_begin_tma`] refuses to start a batch then.
    unfenced_smem_writes: bool,
}

std::thread_local! {
    static CTX: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

/// Run `f` with the calling thread's emulator context; outside a launch, a clear panic.
fn with<R>(f: impl FnOnce(&mut Ctx) -> R) -> R {
    CTX.with(|c| {
        let mut c = c.borrow_mut();
        let ctx = c.as_mut().unwrap_or_else(|| {
            panic!(
                "a device function was called outside a kernel launch (use const_layout_device::emu::launch)"
            )
        });
        f(ctx)
    })
}

std::thread_local! {
    /// Whether this OS thread runs an emulated GPU thread: its panics are the launch's result
    /// (`EmuError`), not messages for the terminal.
    static EMULATED: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
}

/// Keep emulated threads' panics off the terminal (a failing launch of 256 threads would print
/// 256 messages); the launch returns the first one.
fn silence_emulated_threads() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !EMULATED.with(|e| e.get()) {
                previous(info);
            }
        }));
    });
}

/// Run `kernel` on an emulated grid: every block, every thread of it, barriers honoured. Returns
/// the first thread's failure, if any (the others are stopped).
///
/// Blocks run one after another; a block's threads run concurrently as OS threads (the same ones
/// for every block). A thread that returns early is treated as exited: barriers no longer wait
/// for it.
pub fn launch<F: Fn() + Sync>(cfg: &LaunchConfig, kernel: F) -> Result<(), EmuError> {
    let threads = cfg.block.count();
    let blocks = cfg.grid.count();
    if threads == 0 || blocks == 0 {
        return Err(EmuError::Config(std::format!("empty grid {} or block {}", cfg.grid, cfg.block)));
    }
    if threads > MAX_BLOCK_THREADS as u64 {
        return Err(EmuError::Config(std::format!(
            "{threads} threads in a block (at most {MAX_BLOCK_THREADS})"
        )));
    }
    if blocks > MAX_BLOCKS {
        return Err(EmuError::Config(std::format!(
            "{blocks} blocks (the emulator runs at most {MAX_BLOCKS})"
        )));
    }
    if cfg.dynamic_smem_bytes > MAX_SHARED_BYTES {
        return Err(EmuError::Config(std::format!(
            "{} bytes of shared memory (at most {MAX_SHARED_BYTES})",
            cfg.dynamic_smem_bytes
        )));
    }
    silence_emulated_threads();
    let threads = threads as usize;
    let dynamic_words = cfg.dynamic_smem_bytes.div_ceil(4);
    // Static arrays start at the next 1024-byte boundary after the dynamic memory.
    let words = ((1024 * cfg.dynamic_smem_bytes.div_ceil(1024) + STATIC_SHARED_BYTES) / 4) as usize;
    let warps = threads.div_ceil(32);
    let launch = Arc::new(Launch {
        cfg: *cfg,
        threads,
        smem: (0..words).map(|_| AtomicU32::new(POISON)).collect(),
        tags: Tags {
            write: (0..words).map(|_| AtomicU64::new(0)).collect(),
            read: (0..words).map(|_| AtomicU64::new(0)).collect(),
        },
        barrier: Rendezvous::new(threads),
        block_end: Rendezvous::new(threads),
        warps: (0..warps).map(|w| Rendezvous::new((threads - 32 * w).min(32))).collect(),
        warp_slots: (0..threads).map(|_| AtomicU32::new(0)).collect(),
        warp_frags: (0..threads * FRAG_WORDS).map(|_| AtomicU32::new(0)).collect(),
        warp_sites: (0..threads).map(|_| Mutex::new(None)).collect(),
        warpgroups: (0..threads.div_ceil(128))
            .map(|w| Rendezvous::new((threads - 128 * w).min(128)))
            .collect(),
        wg_sites: (0..threads).map(|_| Mutex::new(None)).collect(),
        wg_frags: (0..threads * 4).map(|_| AtomicU32::new(0)).collect(),
        wg_groups: (0..threads.div_ceil(128)).map(|_| Mutex::new(WgGroups::default())).collect(),
        failure: Mutex::new(None),
        mbarriers: Mutex::new(std::collections::BTreeMap::new()),
        named: Mutex::new(std::collections::BTreeMap::new()),
        named_cv: Condvar::new(),
        statics: Mutex::new(Vec::new()),
        smem_used: AtomicU32::new(dynamic_words),
        patience: PATIENCE.with(|p| p.get()),
    });
    let kernel = &kernel;
    std::thread::scope(|scope| {
        for linear in 0..threads {
            let launch = Arc::clone(&launch);
            std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn_scoped(scope, move || run_thread(launch, linear, kernel))
                .expect("the emulator could not start a thread");
        }
    });
    match launch.failure.lock().unwrap_or_else(|e| e.into_inner()).take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn run_thread<F: Fn() + Sync>(launch: Arc<Launch>, linear: usize, kernel: &F) {
    EMULATED.with(|e| e.set(true));
    let (b, threads) = (launch.cfg.block, launch.threads);
    let thread =
        Dim3 { x: (linear as u32) % b.x, y: (linear as u32 / b.x) % b.y, z: linear as u32 / (b.x * b.y) };
    let g = launch.cfg.grid;
    for block_linear in 0..g.count() {
        let block = Dim3 {
            x: (block_linear % g.x as u64) as u32,
            y: ((block_linear / g.x as u64) % g.y as u64) as u32,
            z: (block_linear / (g.x as u64 * g.y as u64)) as u32,
        };
        let epoch = launch.barrier.generation();
        CTX.with(|c| {
            *c.borrow_mut() = Some(Ctx {
                launch: Arc::clone(&launch),
                thread,
                block,
                linear,
                epoch,
                wg_commits: 0,
                unfenced_smem_writes: false,
            });
        });
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(kernel));
        CTX.with(|c| *c.borrow_mut() = None);
        if let Err(payload) = result {
            if payload.downcast_ref::<Abandon>().is_none() {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".to_string());
                let mut failure = launch.failure.lock().unwrap_or_else(|e| e.into_inner());
                failure.get_or_insert(EmuError::Thread { block, thread, message });
            }
            launch.barrier.break_all();
            launch.named_cv.notify_all();
            launch.block_end.break_all();
            launch.warps.iter().for_each(Rendezvous::break_all);
            launch.warpgroups.iter().for_each(Rendezvous::break_all);
            return;
        }
        launch.barrier.leave();
        launch.warps[linear / 32].leave();
        launch.warpgroups[linear / 128].leave();
        // Every thread finished the block; thread 0 prepares the next one.
        if std::panic::catch_unwind(|| launch.block_end.wait()).is_err() {
            return;
        }
        if linear == 0 {
            let used = launch.smem_used.load(Relaxed) as usize;
            launch.smem[..used].iter().for_each(|w| w.store(POISON, Relaxed));
            launch.mbarriers.lock().unwrap_or_else(|e| e.into_inner()).clear();
            launch.named.lock().unwrap_or_else(|e| e.into_inner()).clear();
            launch.barrier.reset(threads);
            for (w, r) in launch.warps.iter().enumerate() {
                r.reset((threads - 32 * w).min(32));
            }
            for (w, r) in launch.warpgroups.iter().enumerate() {
                r.reset((threads - 128 * w).min(128));
            }
            for g in &launch.wg_groups {
                *g.lock().unwrap_or_else(|e| e.into_inner()) = WgGroups::default();
            }
        }
        if std::panic::catch_unwind(|| launch.block_end.wait()).is_err() {
            return;
        }
    }
}

/// `__syncthreads()` on the host.
pub(crate) fn sync_threads() {
    let launch = with(|c| Arc::clone(&c.launch));
    let epoch = launch.barrier.wait();
    with(|c| c.epoch = epoch);
}

/// A warp-wide rendezvous (for the emulation of warp-collective instructions).
fn sync_warp(launch: &Launch, linear: usize) {
    launch.warps[linear / 32].wait();
}

/// The launch's dynamic shared memory: its shared address (0) and its size in bytes.
pub(crate) fn dynamic_smem() -> (u32, u32) {
    (0, with(|c| c.launch.cfg.dynamic_smem_bytes))
}

/// `%globaltimer`: nanoseconds since the process's first read.
pub(crate) fn globaltimer() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
}

/// `%smid`: the emulator has one multiprocessor.
pub(crate) fn smid() -> u32 {
    0
}

/// CUDA's `threadIdx`.
pub(crate) fn thread_idx() -> Dim3 {
    with(|c| c.thread)
}

/// CUDA's `blockIdx`.
pub(crate) fn block_idx() -> Dim3 {
    with(|c| c.block)
}

/// CUDA's `blockDim`.
pub(crate) fn block_dim() -> Dim3 {
    with(|c| c.launch.cfg.block)
}

/// CUDA's `gridDim`.
pub(crate) fn grid_dim() -> Dim3 {
    with(|c| c.launch.cfg.grid)
}

/// The other thread a race tag names, if it was set in `epoch` by a thread other than `me`
/// (`MANY`: several threads).
fn other(tag: u64, epoch: u64, me: u64) -> Option<u64> {
    (tag != 0 && tag >> 32 == epoch && tag & MANY != me).then_some(tag & MANY)
}

/// A thread of a race tag, for a message.
fn who(tag: u64) -> String {
    if tag == MANY { "several threads".to_string() } else { std::format!("thread {}", tag - 1) }
}

/// Read shared word `word`, checking for a race with writes since the last barrier.
fn smem_read(word: usize) -> u32 {
    with(|c| {
        let me = c.linear as u64 + 1;
        let tags = &c.launch.tags;
        if let Some(writer) = other(tags.write[word].load(Relaxed), c.epoch, me) {
            panic!(
                "shared-memory race: thread {} reads word {word} (byte {}), which {} wrote since the last barrier",
                c.linear,
                4 * word,
                who(writer)
            );
        }
        let new = if other(tags.read[word].load(Relaxed), c.epoch, me).is_some() { MANY } else { me };
        tags.read[word].store(c.epoch << 32 | new, Relaxed);
        c.launch.smem[word].load(Relaxed)
    })
}

/// Write shared word `word`, checking for a race with reads and writes since the last barrier.
fn smem_write(word: usize, v: u32) {
    with(|c| {
        let me = c.linear as u64 + 1;
        let tags = &c.launch.tags;
        let (w, r) = (tags.write[word].load(Relaxed), tags.read[word].load(Relaxed));
        let race = match (other(w, c.epoch, me), other(r, c.epoch, me)) {
            (Some(writer), _) => Some((writer, "wrote")),
            (None, Some(reader)) => Some((reader, "read")),
            (None, None) => None,
        };
        if let Some((them, did)) = race {
            panic!(
                "shared-memory race: thread {} writes word {word} (byte {}), which {} {did} since the last barrier",
                c.linear,
                4 * word,
                who(them)
            );
        }
        tags.write[word].store(c.epoch << 32 | me, Relaxed);
        c.launch.smem[word].store(v, Relaxed);
        c.unfenced_smem_writes = true;
    })
}

/// The emulation of `ldmatrix.x4` (`trans`: each matrix transposed): every lane publishes its row
/// address, then reads the elements the PTX fragment layout gives it (lane `t` holds row `t / 4`,
/// columns `2 (t % 4)` and `2 (t % 4) + 1` of each matrix).
fn ldmatrix_x4(addr: u32, trans: bool, site: Site) -> [u32; 4] {
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    let warp = linear / 32 * 32;
    let lanes = (launch.threads - warp).min(32);
    if lanes != 32 {
        panic!("ldmatrix needs a full warp; warp {} has {lanes} threads", linear / 32);
    }
    launch.warp_slots[linear].store(addr, Relaxed);
    aligned_warp(&launch, linear, site, "ldmatrix");
    let lane = linear - warp;
    let half = |m: usize, row: usize, col: usize| -> u32 {
        let a = launch.warp_slots[warp + 8 * m + row].load(Relaxed) as usize + 2 * col;
        let word = smem_read(a / 4);
        if a.is_multiple_of(4) { word & 0xffff } else { word >> 16 }
    };
    let mut out = [0u32; 4];
    for (m, o) in out.iter_mut().enumerate() {
        let (r, c) = (lane / 4, 2 * (lane % 4));
        let (lo, hi) =
            if trans { (half(m, c, r), half(m, c + 1, r)) } else { (half(m, r, c), half(m, r, c + 1)) };
        *o = lo | hi << 16;
    }
    end_aligned(&launch, linear);
    out
}

/// Words of fragments a thread publishes for a warp-collective MMA (`A`'s 4 and `B`'s 2).
const FRAG_WORDS: usize = 6;

/// The emulation of `mma.sync.m16n8k16` with 32-bit accumulators: every lane publishes its `A`
/// and `B` fragments; each then assembles the 16x16 `A` and 8x16 `B` by the atom's layouts
/// (`const_layout::atom`, checked against the PTX ISA's figures) and computes its four values of
/// `D` in double precision, rounded once to `f32`.
fn mma_m16n8k16_f32(kind: HalfKind, a: [u32; 4], b: [u32; 2], c: [f32; 4], site: Site) -> [f32; 4] {
    use const_layout::algebra::computed::StaticLayout;
    use const_layout::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Atom};
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    let warp = linear / 32 * 32;
    let lanes = (launch.threads - warp).min(32);
    if lanes != 32 {
        panic!("mma.sync needs a full warp; warp {} has {lanes} threads", linear / 32);
    }
    for (k, w) in a.iter().chain(b.iter()).enumerate() {
        launch.warp_frags[FRAG_WORDS * linear + k].store(*w, Relaxed);
    }
    aligned_warp(&launch, linear, site, "mma.sync");
    let half = |lane: usize, word: usize, hi: bool| -> f64 {
        let w = launch.warp_frags[FRAG_WORDS * (warp + lane) + word].load(Relaxed);
        crate::half_to_f32(kind, if hi { (w >> 16) as u16 } else { w as u16 }) as f64
    };
    let (al, bl, cl) = (
        <Atom as MmaAtom>::ALayout::LAYOUT,
        <Atom as MmaAtom>::BLayout::LAYOUT,
        <Atom as MmaAtom>::CLayout::LAYOUT,
    );
    // A(m, k) at index m + 16 k, B(n, k) at n + 8 k.
    let mut am = [0f64; 256];
    let mut bm = [0f64; 128];
    for lane in 0..32 {
        for v in 0..8 {
            am[al.offset((lane + 32 * v) as isize) as usize] = half(lane, v / 2, v % 2 == 1);
        }
        for v in 0..4 {
            bm[bl.offset((lane + 32 * v) as isize) as usize] = half(lane, 4 + v / 2, v % 2 == 1);
        }
    }
    let lane = linear - warp;
    let mut d = [0f32; 4];
    for (v, out) in d.iter_mut().enumerate() {
        let idx = cl.offset((lane + 32 * v) as isize) as usize;
        let (m, n) = (idx % 16, idx / 16);
        let sum: f64 = (0..16).map(|k| am[m + 16 * k] * bm[n + 8 * k]).sum::<f64>() + c[v] as f64;
        *out = sum as f32;
    }
    end_aligned(&launch, linear);
    d
}

/// A half of shared memory at byte address `addr`.
fn smem_half(kind: HalfKind, addr: usize) -> f64 {
    let word = smem_read(addr / 4);
    crate::half_to_f32(kind, if addr.is_multiple_of(4) { word as u16 } else { (word >> 16) as u16 }) as f64
}

/// The byte address of element `(mn, k)` (`k` below 16) of a `wgmma` operand in shared memory,
/// decoded from its descriptor by the PTX ISA's canonical K-major layouts: 8-row core matrices,
/// rows `W` 16-byte units apart (`W` = 8, 4, 2 for 128-, 64-, 32-byte swizzles), groups of 8 rows
/// `SBO` apart, and the swizzle on the address's bits (16-byte chunk `c ^ (row % W)` within a
/// `W`-chunk row); without swizzle (interleaved) core matrices of 8 rows of 16 bytes, `LBO` apart
/// along `k` and `SBO` along the rows. Only K-major operands of 16-bit elements, as the device
/// layer issues them.
fn gmma_k_major_address(desc: u64, mn: usize, k: usize) -> usize {
    gmma_address(desc, false, mn, k)
}

/// The byte address of element `(mn, k)` (`k` below 16) of a `wgmma` operand of 16-bit elements
/// in shared memory, decoded from its descriptor by the PTX ISA's canonical layouts (CuTe's
/// `GmmaDescriptor` comment, in 16-byte units `T` = 8 elements). K-major ([`gmma_k_major_address`]);
/// MN-major (`mn_major`, `imm-trans` 1): swizzled, `((T,W,m),(8,k)):((1,T,LBO),(W T,SBO))` (rows of
/// `W` units along MN, 8 k rows `W` units apart, 64-element MN blocks `LBO` apart, groups of 8 k
/// rows `SBO` apart) under the swizzle; interleaved, `((T,1,m),(8,k)):((1,T,SBO),(T,LBO))`.
fn gmma_address(desc: u64, mn_major: bool, mn: usize, k: usize) -> usize {
    use const_layout::atom::gmma::{GmmaDescriptor, LayoutType};
    let d = GmmaDescriptor(desc);
    let start = 16 * d.start_address() as usize;
    let (lbo, sbo) = (16 * d.leading_byte_offset() as usize, 16 * d.stride_byte_offset() as usize);
    if d.base_offset() != 0 {
        panic!("emulated wgmma: descriptor base offset {} (only 0)", d.base_offset());
    }
    let ty = d.layout_type();
    let w = 1usize << ty.swizzle_bits(); // 16-byte units a row
    let linear = match (mn_major, ty) {
        (false, LayoutType::Interleave) => {
            let bytes = 2 * k;
            return start + (mn / 8) * sbo + (bytes / 16) * lbo + (mn % 8) * 16 + bytes % 16;
        }
        (false, _) => start + (mn / 8) * sbo + (mn % 8) * 16 * w + 2 * k,
        (true, LayoutType::Interleave) => {
            return start + (mn / 8) * sbo + (k / 8) * lbo + (k % 8) * 16 + 2 * (mn % 8);
        }
        (true, _) => start + (mn / (8 * w)) * lbo + (k / 8) * sbo + (k % 8) * 16 * w + 2 * (mn % (8 * w)),
    };
    // Swizzle<B,4,3> on the byte address: bits 4.. (B of them) ^= bits 7..
    let mask = (w - 1) << 4;
    linear ^ ((linear >> 3) & mask)
}

/// The emulation of `wgmma.mma_async.m64nNk16` with `A` and `B` K-major in shared memory (the
/// warpgroup's `D += A B^T`): each thread computes its `N / 2` values of `D`, which the `wgmma`
/// atom's `C` layout (`const_layout::atom::gmma::CLayout_64xN`) places, from the operands its
/// descriptors locate ([`gmma_k_major_address`]), in double precision; `acc(v, sum)` adds the sum
/// to value `v`. The warp must be whole and converged, as for `mma.sync`.
fn wgmma_k16<const N: usize>(kind: HalfKind, a: u64, b: u64, site: Site, mut acc: impl FnMut(usize, f64)) {
    use const_layout::algebra::computed::StaticLayout;
    use const_layout::atom::gmma::CLayout_64xN;
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    if (linear / 128 + 1) * 128 > launch.threads {
        panic!(
            "wgmma needs whole warpgroups of 128 threads; thread {linear}'s is cut by the block's {}",
            launch.threads
        );
    }
    aligned_warp(&launch, linear, site, "wgmma");
    let t = linear % 128;
    let cl = <CLayout_64xN<N> as StaticLayout>::LAYOUT;
    for v in 0..N / 2 {
        let idx = cl.offset((t + 128 * v) as isize) as usize;
        let (m, n) = (idx % 64, idx / 64);
        let sum: f64 = (0..16)
            .map(|k| {
                smem_half(kind, gmma_k_major_address(a, m, k))
                    * smem_half(kind, gmma_k_major_address(b, n, k))
            })
            .sum();
        acc(v, sum);
    }
    end_aligned(&launch, linear);
}

/// `wgmma.mma_async.m64nNk16` with `f32` accumulators ([`wgmma_k16`]), rounded once to `f32`.
fn wgmma_k16_f32<const N: usize>(kind: HalfKind, a: u64, b: u64, d: &mut [f32], site: Site) {
    assert_eq!(d.len(), N / 2, "wgmma m64n{N}: accumulators");
    wgmma_k16::<N>(kind, a, b, site, |v, sum| d[v] = (sum + d[v] as f64) as f32);
}

/// `wgmma.mma_async.m64nNk16` with `f16` accumulators, two to a register (values `2 i` and `2 i +
/// 1` in register `i`), each rounded to `f16` (through `f32`).
fn wgmma_k16_f16<const N: usize>(a: u64, b: u64, d: &mut [u32], site: Site) {
    use crate::{HalfKind, f32_to_half, half_to_f32};
    assert_eq!(d.len(), N / 4, "wgmma m64n{N}: accumulator registers");
    wgmma_k16::<N>(HalfKind::F16, a, b, site, |v, sum| {
        let shift = 16 * (v % 2);
        let old = half_to_f32(HalfKind::F16, (d[v / 2] >> shift) as u16) as f64;
        let new = f32_to_half(HalfKind::F16, (sum + old) as f32) as u32;
        d[v / 2] = d[v / 2] & !(0xffff << shift) | new << shift;
    });
}

/// A warpgroup's `wgmma` groups not yet retired: by group number (the threads' count of commits
/// before it), the shared words its instructions read and the values they read.
#[derive(Default)]
struct WgGroups {
    retired: u64,
    reads: std::collections::BTreeMap<u64, std::collections::BTreeMap<usize, u32>>,
}

/// The `A` operand of a batch's `wgmma`: a descriptor (K-major) or this thread's fragment.
#[derive(Clone, Copy)]
enum WgmmaA {
    Smem(u64),
    Regs([u32; 4]),
}

/// The warpgroup's rendezvous for a `.sync.aligned` warpgroup instruction: every warp whole and
/// converged, then all 128 threads at the same call site, else the launch fails naming them.
/// Does not order shared memory for the race check (it is not a barrier on the GPU).
fn aligned_warpgroup(launch: &Launch, linear: usize, site: Site, what: &str) {
    if (linear / 128 + 1) * 128 > launch.threads {
        panic!(
            "{what} needs whole warpgroups of 128 threads; thread {linear}'s is cut by the block's {}",
            launch.threads
        );
    }
    aligned_warp(launch, linear, site, what);
    *launch.wg_sites[linear].lock().unwrap_or_else(|e| e.into_inner()) = Some(site);
    let wg = linear / 128;
    launch.warpgroups[wg].wait_patiently(launch.patience, |arrived, live| {
        std::format!(
            "{what}: {arrived} of warpgroup {wg}'s {live} threads issued it and the rest never did (a warp of the warpgroup took another path between wgmma::begin and its commit)"
        )
    });
    let at = |l: &core::panic::Location<'_>| std::format!("{}:{}", l.file(), l.line());
    for t in 128 * wg..128 * wg + 128 {
        match *launch.wg_sites[t].lock().unwrap_or_else(|e| e.into_inner()) {
            Some(other) if other == site => {}
            other => panic!(
                "{what} in a diverged warpgroup: thread {linear} issues it at {}, thread {t} at {} (every warp of the warpgroup must make the same wgmma calls)",
                at(site),
                other.map_or("another place".to_string(), &at)
            ),
        }
    }
}

/// The end of a warpgroup instruction: the warpgroup waits for all (no thread's slots are
/// overwritten while another still reads them), then forgets where it was.
fn end_aligned_warpgroup(launch: &Launch, linear: usize, what: &str) {
    let wg = linear / 128;
    launch.warpgroups[wg].wait_patiently(launch.patience, |arrived, live| {
        std::format!("{what}: {arrived} of warpgroup {wg}'s {live} threads finished it (a deadlock)")
    });
    *launch.wg_sites[linear].lock().unwrap_or_else(|e| e.into_inner()) = None;
    end_aligned(launch, linear);
}

/// The emulation of one `wgmma.mma_async.m64nNk16` with `f32` accumulators, as a batch issues it:
/// a rendezvous of the warpgroup ([`aligned_warpgroup`]); `A` from its descriptor (K-major) or
/// from the warpgroup's registers by `GMMA::ALayout_64x16`, `B` from its descriptor (MN-major when
/// `trans_b`), both decoded by [`gmma_address`]; each thread computes its `N / 2` values of `D` by
/// `CLayout_64xN<N>` in double precision, rounded once (`scale_d` false: `d` overwritten). The
/// shared words read are recorded with the thread's current group, for the wait's check.
fn wgmma_batch_k16(
    kind: HalfKind,
    a: WgmmaA,
    b: u64,
    trans_b: bool,
    scale_d: bool,
    d: &mut [f32],
    site: Site,
) {
    use const_layout::algebra::computed::StaticLayout;
    use const_layout::atom::gmma::{ALayout_64x16, CLayout_64xN};
    let (launch, linear, group) = with(|c| (Arc::clone(&c.launch), c.linear, c.wg_commits));
    let n = 2 * d.len();
    if let WgmmaA::Regs(r) = a {
        for (j, w) in r.iter().enumerate() {
            launch.wg_frags[4 * linear + j].store(*w, Relaxed);
        }
    }
    aligned_warpgroup(&launch, linear, site, "wgmma");
    let wg = linear / 128;
    let mut reads = std::collections::BTreeMap::new();
    let mut half = |addr: usize| {
        let word = smem_read(addr / 4);
        reads.insert(addr / 4, word);
        crate::half_to_f32(kind, if addr.is_multiple_of(4) { word as u16 } else { (word >> 16) as u16 })
            as f64
    };
    // A(m, k) at m + 64 k.
    let mut am = [0f64; 64 * 16];
    match a {
        WgmmaA::Smem(desc) => {
            for (i, x) in am.iter_mut().enumerate() {
                *x = half(gmma_address(desc, false, i % 64, i / 64));
            }
        }
        WgmmaA::Regs(_) => {
            let al = <ALayout_64x16 as StaticLayout>::LAYOUT;
            for t in 0..128 {
                for v in 0..8 {
                    let w = launch.wg_frags[4 * (128 * wg + t) + v / 2].load(Relaxed);
                    let h = if v % 2 == 0 { w as u16 } else { (w >> 16) as u16 };
                    am[al.offset((t + 128 * v) as isize) as usize] = crate::half_to_f32(kind, h) as f64;
                }
            }
        }
    }
    let cl = match n {
        64 => <CLayout_64xN<64> as StaticLayout>::LAYOUT,
        128 => <CLayout_64xN<128> as StaticLayout>::LAYOUT,
        256 => <CLayout_64xN<256> as StaticLayout>::LAYOUT,
        _ => panic!("emulated wgmma: N = {n} (64, 128 or 256)"),
    };
    let t = linear % 128;
    for (v, out) in d.iter_mut().enumerate() {
        let idx = cl.offset((t + 128 * v) as isize) as usize;
        let (m, nn) = (idx % 64, idx / 64);
        let sum: f64 = (0..16).map(|k| am[m + 64 * k] * half(gmma_address(b, trans_b, nn, k))).sum();
        *out = if scale_d { (sum + *out as f64) as f32 } else { sum as f32 };
    }
    {
        let mut g = launch.wg_groups[wg].lock().unwrap_or_else(|e| e.into_inner());
        g.reads.entry(group).or_default().extend(reads);
    }
    end_aligned_warpgroup(&launch, linear, "wgmma");
}

/// `wgmma.wait_group P` for this thread: the warpgroup's groups older than its newest `P` retire,
/// each checked once: every shared word its instructions read must still hold what they read (a
/// stage written before the wait that retires its reads is a race with the tensor cores).
fn wgmma_retire(pending: u32, site: Site) {
    let (launch, linear, commits) = with(|c| (Arc::clone(&c.launch), c.linear, c.wg_commits));
    aligned_warp(&launch, linear, site, "wgmma.wait_group");
    let upto = commits.saturating_sub(pending as u64);
    {
        let mut g = launch.wg_groups[linear / 128].lock().unwrap_or_else(|e| e.into_inner());
        while g.retired < upto {
            let group = g.retired;
            if let Some(reads) = g.reads.remove(&group) {
                for (&word, &value) in &reads {
                    let now = launch.smem[word].load(Relaxed);
                    if now != value {
                        drop(g);
                        panic!(
                            "wgmma: shared word {word} (byte {}) that a wgmma of group {group} reads changed from {value:#x} to {now:#x} before wgmma.wait_group retired the group (an operand was overwritten while the tensor cores may still read it)",
                            4 * word
                        );
                    }
                }
            }
            g.retired += 1;
        }
    }
    end_aligned(&launch, linear);
}

/// `mbarrier.init`: the mbarrier at shared byte `addr` expects `count` arrivals a phase.
fn emu_mbarrier_init(addr: u32, count: u32) {
    let launch = with(|c| Arc::clone(&c.launch));
    if count == 0 {
        panic!("mbarrier at byte {addr}: an arrival count of 0");
    }
    let mut m = launch.mbarriers.lock().unwrap_or_else(|e| e.into_inner());
    m.insert(addr, Mbar { count, pending: count, tx: 0, phases: 0 });
}

/// The mbarrier at `addr`, updated by `f`; its phase completes when no arrival and no byte is
/// pending.
fn mbarrier_update(addr: u32, what: &str, f: impl FnOnce(&mut Mbar)) {
    let launch = with(|c| Arc::clone(&c.launch));
    let mut m = launch.mbarriers.lock().unwrap_or_else(|e| e.into_inner());
    let Some(b) = m.get_mut(&addr) else {
        panic!("{what} on byte {addr}, which holds no initialized mbarrier (init it, then a barrier)");
    };
    f(b);
    if b.pending == 0 && b.tx == 0 {
        b.phases += 1;
        b.pending = b.count;
    }
}

/// `mbarrier.arrive` (with `expect_tx` of `bytes`).
fn emu_mbarrier_arrive(addr: u32, bytes: u32) {
    // An arrival past the count is the next phase's, as on the GPU (the count is restored when a
    // phase completes).
    mbarrier_update(addr, "mbarrier.arrive", |b| {
        b.tx += bytes as i64;
        b.pending -= 1;
    });
}

/// An asynchronous copy's `complete_tx` of `bytes`.
fn mbarrier_complete_tx(addr: u32, bytes: u32) {
    mbarrier_update(addr, "a TMA copy's complete_tx", |b| b.tx -= bytes as i64);
}

/// `mbarrier.try_wait.parity`: whether the phase of parity `parity` completed (the current
/// phase's parity is the other one).
fn mbarrier_test_parity(addr: u32, parity: u32) -> bool {
    let launch = with(|c| Arc::clone(&c.launch));
    if launch.barrier.lock().broken {
        std::panic::panic_any(Abandon);
    }
    let m = launch.mbarriers.lock().unwrap_or_else(|e| e.into_inner());
    let Some(b) = m.get(&addr) else {
        panic!("mbarrier wait on byte {addr}, which holds no initialized mbarrier");
    };
    (b.phases & 1) as u32 != parity & 1
}

/// How long an emulated thread waits on an mbarrier or a named barrier before the launch fails as
/// deadlocked, unless [`with_deadlock_patience`] says otherwise.
const MBARRIER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

std::thread_local! {
    /// The patience of the launches this thread starts.
    static PATIENCE: core::cell::Cell<std::time::Duration> = const { core::cell::Cell::new(MBARRIER_PATIENCE) };
}

/// Run `f` with the launches it starts (on this thread) failing as deadlocked after `patience`
/// rather than 60 s: for tests of a deadlock's report.
#[doc(hidden)]
pub fn with_deadlock_patience<R>(patience: std::time::Duration, f: impl FnOnce() -> R) -> R {
    let old = PATIENCE.with(|p| p.replace(patience));
    let r = f();
    PATIENCE.with(|p| p.set(old));
    r
}

/// A wait on an mbarrier's phase, failing the launch if it never completes.
fn mbarrier_wait_parity(addr: u32, parity: u32) {
    let (start, patience) = (std::time::Instant::now(), with(|c| c.launch.patience));
    while !mbarrier_test_parity(addr, parity) {
        if start.elapsed() > patience {
            panic!(
                "mbarrier at byte {addr}: the phase of parity {parity} never completed (a deadlock: arrivals or bytes missing)"
            );
        }
        std::thread::yield_now();
    }
}

/// A TMA load of a 2-D box of 16-bit elements: element `(r, c)` of the box is element `(row0 +
/// r, col0 + c)` of the tensor (`get(row, col)`, `None` outside it: TMA's zero fill), written to
/// shared byte `dst + byte` with `byte` the box's row-major byte offset under TMA's swizzle
/// (`Swizzle<B,4,3>` on bytes), completing the box's bytes on the mbarrier at `mbar`. The writes
/// are the asynchronous proxy's: no thread's, so the race check leaves them to the mbarrier.
fn emu_tma_load_2d(
    dst: u32,
    inner: u32,
    outer: u32,
    swizzle_bits: u32,
    get: impl Fn(u32, u32) -> Option<u16>,
    mbar: u32,
) {
    let launch = with(|c| Arc::clone(&c.launch));
    let mask = ((1u32 << swizzle_bits) - 1) << 4;
    for r in 0..outer {
        for c in 0..inner {
            let linear = 2 * (r * inner + c);
            let byte = dst + (linear ^ ((linear >> 3) & mask));
            let word = (byte / 4) as usize;
            if word >= launch.smem.len() {
                panic!(
                    "TMA load: byte {byte} is past the block's {} bytes of shared memory",
                    4 * launch.smem.len()
                );
            }
            let h = get(r, c).unwrap_or(0) as u32;
            let old = launch.smem[word].load(Relaxed);
            let new = if byte.is_multiple_of(4) { old & 0xffff_0000 | h } else { old & 0xffff | h << 16 };
            launch.smem[word].store(new, Relaxed);
            launch.tags.write[word].store(0, Relaxed);
        }
    }
    mbarrier_complete_tx(mbar, 2 * inner * outer);
}

/// The warp's rendezvous for a `.sync.aligned` instruction: every lane must be there, called from
/// the same place (the emulator's counterpart of the GPU's converged-warp check, which traps),
/// else the launch fails naming the lane and what is wrong.
fn aligned_warp(launch: &Launch, linear: usize, site: Site, what: &str) {
    let slot = |l: usize| *launch.warp_sites[l].lock().unwrap_or_else(|e| e.into_inner());
    *launch.warp_sites[linear].lock().unwrap_or_else(|e| e.into_inner()) = Some(site);
    sync_warp(launch, linear);
    let warp = linear / 32 * 32;
    let at = |l: &core::panic::Location<'_>| std::format!("{}:{}", l.file(), l.line());
    for lane in 0..32 {
        match slot(warp + lane) {
            None => panic!(
                "{what} in a diverged warp: lane {lane} is not there (it exited or waits elsewhere; every lane must execute the same instruction)"
            ),
            Some(other) if other != site => panic!(
                "{what} in a diverged warp: lane {} calls it at {}, lane {lane} at {} (every lane must execute the same instruction)",
                linear - warp,
                at(site),
                at(other)
            ),
            Some(_) => {}
        }
    }
}

/// The end of a `.sync.aligned` instruction: the warp's lanes wait for each other (no lane's
/// slots are overwritten while another still reads them), then forget where they were.
fn end_aligned(launch: &Launch, linear: usize) {
    sync_warp(launch, linear);
    *launch.warp_sites[linear].lock().unwrap_or_else(|e| e.into_inner()) = None;
}

// ---------------------------------------------------------------------------------------------
// The backend contract: the functions and types the layer above calls, with the PTX backend's
// signatures (`backend/ptx/mod.rs`). Functions that take an address are `unsafe fn`s there; here
// they check what the PTX backend's contract assumes and fail the launch, naming it, when a proof
// of the layer above is broken.

/// Where a warp-collective instruction was called from: every lane must call it from the same
/// place (PTX's `.aligned`).
pub(crate) type Site = &'static core::panic::Location<'static>;

/// The caller's [`Site`].
#[track_caller]
#[inline(always)]
pub(crate) fn site() -> Site {
    core::panic::Location::caller()
}

/// Stop the kernel: a panic, which the launch returns as the thread's [`EmuError`].
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn fault(what: &'static str) -> ! {
    panic!("device fault: {what}")
}

/// `bar.sync id, threads`: wait until `threads` threads (whole warps) have arrived at barrier
/// `id` (1 to 15; 0 is [`sync_threads`]'s). Shared-memory accesses of the threads that meet are
/// ordered by it for the race check (a thread that did not take part keeps its view: the check
/// may miss a race through it, never report one that is not there).
pub(crate) fn named_barrier(id: u32, threads: u32) {
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    if id == 0 || id > 15 {
        panic!("named barrier {id}: ids are 1 to 15 (0 is sync_threads)");
    }
    if threads == 0 || !threads.is_multiple_of(32) || threads as usize > launch.threads {
        panic!(
            "named barrier {id}: {threads} threads is not a positive multiple of the warp size within the block's {}",
            launch.threads
        );
    }
    let mut named = launch.named.lock().unwrap_or_else(|e| e.into_inner());
    let b = named.entry(id).or_insert(Named { threads, arrived: 0, phases: 0 });
    if b.arrived > 0 && b.threads != threads {
        panic!(
            "named barrier {id}: thread {linear} arrives for {threads} threads while others wait for {}",
            b.threads
        );
    }
    b.threads = threads;
    b.arrived += 1;
    let phase = b.phases;
    if b.arrived == threads {
        b.arrived = 0;
        b.phases += 1;
        launch.named_cv.notify_all();
    } else {
        let start = std::time::Instant::now();
        while named.get(&id).is_some_and(|b| b.phases == phase) {
            if launch.barrier.lock().broken {
                drop(named);
                std::panic::panic_any(Abandon);
            }
            if start.elapsed() > launch.patience {
                let arrived = named.get(&id).map_or(0, |b| b.arrived);
                panic!(
                    "named barrier {id}: {arrived} of {threads} threads arrived and the rest never did (a deadlock)"
                );
            }
            named = launch
                .named_cv
                .wait_timeout(named, std::time::Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
    drop(named);
    // A fresh epoch for the threads that met: unique among the launch's (the top bit apart from
    // `sync_threads`'s generations), the same for all of them.
    with(|c| c.epoch = NAMED_EPOCH | (id as u64) << 24 | (phase & 0xff_ffff));
}

/// The epochs named barriers give (see [`named_barrier`]).
const NAMED_EPOCH: u64 = 1 << 31;

/// The shared word of byte address `addr`, for a `bytes`-byte access; fails the launch if it is
/// misaligned or past the block's shared memory.
fn smem_word(addr: u32, bytes: u32) -> usize {
    let words = with(|c| c.launch.smem_used.load(Relaxed)) as u64;
    if !addr.is_multiple_of(bytes) || addr as u64 + bytes as u64 > 4 * words {
        panic!(
            "shared-memory access of {bytes} bytes at byte {addr}: misaligned or past the block's {} bytes",
            4 * words
        );
    }
    (addr / 4) as usize
}

/// `ld.shared.b32`.
///
/// # Safety
/// None here: the access is checked (misaligned or outside the block's shared memory, it fails
/// the launch), as the PTX backend's contract requires it to be.
pub(crate) unsafe fn ld_shared(addr: u32) -> u32 {
    smem_read(smem_word(addr, 4))
}

/// `ld.shared.v2.b32`.
///
/// # Safety
/// None here (checked, as [`ld_shared`]).
pub(crate) unsafe fn ld_shared2(addr: u32) -> [u32; 2] {
    let w = smem_word(addr, 8);
    [smem_read(w), smem_read(w + 1)]
}

/// `ld.shared.v4.b32`.
///
/// # Safety
/// None here (checked, as [`ld_shared`]).
pub(crate) unsafe fn ld_shared4(addr: u32) -> [u32; 4] {
    let w = smem_word(addr, 16);
    core::array::from_fn(|k| smem_read(w + k))
}

/// `st.shared.b32`.
///
/// # Safety
/// None here (checked, as [`ld_shared`]).
pub(crate) unsafe fn st_shared(addr: u32, v: u32) {
    smem_write(smem_word(addr, 4), v)
}

/// `st.shared.v4.b32`.
///
/// # Safety
/// None here (checked, as [`ld_shared`]).
pub(crate) unsafe fn st_shared4(addr: u32, v: [u32; 4]) {
    let w = smem_word(addr, 16);
    for (k, x) in v.into_iter().enumerate() {
        smem_write(w + k, x);
    }
}

/// The launch's static shared array `name` of `bytes` bytes (`static_shared!`): the same byte
/// address in every block, after the dynamic shared memory, 16-byte aligned.
#[doc(hidden)]
pub fn static_shared(name: &'static str, bytes: u32) -> crate::SmemRegion {
    let launch = with(|c| Arc::clone(&c.launch));
    let mut statics = launch.statics.lock().unwrap_or_else(|e| e.into_inner());
    let base = 1024 * launch.cfg.dynamic_smem_bytes.div_ceil(1024);
    let addr = match statics.iter().find(|(n, _, _)| *n == name) {
        Some(&(_, addr, size)) if size == bytes => addr,
        Some(&(_, _, size)) => {
            panic!("static_shared!({name}) is {bytes} bytes here and {size} bytes elsewhere")
        }
        None => {
            let end = statics.last().map_or(base, |&(_, a, b)| 1024 * (a + b).div_ceil(1024));
            if (end - base) as u64 + bytes as u64 > STATIC_SHARED_BYTES as u64 {
                panic!(
                    "static_shared!({name}): {bytes} bytes past the {STATIC_SHARED_BYTES} bytes of static shared memory"
                );
            }
            statics.push((name, end, bytes));
            launch.smem_used.fetch_max((end + bytes).div_ceil(4), Relaxed);
            end
        }
    };
    crate::SmemRegion::from_static_parts(addr, bytes)
}

/// The words of one emulated device allocation (they live until the program ends: a view that
/// outlives its buffer reads stale words, never freed memory).
type Cells = &'static [AtomicU32];

/// The emulator's device memory: allocations by base address, and freed ones by length for reuse.
struct DeviceMemory {
    live: std::collections::BTreeMap<u64, Cells>,
    free: std::collections::BTreeMap<usize, Vec<Cells>>,
    next: u64,
}

static DEVICE_MEMORY: Mutex<DeviceMemory> = Mutex::new(DeviceMemory {
    live: std::collections::BTreeMap::new(),
    free: std::collections::BTreeMap::new(),
    next: 0x7f00_0000_0000,
});

fn device_memory() -> std::sync::MutexGuard<'static, DeviceMemory> {
    DEVICE_MEMORY.lock().unwrap_or_else(|e| e.into_inner())
}

/// An allocation of the emulator's device memory, of `len` elements of `T`, zeroed: what a host
/// program's `cudaMalloc` is on the GPU. It has a device address ([`DeviceBuffer::address`]), so
/// kernel parameters built from it ([`TensorParam::new`](crate::TensorParam::new), or
/// [`input`](DeviceBuffer::input) and [`output`](DeviceBuffer::output)) reach it through
/// [`Gmem::from_raw`](crate::Gmem::from_raw) exactly as on the GPU: entry points run on the
/// emulator unchanged.
///
/// ```
/// use const_layout::{make_layout, C};
/// use const_layout_device::emu::DeviceBuffer;
/// let x = DeviceBuffer::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// assert_eq!(x.len(), 6);
/// assert_eq!(x.address() % 256, 0);
/// let p = x.input(&make_layout((2u32, 3u32), (3u32, C::<1>)).unwrap()).unwrap();
/// assert_eq!(p.param().len(), 6);
/// assert!(x.input(&make_layout((2u32, 4u32), (4u32, C::<1>)).unwrap()).is_err()); // 8 > 6 elements
/// assert_eq!(x.to_vec(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// ```
pub struct DeviceBuffer<T> {
    cells: Cells,
    addr: u64,
    elem: core::marker::PhantomData<T>,
}

impl<T> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer({:#x}, {} elements)", self.addr, self.cells.len())
    }
}

impl<T: crate::Word> DeviceBuffer<T> {
    /// `len` zeros.
    pub fn zeros(len: usize) -> Self {
        let mut mem = device_memory();
        let cells = match mem.free.get_mut(&len).and_then(Vec::pop) {
            Some(cells) => {
                cells.iter().for_each(|c| c.store(0, Relaxed));
                cells
            }
            None => Box::leak((0..len).map(|_| AtomicU32::new(0)).collect::<Vec<_>>().into_boxed_slice()),
        };
        let addr = mem.next;
        // 256-byte aligned, as cudaMalloc's, with a gap between allocations.
        mem.next += (4 * len as u64).div_ceil(256) * 256 + 256;
        mem.live.insert(addr, cells);
        DeviceBuffer { cells, addr, elem: core::marker::PhantomData }
    }

    /// A copy of `values`.
    pub fn from_slice(values: &[T]) -> Self {
        let b = Self::zeros(values.len());
        for (c, v) in b.cells.iter().zip(values) {
            c.store(v.to_bits(), Relaxed);
        }
        b
    }

    /// The elements (`cudaMemcpy` back to the host).
    pub fn to_vec(&self) -> Vec<T> {
        self.cells.iter().map(|c| T::from_bits(c.load(Relaxed))).collect()
    }

    /// Fill every element with `v`.
    pub fn fill(&self, v: T) {
        self.cells.iter().for_each(|c| c.store(v.to_bits(), Relaxed));
    }

    /// The device address.
    pub fn address(&self) -> u64 {
        self.addr
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// A read-only view (for a kernel body called directly).
    pub fn gmem(&self) -> crate::Gmem<'_, T> {
        crate::Gmem::from_cells(self.cells)
    }

    /// A writable view.
    pub fn gmem_mut(&mut self) -> crate::GmemMut<'_, T> {
        crate::GmemMut::from_cells(self.cells)
    }

    /// The tensor parameter of this buffer laid out as `layout`, to be read by a kernel
    /// ([`TensorParam::new`](crate::TensorParam::new)'s checks).
    pub fn input<S, D>(
        &self,
        layout: &const_layout::Layout<S, D>,
    ) -> Result<crate::abi::In<crate::TensorParam<T, S, D>>, crate::ParamError>
    where
        S: const_layout::int_tuple::IntTuple + const_layout::layout::LayoutShape<D>,
        D: const_layout::int_tuple::IntTuple,
    {
        crate::TensorParam::new(self.addr, self.len(), layout).map(crate::abi::In::new)
    }

    /// The tensor parameter of this buffer laid out as `layout`, to be written by a kernel: the
    /// exclusive borrow keeps it from being any other parameter of the launch.
    pub fn output<S, D>(
        &mut self,
        layout: &const_layout::Layout<S, D>,
    ) -> Result<crate::abi::Out<crate::TensorParam<T, S, D>>, crate::ParamError>
    where
        S: const_layout::int_tuple::IntTuple + const_layout::layout::LayoutShape<D>,
        D: const_layout::int_tuple::IntTuple,
    {
        crate::TensorParam::new(self.addr, self.len(), layout).map(crate::abi::Out::new)
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let mut mem = device_memory();
        mem.live.remove(&self.addr);
        mem.free.entry(self.cells.len()).or_default().push(self.cells);
    }
}

/// An element pointer into the emulator's global memory: the words of a view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GlobalPtr<'a> {
    cells: &'a [AtomicU32],
    /// The first element's place in its allocation, modulo 4 (allocations are 16-byte aligned).
    phase: usize,
}

impl<'a> GlobalPtr<'a> {
    /// The words of a host slice (a view made by `Gmem::from_cells`).
    pub(crate) fn from_cells(cells: &'a [AtomicU32]) -> Self {
        GlobalPtr { cells, phase: 0 }
    }

    /// Whether the first element is 16-byte aligned.
    pub(crate) fn is_aligned16(self) -> bool {
        self.phase == 0
    }

    /// The pointer for a device address: the words of the live [`DeviceBuffer`] holding `len`
    /// elements from `addr`; fails the launch (a broken host promise) otherwise.
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn from_address(addr: u64, len: usize) -> Self {
        let mem = device_memory();
        let found = mem.live.range(..=addr).next_back().and_then(|(&base, &cells)| {
            let at = addr - base;
            let end = at.checked_add(4 * len as u64)?;
            (at.is_multiple_of(4) && end <= 4 * cells.len() as u64)
                .then(|| (&cells[(at / 4) as usize..], (at / 4) as usize % 4))
        });
        match found {
            Some((cells, phase)) => GlobalPtr { cells, phase },
            None => panic!(
                "device address {addr:#x} with {len} elements is not inside a live allocation of the emulator (DeviceBuffer)"
            ),
        }
    }

    fn cell(self, i: usize) -> &'a AtomicU32 {
        match self.cells.get(i) {
            Some(c) => c,
            None => panic!(
                "global-memory access at element {i} past the {} of its allocation (a bound the device layer proved is broken)",
                self.cells.len()
            ),
        }
    }

    /// Element `i` (checked).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn load(self, i: usize) -> u32 {
        self.cell(i).load(Relaxed)
    }

    /// Element `i` (checked).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn load_nc(self, i: usize) -> u32 {
        self.cell(i).load(Relaxed)
    }

    /// Elements `i..i + 4` (checked, and `i % 4 == 0`).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn load4(self, i: usize) -> [u32; 4] {
        if !i.is_multiple_of(4) {
            panic!("a 128-bit global access at element {i}, not a multiple of 4");
        }
        core::array::from_fn(|k| self.cell(i + k).load(Relaxed))
    }

    /// As [`GlobalPtr::load4`].
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn load4_nc(self, i: usize) -> [u32; 4] {
        // SAFETY: checked (no precondition here).
        unsafe { self.load4(i) }
    }

    /// Store at element `i` (checked).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn store(self, i: usize, v: u32) {
        self.cell(i).store(v, Relaxed)
    }

    /// Store elements `i..i + 4` (checked, and `i % 4 == 0`).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn store4(self, i: usize, v: [u32; 4]) {
        if !i.is_multiple_of(4) {
            panic!("a 128-bit global access at element {i}, not a multiple of 4");
        }
        for (k, x) in v.into_iter().enumerate() {
            self.cell(i + k).store(x, Relaxed);
        }
    }

    /// The pointer `n` elements on (checked: at most the end).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn advance(self, n: usize) -> Self {
        match self.cells.get(n..) {
            Some(cells) => GlobalPtr { cells, phase: (self.phase + n) % 4 },
            None => panic!("a view advanced by {n} elements past the {} of its allocation", self.cells.len()),
        }
    }

    /// The pointer `n * m` elements on (checked: at most the end; `m < 2^30`).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn advance_mul(self, n: u32, m: u32) -> Self {
        if m >= 1 << 30 {
            panic!("a view advanced by {n} x {m} elements: the second factor is not below 2^30");
        }
        // SAFETY: checked (no precondition here).
        unsafe { self.advance((n as u64 * m as u64) as usize) }
    }

    /// Whether two pointers are the same element of the same words.
    pub(crate) fn same(self, other: Self) -> bool {
        core::ptr::eq(self.cells, other.cells) && self.phase == other.phase
    }

    /// `cp.async` of 4 bytes: completes at once (zero when `src_bytes` is 0).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn copy_async4(self, i: usize, dst: u32, src_bytes: u32) {
        let v = if src_bytes == 4 { self.cell(i).load(Relaxed) } else { 0 };
        // SAFETY: checked (no precondition here).
        unsafe { st_shared(dst, v) }
    }

    /// `cp.async` of 16 bytes: completes at once (zeros when `src_bytes` is 0).
    ///
    /// # Safety
    /// None here: checked.
    pub(crate) unsafe fn copy_async16(self, i: usize, dst: u32, src_bytes: u32, cache_always: bool) {
        let _ = cache_always;
        // SAFETY: checked (no precondition here).
        let v = if src_bytes == 16 { unsafe { self.load4(i) } } else { [0; 4] };
        // SAFETY: checked (no precondition here).
        unsafe { st_shared4(dst, v) }
    }
}

/// `cp.async.commit_group`: the emulator's copies complete at once.
pub(crate) fn cp_async_commit() {}

/// `cp.async.wait_group N`: the emulator's copies complete at once.
pub(crate) fn cp_async_wait<const N: u32>() {}

/// `M` `ldmatrix.x4`, each a warp rendezvous from the caller's place.
///
/// # Safety
/// None here: checked (addresses, alignment, the whole warp at one place).
pub(crate) unsafe fn ldmatrix_x4_batch<const M: usize>(
    addr: [u32; M],
    trans: bool,
    site: Site,
) -> [[u32; 4]; M] {
    addr.map(|a| {
        smem_word(a, 16);
        ldmatrix_x4(a, trans, site)
    })
}

/// `MI x NI` `mma.sync.m16n8k16` with `f32` accumulators, one warp rendezvous a product, all from
/// the caller's place: lanes that diverge between the products fail as they would on the GPU.
pub(crate) fn mma_m16n8k16_f32_grid<const MI: usize, const NI: usize>(
    kind: HalfKind,
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[f32; 4]; NI]; MI],
    site: Site,
) {
    for i in 0..MI {
        for j in 0..NI {
            c[i][j] = mma_m16n8k16_f32(kind, a[i], b[j], c[i][j], site);
        }
    }
}

/// `MI x NI` `mma.sync.m16n8k16` with `f16` accumulators: the `f32` one on the unpacked
/// accumulators (the two atoms share their `A`, `B` and `C` layouts), rounded back to `f16`.
pub(crate) fn mma_m16n8k16_f16_grid<const MI: usize, const NI: usize>(
    a: &[[u32; 4]; MI],
    b: &[[u32; 2]; NI],
    c: &mut [[[u32; 2]; NI]; MI],
    site: Site,
) {
    for i in 0..MI {
        for j in 0..NI {
            let [c0, c1] = unpack_half2(HalfKind::F16, c[i][j][0]);
            let [c2, c3] = unpack_half2(HalfKind::F16, c[i][j][1]);
            let d = mma_m16n8k16_f32(HalfKind::F16, a[i], b[j], [c0, c1, c2, c3], site);
            c[i][j] = [pack_half2(HalfKind::F16, d[0], d[1]), pack_half2(HalfKind::F16, d[2], d[3])];
        }
    }
}

/// Two `f32` rounded to nearest even into a word of two halves of `kind`, `lo` in the low half.
pub(crate) fn pack_half2(kind: HalfKind, lo: f32, hi: f32) -> u32 {
    crate::f32_to_half(kind, lo) as u32 | (crate::f32_to_half(kind, hi) as u32) << 16
}

/// The two halves of `kind` in a word as `f32` (exact), low half first.
pub(crate) fn unpack_half2(kind: HalfKind, w: u32) -> [f32; 2] {
    [crate::half_to_f32(kind, w as u16), crate::half_to_f32(kind, (w >> 16) as u16)]
}

/// `fma.rn.f32`: one rounding, as `f32::mul_add`.
pub(crate) fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `fence.proxy.async.shared::cta`: the emulator has one proxy; it only notes that this thread's
/// shared-memory writes so far are fenced (for [`wgmma_begin_tma`]'s check).
pub(crate) fn fence_proxy_async_shared() {
    with(|c| c.unfenced_smem_writes = false);
}

/// Four `wgmma.m64n64k16` with `f32` accumulators (the wgmma probe), each a warp rendezvous.
///
/// # Safety
/// None here: checked (the warpgroup whole, the warp at one place, the operands inside shared
/// memory).
pub(crate) unsafe fn wgmma_64x64x64_f32(
    kind: HalfKind,
    a: [u64; 4],
    b: [u64; 4],
    d: &mut [f32; 32],
    site: Site,
) {
    for (x, y) in a.into_iter().zip(b) {
        wgmma_k16_f32::<64>(kind, x, y, d, site);
    }
}

/// Four `wgmma.m64n256k16` with `f32` accumulators: done on return.
///
/// # Safety
/// None here: checked, as [`wgmma_64x64x64_f32`].
pub(crate) unsafe fn wgmma_64x256x64_f32_pipelined(
    kind: HalfKind,
    a: [u64; 4],
    b: [u64; 4],
    d: &mut [[f32; 128]; 1],
    site: Site,
) {
    for (x, y) in a.into_iter().zip(b) {
        wgmma_k16_f32::<256>(kind, x, y, &mut d[0], site);
    }
}

/// Four `wgmma.m64n256k16` with `f16` accumulators: done on return.
///
/// # Safety
/// None here: checked, as [`wgmma_64x64x64_f32`].
pub(crate) unsafe fn wgmma_64x256x64_f16_pipelined(
    a: [u64; 4],
    b: [u64; 4],
    d: &mut [[u32; 64]; 1],
    site: Site,
) {
    for (x, y) in a.into_iter().zip(b) {
        wgmma_k16_f16::<256>(x, y, &mut d[0], site);
    }
}

/// `wgmma.wait_group 0`: the emulator's batches are done on return.
pub(crate) fn wgmma_wait_all_f32(d: &mut [[f32; 128]; 1]) {
    let _ = d;
}

/// `wgmma.wait_group 0` for `f16` accumulators.
pub(crate) fn wgmma_wait_all_f16(d: &mut [[u32; 64]; 1]) {
    let _ = d;
}

/// `wgmma.fence`: a rendezvous of the warp (converged, one call site).
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn wgmma_fence(site: Site) {
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    aligned_warp(&launch, linear, site, "wgmma.fence");
    end_aligned(&launch, linear);
}

/// The start of a batch: the warpgroup's rendezvous at barrier `id`, the proxy fence, `wgmma.fence`.
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn wgmma_begin(id: u32, site: Site) {
    named_barrier(id, 128);
    fence_proxy_async_shared();
    // SAFETY: none needed (checked).
    unsafe { wgmma_fence(site) }
}

/// The start of a batch on operands TMA wrote: `wgmma.fence` alone, after checking that this
/// thread has no shared-memory writes its proxy fence has not covered (the one misuse the
/// emulator can see: on the GPU the tensor cores might read the words before those writes).
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn wgmma_begin_tma(site: Site) {
    if with(|c| c.unfenced_smem_writes) {
        panic!(
            "wgmma::begin_tma at {}:{}: this thread wrote shared memory since its last proxy fence; start the batch with wgmma::begin, which fences",
            site.file(),
            site.line()
        );
    }
    // SAFETY: none needed (checked).
    unsafe { wgmma_fence(site) }
}

/// The GPU's place for a [`wgmma_begin_tma`] batch's fence (its first chain): nothing here, where
/// [`wgmma_begin_tma`] met the warp already.
///
/// # Safety
/// None here.
pub(crate) unsafe fn wgmma_fence_pending(_: Site) {}

/// `wgmma.commit_group`: the thread's instructions since the last commit become its next group.
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn wgmma_commit(site: Site) {
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    aligned_warp(&launch, linear, site, "wgmma.commit_group");
    with(|c| c.wg_commits += 1);
    end_aligned(&launch, linear);
}

/// A chain of batch `wgmma`s with `A` and `B` in shared memory ([`wgmma_batch_k16`], the first
/// with `scale_d`, the others accumulating), done on return; a fault with `why` unless `ok`.
///
/// # Safety
/// None here: checked (the warpgroup whole and at one place, the operands inside shared memory).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn wgmma_ss_f32<const K: usize, const R: usize>(
    kind: HalfKind,
    a: &[u64; K],
    b: &[u64; K],
    ok: bool,
    why: &'static str,
    trans_b: bool,
    scale_d: bool,
    d: &mut [f32; R],
    site: Site,
) {
    if !ok {
        fault(why);
    }
    for i in 0..K {
        wgmma_batch_k16(kind, WgmmaA::Smem(a[i]), b[i], trans_b, scale_d || i > 0, d, site);
    }
}

/// [`wgmma_ss_f32`] with `A` in registers.
///
/// # Safety
/// None here: checked.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn wgmma_rs_f32<const K: usize, const R: usize>(
    kind: HalfKind,
    a: &[[u32; 4]; K],
    b: &[u64; K],
    ok: bool,
    why: &'static str,
    trans_b: bool,
    scale_d: bool,
    d: &mut [f32; R],
    site: Site,
) {
    if !ok {
        fault(why);
    }
    for i in 0..K {
        wgmma_batch_k16(kind, WgmmaA::Regs(a[i]), b[i], trans_b, scale_d || i > 0, d, site);
    }
}

/// [`wgmma_ss_f32`] committed, then [`wgmma_rs_f32`] committed: two groups (the instructions
/// checked at one call site each, as the device's one block is).
///
/// # Safety
/// None here: checked.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn wgmma_ss_rs_f32<const K1: usize, const R1: usize, const K2: usize, const R2: usize>(
    kind: HalfKind,
    first: (&[u64; K1], &[u64; K1], bool, bool),
    d1: &mut [f32; R1],
    second: (&[[u32; 4]; K2], &[u64; K2], bool, bool),
    d2: &mut [f32; R2],
    ok: bool,
    why: &'static str,
    site: Site,
) {
    let ((a1, b1, tb1, s1), (a2, b2, tb2, s2)) = (first, second);
    // SAFETY: none needed (checked), as for each part alone.
    unsafe {
        wgmma_ss_f32(kind, a1, b1, ok, why, tb1, s1, d1, site);
        wgmma_commit(site);
        wgmma_rs_f32(kind, a2, b2, ok, why, tb2, s2, d2, site);
        wgmma_commit(site);
    }
}

/// `wgmma.wait_group P` ([`wgmma_retire`]): the accumulators were written at issue.
pub(crate) fn wgmma_wait_f32<const P: u32, const R: usize>(d: &mut [f32; R], site: Site) {
    let _ = d;
    wgmma_retire(P, site)
}

/// [`wgmma_wait_f32`] with two accumulator arrays.
pub(crate) fn wgmma_wait2_f32<const P: u32, const R1: usize, const R2: usize>(
    d1: &mut [f32; R1],
    d2: &mut [f32; R2],
    site: Site,
) {
    let _ = (d1, d2);
    wgmma_retire(P, site)
}

/// `setmaxnreg`: the emulator has no register file.
///
/// # Safety
/// None here.
pub(crate) unsafe fn setmaxnreg<const N: u32, const INC: bool>() {}

/// `mbarrier.init` (checked: 8-byte aligned, inside shared memory).
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn mbarrier_init(addr: u32, count: u32) {
    smem_word(addr, 8);
    emu_mbarrier_init(addr, count)
}

/// `mbarrier.arrive`.
///
/// # Safety
/// None here: an uninitialized mbarrier fails the launch.
pub(crate) unsafe fn mbarrier_arrive(addr: u32) {
    emu_mbarrier_arrive(addr, 0)
}

/// `mbarrier.arrive.expect_tx`.
///
/// # Safety
/// None here: an uninitialized mbarrier fails the launch.
pub(crate) unsafe fn mbarrier_arrive_expect_tx(addr: u32, bytes: u32) {
    emu_mbarrier_arrive(addr, bytes)
}

/// A wait for a phase, failing the launch as a deadlock if it never completes.
///
/// # Safety
/// None here: an uninitialized mbarrier fails the launch.
pub(crate) unsafe fn mbarrier_wait(addr: u32, parity: u32) {
    mbarrier_wait_parity(addr, parity)
}

/// A TMA load of `t`'s box at `(row0, col0)`: copied at once from `t`'s view (zeros outside the
/// tensor), under TMA's swizzle, its bytes completed on the mbarrier at `mbar`.
///
/// # Safety
/// None here: checked (the destination inside shared memory, the mbarrier initialized).
pub(crate) unsafe fn tma_load_2d(t: &crate::tma::TmaTensor2d<'_>, dst: u32, row0: u32, col0: u32, mbar: u32) {
    let b = t.boxd;
    let get = |r: u32, c: u32| {
        let (row, col) = (row0 as u64 + r as u64, col0 as u64 + c as u64);
        (row < t.rows as u64 && col < t.cols as u64).then(|| {
            let e = row * t.pitch as u64 + col;
            let w = t.src.load((e / 2) as usize);
            if e.is_multiple_of(2) { w as u16 } else { (w >> 16) as u16 }
        })
    };
    emu_tma_load_2d(dst, b.inner, b.outer, b.swizzle as u32, get, mbar)
}

/// A TMA load of `t`'s box at `coords`: copied at once from `t`'s view (zeros outside the
/// tensor), under TMA's swizzle, its bytes completed on the mbarrier at `mbar`.
///
/// # Safety
/// None here: checked (the destination inside shared memory, the mbarrier initialized).
pub(crate) unsafe fn tma_load_nd<const RANK: usize>(
    t: &crate::tma::TmaTensor<'_, RANK>,
    dst: u32,
    coords: [u32; RANK],
    mbar: u32,
) {
    let b = t.boxd;
    let get = |r: u32, c: u32| {
        let mut e = 0u64;
        for (i, (&at, (&dim, &stride))) in coords.iter().zip(t.dims.iter().zip(&t.strides)).enumerate() {
            let x = at as u64 + [c as u64, r as u64].get(i).copied().unwrap_or(0);
            if x >= dim as u64 {
                return None;
            }
            e += x * stride;
        }
        let w = t.src.load((e / 2) as usize);
        Some(if e.is_multiple_of(2) { w as u16 } else { (w >> 16) as u16 })
    };
    emu_tma_load_2d(dst, b.inner, b.outer, b.swizzle as u32, get, mbar)
}

/// [`static_shared!`](crate::static_shared) on the emulator: the launch's array of that name.
#[doc(hidden)]
#[macro_export]
macro_rules! __backend_static_shared {
    ($name:ident, $bytes:expr) => {
        $crate::emu::static_shared(::core::stringify!($name), ($bytes) as u32)
    };
}

macro_rules! from_cells {
    ($($name:ident),*) => {$(
        impl<'a, T: crate::Word> crate::$name<'a, T> {
            /// A view of host words (the emulator's global memory, outside a
            /// [`DeviceBuffer`]). Host builds only.
            pub fn from_cells(cells: &'a [AtomicU32]) -> Self {
                Self::from_ptr(GlobalPtr::from_cells(cells), cells.len())
            }
        }
    )*};
}
from_cells!(Gmem, GmemMut);

impl<'a> crate::tma::TmaTensor2d<'a> {
    /// The tensor for the emulator, which reads `src` itself (no tensor map): as [`Self::new`]
    /// without the map. Host builds only.
    ///
    /// ```
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// # use const_layout_device::{tma::TmaTensor2d, Gmem};
    /// # let w: Vec<std::sync::atomic::AtomicU32> = (0..64).map(|_| 0.into()).collect();
    /// let b = TmaBox { inner: 8, outer: 8, element_bits: 16, swizzle: TmaSwizzle::None };
    /// assert!(TmaTensor2d::emulated(Gmem::<u32>::from_cells(&w), 8, 16, 16, b).is_some());
    /// assert!(TmaTensor2d::emulated(Gmem::<u32>::from_cells(&w), 9, 16, 16, b).is_none()); // too long
    /// ```
    pub fn emulated(
        src: crate::Gmem<'a, u32>,
        rows: u32,
        cols: u32,
        pitch: u32,
        boxd: const_layout::atom::tma::TmaBox,
    ) -> Option<Self> {
        // SAFETY: off the GPU no tensor map is read.
        unsafe { Self::new(0, src, rows, cols, pitch, boxd) }
    }
}

impl<'a, const RANK: usize> crate::tma::TmaTensor<'a, RANK>
where
    (): crate::tma::TmaRank<RANK>,
{
    /// The tensor for the emulator, which reads `src` itself (no tensor map): as [`Self::new`]
    /// without the map. Host builds only. (Example: [`crate::tma::TmaTensor`].)
    pub fn emulated(
        src: crate::Gmem<'a, u32>,
        dims: [u32; RANK],
        strides: [u64; RANK],
        boxd: const_layout::atom::tma::TmaBox,
    ) -> Option<Self> {
        // SAFETY: off the GPU no tensor map is read.
        unsafe { Self::new(0, src, dims, strides, boxd) }
    }
}

// ---------------------------------------------------------------------------------------------
// Warp-level communication, fast math and atomics (the PTX backend's names and signatures).

/// Every lane publishes `v`; each reads what lane `src(lane)` published: one warp rendezvous from
/// one place, the whole warp present (as the PTX backend's converged-warp check requires).
fn warp_exchange(v: u32, what: &str, site: Site, src: impl Fn(usize) -> usize) -> u32 {
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    let warp = linear / 32 * 32;
    let lanes = (launch.threads - warp).min(32);
    if lanes != 32 {
        panic!("{what} needs a full warp; warp {} has {lanes} threads", linear / 32);
    }
    launch.warp_slots[linear].store(v, Relaxed);
    aligned_warp(&launch, linear, site, what);
    let got = launch.warp_slots[warp + src(linear - warp) % 32].load(Relaxed);
    end_aligned(&launch, linear);
    got
}

/// `shfl.sync.bfly`: the value of lane `lane ^ b`.
pub(crate) fn shfl_bfly(v: u32, b: u32, site: Site) -> u32 {
    warp_exchange(v, "shfl.sync", site, |l| l ^ (b as usize & 31))
}

/// `shfl.sync.down`: the value of lane `lane + b % 32` (this lane's own past 31).
pub(crate) fn shfl_down(v: u32, b: u32, site: Site) -> u32 {
    // PTX reads the offset's low 5 bits (`bval[4:0] = b[4:0]`).
    let b = (b & 31) as usize;
    warp_exchange(v, "shfl.sync", site, |l| if l + b > 31 { l } else { l + b })
}

/// `shfl.sync.up`: the value of lane `lane - b % 32` (this lane's own below 0).
pub(crate) fn shfl_up(v: u32, b: u32, site: Site) -> u32 {
    // PTX reads the offset's low 5 bits, as for `down`.
    warp_exchange(v, "shfl.sync", site, |l| l.checked_sub((b & 31) as usize).unwrap_or(l))
}

/// `shfl.sync.idx`: the value of lane `b % 32`.
pub(crate) fn shfl_idx(v: u32, b: u32, site: Site) -> u32 {
    warp_exchange(v, "shfl.sync", site, |_| b as usize % 32)
}

/// `vote.sync.ballot`: bit `l` set when lane `l`'s `p` is true (32 rendezvous-free reads of the
/// published predicates).
pub(crate) fn vote_ballot(p: bool, site: Site) -> u32 {
    let (launch, linear) = with(|c| (Arc::clone(&c.launch), c.linear));
    let warp = linear / 32 * 32;
    let lanes = (launch.threads - warp).min(32);
    if lanes != 32 {
        panic!("vote.sync needs a full warp; warp {} has {lanes} threads", linear / 32);
    }
    launch.warp_slots[linear].store(p as u32, Relaxed);
    aligned_warp(&launch, linear, site, "vote.sync");
    let bits = (0..32).fold(0u32, |b, l| b | (launch.warp_slots[warp + l].load(Relaxed) & 1) << l);
    end_aligned(&launch, linear);
    bits
}

/// `activemask`: the emulator's warps are converged wherever they meet, so the warp's lanes.
pub(crate) fn active_mask() -> u32 {
    let (threads, linear) = with(|c| (c.launch.threads, c.linear));
    let lanes = (threads - linear / 32 * 32).min(32);
    if lanes == 32 { u32::MAX } else { (1u32 << lanes) - 1 }
}

/// The operations of a warp reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduceOp {
    Add,
    Max,
    Min,
}

macro_rules! allreduce {
    ($name:ident, $ty:ty, $add:expr, $max:expr, $min:expr) => {
        /// The butterfly over the masks `m`, one exchange and one operation each.
        pub(crate) fn $name<const K: usize>(op: ReduceOp, v: u32, m: [u32; K], site: Site) -> u32 {
            let f: fn($ty, $ty) -> $ty = match op {
                ReduceOp::Add => $add,
                ReduceOp::Max => $max,
                ReduceOp::Min => $min,
            };
            m.into_iter().fold(v, |v, mask| {
                let other = shfl_bfly(v, mask, site);
                <$ty as crate::Word>::to_bits(f(
                    <$ty as crate::Word>::from_bits(v),
                    <$ty as crate::Word>::from_bits(other),
                ))
            })
        }
    };
}

allreduce!(allreduce_f32, f32, |a, b| a + b, f32::max, f32::min);
allreduce!(allreduce_u32, u32, u32::wrapping_add, u32::max, u32::min);
allreduce!(allreduce_s32, i32, i32::wrapping_add, i32::max, i32::min);

/// [`allreduce_f32`] of two values over the same masks (one block on the GPU).
pub(crate) fn allreduce2_f32<const K: usize>(
    op: ReduceOp,
    vw: [u32; 2],
    m: [u32; K],
    site: Site,
) -> [u32; 2] {
    vw.map(|v| allreduce_f32(op, v, m, site))
}

/// `ex2.approx`: the emulator computes `2^x` (the GPU's is within 2 ulp of it).
pub(crate) fn ex2_approx(x: f32) -> f32 {
    x.exp2()
}

/// `lg2.approx`: `log2 x`.
pub(crate) fn lg2_approx(x: f32) -> f32 {
    x.log2()
}

/// `rcp.approx`: `1 / x`.
pub(crate) fn rcp_approx(x: f32) -> f32 {
    1.0 / x
}

/// `rsqrt.approx`: `1 / sqrt(x)`.
pub(crate) fn rsqrt_approx(x: f32) -> f32 {
    1.0 / x.sqrt()
}

/// `sqrt.approx`.
pub(crate) fn sqrt_approx(x: f32) -> f32 {
    x.sqrt()
}

/// `tanh.approx`.
pub(crate) fn tanh_approx(x: f32) -> f32 {
    x.tanh()
}

/// `sqrt.rn`: correctly rounded.
pub(crate) fn sqrt_rn(x: f32) -> f32 {
    x.sqrt()
}

/// `rcp.rn`: correctly rounded.
pub(crate) fn rcp_rn(x: f32) -> f32 {
    1.0 / x
}

/// `div.approx`: `a / b`.
pub(crate) fn div_approx(a: f32, b: f32) -> f32 {
    a / b
}

/// The atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    Add,
    Max,
    Min,
    Exch,
}

/// `op` on the word `cell` (32-bit values of type `T`), atomically; the old bits.
fn atomic_on<T: crate::Word>(cell: &AtomicU32, op: AtomicOp, v: u32, f: impl Fn(AtomicOp, T, T) -> T) -> u32 {
    match cell.fetch_update(Relaxed, Relaxed, |old| {
        Some(match op {
            AtomicOp::Exch => v,
            _ => f(op, T::from_bits(old), T::from_bits(v)).to_bits(),
        })
    }) {
        Ok(old) | Err(old) => old,
    }
}

fn op_u32(op: AtomicOp, a: u32, b: u32) -> u32 {
    match op {
        AtomicOp::Add => a.wrapping_add(b),
        AtomicOp::Max => a.max(b),
        AtomicOp::Min => a.min(b),
        AtomicOp::Exch => b,
    }
}

fn op_s32(op: AtomicOp, a: i32, b: i32) -> i32 {
    match op {
        AtomicOp::Add => a.wrapping_add(b),
        AtomicOp::Max => a.max(b),
        AtomicOp::Min => a.min(b),
        AtomicOp::Exch => b,
    }
}

fn op_f32(op: AtomicOp, a: f32, b: f32) -> f32 {
    match op {
        AtomicOp::Add => a + b,
        AtomicOp::Max => a.max(b),
        AtomicOp::Min => a.min(b),
        AtomicOp::Exch => b,
    }
}

/// The shared word of `addr` for an atomic (checked; atomics are not races with each other, so the
/// race check leaves them out).
fn smem_atomic_cell(addr: u32) -> (Arc<Launch>, usize) {
    let word = smem_word(addr, 4);
    (with(|c| Arc::clone(&c.launch)), word)
}

macro_rules! atomics {
    ($global:ident, $shared:ident, $red_global:ident, $red_shared:ident, $t:ty, $f:ident) => {
        /// `atom.global`: the old value (checked).
        ///
        /// # Safety
        /// None here: checked.
        pub(crate) unsafe fn $global(p: GlobalPtr<'_>, i: usize, op: AtomicOp, v: u32) -> u32 {
            atomic_on::<$t>(p.cell(i), op, v, $f)
        }

        /// `red.global` (checked).
        ///
        /// # Safety
        /// None here: checked.
        pub(crate) unsafe fn $red_global(p: GlobalPtr<'_>, i: usize, op: AtomicOp, v: u32) {
            atomic_on::<$t>(p.cell(i), op, v, $f);
        }

        /// `atom.shared`: the old value (checked).
        ///
        /// # Safety
        /// None here: checked.
        pub(crate) unsafe fn $shared(addr: u32, op: AtomicOp, v: u32) -> u32 {
            let (launch, word) = smem_atomic_cell(addr);
            atomic_on::<$t>(&launch.smem[word], op, v, $f)
        }

        /// `red.shared` (checked).
        ///
        /// # Safety
        /// None here: checked.
        pub(crate) unsafe fn $red_shared(addr: u32, op: AtomicOp, v: u32) {
            let (launch, word) = smem_atomic_cell(addr);
            atomic_on::<$t>(&launch.smem[word], op, v, $f);
        }
    };
}

atomics!(atom_global_u32, atom_shared_u32, red_global_u32, red_shared_u32, u32, op_u32);
atomics!(atom_global_s32, atom_shared_s32, red_global_s32, red_shared_s32, i32, op_s32);
atomics!(atom_global_f32, atom_shared_f32, red_global_f32, red_shared_f32, f32, op_f32);

/// `atom.global.cas` (checked).
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn atom_global_cas(p: GlobalPtr<'_>, i: usize, expected: u32, new: u32) -> u32 {
    match p.cell(i).compare_exchange(expected, new, Relaxed, Relaxed) {
        Ok(old) | Err(old) => old,
    }
}

/// `atom.shared.cas` (checked).
///
/// # Safety
/// None here: checked.
pub(crate) unsafe fn atom_shared_cas(addr: u32, expected: u32, new: u32) -> u32 {
    let (launch, word) = smem_atomic_cell(addr);
    match launch.smem[word].compare_exchange(expected, new, Relaxed, Relaxed) {
        Ok(old) | Err(old) => old,
    }
}

/// `bar.arrive id, threads`: arrive at named barrier `id` without waiting.
pub(crate) fn named_barrier_arrive(id: u32, threads: u32) {
    let launch = with(|c| Arc::clone(&c.launch));
    if id == 0 || id > 15 || threads == 0 || !threads.is_multiple_of(32) || threads as usize > launch.threads
    {
        panic!(
            "named barrier {id}: arrive for {threads} threads (ids 1 to 15, whole warps within the block)"
        );
    }
    let mut named = launch.named.lock().unwrap_or_else(|e| e.into_inner());
    let b = named.entry(id).or_insert(Named { threads, arrived: 0, phases: 0 });
    b.threads = threads;
    b.arrived += 1;
    if b.arrived == threads {
        b.arrived = 0;
        b.phases += 1;
        launch.named_cv.notify_all();
    }
}
