//! `offkit man DIR`: the man pages (`offkit.1` and one `offkit-<command>.1` per subcommand),
//! generated from the same clap definitions as the commands themselves (clap_mangen).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::CommandFactory;

use offkit_tools::Env;

/// Write the man pages into a directory.
///
/// DIR gets offkit.1 and offkit-COMMAND.1 for every command (created if missing; pages of
/// those names are replaced). Point MANPATH at DIR's parent when DIR is a `man1` directory.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  offkit man ~/.local/share/man/man1 && man offkit-inspect")]
pub struct Args {
    /// The directory to write the pages in.
    dir: PathBuf,
}

/// Runs `offkit man`.
pub fn run(args: Args, _env: &Env) -> Result<()> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("failed to create `{}`", args.dir.display()))?;
    let cmd = crate::Cli::command();
    let mut out = std::io::stdout().lock();
    for (name, page) in pages(cmd)? {
        let path = args.dir.join(format!("{name}.1"));
        offkit_tools::fs::write_file(&path, &page)
            .with_context(|| format!("failed to write `{}`", path.display()))?;
        writeln!(out, "{}", path.display())?;
    }
    Ok(())
}

/// Every page: the top command's and each subcommand's (`offkit-inspect`), rendered.
fn pages(cmd: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    let cmd = cmd.disable_help_subcommand(true);
    let mut out = vec![(cmd.get_name().to_string(), render(cmd.clone())?)];
    for sub in cmd.get_subcommands() {
        let name = format!("{}-{}", cmd.get_name(), sub.get_name());
        // The page's title and synopsis name the command as a user types it.
        let sub = sub
            .clone()
            .name(name.clone())
            .bin_name(format!("{} {}", cmd.get_name(), sub.get_name()))
            .version(cmd.get_version().unwrap_or_default().to_string());
        out.push((name, render(sub)?));
    }
    Ok(out)
}

fn render(cmd: clap::Command) -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .context("failed to render a man page")?;
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_per_command() {
        let cmd = crate::Cli::command();
        let subs = cmd.get_subcommands().count();
        let pages = pages(cmd).unwrap();
        assert_eq!(pages.len(), subs + 1);
        let (name, inspect) = pages.iter().find(|(n, _)| n == "offkit-inspect").unwrap();
        let text = String::from_utf8_lossy(inspect);
        assert!(text.starts_with(".ie \\n(.g .ds Aq"), "{name}: {text}");
        assert!(text.contains(".TH offkit-inspect 1"), "{text}");
        assert!(text.contains("offkit inspect"), "{text}");
    }
}
