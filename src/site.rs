//! The layout playground's files (`web/site`: the page and the WebAssembly build of the tool's
//! commands, `tools/web/build.sh`), embedded in the binary: `layout site DIR` writes them for any
//! web server, `layout serve` serves them itself.
//!
//! The server is for one person's browser on this machine: HTTP/1.1 `GET` and `HEAD` of these
//! files only, one short-lived thread a connection, `Connection: close`, bound to 127.0.0.1 unless
//! `--host` says otherwise. It sends the headers that make the page cross-origin isolated
//! (`Cross-Origin-Opener-Policy`, `Cross-Origin-Embedder-Policy`), so that the page's timer
//! (`performance.now()`) is precise enough to report an update's time.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// The files: name, content type, bytes.
pub const FILES: &[(&str, &str, &[u8])] = &[
    ("index.html", "text/html; charset=utf-8", include_bytes!("../web/site/index.html")),
    ("app.js", "text/javascript; charset=utf-8", include_bytes!("../web/site/app.js")),
    ("style.css", "text/css; charset=utf-8", include_bytes!("../web/site/style.css")),
    ("const_layout_web.wasm", "application/wasm", include_bytes!("../web/site/const_layout_web.wasm")),
];

/// The longest request head read (a browser's is well under 2 KiB).
const MAX_HEAD: usize = 16 << 10;

/// `layout site DIR`: writes the files into `DIR` (created if missing).
pub fn site(args: &[&str]) -> Result<String, String> {
    let [dir] = args else {
        return Err(
            "`site` takes the directory to write the page into, e.g. layout site ./playground".to_string()
        );
    };
    let dir = std::path::Path::new(dir);
    let fail = |what: &std::path::Path, e: std::io::Error| {
        format!(
            "cannot write {}: {}",
            super::quote(&what.display().to_string()),
            super::one_line(&e.to_string())
        )
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    for (name, _, bytes) in FILES {
        let path = dir.join(name);
        std::fs::write(&path, bytes).map_err(|e| fail(&path, e))?;
    }
    Ok(format!(
        "wrote the playground ({} files) to {}; serve the directory with any web server, or run `layout serve`\n",
        FILES.len(),
        dir.display()
    ))
}

/// `layout serve [--port P] [--host H]`: serves the files until stopped. Prints `serving URL` as
/// its first line once it listens (`--port 0`: a free port, the line says which).
pub fn serve(args: &[&str]) -> Result<(), String> {
    let (mut port, mut host) = (8000u16, "127.0.0.1");
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).copied();
        match (args[i], value) {
            ("--port", Some(v)) => {
                port = v.parse().map_err(|_| format!("`--port` takes 0 to 65535, not {}", super::quote(v)))?
            }
            ("--host", Some(v)) => host = v,
            ("--port" | "--host", None) => return Err(format!("`{}` needs a value", args[i])),
            (other, _) => {
                return Err(format!("`serve` takes --port P and --host H, not {}", super::quote(other)));
            }
        }
        i += 2;
    }
    let listener = TcpListener::bind((host, port))
        .map_err(|e| format!("cannot listen on {host}:{port}: {}", super::one_line(&e.to_string())))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "serving http://{addr}/ (the layout playground; Ctrl-C stops it)")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the output: {e}"))?;
    drop(out);
    for stream in listener.incoming() {
        // A connection that fails (reset, timed out) is the browser's business, not the server's.
        let Ok(stream) = stream else { continue };
        let _ = std::thread::Builder::new().spawn(move || answer(stream));
    }
    Ok(())
}

/// Reads one request and answers it.
fn answer(mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
        if head.len() > MAX_HEAD {
            respond(&mut stream, "431 Request Header Fields Too Large", "text/plain", b"", true)?;
            // Closing with the rest of the request unread would reset the connection before the
            // client reads the answer: stop writing, then read what is left (a bounded amount).
            stream.shutdown(std::net::Shutdown::Write)?;
            stream.set_read_timeout(Some(Duration::from_secs(1)))?;
            let mut left = 1usize << 20;
            while left > 0 {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => left = left.saturating_sub(n),
                }
            }
            return Ok(());
        }
    }
    let line = head.split(|&b| b == b'\r' || b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split(' ');
    let (method, target) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let body = method == "GET";
    if method != "GET" && method != "HEAD" {
        return respond(&mut stream, "405 Method Not Allowed", "text/plain", b"GET or HEAD only\n", body);
    }
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let name = if path == "/" { "index.html" } else { path.trim_start_matches('/') };
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, bytes)) => respond(&mut stream, "200 OK", kind, bytes, body),
        None => {
            respond(&mut stream, "404 Not Found", "text/plain", b"not found: the playground is at /\n", body)
        }
    }
}

/// Writes a response: the status line, the headers, the body unless `HEAD`.
fn respond(
    stream: &mut TcpStream,
    status: &str,
    kind: &str,
    bytes: &[u8],
    body: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n\
         Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        bytes.len()
    );
    stream.write_all(head.as_bytes())?;
    if body {
        stream.write_all(bytes)?;
    }
    stream.flush()
}
