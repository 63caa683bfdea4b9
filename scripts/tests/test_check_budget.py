"""scripts/check_budget.py: the card's plan is predicted under its budget with margin, the
roofline rule, the refusal's exit statuses, and the plan's counts against the suites' own ids
(the matmul candidates are held to the suite by a Rust test, matmul::check_plan)."""

import collections
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.dirname(HERE)
sys.path.insert(0, SCRIPTS)

import check_budget  # noqa: E402

IDS = os.path.join(os.path.dirname(SCRIPTS), "docs", "results", "lavapipe-quick-ids.tsv")
SUITES = "stream,compute,transfer,launch,roofline,datapath,matmul"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = check_budget.main(list(argv))
    return code, out.getvalue(), err.getvalue()


class Budget(unittest.TestCase):
    def test_the_card_plan_fits_with_margin_and_says_what_it_is_from(self):
        code, out, _ = run("predict", "--suites", SUITES)
        self.assertEqual(code, 0, out)
        plan = check_budget.load_plan()
        total = sum(s for _, s, _ in check_budget.steps(plan, SUITES.split(",")))
        self.assertLess(total, 0.9 * check_budget.BUDGET_S)
        print(f"\ncheck plan for {plan['card']}: predicted {total:.0f} s", file=sys.stderr)
        for step in ("start-up", "cuda-reference", "gpubench", "gpubench-memory", "peers"):
            self.assertIn(step, out)
        self.assertIn('"candidates": 594', out)
        for name, entry in plan["costs"].items():
            self.assertTrue(entry["why"], name)

    def test_over_the_budget_or_the_timeouts_is_refused(self):
        plan = check_budget.load_plan()
        plan["costs"]["row_s"]["value"] = 5.0
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "plan.json")
            with open(path, "w") as f:
                json.dump(plan, f)
            code, _, err = run("predict", "--plan", path, "--suites", SUITES)
        self.assertEqual(code, check_budget.EXIT_OVER_BUDGET)
        self.assertIn("over the 450 s budget", err)
        code, _, err = run("predict", "--suites", SUITES, "--timeouts", "a=300,b=241")
        self.assertEqual(code, check_budget.EXIT_TIMEOUTS)
        self.assertIn("541 s, over 540 s", err)
        self.assertEqual(run("predict", "--suites", SUITES, "--timeouts", "a=300,b=240")[0], 0)

    def test_the_roofline_runs_only_where_it_is_predicted_under_ten_seconds(self):
        plan = check_budget.load_plan()
        self.assertEqual(check_budget.check_suites(plan, SUITES.split(",")), SUITES.split(","))
        plan["gpubench"]["roofline"]["rows"] = 40
        self.assertNotIn("roofline", check_budget.check_suites(plan, SUITES.split(",")))

    def test_the_plan_has_at_least_the_rows_of_a_quick_run(self):
        """A suite's rows on the card are at least those of the quick lavapipe run (the card's
        sweeps are as long or longer), so the prediction does not leave rows out."""
        per_suite = collections.Counter()
        with open(IDS) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    per_suite[line.split("/")[0]] += 1
        plan = check_budget.load_plan()
        for suite, work in plan["gpubench"].items():
            if suite != "matmul":
                self.assertGreaterEqual(work["rows"], per_suite[suite], suite)
        self.assertGreaterEqual(plan["gpubench_memory"]["rows"], per_suite["memory"])

    def test_the_report_puts_measured_beside_predicted(self):
        with tempfile.TemporaryDirectory() as tmp:
            steps = os.path.join(tmp, "steps.tsv")
            with open(steps, "w") as f:
                f.write("start-up\t4\ngpubench\t80\n")
            code, out, _ = run("report", steps, "--suites", SUITES, "--no-peers")
        self.assertEqual(code, 0)
        self.assertRegex(out, r"\| gpubench \| 80 \| \d+ \|")
        self.assertIn("| cuda-reference | not run |", out)
        self.assertNotIn("peers", out)

    def test_the_report_sums_each_suites_wall_time_from_the_results(self):
        def result(suite, wall=None):
            extra = {} if wall is None else {"wall_s": wall}
            return {"id": f"{suite}/x", "suite": suite, "extra": extra}
        with tempfile.TemporaryDirectory() as tmp:
            steps = os.path.join(tmp, "steps.tsv")
            with open(steps, "w") as f:
                f.write("gpubench\t80\n")
            main = os.path.join(tmp, "gpubench.json")
            with open(main, "w") as f:
                json.dump({"results": [result("stream", 2.5), result("stream", 1.5),
                                       result("launch"), result("compute", 0.25),
                                       result("compute")]}, f)
            code, out, _ = run("report", steps, "--suites", SUITES, "--no-peers",
                               "--results", main, os.path.join(tmp, "missing.json"))
        self.assertEqual(code, 0)
        self.assertRegex(out, r"\| stream \| 2 \| 4\.0 \| \d+ \|")
        self.assertIn("| launch | 1 | no wall_s recorded |", out)
        self.assertIn("| compute | 2 | 0.2 (1 of 2 results) |", out)


if __name__ == "__main__":
    unittest.main()
