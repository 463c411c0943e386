"""fiberloop from Python: load a design, evaluate it, sweep it, read results.

    import fiberloop
    spec = fiberloop.load("input.yaml", "map.yaml", "ERT.yaml", "ART.yaml")
    r = spec.model()
    r.energy_pj, r.cycles          # the metrics of 'fiberloop help metrics'
    r.levels, r.tensors            # pandas DataFrames, per level and per level x tensor
    df = fiberloop.sweep(spec, axes={"problem.instance.M": [64, 128, 256]})

Designs come from YAML files or from Python dicts (no file needed); overrides are
keyword arguments (PATH=VALUE, as --set; '__' may stand for '.'). Every evaluation
runs in libfiberloop (lib/fiberloop.h) with the GIL released; Ctrl-C stops a
search or a sweep (KeyboardInterrupt). A bad design raises SpecError with the
file, line, column and message the command line prints (docs/library.md).
"""

import json
import os
import shutil
import tempfile

from . import _fiberloop as _c
from ._fiberloop import FiberloopError, InfeasibleError, SpecError

__version__ = _c.version
__all__ = ["load", "sweep", "results", "metrics", "Spec", "Result", "FiberloopError",
           "SpecError", "InfeasibleError", "__version__"]

# the per-level metric is named as its columns are, NAME.LEVEL ('fiberloop help metrics'):
# its name alone is the whole run's metric's
_METRICS = {m[0] + (".LEVEL" if m[4] else ""): {
    "unit": m[1], "type": m[2], "better": m[3], "per_level": m[4], "description": m[5]}
    for m in _c.metrics()}


def metrics():
    """The metric vocabulary ('fiberloop help metrics') as a DataFrame indexed by name."""
    import pandas as pd
    return pd.DataFrame.from_dict(_METRICS, orient="index")


def _yaml(value):
    """A Python value as YAML flow text (JSON is YAML); a str is taken as YAML text."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def _override(path, value):
    return "%s=%s" % (path.replace("__", "."), _yaml(value))


def _option(name, value):
    if isinstance(value, bool):
        value = "true" if value else "false"
    return (name.replace("_", "-"), str(value))


_NO_DOCUMENT = (("document", "none"),)


def _units(columns):
    """{column: unit} of the columns the vocabulary names (energy_pj.LEVEL: pJ)."""
    units = {}
    for c in columns:
        m = _METRICS.get(c) or (_METRICS.get(c.split(".")[0] + ".LEVEL") if "." in c else None)
        if m:
            units[c] = m["unit"]
    return units


class Spec:
    """A design: files and dicts merged at the top level, overrides, Jinja2 variables."""

    def __init__(self, *sources, vars=None, tensors=None, **overrides):
        self._sources = []
        self._vars = ["%s=%s" % (k, _yaml(v)) for k, v in (vars or {}).items()]
        self._tensors = ["%s=%s" % (k, os.fspath(v)) for k, v in (tensors or {}).items()]
        self._overrides = []
        self._c = _c.Spec()
        for v in self._vars:
            self._c.add_var(v)
        for t in self._tensors:
            self._c.add_tensor(t)
        for i, s in enumerate(sources):
            if isinstance(s, dict):
                name, text = "<dict %d>" % (i + 1), json.dumps(s, indent=1)
                self._c.add_text(name, text)
                self._sources.append((name, text))
            else:
                path = os.fspath(s)
                self._c.add_file(path)
                self._sources.append((path, None))
        self.set(**overrides)

    def set(self, **overrides):
        """Add overrides (PATH=VALUE, applied in order); returns the spec."""
        for k, v in overrides.items():
            o = _override(k, v)
            self._c.set(o)
            self._overrides.append(o)
        return self

    def clear(self):
        """Forget every override; returns the spec."""
        self._c.clear_overrides()
        self._overrides = []
        return self

    @property
    def kind(self):
        """The design's kind: 'timeloop', 'ipu' or 'stpu'."""
        return self._c.kind()

    @property
    def overrides(self):
        return list(self._overrides)

    def run(self, command="model", detail=True, **options):
        """Run 'command' (model, map, exec, validate, check, ipu, stpu) with the command
        line's options (threads=2, algorithm='random', seed=3, ...); detail=False skips the
        JSON document (then no .levels/.tensors/.document), the cheapest."""
        if options:
            opts = tuple(_option(k, v) for k, v in options.items())
            if not detail:
                opts += _NO_DOCUMENT
        else:
            opts = () if detail else _NO_DOCUMENT
        return _c.run(self._c, command, opts)   # the same options are parsed once

    def model(self, detail=True, **options):
        """Evaluate the design's mapping (fiberloop model)."""
        if options:
            return self.run("model", detail, **options)
        return _c.run(self._c, "model", () if detail else _NO_DOCUMENT)

    def map(self, **options):
        """Search the mapspace (fiberloop map); Ctrl-C stops the search."""
        return self.run("map", **options)

    def exec(self, **options):
        """Run the mapping on tensors with the reference executor (fiberloop exec)."""
        return self.run("exec", **options)

    def validate(self, **options):
        """Compare the model with the executor (fiberloop validate)."""
        return self.run("validate", **options)

    def ipu(self, **options):
        """Plan and cost a PopSparse layer on an IPU (fiberloop ipu)."""
        return self.run("ipu", **options)

    def stpu(self, **options):
        """A Sparse-TPU design (fiberloop stpu)."""
        return self.run("stpu", **options)

    def __repr__(self):
        return "fiberloop.Spec(%s%s)" % (", ".join(repr(s[0]) for s in self._sources),
                                         "".join(", %r" % o for o in self._overrides))


def load(*sources, vars=None, tensors=None, **overrides):
    """A design from YAML files and/or dicts (merged at the top level, as the command line
    merges FILE...), with overrides as keyword arguments: load("arch.yaml",
    **{"problem.instance.M": 64}) or problem__instance__M=64."""
    return Spec(*sources, vars=vars, tensors=tensors, **overrides)


class Result(_c.Result):
    """What a run gave: each metric of the vocabulary the design's kind provides is an
    attribute (r.energy_pj, r.cycles, r.speedup ...; None for one it does not give); kind,
    command, status, mapping, warnings; levels and tensors as DataFrames; document (the
    JSON of --format json); to_dict(). Values are made from the run's result when read."""

    @property
    def metrics(self):
        """{metric: value} of every metric the run gave."""
        m = self.__dict__.get("_metrics_d")
        if m is None:
            m = self.__dict__["_metrics_d"] = self._metrics()
        return m

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.metrics))

    @property
    def level_energy_pj(self):
        """{level: energy in pJ}, innermost first."""
        return dict(self._levels())

    @property
    def document(self):
        """The JSON document the command line prints with --format json (a dict)."""
        doc = self.__dict__.get("_doc")
        if doc is None:
            text = self._document()
            if not text:
                raise FiberloopError("no document: the run was made with detail=False")
            doc = self.__dict__["_doc"] = json.loads(text)
        return doc

    @property
    def text(self):
        return self._document()

    def to_dict(self):
        """The row 'fiberloop results' would show: kind, command, status, every metric
        given, energy_pj.LEVEL per level, mapping."""
        d = {"kind": self.kind, "command": self.command, "status": self.status}
        d.update(self.metrics)
        for name, e in self._levels():
            d["energy_pj." + name] = e
        d["mapping"] = self.mapping
        return d

    @property
    def levels(self):
        """Per level (innermost first): the document's scalar fields, else name and energy."""
        import pandas as pd
        doc = self.document if self._document() else {}
        rows = doc.get("levels") if isinstance(doc, dict) else None
        if rows:
            df = pd.DataFrame([{k: v for k, v in l.items()
                                if not isinstance(v, (dict, list))} for l in rows])
        else:
            df = pd.DataFrame(self._levels(), columns=["name", "energy_pj"])
        df.attrs["units"] = _units(df.columns)
        return df

    @property
    def tensors(self):
        """Per level and tensor: the document's tensor fields (actions flattened as
        'actions.NAME')."""
        import pandas as pd
        doc = self.document
        out = []
        for l in doc.get("levels", []) if isinstance(doc, dict) else []:
            for t in l.get("tensors", []):
                row = {"level": l.get("name"), "tensor": t.get("name")}
                for k, v in t.items():
                    if k == "name":
                        continue
                    if isinstance(v, dict):
                        for k2, v2 in v.items():
                            if not isinstance(v2, (dict, list)):
                                row["%s.%s" % (k, k2)] = v2
                    elif not isinstance(v, list):
                        row[k] = v
                out.append(row)
        df = pd.DataFrame(out)
        df.attrs["units"] = _units(df.columns)
        return df

    def __repr__(self):
        shown = ", ".join("%s=%r" % kv for kv in list(self.metrics.items())[:4])
        return "<fiberloop.Result %s %s: %s>" % (self.kind, self.command, shown)


_c._set_result_type(Result)


def results(db, where=()):
    """The rows of a results database ('fiberloop results DB'), filtered by "COLUMN OP VALUE"
    conditions, as a DataFrame (one column per metric; units in df.attrs['units'])."""
    import pandas as pd
    if isinstance(where, str):
        where = [where]
    cols, rows = _c.results(os.fspath(db), list(where))
    df = pd.DataFrame.from_records(rows, columns=cols)
    df.attrs["units"] = _units(df.columns)
    return df


def _axis(path, values):
    if isinstance(values, str):
        return "%s=%s" % (path, values)          # a range A:B:STEP or V1,V2 as on the CLI
    return "%s=%s" % (path, ",".join(_yaml(v) for v in values))


def sweep(spec, axes, db=None, zip=False, command="model", workers=0, **options):
    """Run 'command' over every combination of the axes' values ({PATH: [values] or
    "A:B:STEP"}; zip=True: taken together), one row per point in the results database
    'db' (kept, and resumed by the same sweep; None: a temporary one), and return the
    rows as a DataFrame (results(db))."""
    if not isinstance(spec, Spec):
        spec = load(*spec) if isinstance(spec, (list, tuple)) else load(spec)
    ax = [_axis(k, v) for k, v in axes.items()]
    opts = [_option(k, v) for k, v in options.items()]
    tmp = tempfile.mkdtemp(prefix="fiberloop-") if db is None or any(
        t is not None for _, t in spec._sources) else None
    try:
        c = spec._c
        if any(t is not None for _, t in spec._sources):
            # a sweep hashes its files: write the dicts out
            c = _c.Spec()
            for v in spec._vars:
                c.add_var(v)
            for t in spec._tensors:
                c.add_tensor(t)
            for i, (name, text) in enumerate(spec._sources):
                if text is None:
                    c.add_file(name)
                else:
                    path = os.path.join(tmp, "design-%d.yaml" % (i + 1))
                    with open(path, "w") as f:
                        f.write(text)
                    c.add_file(path)
            for o in spec._overrides:
                c.set(o)
        path = os.fspath(db) if db is not None else os.path.join(tmp, "sweep.db")
        _c.sweep(c, ax, bool(zip), command, opts, path, int(workers))
        return results(path)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
