//! `-type=a -unbundle`: heterogeneous archives, as LLVM's `UnbundleArchive` and
//! `CheckHeterogeneousArchive` do them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use offkit_llvm::target_id::bundle::{
    check_archive_member, is_compatible, is_well_formed, BundleEntryId,
};
use offkit_llvm::target_id::Conflict;

use super::unbundle::{binary_or_object_bundles, decompress, section_payload, Bundle};
use super::{commit, handler, read_input, write_error, Config, Event, Events};
use crate::archive;
use crate::io::{Input, Output};
use crate::{Error, Result};

/// `-check-input-archive`: the target-ID conflict check over each member's bundle IDs (the raw
/// member, not decompressed).
fn check(cfg: &Config, path: &Path, data: &[u8]) -> Result<()> {
    for (name, bytes) in archive::llvm19_members(data)? {
        let h = handler("a", bytes)?;
        let bundles = binary_or_object_bundles(h, path, bytes)?;
        let ids: Vec<&[u8]> = bundles.iter().map(|(id, _)| id.as_ref()).collect();
        match check_archive_member(cfg.release.llvm, ids) {
            Conflict::None => {}
            Conflict::Pair(a, b) => {
                return Err(Error::ArchiveConflict {
                    archive: path.to_path_buf(),
                    member: name,
                    first: a.to_vec(),
                    second: b.to_vec(),
                })
            }
            Conflict::Crash(id) => {
                return Err(Error::ArchiveMalformedId {
                    archive: path.to_path_buf(),
                    member: name,
                    id: id.to_vec(),
                })
            }
        }
    }
    Ok(())
}

/// LLVM's name for a code object unbundled from `member` with bundle ID `id`:
/// `stem(member) + "-" + id + stem(member) + ext`, `:` replaced by `_`, where `ext` is `.bc`
/// for a target ID containing `gfx`, `.cubin` for `sm_`, else the member's extension.
fn member_name(member: &str, id: &BundleEntryId<'_>) -> String {
    // `sys::path::filename`, `stem` and `extension` (a leading dot starts the extension).
    let file = member.rsplit('/').next().unwrap_or(member);
    let (stem, ext) = match file.rfind('.') {
        Some(i) if file != "." && file != ".." => file.split_at(i),
        _ => (file, ""),
    };
    let tid = id.target_id();
    let contains = |n: &[u8]| tid.windows(n.len()).any(|w| w == n);
    let ext = if contains(b"gfx") {
        ".bc"
    } else if contains(b"sm_") {
        ".cubin"
    } else {
        ext
    };
    format!("{stem}-{}{stem}{ext}", String::from_utf8_lossy(id.raw())).replace(':', "_")
}

/// Unbundles the archive input into one archive per target (`OffloadBundler::UnbundleArchive`):
/// the compatible code objects of every member, named as LLVM names them; every output
/// appears, or none.
pub fn unbundle_archive(cfg: &Config, events: &mut Events<'_>) -> Result<()> {
    let path = cfg.input();
    let input = read_input(&path)?;
    if cfg.check_input_archive {
        check(cfg, &path, input.bytes())?;
    }
    let llvm = cfg.release.llvm;
    // Each target's output (a repeated target maps to the last output) and members.
    let mut outputs: HashMap<&str, &PathBuf> = HashMap::new();
    for (t, o) in cfg.targets.iter().zip(&cfg.outputs) {
        outputs.insert(t, o);
    }
    let mut collected: HashMap<&str, Vec<(String, Vec<u8>)>> = HashMap::new();
    for (name, bytes) in archive::llvm19_members(input.bytes())? {
        let name = String::from_utf8_lossy(&name).into_owned();
        let member = Input::from_bytes(&name, bytes.to_vec());
        let member = decompress(cfg, member, events)?;
        let data = member.bytes();
        let h = handler("a", data)?;
        for (id, bundle) in binary_or_object_bundles(h, member.path(), data)? {
            // LLVM's loop ends at an empty ID.
            if id.is_empty() {
                break;
            }
            let c = BundleEntryId::parse(llvm, &id);
            if cfg.release.checks_read_ids && !is_well_formed(llvm, &id) {
                return Err(Error::InvalidReadBundleId { id: id.to_vec() });
            }
            let compatible: Vec<&str> = cfg
                .targets
                .iter()
                .filter(|t| {
                    is_compatible(
                        &c,
                        &BundleEntryId::parse(llvm, t.as_bytes()),
                        cfg.hip_openmp,
                    )
                })
                .map(|t| t.as_str())
                .collect();
            if compatible.is_empty() {
                continue;
            }
            let payload = match &bundle {
                Bundle::Binary(e) => e
                    .payload(data)
                    .ok_or_else(|| Error::BundleOutside {
                        path: path.clone(),
                        member: Some(name.clone()),
                        id: e.id.to_vec(),
                        offset: e.offset,
                        size: e.size,
                    })?
                    .to_vec(),
                Bundle::Section(s) => section_payload(cfg, data, s, Some(data), events)?,
            };
            for t in compatible {
                collected
                    .entry(t)
                    .or_default()
                    .push((member_name(&name, &c), payload.clone()));
            }
        }
    }
    // Every output is written before any appears (LLVM leaves those written before a
    // missing target's error; offkit leaves none).
    let mut outs = offkit_tools::fs::Outputs::default();
    for t in &cfg.targets {
        let out: &Path = outputs
            .get(t.as_str())
            .map_or(Path::new(""), |p| p.as_path());
        let bytes = match collected.get(t.as_str()) {
            Some(members) => {
                let refs: Vec<(String, &[u8])> =
                    members.iter().map(|(n, b)| (n.clone(), &b[..])).collect();
                for (n, b) in &refs {
                    if offkit_llvm::bitcode::is_bitcode(b)
                        && offkit_llvm::bitcode::archive_symbols(b, 0).is_err()
                    {
                        events(Event::MalformedBitcode { member: n });
                    }
                }
                archive::write(&refs).map_err(|source| Error::ArchiveWrite { source })?
            }
            None if !cfg.allow_missing => {
                return Err(Error::NoCompatibleCodeObject {
                    target: t.clone(),
                    archive: path,
                })
            }
            None => b"!<arch>\n".to_vec(),
        };
        let mut o = Output::create(out).map_err(write_error(out))?;
        std::io::Write::write_all(&mut o, &bytes).map_err(write_error(out))?;
        outs.push(o);
    }
    commit(outs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use offkit_llvm::LlvmVersion;

    fn p(id: &[u8]) -> BundleEntryId<'_> {
        BundleEntryId::parse(LlvmVersion::V19, id)
    }

    #[test]
    fn names_as_llvm() {
        assert_eq!(
            member_name("k1.o", &p(b"hip-amdgcn-amd-amdhsa--gfx90a")),
            "k1-hip-amdgcn-amd-amdhsa--gfx90ak1.bc"
        );
        assert_eq!(
            member_name("k.o", &p(b"hip-amdgcn-amd-amdhsa--gfx906:xnack+")),
            "k-hip-amdgcn-amd-amdhsa--gfx906_xnack+k.bc"
        );
        assert_eq!(
            member_name("k.o", &p(b"host-x86_64-pc-linux-gnu-")),
            "k-host-x86_64-pc-linux-gnu-k.o"
        );
        assert_eq!(
            member_name("noext", &p(b"openmp-nvptx64-nvidia-cuda--sm_70")),
            "noext-openmp-nvptx64-nvidia-cuda--sm_70noext.cubin"
        );
        // LLVM 22: a host ID has no target ID, so the member keeps its extension either way.
        let host = BundleEntryId::parse(LlvmVersion::V22, b"host-x86_64-pc-linux-gnu-");
        assert_eq!(member_name("k.o", &host), "k-host-x86_64-pc-linux-gnu-k.o");
    }
}
