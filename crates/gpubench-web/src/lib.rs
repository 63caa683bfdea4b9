//! gpubench in a web page: the suites, their kernels and their CPU checks, run through the
//! browser's WebGPU, writing the same results document as the command line.
//!
//! The page (`web/app.js`) calls [`run`] with the suites and profile it wants and a progress
//! callback, and gets the results document back as JSON: the engine, the harness and the
//! suites are the native ones, compiled to wasm32; only the waits differ (they await wgpu's
//! callbacks, which the page's event loop answers) and the clock (`web-time`, the page's
//! `performance.now()`). What a browser cannot know is said so, never guessed: the CPU model
//! is "unknown (browser)", there is no host name, and the operating system field holds the
//! browser's own description of itself (its user agent), the only machine detail recorded.
#![cfg(target_arch = "wasm32")]

mod page_sink;
mod request;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use wasm_bindgen::prelude::*;

use gpubench_engine::plan::RunPlan;
use gpubench_engine::session::Session;
use gpubench_harness::{GpuContext, device};
use gpubench_results::schema::ToolInfo;

use page_sink::PageSink;
use request::PageRequest;

/// Runs the suites `request` names (JSON: `{"suites": [...], "profile": "quick", "browser":
/// navigator.userAgent, "cpu_count": navigator.hardwareConcurrency}`) on the browser's WebGPU
/// adapter, calling `progress` with one JSON event per benchmark started and finished, and
/// returns the results document as JSON. Rejects (a JavaScript error with the reason) where the
/// request is not valid, the browser has no WebGPU adapter, or the run cannot start.
#[wasm_bindgen]
pub async fn run(request: String, progress: js_sys::Function) -> Result<String, JsValue> {
    install_panic_hook();
    let request = PageRequest::parse(&request).map_err(|e| JsValue::from_str(&e))?;
    let ctx = open_adapter(request.adapter_name()).await?;
    let plan = RunPlan::new(
        &gpubench_suites::REGISTRY,
        &request.suite_names(),
        request.options(),
    )
    .map_err(|e| JsValue::from_str(&e.to_string()))?;
    plan.check_adapter(&ctx)
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut session = Session::new(&ctx, &plan, stop);
    let mut sink = PageSink::new(progress);
    let mut doc = session
        .run(tool_info(), &mut sink)
        .await
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    request.describe_machine(&mut doc.machine);
    serde_json::to_string_pretty(&doc).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// The global a panic's message is left in, for the page to show.
const PANIC_GLOBAL: &str = "gpubenchPanic";
/// The global function a panic calls with its message, where the page set one.
const PANIC_CALLBACK: &str = "gpubenchOnPanic";

/// Has a panic leave its message (and where it happened) in the page's `gpubenchPanic` global
/// and the console, and call the page's `gpubenchOnPanic(message)` where it set one, before the
/// module traps. In wasm a panic aborts: the native runner's catch, which makes a benchmark's
/// panic its failed result, catches nothing, and the promise of a `run` that panicked while it
/// was polled never settles, so the page must hear of it this way. The page calls this once it
/// has loaded the module (a panic while reading a file counts too); [`run`] makes sure.
#[wasm_bindgen]
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = format!("gpubench panicked: {info}");
            let global = js_sys::global();
            let text = JsValue::from_str(&message);
            let _ = js_sys::Reflect::set(&global, &JsValue::from_str(PANIC_GLOBAL), &text);
            web_console_error(&message);
            let callback = js_sys::Reflect::get(&global, &JsValue::from_str(PANIC_CALLBACK));
            if let Ok(callback) = callback.and_then(|c| c.dyn_into::<js_sys::Function>()) {
                let _ = callback.call1(&JsValue::NULL, &text);
            }
        }));
    });
}

#[wasm_bindgen]
extern "C" {
    /// `console.error`.
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn web_console_error(message: &str);
}

/// The browser's WebGPU adapter (the high-performance one where it has several) and a device
/// on it with every feature gpubench uses that it offers; named `name` where wgpu gives it no
/// name (in a browser it gives none, and the results' fingerprint is made from it).
async fn open_adapter(name: Option<String>) -> Result<GpuContext, JsValue> {
    let backends = wgpu::Backends::BROWSER_WEBGPU;
    let instance = device::create_instance(backends);
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            ..Default::default()
        })
        .await
        .map_err(|e| {
            JsValue::from_str(&format!(
                "this browser offers no WebGPU adapter ({e}); WebGPU needs a recent browser, a secure page (https or localhost) and, on Linux, a flag in some browsers"
            ))
        })?;
    let mut summary = device::summarize(0, &adapter);
    if let (true, Some(name)) = (summary.name.is_empty(), name) {
        summary.name = name;
        // wgpu judged an empty name: SwiftShader named by the page is a software adapter
        // (its sampling settings, its warning, compare's CPU guard).
        summary.software |= device::names_a_software_adapter(&summary.name);
    }
    GpuContext::from_adapter_async(instance, adapter, summary)
        .await
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

/// The suites a page may offer, as JSON: `[{"name", "about", "default"}]` in registry order,
/// `default` where a quick run takes the suite unnamed.
#[wasm_bindgen]
pub fn suites() -> String {
    let registry = &*gpubench_suites::REGISTRY;
    let defaults = registry.defaults(gpubench_results::profile::Profile::Quick);
    let list: Vec<serde_json::Value> = registry
        .listed()
        .map(|suite| {
            let info = suite.info();
            serde_json::json!({
                "name": info.name,
                "about": info.about,
                "default": defaults.contains(&info.name),
            })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// One results file the page was given: its name and its text.
#[derive(serde::Deserialize)]
struct NamedText {
    name: String,
    text: String,
}

/// The command line's HTML report (`gpubench report`: its tables and charts, every text from a
/// file escaped) of `files` (JSON: `[{"name", "text"}]`, this run first, then the files loaded
/// to compare), for the page to show in a sandboxed frame. Each text is read as the command line
/// reads a results file, with the same bounds; one that is not a results file rejects the call
/// with its name and the reason.
#[wasm_bindgen]
pub fn report_html(files: String) -> Result<String, JsValue> {
    let files: Vec<NamedText> = serde_json::from_str(&files)
        .map_err(|e| JsValue::from_str(&format!("the report request is not valid: {e}")))?;
    let mut labelled = Vec::with_capacity(files.len());
    for file in files {
        let doc = gpubench_results::results_file::parse_document(file.text.as_bytes())
            .map_err(|reason| JsValue::from_str(&format!("{}: {reason}", file.name)))?;
        labelled.push((file.name, doc));
    }
    gpubench_report::html::render(&labelled).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Reads `text` as the command line reads a results file (the same bounds, schema version and
/// fields), rejecting with `name` and the reason where it is not one: what the page checks a
/// file by before it keeps it to compare with.
#[wasm_bindgen]
pub fn check_results_file(name: &str, text: &str) -> Result<(), JsValue> {
    gpubench_results::results_file::parse_document(text.as_bytes())
        .map(drop)
        .map_err(|reason| JsValue::from_str(&format!("{name}: {reason}")))
}

/// This build, as the results document records it.
fn tool_info() -> ToolInfo {
    ToolInfo {
        name: "gpubench".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        // `cargo xtask web` sets it, empty where git could not tell.
        git_commit: option_env!("GPUBENCH_COMMIT")
            .filter(|sha| !sha.is_empty())
            .map(str::to_string),
    }
}
