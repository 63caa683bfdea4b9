//! Command-line structure.

use gpubench_report::Format;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::suite_flags::SuiteFlags;
use crate::values::suite_parser;

/// A cross-vendor GPU compute benchmark: transfer, memory bandwidth, compute throughput and
/// launch overhead through wgpu, every kernel verified, every number with its interval.
#[derive(Debug, Parser)]
#[command(
    name = "gpubench",
    version = crate::build_info::short(),
    long_version = crate::build_info::long(),
    propagate_version = true,
    after_help = crate::exit::help_table()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Show what wgpu and the driver report (validation messages, driver warnings) on stderr,
    /// at this level or above: off, error, warn, info, debug, trace, or a filter such as
    /// `wgpu_hal=info,warn`. Default: GPUBENCH_LOG, then RUST_LOG, then `warn` when
    /// WGPU_VALIDATION is set, else off.
    #[arg(long, global = true, value_name = "FILTER", value_parser = crate::logging::checked_filter)]
    pub log: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every adapter wgpu finds, on every backend.
    #[command(after_help = crate::exit::help_table())]
    List(ListArgs),
    /// Run benchmark suites and record the results.
    #[command(after_help = crate::exit::help_table())]
    Run(Box<RunArgs>),
    /// Write an HTML page with charts for one or more result files.
    #[command(after_help = crate::exit::help_table())]
    Report(ReportArgs),
    /// Compare result files: BASE NEW gives verdicts; three or more give the cross-card table.
    #[command(after_help = crate::exit::help_table())]
    Compare(CompareArgs),
    /// Judge a head build against a base build on this machine: both run in alternating
    /// rounds, each benchmark judged on its per-round ratios (a paired comparison), the
    /// suspect ones measured again before a verdict (exit 3 regressed, 4 failed, 6 too noisy).
    #[command(after_help = crate::exit::help_table())]
    Ab(AbArgs),
    /// Check the GPU for what makes benchmarks slow: software adapter, degraded PCIe link,
    /// low clocks, throttling, other processes, driver, transfer and memory bandwidth against
    /// the link and the datasheet (exit 5 when a check fails).
    #[command(after_help = crate::exit::help_table())]
    Doctor(DoctorArgs),
    /// Compile every kernel (and every matmul tuning candidate) with a real GPU compiler and
    /// show its statistics: registers, spills, workgroup memory, occupancy. With --isa, Mesa's
    /// RADV compiles for that AMD GPU family on null hardware: no GPU needed, nothing is run.
    #[command(after_help = crate::exit::help_table())]
    Kernels(KernelsArgs),
    /// Print a shell completion script on stdout, e.g. `gpubench completions bash >
    /// /usr/share/bash-completion/completions/gpubench`.
    Completions(CompletionsArgs),
    /// Render saved result files again, in any format (the way to read an old file in the
    /// terminal, or to convert it: `show run.json --format md`).
    #[command(after_help = crate::exit::help_table())]
    Show(ShowArgs),
    /// Write man pages (gpubench.1 and one per subcommand) into a directory.
    #[command(after_help = crate::exit::help_table())]
    Man(ManArgs),
    /// Manage the stored baselines.
    #[command(subcommand)]
    Baseline(BaselineCommand),
    /// How many cards a target needs, from a saved run's datapath rows: the arrangement that
    /// meets the p95 target with the most requests per second, and ceil(rate / that) cards
    /// plus spares (exit 7 when no arrangement meets the target).
    #[command(after_help = crate::exit::help_table())]
    Sizing(SizingArgs),
}

/// `gpubench sizing FILE --rate N/s --p95 TIME`.
#[derive(Debug, Args)]
pub struct SizingArgs {
    /// The results file of a run with the datapath suite.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Requests per second to serve, e.g. 90/s.
    #[arg(long, value_name = "N/s", value_parser = gpubench_results::units::parse_rate_per_s)]
    pub rate: f64,
    /// The p95 latency every request must meet, e.g. 50ms (us, ms or s).
    #[arg(long, value_name = "TIME", value_parser = gpubench_results::units::parse_duration_s)]
    pub p95: f64,
    /// Cards added beyond what the arithmetic needs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub spare: u64,
    /// The workload to size [default: the run's own `--request` one, or its only one].
    #[arg(long, value_name = "NAME")]
    pub workload: Option<String>,
    /// Count only arrangements measured for at least this long as sustained, e.g. 60s.
    #[arg(long, value_name = "TIME", value_parser = gpubench_results::units::parse_duration_s)]
    pub sustained: Option<f64>,
}

/// What `gpubench baseline` does.
#[derive(Debug, Subcommand)]
pub enum BaselineCommand {
    /// Record a finished run's results file as its adapter's baseline, so a long run need not
    /// be repeated. The checks `run --save-baseline` makes: a failed or interrupted run is
    /// refused; a noisy, unchecked or verbosely logged one, one that does not pass against the
    /// stored baseline it would replace, or one of another build profile than it, unless
    /// --force.
    #[command(after_help = crate::exit::help_table())]
    Save(BaselineSaveArgs),
}

/// `gpubench baseline save FILE`.
#[derive(Debug, Args)]
pub struct BaselineSaveArgs {
    /// The results file to record.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Directory of baselines [default: as `run` resolves it].
    #[arg(long, value_name = "DIR")]
    pub baseline_dir: Option<PathBuf>,
    /// Record it even when its own noise was over the noise band, it had no noise check, it
    /// logged above warn, it did not pass against the stored baseline, or it is of another
    /// build profile than that (said as a warning).
    #[arg(long)]
    pub force: bool,
    /// Noise band in percent the run's own noise is held to (default: as `run` uses).
    #[arg(long, value_name = "PCT", value_parser = parse_noise)]
    pub noise: Option<f64>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Where to write the pages (created when missing), e.g. /usr/local/share/man/man1.
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("compiler").required(true).args(["isa", "device"])))]
pub struct KernelsArgs {
    /// An AMD GPU family for RADV on null hardware: gfx1100 (RDNA3), gfx1030 (RDNA2), navi10
    /// (RDNA1), as Mesa 22.3 knows them; navi31 (RDNA3) as later Mesas do. GPUBENCH_RADV_ICD
    /// names another RADV's driver manifest than the system's.
    #[arg(long, value_name = "FAMILY")]
    pub isa: Option<String>,
    /// Instead, the Vulkan device whose name contains NAME (it must report pipeline
    /// statistics, as RADV does).
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Also write the rows as a JSON list to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<std::path::PathBuf>,
    /// Also write a Markdown summary to FILE: the compiler, then one table row per pipeline
    /// (registers, spills, LDS, scratch, occupancy, instructions).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub adapter: AdapterArgs,
    /// Print JSON instead of the checklist.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Result files or directories of them (the first is the reference for cross-card ratios);
    /// a directory gives the newest run of each machine and adapter below it.
    #[arg(required = true, value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Every run found in a directory, not only the newest of each machine and adapter.
    #[arg(long)]
    pub all_runs: bool,
    /// Where to write the page.
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// What `--adapter` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdapterChoice {
    /// A position in `gpubench list`.
    Index(usize),
    /// A case-insensitive substring of the adapter's name.
    Name(String),
    /// Every adapter in turn (`run` only).
    All,
}

impl AdapterChoice {
    /// The value adapter selection takes for one adapter; `None` for [`AdapterChoice::All`].
    pub fn selection_value(&self) -> Option<String> {
        match self {
            AdapterChoice::Index(index) => Some(index.to_string()),
            AdapterChoice::Name(name) => Some(name.clone()),
            AdapterChoice::All => None,
        }
    }
}

/// `--adapter`: `all`, an index, or a name substring (never empty).
fn parse_adapter_choice(text: &str) -> Result<AdapterChoice, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("give an index from `gpubench list`, a name substring, or all".to_string());
    }
    if text.eq_ignore_ascii_case("all") {
        return Ok(AdapterChoice::All);
    }
    Ok(text.parse().map_or_else(
        |_| AdapterChoice::Name(text.to_string()),
        AdapterChoice::Index,
    ))
}

impl AdapterArgs {
    /// The selection these flags make (flags win over the WGPU_* variables) for one adapter.
    pub fn selection(&self) -> gpubench_harness::device::Selection {
        gpubench_harness::device::Selection::resolve(
            self.adapter
                .as_ref()
                .and_then(AdapterChoice::selection_value),
            self.backend.clone(),
        )
    }
}

/// Which adapter to use. Flags win over WGPU_ADAPTER_NAME / WGPU_BACKEND / WGPU_POWER_PREF.
#[derive(Debug, Args, Clone)]
pub struct AdapterArgs {
    /// Adapter index (from `gpubench list`), a case-insensitive substring of its name, or `all`
    /// (`run` and `doctor`: every adapter in turn, `--backend` filtering) [default:
    /// WGPU_ADAPTER_NAME, a name substring].
    #[arg(long, value_name = "INDEX|NAME", value_parser = parse_adapter_choice)]
    pub adapter: Option<AdapterChoice>,
    /// Backend: vulkan, metal, dx12 or gl (comma list allowed) [default: WGPU_BACKEND, else
    /// every backend].
    #[arg(long, value_name = "LIST")]
    pub backend: Option<String>,
}

/// What the chosen adapter must be; a mismatch stops the run before anything is written
/// (exit 1).
#[derive(Debug, Args, Clone)]
pub struct ExpectArgs {
    /// Stop unless the adapter's PCI vendor is this: an id (0x10de) or nvidia, amd, intel, apple.
    #[arg(long, value_name = "VENDOR", value_parser = parse_vendor)]
    pub expect_vendor: Option<u32>,
    /// Stop unless the adapter's type is one of these (comma list).
    #[arg(long, value_name = "TYPE", value_delimiter = ',',
          value_parser = clap::builder::PossibleValuesParser::new(gpubench_harness::expect::DEVICE_TYPES))]
    pub expect_type: Vec<String>,
    /// Stop when the adapter is a software adapter (lavapipe, SwiftShader, WARP) or a CPU.
    #[arg(long)]
    pub require_gpu: bool,
}

impl ExpectArgs {
    /// The expectation these flags describe.
    pub fn expectation(&self) -> gpubench_harness::expect::AdapterExpectation {
        gpubench_harness::expect::AdapterExpectation {
            vendor: self.expect_vendor,
            device_types: self.expect_type.clone(),
            hardware: self.require_gpu,
        }
    }
}

fn parse_vendor(text: &str) -> Result<u32, String> {
    gpubench_harness::expect::parse_vendor(text).map_err(|e| e.to_string())
}

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub adapter: AdapterArgs,
    #[command(flatten)]
    pub expect: ExpectArgs,
    /// Suites to run (comma list or repeated). Default: every default suite.
    #[arg(long = "suite", value_name = "SUITE", value_delimiter = ',', value_parser = suite_parser())]
    pub suites: Vec<&'static str>,
    /// Sizes and sample counts.
    #[arg(long, value_enum, default_value = "default")]
    pub profile: gpubench_harness::Profile,
    /// Where to write the results JSON (default: results/<time>-<backend><index>-<adapter>.json,
    /// never replacing an existing file).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write an HTML report with charts for this run.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// The suites' own options (each suite declares them; see `gpubench_engine::OptionSpec`).
    #[command(flatten)]
    pub suite_options: SuiteFlags,
    /// Minimum timed samples per benchmark (overrides the profile).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub samples: Option<u32>,
    /// Target length of one sample in milliseconds (overrides the profile).
    #[arg(long, value_name = "MS", value_parser = parse_positive_ms)]
    pub sample_ms: Option<f64>,
    /// Time cap for sampling one benchmark, in seconds (overrides the profile).
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive_seconds)]
    pub max_time: Option<f64>,
    /// Seed for input data.
    #[arg(long, value_name = "N", default_value_t = 0x5eed)]
    pub seed: u64,
    /// naga's runtime checks (bounds clamping, loop bounding) in the timed kernels' shaders;
    /// recorded in the results.
    #[arg(long, value_name = "on|off", value_enum, default_value = "off")]
    pub shader_checks: gpubench_harness::shader_checks::ShaderChecks,
    /// Read clocks, power, temperature and throttle reasons in a background thread while each
    /// benchmark is measured (`off`: no thread; link and datasheet figures are still recorded).
    #[arg(long, value_enum, default_value = "on")]
    pub telemetry: crate::values::OnOff,
    /// Measure a fixed reference (the f32 vec4 FMA kernel) at the start and end of the run and
    /// record how far it moved: the run's own noise level, shown beside comparison verdicts.
    #[arg(long, value_enum, default_value = "on")]
    pub noise_check: crate::values::OnOff,
    /// How progress is shown on stderr: `auto` draws a bar on a terminal and prints one line
    /// per suite and per finished benchmark otherwise (`plain`, for CI logs); `off` shows none.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: crate::progress::ProgressMode,
    /// The same as `--progress off`.
    #[arg(long)]
    pub no_progress: bool,
    /// List every warning under the table, not one line per kind (all are in the results file).
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub baseline: BaselineArgs,
    #[command(flatten)]
    pub exports: ExportArgs,
}

/// Baseline handling of `run`.
#[derive(Debug, Args, Clone)]
pub struct BaselineArgs {
    /// Directory of baselines, one `<key>.json` per adapter and profile. Default:
    /// `$GPUBENCH_BASELINE_DIR` (when set and not empty), else `baselines/` where the working
    /// directory has one, else the per-user data directory (`$XDG_DATA_HOME/gpubench/baselines`
    /// for an absolute XDG_DATA_HOME, `~/.local/share/...`, `~/Library/Application
    /// Support/...`, `%APPDATA%/...`).
    #[arg(long, value_name = "DIR")]
    pub baseline_dir: Option<PathBuf>,
    /// Compare against this result file instead of the adapter's stored baseline.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record this run as the adapter's baseline (refused when a result failed, the run was
    /// interrupted, it did not pass against the baseline there, it is of another build profile
    /// than that, or its own noise was over the noise band).
    #[arg(long)]
    pub save_baseline: bool,
    /// With --save-baseline: record it even when it did not pass against the baseline there
    /// (accepting its figures), it is of another build profile than that, or its own noise was
    /// over the noise band (said as a warning).
    #[arg(long, requires = "save_baseline")]
    pub force: bool,
    /// With --save-baseline: run the suites N times and record the quietest run (the lowest
    /// noise-check level); every run keeps its results file. A failure in any run fails the set
    /// (exit 4, nothing recorded).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "save_baseline",
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub runs: u32,
    #[command(flatten)]
    pub gate: GateArgs,
}

impl BaselineArgs {
    /// The baseline directory in force (see [`crate::baseline_dir::resolve`]).
    pub fn dir(&self) -> crate::baseline_dir::BaselineDir {
        crate::baseline_dir::resolve(self.baseline_dir.as_deref(), |name| {
            std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
        })
    }
}

/// How verdicts are reached and whether they fail the command.
#[derive(Debug, Args, Clone, Copy)]
pub struct GateArgs {
    /// Noise band in percent for every metric (default: 5 for rates, 10 for time per
    /// operation, 25 on software adapters).
    #[arg(long, value_name = "PCT", value_parser = parse_noise)]
    pub noise: Option<f64>,
    /// Give software adapters' timing verdicts full weight: a regression then exits 3 there too
    /// (otherwise only a status change does).
    #[arg(long)]
    pub strict: bool,
    /// Report regressions without failing (exit 0 instead of 3); never hides a result that
    /// failed in the new run (`compare` exits 3, `run` 4), nor lets a run that did not pass
    /// become the baseline.
    #[arg(long)]
    pub no_fail: bool,
}

/// `gpubench ab BASE_BIN HEAD_BIN -- RUN_FLAGS`.
#[derive(Debug, Args)]
pub struct AbArgs {
    /// The base build's gpubench binary.
    #[arg(value_name = "BASE_BIN")]
    pub base: PathBuf,
    /// The head build's gpubench binary (the same one twice checks the gate itself: A/A).
    #[arg(value_name = "HEAD_BIN")]
    pub head: PathBuf,
    /// Rounds, each one base run and one head run in alternating order (at least 5: fewer
    /// give no 90% interval of the median ratio).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(5..=100))]
    pub rounds: u32,
    /// Further rounds, of the suites whose benchmarks look regressed or too noisy, before
    /// they are judged again (0: none); those still too noisy then get as many again.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub confirm_rounds: u32,
    /// Directory for every round's results files (new or empty); by default
    /// `results/ab-<time>/`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Noise band in percent for every metric (default: 5 for rates, 10 for time per
    /// operation, 25 on software adapters).
    #[arg(long, value_name = "PCT", value_parser = parse_noise)]
    pub noise: Option<f64>,
    /// Output format on stdout: table, md, csv or json.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// What every `gpubench run` gets, after `--` (e.g. `-- --suite stream --profile quick`);
    /// each run's --out, --format and baseline flags are ab's own, and --html and the
    /// --export-* flags are refused (ab prints the paired comparison, in its --format).
    #[arg(last = true, value_name = "RUN_FLAGS")]
    pub run_flags: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Result files or directories of them: the base first, then the runs to compare with it;
    /// a directory gives the newest run of each machine and adapter below it.
    #[arg(required = true, num_args = 1.., value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Every run found in a directory, not only the newest of each machine and adapter.
    #[arg(long)]
    pub all_runs: bool,
    /// The cross-card table even for two files (a fleet's table), instead of verdicts.
    #[arg(long)]
    pub cross: bool,
    /// Output format on stdout.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    #[command(flatten)]
    pub gate: GateArgs,
    #[command(flatten)]
    pub exports: ExportArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Result files or directories of them, rendered one after another (CSV: one table, JSON:
    /// one array); a directory gives the newest run of each machine and adapter below it. None:
    /// the latest run under `results/`, where runs without --out are written.
    #[arg(num_args = 0.., value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Every run found in a directory, not only the newest of each machine and adapter.
    #[arg(long)]
    pub all_runs: bool,
    /// Output format on stdout.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// List every warning under the table, not one line per kind.
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub exports: ExportArgs,
}

/// Files written besides stdout: any number of `--export-*` at once, each repeatable, each
/// holding what `--format` of that name would print.
#[derive(Debug, Args, Clone, Default)]
pub struct ExportArgs {
    /// Also write JSON here (the results document; a comparison's full structure).
    #[arg(long, value_name = "FILE")]
    pub export_json: Vec<PathBuf>,
    /// Also write CSV here (one row per result, with adapter, host and time columns).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Vec<PathBuf>,
    /// Also write GitHub-flavoured Markdown here (for job summaries and PR comments).
    #[arg(long, value_name = "FILE")]
    pub export_md: Vec<PathBuf>,
    /// Also write Bencher Metric Format here (for `bencher run --file`).
    #[arg(long, value_name = "FILE")]
    pub export_bmf: Vec<PathBuf>,
    /// Also write github-action-benchmark custom JSON here (bigger-is-better results;
    /// smaller-is-better ones go to `<stem>-smaller.json` beside it). Of `compare`: the last
    /// file's results.
    #[arg(long, value_name = "FILE")]
    pub export_gab: Vec<PathBuf>,
    /// Prefix every benchmark name in the BMF and github-action-benchmark exports with the
    /// adapter (`nvidia-h200/stream/copy/...`), so several machines' entries can share one
    /// dashboard without colliding.
    #[arg(long)]
    pub export_adapter_names: bool,
}

/// A noise band in percent (`5` or `5%`), returned as a fraction.
fn parse_noise(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(v) if v > 0.0 && v < 100.0 => Ok(v / 100.0),
        _ => Err(format!(
            "'{text}' is not a noise band: give a percentage above 0 and below 100, e.g. 5"
        )),
    }
}

fn parse_positive_ms(text: &str) -> Result<f64, String> {
    parse_positive(text, "milliseconds")
}

fn parse_positive_seconds(text: &str) -> Result<f64, String> {
    parse_positive(text, "seconds")
}

/// Longest time any timing flag accepts: a week, in seconds.
const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

fn parse_positive(text: &str, unit: &str) -> Result<f64, String> {
    let seconds_per_unit = if unit == "milliseconds" { 1e-3 } else { 1.0 };
    match text.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() && v * seconds_per_unit <= MAX_SECONDS => Ok(v),
        Ok(v) if v.is_finite() && v > 0.0 => Err(format!("'{text}' {unit} is longer than a week")),
        _ => Err(format!("'{text}' is not a positive number of {unit}")),
    }
}

/// `--format`'s parser: the names of [`Format::ALL`], listed in `--help`, as the enum.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser as _;
    let names: Vec<&'static str> = Format::ALL.iter().map(|f| f.name()).collect();
    clap::builder::PossibleValuesParser::new(names).try_map(|name: String| {
        Format::from_name(&name).ok_or_else(|| format!("unknown format '{name}'"))
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[test]
    fn adapter_choices_are_parsed_once() {
        assert_eq!(parse_adapter_choice("all"), Ok(AdapterChoice::All));
        assert_eq!(parse_adapter_choice("ALL"), Ok(AdapterChoice::All));
        assert_eq!(parse_adapter_choice("2"), Ok(AdapterChoice::Index(2)));
        assert_eq!(
            parse_adapter_choice("llvmpipe"),
            Ok(AdapterChoice::Name("llvmpipe".into()))
        );
        assert!(parse_adapter_choice("  ").is_err());
        assert_eq!(
            AdapterChoice::Index(2).selection_value().as_deref(),
            Some("2")
        );
        assert_eq!(AdapterChoice::All.selection_value(), None);
    }

    fn run_args(extra: &[&str]) -> Result<RunArgs, clap::Error> {
        let argv = ["gpubench", "run"].iter().chain(extra);
        match Cli::try_parse_from(argv)?.command {
            Command::Run(args) => Ok(*args),
            other => panic!("not a run: {other:?}"),
        }
    }

    #[test]
    fn run_flags_parse_into_typed_values() {
        let args = run_args(&[
            "--suite",
            "stream,matmul",
            "--profile",
            "quick",
            "--matmul-shape",
            "127x255x63",
            "--matmul-variant",
            "tiled16",
            "--inject-fault",
            "device-lost",
        ])
        .expect("parses");
        assert_eq!(args.suites, ["stream", "matmul"]);
        assert_eq!(args.profile, gpubench_harness::Profile::Quick);
        let given = &args.suite_options.values;
        assert_eq!(given["matmul_shapes"], serde_json::json!(["127x255x63"]));
        assert_eq!(given["matmul_variant"], "tiled16");
        assert_eq!(given["inject_fault"], serde_json::json!(["device-lost"]));
        let defaults = run_args(&[]).expect("parses");
        assert!(defaults.suites.is_empty());
        assert_eq!(defaults.profile, gpubench_harness::Profile::Default);
        assert!(defaults.telemetry.is_on() && defaults.noise_check.is_on());
    }

    #[test]
    fn on_off_switches_parse_on_and_off_only() {
        let off = run_args(&["--telemetry", "off", "--noise-check", "off"]).expect("parses");
        assert!(!off.telemetry.is_on() && !off.noise_check.is_on());
        let on = run_args(&["--telemetry", "on"]).expect("parses");
        assert!(on.telemetry.is_on());
        for flag in ["--telemetry", "--noise-check"] {
            let error = run_args(&[flag, "maybe"]).expect_err("refused");
            assert_eq!(error.exit_code(), 2, "{flag}");
            assert!(error.to_string().contains("on, off"), "{error}");
        }
    }

    #[test]
    fn unknown_names_are_usage_errors_listing_the_known_ones() {
        for (flag, value, known) in [
            ("--suite", "nonsense", "roofline"),
            ("--matmul-variant", "bogus", "tiled16"),
            ("--profile", "fast", "quick"),
            ("--inject-fault", "nope", "wrong-output"),
            ("--matmul-shape", "0x1x1", "MxNxK"),
        ] {
            let error = run_args(&[flag, value]).expect_err("refused");
            assert_eq!(error.exit_code(), 2, "{flag}");
            let text = error.to_string();
            assert!(text.contains(flag) && text.contains(known), "{text}");
        }
    }
}
