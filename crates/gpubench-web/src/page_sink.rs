//! Where a page's run goes: progress to the page's callback, one JSON event at a time. The
//! document itself is returned at the end (a page has no results file to keep it in as it
//! grows; a stopped tab loses its run).

use gpubench_engine::session::RunSink;
use gpubench_harness::runner::RunObserver;
use gpubench_results::metric::BenchmarkInfo;
use gpubench_results::schema::{BenchResult, RunDocument};
use serde_json::json;
use wasm_bindgen::JsValue;

/// Sends each benchmark's start and result to the page.
pub struct PageSink {
    progress: js_sys::Function,
}

impl PageSink {
    /// A sink calling `progress` with each event's JSON text.
    pub fn new(progress: js_sys::Function) -> Self {
        Self { progress }
    }

    fn send(&self, event: serde_json::Value) {
        // A page whose callback throws loses its progress lines, not its run.
        let _ = self
            .progress
            .call1(&JsValue::NULL, &JsValue::from_str(&event.to_string()));
    }
}

impl RunObserver for PageSink {
    fn started(&mut self, index: usize, total: usize, info: &BenchmarkInfo) {
        self.send(json!({"event": "started", "index": index, "total": total, "id": info.id}));
    }

    fn finished(&mut self, result: &BenchResult) {
        self.send(json!({
            "event": "finished",
            "id": result.id,
            "status": result.status,
            "verified": result.verified,
            "median": result.median(),
            "unit": result.unit,
            "reason": result.reason,
        }));
    }
}

impl RunSink for PageSink {
    fn save(&mut self, _doc: &RunDocument) -> Result<(), gpubench_results::ResultsError> {
        Ok(())
    }

    fn preparing(&mut self, suite: &str) {
        self.send(json!({"event": "preparing", "suite": suite}));
    }
}
