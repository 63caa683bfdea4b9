//! `cargo xtask kernels`: regenerates docs/kernels/gfx1100.md and gfx1030.md, the summaries of
//! every kernel as Mesa's RADV (Debian 12's, 22.3) compiles it for RDNA3 and RDNA2 on null
//! hardware (`gpubench kernels --isa FAMILY --summary FILE`), and navi31.md, RDNA3 as Mesa
//! 25.0.7's RADV compiles it (unpacked by [`crate::radv25`]), cooperative-matrix kernels
//! included. The gpubench-cli test `kernels_isa` fails when they no longer match what this
//! tree's kernels compile to (navi31 under `cargo xtask radv25`).

use std::process::{Command, Stdio};

/// The families docs/kernels keeps, by the name `--isa` takes, and whether Mesa 25's RADV
/// compiles them (else the system's).
const FAMILIES: &[(&str, bool)] = &[("gfx1100", false), ("gfx1030", false), ("navi31", true)];

/// Writes each family's summary over its file in docs/kernels.
pub fn regenerate() -> Result<(), String> {
    for &(family, mesa25) in FAMILIES {
        let env = if mesa25 {
            crate::radv25::environment(&crate::radv25::icd()?)
        } else {
            Vec::new()
        };
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
        let mut command = Command::new(env!("CARGO"));
        if !mesa25 {
            // The system's RADV, whatever the caller's environment names.
            command.env_remove(crate::radv25::OVERRIDE);
        }
        let status = command
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
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
