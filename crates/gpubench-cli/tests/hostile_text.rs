//! Every text field of a hostile results file through every output: each string a file holds
//! (ids, names, units, reasons, warning messages, parameter and extra values, the machine's
//! fields) gets control bytes, a line break, markup, a `javascript:` link, bidirectional
//! overrides and invisible format characters appended, and every text format must show them
//! literally: nothing raw reaches a terminal, no line is forged, no markup reaches Markdown or
//! the HTML page. Needs no adapter: `show`, `compare` and `report` read files.

use std::path::Path;

use gpubench_results::results_file::parse_document;
use serde_json::Value;

mod common;
use common::{arg, assert_has, gpubench_output, text};

/// What every text field gets: an escape sequence, a carriage return, a NUL, a line break
/// that would start a forged line, markup, a link, a right-to-left override, and invisible
/// format characters (zero-width space, word joiner, byte-order mark, line separator).
const PAYLOAD: &str =
    "\x1b[2J\r\0\n<b>forged</b>[l](javascript:alert(1))\u{202e}\u{200b}\u{2060}\u{feff}\u{2028}";

/// Characters no terminal output may hold raw.
const RAW: [char; 8] = [
    '\x1b', '\r', '\0', '\u{202e}', '\u{200b}', '\u{2060}', '\u{feff}', '\u{2028}',
];

/// The committed lavapipe run, every string leaf that can hold any text poisoned (enum values
/// such as statuses and units of measure that the reader checks stay as they are), plus a
/// hostile key in every params and extra map.
fn hostile_document() -> Vec<u8> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpubench-report/tests/fixtures/lavapipe-quick.json");
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(fixture).expect("fixture")).expect("JSON");
    let mut poisoned = 0;
    for path in string_paths(&doc, &mut Vec::new()) {
        let before = doc.clone();
        if let Some(Value::String(s)) = pointer_mut(&mut doc, &path) {
            s.push_str(PAYLOAD);
        }
        let bytes = serde_json::to_vec(&doc).expect("JSON");
        if parse_document(&bytes).is_ok() {
            poisoned += 1;
        } else {
            doc = before;
        }
    }
    for result in doc["results"].as_array_mut().expect("results") {
        for map in ["params", "extra"] {
            if let Some(map) = result[map].as_object_mut() {
                map.insert(format!("key{PAYLOAD}"), Value::String(PAYLOAD.into()));
            }
        }
    }
    assert!(
        poisoned > 500,
        "only {poisoned} text fields took the payload"
    );
    let bytes = serde_json::to_vec_pretty(&doc).expect("JSON");
    parse_document(&bytes).expect("the hostile document still reads");
    bytes
}

/// The JSON-pointer paths (as keys and indices) of every string leaf below `value`.
fn string_paths(value: &Value, at: &mut Vec<String>) -> Vec<Vec<String>> {
    match value {
        Value::String(_) => vec![at.clone()],
        Value::Array(items) => (0..items.len())
            .flat_map(|i| {
                at.push(i.to_string());
                let found = string_paths(&items[i], at);
                at.pop();
                found
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .flat_map(|(key, item)| {
                at.push(key.clone());
                let found = string_paths(item, at);
                at.pop();
                found
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The value at `path` (keys and indices) in `value`.
fn pointer_mut<'a>(value: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |v, key| match v {
        Value::Array(items) => items.get_mut(key.parse::<usize>().ok()?),
        Value::Object(map) => map.get_mut(key),
        _ => None,
    })
}

/// `what`'s output holds nothing raw from the payload: no control or format character, and
/// no line the payload's line break started.
fn assert_literal(what: &str, output: &str) {
    let raw: Vec<char> = RAW.into_iter().filter(|c| output.contains(*c)).collect();
    assert!(raw.is_empty(), "{what}: raw {raw:?} in the output");
    let forged: Vec<&str> = output
        .lines()
        .filter(|line| line.trim_start().starts_with("<b>forged"))
        .take(3)
        .collect();
    assert!(forged.is_empty(), "{what}: forged lines {forged:?}");
}

/// Markdown holds no tag and no link from the payload.
fn assert_no_markup(what: &str, output: &str) {
    assert!(!output.contains("<b>"), "{what}: a raw tag");
    assert!(!output.contains("[l](javascript:"), "{what}: a raw link");
}

#[test]
fn every_text_field_of_a_hostile_file_is_shown_literally_in_every_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let bytes = hostile_document();
    let base = dir.path().join("base.json");
    let new = dir.path().join("new.json");
    let third = dir.path().join("third.json");
    for path in [&base, &new, &third] {
        std::fs::write(path, &bytes).expect("write");
    }
    let (b, n, t) = (arg(&base), arg(&new), arg(&third));
    let runs: [(&str, Vec<&str>); 4] = [
        ("show", vec!["show", b, "--verbose"]),
        ("show two", vec!["show", b, n]),
        ("compare", vec!["compare", b, n, "--no-fail"]),
        ("cross", vec!["compare", b, n, t]),
    ];
    for (what, args) in &runs {
        for format in ["table", "md", "csv"] {
            let mut args = args.clone();
            args.extend(["--format", format]);
            let out = gpubench_output(&args);
            let label = format!("{what} --format {format}");
            assert!(out.status.success(), "{label}: {}", text(&out.stderr));
            let stdout = text(&out.stdout);
            if format != "csv" {
                // CSV quotes a field's line break, as the format allows.
                assert_literal(&label, &stdout);
            }
            assert!(!stdout.contains(RAW), "{label}: raw characters");
            if format == "md" {
                assert_no_markup(&label, &stdout);
            }
            assert_literal(&format!("{label} (stderr)"), &text(&out.stderr));
        }
    }
    // JSON stays JSON, and what it holds reads back whole; on a terminal it shows no raw
    // override or control either.
    for (what, args) in &runs[..3] {
        let mut args = args.clone();
        args.extend(["--format", "json"]);
        let out = gpubench_output(&args);
        assert!(out.status.success(), "{what} json: {}", text(&out.stderr));
        let stdout = text(&out.stdout);
        let raw: Vec<char> = RAW.into_iter().filter(|c| stdout.contains(*c)).collect();
        assert!(raw.is_empty(), "{what} json: raw {raw:?}");
        serde_json::from_str::<serde_json::Value>(&stdout).expect("stdout is JSON");
    }
    let html = dir.path().join("page.html");
    let out = gpubench_output(&["report", b, n, "--html", arg(&html)]);
    assert!(out.status.success(), "report: {}", text(&out.stderr));
    let page = std::fs::read_to_string(&html).expect("page");
    assert!(!page.contains("<b>forged"), "report: a raw tag");
    let raw: Vec<char> = RAW.into_iter().filter(|c| page.contains(*c)).collect();
    assert!(raw.is_empty(), "report: raw {raw:?} in the page");
}

/// A refused flag value is echoed through the terminal's rule: exit 2, nothing raw.
#[test]
fn an_invalid_flag_value_is_echoed_literally() {
    // An argument cannot hold a NUL byte.
    let value = PAYLOAD.replace('\0', "");
    for args in [
        ["run", "--profile", value.as_str()],
        ["show", "--format", value.as_str()],
    ] {
        let out = gpubench_output(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert_has(&stderr, "invalid value");
        assert_literal(&format!("{args:?}"), &stderr);
        assert!(stderr.contains("\\u{202e}"), "shown, not hidden: {stderr}");
    }
}
