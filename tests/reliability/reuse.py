"""Import helpers of another test package (tests/ingest) from the reliability tests.

pytest (importlib mode, no tests/__init__.py) names tests/ingest/test_crash.py
"ingest.test_crash"; this registers the same package name when the module has not
been collected yet, so the harness is shared, never copied or imported twice.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parents[1]


def load_test_module(package: str, module: str) -> ModuleType:
    """`tests/<package>/<module>.py`, imported as `<package>.<module>`."""
    if package not in sys.modules:
        root = TESTS / package
        spec = importlib.util.spec_from_file_location(
            package, root / "__init__.py", submodule_search_locations=[str(root)]
        )
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load the test package {root}")
        pkg = importlib.util.module_from_spec(spec)
        sys.modules[package] = pkg
        spec.loader.exec_module(pkg)
    return importlib.import_module(f"{package}.{module}")
