#!/usr/bin/env python3
"""Tests of report.py's headings: Kafka is named with the version the results record.

  python3 scripts/bench/report_test.py
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402


def run(cmd, lines, env_version=None):
    env = dict(os.environ)
    env.pop("KAFKA_VERSION", None)
    if env_version:
        env["KAFKA_VERSION"] = env_version
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        args = [sys.executable, os.path.join(HERE, "report.py"), cmd, f.name]
        if cmd == "table":
            args.append(f.name + ".csv")
        return subprocess.run(args, env=env, capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
        if os.path.exists(f.name + ".csv"):
            os.unlink(f.name + ".csv")


IDLE = ["mode=idle rss_kb=30000 broker=karst rep=1", "mode=idle rss_kb=400000 broker=kafka rep=1 version=4.1.2"]


class Headings(unittest.TestCase):
    def test_figures_name_the_version_the_results_record(self):
        out = run("figures", IDLE, env_version="4.4.0")
        self.assertIn("| figure | Karst | Apache Kafka 4.1.2 |", out)
        self.assertNotIn("4.4.0", out)

    def test_table_names_the_version_the_results_record(self):
        out = run("table", IDLE)
        self.assertIn("| case | metric | Karst | Apache Kafka 4.1.2 |", out)

    def test_results_without_a_version_fall_back_to_the_environment_then_say_so(self):
        rows = [report.parse_line(line) for line in ("mode=idle rss_kb=1 broker=kafka rep=1",)]
        self.assertIn("| Apache Kafka 4.4.0 |", run("figures", ["mode=idle rss_kb=1 broker=kafka rep=1"], "4.4.0"))
        old = os.environ.pop("KAFKA_VERSION", None)
        try:
            self.assertEqual(report.names(rows)["kafka"], "Apache Kafka (version not recorded)")
        finally:
            if old is not None:
                os.environ["KAFKA_VERSION"] = old

    def test_two_versions_in_one_file_are_both_named(self):
        rows = [report.parse_line(line) for line in IDLE + ["mode=idle rss_kb=1 broker=kafka rep=2 version=4.4.0"]]
        self.assertEqual(report.names(rows)["kafka"], "Apache Kafka 4.1.2/4.4.0")


if __name__ == "__main__":
    unittest.main()
