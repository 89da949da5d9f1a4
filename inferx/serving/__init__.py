"""The serving model calibrated to measurements: its run-time model, the stored fit and error tables, and the fit
and its reports."""
