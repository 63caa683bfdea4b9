//! Which variants a product tunes over, and choosing one from the tuning results: the
//! fastest one that ran and verified, and among candidates too close to call after one pass,
//! the one that wins interleaved rounds.
//!
//! Both are pure functions (over the adapter's facts, and over results), so the rules are tested
//! without a GPU: a variant whose status is not ok, or that did not verify, is never chosen
//! however fast it looked.
//!
//! The search space depends on the adapter. A CPU adapter (lavapipe, SwiftShader) keeps the
//! fixed register-blocked table, which wins there (see the suite's docs), plus one member of
//! the tiled family and, for small M, the small-M kernel. A GPU spends its tuning budget on the
//! tiled family and the small-M kernel, pruned by its limits: workgroup memory (the device is
//! created with the adapter's own limit, not wgpu's 16 KiB default), invocations per
//! workgroup, whole subgroups (a workgroup that is not a multiple of the largest subgroup size
//! leaves lanes idle), SUBGROUP for the subgroup reduction, and an estimate of the registers an
//! invocation holds (above [`REGISTER_BUDGET`] the compiler spills to memory, and the product
//! measures the spilling). What was pruned, and why, is listed in the tuning table.

use gpubench_harness::{BenchResult, Status};

use gpubench_harness::kit::facts::AdapterFacts;
pub use gpubench_harness::kit::tuning::{select_fastest, table_value, tuning_table};

use super::gemv::GemvParams;
use super::shape::Shape;
use super::tiled::TileParams;
use super::variant::{Kind, VARIANTS, Variant, catalogue};
use gpubench_harness::kit::gpu::Precision;
use gpubench_harness::kit::verify::{F16_SUM_MAX_ALLOWANCE, f16_sum_allowance};

/// The most 32-bit registers an invocation's accumulators, operands and prefetched loads may
/// take on a GPU: half of NVIDIA's 255, leaving room for addresses and two 256-invocation
/// workgroups per multiprocessor.
pub const REGISTER_BUDGET: u32 = 128;

/// The register budget where subgroups are 64 wide (AMD's wave64, which RADV compiles compute
/// shaders for): the largest estimate at which nothing spills on RDNA3. RADV on gfx1100 gives
/// such a shader at most 128 VGPRs (none above 132), and its statistics put the edge between 104
/// (tiled forms at 108-132 VGPRs, none spilling) and 112 (every tiled form spills 7 or more):
/// addresses, indices and loop state take about a quarter more than this estimate counts.
pub const WAVE64_REGISTER_BUDGET: u32 = 104;

/// How the register estimate counts for an adapter: the budget it is held to, and whether
/// halves pack two to a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegisterModel {
    /// The most estimated registers a kept candidate may take.
    pub budget: u32,
    /// Whether f16 values pack two to a 32-bit register (NVIDIA's half2). Where subgroups are
    /// 64 wide they are counted one to a register: on gfx1100 RADV's f16 kernels took as many
    /// VGPRs as their f32 twins, and on gfx1030 0.65 of them (median of 104 pairs), not half.
    pub f16_packed: bool,
}

/// The register model for an adapter with `facts`, by the widest subgroup it runs (an Apple GPU
/// is 32 wide, whatever range wgpu's Metal backend reports: [`AdapterFacts::subgroup_max`]).
pub fn register_model(facts: AdapterFacts) -> RegisterModel {
    if facts.subgroup_max >= 64 {
        RegisterModel {
            budget: WAVE64_REGISTER_BUDGET,
            f16_packed: false,
        }
    } else {
        RegisterModel {
            budget: REGISTER_BUDGET,
            f16_packed: true,
        }
    }
}

/// The tiled family's member a CPU adapter also tries.
pub const CPU_TILE: TileParams = TileParams::new(64, 64, 16, 8, 8);

/// Products with fewer rows than this (the smallest tile's) also try the small-M kernel.
pub const SMALL_M: u32 = 64;

/// One variant of a product's search space, or why the adapter's facts prune it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The variant.
    pub variant: Variant,
    /// Why it is not measured, when it is not.
    pub pruned: Option<String>,
}

/// The variants `shape` in `precision` tunes over on an adapter with `facts`, simplest first
/// (the first is the reference every choice must beat), with the pruned ones and the reason.
pub fn candidates(facts: AdapterFacts, precision: Precision, shape: Shape) -> Vec<Candidate> {
    let small = shape.m < SMALL_M;
    let space = catalogue()
        .iter()
        .filter(|v| v.applies_to(precision))
        .filter(|v| in_space(facts, v, small))
        .map(|v| Candidate {
            variant: *v,
            pruned: pruned(facts, v, precision, shape.m),
        })
        .collect();
    prune_unverifiable(space, precision, shape.k)
}

/// `space` with every candidate whose f16 sums over `k` terms could not be checked
/// ([`unverifiable`]) pruned, saying why, before any other reason it had.
pub fn prune_unverifiable(space: Vec<Candidate>, precision: Precision, k: u32) -> Vec<Candidate> {
    space
        .into_iter()
        .map(|c| Candidate {
            pruned: unverifiable(&c.variant, precision, k).or(c.pruned),
            ..c
        })
        .collect()
}

/// Why `v`'s product of `k` terms in `precision` could not be verified, where it could not: its
/// f16 running sums over so many terms that the check allows errors past
/// [`F16_SUM_MAX_ALLOWANCE`] of the product's rms, and a wrong product (a skipped K step, a
/// C of zeros) would pass.
pub fn unverifiable(v: &Variant, precision: Precision, k: u32) -> Option<String> {
    let allowance = f16_sum_allowance(u64::from(k));
    (v.accumulation(precision) == Precision::F16 && allowance > F16_SUM_MAX_ALLOWANCE).then(|| {
        format!(
            "f16 sums over K = {k} terms could not be checked: the check allows each element an error of {:.0}% of the product's rms, past the {:.0}% at which a wrong product still stands out",
            allowance * 100.0,
            F16_SUM_MAX_ALLOWANCE * 100.0
        )
    })
}

/// Whether `v` belongs to the adapter's search space at all (before pruning by limits).
fn in_space(facts: AdapterFacts, v: &Variant, small: bool) -> bool {
    match v.kind {
        Kind::Coop(_) => false,
        // Split-K only for workgroups of 8: more, smaller workgroups balance the host threads
        // when N alone gives few (1 x 2048 x 2048 reads B about 19% faster split 8 ways).
        Kind::Gemv(p) if facts.cpu => {
            small && (p.ks == 1 || p.wg == 8) && (p.wg == 256) == p.subgroups
        }
        Kind::Gemv(p) => small && p.wg >= 64,
        Kind::Family(p) if facts.cpu => p == CPU_TILE,
        Kind::Family(_) => !small,
        // The fixed table: all of it on a CPU; on a GPU the simplest kernel (the reference) and
        // the register-blocked ones that fit the register budget (checked by pruning).
        Kind::Tiled { .. } => true,
        _ => facts.cpu || VARIANTS.contains(v),
    }
}

/// An estimate of the 32-bit registers `v` holds live per invocation for an `m`-row product,
/// for the register budget.
pub fn registers(v: &Variant, precision: Precision, m: u32, model: RegisterModel) -> u32 {
    // Unpacked halves take a register each, as f32 values do.
    let (precision, acc) = if model.f16_packed {
        (precision, v.accumulation(precision))
    } else {
        (Precision::F32, Precision::F32)
    };
    let words = |values: u32, p: Precision| {
        if p == Precision::F16 {
            values.div_ceil(2)
        } else {
            values
        }
    };
    match v.kind {
        Kind::Family(p) => p.registers(precision, acc),
        // TM x TN vec4 sums and the A vec4 of every row; B's four rows are loaded one vec4
        // column at a time.
        Kind::Reg { tm, tn } => words(4 * tm * tn + 4 * tm + 16, acc),
        // All of a K-step's B rows first, then one A row's vec4 at a time.
        Kind::Unrolled { tm, tn } => words(4 * tm * tn + 16 * tn + 4, acc),
        // A's row block is the workgroup's, so every lane loads the same A values: the compiler
        // holds them in scalar registers (RADV: 84 VGPRs for cols8x8 on gfx1100 to reg8x8's 132).
        Kind::RegCols { tm, tn } => words(4 * tm * tn + 16, acc),
        // The rows M gives (at most eight) of CV vec4 sums, four B rows of CV vec4, one A
        // vec4. RADV's statistics showed the rows matter: at M = 1 the x8-c4 kernel takes 60
        // to 96 VGPRs on gfx1100 and never spills, which an eight-row estimate (196) pruned.
        // The subgroup butterfly holds a shuffled copy of a lane's CV sums as well: at eight
        // rows that form spills 8-9 VGPRs on gfx1100 where the workgroup-memory form does not.
        Kind::Gemv(p) => {
            let shuffled = if p.subgroups { 4 * p.cv } else { 0 };
            words(
                4 * GemvParams::rows_for(m) * p.cv + 16 * p.cv + 4 + shuffled,
                acc,
            )
        }
        Kind::Coop(p) => p.registers(precision, v.accumulation(precision)),
        Kind::Tiled { .. } => 4,
    }
}

/// Why `facts` rule `v` out, if they do. CPU adapters prune nothing by these rules: their
/// space is chosen whole.
fn pruned(facts: AdapterFacts, v: &Variant, precision: Precision, m: u32) -> Option<String> {
    let (x, y, bytes) = v.workgroup(precision, m);
    let wg = x * y;
    if v.features().contains(wgpu::Features::SUBGROUP) && !facts.subgroups {
        return Some(gpubench_harness::device::lacking(wgpu::Features::SUBGROUP));
    }
    if bytes > u64::from(facts.max_workgroup_bytes) {
        return Some(format!(
            "{bytes} bytes of workgroup memory exceed the adapter's {}",
            facts.max_workgroup_bytes
        ));
    }
    if wg > facts.max_invocations {
        return Some(format!(
            "{wg} invocations exceed the adapter's {} per workgroup",
            facts.max_invocations
        ));
    }
    if facts.cpu {
        return None;
    }
    if let Some(reason) = gemv_redundant_on_gpu(facts, v, precision, m) {
        return Some(reason.to_string());
    }
    let lanes = facts.subgroup_max;
    if wg % lanes != 0 {
        return Some(format!(
            "{wg} invocations are not a whole number of {lanes}-lane subgroups"
        ));
    }
    let model = register_model(facts);
    let regs = registers(v, precision, m, model);
    let budget = model.budget;
    if regs > budget {
        return Some(format!(
            "about {regs} registers per invocation would spill (budget {budget})"
        ));
    }
    None
}

/// Why a small-M form is left out on a GPU although it would fit: the product reads B once and
/// is bound by that, so forms that differ only where the time is not spent are not all tried
/// (on an NVIDIA adapter the f16 space was 72 forms for one shape, each a compile and a check).
fn gemv_redundant_on_gpu(
    facts: AdapterFacts,
    v: &Variant,
    precision: Precision,
    m: u32,
) -> Option<&'static str> {
    let Kind::Gemv(p) = v.kind else {
        return None;
    };
    // The subgroup twin holds a shuffled copy of the sums: where that spills, this form stays.
    let twin = Variant {
        kind: Kind::Gemv(GemvParams {
            subgroups: true,
            ..p
        }),
        ..*v
    };
    let model = register_model(facts);
    let twin_fits = registers(&twin, precision, m, model) <= model.budget;
    if precision == Precision::F16 && v.accumulation(precision) == Precision::F16 {
        return Some(
            "small M reads B at memory speed whatever the accumulation: the f32-accumulating twin is tried, and it is the more accurate",
        );
    }
    if facts.subgroups && !p.subgroups && twin_fits {
        return Some(
            "the subgroup and workgroup-memory forms differ only in the final reduction, once per output: the subgroup twin is tried",
        );
    }
    None
}

/// Candidates within this fraction of the fastest first-pass median go to the final rounds: one
/// short pass per candidate on a shared or boost-clocked machine cannot order them.
pub const CLOSE: f64 = 0.85;

/// At most this many candidates go to the final rounds.
pub const FINALISTS: usize = 3;

/// Interleaved rounds over the finalists: each round measures every finalist once, in turn.
pub const FINAL_ROUNDS: usize = 2;

/// The indices of the first-pass results to measure again: the verified ok ones whose median is
/// within [`CLOSE`] of the best, fastest first, at most [`FINALISTS`]; fewer than two means the
/// first pass already decided.
pub fn finalists(results: &[BenchResult]) -> Vec<usize> {
    let Some(best) = select_fastest(results) else {
        return Vec::new();
    };
    let top = results[best].median().unwrap_or(0.0);
    let mut close: Vec<(usize, f64)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status == Status::Ok && r.verified)
        .filter_map(|(i, r)| r.median().filter(|m| m.is_finite()).map(|m| (i, m)))
        .filter(|(_, m)| *m >= CLOSE * top)
        .collect();
    close.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    close.truncate(FINALISTS);
    if close.len() < 2 {
        return Vec::new();
    }
    close.into_iter().map(|(i, _)| i).collect()
}

/// The winner of the final rounds: `rounds[r][f]` is finalist `f`'s median in round `r` (`None`
/// where it did not run or verify). Each finalist scores the median over rounds of its value
/// over that round's best, so a machine that slows down between rounds slows every finalist
/// alike; the highest score wins, ties to the earlier (faster in the first pass). `None` when no
/// round has a value.
pub fn select_final(rounds: &[Vec<Option<f64>>]) -> Option<usize> {
    let count = rounds.iter().map(Vec::len).max()?;
    let mut best: Option<(usize, f64)> = None;
    for f in 0..count {
        let shares: Vec<f64> = rounds
            .iter()
            .filter_map(|round| {
                let top = round.iter().flatten().copied().fold(0.0, f64::max);
                let value = round.get(f).copied().flatten()?;
                (top > 0.0).then(|| value / top)
            })
            .collect();
        if shares.len() < rounds.len() {
            continue;
        }
        let score = gpubench_results::stats::median(&shares);
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((f, score));
        }
    }
    best.map(|(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::{Shape, gemv_space};
    use gpubench_harness::{BenchmarkInfo, MetricKind};
    use gpubench_results::stats::summarize;
    use serde_json::Value;

    fn result(id: &str, status: Status, verified: bool, median: Option<f64>) -> BenchResult {
        let info = BenchmarkInfo::new(id, "matmul", MetricKind::Throughput, "flops");
        let mut r = BenchResult::empty(&info, status, None);
        r.verified = verified;
        if let Some(m) = median {
            r.summary = summarize(&[m, m]);
        }
        if status != Status::Ok {
            r.reason = Some("verification failed: 3 of 10 values outside tolerance".into());
        }
        r
    }

    /// A result that ran and verified, its median `median`.
    fn verified(id: &str, median: f64) -> BenchResult {
        result(id, Status::Ok, true, Some(median))
    }

    #[test]
    fn close_candidates_go_to_the_final_rounds_and_a_clear_winner_does_not() {
        let results = vec![
            verified("tiled", 1.0),
            result("broken", Status::Failed, false, Some(100.0)),
            verified("a", 9.0),
            verified("b", 10.0),
            result("unverified", Status::Ok, false, Some(9.9)),
            verified("c", 8.6),
            verified("d", 8.7),
            verified("far", 8.4),
        ];
        // Within 85% of 10: b, a, d, c; the three fastest, fastest first.
        assert_eq!(finalists(&results), [3, 2, 6]);
        let clear = vec![verified("tiled", 1.0), verified("reg", 5.0)];
        assert!(finalists(&clear).is_empty());
        assert!(finalists(&[]).is_empty());
    }

    #[test]
    fn the_final_rounds_are_won_by_shares_of_each_round_not_by_the_luckiest_round() {
        // The machine halves its speed in round 1: finalist 1 wins both rounds by share, though
        // finalist 0 has the single highest value.
        let rounds = vec![
            vec![Some(10.0), Some(11.0), Some(9.0)],
            vec![Some(5.0), Some(5.6), Some(5.8)],
        ];
        // Shares: f0 0.909, 0.862 -> 0.886; f1 1.0, 0.966 -> 0.983; f2 0.818, 1.0 -> 0.909.
        assert_eq!(select_final(&rounds), Some(1));
        // A finalist missing a round (failed, or a stop) cannot win.
        let missing = vec![vec![Some(10.0), Some(20.0)], vec![Some(10.0), None]];
        assert_eq!(select_final(&missing), Some(0));
        assert_eq!(select_final(&[vec![None, None]]), None);
        assert_eq!(select_final(&[]), None);
        // Ties go to the earlier finalist.
        assert_eq!(select_final(&[vec![Some(3.0), Some(3.0)]]), Some(0));
    }

    #[test]
    fn picks_the_fastest_verified_and_never_a_failed_one() {
        let results = vec![
            verified("tiled", 1.0),
            // Fastest of all, but wrong: must never win, even with numbers attached.
            result("broken", Status::Failed, false, Some(100.0)),
            verified("reg", 5.0),
            result("skipped", Status::Skipped, false, None),
            // Ok but somehow unverified: not eligible either.
            result("unverified", Status::Ok, false, Some(50.0)),
            verified("rows", 4.0),
        ];
        assert_eq!(select_fastest(&results), Some(2));
        let table = tuning_table(
            &["tiled", "broken", "reg", "skipped", "unverified", "rows"],
            &results,
        );
        assert_eq!(table["reg"], Value::from(5.0));
        assert!(
            table["broken"]
                .as_str()
                .expect("text")
                .starts_with("failed: ")
        );
        assert!(
            table["skipped"]
                .as_str()
                .expect("text")
                .starts_with("skipped: ")
        );
    }

    const GPU: AdapterFacts = AdapterFacts {
        cpu: false,
        subgroups: true,
        subgroup_max: 32,
        max_invocations: 1024,
        max_workgroup_bytes: 16 * 1024,
        vendor: 0,
        backend: wgpu::Backend::Vulkan,
        coop: gpubench_harness::kit::facts::CoopMatrices::NONE,
    };

    fn find<'a>(space: &'a [Candidate], name: &str) -> Option<&'a Candidate> {
        space.iter().find(|c| c.variant.name == name)
    }

    #[test]
    fn a_cpu_keeps_the_fixed_table_and_tries_one_tile_and_the_small_m_kernel() {
        let cpu = AdapterFacts {
            cpu: true,
            subgroup_max: 8,
            ..GPU
        };
        let square = candidates(cpu, Precision::F32, Shape::new(1024, 1024, 1024));
        let names: Vec<&str> = square.iter().map(|c| c.variant.name).collect();
        assert_eq!(names[0], "tiled16", "the reference comes first");
        for v in VARIANTS.iter().filter(|v| !v.f32_accumulate) {
            assert!(names.contains(&v.name), "{}", v.name);
        }
        assert!(names.contains(&"tiled-bm64-bn64-bk16-t8x8-wg64"));
        assert!(
            !names
                .iter()
                .any(|n| n.starts_with("gemv") || n.starts_with("coop"))
        );
        assert!(square.iter().all(|c| c.pruned.is_none()), "{square:?}");
        let one = candidates(cpu, Precision::F32, Shape::new(1, 2048, 2048));
        assert!(find(&one, "gemv-x8-c1-wg64-ks1-wgmem").is_some());
        assert!(find(&one, "gemv-x4-c2-wg256-ks1-sg").is_some());
        assert!(
            find(&one, "gemv-x8-c1-wg64-ks8-wgmem").is_none(),
            "split-K on a CPU only with workgroups of 8"
        );
        assert!(find(&one, "gemv-x8-c2-wg8-ks8-wgmem").is_some());
    }

    /// f16 sums over more than 16384 terms cannot be checked (their allowance passes a quarter
    /// of the product's rms), so those candidates are pruned, saying why; f32 sums of the same
    /// f16 data are not, and at K = 4096 neither is.
    #[test]
    fn f16_sums_over_too_many_terms_to_check_are_not_tuned() {
        let unverified = |k: u32| {
            candidates(GPU, Precision::F16, Shape::new(4096, 4096, k))
                .into_iter()
                .filter(|c| {
                    c.pruned
                        .as_deref()
                        .is_some_and(|why| why.contains("could not be checked"))
                })
                .map(|c| c.variant.accumulation(Precision::F16))
                .collect::<Vec<_>>()
        };
        let long = unverified(32768);
        assert!(!long.is_empty());
        assert!(long.iter().all(|&acc| acc == Precision::F16), "{long:?}");
        assert!(
            candidates(GPU, Precision::F16, Shape::new(4096, 4096, 32768))
                .iter()
                .any(|c| c.pruned.is_none()
                    && c.variant.accumulation(Precision::F16) == Precision::F32)
        );
        assert!(unverified(4096).is_empty());
        assert!(unverified(16384).is_empty());
    }

    #[test]
    fn a_gpu_tunes_the_family_pruned_by_its_limits() {
        let square = candidates(GPU, Precision::F32, Shape::new(4096, 4096, 4096));
        let pruned = |space: &[Candidate], name: &str| {
            find(space, name)
                .unwrap_or_else(|| panic!("{name} not in the space"))
                .pruned
                .clone()
        };
        // 32 x 256 f32 staged = 32 KiB > 16 KiB.
        let big = "tiled-bm128-bn128-bk32-t8x8-wg256";
        assert!(
            pruned(&square, big)
                .expect("pruned")
                .contains("workgroup memory")
        );
        assert!(
            pruned(&square, "unrolled32x32")
                .expect("pruned")
                .contains("spill")
        );
        assert_eq!(pruned(&square, "reg8x8"), None);
        assert_eq!(pruned(&square, "tiled-bm64-bn64-bk16-t4x4-wg256"), None);
        let roomy = AdapterFacts {
            max_workgroup_bytes: 48 * 1024,
            ..GPU
        };
        let square = candidates(roomy, Precision::F32, Shape::new(4096, 4096, 4096));
        assert_eq!(
            pruned(&square, big),
            None,
            "the adapter's own limit is used"
        );
        // wave64: 64-invocation workgroups stay, and nothing smaller exists in the family.
        let wave64 = AdapterFacts {
            subgroup_max: 128,
            ..roomy
        };
        let square = candidates(wave64, Precision::F32, Shape::new(4096, 4096, 4096));
        assert!(
            pruned(&square, "tiled-bm64-bn64-bk16-t8x8-wg64")
                .expect("pruned")
                .contains("subgroups")
        );
        // Small M: the small-M kernel, with split-K, and not the family; no subgroups, no -sg.
        let flat = AdapterFacts {
            subgroups: false,
            ..GPU
        };
        let one = candidates(flat, Precision::F16, Shape::new(1, 4096, 4096));
        assert_eq!(pruned(&one, "gemv-x8-c1-wg256-ks8-wgmem-acc32"), None);
        // Eight rows of 256 vec4 f32 sums: 32 KiB.
        let eight = candidates(flat, Precision::F16, Shape::new(8, 4096, 4096));
        assert!(pruned(&eight, "gemv-x8-c1-wg256-ks8-wgmem-acc32").is_some());
        assert!(
            pruned(&one, "gemv-x8-c1-wg256-ks8-sg")
                .expect("pruned")
                .contains("SUBGROUP")
        );
        assert!(
            !one.iter()
                .any(|c| matches!(c.variant.kind, Kind::Family(_)))
        );
    }

    #[test]
    fn a_gpu_tries_each_small_m_form_once_not_its_redundant_twins() {
        let kept = |facts: AdapterFacts, precision: Precision, m: u32| -> Vec<Variant> {
            candidates(facts, precision, Shape::new(m, 4096, 4096))
                .into_iter()
                .filter(|c| c.pruned.is_none() && matches!(c.variant.kind, Kind::Gemv(_)))
                .map(|c| c.variant)
                .collect()
        };
        let all_forms = gemv_space().iter().filter(|p| p.wg >= 64).count();
        for precision in [Precision::F32, Precision::F16] {
            let one = kept(GPU, precision, 1);
            assert!(!one.is_empty());
            // Half the forms at most (the subgroup twin of each), f32 accumulation only.
            assert!(one.len() <= all_forms / 2, "{}", one.len());
            assert!(
                one.iter()
                    .all(|v| v.accumulation(precision) == Precision::F32),
                "{precision:?}"
            );
            assert!(
                one.iter()
                    .all(|v| matches!(v.kind, Kind::Gemv(p) if p.subgroups))
            );
        }
        // Without SUBGROUP the workgroup-memory forms are the ones tried.
        let flat = AdapterFacts {
            subgroups: false,
            ..GPU
        };
        assert!(!kept(flat, Precision::F16, 1).is_empty());
        // At eight rows a subgroup twin that would spill leaves its workgroup-memory form in:
        // x8-c2 is about 100 registers, its subgroup twin 108, over wave64's 104.
        let wave64 = AdapterFacts {
            subgroup_max: 64,
            max_workgroup_bytes: 64 * 1024,
            ..GPU
        };
        let eight = kept(wave64, Precision::F32, 8);
        assert!(
            eight
                .iter()
                .any(|v| matches!(v.kind, Kind::Gemv(p) if !p.subgroups)),
            "{:?}",
            eight.iter().map(|v| v.name).collect::<Vec<_>>()
        );
        // A CPU adapter's space is chosen whole, with nothing pruned as redundant.
        let cpu = AdapterFacts {
            cpu: true,
            subgroup_max: 8,
            ..GPU
        };
        let space = candidates(cpu, Precision::F16, Shape::new(1, 1024, 1024));
        assert!(space.iter().all(|c| c.pruned.is_none()));
    }

    /// wgpu's Metal backend reports every Apple GPU's subgroups as up to 64 lanes: the tuner
    /// still budgets registers and checks whole subgroups for the 32 lanes an Apple GPU runs
    /// (half2 packed), where an adapter truly 64 wide with the same limits prunes more.
    #[test]
    fn an_apple_gpu_on_metal_is_tuned_as_32_lanes_wide() {
        use gpubench_harness::kit::facts::{VENDOR_APPLE, subgroup_max_of};
        let metal = wgpu::Backend::Metal;
        let apple = AdapterFacts {
            subgroup_max: subgroup_max_of(metal, "Apple M3 Max", 64),
            max_workgroup_bytes: 32 * 1024,
            vendor: VENDOR_APPLE,
            backend: metal,
            ..GPU
        };
        let wave64 = AdapterFacts {
            subgroup_max: subgroup_max_of(metal, "AMD Radeon Pro 5500M", 64),
            ..apple
        };
        assert_eq!(apple.subgroup_max, 32);
        assert_eq!(
            wave64.subgroup_max, 64,
            "an Intel Mac's AMD GPU is as reported"
        );
        assert!(register_model(apple).f16_packed);
        assert!(!register_model(wave64).f16_packed);
        let shape = Shape::new(1024, 1024, 1024);
        for precision in [Precision::F32, Precision::F16] {
            let pruned = |facts| {
                candidates(facts, precision, shape)
                    .iter()
                    .filter(|c| c.pruned.is_some())
                    .count()
            };
            assert!(pruned(wave64) > pruned(apple), "{precision:?}");
        }
    }

    #[test]
    fn ties_go_to_the_simpler_variant_and_nothing_verified_means_none() {
        let tie = vec![verified("a", 2.0), verified("b", 2.0)];
        assert_eq!(select_fastest(&tie), Some(0));
        let none = vec![
            result("a", Status::Failed, false, None),
            result("b", Status::Skipped, false, None),
        ];
        assert_eq!(select_fastest(&none), None);
        assert_eq!(select_fastest(&[]), None);
    }
}
