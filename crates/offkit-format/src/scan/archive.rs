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
        for member in crate::container::members(&archive, data, base) {
            let m = member?;
            if m.thin {
                let mloc = loc.with(Step::ThinMember(m.name.clone()));
                let name = &m.name;
                let Some(r) = self.resolver.as_deref_mut() else {
                    return Err(Error::ThinMemberUnresolved {
                        member: name.clone(),
                        offset: m.header,
                    }
                    .into());
                };
                let bytes = r
                    .thin_member(loc, name)
                    .map_err(|source| Error::ThinMember {
                        member: name.clone(),
                        offset: m.header,
                        source,
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
