"""The Python package against the command line: results equal its JSON field by field on the
conformance corpus, a bad spec raises with the location it prints, designs from dicts,
overrides, kinds, sweeps and results, threads, Ctrl-C, and no leak over many evaluations."""
import gc
import glob
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import tracemalloc

import pytest

import fiberloop

DATA = os.environ.get("TEST_DATA_DIR") or os.path.join(os.path.dirname(__file__), "..", "data")
SRC = os.environ.get("srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
FL = os.environ.get("FIBERLOOP", "fiberloop")
EYERISS = [os.path.join(SRC, "examples", "eyeriss-like", f)
           for f in ("input.yaml", "map.yaml", "ERT.yaml", "ART.yaml")]


def case_files(d):
    files = [os.path.join(d, f) for f in ("input.yaml", "map.yaml", "ERT.yaml")]
    if os.path.exists(os.path.join(d, "ART.yaml")):
        files.append(os.path.join(d, "ART.yaml"))
    return files


CASES = sorted(d for d in glob.glob(os.path.join(DATA, "conformance", "*"))
               if os.path.exists(os.path.join(d, "input.yaml")))


def cli_json(*args):
    p = subprocess.run([FL, *args, "--format", "json"], capture_output=True, text=True)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else p.stderr)


@pytest.mark.parametrize("case", CASES, ids=os.path.basename)
def test_conformance_equals_cli(case):
    files = case_files(case)
    rc, want = cli_json("model", *files)
    if rc != 0:
        with pytest.raises(fiberloop.FiberloopError) as e:
            fiberloop.load(*files).model()
        assert e.value.text.splitlines()[0] in want
        return
    r = fiberloop.load(*files).model()
    assert r.document == want                      # every field, exactly
    s = want["summary"]
    for k in ("energy_pj", "cycles", "utilization", "algorithmic_computes",
              "actual_computes", "pj_per_compute", "edp_j_cycles"):
        assert getattr(r, k) == s[k], k            # the vocabulary's path = the JSON's
    assert list(r.levels["name"]) == [l["name"] for l in want["levels"]]
    assert r.levels.attrs["units"]["energy_pj"] == "pJ"
    t = r.tensors
    assert len(t) == sum(len(l["tensors"]) for l in want["levels"])


def bad_cases():
    d = os.path.join(DATA, "specs", "bad")
    for exp in sorted(glob.glob(os.path.join(d, "*.expected"))):
        name = exp[:-len(".expected")]
        y = name + ".yaml"
        if os.path.exists(name + ".cmd") or os.path.exists(name + ".args") \
                or not os.path.exists(y):
            continue
        with open(exp) as f:
            first = next((l for l in f if ": error: " in l), None)
        if first:
            yield pytest.param(os.path.basename(y), first.rstrip("\n"),
                               id=os.path.basename(name))


@pytest.mark.parametrize("yaml_file,first", list(bad_cases()))
def test_bad_spec_located_as_cli(yaml_file, first, monkeypatch):
    """The first error the CLI prints (tests/data/specs/bad/*.expected, which
    tests/run-bad-specs.sh checks against the CLI), as the exception's fields."""
    monkeypatch.chdir(os.path.join(DATA, "specs", "bad"))
    with pytest.raises(fiberloop.SpecError) as e:
        fiberloop.load(yaml_file).run("check")
    x = e.value
    assert "%s:%d:%d: error: %s" % (x.file, x.line, x.column, x.message) == first


def test_dict_design_and_overrides():
    with open(EYERISS[0]) as f:
        text = f.read()
    base = fiberloop.load(*EYERISS).model(detail=False)
    more = fiberloop.load(*EYERISS, **{"ERT.tables[0].actions[0].energy": 2}).model()
    assert more.energy_pj > base.energy_pj
    # an override error is located in the override, as --set's
    with pytest.raises(fiberloop.SpecError) as e:
        fiberloop.load(*EYERISS, problem__instance__P="banana").model()
    assert (e.value.file, e.value.line, e.value.column) == \
        ("--set 'problem.instance.P=banana'", 1, 20)
    # a dict is a design file: a bad value is located in its JSON text
    with pytest.raises(fiberloop.SpecError) as e:
        fiberloop.load({"problem": {"shape": {"name": 3}}}).run("check")
    assert e.value.file == "<dict 1>" and e.value.line >= 1
    assert len(text) > 0


def test_result_attributes_and_kinds():
    r = fiberloop.load(os.path.join(SRC, "examples", "ipu-popsparse", "layer.yaml")).ipu(
        samples=16)
    assert r.kind == "ipu" and r.speedup > 0
    assert r.energy_pj is None                      # not given by this kind: None, never 0
    assert "energy_pj" not in r.to_dict() and r.to_dict()["speedup"] == r.speedup
    s = fiberloop.load(os.path.join(SRC, "examples", "stpu", "design.yaml")).stpu()
    assert s.kind == "stpu" and s.scheme in ("none", "C0", "C1", "KMZ") and s.energy_pj > 0
    with pytest.raises(fiberloop.SpecError):
        fiberloop.load(*EYERISS).ipu()
    with pytest.raises(fiberloop.SpecError) as e:
        fiberloop.load(*EYERISS).map(seeed=1)
    assert "did you mean 'seed'" in str(e.value)
    m = fiberloop.metrics()
    assert m.loc["energy_pj", "unit"] == "pJ" and m.loc["cycles", "better"] == "lower"
    # the per-level metric is a row of its own, named as its columns are
    assert not m.loc["energy_pj", "per_level"] and m.loc["energy_pj.LEVEL", "per_level"]
    assert m.loc["energy_pj", "description"] == "energy of the whole run"


AXIS = "ERT.tables[0].actions[0].energy"


def test_sweep_and_results(tmp_path):
    """sweep() and results() give a Table that does what their DataFrame did (indexing,
    attrs, len, columns): the existing uses keep working; .df is the DataFrame, made once."""
    import pandas as pd
    db = tmp_path / "s.db"
    df = fiberloop.sweep(fiberloop.load(*EYERISS), axes={AXIS: [1, 2, 4]}, db=db)
    assert len(df) == 3 and df["energy_pj"].is_monotonic_increasing
    assert df.attrs["units"]["cycles"] == "cycles"
    assert df.attrs["units"]["energy_pj.DRAM"] == "pJ"      # a level's column has its unit
    assert "energy_pj.DRAM" in df.columns
    assert isinstance(df.df, pd.DataFrame) and df.df is df.to_pandas()
    assert list(df) == df.names == list(df.df.columns) and "energy_pj" in df
    assert df.points == 3 and df.db == str(db)
    again = fiberloop.results(db, where="energy_pj > %r" % float(df["energy_pj"].min()))
    assert len(again) == 2 and again.points is None
    # results() reads at once: a missing database or a bad filter raises here, not later
    with pytest.raises(fiberloop.FiberloopError):
        fiberloop.results(tmp_path / "none.db")
    with pytest.raises(fiberloop.FiberloopError) as e:
        fiberloop.results(db, where="energy_pJ > 1")
    assert "energy_pj" in str(e.value)                      # did you mean


def test_sweep_reads_nothing_until_asked(tmp_path):
    """A sweep does not read its rows back, nor import pandas: what the command line's sweep
    does. Read, a Table's columns (lists made in C) are those of the DataFrame the same
    rows make, value for value, and its rows those columns."""
    db = tmp_path / "s.db"
    code = ("import fiberloop, json, sys\n"
            "t = fiberloop.sweep(fiberloop.load(*sys.argv[2:]), db=sys.argv[1],\n"
            "                    axes={%r: [1, 2, 4], 'ERT.tables[0].actions[2].energy': [1, 3]})\n"
            "after = ['pandas' in sys.modules, t._t is not None]\n"
            "cols = {n: t.column(n) for n in t.names}\n"
            "out = dict(points=t.points, len=len(t), names=t.names, cols=cols, units=t.units,\n"
            "           rows=[list(r) for r in t.rows()])\n"
            "out['after'] = after + ['pandas' in sys.modules]\n"
            "print(json.dumps(out))\n" % AXIS)
    p = subprocess.run([sys.executable, "-c", code, str(db), *EYERISS], capture_output=True,
                       text=True, env=os.environ)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    # after the sweep: no pandas, no rows read; after the columns and rows: still no pandas
    assert out["after"] == [False, False, False]
    assert out["points"] == out["len"] == 6
    df = fiberloop.results(db).df
    assert out["names"] == list(df.columns)

    def plain(v):
        return None if isinstance(v, float) and math.isnan(v) else v
    for n in df.columns:
        assert out["cols"][n] == [plain(v) for v in df[n].tolist()], n
    assert out["rows"] == [list(r) for r in zip(*(out["cols"][n] for n in out["names"]))]
    assert len(set(out["cols"]["energy_pj"])) == 6                # six different points
    assert out["units"] == df.attrs["units"] and out["units"]["energy_pj.DRAM"] == "pJ"


def test_sweep_temporary_database_kept_until_read():
    """Without db=, the temporary database lives until the rows are read (then it is
    removed) or until the Table goes."""
    spec = fiberloop.load(*EYERISS)
    t = fiberloop.sweep(spec, axes={AXIS: [1, 2]})
    d = os.path.dirname(t._path)
    assert t.db is None and os.path.exists(t._path)
    assert len(t) == 2 and not os.path.exists(d)
    assert t.column("energy_pj")[0] < t.column("energy_pj")[1]
    u = fiberloop.sweep(spec, axes={AXIS: [1, 2]})
    d = os.path.dirname(u._path)
    assert os.path.exists(d)
    del u
    gc.collect()
    assert not os.path.exists(d)


def test_gil_released_during_evaluation():
    spec = fiberloop.load(*EYERISS)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0)

    t = threading.Thread(target=count)
    t.start()
    try:
        before = len(ticks)
        spec.map(threads=1, algorithm="random", search_size=3000, seed=1, detail=False)
        during = len(ticks) - before
    finally:
        done.set()
        t.join()
    assert during > 10      # the other thread ran while the search held no GIL


def test_ctrl_c_stops_a_search():
    code = ("import fiberloop, sys\n"
            "s = fiberloop.load(*sys.argv[1:])\n"
            "print('start', flush=True)\n"
            "try:\n"
            "    s.map(threads=1, algorithm='random', search_size=0, timeout=0, victory=0,"
            " time_limit=60)\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", code, *EYERISS], stdout=subprocess.PIPE,
                         text=True, env=os.environ)
    assert p.stdout.readline().strip() == "start"
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert out.strip() == "interrupted" and p.returncode == 0


def test_no_leak_over_many_evaluations():
    """10^5 evaluations (about a second: a workspace is kept between them): the process's
    RSS and the Python heap (tracemalloc, over 10^4) do not grow. valgrind on 10^3 finds
    nothing lost either (docs/library.md). FIBERLOOP_LEAK_N sets N."""
    n = int(os.environ.get("FIBERLOOP_LEAK_N", "100000"))
    spec = fiberloop.load(*case_files(os.path.join(DATA, "conformance",
                                                   "01.2.1-DUDU-dot-product")))

    def rss_kb():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))

    def loop(k):
        for _ in range(k):
            spec.model(detail=False).energy_pj
    loop(1000)                                      # warm up (allocator pools, caches)
    spec.model().to_dict()
    rss0 = rss_kb()
    loop(n)
    rss1 = rss_kb()
    assert rss1 - rss0 < 256, (rss0, rss1)          # 10^5 x 3 bytes would show
    tracemalloc.start()                             # slow: a smaller window
    loop(1000)
    snap0 = tracemalloc.take_snapshot()
    loop(max(1000, n // 10))
    snap1 = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename"))
    print("leak: %d evaluations, RSS %d -> %d kB; tracemalloc %+d B over %d" %
          (n, rss0, rss1, grown, max(1000, n // 10)))       # shown with pytest -s
    assert grown < 4 * 1024, grown                  # half a byte per evaluation would fail
