"""fiberloop from Python: load a design, evaluate it, sweep it, read results.

    import fiberloop
    spec = fiberloop.load("input.yaml", "map.yaml", "ERT.yaml", "ART.yaml")
    r = spec.model()
    r.energy_pj, r.cycles          # the metrics of 'fiberloop help metrics'
    r.levels, r.tensors            # pandas DataFrames, per level and per level x tensor
    t = fiberloop.sweep(spec, axes={"problem.instance.M": [64, 128, 256]})
    t.column("energy_pj"), t.df    # a column as a list; the rows as a pandas DataFrame

Designs come from YAML files or from Python dicts (no file needed); overrides are
keyword arguments (PATH=VALUE, as --set; '__' may stand for '.'). Every evaluation
runs in libfiberloop (lib/fiberloop.h) with the GIL released; Ctrl-C stops a
search or a sweep (KeyboardInterrupt). A bad design raises SpecError with the
file, line, column and message the command line prints (docs/library.md).

pandas is imported when a DataFrame is first asked for (a sweep's Table makes
one only then), json and tempfile when first needed: 'import fiberloop' and a
sweep cost what the command line costs.
"""

import os

from . import _fiberloop as _c
from ._fiberloop import FiberloopError, InfeasibleError, SpecError

__version__ = _c.version
__all__ = ["load", "sweep", "results", "metrics", "Spec", "Result", "Table", "FiberloopError",
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
    import json
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
                import json
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
            import json
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


class Table:
    """The rows of a results database as 'fiberloop results' shows them: what sweep() and
    results() return. Nothing is read before it is needed (a sweep's rows: when first asked
    for, the database as it is then) and Python values are made a column at a time; pandas
    is imported only when a DataFrame is asked for.

        len(t), t.names, t.units     # rows, column names, {column: unit}
        t.column("energy_pj")        # the column as a list, one value per row (None: none)
        t.rows()                     # the rows as tuples
        t.df, t.to_pandas()          # the DataFrame (made once; units in df.attrs["units"])
        t.points, t.db               # the sweep's number of points; the database (None:
                                     # a temporary one, removed once the rows are read)

    Anything else is the DataFrame's: t["energy_pj"], t.pivot(...), t.columns, t.attrs,
    t.loc[...], print(t) work as on t.df (made when first used; from then on len(t),
    iter(t) and 'in' are the DataFrame's too). A Table is not a DataFrame itself: pass
    t.df where one is required (pandas.concat, isinstance, pickle)."""

    def __init__(self, db, where=(), points=None, table=None, _tmp=None):
        self.db = None if _tmp else os.fspath(db)
        self.points = points
        self._path = os.fspath(db)
        self._where = [where] if isinstance(where, str) else list(where)
        self._t = table                 # the C table (_c.Table), read when first needed
        self._names = None
        self._columns = {}
        self._df = None
        self._tmp = None
        if _tmp:
            import shutil
            import weakref
            self._tmp = weakref.finalize(self, shutil.rmtree, _tmp, True)

    def _table(self):
        if self._t is None:
            self._t = _c.results(self._path, self._where)
            if self._tmp:
                self._tmp()             # a temporary database: no longer needed
        return self._t

    @property
    def names(self):
        """The column names, in order (a list)."""
        if self._names is None:
            self._names = self._table().names()
        return list(self._names)

    @property
    def units(self):
        """{column: unit} of the columns the metric vocabulary names."""
        return _units(self.names)

    def column(self, name):
        """The column 'name' as a list, one value per row: int, float, str, None."""
        v = self._columns.get(name)
        if v is None:
            names = self.names
            if name not in names:
                raise KeyError(name)
            v = self._columns[name] = self._table().column(names.index(name))
        return list(v)

    def rows(self):
        """The rows as tuples, in the columns' order."""
        return self._table().rows()

    def to_pandas(self):
        """The rows as a pandas DataFrame (one column per metric; units in
        df.attrs["units"]), made once."""
        if self._df is None:
            import pandas as pd
            df = pd.DataFrame.from_records(self._table().rows(), columns=self.names)
            df.attrs["units"] = self.units
            self._df = df
        return self._df

    df = property(to_pandas)

    def __len__(self):
        return len(self._df) if self._df is not None else len(self._table())

    def __iter__(self):
        return iter(self._df if self._df is not None else self.names)

    def __contains__(self, name):
        return name in (self._df if self._df is not None else self.names)

    def __getattr__(self, name):
        # the DataFrame's public attributes and its notebook display (_repr_html_ ...)
        if name.startswith("_") and not name.startswith("_repr_"):
            raise AttributeError(name)
        return getattr(self.to_pandas(), name)

    def __getitem__(self, key):
        return self.to_pandas()[key]

    def __setitem__(self, key, value):
        self.to_pandas()[key] = value

    def __delitem__(self, key):
        del self.to_pandas()[key]

    def __array__(self, dtype=None):
        return self.to_pandas().__array__(dtype)

    def __repr__(self):
        return repr(self.to_pandas())

    def __str__(self):
        return str(self.to_pandas())


def results(db, where=()):
    """The rows of a results database ('fiberloop results DB'), filtered by "COLUMN OP VALUE"
    conditions, as a Table (read now: a missing database or a bad condition raises here;
    t.df is the DataFrame)."""
    if isinstance(where, str):
        where = [where]
    return Table(db, where, table=_c.results(os.fspath(db), list(where)))
def _axis(path, values):
    if isinstance(values, str):
        return "%s=%s" % (path, values)          # a range A:B:STEP or V1,V2 as on the CLI
    return "%s=%s" % (path, ",".join(_yaml(v) for v in values))


def sweep(spec, axes, db=None, zip=False, command="model", workers=0, **options):
    """Run 'command' over every combination of the axes' values ({PATH: [values] or
    "A:B:STEP"}; zip=True: taken together), one row per point in the results database
    'db' (kept, and resumed by the same sweep; None: a temporary one), and return its rows
    as a Table (results(db), read when first asked for: t.df is the DataFrame)."""
    if not isinstance(spec, Spec):
        spec = load(*spec) if isinstance(spec, (list, tuple)) else load(spec)
    ax = [_axis(k, v) for k, v in axes.items()]
    opts = [_option(k, v) for k, v in options.items()]
    texts = any(t is not None for _, t in spec._sources)
    tmp = None
    if db is None or texts:
        import tempfile
        tmp = tempfile.mkdtemp(prefix="fiberloop-")
    keep = False
    try:
        c = spec._c
        if texts:
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
        n = _c.sweep(c, ax, bool(zip), command, opts, path, int(workers))
        keep = db is None               # the Table removes it once it has read the rows
        return Table(path, points=n, _tmp=tmp if keep else None)
    finally:
        if tmp and not keep:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)
