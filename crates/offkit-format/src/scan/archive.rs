//! The archive part of the walk: GNU, BSD and thin static archives, member by member.

use object::read::archive::{ArchiveFile, ArchiveKind};

use super::{Container, Event, Format, Location, Pos, Step, Step_, Walker};
use crate::error::Error;

impl<E> Walker<'_, '_, E> {
    pub(super) fn archive(
        &mut self,
        data: &[u8],
        base: u64,
        loc: &Location,
        depth: usize,
    ) -> Step_<E> {
        let err = |offset| {
            move |source| Error::Object {
                what: "archive",
                offset,
                source,
            }
        };
        let archive = ArchiveFile::parse(data).map_err(err(base))?;
        let kind = match archive.kind() {
            _ if archive.is_thin() => "thin",
            ArchiveKind::Gnu | ArchiveKind::Gnu64 => "gnu",
            ArchiveKind::Bsd | ArchiveKind::Bsd64 => "bsd",
            ArchiveKind::Coff => "coff",
            ArchiveKind::AixBig => "aix",
            _ => "unknown",
        };
        self.emit(Event::Container(&Container {
            location: loc.clone(),
            format: Format::Archive { kind },
            offset: base,
            size: data.len() as u64,
        }))?;
        for member in members(&archive, data, base) {
            let m = member?;
            if m.thin {
                let mloc = loc.with(Step::ThinMember(m.name.clone()));
                let name = &m.name;
                let bytes = match self.resolver.as_deref_mut() {
                    Some(r) => r.thin_member(loc, name),
                    None => Err(std::io::Error::other(
                        "no resolver for thin archive members was given",
                    )),
                }
                .map_err(|reason| Error::Invalid {
                    what: "thin archive member",
                    offset: m.header,
                    reason: format!("cannot read `{name}`: {reason}"),
                })?;
                let bytes: &[u8] = (*bytes).as_ref();
                self.node(bytes, 0, &mloc, depth + 1, Pos::Host)?;
            } else {
                let mloc = loc.with(Step::Member(m.name));
                let bytes = m.data.map_err(|e| mloc.wrap(e))?;
                self.node(bytes, m.offset, &mloc, depth + 1, Pos::Host)?;
            }
        }
        Ok(())
    }
}

/// One member of a static archive, as the walk and the flat list of offload binaries read it.
pub(super) struct Member<'d> {
    /// Its name as the archive stores it.
    pub name: String,
    /// Whether it is a thin archive's member: its bytes are in the file `name`.
    pub thin: bool,
    /// The absolute offset of its header.
    pub header: u64,
    /// The absolute offset of its data.
    pub offset: u64,
    /// Its bytes (empty for a thin member), or why they cannot be read.
    pub data: Result<&'d [u8], Error>,
}

/// The members of `archive` (the bytes `data`, at absolute offset `base`), in order; an
/// unreadable member header is an error naming its offset (the `object` crate's errors do
/// not say where).
pub(super) fn members<'a, 'd: 'a>(
    archive: &'a ArchiveFile<'d>,
    data: &'d [u8],
    base: u64,
) -> impl Iterator<Item = Result<Member<'d>, Error>> + 'a {
    // Where the next member header is.
    let mut next = 8u64;
    archive.members().map(move |member| {
        let header = base + next;
        let member = member.map_err(|source| Error::Object {
            what: "archive",
            offset: header,
            source,
        })?;
        let (off, size) = member.file_range();
        let name = String::from_utf8_lossy(member.name()).into_owned();
        let thin = member.is_thin();
        let bytes = if thin {
            // The member's header is followed by no data in a thin archive.
            next = off;
            Ok(&[][..])
        } else {
            next = off + size + (size & 1);
            member.data(data).map_err(|source| Error::Object {
                what: "archive member",
                offset: base + off,
                source,
            })
        };
        Ok(Member {
            name,
            thin,
            header,
            offset: base + off,
            data: bytes,
        })
    })
}
