"""Runs every test in this folder, the tests split over a few processes at once.

Most of these tests wait: on a stub's short sleeps, on a signal's grace period, on a child to
exit. One after the other they take over a minute for a third of that on the CPU; run side by
side (each test has its own temporary directory and child processes), they take a fraction.

Usage: python3 run_all.py [PROCESSES]. Exits 0 when every test passed; otherwise prints each
failing shard's output and exits 1.
"""

import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def test_ids(suite):
    """Every test id under `suite`, in discovery order."""
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from test_ids(item)
        else:
            yield item.id()


def main():
    processes = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    ids = list(test_ids(unittest.TestLoader().discover(HERE)))
    if not ids:
        print("no tests found in", HERE, file=sys.stderr)
        return 1
    shards = [ids[i::processes] for i in range(processes) if ids[i::processes]]
    running = [
        (
            shard,
            subprocess.Popen(
                [sys.executable, "-m", "unittest", *shard],
                cwd=HERE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            ),
        )
        for shard in shards
    ]
    failed = 0
    for shard, child in running:
        output, _ = child.communicate()
        if child.returncode != 0:
            failed += 1
            print(f"--- a shard of {len(shard)} tests failed:\n{output}", file=sys.stderr)
    print(f"{len(ids)} tests in {len(shards)} processes; {failed} shard(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
