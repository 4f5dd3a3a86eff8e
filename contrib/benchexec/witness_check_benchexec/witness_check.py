# BenchExec tool-info module for witness-check, a validator of SV-COMP witnesses.
# Use it with the dotted module name and the directory of this package on PYTHONPATH:
#   PYTHONPATH=contrib/benchexec benchexec --tool-directory target/release \
#       witness_check_benchexec.witness_check ... (or a benchmark definition with
#       <benchmark tool="witness_check_benchexec.witness_check" ...>)
# See contrib/benchexec/README.md.

import json
import re

import benchexec.result as result
import benchexec.tools.template
from benchexec.tools.sv_benchmarks_util import (
    ILP32,
    LP64,
    TaskFilesConsidered,
    get_data_model_from_task,
    handle_witness_of_task,
)
from benchexec.tools.template import ToolNotFoundException

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

# Exit codes of witness-check (witness-check/src/main.rs) and the short, categorical status of
# each (the reason is in the run's log): a table cell names the kind of failure, as the modules
# BenchExec ships do.
_EXIT_KINDS = {2: "usage", 3: "input", 4: "internal"}
_ERROR_STATUS = {"usage": "usage", "input": "invalid input", "internal": "internal error"}

# Statistics of a run for <column> elements of a benchmark definition (get_value_from_output):
# the identifier, and how the text output's `stats:` line writes it.
_STATISTICS = {
    "wall_ms": r"stats: (\d+) ms",
    "product_states": r"(\d+) product states",
    "solver_calls": r"(\d+) solver calls",
    "reading": r"reading: ([^;]+)",
    "data_model": r"data model (\S+)",
}


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

    def project_url(self):
        # No public web page yet; BenchExec shows none.
        return None

    def cmdline(self, executable, options, task, rlimits):
        # The witness: an option `--witness FILE` of the benchmark definition, or the task's
        # input file that its option witness_input_file names (validation tasks).
        # (`--witness=FILE` counts as given, as `--witness FILE` does.)
        given = ["--witness"] if _has_option(options, "--witness") else options
        input_files, witness_options = handle_witness_of_task(
            task, given, "--witness", TaskFilesConsidered.SINGLE_INPUT_FILE
        )
        args = list(options) + witness_options

        if task.property_file and not _has_option(options, "--property"):
            args += ["--property", task.property_file]

        data_model = get_data_model_from_task(task, {ILP32: "ILP32", LP64: "LP64"})
        if data_model and not _has_option(options, "--data-model"):
            args += ["--data-model", data_model]

        if rlimits.cputime and not _has_option(options, "--timeout"):
            args += ["--timeout", str(max(1, int(rlimits.cputime) - 1))]

        return [executable, "validate", *args, *input_files]

    def determine_result(self, run):
        answer, kind = _read_output(run.output)
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
            if answer != "error":
                return f"{result.RESULT_ERROR} (unexpected result)"
        code = run.exit_code.value
        if code in _EXIT_KINDS:
            kind = kind or _EXIT_KINDS[code]
        if kind in _ERROR_STATUS:
            return f"{result.RESULT_ERROR} ({_ERROR_STATUS[kind]})"
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        if run.exit_code.signal:
            return f"{result.RESULT_ERROR} (signal {run.exit_code.signal})"
        return f"{result.RESULT_ERROR} (no result)"

    def get_value_from_output(self, output, identifier):
        """A statistic of the run for a <column> of the benchmark definition: `wall_ms`,
        `product_states`, `solver_calls` (numbers), `reading`, `data_model` (texts), from the
        `stats:` line of the text output or the fields of the JSON output; None if absent."""
        for line in reversed(output):
            text = line.strip()
            data = _json_object(text)
            if data is not None:
                stats = data.get("stats") if isinstance(data.get("stats"), dict) else {}
                value = stats.get(identifier, data.get(identifier))
                if value is not None:
                    return value
            elif text.startswith("stats:") and identifier in _STATISTICS:
                found = re.search(_STATISTICS[identifier], text)
                if found:
                    value = found.group(1).strip()
                    return int(value) if value.isdigit() else value
        return None


def _has_option(options, name):
    """Does the benchmark definition give this option (`--name VALUE` or `--name=VALUE`)?"""
    return any(o == name or o.startswith(name + "=") for o in options)


def _json_object(text):
    """The JSON object a line of `--json` output holds, else None."""
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _read_output(lines):
    """The result string and the kind of an error, from text or JSON output."""
    answer = kind = None
    for line in lines:
        text = line.strip()
        data = _json_object(text)
        if data is not None:
            if "result" in data:
                answer = str(data["result"])
                if answer == "error":
                    kind = data.get("error_kind")
        elif text.startswith("RESULT:"):
            answer = text[len("RESULT:") :].strip()
    return answer, kind
