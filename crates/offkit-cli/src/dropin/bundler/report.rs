//! What the bundler prints on the way, as LLVM prints it: the verbose reports of compressed
//! bundles, `-###`'s commands, warnings, and the timer group report at exit.

use std::time::Duration;

use offkit_bundle::llvm::{Compression, Decompression, Event};

use super::with_commas;

/// The timers the verbose mode reports at exit: `(name, wall time)`, in the order they ran.
#[derive(Debug, Default)]
pub struct Timers(Vec<(&'static str, Duration)>);

/// Prints `e` as LLVM does, recording its timers in `timers`.
pub fn event(e: Event<'_>, timers: &mut Timers) {
    match e {
        Event::Uncompressed => eprintln!("Uncompressed bundle."),
        Event::Decompressed(d) => {
            timers.0.push(("Decompression time", d.elapsed));
            timers.0.push(("Hash recalculation time", d.hash_elapsed));
            eprint!("{}", decompressed(d));
        }
        Event::Compressed(c) => {
            timers.0.push(("Compression time", c.elapsed));
            timers.0.push(("Hash calculation time", Duration::ZERO));
            eprint!("{}", compressed(c));
        }
        Event::Command { program, args } => {
            // Every argument double-quoted, the program by its full path.
            let mut line = format!("\"{}\"", program.display());
            for a in args {
                line.push_str(&format!(" \"{a}\""));
            }
            eprintln!("{line}");
        }
        Event::MalformedBitcode { member } => eprintln!("warning: '{member}': Malformed block"),
        _ => {}
    }
}

/// LLVM's verbose report of a decompressed bundle.
fn decompressed(d: &Decompression) -> String {
    let h = &d.header;
    let size = h.uncompressed_size;
    let stream = d.file_size - h.header_size as u64;
    let rate = size as f64 / stream as f64;
    let secs = d.elapsed.as_secs_f64().max(1e-9);
    let mut s = format!("Compressed bundle format version: {}\n", h.version);
    if let Some(t) = h.total_size {
        s.push_str(&format!(
            "Total file size (from header): {} bytes\n",
            with_commas(t)
        ));
    }
    s.push_str(&format!(
        "Decompression method: {}\nSize before decompression: {} bytes\nSize after decompression: {} bytes\n\
         Compression rate: {rate:.2}\nCompression ratio: {:.2}%\nDecompression speed: {:.2} MB/s\n\
         Stored hash: {:#016x}\nRecalculated hash: {:#016x}\nHashes match: {}\n",
        h.method.name(),
        with_commas(stream),
        with_commas(size),
        100.0 / rate,
        size as f64 / (1024.0 * 1024.0) / secs,
        h.hash,
        d.recalculated_hash,
        if h.hash == d.recalculated_hash { "Yes" } else { "No" },
    ));
    s
}

/// LLVM's verbose report of a compressed bundle written.
fn compressed(c: &Compression) -> String {
    let size = c.plain_size;
    let rate = size as f64 / c.stream_size.max(1) as f64;
    format!(
        "Compressed bundle format version: {}\nTotal file size (including headers): {} bytes\n\
         Compression method used: zstd\nCompression level: {}\nBinary size before compression: {} bytes\n\
         Binary size after compression: {} bytes\nCompression rate: {rate:.2}\nCompression ratio: {:.2}%\n\
         Compression speed: {:.2} MB/s\nTruncated MD5 hash: {:#016x}\n",
        c.version,
        with_commas(c.file_size),
        c.level,
        with_commas(size),
        with_commas(c.stream_size),
        100.0 / rate,
        size as f64 / (1024.0 * 1024.0) / c.elapsed.as_secs_f64().max(1e-9),
        c.hash,
    )
}

impl Timers {
    /// Prints LLVM's timer group report ("Timer group for clang offload bundler") if any timer
    /// ran. Only wall time is measured; it stands in for user and system time too.
    pub fn print(&self) {
        let timers = &self.0;
        if timers.is_empty() {
            return;
        }
        let total: f64 = timers.iter().map(|(_, d)| d.as_secs_f64()).sum();
        let pct = |v: f64| if total > 0.0 { v / total * 100.0 } else { 0.0 };
        let mut s = String::new();
        s.push_str(
            "===-------------------------------------------------------------------------===\n",
        );
        s.push_str("                     Timer group for clang offload bundler\n");
        s.push_str(
            "===-------------------------------------------------------------------------===\n",
        );
        s.push_str(&format!(
            "  Total Execution Time: {total:.4} seconds ({total:.4} wall clock)\n\n"
        ));
        s.push_str(
            "   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---\n",
        );
        let mut sorted = timers.clone();
        sorted.sort_by_key(|t| std::cmp::Reverse(t.1));
        for (name, d) in sorted
            .iter()
            .map(|(n, d)| (*n, d.as_secs_f64()))
            .chain([("Total", total)])
        {
            let cell = format!("{d:>9.4} ({:>5.1}%)", pct(d));
            s.push_str(&format!("{cell}{cell}{cell}{cell}  {name}\n"));
        }
        s.push('\n');
        eprint!("{s}");
    }
}
