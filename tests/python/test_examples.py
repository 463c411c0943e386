"""examples/python: each script runs in this process (pandas and matplotlib imported once)
and prints the figure its study is about; the value is checked, and its figure written."""
import os
import runpy
import sys

import pytest

SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.mark.parametrize("script,line,png", [
    # the crossover the CLI's sweep of examples/format-sweep finds (its README, its test)
    ("density_format.py", "bitmask wins on energy from density 0.11", "density_format.png"),
    # 2:4 pruning halves the tensor core's cycles (examples/tensor-core-2to4: 8192 vs 16384)
    ("design_comparison.py", "2:4 speedup 2.00x", "design_comparison.png"),
], ids=lambda v: v if isinstance(v, str) and v.endswith(".py") else "")
def test_example(script, line, png, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path))
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(sys, "argv", [script, str(tmp_path)])
    runpy.run_path(os.path.join(SRC, "examples", "python", script), run_name="__main__")
    out = capsys.readouterr().out.splitlines()
    assert line in out, out
    with open(tmp_path / png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
