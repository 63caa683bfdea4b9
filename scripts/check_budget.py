#!/usr/bin/env python3
"""The GPU check's time on the card, predicted from the work each step does, so that a plan that
cannot finish in the window is refused before the window starts.

The device lends 600 s per command and 15 minutes in all, start-up and a rerun included. The
whole check must be predicted under BUDGET_S, and its steps' timeouts must add up to at most
TIMEOUTS_MAX_S (a step that overruns is stopped, and the rest still run).

The model (scripts/check-plan-h200.json holds its inputs, each cost with why it is that):
  start-up        processes x process_start_s (gpubench list, nvidia-smi, gpubench doctor)
  cuda-reference  torch_start_s + nvcc programs x nvcc_build_s + rows x cuda_row_s + memory rows
                  x cuda_memory_row_s + arrays set up
  peers           vkpeak_s + clpeak_s where they are carried
  gpubench        per suite: rows x row_s + its arrays at setup_gb_per_s; matmul: per product,
                  candidates x candidate_s + cooperative-matrix candidates x coop_candidate_s +
                  final_rows_per_product x row_s + its matrices set up
  gpubench-memory rows x row_s + its working sets set up
The counts are the card's: the matmul products' candidates are held to the suite's own selection
by a test (matmul::check_plan), the other rows to the committed quick run's ids.

  check_budget.py predict [--suites LIST] [--no-peers] [--timeouts NAME=S,...] [--json OUT]
  check_budget.py report STEPS.tsv [--suites LIST] [--no-peers] [--results FILE ...]

predict prints each step's prediction and its inputs, exit 0 when the plan fits, 4 when the
prediction exceeds BUDGET_S, 5 when the timeouts add up to more than TIMEOUTS_MAX_S. report puts
the times a check measured (STEPS.tsv: name, seconds; on the card, or lavapipe's in a
rehearsal) beside the predictions, as Markdown; with --results (gpubench's results files), each
suite's measured time too: the sum of its results' extra.wall_s (the whole benchmark, set-up and
checks included) beside the timed regions' share and the suite's prediction, the figures the
model's costs are calibrated from.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLAN = os.path.join(HERE, "check-plan-h200.json")
BUDGET_S = 450
TIMEOUTS_MAX_S = 540
# The roofline suite runs in the check only where its prediction is below this.
ROOFLINE_MAX_S = 10
EXIT_OVER_BUDGET = 4
EXIT_TIMEOUTS = 5


def load_plan(path=PLAN):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cost(plan, name):
    return plan["costs"][name]["value"]


def setup_s(plan, nbytes):
    return nbytes / (cost(plan, "setup_gb_per_s") * 1e9)


def suite_s(plan, name):
    """One suite's predicted seconds in gpubench's run, and the work it is predicted from."""
    work = plan["gpubench"][name]
    seconds = work["rows"] * cost(plan, "row_s") + setup_s(plan, work["setup_bytes"])
    inputs = {"rows": work["rows"], "setup_bytes": work["setup_bytes"]}
    if name == "matmul":
        products = plan["matmul_products"]
        candidates = sum(p["candidates"] for p in products)
        coop = sum(p["coop"] for p in products)
        matrices = sum(matrix_bytes(p) for p in products)
        seconds += (candidates * cost(plan, "candidate_s")
                    + coop * cost(plan, "coop_candidate_s")
                    + len(products) * cost(plan, "final_rows_per_product") * cost(plan, "row_s")
                    + setup_s(plan, matrices))
        inputs.update(products=len(products), candidates=candidates, coop_candidates=coop,
                      matrix_bytes=matrices)
    return seconds, inputs


def matrix_bytes(product):
    """A, B and C of one product, in its precision."""
    m, n, k = (int(x) for x in product["shape"].split("x"))
    return (m * k + k * n + m * n) * (4 if product["precision"] == "f32" else 2)


def steps(plan, suites, peers=True):
    """[(step name, predicted seconds, inputs)] in the check's order."""
    processes = plan["startup"]["processes"]
    ref = plan["cuda_reference"]
    out = [("start-up", processes * cost(plan, "process_start_s"), {"processes": processes}),
           ("cuda-reference", cost(plan, "torch_start_s")
            + ref["nvcc_programs"] * cost(plan, "nvcc_build_s")
            + ref["rows"] * cost(plan, "cuda_row_s")
            + ref["memory_rows"] * cost(plan, "cuda_memory_row_s")
            + setup_s(plan, ref["setup_bytes"]), ref)]
    if peers:
        out.append(("peers", sum(plan["peers"].values()), plan["peers"]))
    per_suite = {name: suite_s(plan, name) for name in suites}
    out.append(("gpubench", sum(s for s, _ in per_suite.values()),
                {name: {"seconds": round(s, 1), **inputs}
                 for name, (s, inputs) in per_suite.items()}))
    memory = plan["gpubench_memory"]
    out.append(("gpubench-memory", memory["rows"] * cost(plan, "row_s")
                + setup_s(plan, memory["setup_bytes"]), memory))
    return out


def check_suites(plan, wanted):
    """The suites the main run takes: the wanted ones, the roofline only where its prediction
    is under ROOFLINE_MAX_S on the card."""
    return [s for s in wanted if s != "roofline" or suite_s(plan, s)[0] < ROOFLINE_MAX_S]


def parse_timeouts(text):
    out = {}
    for item in filter(None, (text or "").split(",")):
        name, _, seconds = item.partition("=")
        try:
            out[name] = float(seconds)
        except ValueError:
            raise SystemExit(f"check_budget: timeout {item!r} is not NAME=SECONDS") from None
    return out


def predict(args, plan):
    suites = args.suites.split(",")
    predicted = steps(plan, suites, peers=not args.no_peers)
    total = sum(s for _, s, _ in predicted)
    timeouts = parse_timeouts(args.timeouts)
    print(f"check plan for {plan['card']}: predicted {total:.0f} s of the {BUDGET_S} s budget")
    for name, seconds, inputs in predicted:
        print(f"  {name:<16} {seconds:6.1f} s   from {json.dumps(inputs, sort_keys=True)}")
    if timeouts:
        print(f"  step timeouts add up to {sum(timeouts.values()):.0f} s "
              f"(at most {TIMEOUTS_MAX_S} s): {args.timeouts}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"card": plan["card"], "budget_s": BUDGET_S, "predicted_s": total,
                       "steps": [{"name": n, "predicted_s": s, "inputs": i}
                                 for n, s, i in predicted],
                       "timeouts_s": timeouts}, f, indent=1)
    if total > BUDGET_S:
        print(f"check_budget: refused: the plan is predicted at {total:.0f} s, over the "
              f"{BUDGET_S} s budget; run fewer suites or smaller sweeps", file=sys.stderr)
        return EXIT_OVER_BUDGET
    if sum(timeouts.values()) > TIMEOUTS_MAX_S:
        print(f"check_budget: refused: the step timeouts add up to "
              f"{sum(timeouts.values()):.0f} s, over {TIMEOUTS_MAX_S} s", file=sys.stderr)
        return EXIT_TIMEOUTS
    return 0


def report(args, plan):
    """Markdown: each step's time measured here beside its prediction for the card."""
    measured = {}
    with open(args.steps, encoding="utf-8") as f:
        for line in f:
            name, _, seconds = line.strip().partition("\t")
            if name and seconds:
                measured[name] = measured.get(name, 0.0) + float(seconds)
    predicted = steps(plan, args.suites.split(","), peers=not args.no_peers)
    print("| step | measured here (s) | predicted on the card (s) |")
    print("| --- | --- | --- |")
    for name, seconds, _ in predicted:
        here = measured.get(name)
        print(f"| {name} | {'not run' if here is None else f'{here:.0f}'} | {seconds:.0f} |")
    total = sum(s for _, s, _ in predicted)
    print(f"| total | {sum(measured.values()):.0f} | {total:.0f} (budget {BUDGET_S}) |")
    if args.results:
        print()
        print_suite_times(plan, suite_times(args.results))
    return 0


def suite_times(paths):
    """{suite: (results, seconds in all, results with a wall time)} from gpubench's results
    files: each result's extra.wall_s, the whole benchmark's time. A file that cannot be read
    is skipped (a step that was stopped may have left none)."""
    times = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                results = json.load(f).get("results", [])
        except (OSError, ValueError, AttributeError):
            continue
        for result in results:
            suite = result.get("suite", "?")
            wall = (result.get("extra") or {}).get("wall_s")
            count, seconds, timed = times.get(suite, (0, 0.0, 0))
            if isinstance(wall, (int, float)):
                seconds, timed = seconds + wall, timed + 1
            times[suite] = (count + 1, seconds, timed)
    return times


def print_suite_times(plan, times):
    """Markdown: each suite's measured seconds beside its prediction."""
    print("| gpubench suite | results | measured (s, sum of wall_s) | predicted (s) |")
    print("| --- | --- | --- | --- |")
    for suite, (count, seconds, timed) in sorted(times.items()):
        work = plan["gpubench"].get(suite)
        if work is not None:
            guess = f"{suite_s(plan, suite)[0]:.0f}"
        elif suite == "memory":
            memory = plan["gpubench_memory"]
            guess = f"{memory['rows'] * cost(plan, 'row_s') + setup_s(plan, memory['setup_bytes']):.0f}"
        else:
            guess = "-"
        shown = f"{seconds:.1f}" if timed else "no wall_s recorded"
        if 0 < timed < count:
            shown += f" ({timed} of {count} results)"
        print(f"| {suite} | {count} | {shown} | {guess} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("predict", "report", "suites"):
        p = sub.add_parser(name)
        if name == "report":
            p.add_argument("steps")
            p.add_argument("--results", nargs="*", default=[])
        p.add_argument("--suites", default="stream,compute,transfer,launch,roofline,datapath,"
                                           "matmul")
        p.add_argument("--no-peers", action="store_true")
        p.add_argument("--timeouts")
        p.add_argument("--json")
        p.add_argument("--plan", default=PLAN)
    args = parser.parse_args(argv)
    plan = load_plan(args.plan)
    if args.command == "suites":
        print(",".join(check_suites(plan, args.suites.split(","))))
        return 0
    return predict(args, plan) if args.command == "predict" else report(args, plan)


if __name__ == "__main__":
    sys.exit(main())
