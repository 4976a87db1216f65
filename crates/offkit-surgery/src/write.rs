//! Writing a planned rewrite beside its target, sparse, and checking it before the rename.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use offkit_elf::{Editor, Elf};
use offkit_format::bundle::sequence::{self, Kind};
use offkit_format::bundle::{binary, compressed};
use offkit_format::container::sections;
use offkit_tools::fs::AtomicFile;

use crate::edit::{Content, Part};
use crate::error::{Error, Result};
use crate::par::{par_map, par_window};
use crate::perms::Perms;
use crate::plan::{Change, Plan, SectionRef};

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// The output's size.
    pub size: u64,
    /// The zero bytes seeked over rather than written (each bundle's space after it; the file
    /// system makes holes of the whole blocks among them).
    pub holes: u64,
}

/// Writes `plan` (made from `data`, the bytes of the open file `src`) to `dest`: beside it,
/// unchanged ranges copied by the kernel, each rewritten bundle at its offset, the bytes it
/// frees left as holes; then the result is re-read and checked ([`validate`]) and renamed into
/// place with the mode `perms` gives it. `progress(done, total)` is called as the bundles are
/// written, in bytes of the input's bundles.
pub fn write(
    plan: &mut Plan,
    data: &[u8],
    src: &File,
    dest: &Path,
    perms: Perms,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Written> {
    let werr = |source: io::Error| Error::Write {
        path: dest.to_path_buf(),
        source,
    };
    let mut out = AtomicFile::create(dest).map_err(werr)?;
    let mut holes = 0;
    let size;
    {
        let f = out.file();
        match plan.changes.first().and_then(|c| c.bytes.as_ref()) {
            _ if plan.resized => {
                let bytes = resize_object(plan, data)?;
                f.write_all(&bytes).map_err(werr)?;
                size = bytes.len() as u64;
            }
            Some(content) if plan.whole => {
                write_content(f, src, content).map_err(werr)?;
                size = content.len();
            }
            _ if plan.whole => {
                f.write_all(data).map_err(werr)?;
                size = data.len() as u64;
            }
            _ => {
                // Each bundle's slot: the bundle (new or copied), then up to the next bundle
                // only zeros (the sequence's rule), seeked over: holes, whatever the input had.
                // Pending bundles are made a window at a time and written as they come.
                let mut pos = 0u64;
                // Workers inflating a bundle write it at its offset themselves (a linked
                // file's bundles do not move), through a second descriptor of the output.
                let direct = f.try_clone().map_err(werr)?;
                let made = stream(plan, src, Some((&direct, dest)), progress, |c, made| {
                    copy(src, f, pos, c.offset - pos).map_err(werr)?;
                    let written = match (made, &c.bytes) {
                        (Some(Out::Bytes(bytes)), _) => {
                            f.write_all(bytes).map_err(werr)?;
                            bytes.len() as u64
                        }
                        (Some(Out::Written(n)), _) => {
                            f.seek(SeekFrom::Start(c.offset + n)).map_err(werr)?;
                            n
                        }
                        (None, Some(content)) => {
                            write_content(f, src, content).map_err(werr)?;
                            content.len()
                        }
                        (None, None) => {
                            copy(src, f, c.offset, c.old_size).map_err(werr)?;
                            c.old_size
                        }
                    };
                    let rest = c.slot.saturating_sub(written);
                    f.seek(SeekFrom::Current(rest as i64)).map_err(werr)?;
                    holes += rest;
                    pos = c.offset + c.slot.max(written);
                    Ok(())
                })?;
                settled(plan, made);
                copy(src, f, pos, plan.file_size - pos).map_err(werr)?;
                f.set_len(plan.file_size).map_err(werr)?;
                size = plan.file_size;
            }
        }
        for p in plan.patches() {
            use std::os::unix::fs::FileExt;
            f.write_all_at(&p.bytes, p.offset).map_err(werr)?;
            zero(f, p.offset + p.bytes.len() as u64, p.zeros).map_err(werr)?;
        }
        f.flush().map_err(werr)?;
    }
    perms.apply(&mut out).map_err(werr)?;
    // Mapped, not read: the check touches the headers and the bundles only, and lets go of
    // the pages it read every few bundles.
    let check = offkit_tools::mmap::MappedFile::open(out.tmp_path()).map_err(werr)?;
    validate_releasing(plan, data, &check, &|| check.release())?;
    drop(check);
    out.commit().map_err(werr)?;
    Ok(Written { size, holes })
}

/// Zeroes `len` bytes of `f` from `at`: a hole punched where the file system can (the
/// freed bytes of a bundle are holes too), else zeros written a block at a time, never held
/// whole.
fn zero(f: &std::fs::File, at: u64, len: u64) -> std::io::Result<()> {
    use rustix::fs::{fallocate, FallocateFlags};
    use std::os::unix::fs::FileExt;
    if len == 0 {
        return Ok(());
    }
    let punch = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
    if fallocate(f, punch, at, len).is_ok() {
        return Ok(());
    }
    let block = vec![0u8; len.min(1 << 20) as usize];
    let mut done = 0;
    while done < len {
        let n = (len - done).min(block.len() as u64) as usize;
        f.write_all_at(&block[..n], at + done)?;
        done += n as u64;
    }
    Ok(())
}

/// What the bundles a rewrite makes at once may hold, at most (beyond one bundle, however
/// large): see the weights in [`stream`]. (50 MiB rather than 48: three bundles of 8 MiB and
/// their headers, each weighing twice its size, fit.)
const WINDOW_BYTES: u64 = 50 << 20;

/// The largest read buffer a worker keeps for the next bundle.
const KEEP_BUFFER: u64 = 16 << 20;

/// A pending bundle made: its new bytes (or how many were written straight to the output)
/// and entries.
struct Made {
    bytes: Vec<u8>,
    written: Option<u64>,
    kept: Vec<String>,
    removed: Vec<String>,
}

impl Made {
    fn size(&self) -> u64 {
        self.written.unwrap_or(self.bytes.len() as u64)
    }

    fn out(&self) -> Out<'_> {
        match self.written {
            Some(n) => Out::Written(n),
            None => Out::Bytes(&self.bytes),
        }
    }
}

/// What [`stream`] hands on for a pending bundle made.
#[derive(Clone, Copy)]
enum Out<'a> {
    /// Its new bytes, to be written at its offset.
    Bytes(&'a [u8]),
    /// It was written at its offset already (this many bytes).
    Written(u64),
}

/// The bundles of `plan` handed to `put` in file order, each pending one with its new bytes,
/// made on all cores a window at a time (twice as many bundles as cores, fewer when they are
/// large: [`WINDOW_BYTES`]) from the input `src`, read with `pread` rather than through a map,
/// so that neither the input's pages nor the new bundles pile up in memory. A pending bundle
/// that outgrows its slot is an error. A bundle inflated is not held at all when `dest` (the
/// output, and its path for errors) is given: the worker writes it at its offset as the stream
/// yields it (the plan checked that the size its header claims fits the slot, and the stream
/// stops the moment it yields more), so a decompress holds the decompressor's window, not the
/// bundle twice. Returns, for each change, the size and entries of what was made.
fn stream(
    plan: &Plan,
    src: &File,
    dest: Option<(&File, &Path)>,
    progress: &mut dyn FnMut(u64, u64),
    mut put: impl FnMut(&Change, Option<Out<'_>>) -> Result<()>,
) -> Result<Vec<Option<MadeSize>>> {
    use std::os::unix::fs::FileExt;
    thread_local! {
        /// Each worker's read buffer, kept from bundle to bundle: a fresh one would cost a
        /// page fault per 4 KiB of every bundle.
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let read = |c: &Change| -> Result<Option<Made>> {
        if !c.pending {
            return Ok(None);
        }
        BUF.with_borrow_mut(|buf| {
            buf.clear();
            buf.resize(c.old_size as usize, 0);
            let made = src
                .read_exact_at(buf, c.offset)
                .map_err(|source| Error::Read {
                    path: plan.input.clone().into(),
                    source,
                })
                .and_then(|()| match dest {
                    Some(dest) if plan.edit == crate::edit::Edit::Decompress => {
                        inflate_to(plan, c, buf, dest)
                    }
                    _ => make(plan, c, buf),
                });
            // A buffer kept at the size of a large bundle would hold that much on every worker
            // for the rest of the run, beside the bundles in flight.
            if buf.capacity() as u64 > KEEP_BUFFER {
                *buf = Vec::new();
            }
            made.map(Some)
        })
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Twice as many bundles in flight as cores, fewer when they are large: what making one
    // holds is its bytes read and, for a compressed one, its decompressed bytes (the
    // decompressor's window, the bundle pruned), or for a plain one what it is compressed
    // into (at most about its size); at least one, however large.
    let weight = |c: &Change| {
        if c.pending {
            c.old_size.saturating_add(c.inflated.unwrap_or(c.old_size))
        } else {
            0
        }
    };
    let mut out = Vec::with_capacity(plan.changes.len());
    let total: u64 = plan.changes.iter().map(|c| c.old_size).sum();
    let mut done = 0;
    par_window(
        &plan.changes,
        threads,
        threads * 2,
        WINDOW_BYTES,
        weight,
        read,
        || {
            Err(Error::Unusable {
                input: plan.input.clone(),
                message: "a worker thread failed".into(),
            })
        },
        |i, made| {
            let Some(c) = plan.changes.get(i) else {
                return Ok(());
            };
            let made = made?;
            if let Some(m) = &made {
                let section = plan.regions.get(c.region).map_or("?", |r| r.name.as_str());
                c.fits(m.size(), &plan.input, section)?;
            }
            put(c, made.as_ref().map(Made::out))?;
            done += c.old_size;
            progress(done, total);
            out.push(made.map(|m| (m.size(), m.kept, m.removed)));
            Ok(())
        },
    )?;
    Ok(out)
}

/// The bundle of the pending change `c` of `plan`, read from its bytes `bundle`.
fn piece<'b>(plan: &Plan, c: &Change, bundle: &'b [u8]) -> Result<sequence::Piece<'b>> {
    sequence::sequence(bundle, c.offset)
        .next()
        .ok_or_else(|| Error::unusable(&plan.input, format!("no bundle at {:#x}", c.offset)))?
        .map_err(|source| format_error(plan, source))
}

fn format_error(plan: &Plan, source: offkit_format::Error) -> Error {
    Error::Format {
        input: plan.input.clone(),
        source,
    }
}

/// Makes the pending bundle `c` of `plan` from its bytes `bundle`.
fn make(plan: &Plan, c: &Change, bundle: &[u8]) -> Result<Made> {
    let piece = piece(plan, c, bundle)?;
    let o = crate::edit::apply(&piece, &plan.edit).map_err(|e| format_error(plan, e))?;
    Ok(Made {
        bytes: match o.bytes {
            Some(c) => c.into_bytes().unwrap_or_else(|c| materialize(&c, bundle)),
            None => bundle.to_vec(),
        },
        written: None,
        kept: o.kept,
        removed: o.removed,
    })
}

/// Inflates the pending compressed bundle `c` of `plan` (its bytes `bundle`) straight into the
/// output `dest` at its offset, chunk by chunk.
fn inflate_to(plan: &Plan, c: &Change, bundle: &[u8], dest: (&File, &Path)) -> Result<Made> {
    use std::os::unix::fs::FileExt;
    let piece = piece(plan, c, bundle)?;
    let Kind::Compressed(blob) = &piece.kind else {
        return make(plan, c, bundle);
    };
    let mut at = c.offset;
    let sink = &mut |chunk: &[u8]| {
        dest.0.write_all_at(chunk, at)?;
        at += chunk.len() as u64;
        Ok(())
    };
    match compressed::stream::inflate_into::<io::Error>(blob, sink) {
        Ok(()) => Ok(Made {
            bytes: Vec::new(),
            written: Some(at - c.offset),
            kept: Vec::new(),
            removed: Vec::new(),
        }),
        Err(compressed::stream::SinkOr::Format(e)) => Err(format_error(plan, e)),
        Err(compressed::stream::SinkOr::Sink(source)) => Err(Error::Write {
            path: dest.1.to_path_buf(),
            source,
        }),
    }
}

/// `plan` with its pending bundles made from `data`, in memory (for [`rewrite_bytes`]).
fn made_in_memory(plan: &Plan, data: &[u8]) -> Result<Plan> {
    let mut plan = plan.clone();
    for i in 0..plan.changes.len() {
        let Some(c) = plan.changes.get(i).filter(|c| c.pending) else {
            continue;
        };
        let bundle = usize::try_from(c.offset)
            .ok()
            .zip(usize::try_from(c.old_size).ok())
            .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
            .ok_or_else(|| Error::unusable(&plan.input, format!("no bundle at {:#x}", c.offset)))?;
        let m = make(&plan, c, bundle)?;
        let section = plan.regions.get(c.region).map_or("?", |r| r.name.as_str());
        c.fits(m.bytes.len() as u64, &plan.input, section)?;
        if let Some(c) = plan.changes.get_mut(i) {
            c.pending = false;
            c.bytes = Some(m.bytes.into());
            c.kept = m.kept;
            c.removed = m.removed;
        }
    }
    Ok(plan)
}

/// What [`stream`] made of a pending bundle, once written: its size, the entries kept and
/// removed.
type MadeSize = (u64, Vec<String>, Vec<String>);

/// Records in `plan` what [`stream`] made.
fn settled(plan: &mut Plan, made: Vec<Option<MadeSize>>) {
    for (c, m) in plan.changes.iter_mut().zip(made) {
        if let Some((n, kept, removed)) = m {
            c.pending = false;
            c.made = Some(n);
            c.kept = kept;
            c.removed = removed;
        }
    }
}

/// Makes the pending bundles of `plan` (from `src`, the open input), without writing them, for
/// a dry run: afterwards every [`Change`] has its new size. A bundle that does not fit its slot
/// is an error, as writing it would be. `progress` as for [`write()`].
pub fn settle(plan: &mut Plan, src: &File, progress: &mut dyn FnMut(u64, u64)) -> Result<()> {
    if !plan.changes.iter().any(|c| c.pending) {
        return Ok(());
    }
    let made = stream(plan, src, None, progress, |_, _| Ok(()))?;
    settled(plan, made);
    Ok(())
}

/// The size of the file [`write()`] makes of `data` by `plan` (settled: no bundle pending), as
/// it lays the file out: a raw bundle's new bytes, a relocatable object with its bundle
/// sections resized, or the input's own size (a linked file's bundles stay at their offsets).
pub fn output_size(plan: &Plan, data: &[u8]) -> Result<u64> {
    if plan.changes.iter().any(|c| c.pending) {
        return Err(Error::unusable(
            &plan.input,
            "its bundles are still to be made (settle the plan first)".to_string(),
        ));
    }
    Ok(match plan.changes.first().and_then(|c| c.bytes.as_ref()) {
        _ if plan.resized => resize_object(plan, data)?.len() as u64,
        Some(content) if plan.whole => content.len(),
        _ => data.len() as u64,
    })
}

/// The rewrite of `data` by `plan`, in memory (for archive members): a relocatable object with
/// its bundle sections resized, a raw bundle rewritten, or any other file with its bundles
/// rewritten at their offsets and the freed bytes zeroed. Checked by [`validate`].
pub fn rewrite_bytes(plan: &Plan, data: &[u8]) -> Result<Vec<u8>> {
    let made;
    let plan = if plan.changes.iter().any(|c| c.pending) {
        made = made_in_memory(plan, data)?;
        &made
    } else {
        plan
    };
    let out = if plan.resized {
        resize_object(plan, data)?
    } else if plan.whole {
        match plan.changes.first().and_then(|c| c.bytes.as_ref()) {
            Some(content) => materialize(content, data),
            None => data.to_vec(),
        }
    } else {
        let mut out = data.to_vec();
        for c in &plan.changes {
            let Some(content) = &c.bytes else { continue };
            let new = materialize(content, data);
            let at = c.offset as usize;
            let end = at + c.old_size.max(new.len() as u64) as usize;
            if let Some(dst) = out.get_mut(at..end) {
                dst.fill(0);
                if let Some(d) = dst.get_mut(..new.len()) {
                    d.copy_from_slice(&new);
                }
            }
        }
        out
    };
    let patches = plan.patches();
    let out = if patches.is_empty() {
        out
    } else {
        crate::table::patched(&out, 0, &patches)
    };
    validate(plan, data, &out)?;
    Ok(out)
}

/// The bytes of `content`, input ranges read from `data`.
fn materialize(content: &Content, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(content.len() as usize);
    for p in &content.parts {
        match p {
            Part::Bytes(b) => out.extend_from_slice(b),
            Part::Input { offset, len } => out.extend_from_slice(
                usize::try_from(*offset)
                    .ok()
                    .zip(usize::try_from(*len).ok())
                    .and_then(|(o, n)| data.get(o..o.checked_add(n)?))
                    .unwrap_or_default(),
            ),
            Part::Zeros(n) => out.resize(out.len() + *n as usize, 0),
        }
    }
    out
}

/// The relocatable object `data` with each changed bundle section's new contents. A section
/// that grows (its one bundle outgrew it) is moved to the end of the file,
/// its section header's offset and size patched, its old bytes zeroed: in an object nothing
/// points at a file offset, and symbols and relocations point at the bundle at the section's
/// start, which stays there. (`object::build` cannot be used: it refuses the
/// `SHT_LLVM_ADDRSIG` section clang puts in every object.)
fn resize_object(plan: &Plan, data: &[u8]) -> Result<Vec<u8>> {
    let fail = |message: String| Error::Unusable {
        input: plan.input.clone(),
        message,
    };
    let elf = Elf::parse(data).map_err(|source| Error::elf(&plan.input, source))?;
    let mut ed = Editor::new(&elf);
    // A section's new place and size (the plan's indices are the file's own).
    let set = |ed: &mut Editor<'_>, index: usize, offset: u64, size: u64| {
        if let Some(s) = ed.section_mut(index) {
            s.sh_offset = offset;
            s.sh_size = size;
        }
    };
    for b in &plan.binaries {
        let index = b.index;
        let start = b.offset as usize;
        if let Some(dst) = ed.bytes_mut().get_mut(start..start + b.old_size as usize) {
            dst.fill(0);
            if let Some(d) = dst.get_mut(..b.bytes.len()) {
                d.copy_from_slice(&b.bytes);
            }
        }
        set(&mut ed, index, b.offset, b.bytes.len() as u64);
    }
    for (ri, r) in plan.regions.iter().enumerate() {
        let changes: Vec<_> = plan.changes.iter().filter(|c| c.region == ri).collect();
        if changes.iter().all(|c| c.bytes.is_none()) {
            continue;
        }
        let start = r.offset as usize;
        let end = (r.offset + r.size) as usize;
        let mut bytes = ed.bytes().get(start..end).unwrap_or_default().to_vec();
        let alone = plan.changes.iter().filter(|c| c.region == ri).count() == 1;
        let mut grows = false;
        for c in changes {
            let Some(content) = &c.bytes else { continue };
            let at = (c.offset - r.offset) as usize;
            let new = materialize(content, data);
            if alone {
                // Alone in its section: the section ends with it.
                grows = new.len() as u64 > c.slot;
                bytes.truncate(at);
                bytes.extend_from_slice(&new);
            } else {
                let stop = at + c.old_size.max(new.len() as u64) as usize;
                if let Some(dst) = bytes.get_mut(at..stop) {
                    dst.fill(0);
                    if let Some(d) = dst.get_mut(..new.len()) {
                        d.copy_from_slice(&new);
                    }
                }
            }
        }
        if !grows {
            if let Some(dst) = ed.bytes_mut().get_mut(start..end) {
                dst.fill(0);
                if let Some(d) = dst.get_mut(..bytes.len()) {
                    d.copy_from_slice(&bytes);
                }
            }
        }
        let SectionRef { index, align } = r
            .section
            .ok_or_else(|| fail(format!("no section header for `{}`", r.name)))?;
        if !grows {
            set(&mut ed, index, r.offset, bytes.len() as u64);
            continue;
        }
        if let Some(old) = ed.bytes_mut().get_mut(start..end) {
            old.fill(0);
        }
        let align = align.clamp(1, 1 << 16) as usize;
        let at = ed.append(&bytes, align as u64);
        set(&mut ed, index, at, bytes.len() as u64);
    }
    ed.write_in_place()
        .map_err(|source| Error::elf(&plan.input, source))
}

/// Writes the parts of `content` (input ranges copied from `src`, zeros seeked over when long).
fn write_content(f: &mut File, src: &File, content: &Content) -> io::Result<()> {
    for p in &content.parts {
        match p {
            Part::Bytes(b) => f.write_all(b)?,
            Part::Input { offset, len } => copy(src, f, *offset, *len)?,
            Part::Zeros(n) => write_zeros(f, *n)?,
        }
    }
    Ok(())
}

/// Copies `len` bytes at `offset` of `src` to the current position of `dst`.
fn copy(src: &File, dst: &mut File, offset: u64, len: u64) -> io::Result<()> {
    let mut from = src;
    from.seek(SeekFrom::Start(offset))?;
    let n = io::copy(&mut io::Read::take(from, len), dst)?;
    if n != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the input ended after {n} of {len} bytes"),
        ));
    }
    Ok(())
}

fn write_zeros(f: &mut File, mut n: u64) -> io::Result<()> {
    const ZEROS: [u8; 4096] = [0; 4096];
    while n > 0 {
        let k = n.min(ZEROS.len() as u64) as usize;
        f.write_all(&ZEROS[..k])?;
        n -= k as u64;
    }
    Ok(())
}

/// Checks the rewrite `after` of `before` against `plan`: a file rewritten in place has the
/// same size and the same ELF header, program headers and section headers; each region holds
/// the same number of bundles, each at its old offset with its new size, and every bundle
/// parses (a compressed one is decompressed, its size and hash checked, and the bundle inside
/// parsed); a pruned bundle holds exactly the entries kept.
pub fn validate(plan: &Plan, before: &[u8], after: &[u8]) -> Result<()> {
    validate_releasing(plan, before, after, &|| {})
}

/// [`validate`], calling `release` after every few bundles read (to let go of the pages of a
/// mapped `after`).
fn validate_releasing(plan: &Plan, before: &[u8], after: &[u8], release: &dyn Fn()) -> Result<()> {
    let bad = |message: String| Error::Validation {
        input: plan.input.clone(),
        message,
    };
    if !plan.whole && !plan.resized {
        if after.len() != before.len() {
            return Err(bad(format!(
                "its size is {} bytes, not {}",
                after.len(),
                before.len()
            )));
        }
        // Borrowed, not cloned: a fat binary's patch may be tens of MiB.
        let patches = plan.patches();
        for (what, range) in header_ranges(before) {
            let expected = before
                .get(range.clone())
                .map(|b| crate::table::patched(b, range.start as u64, &patches));
            if expected.as_deref() != after.get(range.clone()) {
                return Err(bad(format!("its {what} changed")));
            }
        }
    }
    let reread = |e| Error::reread(&plan.input, e);
    let regions_after = if plan.resized {
        crate::plan::regions(after, &plan.input)?
    } else {
        plan.regions.clone()
    };
    let names = |rs: &[crate::plan::Region]| rs.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
    if names(&regions_after) != names(&plan.regions) {
        return Err(bad("its bundle sections changed".into()));
    }
    for b in &plan.binaries {
        let mut sec = None;
        for s in sections(after, 0) {
            let s = s.map_err(reread)?;
            if s.index == b.index && s.offset == b.offset {
                sec = Some(s);
            }
        }
        let sec = sec.ok_or_else(|| bad(format!("`{}` went missing", b.name)))?;
        let mut ids = Vec::new();
        for bin in offkit_format::binary::parse_all(sec.data, b.offset) {
            let bin = bin.map_err(reread)?;
            ids.extend(crate::edit::image_names(&bin));
        }
        if ids != b.kept {
            return Err(bad(format!("`{}` holds {ids:?}, not {:?}", b.name, b.kept)));
        }
    }
    if let Some(t) = &plan.tables {
        validate_tables(t, after, &plan.input)?;
    }
    crate::cuda::validate(&plan.fatbins, after, &plan.input)?;
    let mut found = Vec::new();
    if plan.whole || plan.resized {
        // Small files: every region walked again as a sequence.
        for (ri, r) in regions_after.iter().enumerate() {
            let bytes = if plan.whole {
                after
            } else {
                after
                    .get(r.offset as usize..(r.offset + r.size) as usize)
                    .unwrap_or_default()
            };
            for p in sequence::sequence(bytes, r.offset) {
                let p = p.map_err(reread)?;
                found.push((p.offset - r.offset, ri, p));
            }
        }
    } else {
        // Nothing moved: each bundle is read where it must be, exactly its new size (the zero
        // runs between bundles, holes in the file, are not read back).
        for c in &plan.changes {
            let r = plan.regions.get(c.region).map_or(0, |r| r.offset);
            let bytes = usize::try_from(c.offset)
                .ok()
                .zip(usize::try_from(c.new_size()).ok())
                .and_then(|(o, n)| after.get(o..o.checked_add(n)?))
                .ok_or_else(|| {
                    bad(format!(
                        "bundle {} at {:#x} is cut short",
                        c.index, c.offset
                    ))
                })?;
            let p = sequence::sequence(bytes, c.offset)
                .next()
                .ok_or_else(|| bad(format!("no bundle at {:#x}", c.offset)))?
                .map_err(reread)?;
            found.push((p.offset - r, c.region, p));
        }
    }
    if found.len() != plan.changes.len() {
        return Err(bad(format!(
            "it holds {} bundles, not {}",
            found.len(),
            plan.changes.len()
        )));
    }
    let pairs: Vec<_> = found.iter().zip(&plan.changes).collect();
    let chunk = 4 * std::thread::available_parallelism().map_or(1, |n| n.get());
    for pairs in pairs.chunks(chunk) {
        check_bundles(plan, pairs)?;
        release();
    }
    Ok(())
}

/// One bundle found again by [`validate`]: its offset in its region, its region, the bundle.
type Found<'a> = (u64, usize, sequence::Piece<'a>);

/// Checks the bundles found again against their changes (on all cores).
fn check_bundles(plan: &Plan, pairs: &[(&Found<'_>, &Change)]) -> Result<()> {
    let bad = |message: String| Error::validation(&plan.input, message);
    let results = par_map(
        pairs,
        0,
        |((rel, ri, p), c)| -> Result<()> {
            let was = c.offset - plan.regions.get(c.region).map_or(0, |r| r.offset);
            if *ri != c.region || *rel != was || p.data.len() as u64 != c.new_size() {
                return Err(bad(format!(
                    "bundle {} is at {:#x} with {} bytes, not at {:#x} with {}",
                    c.index,
                    p.offset,
                    p.data.len(),
                    c.offset,
                    c.new_size()
                )));
            }
            // What was made in memory (a compressed bundle, above all) must be what is there.
            if let Some(Content { parts }) = &c.bytes {
                if let [Part::Bytes(b)] = &parts[..] {
                    if p.data != &b[..] {
                        return Err(bad(format!(
                            "bundle {} at {:#x} is not the bytes written",
                            c.index, c.offset
                        )));
                    }
                }
            }
            // The bundle's header must parse, its payloads lie inside it; of a compressed
            // bundle only the prefix that holds the header is inflated (its stream and hash
            // were checked when it was made, or it is the input's, unchanged).
            let inflated;
            let (plain, size) = match &p.kind {
                Kind::Plain(_) => (p.data, p.data.len() as u64),
                Kind::Compressed(blob) => {
                    inflated = crate::edit::inflated_header(blob, p.offset)
                        .map_err(|e| Error::reread(&plan.input, e))?;
                    (&inflated[..], blob.header.uncompressed_size)
                }
            };
            let h =
                binary::parse(plain, size, p.offset).map_err(|e| Error::reread(&plan.input, e))?;
            if !c.removed.is_empty() {
                let ids: Vec<String> = h.entries.iter().map(|e| e.id_str().into_owned()).collect();
                if ids != c.kept {
                    return Err(bad(format!(
                        "bundle {} holds {ids:?}, not {:?}",
                        c.index, c.kept
                    )));
                }
            }
            Ok(())
        },
        || Err(bad("a worker thread failed".into())),
    );
    results.into_iter().collect()
}

/// Checks the image tables of a pruned linked file: `.llvm.offloading` holds exactly the
/// binaries kept, every table registers only kept images, and as many as it should.
fn validate_tables(t: &crate::table::ImageTables, after: &[u8], input: &str) -> Result<()> {
    let bad = |message: String| Error::validation(input, message);
    let bytes = usize::try_from(t.offset)
        .ok()
        .zip(usize::try_from(t.new_size).ok())
        .and_then(|(o, n)| after.get(o..o.checked_add(n)?))
        .ok_or_else(|| bad("`.llvm.offloading` is cut short".into()))?;
    let mut ids = Vec::new();
    for b in offkit_format::binary::parse_all(bytes, t.offset) {
        let b = b.map_err(|e| Error::reread(input, e))?;
        ids.extend(crate::edit::image_names(&b));
    }
    if ids != t.kept {
        return Err(bad(format!(
            "`.llvm.offloading` holds {ids:?}, not {:?}",
            t.kept
        )));
    }
    let tables = crate::table::registered(after).map_err(|e| Error::reread(input, e))?;
    // A table left with no image is not found again (found by fuzzing: of two tables, one
    // pruned empty); every other is (the plan refuses rewrites that would change what the
    // search reads).
    if tables.len() != t.registering {
        return Err(bad(format!(
            "{} image tables found, not {}",
            tables.len(),
            t.registering
        )));
    }
    for id in tables.iter().flatten() {
        if !t.kept.contains(id) {
            return Err(bad(format!("an image table still registers {id}")));
        }
    }
    Ok(())
}

/// The ranges of an ELF file's header, program header table and section header table.
pub(crate) fn header_ranges(data: &[u8]) -> Vec<(&'static str, std::ops::Range<usize>)> {
    use object::read::elf::FileHeader;
    fn of<H: FileHeader>(data: &[u8]) -> Option<Vec<(&'static str, std::ops::Range<usize>)>> {
        let h = H::parse(data).ok()?;
        let e = h.endian().ok()?;
        let ph: u64 = h.e_phoff(e).into();
        let sh: u64 = h.e_shoff(e).into();
        let phn = h.e_phentsize(e) as usize * h.e_phnum(e) as usize;
        let shn = h.e_shentsize(e) as usize * h.e_shnum(e) as usize;
        Some(vec![
            // The header's own size, not `e_ehsize`, which may claim anything (found by
            // fuzzing: 16,448 bytes, over a bundle).
            ("ELF header", 0..std::mem::size_of::<H>()),
            ("program headers", ph as usize..ph as usize + phn),
            ("section headers", sh as usize..sh as usize + shn),
        ])
    }
    match object::FileKind::parse(data) {
        Ok(object::FileKind::Elf64) => of::<object::elf::FileHeader64<object::Endianness>>(data),
        Ok(object::FileKind::Elf32) => of::<object::elf::FileHeader32<object::Endianness>>(data),
        _ => None,
    }
    .unwrap_or_default()
}
