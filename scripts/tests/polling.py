"""Helpers the tests that drive the scripts as child processes share: reading a document the
child replaces whole as it goes, and waiting for a moment to act (to send a signal)."""

import json
import time


def read_json(path):
    """The document, or None while it does not exist yet (it is replaced whole, never torn)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def wait_for(predicate, timeout=30.0, what="the condition"):
    """predicate()'s first true value, polled every 20 ms; fails the test after timeout s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")
