"""Component ids shared by the page modules and assets/inferx.js, spelled in one place.

A control's id is its parameter name behind a prefix (`ctl-bw`); the browser gets the prefix through the
page's config store (pages._controls.ui_config), so the JavaScript never spells it either.
"""

CONTROL_PREFIX = "ctl-"


def control_id(name: str) -> str:
    """The id of the control for parameter `name` (also the explorer's `batch` slider)."""
    return CONTROL_PREFIX + name


def value_id(name: str) -> str:
    """The id of the live value text in a slider's label."""
    return f"{control_id(name)}-value"


BATCH_ID = control_id("batch")


def graph_wrapper_id(fig: str) -> str:
    """The stable DOM id around figure `fig`'s graph: `fig-6` for `fig6`."""
    return f"fig-{fig[3:]}"
