#!/usr/bin/env python3
"""Checks that `witness-check batch --benchexec-xml` scores validation tasks as BenchExec does
(issue 35 item 6), run by tests/benchexec.rs:

    compare_with_batch.py BENCHEXEC_RESULTS.xml[.bz2] ... -- BATCH_RESULTS.xml TABLE_DIR

For every run of a task definition (`*.yml`) in the BenchExec result files: the batch file has a
run of the same task (names are paths relative to their result file, as BenchExec writes them),
with the same status and the same category (correct, wrong, unknown, error, missing), so the
same score; and BenchExec's `table-generator`, given all files, puts both on one row. Prints the
tasks and both tallies; exits 1 on any difference."""
import bz2
import collections
import csv
import os
import sys
import xml.etree.ElementTree as ET

from benchexec import tablegenerator


def runs(path):
    """Task path (absolute) -> (status, category) of the runs of task definitions."""
    opener = bz2.open if path.endswith(".bz2") else open
    with opener(path, "rb") as f:
        root = ET.parse(f).getroot()
    out = {}
    for run in root.iter("run"):
        name = run.get("name", "")
        if not name.endswith(".yml"):
            continue
        cols = {c.get("title"): c.get("value") for c in run.iter("column")}
        task = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), name))
        out[task] = (cols.get("status"), cols.get("category"))
    return out


def main(argv):
    split = argv.index("--")
    benchexec_files, (batch_file, table_dir) = argv[:split], argv[split + 1 :]
    theirs = {}
    for f in benchexec_files:
        theirs.update(runs(f))
    ours = runs(batch_file)
    failures = []
    for task in sorted(theirs):
        mine = ours.get(task)
        print(f"{os.path.relpath(task)}: BenchExec {theirs[task]}, batch {mine}")
        if mine != theirs[task]:
            failures.append(f"{task}: BenchExec {theirs[task]}, batch {mine}")
    for task in sorted(set(ours) - set(theirs)):
        failures.append(f"{task}: only in the batch's results")
    tally = lambda d: dict(collections.Counter(c for _, c in d.values()))  # noqa: E731
    print(f"BenchExec: {tally(theirs)}; batch: {tally(ours)}")
    # table-generator joins runs of one task into one row.
    tablegenerator.main(
        ["table-generator", "--format", "csv", "--quiet", "-o", table_dir, "-n", "joined"]
        + benchexec_files
        + [batch_file]
    )
    with open(os.path.join(table_dir, "joined.table.csv")) as f:
        rows = list(csv.reader(f, delimiter="\t"))
    header = next(r for r in rows if "status" in r)
    status_columns = [i for i, c in enumerate(header) if c == "status"]
    joined = 0
    for row in rows:
        if not row or not row[0].endswith(".yml"):
            continue
        filled = [row[i] for i in status_columns if i < len(row) and row[i]]
        if len(filled) >= 2 and len(set(filled)) == 1:
            joined += 1
        else:
            failures.append(f"table-generator row not joined or different: {row}")
    print(f"table-generator: {joined} tasks on joined rows")
    if joined != len(theirs):
        failures.append(f"{joined} joined rows for {len(theirs)} tasks")
    for f in failures:
        print(f"MISMATCH: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
