"""inferx: the throughput–latency frontier of LLM serving, from hardware physics."""

from .scenario import PARAMS, InvalidParameter, Scenario, frontier_batches

__all__ = ["PARAMS", "InvalidParameter", "Scenario", "frontier_batches"]
