//! Every kernel variant the suites declare, as a WebGPU compiler receives it, written as JSON
//! for `cargo xtask tint` (which compiles each with Dawn's Tint).
//!
//! `cargo run -p gpubench-suites --example webgpu_variants -- FILE`
//!
//! The variants are the registry's, never a list of this file's: every suite's declared WGSL
//! files as whole modules, and every pipeline each suite declares (`Suite::pipelines`) on three
//! sets of adapter facts: a discrete GPU's and a CPU adapter's (those the naga test uses), and
//! the limits every WebGPU device guarantees. A pipeline declared for those limits, and not a
//! tuning candidate the tuner prunes there, must also build there (`"build": true`); the others
//! are compiled, not built, since a GPU's 1024-invocation workgroups exceed what a WebGPU
//! device must offer. Each source is the WebGPU
//! form (`kit::webgpu::webgpu_source`), so what is checked is what a browser build would hand
//! to its compiler. Identical variants (the same name, source, entry point and constants) are
//! written once, with every set of facts that declares them.

use std::collections::BTreeMap;

use gpubench_harness::Profile;
use gpubench_harness::kit::facts::AdapterFacts;
use gpubench_harness::kit::forms::TunerRole;
use gpubench_harness::kit::webgpu::webgpu_source;
use serde_json::{Value, json};

/// The facts a variant set is declared for, by the name the output gives them.
fn fact_sets() -> [(&'static str, AdapterFacts); 3] {
    let gpu = AdapterFacts {
        cpu: false,
        subgroups: true,
        subgroup_max: 64,
        max_invocations: 1024,
        max_workgroup_bytes: 65536,
        vendor: 0,
        backend: wgpu::Backend::Vulkan,
        coop: gpubench_harness::kit::facts::CoopMatrices::NONE,
    };
    [
        ("gpu", gpu),
        (
            "cpu",
            AdapterFacts {
                cpu: true,
                subgroup_max: 8,
                ..gpu
            },
        ),
        // WebGPU's default limits (what every device offers) and its smallest subgroup size,
        // on a CPU adapter as the check's own adapter is.
        (
            WEBGPU,
            AdapterFacts {
                cpu: true,
                subgroups: true,
                subgroup_max: 4,
                max_invocations: 256,
                max_workgroup_bytes: 16384,
                ..gpu
            },
        ),
    ]
}

/// The facts whose pipelines must build on the check's device.
const WEBGPU: &str = "webgpu-limits";

/// One variant, keyed by what makes it distinct.
type Key = (String, String, String, String);

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file] = args.as_slice() else {
        return Err("usage: webgpu_variants FILE".to_string());
    };
    let mut variants = Variants::default();
    variants.add_files();
    variants.add_pipelines()?;
    let Variants { mut by_key, order } = variants;
    let list: Vec<Value> = order.iter().filter_map(|key| by_key.remove(key)).collect();
    let text = serde_json::to_string(&list).map_err(|e| format!("encoding the variants: {e}"))?;
    std::fs::write(file, text).map_err(|e| format!("writing {file}: {e}"))?;
    eprintln!("{} variants written to {file}", list.len());
    Ok(())
}

/// The variants found so far, by key, and the order they were first found in.
#[derive(Default)]
struct Variants {
    by_key: BTreeMap<Key, Value>,
    order: Vec<Key>,
}

impl Variants {
    /// Every WGSL file the suites declare, as a file to compile whole.
    fn add_files(&mut self) {
        let (variants, order) = (&mut self.by_key, &mut self.order);
        for (suite, name, source) in gpubench_suites::REGISTRY.shaders() {
            let key = (
                format!("{suite}/{name}"),
                source.to_string(),
                String::new(),
                String::new(),
            );
            order.push(key.clone());
            variants.insert(
                key,
                json!({
                    "name": format!("{suite}/{name}"),
                    "suite": suite,
                    "kind": "file",
                    "source": webgpu_source(source),
                    "facts": [],
                    "build": false,
                }),
            );
        }
    }

    /// Every pipeline form the suites declare on each set of facts, once per distinct
    /// (pipeline, source, entry, constants), with the facts it was declared on.
    fn add_pipelines(&mut self) -> Result<(), String> {
        let registry = &gpubench_suites::REGISTRY;
        let (variants, order) = (&mut self.by_key, &mut self.order);
        for (label, facts) in fact_sets() {
            for profile in [Profile::Quick, Profile::Default, Profile::Full] {
                let forms = registry
                    .pipelines(facts, profile)
                    .map_err(|e| format!("{label} facts, {profile:?}: {e}"))?;
                for form in forms {
                    let shader = form.shader.for_webgpu();
                    let constants: serde_json::Map<String, Value> = shader
                        .constants
                        .iter()
                        .map(|&(k, v)| (k.to_string(), json!(v)))
                        .collect();
                    let constants = Value::Object(constants);
                    let key = (
                        form.pipeline.clone(),
                        shader.source.clone(),
                        shader.entry.clone(),
                        constants.to_string(),
                    );
                    let entry = variants.entry(key.clone()).or_insert_with(|| {
                        order.push(key);
                        json!({
                            "name": form.pipeline,
                            "suite": form.suite,
                            "kind": "pipeline",
                            "source": shader.source,
                            "entry": shader.entry,
                            "constants": constants,
                            "tuner": form.tuner.name(),
                            "zero_init_workgroup": form.zero_init_workgroup,
                            "facts": [],
                            "build": false,
                        })
                    });
                    if let Some(list) = entry["facts"].as_array_mut()
                        && !list.iter().any(|l| l == label)
                    {
                        list.push(json!(label));
                    }
                    // A candidate the tuner leaves out on these facts is never built there.
                    if label == WEBGPU && !matches!(form.tuner, TunerRole::Pruned(_)) {
                        entry["build"] = json!(true);
                    }
                }
            }
        }
        Ok(())
    }
}
