// gpubench's page: runs the suites through the wasm build (crates/gpubench-web), shows each
// result as it comes, offers the results document for download, keeps the last runs in the
// browser's storage, and compares it with those and with results files the user loads.
//
// Everything a results file or a run says (ids, names, reasons, units) is put in the page as
// text (textContent), never as markup: a file loaded here may come from anyone.

import init, {
  check_results_file as checkResultsFile, install_panic_hook as installPanicHook,
  report_html as reportHtml, run, suites,
} from "./pkg/gpubench_web.js";

// The largest results file the page reads: the command line's bound for a results document.
const MAX_FILE_BYTES = 64 * 1024 * 1024;

const $ = (id) => document.getElementById(id);

// A table cell holding `value` as text.
function cell(row, value, numeric = false) {
  const td = document.createElement("td");
  td.textContent = value === undefined || value === null ? "-" : String(value);
  if (numeric) td.className = "num";
  row.appendChild(td);
  return td;
}

function figure(x) {
  if (typeof x !== "number" || !Number.isFinite(x)) return "-";
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3);
}

// The checkboxes of the suites the build offers, the quick run's defaults ticked.
function offerSuites() {
  const box = $("suites");
  for (const suite of JSON.parse(suites())) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.value = suite.name;
    input.checked = suite.default;
    label.appendChild(input);
    label.appendChild(document.createTextNode(" " + suite.name));
    label.title = suite.about;
    box.appendChild(label);
  }
}

function chosenSuites() {
  return [...$("suites").querySelectorAll("input:checked")].map((i) => i.value);
}

// The note on a result whose samples span few steps of the clock that timed it (gpubench marks
// it, warning coarse-clock; a browser's page clock steps by 100 us without cross-origin
// isolation).
function resolutionNote(result) {
  const warning = (result.warnings || []).find((w) => w.kind === "coarse-clock");
  return warning ? `only ${figure(warning.figure)} steps of its clock per sample` : "";
}

// The clock that timed a result, with its step.
function clockText(result) {
  const step = (result.extra || {}).clock_resolution_us;
  return result.timing
    ? `${result.timing}${typeof step === "number" ? ` (${figure(step)} us steps)` : ""}`
    : "-";
}

function showResult(tbody, result) {
  const row = document.createElement("tr");
  row.className = result.status;
  const summary = result.summary || {};
  cell(row, result.id);
  cell(row, result.status + (result.status === "ok" && !result.verified ? " (not verified)" : ""));
  cell(row, figure(summary.median), true);
  cell(row, result.unit);
  cell(row, figure(summary.p95), true);
  cell(row, clockText(result));
  const notes = [result.reason, resolutionNote(result)].filter(Boolean);
  cell(row, notes.join("; "));
  tbody.appendChild(row);
}

let lastDoc = null;
// The adapter as WebGPU describes it (vendor, architecture, device, description), or null.
let adapterText = null;
let hidden = false;
document.addEventListener("visibilitychange", () => {
  if (document.hidden) hidden = true;
});

async function runNow() {
  $("run").disabled = true;
  $("visibility").hidden = true;
  const tbody = $("results").querySelector("tbody");
  tbody.replaceChildren();
  $("download").hidden = true;
  // The previous run is not "this run" while this one runs, nor after it fails.
  lastDoc = null;
  refreshComparison();
  const request = { suites: chosenSuites(), profile: $("profile").value };
  try {
    const doc = await runRequest(request, (event) => {
      if (event.event === "started") {
        $("status").textContent = `${event.index + 1} of ${event.total}: ${event.id}`;
      } else if (event.event === "preparing") {
        $("status").textContent = `preparing ${event.suite}`;
      }
    });
    for (const result of doc.results) showResult(tbody, result);
    const blob = new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" });
    $("download").href = URL.createObjectURL(blob);
    $("download").hidden = false;
    $("status").textContent = `done: ${doc.results.length} results`;
    $("visibility").hidden = !hidden;
    lastDoc = doc;
    refreshComparison();
  } catch (error) {
    // A panic in the wasm build traps ("unreachable"): its message was left in
    // window.gpubenchPanic, and the module cannot run again until the page is reloaded.
    const panic = window.gpubenchPanic;
    $("status").textContent = panic
      ? `the run stopped: ${panic}; reload the page to run again`
      : `the run stopped: ${error}`;
  } finally {
    $("run").disabled = Boolean(window.gpubenchPanic);
  }
}

// Runs `request` and returns the results document; `onEvent` hears each progress event. A
// test drives the page through this (window.gpubench.run).
async function runRequest(request, onEvent = () => {}) {
  // What the browser says of itself and of its adapter (WebGPU gives the adapter no name).
  const full = {
    browser: navigator.userAgent,
    cpu_count: navigator.hardwareConcurrency || null,
    adapter: adapterText,
    cross_origin_isolated: window.crossOriginIsolated === true,
    ...request,
  };
  hidden = document.hidden;
  // A panic aborts the module and the run's promise never settles: the panic hook rejects this
  // one instead (crates/gpubench-web, install_panic_hook).
  const panicked = new Promise((_, reject) => {
    window.gpubenchOnPanic = (message) => reject(new Error(message));
  });
  const text = await Promise.race([
    run(JSON.stringify(full), (line) => onEvent(JSON.parse(line))),
    panicked,
  ]);
  const doc = JSON.parse(text);
  if (hidden) {
    // Recorded in the file (the download and the saved copy alike), as a run warning of the
    // page's own kind.
    doc.warnings = [...(doc.warnings || []), {
      kind: "background-tab",
      message: "the tab was in the background during the run: browsers throttle " +
        "background tabs, so figures measured then may be low",
      figure: null,
    }];
  }
  saveRun(doc, JSON.stringify(doc, null, 2));
  return doc;
}

// --- Runs saved in this browser --------------------------------------------------------------

// The page's only store: the last few runs' files in this origin's localStorage, so a visitor
// can compare a new run with earlier ones without keeping downloads. What is read back is
// treated as any loaded file is (anything on the machine may have written it).
const SAVED_KEY = "gpubench.saved-runs";
const SAVED_RUNS = 5;

// The saved runs as [{name, text}], newest last; [] when there are none or they are unreadable.
function savedRuns() {
  try {
    const saved = JSON.parse(localStorage.getItem(SAVED_KEY) || "[]");
    return Array.isArray(saved)
      ? saved.filter((r) => r && typeof r.name === "string" && typeof r.text === "string")
      : [];
  } catch {
    return [];
  }
}

// Keeps `text`, the file of the run `doc`, among the saved runs: the oldest go first when
// there are more than SAVED_RUNS or the browser's storage is full. Says what it did.
function saveRun(doc, text) {
  const adapter = doc.machine && doc.machine.adapter ? doc.machine.adapter.name : "unknown";
  const name = `saved run: ${adapter}, ${doc.started_at || "unknown time"}`;
  let runs = [...savedRuns(), { name, text }].slice(-SAVED_RUNS);
  while (runs.length > 0) {
    try {
      localStorage.setItem(SAVED_KEY, JSON.stringify(runs));
      break;
    } catch {
      runs = runs.slice(1); // storage full (or off): drop the oldest and try again
    }
  }
  showSaved(runs.some((r) => r.name === name && r.text === text)
    ? "" : "this run was not saved: the browser's storage for this page is full or off");
}

// Says how many runs are saved, and `note` after it.
function showSaved(note = "") {
  const count = savedRuns().length;
  $("saved-status").textContent =
    `${count} run${count === 1 ? "" : "s"} saved in this browser${note ? `; ${note}` : ""}.`;
  $("compare-saved").disabled = count === 0;
  $("forget-saved").disabled = count === 0;
}

// --- Comparison ------------------------------------------------------------------------------

const loaded = [];

// A results document read from `text`, or an Error saying why not: the same bounds as the
// command line's reader (size, JSON, a results array), every field treated as data.
function parseResults(text, name) {
  if (text.length > MAX_FILE_BYTES) throw new Error(`${name}: larger than 64 MiB`);
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not JSON (${e.message})`);
  }
  if (!doc || typeof doc !== "object" || !Array.isArray(doc.results)) {
    throw new Error(`${name}: not a gpubench results file (no results list)`);
  }
  const results = doc.results.filter(
    (r) => r && typeof r === "object" && typeof r.id === "string" && r.id.length <= 512,
  );
  const machine = doc.machine && typeof doc.machine === "object" ? doc.machine : {};
  const adapter = machine.adapter && typeof machine.adapter === "object" ? machine.adapter : {};
  return {
    name,
    fingerprint: typeof machine.fingerprint === "string" ? machine.fingerprint : "unknown",
    adapter: typeof adapter.name === "string" ? adapter.name.slice(0, 200) : "unknown",
    backend: typeof adapter.backend === "string" ? adapter.backend.slice(0, 40) : "unknown",
    results: new Map(results.map((r) => [r.id, r])),
  };
}

function median(result) {
  const m = result && result.status === "ok" && result.summary && result.summary.median;
  return typeof m === "number" && Number.isFinite(m) && m > 0 ? m : null;
}

// A result's median by the host clock (submit to completion): its headline where the host
// clock timed it, else the host-clock summary a GPU-timed result keeps beside it; null if none.
function hostMedian(result) {
  if (result.timing === "host") return median(result);
  const m = result.host_summary && result.host_summary.median;
  return typeof m === "number" && Number.isFinite(m) && m > 0 ? m : null;
}

// The two medians a ratio of one id is taken from, as the command line's comparison takes
// them: the headlines, or both by the host clock where the two runs were timed by different
// clocks (a browser without timestamp queries against a run with them); or why there is no
// ratio (a metric, unit or direction that changed, another clock with no host-clock figure).
function comparedMedians(ours, theirs) {
  if (ours.metric !== theirs.metric || ours.unit !== theirs.unit) {
    return { why: `metric changed (${theirs.metric} ${theirs.unit})` };
  }
  if (ours.higher_is_better !== theirs.higher_is_better) return { why: "direction changed" };
  if (ours.timing && theirs.timing && ours.timing !== theirs.timing) {
    const [a, b] = [hostMedian(ours), hostMedian(theirs)];
    return a === null || b === null
      ? { why: `timed by ${theirs.timing}, this run by ${ours.timing}, no host-clock figure` }
      : { ours: a, theirs: b, note: " (host clock)" };
  }
  return { ours: median(ours), theirs: median(theirs), note: "" };
}

// The table: each id of this run beside each loaded file's figure, as a ratio oriented so
// that above 1 is this run faster; across machines (fingerprints differ) the header says so.
function refreshComparison() {
  refreshReport();
  const head = $("compare").querySelector("thead");
  const body = $("compare").querySelector("tbody");
  head.replaceChildren();
  body.replaceChildren();
  if (!lastDoc || loaded.length === 0) return;
  const header = document.createElement("tr");
  cell(header, "id");
  cell(header, `this run (${lastDoc.machine.adapter.name}, ${lastDoc.machine.adapter.backend})`);
  for (const other of loaded) {
    const across = other.fingerprint !== lastDoc.machine.fingerprint ? ", another machine" : "";
    cell(header, `${other.name}: ${other.adapter} (${other.backend}${across}): ratio`);
  }
  head.appendChild(header);
  for (const result of lastDoc.results) {
    const ours = median(result);
    if (ours === null) continue;
    const row = document.createElement("tr");
    cell(row, result.id);
    cell(row, `${figure(ours)} ${result.unit}`, true);
    for (const other of loaded) {
      const their = other.results.get(result.id);
      if (median(their) === null) {
        cell(row, "-", true);
        continue;
      }
      const pair = comparedMedians(result, their);
      if (pair.why) {
        cell(row, `not comparable: ${pair.why}`);
        continue;
      }
      const ratio = result.higher_is_better === false
        ? pair.theirs / pair.ours : pair.ours / pair.theirs;
      cell(row, `${figure(ratio)}x${pair.note}`, true);
    }
    body.appendChild(row);
  }
}

async function loadFiles(files) {
  const texts = [];
  for (const file of files) {
    texts.push(file.size > MAX_FILE_BYTES
      ? { name: file.name, error: `${file.name}: larger than 64 MiB` }
      : { name: file.name, text: await file.text() });
  }
  loadTexts(texts);
}

// Adds each `{name, text}` as a results file to compare with (or says why it is none); the
// file input and a test (window.gpubench.load) both come through here. Returns the notes.
function loadTexts(texts) {
  const notes = [];
  for (const { name, text, error } of texts) {
    try {
      if (error) throw new Error(error);
      if (loaded.some((f) => f.name === name && f.text === text)) {
        notes.push(`${name}: already loaded`);
        continue;
      }
      const file = parseResults(text, name);
      // Only what the command line's reader reads (schema version, fields, bounds): a file it
      // refuses would otherwise leave every loaded file out of the report below.
      checkResultsFile(name, text);
      loaded.push({ ...file, text });
      notes.push(`${name}: read`);
    } catch (e) {
      notes.push(String((e && e.message) || e));
      if (window.gpubenchPanic) {
        // The module trapped reading this file: nothing more can run until a reload.
        notes.push(`${window.gpubenchPanic}; reload the page`);
        $("run").disabled = true;
        break;
      }
    }
  }
  $("load-status").textContent = notes.join("; ");
  refreshComparison();
  return notes;
}

// The command line's HTML report of this run and the files loaded beside it (its tables and
// charts), in a frame that may run no script: the report escapes every text from a file, and
// the sandbox holds even if one were not escaped.
function refreshReport() {
  const frame = $("report");
  if (window.gpubenchPanic) return; // the module trapped: it can render nothing more
  if (!lastDoc) {
    frame.hidden = true;
    return;
  }
  const files = [{ name: "this run", text: JSON.stringify(lastDoc) },
    ...loaded.map((f) => ({ name: f.name, text: f.text }))];
  try {
    frame.srcdoc = reportHtml(JSON.stringify(files));
    $("report-status").textContent = "";
  } catch (error) {
    // A loaded file the command line's reader refuses: the report of this run alone, and why.
    frame.srcdoc = reportHtml(JSON.stringify(files.slice(0, 1)));
    $("report-status").textContent = `the report leaves the loaded files out: ${error}`;
  }
  frame.hidden = false;
}

// --- Start -----------------------------------------------------------------------------------

async function start() {
  await init();
  installPanicHook();
  offerSuites();
  // Loading files to compare works whatever the adapter request below does.
  $("run").addEventListener("click", runNow);
  $("load").addEventListener("change", (e) => loadFiles([...e.target.files]));
  $("compare-saved").addEventListener("click", () => loadTexts(savedRuns()));
  $("forget-saved").addEventListener("click", () => {
    localStorage.removeItem(SAVED_KEY);
    showSaved();
  });
  showSaved();
  if (!navigator.gpu) {
    $("adapter").textContent = "This browser has no WebGPU (navigator.gpu): use a recent " +
      "Chrome, Edge or Firefox, on a secure page (https or localhost).";
  } else {
    let adapter = null;
    let failure = "This browser offers no WebGPU adapter.";
    try {
      adapter = await navigator.gpu.requestAdapter({ powerPreference: "high-performance" });
    } catch (error) {
      failure = `The adapter request failed: ${error}`;
    }
    const info = adapter ? adapter.info || {} : {};
    adapterText = [info.vendor, info.architecture, info.device, info.description]
      .filter(Boolean).join(" ").slice(0, 200) || null;
    $("adapter").textContent = adapter
      ? `WebGPU adapter: ${adapterText || "no details exposed"}`
      : failure;
    $("run").disabled = !adapter;
  }
  window.gpubench = {
    run: runRequest,
    load: loadTexts,
    // The saved runs' names, and loading them to compare (what the buttons do).
    savedNames: () => savedRuns().map((r) => r.name),
    loadSaved: () => loadTexts(savedRuns()),
    // A test shows a document it made as this run's, to compare files against.
    show: (doc) => { lastDoc = doc; refreshComparison(); },
    ready: true,
  };
}

start().catch((error) => {
  $("adapter").textContent = `The page could not start: ${error}`;
  window.gpubench = { ready: false, error: String(error) };
});
