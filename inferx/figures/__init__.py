"""Figures: pure functions from an evaluated scenario to plotly dicts, with their registry, text alternatives,
comparison with a pinned scenario, and export."""
