#!/usr/bin/env python3
"""Unit test of the tool-info module (plain unittest, no pytest): feeds it the recorded real
outputs of witness-check in recorded/ (exit code in the file name, see record-outputs) and a
few synthetic ones, and checks the command lines it builds. Run by tests/benchexec.rs
(`cargo test`); needs BenchExec importable. WITNESS_CHECK_BIN: the binary whose version the
module must report (default target/release/witness-check, if built)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import benchexec.result as result  # noqa: E402
from benchexec.tools.template import BaseTool2, UnsupportedFeatureException  # noqa: E402
from benchexec.util import ProcessExitCode  # noqa: E402

from witness_check_benchexec.witness_check import Tool  # noqa: E402

RECORDED = os.path.join(HERE, "recorded")

# Recorded real outputs and the BenchExec result each must give.
EXPECTED = {
    "minimal-confirm": result.RESULT_FALSE_REACH,
    "minimal-confirm-json": result.RESULT_FALSE_REACH,
    "overflow-confirm": result.RESULT_FALSE_OVERFLOW,
    "memsafety-deref-confirm": result.RESULT_FALSE_DEREF,
    "memsafety-free-confirm": result.RESULT_FALSE_FREE,
    "memsafety-memtrack-confirm": result.RESULT_FALSE_MEMTRACK,
    "memcleanup-confirm": result.RESULT_FALSE_MEMCLEANUP,
    "bitfield-pattern-reject": result.RESULT_TRUE_PROP,
    "array-out-of-bounds-unknown": result.RESULT_UNKNOWN,
    # Failures are short categorical statuses (the reason is in the run's log).
    "malformed-witness": "ERROR (invalid input)",
    "malformed-witness-json": "ERROR (invalid input)",
    "usage-no-witness": "ERROR (usage)",
    "usage-unknown-option": "ERROR (usage)",
    "usage-several-properties": "ERROR (usage)",
}


def run_of(lines, exit_code=0, signal=None, terminated=None):
    code = ProcessExitCode.create(value=exit_code) if signal is None else ProcessExitCode.create(signal=signal)
    return BaseTool2.Run(["witness-check"], code, BaseTool2.RunOutput(lines), terminated)


class DetermineResult(unittest.TestCase):
    def setUp(self):
        self.tool = Tool()

    def test_recorded_outputs(self):
        files = sorted(f for f in os.listdir(RECORDED) if f.endswith(".log"))
        seen = set()
        for name in files:
            m = re.fullmatch(r"(.+)\.exit(\d+)\.log", name)
            self.assertIsNotNone(m, name)
            case, code = m.group(1), int(m.group(2))
            with open(os.path.join(RECORDED, name), encoding="utf-8") as f:
                lines = f.read().splitlines()
            with self.subTest(case=case):
                self.assertIn(case, EXPECTED, f"no expectation for recorded output {name}")
                self.assertEqual(self.tool.determine_result(run_of(lines, code)), EXPECTED[case])
                seen.add(case)
        self.assertEqual(seen, set(EXPECTED), "recorded outputs missing")

    def test_every_result_string(self):
        for ours, theirs in [
            ("false(unreach-call)", result.RESULT_FALSE_REACH),
            ("false(no-overflow)", result.RESULT_FALSE_OVERFLOW),
            ("false(valid-deref)", result.RESULT_FALSE_DEREF),
            ("false(valid-free)", result.RESULT_FALSE_FREE),
            ("false(valid-memtrack)", result.RESULT_FALSE_MEMTRACK),
            ("false(valid-memcleanup)", result.RESULT_FALSE_MEMCLEANUP),
            ("false(termination)", result.RESULT_FALSE_TERMINATION),
            ("true", result.RESULT_TRUE_PROP),
            ("unknown", result.RESULT_UNKNOWN),
        ]:
            with self.subTest(result=ours):
                self.assertEqual(self.tool.determine_result(run_of(["stats: …", f"RESULT: {ours}"])), theirs)
                json_line = '{"result": "%s", "verdict": "x", "reason": "r"}' % ours
                self.assertEqual(self.tool.determine_result(run_of([json_line])), theirs)

    def test_synthetic_failures(self):
        # main.rs's text for a panic (exit 4); JSON form too.
        self.assertEqual(
            self.tool.determine_result(run_of(["witness-check: internal error (please report): boom"], 4)),
            "ERROR (internal error)",
        )
        j = '{"error_kind":"internal","reason":"internal error (please report): boom","result":"error"}'
        self.assertEqual(self.tool.determine_result(run_of([j], 4)), "ERROR (internal error)")
        self.assertEqual(self.tool.determine_result(run_of([], 4)), "ERROR (internal error)")
        self.assertEqual(self.tool.determine_result(run_of(["stats: …"], signal=9)), "ERROR (signal 9)")
        self.assertEqual(
            self.tool.determine_result(run_of(["stats: …"], signal=9, terminated="cputime")), result.RESULT_TIMEOUT
        )
        # The budget ran out inside witness-check: its own answer stands.
        self.assertEqual(
            self.tool.determine_result(run_of(["time budget of 89 s exhausted", "RESULT: unknown"])),
            result.RESULT_UNKNOWN,
        )
        # Issue 35 item 1: a data race is a result (tests/benchexec.rs checks every result string
        # the binary prints); a property witness-check never checks is not.
        self.assertEqual(
            self.tool.determine_result(run_of(["RESULT: false(no-data-race)"])), result.RESULT_FALSE_DATARACE
        )
        self.assertEqual(
            self.tool.determine_result(run_of(["RESULT: false(no-deadlock)"])),
            "ERROR (unexpected result)",
        )
        self.assertEqual(self.tool.determine_result(run_of(["hello"], 0)), "ERROR (no result)")


class Statistics(unittest.TestCase):
    """Issue 35 item 10: the statistics of a run for <column> elements (get_value_from_output)."""

    def test_text_and_json_output(self):
        tool = Tool()
        text = [
            "warning: the witness has no program hash",
            "stats: 4306 ms, 2305 product states, 1024 solver calls; YAML 2.0 witness, reading: segments greedy "
            "(first occurrence); data model ILP32",
            "RESULT: true",
        ]
        self.assertEqual(tool.get_value_from_output(text, "product_states"), 2305)
        self.assertEqual(tool.get_value_from_output(text, "solver_calls"), 1024)
        self.assertEqual(tool.get_value_from_output(text, "wall_ms"), 4306)
        self.assertEqual(tool.get_value_from_output(text, "reading"), "segments greedy (first occurrence)")
        self.assertEqual(tool.get_value_from_output(text, "data_model"), "ILP32")
        self.assertIsNone(tool.get_value_from_output(text, "no_such_statistic"))
        j = '{"result": "true", "data_model": "LP64", "stats": {"product_states": 7, "max_rss_mib": 5.5}}'
        self.assertEqual(tool.get_value_from_output([j], "product_states"), 7)
        self.assertEqual(tool.get_value_from_output([j], "max_rss_mib"), 5.5)
        self.assertEqual(tool.get_value_from_output([j], "data_model"), "LP64")
        self.assertIsNone(Tool().project_url())


class Cmdline(unittest.TestCase):
    def setUp(self):
        self.tool = Tool()

    def test_witness_from_task_options(self):
        task = BaseTool2.Task.with_files(
            ["tasks/prog.c", "witnesses/w.graphml"],
            property_file="props/unreach-call.prp",
            options={"language": "C", "data_model": "ILP32", "witness_input_file": "w.graphml"},
        )
        limits = BaseTool2.ResourceLimits(cputime=90, cputime_hard=96)
        self.assertEqual(
            self.tool.cmdline("wc", [], task, limits),
            ["wc", "validate", "--witness", "witnesses/w.graphml", "--property", "props/unreach-call.prp",
             "--data-model", "ILP32", "--timeout", "89", "tasks/prog.c"],
        )

    def test_witness_from_benchmark_options(self):
        task = BaseTool2.Task.with_files(
            ["tasks/prog.c"], property_file="p.prp", options={"language": "C", "data_model": "LP64"}
        )
        cmd = self.tool.cmdline("wc", ["--witness", "w.yml", "--timeout", "30"], task, BaseTool2.ResourceLimits(cputime=90))
        self.assertEqual(
            cmd,
            ["wc", "validate", "--witness", "w.yml", "--timeout", "30", "--property", "p.prp",
             "--data-model", "LP64", "tasks/prog.c"],
        )

    def test_options_with_equals_sign_win(self):
        task = BaseTool2.Task.with_files(
            ["prog.c", "w.graphml"],
            property_file="p.prp",
            options={"language": "C", "data_model": "ILP32", "witness_input_file": "w.graphml"},
        )
        cmd = self.tool.cmdline(
            "wc", ["--witness=other.yml", "--data-model=LP64"], task, BaseTool2.ResourceLimits(cputime=10)
        )
        self.assertEqual(
            cmd,
            ["wc", "validate", "--witness=other.yml", "--data-model=LP64", "--property", "p.prp",
             "--timeout", "9", "prog.c"],
        )

    def test_unsupported_tasks(self):
        with self.assertRaises(UnsupportedFeatureException):
            self.tool.cmdline("wc", [], BaseTool2.Task.with_files(["a.c", "b.c"]), BaseTool2.ResourceLimits())
        bad_model = BaseTool2.Task.with_files(["a.c"], options={"language": "C", "data_model": "LLP64"})
        with self.assertRaises(UnsupportedFeatureException):
            self.tool.cmdline("wc", [], bad_model, BaseTool2.ResourceLimits())
        no_witness = BaseTool2.Task.with_files(["a.c"], options={"witness_input_file": "w.graphml"})
        with self.assertRaises(UnsupportedFeatureException):
            self.tool.cmdline("wc", [], no_witness, BaseTool2.ResourceLimits())


class Version(unittest.TestCase):
    def test_version_of_the_binary(self):
        binary = os.environ.get("WITNESS_CHECK_BIN") or os.path.join(HERE, "../../target/release/witness-check")
        if not os.path.exists(binary):
            self.skipTest(f"no binary at {binary}")
        printed = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
        version = Tool().version(binary)
        self.assertRegex(version, r"^\d+\.\d+\.\d+")
        self.assertEqual(printed.strip(), f"witness-check {version}")

    def test_version_names_commit_and_z3(self):
        binary = os.environ.get("WITNESS_CHECK_BIN") or os.path.join(HERE, "../../target/release/witness-check")
        if not os.path.exists(binary):
            self.skipTest(f"no binary at {binary}")
        self.assertRegex(Tool().version(binary), r"^\d+\.\d+\.\d+ \(commit (\w+), Z3 \d+\.\d+")

    def test_archive_files_are_program_files(self):
        # The layout `make dist` writes: the binary, and the Z3 library under lib/ (listed as
        # the directory, which BenchExec takes whole).
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "lib"))
            for f in ["witness-check", "lib/libz3.so.4", "lib/LICENSE-z3"]:
                open(os.path.join(d, f), "w").close()
            files = Tool().program_files(os.path.join(d, "witness-check"))
            self.assertEqual(
                sorted(os.path.relpath(f, d) for f in files),
                ["lib", "witness-check"],
            )

    def test_repository_root_as_tool_directory(self):
        root = os.path.normpath(os.path.join(HERE, "../.."))
        if not os.path.exists(os.path.join(root, "target/release/witness-check")):
            self.skipTest("no release binary")
        found = Tool().executable(BaseTool2.ToolLocator(tool_directory=root))
        self.assertEqual(os.path.normpath(found), os.path.join(root, "target/release/witness-check"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
