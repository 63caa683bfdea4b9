// Compiles every kernel variant in VARIANTS.json with Dawn's Tint (npm `webgpu`, Dawn's Node
// bindings) and writes what it said to RESULTS.json. Run by `cargo xtask tint`, which makes
// the variants (`webgpu_variants`), installs the pinned package and judges the results.
//
//   node check.mjs VARIANTS.json RESULTS.json
//
// Two devices: Dawn's Vulkan backend on the adapter the environment's Vulkan driver gives
// (SwiftShader, set by xtask for this process alone), where creating a pipeline runs Tint's
// SPIR-V back end and the driver's compiler; and Dawn's null backend, which offers every
// feature but compiles no back-end code, for the variants that enable a feature the Vulkan
// adapter lacks (SwiftShader has no shader-f16). Every variant's module is compiled (Tint's
// front end: parsing, types, uniformity); a variant declared for WebGPU's default limits is
// also built as a compute pipeline with its constants.

import { readFileSync, writeFileSync } from 'node:fs';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);

const [variantsPath, resultsPath] = process.argv.slice(2);
if (!variantsPath || !resultsPath) {
  console.error('usage: node check.mjs VARIANTS.json RESULTS.json');
  process.exit(2);
}

// The WebGPU feature each WGSL extension needs.
const FEATURE_OF = { f16: 'shader-f16', subgroups: 'subgroups' };
const WANTED = Object.values(FEATURE_OF);

async function open(flags, label) {
  const gpu = create(flags);
  const adapter = await gpu.requestAdapter();
  if (!adapter) {
    throw new Error(`Dawn found no ${label} adapter (flags ${flags.join(' ')})`);
  }
  const features = WANTED.filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredFeatures: features });
  const info = adapter.info;
  const name = `${info.vendor} ${info.architecture} ${info.description}`.trim() || `Dawn ${label} backend`;
  device.lost.then((lost) => {
    if (lost.reason !== 'destroyed') {
      console.error(`tint: the ${label} device was lost: ${lost.message}`);
    }
  });
  // The instance is kept with its device: collected, it would take the device with it.
  return { label, name, gpu, device, features: new Set(features) };
}

// The extensions a source's leading `enable` directives name.
function enabled(source) {
  const names = [];
  for (const m of source.matchAll(/^\s*enable\s+([^;]+);/gm)) {
    names.push(...m[1].split(',').map((s) => s.trim()));
  }
  return names;
}

function errorsOf(info) {
  return info.messages
    .filter((m) => m.type === 'error')
    .map((m) => `${m.lineNum}:${m.linePos}: ${m.message}`);
}

async function check(variant, vulkan, nul) {
  const needs = enabled(variant.source)
    .map((e) => FEATURE_OF[e])
    .filter(Boolean);
  const target = needs.every((f) => vulkan.features.has(f)) ? vulkan : nul;
  const { device } = target;
  const outcome = { name: variant.name, suite: variant.suite, kind: variant.kind,
    facts: variant.facts, device: target.label, stage: null, message: null };
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: variant.source, label: variant.name });
  const info = await module.getCompilationInfo();
  const scoped = await device.popErrorScope();
  const errors = errorsOf(info);
  if (errors.length > 0 || scoped) {
    outcome.stage = 'module';
    outcome.message = errors.length > 0 ? errors.join('\n') : scoped.message;
    return outcome;
  }
  if (variant.kind === 'pipeline' && variant.build) {
    try {
      await device.createComputePipelineAsync({
        label: variant.name,
        layout: 'auto',
        compute: { module, entryPoint: variant.entry, constants: variant.constants },
      });
      outcome.built = true;
    } catch (e) {
      outcome.stage = 'pipeline';
      outcome.message = String(e.message ?? e);
    }
  }
  return outcome;
}

const variants = JSON.parse(readFileSync(variantsPath, 'utf8'));
const vulkan = await open(['backend=vulkan'], 'vulkan');
const nul = await open(['backend=null'], 'null');
const started = Date.now();
const outcomes = [];
for (const variant of variants) {
  outcomes.push(await check(variant, vulkan, nul));
}
const report = {
  adapters: { vulkan: vulkan.name, null: nul.name },
  vulkan_features: [...vulkan.features],
  seconds: (Date.now() - started) / 1000,
  outcomes,
};
writeFileSync(resultsPath, JSON.stringify(report, null, 1));
vulkan.device.destroy();
nul.device.destroy();
// dawn.node keeps its instances' threads alive: leave once the report is written.
process.exit(0);
