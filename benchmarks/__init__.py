"""`python -m benchmarks`: engine, server, browser, drag, animation, cold start and load. See benchmarks/run.py."""
