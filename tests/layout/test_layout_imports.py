"""ARCHITECTURE rule 7: the layout is core code, importable with no Jupyter stack loaded."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JUPYTER_MODULES = ("ipywidgets", "pythreejs", "IPython", "ipykernel", "traitlets")

PROBE = """
import importlib, json, pkgutil, sys
import ohara_lab.layout
after_package = sorted(m for m in sys.modules if m.split('.')[0] in {names!r} or m == 'matplotlib')
for info in pkgutil.iter_modules(ohara_lab.layout.__path__):
    importlib.import_module('ohara_lab.layout.' + info.name)
ohara_lab.layout.plot_map
after_all = sorted(m for m in sys.modules if m.split('.')[0] in {names!r})
print(json.dumps([after_package, after_all]))
"""


def test_layout_imports_no_jupyter_and_loads_matplotlib_lazily() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", PROBE.format(names=JUPYTER_MODULES)],
                         env=env, capture_output=True, text=True, check=True)
    after_package, after_all = json.loads(out.stdout)
    assert after_package == []  # neither Jupyter nor matplotlib on `import ohara_lab.layout`
    assert after_all == []  # every layout module, static plot included, stays Jupyter-free
