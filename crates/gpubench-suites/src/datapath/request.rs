//! A request, described by its bytes and its work: the input the host prepares and uploads,
//! the output the device returns, and the device work in between (the FMA steps of
//! `datapath.wgsl`, counted in FLOPs). The built-in workloads and the `--request` grammar.

use gpubench_harness::{BenchmarkInfo, MetricKind, Profile};
use gpubench_results::units::{KIB, MIB, format_si_count, format_size, parse_si_count, parse_size};
use serde_json::Value;

/// FMA chains per invocation in `datapath.wgsl`.
pub const CHAINS: u64 = 4;
/// FLOPs per FMA.
const FLOP_PER_FMA: u64 = 2;
/// Most steps a chain may take and stay exact (values below 2^12 in steps of 2^-10).
pub const MAX_STEPS: u64 = 1 << 22;
/// An output word: 32 bits.
const WORD: u64 = 4;
/// An input group: four words, read as one `vec4<u32>`.
const GROUP: u64 = 16;
/// Steps one loop iteration of the kernel takes: step counts are multiples of it.
const STEPS_PER_ITERATION: u64 = 4;
/// Largest input or output a request may name (a GPU's binding limits are checked later).
const MAX_BYTES: u64 = 16 * 1024 * MIB;

/// One request: what is uploaded, what is returned, how much work is done in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The workload's name, in result ids (`transfer-bound`, `custom`).
    pub name: String,
    /// Bytes the host prepares and copies to the device (a multiple of 4).
    pub input_bytes: u64,
    /// Bytes the device computes and the host reads back (a multiple of 4).
    pub output_bytes: u64,
    /// FMA steps of each chain of each output word.
    pub steps: u64,
}

impl Request {
    /// A request named `name`.
    pub fn new(name: &str, input_bytes: u64, output_bytes: u64, steps: u64) -> Self {
        Self {
            name: name.to_string(),
            input_bytes,
            output_bytes,
            steps,
        }
    }

    /// Input words.
    pub fn input_words(&self) -> u64 {
        self.input_bytes / WORD
    }

    /// Input groups of four words (what the kernel reads one at a time).
    pub fn input_groups(&self) -> u64 {
        self.input_bytes / GROUP
    }

    /// Output words (one per invocation).
    pub fn output_words(&self) -> u64 {
        self.output_bytes / WORD
    }

    /// The device's floating-point work: two per FMA step of every chain of every output word.
    pub fn flops(&self) -> u64 {
        self.output_words() * CHAINS * self.steps * FLOP_PER_FMA
    }

    /// FLOPs per byte moved across the link (input and output).
    pub fn intensity(&self) -> f64 {
        self.flops() as f64 / (self.input_bytes + self.output_bytes) as f64
    }

    /// The request in the `--request` grammar: `in=16MiB,out=64KiB,flops=524k`.
    pub fn describe(&self) -> String {
        format!(
            "in={},out={},flops={}",
            format_size(self.input_bytes),
            format_size(self.output_bytes),
            format_si_count(self.flops())
        )
    }

    /// A row of this request: id `datapath/<workload>/<row>`, time per request, with the
    /// request's parameters and `(key, value)` saying which row it is.
    pub fn info(&self, row: &str, counts: &str, (key, value): (&str, &str)) -> BenchmarkInfo {
        let mut info = BenchmarkInfo::new(
            format!("datapath/{}/{row}", self.name),
            "datapath",
            MetricKind::TimePerOp,
            counts,
        )
        .param(key, value);
        for (key, value) in self.params() {
            info = info.param(key, value);
        }
        info
    }

    /// The parameters every row of this request carries.
    pub fn params(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("workload", self.name.clone().into()),
            ("request", self.describe().into()),
            ("input_bytes", self.input_bytes.into()),
            ("output_bytes", self.output_bytes.into()),
            ("flops", self.flops().into()),
            ("steps", self.steps.into()),
        ]
    }
}

/// The built-in workloads, the same in every profile so their ids mean the same work
/// everywhere: one transfer-bound (8 MiB in, 64 KiB out, about 0.06 FLOP per byte), one
/// compute-bound (64 KiB in and out, 0.54 GFLOP: about 4000 FLOP per byte, above every GPU's
/// ratio of FP32 rate to PCIe bandwidth) and one balanced (4 MiB in, 1 MiB out, 134 MFLOP:
/// 25 FLOP per byte, where the two meet on a CPU adapter).
pub fn builtins(_profile: Profile) -> Vec<Request> {
    vec![
        Request::new("transfer-bound", 8 * MIB, 64 * KIB, 4),
        Request::new("compute-bound", 64 * KIB, 64 * KIB, 4096),
        Request::new("balanced", 4 * MIB, MIB, 64),
    ]
}

/// Parses `--request in=SIZE,out=SIZE,flops=COUNT` (sizes in binary units, FLOPs with SI
/// multipliers), recorded as the text it was given after checking it. The FLOPs are rounded
/// to whole loop iterations of the kernel (four steps, at least one iteration); the rows say
/// the FLOPs done.
pub fn parse_request_value(text: &str) -> Result<Value, String> {
    parse_request(text).map(|_| Value::from(text.trim()))
}

/// The request `text` describes, named `custom`.
pub fn parse_request(text: &str) -> Result<Request, String> {
    let (mut input, mut output, mut flops) = (None, None, None);
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!(
                "'{part}' in '{text}' is not KEY=VALUE: write e.g. in=256MiB,out=4MiB,flops=20G"
            ));
        };
        let slot = match key.trim() {
            "in" => &mut input,
            "out" => &mut output,
            "flops" => &mut flops,
            other => {
                return Err(format!(
                    "unknown key '{other}' in '{text}': a request has in, out and flops"
                ));
            }
        };
        if slot.is_some() {
            return Err(format!("'{}' is given twice in '{text}'", key.trim()));
        }
        *slot = Some(value.trim().to_string());
    }
    let (Some(input), Some(output), Some(flops)) = (input, output, flops) else {
        return Err(format!(
            "'{text}' needs in, out and flops: write e.g. in=256MiB,out=4MiB,flops=20G"
        ));
    };
    let input_bytes = bytes_of(&input, "in", GROUP)?;
    let output_bytes = bytes_of(&output, "out", WORD)?;
    let flops = parse_si_count(&flops, "FLOP")?;
    let per_iteration = (output_bytes / WORD) * CHAINS * FLOP_PER_FMA * STEPS_PER_ITERATION;
    let iterations = (flops as f64 / per_iteration as f64).round().max(1.0) as u64;
    let steps = iterations * STEPS_PER_ITERATION;
    if steps > MAX_STEPS {
        return Err(format!(
            "flops={} over out={} is more than {} steps per chain: give more output or fewer FLOPs",
            format_si_count(flops),
            format_size(output_bytes),
            MAX_STEPS
        ));
    }
    Ok(Request::new("custom", input_bytes, output_bytes, steps))
}

/// A size that is a whole number of `unit` bytes and not over [`MAX_BYTES`].
fn bytes_of(text: &str, key: &str, unit: u64) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    if !bytes.is_multiple_of(unit) {
        return Err(format!(
            "{key}={text} is not a multiple of {unit} bytes (the kernel reads and writes whole {})",
            if unit == GROUP {
                "16-byte groups"
            } else {
                "32-bit words"
            }
        ));
    }
    if bytes > MAX_BYTES {
        return Err(format!(
            "{key}={text} is over {}: a request this large is not one request",
            format_size(MAX_BYTES)
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_parses_rounds_to_whole_steps_and_describes_itself() {
        let r = parse_request("in=256MiB, out=4MiB, flops=20G").expect("valid");
        assert_eq!((r.input_bytes, r.output_bytes), (256 * MIB, 4 * MIB));
        // 2^20 words x 4 chains x 2 FLOP = 8.4 MFLOP per step: 20 G is 2384 steps.
        assert_eq!(r.steps, 2384);
        assert_eq!(r.flops(), 2384 * 8_388_608);
        assert_eq!(r.describe(), "in=256MiB,out=4MiB,flops=20G");
        assert_eq!(
            parse_request("out=4KiB,in=1KiB,flops=1")
                .expect("valid")
                .steps,
            4
        );
    }

    #[test]
    fn bad_requests_say_what_to_write() {
        for (text, says) in [
            ("in=1MiB,out=4KiB", "needs in, out and flops"),
            ("in=1MiB,out=4KiB,flops=1G,in=2MiB", "given twice"),
            ("in=1MB,out=4KiB,flops=1G", "unknown size unit"),
            ("in=1MiB,out=6B,flops=1G", "multiple of 4"),
            ("in=20B,out=4B,flops=1", "multiple of 16"),
            ("in=1MiB,out=4KiB,flops=1Gi", "unknown multiplier"),
            ("in=1MiB,out=4B,flops=1T", "steps per chain"),
            ("in=1MiB,out=4KiB,flops=1,junk", "KEY=VALUE"),
            ("size=1MiB,out=4KiB,flops=1", "unknown key 'size'"),
            ("in=32GiB,out=4KiB,flops=1", "not one request"),
        ] {
            let error = parse_request(text).expect_err(text);
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn the_builtins_are_what_their_names_say() {
        let [transfer, compute, balanced] =
            <[Request; 3]>::try_from(builtins(Profile::Quick)).expect("three workloads");
        assert!(transfer.intensity() < 0.1, "{}", transfer.intensity());
        assert!(compute.intensity() > 1000.0, "{}", compute.intensity());
        assert!((10.0..100.0).contains(&balanced.intensity()));
        for r in [transfer, compute, balanced] {
            assert!(r.steps <= MAX_STEPS);
            assert_eq!(
                parse_request(&r.describe()).map(|p| p.flops()),
                Ok(r.flops())
            );
        }
    }
}
