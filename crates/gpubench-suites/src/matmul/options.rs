//! The matmul suite's options: extra shapes (`matmul_shapes`, recorded as `"MxNxK"` strings), a
//! forced variant (`matmul_variant`) and the cooperative-matrix switch (`coop_matrix`). Each is
//! checked by its own parser, once; the adapter-dependent limit is checked when the adapter is
//! open ([`check_shapes_fit`]).

use gpubench_engine::{Arity, OptionSpec, PlanError, SuiteOptions};
use gpubench_harness::GpuContext;
use gpubench_results::units::format_size;
use serde_json::Value;

use super::{find_variant, variant_names};

/// `config.options` key of the extra shapes.
pub const SHAPES: &str = "matmul_shapes";
/// `config.options` key of the forced variant.
pub const VARIANT: &str = "matmul_variant";
/// `config.options` key of the cooperative-matrix switch.
pub const COOP_MATRIX: &str = "coop_matrix";

/// The matmul suite's options.
pub const OPTIONS: [OptionSpec; 3] = [
    OptionSpec {
        key: SHAPES,
        flag: "matmul-shape",
        value_name: "MxNxK",
        help: "An extra matmul shape MxNxK, e.g. 127x255x63 (repeatable; run after the profile's shapes).",
        arity: Arity::Many,
        default: || Value::Array(Vec::new()),
        parse: |text| parse_matmul_shape(text).map(|shape| Value::from(format_matmul_shape(shape))),
        choices: None,
        hidden: false,
    },
    OptionSpec {
        key: VARIANT,
        flag: "matmul-variant",
        value_name: "VARIANT",
        help: "Run this matmul kernel variant instead of autotuning (names as in a result's `tuning_gflops`, e.g. cols8x8 or gemv-x8-c2-wg8-ks1-wgmem; an unknown name lists all).",
        arity: Arity::One,
        default: || Value::Null,
        parse: |text| match find_variant(text) {
            Some(_) => Ok(Value::from(text)),
            None => Err(format!(
                "{text}: unknown variant (known: {})",
                variant_names().join(", ")
            )),
        },
        choices: Some(variant_names),
        hidden: false,
    },
    OptionSpec {
        key: COOP_MATRIX,
        flag: "no-coop-matrix",
        value_name: "",
        help: "Leave out the cooperative-matrix (tensor core) matmul kernels: their rows are skipped with the reason. For drivers whose experimental support might lose the device, which would end every later benchmark of the run.",
        arity: Arity::Switch,
        default: || Value::Bool(true),
        parse: |_| Ok(Value::Bool(false)),
        choices: None,
        hidden: false,
    },
];

/// The extra shapes of `options`, parsed; a malformed one is refused.
pub fn shapes(options: &SuiteOptions) -> Result<Vec<(u32, u32, u32)>, PlanError> {
    let texts: Vec<String> = options.get(SHAPES).unwrap_or_default();
    texts
        .iter()
        .map(|text| parse_matmul_shape(text).map_err(|problem| PlanError::bad(SHAPES, problem)))
        .collect()
}

/// Refuses a shape whose matrices cannot be bound on `ctx` even in f16 (a shape that fits in
/// f16 only is run in f16 and skipped in f32).
pub fn check_shapes_fit(ctx: &GpuContext, options: &SuiteOptions) -> Result<(), PlanError> {
    let limit = ctx
        .limits
        .max_storage_buffer_binding_size
        .min(ctx.limits.max_buffer_size);
    for (m, n, k) in shapes(options)? {
        let (m64, n64, k64) = (u64::from(m), u64::from(n), u64::from(k));
        let largest = (m64 * k64).max(k64 * n64).max(m64 * n64) * 2;
        if largest > limit {
            return Err(PlanError::bad(
                SHAPES,
                format!(
                    "{}: its largest matrix needs {} even in f16, over the adapter's storage binding limit of {}",
                    format_matmul_shape((m, n, k)),
                    format_size(largest),
                    format_size(limit)
                ),
            ));
        }
    }
    Ok(())
}

/// Largest matmul dimension accepted: a 2^20 x 4 f16 matrix already needs 8 MiB, and every
/// product of two dimensions stays far inside u64 and every padded stride inside u32.
pub const MAX_MATMUL_DIM: u32 = 1 << 20;

/// Parses a matmul shape `MxNxK` (each a positive integer up to [`MAX_MATMUL_DIM`]; `x` or `X`
/// between them).
pub fn parse_matmul_shape(text: &str) -> Result<(u32, u32, u32), String> {
    let parts: Vec<&str> = text.split(['x', 'X']).collect();
    let bad =
        || format!("'{text}' is not a matmul shape MxNxK of positive integers, e.g. 127x255x63");
    if parts.len() != 3 {
        return Err(bad());
    }
    let too_large = || {
        format!(
            "'{text}': each dimension must be at most {MAX_MATMUL_DIM} (a matrix must fit one storage binding)"
        )
    };
    let mut dims = [0u32; 3];
    for (dim, part) in dims.iter_mut().zip(&parts) {
        let part = part.trim();
        // Digits beyond u32 are a dimension too large, not a malformed shape.
        let value: u64 = match part.parse() {
            Ok(value) => value,
            Err(_) if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(too_large());
            }
            Err(_) => return Err(bad()),
        };
        if value == 0 {
            return Err(bad());
        }
        *dim = u32::try_from(value)
            .ok()
            .filter(|&d| d <= MAX_MATMUL_DIM)
            .ok_or_else(too_large)?;
    }
    Ok((dims[0], dims[1], dims[2]))
}

/// A matmul shape as `--matmul-shape` takes it and results files record it: `MxNxK`.
pub fn format_matmul_shape((m, n, k): (u32, u32, u32)) -> String {
    format!("{m}x{n}x{k}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_shapes_parse_and_reject_nonsense() {
        assert_eq!(parse_matmul_shape("127x255x63"), Ok((127, 255, 63)));
        assert_eq!(parse_matmul_shape("1X2x3"), Ok((1, 2, 3)));
        for bad in ["0x1x1", "1x2", "1x2x3x4", "ax2x3", "-1x2x3", ""] {
            assert!(parse_matmul_shape(bad).is_err(), "{bad}");
        }
        assert!(parse_matmul_shape(&format!("{}x1x1", MAX_MATMUL_DIM + 1)).is_err());
        // Beyond u32 is still "too large", not "not a shape".
        for huge in ["4294967296x1x1", "1x99999999999999999999x1"] {
            let err = parse_matmul_shape(huge).expect_err(huge);
            assert!(err.contains("at most"), "{err}");
        }
    }

    #[test]
    fn each_option_checks_its_own_values() {
        let [shapes_spec, variant, coop] = OPTIONS;
        assert_eq!(
            shapes_spec.value_of(&["127x255x63".to_string()]),
            Ok(serde_json::json!(["127x255x63"]))
        );
        assert!(shapes_spec.value_of(&["0x4x4".to_string()]).is_err());
        let error = variant
            .value_of(&["bogus".to_string()])
            .expect_err("refused");
        assert!(error.starts_with("bogus: unknown variant"), "{error}");
        assert_eq!(coop.value_of(&[]), Ok(Value::Bool(true)));
        assert_eq!(coop.value_of(&[String::new()]), Ok(Value::Bool(false)));
    }
}
