"""Numbers beyond the frontier: the binding limit, cost and energy, goodput under SLOs, request rate, speculative
decoding, and the article's printed numbers beside the engine's."""
