"""inferx: the throughput–latency frontier of LLM serving, from hardware physics."""

from inferx.scenario.batches import frontier_batches
from inferx.scenario.controls import PARAMS, InvalidParameter
from inferx.scenario.evaluation import Scenario

__all__ = ["PARAMS", "InvalidParameter", "Scenario", "frontier_batches"]
