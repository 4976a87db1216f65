//! A client of GNU make's jobserver, so that a tool started by `make -jN` runs its own
//! parallel work inside make's budget instead of on top of it.
//!
//! Make announces the jobserver in `MAKEFLAGS` as `--jobserver-auth=R,W` (two inherited pipe
//! descriptors; `--jobserver-fds=R,W` before make 4.2) or `--jobserver-auth=fifo:PATH` (a named
//! pipe, make 4.4). Every process owns one implicit job; each further job needs a token, one
//! byte read from the pipe, which must be written back when the job ends.
//!
//! The descriptors are reached through `/proc/self/fd/N`, which opens the same pipe afresh (no
//! `unsafe` needed) and with flags of our own: non-blocking, so that waiting for a token never
//! blocks a thread that could not be woken when the work is done. When make did not pass the
//! descriptors down (a recipe not marked `+`), they are closed or not pipes, and the client is
//! simply absent.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::PathBuf;

use crate::env::Env;

/// `O_NONBLOCK` on Linux.
const O_NONBLOCK: i32 = 0o4000;

/// Where make's jobserver is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// Two inherited descriptors: read end, write end.
    Fds(u32, u32),
    /// A named pipe.
    Fifo(PathBuf),
}

/// Finds the jobserver in a `MAKEFLAGS` value (the last announcement wins, as in make).
pub fn parse_makeflags(flags: &str) -> Option<Auth> {
    let mut found = None;
    for word in flags.split_ascii_whitespace() {
        let Some(v) = word
            .strip_prefix("--jobserver-auth=")
            .or_else(|| word.strip_prefix("--jobserver-fds="))
        else {
            continue;
        };
        found = if let Some(path) = v.strip_prefix("fifo:") {
            Some(Auth::Fifo(PathBuf::from(path)))
        } else {
            let (r, w) = v.split_once(',')?;
            match (r.parse(), w.parse()) {
                (Ok(r), Ok(w)) => Some(Auth::Fds(r, w)),
                _ => None,
            }
        };
    }
    found
}

/// A connection to make's jobserver.
#[derive(Debug)]
pub struct Jobserver {
    read: File,
    write: File,
}

/// One job's token; written back to the jobserver when dropped.
#[derive(Debug)]
pub struct Token<'a> {
    server: &'a Jobserver,
    byte: u8,
}

impl Drop for Token<'_> {
    fn drop(&mut self) {
        let _ = (&self.server.write).write_all(&[self.byte]);
    }
}

fn open_pipe(path: &std::path::Path, write: bool) -> io::Result<File> {
    let f = OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.file_type().is_fifo() {
        return Err(io::Error::other("not a pipe"));
    }
    Ok(f)
}

impl Jobserver {
    /// The jobserver `MAKEFLAGS` announces, if there is one and it can be reached.
    pub fn from_env(env: &Env) -> Option<Jobserver> {
        let auth = parse_makeflags(env.get("MAKEFLAGS")?)?;
        Self::connect(&auth).ok()
    }

    /// Connects to the jobserver at `auth`.
    pub fn connect(auth: &Auth) -> io::Result<Jobserver> {
        let (r, w) = match auth {
            Auth::Fds(r, w) => (
                PathBuf::from(format!("/proc/self/fd/{r}")),
                PathBuf::from(format!("/proc/self/fd/{w}")),
            ),
            Auth::Fifo(p) => (p.clone(), p.clone()),
        };
        Ok(Jobserver {
            read: open_pipe(&r, false)?,
            write: open_pipe(&w, true)?,
        })
    }

    /// Takes a token if one is free now; `None` if not.
    pub fn try_acquire(&self) -> io::Result<Option<Token<'_>>> {
        let mut b = [0u8; 1];
        loop {
            return match (&self.read).read(&mut b) {
                Ok(1) => Ok(Some(Token {
                    server: self,
                    byte: b[0],
                })),
                Ok(_) => Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
                Err(e) => Err(e),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn makeflags() {
        assert_eq!(
            parse_makeflags(" -j4 --jobserver-auth=3,4"),
            Some(Auth::Fds(3, 4))
        );
        assert_eq!(
            parse_makeflags("--jobserver-fds=5,6 -j"),
            Some(Auth::Fds(5, 6))
        );
        assert_eq!(
            parse_makeflags("-j --jobserver-auth=fifo:/tmp/GMfifo12"),
            Some(Auth::Fifo("/tmp/GMfifo12".into()))
        );
        assert_eq!(parse_makeflags("-j4"), None);
        assert_eq!(parse_makeflags("--jobserver-auth=x"), None);
    }

    #[test]
    fn tokens_from_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("jobs");
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
        // Keep a reader and writer open, as make does, and put two tokens in.
        let _keep = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        (&_keep).write_all(b"++").unwrap();
        let js = Jobserver::connect(&Auth::Fifo(fifo.clone())).unwrap();
        let a = js.try_acquire().unwrap().expect("first token");
        let b = js.try_acquire().unwrap().expect("second token");
        assert!(js.try_acquire().unwrap().is_none());
        drop(a);
        let c = js.try_acquire().unwrap().expect("returned token");
        drop((b, c));
        assert!(Jobserver::connect(&Auth::Fds(9999, 9998)).is_err());
        let env = Env::from_pairs(&[("MAKEFLAGS", "-j2 --jobserver-auth=9999,9998")]);
        assert!(Jobserver::from_env(&env).is_none());
    }
}
