"""The packages that re-export names (``slotgraph.models``, ``slotgraph.runtime``) import them on first use,
export exactly what they list, and show type checkers the same names they export at run time."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import slotgraph.models as models
import slotgraph.runtime as runtime

SRC = Path(__file__).resolve().parents[1] / "src" / "slotgraph"


def _type_checking_names(init: Path) -> set[str]:
    """The names the package's ``if TYPE_CHECKING:`` block imports (what mypy and IDEs see)."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                names |= {alias.asname or alias.name for alias in stmt.names}
    return names


def _loaded_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(m for m in sys.modules if m.startswith('slotgraph')))"
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout
    return set(out.split())


def test_models_exports_are_the_union_of_its_modules_all() -> None:
    expected: dict[str, object] = {}
    for module_name in models._MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            expected.setdefault(name, getattr(module, name))
    assert models.__all__ == sorted(expected)
    assert {name for name in dir(models) if not name.startswith("__")} == set(expected)
    for name, value in expected.items():
        assert getattr(models, name) is value, name
    assert _type_checking_names(SRC / "models" / "__init__.py") == set(expected)


def test_a_new_name_in_a_module_all_is_exported_without_editing_the_package() -> None:
    code = (
        "import slotgraph.models.retry as retry\n"
        "retry.BRAND_NEW = 42\n"
        "retry.__all__ = [*retry.__all__, 'BRAND_NEW']\n"
        "import slotgraph.models as models\n"
        "assert models.BRAND_NEW == 42 and 'BRAND_NEW' in models.__all__\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_models_loads_only_the_modules_a_name_needs() -> None:
    loaded = _loaded_after("from slotgraph.models import ToolCall")
    assert "slotgraph.models.protocol" in loaded
    assert not {"slotgraph.models.registry", "slotgraph.models.retry", "slotgraph.models.scripted"} & loaded


def test_runtime_exports_match_its_type_checking_view() -> None:
    assert set(runtime.__all__) == set(runtime._EXPORTS)
    assert _type_checking_names(SRC / "runtime" / "__init__.py") == set(runtime.__all__)
    assert {name for name in dir(runtime) if not name.startswith("__")} >= set(runtime.__all__)
    for name, module_name in runtime._EXPORTS.items():
        assert getattr(runtime, name) is getattr(importlib.import_module(module_name), name), name


def test_importing_the_runtime_tools_does_not_load_the_runtime() -> None:
    """``slotgraph validate --check-tools`` checks an agent's tools module through
    :mod:`slotgraph.runtime.tools`; it must not pay for the session, the turn loop, the engine, the stores or
    the config layer (only the defaults of ``limits:``)."""
    loaded = _loaded_after("import slotgraph.runtime.tools")
    assert "slotgraph.runtime.tools" in loaded
    heavy = {
        "slotgraph.runtime.session",
        "slotgraph.runtime.agent",
        "slotgraph.runtime.turn_loop",
        "slotgraph.runtime.store",
        "slotgraph.engine",
    }
    assert not heavy & loaded, sorted(heavy & loaded)
    assert {name for name in loaded if name.startswith("slotgraph.config")} == {
        "slotgraph.config",
        "slotgraph.config.limits",
    }


def test_a_runtime_name_loads_on_first_use() -> None:
    loaded = _loaded_after("from slotgraph.runtime import Session")
    assert "slotgraph.runtime.session" in loaded


@pytest.mark.parametrize("package", [models, runtime])
def test_an_unknown_name_is_an_attribute_error(package: object) -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        _ = package.NoSuchThing  # type: ignore[attr-defined]
