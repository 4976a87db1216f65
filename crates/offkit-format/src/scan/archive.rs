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
        // Where the next member header is, for errors (the object crate's do not say).
        let mut next = 8u64;
        for member in archive.members() {
            let member = member.map_err(err(base + next))?;
            let (off, size) = member.file_range();
            let name = String::from_utf8_lossy(member.name()).into_owned();
            if member.is_thin() {
                let mloc = loc.with(Step::ThinMember(name.clone()));
                let bytes = match self.resolver.as_deref_mut() {
                    Some(r) => r.thin_member(loc, &name),
                    None => Err("no resolver for thin archive members was given".into()),
                }
                .map_err(|reason| Error::Invalid {
                    what: "thin archive member",
                    offset: base + next,
                    reason: format!("cannot read `{name}`: {reason}"),
                })?;
                let bytes: &[u8] = (*bytes).as_ref();
                self.node(bytes, 0, &mloc, depth + 1, Pos::Host)?;
                // The member's header is followed by no data in a thin archive.
                next = off;
            } else {
                let mloc = loc.with(Step::Member(name));
                let bytes = member.data(data).map_err(|source| {
                    mloc.wrap(Error::Object {
                        what: "archive member",
                        offset: base + off,
                        source,
                    })
                })?;
                self.node(bytes, base + off, &mloc, depth + 1, Pos::Host)?;
                next = off + size + (size & 1);
            }
        }
        Ok(())
    }
}
