"""The house's shape: inferx's layers as docs/architecture.md draws them and pyproject.toml's contracts state
them, no import cycle (imports inside functions count), and modules of one job."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600
MAX_LOOSE = 8


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def contract_layers() -> list[str]:
    (layers,) = [c["layers"] for c in contracts() if c["type"] == "layers"]
    return layers


def drawn_layers() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split("## The layers", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S)
    return block[1].strip().splitlines()


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports_of(path: Path, modules: set[str], package: str = "") -> set[str]:
    """The modules of `modules` that `path` (in `package`) imports anywhere in it, inside functions too."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        found.update(n for n in names if n in modules)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in (ROOT / "inferx").rglob("*.py")}
    modules = set(paths)
    graph = {}
    for name, path in paths.items():
        # A package's own __init__ is not a dependency of its modules (Python imports it first anyway).
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = {m for m in imports_of(path, modules, package) if m != name and not name.startswith(m + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_diagram_is_the_contract():
    assert drawn_layers() == contract_layers()


def test_every_subpackage_and_loose_module_is_in_a_layer():
    layered = {m.strip() for layer in contract_layers() for m in layer.split("|")}
    inferx = ROOT / "inferx"
    packages = {f"inferx.{p.name}" for p in inferx.iterdir() if (p / "__init__.py").exists()}
    loose = {f"inferx.{p.stem}" for p in inferx.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert packages | loose == layered
    assert len(loose) <= MAX_LOOSE


def test_no_import_cycle_in_inferx():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_imports_inside_functions_count(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from inferx.physics import engine\n")
    assert imports_of(module, {"inferx.physics.engine", "inferx.physics"}) == {
        "inferx.physics",
        "inferx.physics.engine",
    }


@pytest.mark.parametrize("folder", ["inferx", "pages", "benchmarks"])
def test_modules_of_one_job_stay_under_600_lines(folder):
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / folder).rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_lint_imports_keeps_every_contract():
    lint = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(lint).exists():
        pytest.skip("import-linter is not installed: pip install -e '.[test]'")
    out = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"Contracts: {len(contracts())} kept, 0 broken." in out.stdout
