//! `cargo xtask kernels`: regenerates docs/kernels/gfx1100.md and gfx1030.md, the summaries of
//! every kernel as Mesa's RADV compiles it for RDNA3 and RDNA2 on null hardware (`gpubench
//! kernels --isa FAMILY --summary FILE`). The gpubench-cli test `kernels_isa` fails when they
//! no longer match what this tree's kernels compile to.

use std::process::{Command, Stdio};

/// The families docs/kernels keeps, by their LLVM target name.
const FAMILIES: &[&str] = &["gfx1100", "gfx1030"];

/// Writes each family's summary over its file in docs/kernels.
pub fn regenerate() -> Result<(), String> {
    for family in FAMILIES {
        let file = format!("docs/kernels/{family}.md");
        let args = [
            "run",
            "--quiet",
            "-p",
            "gpubench-cli",
            "--",
            "kernels",
            "--isa",
            family,
            "--summary",
            &file,
        ];
        eprintln!("$ cargo {}", args.join(" "));
        // The table on stdout is the summary again: only the file is wanted.
        let status = Command::new(env!("CARGO"))
            .args(args)
            .current_dir(crate::workspace_root())
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("could not start cargo: {e}"))?;
        if !status.success() {
            return Err(format!("`cargo {}` failed ({status})", args.join(" ")));
        }
    }
    Ok(())
}
