//! The layout playground's WebAssembly module: the `layout` tool's commands (`src/tool`, compiled
//! here from the same file as the binary's), so that the page (`web/site`) shows the tool's
//! exact text and pictures, computed in the browser with no server and no network.
//!
//! The page talks to the module through three exports and its memory, with no generated glue:
//!
//! 1. `layout_input(len) -> address`: room for a request of `len` bytes, which the page writes
//!    into the module's memory at `address`;
//! 2. `layout_run() -> len`: runs the request and keeps the response, `len` bytes;
//! 3. `layout_output() -> address`: where the response is.
//!
//! A request is the tool's arguments, UTF-8, separated by NUL bytes (`eval\0(8,4):(1,8)` is
//! `layout eval '(8,4):(1,8)'`); the response is [`respond`]'s: `0` and what the tool prints, or
//! `1` and its one-line error. The buffers are the module's own, so that no export takes a
//! pointer; the only `unsafe` is the `no_mangle` attribute each export needs.
//!
//! ```
//! use const_layout_web::respond;
//! let text = |r: Vec<u8>| String::from_utf8(r).unwrap();
//! assert_eq!(text(respond(b"eval\0(8,(4,2)):(1,8)")), "0(8,(4,2)):(1,(8,32))\n");
//! assert_eq!(
//!     text(respond(b"eval\0size(1,")),
//!     "1column 8: expected an integer, `(` or a function name, found the end of the input in `size(1,`"
//! );
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::cell::RefCell;

#[path = "../../../src/tool/mod.rs"]
mod tool;

/// The response to `request` (the tool's arguments separated by NUL bytes): `b'0'` and the tool's
/// output, or `b'1'` and its error as one line (as `layout` prints it after `layout: `; with
/// `--json`, the tool's `{"error":...}` object instead, after `b'1'`). A request that is not
/// UTF-8 is an error naming the byte.
///
/// ```
/// use const_layout_web::respond;
/// let svg = String::from_utf8(respond(b"svg\0(_2,_2):(_1,_2)")).unwrap();
/// assert!(svg.starts_with("0<?xml") && svg.ends_with("</svg>\n"));
/// let error = String::from_utf8(respond(b"frobnicate")).unwrap();
/// assert_eq!(error, "1unknown command `frobnicate`; run `layout --help`");
/// ```
pub fn respond(request: &[u8]) -> Vec<u8> {
    let result = match std::str::from_utf8(request) {
        Ok(text) => {
            let args: Vec<String> =
                if text.is_empty() { Vec::new() } else { text.split('\0').map(String::from).collect() };
            let json = args.iter().any(|a| a == "--json");
            tool::run(&args, json).map_err(|msg| {
                let msg = tool::one_line(&msg);
                if json { tool::json_error(&msg) } else { msg }
            })
        }
        Err(e) => Err(format!("the request is not UTF-8 at byte {}", e.valid_up_to())),
    };
    let (status, text) = match result {
        Ok(out) => (b'0', out),
        Err(msg) => (b'1', msg),
    };
    let mut response = Vec::with_capacity(1 + text.len());
    response.push(status);
    response.extend_from_slice(text.as_bytes());
    response
}

thread_local! {
    /// The request the page writes (`layout_input`).
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The last response (`layout_run`, `layout_output`).
    static OUTPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Room for a request of `len` bytes (zeros); its address in the module's memory.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
// SAFETY: an exported name no other symbol of the module has (the `layout_` prefix), with the C
// ABI and integer arguments: nothing the linker could resolve to another definition.
#[unsafe(no_mangle)]
pub extern "C" fn layout_input(len: u32) -> u32 {
    INPUT.with_borrow_mut(|b| {
        b.clear();
        b.resize(len as usize, 0);
        b.as_ptr() as usize as u32
    })
}

/// Runs the request in the input buffer ([`respond`]); the response's length in bytes.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
// SAFETY: as `layout_input`'s.
#[unsafe(no_mangle)]
pub extern "C" fn layout_run() -> u32 {
    let response = INPUT.with_borrow(|request| respond(request));
    OUTPUT.with_borrow_mut(|out| {
        *out = response;
        out.len() as u32
    })
}

/// The address of the last response in the module's memory.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
// SAFETY: as `layout_input`'s.
#[unsafe(no_mangle)]
pub extern "C" fn layout_output() -> u32 {
    OUTPUT.with_borrow(|out| out.as_ptr() as usize as u32)
}
