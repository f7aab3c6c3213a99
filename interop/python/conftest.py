"""Shared pytest wiring: the closing line `interop-python: N passed, M failed`."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

_counts = {}


def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    _counts["passed"] = len(stats.get("passed", []))
    _counts["failed"] = len(stats.get("failed", [])) + len(stats.get("error", []))


def pytest_unconfigure(config):
    if _counts:
        print(f"interop-python: {_counts['passed']} passed, {_counts['failed']} failed", flush=True)
