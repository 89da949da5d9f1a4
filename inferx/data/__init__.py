"""Data in: measured InferenceX rows, their fetch, and a user's own config.json or GPU datasheet."""
