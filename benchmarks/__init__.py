"""Benchmark suite for issue 5: engine, server, browser, animation and cold start. See benchmarks/run.py."""
