"""The MoE expert-coverage figure sits on /methods with its caption, not on /; its embed route stays."""

from __future__ import annotations

from conftest import layout_text

import app  # noqa: F401 (the pages register with the app)
from inferx.figures import registry
from inferx.physics.models import MODELS
from inferx.scenario.evaluation import Scenario
from pages import embed, home, methods
from pages._cards import with_subscripts

MOE = next(key for key, f in registry.FIGURES.items() if f.name == "moe-coverage")


def as_json(component) -> str:
    return layout_text(component)


def graph_figures(layout) -> dict:
    """The figure of each graph in a layout, by its pattern id's figure key."""
    return {
        c.id["fig"]: c.figure
        for c in layout._traverse()
        if isinstance(getattr(c, "id", None), dict) and c.id.get("role") == "figure"
    }


def test_the_dashboard_has_every_figure_but_the_moe_one():
    shown = graph_figures(home.layout())
    assert list(shown) == list(registry.DASHBOARD)
    assert MOE not in shown and len(shown) == len(registry.FIGURES) - 1
    assert f'"fig-{registry.FIGURES[MOE].number}"' not in as_json(home.layout())


def test_methods_draws_the_moe_figure_for_its_model_with_its_caption():
    model = next(key for key, m in MODELS.items() if m.is_moe and key != "deepseek-r1")
    text = as_json(methods.layout(model=model))
    entry = registry.FIGURES[MOE]
    assert entry.caption[:40] in text and entry.title in text
    drawn = graph_figures(methods.layout(model=model))[MOE]
    expected = registry.build(Scenario.from_params(model=model), [MOE])[MOE]
    assert drawn["data"][0]["y"] == expected["data"][0]["y"]
    default = registry.build(Scenario.from_params(), [MOE])[MOE]
    assert drawn["data"][0]["y"] != default["data"][0]["y"]  # the page's model, not the default one


def test_the_moe_figure_keeps_its_embed_route():
    assert MOE in graph_figures(embed.layout(name="moe-coverage"))


def test_methods_tables_write_the_articles_subscripts():
    """The tables write B_max as B<sub>max</sub>, in their headers and in the check rows, whose plain text the
    CLI prints; words with underscores inside them are left as they are."""
    parts = with_subscripts("t_AR (B = 1) over $INFERX_MEASURED and B_max")
    assert [p if isinstance(p, str) else ("sub", p.children) for p in parts] == [
        "t", ("sub", "AR"), " (B = 1) over $INFERX_MEASURED and ", "B", ("sub", "max")
    ]  # fmt: skip
    assert with_subscripts("no symbol here") == "no symbol here" and with_subscripts(3.5) == 3.5
    page = layout_text(methods.layout())
    assert "B_max" not in page and "t_AR" not in page and '"children": "max"' in page
