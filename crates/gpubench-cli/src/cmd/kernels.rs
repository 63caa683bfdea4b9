//! `gpubench kernels --isa FAMILY`: every pipeline the suites can build (and every candidate the
//! matmul tuner would consider on that GPU), compiled by Mesa's RADV for a real AMD GPU on
//! null hardware, with the compiler's own statistics: registers, spills, LDS, scratch,
//! occupancy (subgroups per SIMD), instructions. `--device NAME` uses any Vulkan device that
//! reports pipeline statistics instead. Nothing is run: these are compiler outputs.
//!
//! `--json FILE` writes every row in full; `--summary FILE` a Markdown page a person reads (the
//! compiler, then one table row per pipeline), the form docs/kernels keeps.

use anyhow::Context as _;
use gpubench_harness::kit::facts::{AdapterFacts, CoopMatrices};
use gpubench_harness::kit::forms::{KernelForm, TunerRole};
use gpubench_isa::radv::{known_families, null_hardware_environment, radv_family};
use gpubench_isa::{Compiler, DeviceFacts, PipelineSource, PipelineStatistics};
use gpubench_report::grid::Grid;
use gpubench_results::Profile;
use gpubench_results::results_file::write_atomic;
use gpubench_suites::REGISTRY;
use serde::Serialize;

use crate::cli::KernelsArgs;
use crate::exit::Exit;
use crate::paths::Files;
use crate::stdout::print_then;

/// The occupancy a register prune is held to: a candidate pruned "for registers" must spill, or
/// reach no more than this many waves per SIMD (a quarter of the 32 RADV reports at most, the
/// share the register budgets are meant to keep).
const PRUNED_WAVES: f64 = 8.0;

/// One pipeline's row: its name, suite and tuner role, and the compiler's figures.
#[derive(Debug, Serialize)]
struct KernelRow {
    /// The pipeline's name (result id's kernel part, or matmul precision and variant).
    pipeline: String,
    /// The suite that builds it.
    suite: &'static str,
    /// `fixed` (always built), `kept` (a tuning candidate) or `pruned` (left out by the rule).
    tuner: &'static str,
    /// Why the tuner's rule prunes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pruned_because: Option<String>,
    /// The tuner's estimate of the registers an invocation holds (matmul candidates).
    #[serde(skip_serializing_if = "Option::is_none")]
    estimated_registers: Option<u32>,
    /// Vector registers per invocation (lane).
    vgprs: Option<f64>,
    /// Scalar registers per wave.
    sgprs: Option<f64>,
    /// Vector registers spilled to memory.
    spilled_vgprs: Option<f64>,
    /// Scalar registers spilled.
    spilled_sgprs: Option<f64>,
    /// Workgroup (LDS) memory, bytes.
    lds_bytes: Option<f64>,
    /// Scratch (private spill) memory per lane, bytes.
    scratch_bytes: Option<f64>,
    /// Waves the compiler says fit on one SIMD: the occupancy.
    subgroups_per_simd: Option<f64>,
    /// Instructions in the program.
    instructions: Option<f64>,
    /// Code size, bytes.
    code_bytes: Option<f64>,
}

impl KernelRow {
    fn new(form: &KernelForm, stats: &PipelineStatistics) -> Self {
        Self {
            pipeline: form.pipeline.clone(),
            suite: form.suite,
            tuner: form.tuner.name(),
            pruned_because: match &form.tuner {
                TunerRole::Pruned(reason) => Some(reason.clone()),
                _ => None,
            },
            estimated_registers: form.estimated_registers,
            vgprs: stats.get("VGPRs"),
            sgprs: stats.get("SGPRs"),
            spilled_vgprs: stats.get("Spilled VGPRs"),
            spilled_sgprs: stats.get("Spilled SGPRs"),
            lds_bytes: stats.get("LDS size"),
            scratch_bytes: stats.get("Scratch size"),
            subgroups_per_simd: stats.get("Subgroups per SIMD"),
            instructions: stats.get("Instructions"),
            code_bytes: stats.get("Code size"),
        }
    }
}

/// The tuner's facts for a device, as wgpu's Vulkan backend would report them for it: its
/// square cooperative-matrix configurations of f16 and f32 included.
fn tuner_facts(facts: &DeviceFacts) -> AdapterFacts {
    let coop = CoopMatrices::from_named(facts.named_matrices());
    AdapterFacts {
        cpu: facts.cpu,
        vendor: facts.vendor,
        coop,
        ..AdapterFacts::vulkan_gpu(
            facts.max_subgroup_size.max(1),
            facts.max_invocations,
            facts.max_workgroup_bytes,
        )
    }
}

pub fn run(args: &KernelsArgs) -> anyhow::Result<Exit> {
    // A bad --json or --summary name is said now, not after every kernel has been compiled.
    let mut files = Files::new();
    if let Some(path) = &args.json {
        files.output("--json", path)?;
    }
    if let Some(path) = &args.summary {
        files.output("--summary", path)?;
    }
    let wanted = compiler_wanted(args)?;
    let compiler = Compiler::open(&wanted)?;
    let facts = compiler.facts().clone();
    note!(
        "compiler: {} ({}), subgroups {}-{}, {} invocations and {} bytes of workgroup memory at most; nothing is run",
        facts.name,
        facts.driver.trim(),
        facts.subgroup_size,
        facts.max_subgroup_size,
        facts.max_invocations,
        facts.max_workgroup_bytes
    );
    let rows = compile_every_pipeline(&compiler, &facts)?;
    if let Some(path) = &args.json {
        let mut text = serde_json::to_string_pretty(&rows)?;
        text.push('\n');
        write_atomic(path, text.as_bytes())?;
        note!("{} pipelines written to {}", rows.len(), path.display());
    }
    if let Some(path) = &args.summary {
        let how = match &args.isa {
            Some(family) => format!("--isa {family}"),
            None => "--device NAME".to_string(),
        };
        let text = summary(&facts, &how, &rows);
        write_atomic(path, text.as_bytes())?;
        note!("{} pipelines summarised in {}", rows.len(), path.display());
    }
    print_then(&table(&rows), Exit::Success)
}

/// The Vulkan device to compile with: RADV forced to `--isa`'s family (set up here, before
/// anything loads Vulkan), or the `--device` name.
fn compiler_wanted(args: &KernelsArgs) -> anyhow::Result<String> {
    Ok(match (&args.isa, &args.device) {
        (Some(family), _) => {
            if radv_family(family).is_none() {
                return Err(crate::exit::UsageError(format!(
                    "--isa: unknown AMD family '{family}'; known: {}",
                    known_families()
                ))
                .into());
            }
            let env = null_hardware_environment(family)?;
            // SAFETY: set before anything loads Vulkan, while this command has one thread;
            // RADV reads the family when the instance enumerates its devices.
            unsafe {
                for (key, value) in env.set {
                    std::env::set_var(key, value);
                }
                std::env::remove_var(env.remove);
            }
            "RADV".to_string()
        }
        // clap requires one of the two.
        (None, device) => device.clone().unwrap_or_default(),
    })
}

/// Every pipeline every suite declares, compiled, with the compiler's statistics.
fn compile_every_pipeline(
    compiler: &Compiler,
    facts: &DeviceFacts,
) -> anyhow::Result<Vec<KernelRow>> {
    let forms = REGISTRY
        .pipelines(tuner_facts(facts), Profile::Default)
        .map_err(anyhow::Error::msg)?;
    let mut rows = Vec::with_capacity(forms.len());
    for form in &forms {
        let pipeline = PipelineSource {
            name: &form.pipeline,
            wgsl: &form.shader.source,
            entry: &form.shader.entry,
            constants: &form.shader.constants,
            zero_init: form.zero_init_workgroup,
        };
        let stats = compiler
            .statistics(&pipeline)
            .with_context(|| format!("compiling {}", form.pipeline))?;
        rows.push(KernelRow::new(form, &stats));
    }
    Ok(rows)
}

/// A figure as the tables show it: `-` where the compiler reports none.
fn figure(v: Option<f64>) -> String {
    v.map_or("-".to_string(), |v| format!("{v}"))
}

/// The Markdown summary: a heading naming the compiler, the tuner's line from the table, then
/// one row per pipeline. `how` is the option that chose the compiler (`--isa gfx1100`).
fn summary(facts: &DeviceFacts, how: &str, rows: &[KernelRow]) -> String {
    let mut out = format!(
        "# Kernel statistics: {}, {}\n\n\
         Written by `gpubench kernels {how} --summary FILE`: every pipeline the suites build and \
         every matmul tuning candidate, with the compiler's statistics (not measurements; \
         `--json FILE` has the full rows). Subgroups {}-{}, {} invocations and {} bytes of \
         workgroup memory at most.\n\n\
         {}.\n\n\
         | pipeline | suite | tuner | VGPRs | SGPRs | spilled VGPRs | spilled SGPRs | LDS bytes | scratch bytes | subgroups/SIMD | instructions |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        facts.name,
        facts.driver.trim(),
        facts.subgroup_size,
        facts.max_subgroup_size,
        facts.max_invocations,
        facts.max_workgroup_bytes,
        tuner_line(rows),
    );
    for r in rows {
        let cells = [
            r.pipeline.replace('|', "\\|"),
            r.suite.to_string(),
            r.tuner.to_string(),
            figure(r.vgprs),
            figure(r.sgprs),
            figure(r.spilled_vgprs),
            figure(r.spilled_sgprs),
            figure(r.lds_bytes),
            figure(r.scratch_bytes),
            figure(r.subgroups_per_simd),
            figure(r.instructions),
        ];
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

fn table(rows: &[KernelRow]) -> String {
    let mut grid = Grid::new(&[
        "pipeline",
        "tuner",
        "VGPRs",
        "SGPRs",
        "spilled",
        "LDS",
        "scratch",
        "waves/SIMD",
        "instr",
    ])
    .numeric(&[2, 3, 4, 5, 6, 7, 8]);
    for r in rows {
        let spilled = match (r.spilled_vgprs, r.spilled_sgprs) {
            (Some(v), Some(s)) => format!("{v}/{s}"),
            _ => "-".to_string(),
        };
        grid.push(vec![
            r.pipeline.clone(),
            r.tuner.to_string(),
            figure(r.vgprs),
            figure(r.sgprs),
            spilled,
            figure(r.lds_bytes),
            figure(r.scratch_bytes),
            figure(r.subgroups_per_simd),
            figure(r.instructions),
        ]);
    }
    format!(
        "{}\n{}\nspilled: VGPRs/SGPRs spilled to memory; LDS and scratch in bytes; waves/SIMD: the occupancy the compiler reports. Compiler statistics, not measurements.\n",
        grid.to_table(None),
        tuner_line(rows)
    )
}

/// The tuner held to the compiler: how many kept candidates spill, and how many of those
/// pruned for registers neither spill nor lose occupancy.
fn tuner_line(rows: &[KernelRow]) -> String {
    let spills = |r: &&KernelRow| {
        r.spilled_vgprs.unwrap_or(0.0) + r.spilled_sgprs.unwrap_or(0.0) > 0.0
            || r.scratch_bytes.unwrap_or(0.0) > 0.0
    };
    let kept_spilling = rows
        .iter()
        .filter(|r| r.tuner == "kept")
        .filter(spills)
        .count();
    let for_registers: Vec<&KernelRow> = rows
        .iter()
        .filter(|r| r.estimated_registers.is_some())
        .filter(|r| {
            r.pruned_because
                .as_deref()
                .is_some_and(|w| w.contains("registers"))
        })
        .collect();
    let pruned_fine = for_registers
        .iter()
        .filter(|r| !spills(r) && r.subgroups_per_simd.unwrap_or(0.0) > PRUNED_WAVES)
        .count();
    format!(
        "tuner against the compiler: {kept_spilling} kept candidate(s) spill; {pruned_fine} of {} pruned for registers neither spill nor fall to {PRUNED_WAVES} waves/SIMD or fewer",
        for_registers.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_the_compiler_and_has_a_row_per_pipeline() {
        let facts = DeviceFacts {
            name: "Null hardware (RADV GFX1100)".to_string(),
            driver: "radv Mesa 22.3.6 ".to_string(),
            subgroup_size: 64,
            max_subgroup_size: 64,
            max_invocations: 1024,
            max_workgroup_bytes: 65536,
            cpu: false,
            vendor: 0x1002,
            cooperative_matrices: Vec::new(),
        };
        let row = |pipeline: &str, vgprs: Option<f64>| KernelRow {
            pipeline: pipeline.to_string(),
            suite: "stream",
            tuner: "fixed",
            pruned_because: None,
            estimated_registers: None,
            vgprs,
            sgprs: Some(128.0),
            spilled_vgprs: Some(0.0),
            spilled_sgprs: Some(0.0),
            lds_bytes: Some(0.0),
            scratch_bytes: Some(0.0),
            subgroups_per_simd: Some(32.0),
            instructions: Some(27.0),
            code_bytes: Some(144.0),
        };
        let text = summary(
            &facts,
            "--isa gfx1100",
            &[row("stream/copy", Some(12.0)), row("odd|name", None)],
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "# Kernel statistics: Null hardware (RADV GFX1100), radv Mesa 22.3.6"
        );
        assert!(text.contains("`gpubench kernels --isa gfx1100 --summary FILE`"));
        assert!(text.contains("0 kept candidate(s) spill"));
        assert_eq!(
            &lines[lines.len() - 2..],
            [
                "| stream/copy | stream | fixed | 12 | 128 | 0 | 0 | 0 | 0 | 32 | 27 |",
                "| odd\\|name | stream | fixed | - | 128 | 0 | 0 | 0 | 0 | 32 | 27 |",
            ]
        );
        assert!(text.ends_with("|\n"));
    }
}
