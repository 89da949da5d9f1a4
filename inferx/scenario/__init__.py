"""A serving scenario: the controls declared and checked, the machine they describe, and the evaluated frontier."""
