# BenchExec tool-info module for witness-check, a validator of SV-COMP witnesses.
# Use it with the dotted module name and the directory of this package on PYTHONPATH:
#   PYTHONPATH=contrib/benchexec benchexec --tool-directory target/release \
#       witness_check_benchexec.witness_check ... (or a benchmark definition with
#       <benchmark tool="witness_check_benchexec.witness_check" ...>)
# See contrib/benchexec/README.md.

import json
import os

import benchexec.result as result
import benchexec.tools.template
from benchexec.tools.template import ToolNotFoundException, UnsupportedFeatureException

# Task option naming the witness among the input files (BenchExec's convention for
# validation tasks, as in benchexec.tools.sv_benchmarks_util).
WITNESS_INPUT_FILE_OPTION = "witness_input_file"

# witness-check's confirmation strings and BenchExec's results.
_FALSE_RESULTS = {
    "unreach-call": result.RESULT_FALSE_REACH,
    "no-overflow": result.RESULT_FALSE_OVERFLOW,
    "valid-deref": result.RESULT_FALSE_DEREF,
    "valid-free": result.RESULT_FALSE_FREE,
    "valid-memtrack": result.RESULT_FALSE_MEMTRACK,
    "valid-memcleanup": result.RESULT_FALSE_MEMCLEANUP,
    "termination": result.RESULT_FALSE_TERMINATION,
    "no-data-race": result.RESULT_FALSE_DATARACE,
}

# Exit codes of witness-check (witness-check/src/main.rs).
_EXIT_KINDS = {2: "usage", 3: "input", 4: "internal"}

# Longest reason kept in an ERROR result (BenchExec shows results in table cells).
_MAX_REASON = 100


class Tool(benchexec.tools.template.BaseTool2):
    """
    witness-check validates SV-COMP witnesses of C programs, sequential and multi-threaded:
    violation witnesses (GraphML 1.0, YAML 2.0-2.2) for unreach-call, no-overflow,
    valid-memsafety, valid-memcleanup, no-data-race and termination (non-termination lassos),
    and correctness witnesses (invariants) for unreach-call and no-overflow, by exploring the
    product of program and witness automaton with bit-precise semantics (Z3).

    Results are those of the program, as in SV-COMP's validation tracks: `false(p)` when a
    violation witness is confirmed or a correctness witness refuted, `true` when a violation
    witness is rejected or a correctness witness confirmed, `unknown` otherwise.

    The witness comes from the benchmark definition: either an option `--witness FILE`
    (e.g. <option name="--witness">../witnesses/${taskdef_name}.graphml</option> with the
    file among <requiredfiles>), or, for validation tasks, the task option
    `witness_input_file` naming one of the task's input files.
    The task's property file and data model are passed on; the CPU-time limit becomes
    witness-check's own budget (`--timeout`, one second less), so that it answers `unknown`
    instead of being killed.
    """

    def executable(self, tool_locator):
        # The tool directory may be the binary's directory or the repository root.
        try:
            return tool_locator.find_executable("witness-check")
        except ToolNotFoundException:
            return tool_locator.find_executable("witness-check", subdir="target/release")

    # The competition archive's files besides the binary (`make dist`): the Z3 library the
    # binary loads through its run path $ORIGIN/lib, and its licence.
    REQUIRED_PATHS = ["lib"]

    def program_files(self, executable):
        return [executable] + self._program_files_from_executable(executable, self.REQUIRED_PATHS)

    def name(self):
        return "witness-check"

    def version(self, executable):
        # `witness-check --version` prints "witness-check 0.1.0 (commit 0123abcd4567, Z3 4.8.12.0)":
        # the version, the commit built from and the Z3 library loaded tell builds apart.
        return self._version_from_tool(executable).replace("witness-check", "", 1).strip()

    def cmdline(self, executable, options, task, rlimits):
        task_options = task.options if isinstance(task.options, dict) else {}
        inputs = list(task.input_files_or_identifier)
        args = list(options)

        witness_name = task_options.get(WITNESS_INPUT_FILE_OPTION)
        if witness_name and not _has_option(options, "--witness"):
            witnesses = [f for f in inputs if os.path.basename(f) == witness_name]
            if len(witnesses) != 1:
                raise UnsupportedFeatureException(
                    f"the task option {WITNESS_INPUT_FILE_OPTION} names {witness_name}, "
                    f"which is not exactly one of the input files"
                )
            args += ["--witness", witnesses[0]]
        if witness_name:
            inputs = [f for f in inputs if os.path.basename(f) != witness_name]

        if len(inputs) > 1:
            raise UnsupportedFeatureException(
                "witness-check validates one C file per task, not several input files"
            )

        if task.property_file and not _has_option(options, "--property"):
            args += ["--property", task.property_file]

        data_model = task_options.get("data_model")
        if data_model and not _has_option(options, "--data-model"):
            if data_model not in ("ILP32", "LP64"):
                raise UnsupportedFeatureException(
                    f"unsupported data_model {data_model!r} (ILP32 or LP64)"
                )
            args += ["--data-model", data_model]

        if rlimits.cputime and not _has_option(options, "--timeout"):
            args += ["--timeout", str(max(1, int(rlimits.cputime) - 1))]

        return [executable, "validate", *args, *inputs]

    def determine_result(self, run):
        answer, reason, kind = _read_output(run.output)
        if answer is not None:
            answer = answer.strip()
            if answer == "true":
                return result.RESULT_TRUE_PROP
            if answer == "unknown":
                return result.RESULT_UNKNOWN
            if answer.startswith("false(") and answer.endswith(")"):
                prop = answer[len("false(") : -1]
                if prop in _FALSE_RESULTS:
                    return _FALSE_RESULTS[prop]
                return _error(f"unexpected result {answer}")
            if answer != "error":
                return _error(f"unexpected result {answer}")
        code = run.exit_code.value
        if code in _EXIT_KINDS:
            kind = kind or _EXIT_KINDS[code]
            return _error(f"{kind}: {reason}" if reason else kind)
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        if run.exit_code.signal:
            return _error(f"killed by signal {run.exit_code.signal}")
        if answer == "error":
            return _error(f"{kind}: {reason}" if kind else reason)
        return _error(f"no result, exit code {code}")


def _has_option(options, name):
    """Does the benchmark definition give this option (`--name VALUE` or `--name=VALUE`)?"""
    return any(o == name or o.startswith(name + "=") for o in options)


def _error(reason):
    reason = " ".join(str(reason).split())
    if len(reason) > _MAX_REASON:
        reason = reason[: _MAX_REASON - 1] + "…"
    return f"{result.RESULT_ERROR} ({reason})"


def _read_output(lines):
    """The result string, the reason of an error and its kind, from text or JSON output."""
    answer = reason = kind = None
    for line in lines:
        text = line.strip()
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except ValueError:
                continue
            if isinstance(data, dict) and "result" in data:
                answer = str(data["result"])
                if answer == "error":
                    reason = str(data.get("reason", ""))
                    kind = data.get("error_kind")
        elif text.startswith("RESULT:"):
            answer = text[len("RESULT:") :].strip()
        elif reason is None and text.startswith("witness-check: "):
            reason = text[len("witness-check: ") :]
        elif reason is None and text.startswith("error: "):
            # clap's usage errors
            reason = text[len("error: ") :]
    return answer, reason, kind
