//! The members of static archives (GNU, BSD, thin, AIX big), one by one, with the absolute
//! offsets `object`'s own errors do not give.

use object::read::archive::ArchiveFile;

use crate::error::Error;

/// One member of a static archive, as the container walk and the flat list of offload binaries
/// read it.
#[derive(Debug)]
pub struct Member<'d> {
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
pub fn members<'a, 'd: 'a>(
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
