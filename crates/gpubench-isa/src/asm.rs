//! Reading a disassembly as ACO (RADV's compiler) prints it: one instruction a line (an
//! encoding comment after `;`), `BB<n>:` lines for the blocks branches go to, branches naming
//! their target block, and `(then repeated N times)` for a line that comes N more times in a
//! row. RDNA 3's dual-issue pairs (`v_dual_fmac_f32 ... :: v_dual_mul_f32 ...`) are two
//! instructions on one line.
//!
//! What tests need from it: the instructions of the loops (a loop is a backward branch and the
//! lines from its target up to it) and counts of mnemonics, with the encoding suffix (`_e32`,
//! `_e64`, `_dpp`, `_sdwa`) left off so that `v_fmac_f32_e32` counts as `v_fmac_f32` and never
//! as `v_fma_f32`.

/// One instruction: its mnemonic without an encoding suffix, and the text of its operands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// `v_fmac_f32`, `s_buffer_load_dword`, `buffer_atomic_add_u32`.
    pub mnemonic: &'a str,
    /// Everything after the mnemonic, before the encoding comment.
    pub operands: &'a str,
}

impl Instruction<'_> {
    /// Whether it moves data between lanes: DPP (`row_shr`, `quad_perm`, ...), a lane read or
    /// permute, or the lane counting that a subgroup reduction or an elected lane needs.
    pub fn crosses_lanes(&self) -> bool {
        const CROSS: [&str; 7] = [
            "v_readlane_b32",
            "v_permlane16_b32",
            "v_permlanex16_b32",
            "v_mbcnt_lo_u32_b32",
            "v_mbcnt_hi_u32_b32",
            "s_bcnt1_i32_b32",
            "s_bcnt1_i32_b64",
        ];
        const DPP: [&str; 6] = [
            "row_shr",
            "row_bcast",
            "row_share",
            "row_xmask",
            "row_mirror",
            "quad_perm",
        ];
        CROSS.contains(&self.mnemonic)
            || self.mnemonic.starts_with("ds_swizzle")
            || DPP.iter().any(|d| self.operands.contains(d))
    }
}

/// The suffixes that name an encoding, not an operation.
const ENCODINGS: [&str; 5] = ["_e32", "_e64", "_sdwa", "_dpp", "_e64_dpp"];

fn base(mnemonic: &str) -> &str {
    ENCODINGS
        .iter()
        .rev()
        .find_map(|e| mnemonic.strip_suffix(e))
        .unwrap_or(mnemonic)
}

/// The block a label line names (`BB3:` gives `BB3`).
fn label(line: &str) -> Option<&str> {
    let name = line.trim().strip_suffix(':')?;
    (name.starts_with("BB") && name[2..].chars().all(|c| c.is_ascii_digit())).then_some(name)
}

/// The instructions on one line: none for a label, a comment or a blank line; two for a
/// dual-issue pair.
fn line_instructions(line: &str) -> Vec<Instruction<'_>> {
    let code = line.split(';').next().unwrap_or("").trim();
    if code.is_empty() || label(line).is_some() || code.starts_with("//") {
        return Vec::new();
    }
    code.split("::")
        .filter_map(|half| {
            let half = half.trim();
            let (mnemonic, operands) = half.split_once(char::is_whitespace).unwrap_or((half, ""));
            let instruction =
                mnemonic.starts_with(|c: char| c.is_ascii_lowercase()) && mnemonic.contains('_');
            instruction.then(|| Instruction {
                mnemonic: base(mnemonic),
                operands: operands.trim(),
            })
        })
        .collect()
}

/// How many more times the line before comes, when `line` says so (`(then repeated 63 times)`).
fn repeats(line: &str) -> Option<usize> {
    let inner = line.trim().strip_prefix("(then repeated ")?;
    inner.strip_suffix(" times)")?.trim().parse().ok()
}

/// The lines of `text` with every `(then repeated N times)` written out: the line before it, N
/// more times.
fn expanded(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for line in text.lines() {
        match (repeats(line), out.last().copied()) {
            (Some(n), Some(previous)) => out.extend(std::iter::repeat_n(previous, n)),
            (Some(_), None) => {}
            (None, _) => out.push(line),
        }
    }
    out
}

/// Every instruction of `text`, in order, repeated lines written out.
pub fn instructions(text: &str) -> Vec<Instruction<'_>> {
    expanded(text)
        .into_iter()
        .flat_map(line_instructions)
        .collect()
}

/// The target block of a branch instruction, when it is one.
fn branch_target<'a>(instruction: &Instruction<'a>) -> Option<&'a str> {
    let branch =
        instruction.mnemonic == "s_branch" || instruction.mnemonic.starts_with("s_cbranch");
    branch
        .then(|| instruction.operands.split_whitespace().next())
        .flatten()
        .filter(|t| t.starts_with("BB"))
}

/// Every loop of `text`: for each branch back to a block above it, the instructions from that
/// block's label to the branch (an inner loop's lines are in its outer loop's too), in the
/// order the branches come.
pub fn loops(text: &str) -> Vec<Vec<Instruction<'_>>> {
    let lines = expanded(text);
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        for instruction in line_instructions(line) {
            let Some(target) = branch_target(&instruction) else {
                continue;
            };
            let Some(start) = lines[..at].iter().rposition(|l| label(l) == Some(target)) else {
                continue;
            };
            out.push(
                lines[start..=at]
                    .iter()
                    .flat_map(|l| line_instructions(l))
                    .collect(),
            );
        }
    }
    out
}

/// How many of `instructions` are `mnemonic` (without its encoding suffix).
pub fn count(instructions: &[Instruction<'_>], mnemonic: &str) -> usize {
    instructions
        .iter()
        .filter(|i| i.mnemonic == mnemonic)
        .count()
}

/// How many of `instructions` have a mnemonic starting with `prefix`.
pub fn count_prefix(instructions: &[Instruction<'_>], prefix: &str) -> usize {
    instructions
        .iter()
        .filter(|i| i.mnemonic.starts_with(prefix))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
BB0:
\ts_load_dwordx4 s[0:3], s[4:5], 0x0                        ; F4080002 FA000000
\tv_mov_b32_e32 v1, 0                                         ; 7E020280
BB1:
\tv_fmac_f32_e32 v2, s0, v1                                   ; 56040200
\t(then repeated 2 times)
\tv_fma_f32 v3, s0, s1, v3                                    ; D6130003 040C0200
\tv_dual_fmac_f32 v4, s0, v1 :: v_dual_fmac_f32 v5, s0, v1    ; C8000000 04040100
\tv_add_nc_u32_dpp v6, v6, v6 row_shr:1 row_mask:0xf          ; 320C0CFA FF011106
\ts_cbranch_scc1 BB1                                          ; BF85FFF0
BB2:
\tbuffer_atomic_add_u32 v1, off, s[0:3], 0                   ; E0D40000 80000100
\ts_branch BB3                                                ; BF820000
BB3:
\ts_endpgm                                                    ; BFB00000
";

    #[test]
    fn loops_are_the_lines_from_a_branch_target_back_to_the_branch() {
        let all = instructions(SAMPLE);
        assert_eq!(all.len(), 13, "{all:?}");
        let found = loops(SAMPLE);
        assert_eq!(found.len(), 1, "the forward branch to BB3 is no loop");
        let body = &found[0];
        assert_eq!(
            count(body, "v_fmac_f32"),
            3,
            "no _e32 suffix, repeats written out"
        );
        assert_eq!(count(body, "v_dual_fmac_f32"), 2, "both halves of a pair");
        assert_eq!(count(body, "v_fma_f32"), 1);
        assert_eq!(count_prefix(body, "v_"), 7);
        assert_eq!(body.iter().filter(|i| i.crosses_lanes()).count(), 1, "DPP");
        assert_eq!(count(&all, "buffer_atomic_add_u32"), 1);
        assert!(!all[0].crosses_lanes());
    }
}
