//! `--wrapper-time-trace=<file>`: where the time of a link went, as a Chrome trace-event JSON
//! file (the format of LLVM's `TimeProfiler`, which LLVM 19's wrapper writes): one complete
//! event (`"ph":"X"`) per phase — input scanning, each device link, each wrap, the host link —
//! and the whole link, dropping those shorter than `--wrapper-time-trace-granularity` (µs,
//! default 500).

use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// One event: name, detail, start and duration (µs), thread.
type Event = (String, String, u128, u128, u64);

/// A time trace being recorded (or not).
#[derive(Debug)]
pub struct Trace {
    on: bool,
    start: Instant,
    granularity_us: u128,
    events: Mutex<Vec<Event>>,
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn thread_id() -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    std::thread::current().id().hash(&mut h);
    h.finish() & 0xffff
}

impl Trace {
    /// A trace that records when `on`.
    pub fn new(on: bool, granularity_us: u128) -> Self {
        Trace {
            on,
            start: Instant::now(),
            granularity_us,
            events: Mutex::new(Vec::new()),
        }
    }

    /// Times `f` as the event `name` (with `detail`).
    pub fn scope<T>(&self, name: &str, detail: &str, f: impl FnOnce() -> T) -> T {
        if !self.on {
            return f();
        }
        let t0 = self.start.elapsed().as_micros();
        let r = f();
        let dur = self.start.elapsed().as_micros() - t0;
        if let Ok(mut e) = self.events.lock() {
            e.push((name.into(), detail.into(), t0, dur, thread_id()));
        }
        r
    }

    /// The trace as JSON (`process` names the process).
    pub fn json(&self, process: &str) -> String {
        let pid = std::process::id();
        let begin = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros())
            .unwrap_or(0)
            .saturating_sub(self.start.elapsed().as_micros());
        let mut items: Vec<String> = Vec::new();
        if let Ok(e) = self.events.lock() {
            for (name, detail, ts, dur, tid) in e.iter() {
                if *dur < self.granularity_us {
                    continue;
                }
                let args = if detail.is_empty() {
                    String::from("{}")
                } else {
                    format!("{{\"detail\":{}}}", json_str(detail))
                };
                items.push(format!(
                    "{{\"pid\":{pid},\"tid\":{tid},\"ph\":\"X\",\"ts\":{ts},\"dur\":{dur},\"name\":{},\"args\":{args}}}",
                    json_str(name)
                ));
            }
        }
        items.push(format!(
            "{{\"cat\":\"\",\"pid\":{pid},\"tid\":0,\"ts\":0,\"ph\":\"M\",\"name\":\"process_name\",\"args\":{{\"name\":{}}}}}",
            json_str(process)
        ));
        format!(
            "{{\"traceEvents\":[{}],\"beginningOfTime\":{begin}}}\n",
            items.join(",")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_filters() {
        let t = Trace::new(true, 500);
        t.scope("Execute host linker", "", || {
            std::thread::sleep(std::time::Duration::from_millis(2))
        });
        t.scope("too short", "", || ());
        let j = t.json("clang-linker-wrapper");
        assert!(j.starts_with("{\"traceEvents\":[{\"pid\":"), "{j}");
        assert!(j.contains("\"name\":\"Execute host linker\""), "{j}");
        assert!(!j.contains("too short"), "{j}");
        assert!(
            j.contains("\"process_name\",\"args\":{\"name\":\"clang-linker-wrapper\"}"),
            "{j}"
        );
        assert_eq!(json_str("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
