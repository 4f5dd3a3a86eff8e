"""BenchExec tool-info module of witness-check (see witness_check.py and README.md beside)."""
