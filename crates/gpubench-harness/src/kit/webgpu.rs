//! The WGSL a WebGPU compiler receives.
//!
//! A suite's WGSL is written for wgpu's own compiler (naga), which runs it natively on Vulkan,
//! Metal, DX12 and GL. WebGPU's compilers (Tint in Chromium and Dawn, naga in Firefox) hold a
//! shader to the WebGPU specification, which asks for an `enable` directive before a shader
//! uses an optional language extension: `enable subgroups;` before any subgroup built-in. naga
//! 30 refuses that directive (it enables subgroup operations through the device's features, not
//! the source), so the line cannot be in the files. The WebGPU form is made here, in one place,
//! and used by every tool that hands gpubench's WGSL to a WebGPU compiler.
//!
//! `enable f16;` needs no such care: naga accepts it and the f16 forms carry it already
//! ([`crate::kit::gpu::specialise`]), so a source that has it is left as it is.

use crate::kit::gpu::SpecialisedShader;

/// The `enable` directives a WebGPU compiler needs for `source` and `source` lacks, in the
/// order they are prepended: `subgroups` where the source uses a subgroup built-in (a function
/// such as `subgroupShuffleXor` or `quadBroadcast`, or a built-in value such as
/// `subgroup_size`). Comments are not code: a word in a comment asks for nothing.
pub fn missing_enables(source: &str) -> Vec<&'static str> {
    let code = without_comments(source);
    let enabled = enabled_extensions(&code);
    let mut missing = Vec::new();
    if words(&code).any(is_subgroup_word) && !enabled.contains(&"subgroups") {
        missing.push("subgroups");
    }
    missing
}

/// `source` as a WebGPU compiler needs it: the directives [`missing_enables`] names, one per
/// line, before the source as written (which stays unchanged, so line numbers in a compiler's
/// message are the file's plus the count of added lines).
pub fn webgpu_source(source: &str) -> String {
    let missing = missing_enables(source);
    let mut out = String::with_capacity(source.len() + 24 * missing.len());
    for extension in missing {
        out.push_str("enable ");
        out.push_str(extension);
        out.push_str(";\n");
    }
    out.push_str(source);
    out
}

impl SpecialisedShader {
    /// This shader as a WebGPU compiler needs it ([`webgpu_source`]); the entry point and the
    /// pipeline constants are the same.
    pub fn for_webgpu(&self) -> SpecialisedShader {
        SpecialisedShader {
            source: webgpu_source(&self.source),
            entry: self.entry.clone(),
            constants: self.constants.clone(),
        }
    }
}

/// Whether `word` names a subgroup built-in function or value. WGSL's subgroup functions are
/// `subgroup*` (`subgroupAdd`, `subgroupShuffleXor`, `subgroupBallot`, ...) and `quad*`
/// (`quadBroadcast`, `quadSwapX`, ...); its values `subgroup_size`, `subgroup_invocation_id`,
/// `subgroup_id` and `num_subgroups`.
fn is_subgroup_word(word: &str) -> bool {
    let function = |prefix: &str| {
        word.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
    };
    function("subgroup")
        || function("quad")
        || matches!(
            word,
            "subgroup_size" | "subgroup_invocation_id" | "subgroup_id" | "num_subgroups"
        )
}

/// The extensions the `enable` directives at the top of `code` (comments removed) name.
/// Directives (`enable`, `requires`, `diagnostic`) come before every declaration, each ending
/// at its `;`.
fn enabled_extensions(code: &str) -> Vec<&str> {
    let mut enabled = Vec::new();
    let mut rest = code.trim_start();
    loop {
        let word = rest
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if !matches!(word, "enable" | "requires" | "diagnostic") {
            return enabled;
        }
        let Some(end) = rest.find(';') else {
            return enabled;
        };
        if word == "enable" {
            enabled.extend(rest[word.len()..end].split(',').map(str::trim));
        }
        rest = rest[end + 1..].trim_start();
    }
}

/// The identifier-like words of `code`.
fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// `source` with its comments (`//` to the end of the line, and `/* */`, which WGSL lets nest)
/// replaced by spaces.
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut depth = 0usize;
    let mut line_comment = false;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if line_comment {
            if c == '\n' {
                line_comment = false;
                out.push(c);
            }
            continue;
        }
        match (c, next) {
            ('/', Some('*')) => {
                chars.next();
                depth += 1;
                out.push(' ');
            }
            ('*', Some('/')) if depth > 0 => {
                chars.next();
                depth -= 1;
                out.push(' ');
            }
            ('/', Some('/')) if depth == 0 => line_comment = true,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHUFFLE: &str = "@compute @workgroup_size(64)\n\
        fn main(@builtin(local_invocation_index) i: u32) {\n\
        \x20   let x = subgroupShuffleXor(f32(i), 1u);\n}\n";

    #[test]
    fn a_subgroup_function_gets_its_enable_before_the_source_as_written() {
        let out = webgpu_source(SHUFFLE);
        assert_eq!(out, format!("enable subgroups;\n{SHUFFLE}"));
        // Applying it twice changes nothing: the directive is now there.
        assert_eq!(webgpu_source(&out), out);
    }

    #[test]
    fn subgroup_values_and_quad_functions_ask_for_it_too() {
        for body in [
            "fn f(@builtin(subgroup_size) n: u32) {}",
            "fn f(@builtin(subgroup_invocation_id) n: u32) {}",
            "fn f(@builtin(num_subgroups) n: u32) {}",
            "fn f(@builtin(subgroup_id) n: u32) {}",
            "fn f() { let x = subgroupAdd(1.0); }",
            "fn f() { let x = quadBroadcast(1.0, 0u); }",
        ] {
            assert_eq!(missing_enables(body), ["subgroups"], "{body}");
        }
    }

    #[test]
    fn plain_code_comments_and_lookalike_names_ask_for_nothing() {
        for source in [
            "fn f() { let subgroups = 1u; let quadrant = 2u; let subgroup_count = 3u; }",
            "// calls subgroupAdd when the adapter has subgroups\nfn f() {}",
            "/* subgroupShuffleXor /* nested */ still a comment */ fn f() {}",
            "",
        ] {
            assert!(missing_enables(source).is_empty(), "{source}");
            assert_eq!(webgpu_source(source), source);
        }
    }

    #[test]
    fn an_existing_enable_is_kept_and_not_repeated() {
        let f16 = format!("enable f16;\n{SHUFFLE}");
        assert_eq!(webgpu_source(&f16), format!("enable subgroups;\n{f16}"));
        let both = format!("enable f16, subgroups;\n{SHUFFLE}");
        assert_eq!(webgpu_source(&both), both);
    }

    #[test]
    fn the_shader_keeps_its_entry_and_constants() {
        let shader = SpecialisedShader::plain(SHUFFLE, "main").with_constants(vec![("WG", 64.0)]);
        let web = shader.for_webgpu();
        assert!(web.source.starts_with("enable subgroups;\n"));
        assert_eq!(web.entry, "main");
        assert_eq!(web.constants, shader.constants);
    }
}
