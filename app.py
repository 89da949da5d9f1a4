"""Assembles the inferx Dash app; `python app.py` serves it on 0.0.0.0:8050."""
