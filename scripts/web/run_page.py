#!/usr/bin/env python3
"""Runs gpubench's page (built by `cargo xtask web`) in headless Chromium, as a visitor would,
and checks what a visitor would see.

    run_page.py PAGE_DIR --out RESULTS.json [--suites a,b] [--profile quick] [--chromium PATH]

It serves PAGE_DIR on 127.0.0.1 (a secure origin, as WebGPU requires), opens the page, waits
until it has loaded its wasm build, then:
  1. runs the suites through the page's own entry point and writes the results document it
     returns to RESULTS.json (the caller checks it: schema, statuses);
  2. loads results files made to attack the page (markup and script in ids, names and reasons;
     broken JSON; deep nesting) beside that run, and checks that none becomes markup, that no
     script ran, that each broken one is refused with its reason, and that the report frame
     (the command line's HTML report, sandboxed) shows the run with every text escaped;
  3. checks the run was kept in the browser's storage and survives a reload, that a hostile
     entry put there stays text, and that the run compares with its saved copy at 1.00x;
  4. narrows the window to 400 px and checks the page does not scroll sideways (its tables
     scroll inside their boxes).
Exit 0 when all hold, 1 with the reason when one does not, 2 when the browser cannot start.
"""

import argparse
import functools
import http.server
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The page's own server (web/serve.py): the test serves the page as a user is told to.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web"))
import cdp  # noqa: E402
from serve import IsolatingHandler  # noqa: E402

READY_TIMEOUT_S = 60
NARROW_PX = 400
# What the hostile files try: an element with an onerror handler, a script element, an
# attribute break-out. Any of them becoming markup sets window.__attacked.
PAYLOAD = '<img src=x onerror="window.__attacked=true"><script>window.__attacked=true</script>'


class QuietHandler(IsolatingHandler):
    """Serves the page as web/serve.py does (cross-origin isolated, .wasm with its MIME type),
    without a log line per request."""

    def log_message(self, *args):
        pass


def serve(directory):
    """An HTTP server of `directory` on 127.0.0.1, on a port the system picks, in a thread."""
    handler = functools.partial(QuietHandler, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def hostile_files(run_doc):
    """(name, text, refused) files that attack the page: markup in every text a file shows,
    and files that are not results at all."""
    attack = json.loads(json.dumps(run_doc))
    attack["machine"]["adapter"]["name"] = PAYLOAD
    attack["machine"]["adapter"]["backend"] = PAYLOAD
    attack["machine"]["fingerprint"] = PAYLOAD
    for result in attack["results"]:
        result["reason"] = PAYLOAD
        result["unit"] = PAYLOAD
    first = dict(attack["results"][0]) if attack["results"] else {}
    first["id"] = PAYLOAD
    attack["results"].append(first)
    return [
        (PAYLOAD + ".json", json.dumps(attack), False),
        ("not-json.json", "{ this is not json " + PAYLOAD, True),
        ("no-results.json", json.dumps({"results": PAYLOAD}), True),
        ("deep.json", "[" * 100000 + "]" * 100000, True),
    ]


def wait_ready(page):
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        state = page.evaluate("window.gpubench ? JSON.stringify(window.gpubench) : null")
        if state is not None:
            ready = page.evaluate("window.gpubench.ready === true")
            if ready:
                return None
            return page.evaluate("window.gpubench.error || 'not ready'")
        time.sleep(0.2)
    return f"the page did not load its wasm build within {READY_TIMEOUT_S} s"


def run_suites(page, suites, profile, timeout):
    request = {"suites": suites, "profile": profile}
    text = page.evaluate(
        f"window.gpubench.run({json.dumps(request)}).then(doc => JSON.stringify(doc))",
        timeout=timeout)
    return json.loads(text)


def check_hostile(page, run_doc):
    """Problems found loading the hostile files (none: an empty list)."""
    problems = []
    page.evaluate("window.__attacked = false")
    page.evaluate(f"window.gpubench.show({json.dumps(run_doc)})")
    files = hostile_files(run_doc)
    notes = page.evaluate("window.gpubench.load(" + json.dumps(
        [{"name": name, "text": text} for name, text, _ in files]) + ")")
    for (name, _, refused), note in zip(files, notes):
        if refused and note.endswith(": read"):
            problems.append(f"{name!r} was read as a results file: {note}")
        if not refused and not note.endswith(": read"):
            problems.append(f"the attacking file was refused instead of shown: {note}")
    time.sleep(0.5)  # an injected image's onerror would fire by now
    if page.evaluate("window.__attacked") is not False:
        problems.append("a hostile file's markup ran a script in the page")
    if page.evaluate("document.querySelectorAll('main img, main script').length") != 0:
        problems.append("a hostile file's text became an element")
    shown = page.evaluate("document.getElementById('compare').textContent")
    if "<img src=x" not in shown:
        problems.append("the hostile file's text is not shown as text in the comparison")
    return problems + check_report(page)


def check_saved(page, run_doc):
    """The run is kept in the browser's storage and survives a reload; what is read back from
    storage is treated as any loaded file (a hostile entry stays text), and a saved run
    compares with the same run at a ratio of 1."""
    problems = []
    names = page.evaluate("window.gpubench.savedNames()")
    adapter = run_doc["machine"]["adapter"]["name"]
    if not names or adapter not in names[-1]:
        return [f"the run was not saved in the browser: saved {names!r}"]
    # A marker only the old document holds: until it is gone, wait_ready would read the page
    # that was there before the reload.
    page.evaluate("window.__beforeReload = true")
    page.send("Page.reload")
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        try:
            if page.evaluate("window.__beforeReload !== true"):
                break
        except cdp.CdpError:
            pass  # the old document went away during the call
        if time.monotonic() > deadline:
            return [f"the page did not reload within {READY_TIMEOUT_S} s"]
        time.sleep(0.1)
    problem = wait_ready(page)
    if problem:
        return [f"after a reload: {problem}"]
    if page.evaluate("window.gpubench.savedNames()") != names:
        problems.append("the saved runs did not survive a reload")
    hostile = {"name": PAYLOAD, "text": hostile_files(run_doc)[0][1]}
    page.evaluate("window.__attacked = false; localStorage.setItem('gpubench.saved-runs', "
                  "JSON.stringify([" + json.dumps(hostile) + ", ...JSON.parse("
                  "localStorage.getItem('gpubench.saved-runs'))]))")
    page.evaluate(f"window.gpubench.show({json.dumps(run_doc)})")
    notes = page.evaluate("window.gpubench.loadSaved()")
    if len(notes) != len(names) + 1 or not all(n.endswith(": read") for n in notes):
        problems.append(f"the saved runs were not all read back: {notes!r}")
    time.sleep(0.5)
    if page.evaluate("window.__attacked") is not False:
        problems.append("a hostile saved run's markup ran a script in the page")
    if page.evaluate("document.querySelectorAll('main img, main script').length") != 0:
        problems.append("a hostile saved run's text became an element")
    ratios = page.evaluate("[...document.querySelectorAll('#compare tbody tr')]"
                           ".map(r => r.lastElementChild.textContent)")
    if not ratios or any(r != "1.00x" for r in ratios):
        problems.append(f"the run against its own saved copy is not 1.00x everywhere: "
                        f"{sorted(set(ratios))[:5]}")
    return problems


def check_report(page):
    """The report frame: the command line's report (a table or a chart), in a frame that may
    run no script, with no hostile markup left unescaped."""
    problems = []
    frame = page.evaluate("(() => { const f = document.getElementById('report'); "
                          "return [f.getAttribute('sandbox'), f.srcdoc, f.hidden]; })()")
    sandbox, srcdoc, hidden = frame
    if sandbox != "":
        problems.append(f"the report frame's sandbox is {sandbox!r}, not the strictest ('')")
    if hidden or not ("<svg" in srcdoc or "<table" in srcdoc):
        problems.append("the report frame shows no table or chart")
    if "<img src=x" in srcdoc or "<script>window" in srcdoc:
        problems.append("the report frame holds a hostile file's markup unescaped")
    return problems


def check_narrow(page):
    """The page at NARROW_PX wide: a problem when it scrolls sideways."""
    page.send("Emulation.setDeviceMetricsOverride", {
        "width": NARROW_PX, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    time.sleep(0.3)
    widths = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if widths[0] > widths[1]:
        return [f"at {NARROW_PX} px the page scrolls sideways: {widths[0]} px of content "
                f"in {widths[1]} px"]
    return []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page_dir")
    parser.add_argument("--out", required=True)
    parser.add_argument("--suites", default="launch")
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    server = serve(args.page_dir)
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    try:
        browser = cdp.Browser.start(args.chromium)
    except (cdp.CdpError, OSError) as error:
        print(f"run_page: the browser did not start: {error}", file=sys.stderr)
        return 2
    with browser:
        page = browser.new_page(url)
        problem = wait_ready(page)
        if problem:
            print(f"run_page: {problem}; console: {page.console()}", file=sys.stderr)
            return 1
        started = time.monotonic()
        try:
            doc = run_suites(page, args.suites.split(","), args.profile, args.timeout)
        except cdp.CdpError as error:
            print(f"run_page: the run failed: {error}; console: {page.console()}",
                  file=sys.stderr)
            return 1
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
        print(f"run_page: {len(doc.get('results', []))} results in "
              f"{time.monotonic() - started:.1f} s on {doc['machine']['adapter']['name']!r} "
              f"({doc['machine']['adapter']['backend']}), written to {args.out}")
        problems = check_hostile(page, doc) + check_saved(page, doc) + check_narrow(page)
    server.shutdown()
    for problem in problems:
        print(f"run_page: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
