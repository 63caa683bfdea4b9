//! A suite is one folder and one registry line: the example suite (`src/example` of the suites
//! crate, compiled into the test binary by the `example-suite` feature and named nowhere else)
//! reaches `--suite`, `run --help` (its option), the results file and its `config.options`,
//! every export and the HTML report (charted there by the chart hint it declares). The shader tests and `gpubench kernels` take it from the
//! same registry (`shaders_validate`, `kernels_isa`), and the validation-layer run through
//! `--suite all`.

mod common;

use common::{
    assert_exit, assert_exit_saying, assert_has_all, gpubench_command, quick_suite_run, read_doc,
    result_with, text, vulkan_temp_dir,
};

#[test]
fn the_example_suite_and_its_option_are_offered_by_help() {
    let out = gpubench_command()
        .args(["run", "--help"])
        .output()
        .expect("runs");
    assert_exit(&out, 0);
    assert_has_all(&text(&out.stdout), &["--example-size <SIZE>", "example"]);
    let refused = gpubench_command()
        .args(["run", "--suite", "example", "--example-size", "lots"])
        .output()
        .expect("runs");
    // The suite's own parser refuses the value: a usage error.
    assert_exit_saying(&refused, 2, &["--example-size lots"]);
}

#[test]
fn the_example_suite_runs_verified_and_reaches_every_output() {
    let Some(dir) = vulkan_temp_dir() else { return };
    let path = |name: &str| dir.path().join(name).to_string_lossy().to_string();
    let (out, html) = (dir.path().join("r.json"), path("r.html"));
    let exports = [
        ("--export-json", path("e.json")),
        ("--export-csv", path("e.csv")),
        ("--export-md", path("e.md")),
        ("--export-bmf", path("e.bmf.json")),
        ("--export-gab", path("e.gab.json")),
    ];
    let mut flags = vec![
        "--example-size",
        "64KiB",
        "--noise-check",
        "off",
        "--telemetry",
        "off",
        "--max-time",
        "0.3",
        "--html",
        html.as_str(),
        "--export-adapter-names",
    ];
    for (flag, file) in &exports {
        flags.extend([*flag, file.as_str()]);
    }
    let output = quick_suite_run("example", &out, &flags);
    assert_exit(&output, 0);
    let doc = read_doc(&out);
    let row = result_with(&doc, "example/scale_add/f32/64KiB");
    assert_eq!(row["status"], "ok");
    assert_eq!(row["verified"], true);
    assert_eq!(doc["config"]["suites"], serde_json::json!(["example"]));
    assert_eq!(doc["config"]["options"]["example_size"], 65536);
    // The run's table: the suite's own grid, headed by its name, its row by the id within it.
    let table = text(&output.stdout);
    let header = table
        .lines()
        .find(|l| l.contains("┆ value ┆"))
        .unwrap_or_default();
    assert!(header.contains("example"), "the table:\n{table}");
    assert!(table.contains("scale_add/f32/64KiB"), "the table:\n{table}");
    // Its row declares a chart hint (bars of the group `example`), and the HTML report, which
    // names no suite, charts it by that hint.
    assert_eq!(row["chart"]["kind"], "bars", "{row}");
    assert_eq!(row["chart"]["group"], "example", "{row}");
    assert_html_charts_the_row(&html);
    for (flag, file) in exports.iter().chain([&("--html", html.clone())]) {
        assert_output_holds_the_row(flag, file);
    }
    // --export-adapter-names names the run's BMF entries by adapter, as show's.
    let bmf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path("e.bmf.json")).expect("bmf"))
            .expect("JSON");
    let adapter =
        gpubench_results::schema::slug(doc["machine"]["adapter"]["name"].as_str().expect("name"));
    let names: Vec<&String> = bmf.as_object().expect("object").keys().collect();
    assert!(
        !names.is_empty()
            && names.iter().all(|n| {
                n.contains(&format!("{adapter}/example/"))
                    || n.ends_with(&format!("{adapter}/gpubench/run"))
            }),
        "{names:?}"
    );
}

/// The HTML report at `html`, which names no suite, charts the example row by its hint.
fn assert_html_charts_the_row(html: &str) {
    let page = std::fs::read_to_string(html).expect("the HTML report");
    let section = page
        .split("<h2>example</h2>")
        .nth(1)
        .and_then(|rest| rest.split("</section>").next())
        .expect("a section charting the example suite's bars");
    assert!(section.contains("<svg"), "a chart: {section}");
    assert!(
        section.contains("example/scale_add/f32/64KiB") && section.contains("scale_add"),
        "its bar: {section}"
    );
}

/// The output `flag` wrote to `file` holds the example suite's row.
fn assert_output_holds_the_row(flag: &str, file: &str) {
    let written = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{flag}: {e}"));
    // Markdown names a row by its id within its suite's table (the full id appears only where
    // a warning line names it), so there the suite's heading and the row are looked for; every
    // other output holds the full id.
    let present = if flag == "--export-md" {
        written.contains("example") && written.contains("scale_add/f32/64KiB")
    } else {
        written.contains("example/scale_add") || written.contains("example\\/scale_add")
    };
    assert!(
        present,
        "{flag} leaves the example suite's row out:\n{written}"
    );
}
