#!/usr/bin/env python3
# fiberloop-jinja: renders the Jinja2 templates among a design's YAML files
# for fiberloop (specs/jinja.c starts it and talks to it over stdin/stdout).
#
# The template environment is the one Timeloop's v0.4 front end gives its
# files: StrictUndefined, a file system loader at the file's directory, and
# the helpers cwd(), include(), include_all(), include_text(), find_path(),
# find_paths(), path_exists() and add_to_path(). include() and include_all()
# do not load YAML here: they leave a placeholder that fiberloop resolves by
# loading the file itself, so that its nodes keep their own locations.
#
# Protocol (version 1). On start, one line: "fiberloop-jinja 1 JINJA_VERSION",
# or "nojinja MESSAGE" when the jinja2 module cannot be imported. Then
# requests and responses, each a list of fields "KEY LEN\n" + LEN bytes +
# "\n", closed by the field "end 0\n\n".
#   request:  render PATH, name DISPLAY, var NAME=VALUE..., dir DIR...
#   response: text TEXT, src DISPLAY... (file 0 is the template), map RUNS
#             ("OUT COUNT FILE SRC" per line, 1-based lines), and per
#             include(): inc "ID SINGLE INDICES", then ipath ABS + idisp
#             DISPLAY per file found, and idir DIR per include directory
#   error:    error MESSAGE, kind syntax|runtime, efile DISPLAY, eline LINE
# The process exits at the end of its input.
import bisect
import difflib
import glob
import os
import sys

PROTOCOL = 1
INCLUDE_TAG = "!fiberloop-include"


class HelperError(Exception):
    """An error of a helper function, reported at the template line calling it."""


def display(path):
    """A path as messages show it: relative to the working directory."""
    return os.path.relpath(path)


def find_paths(p, cur, dirs):
    """Every file matching pattern 'p', relative to the file 'cur' then to the
    include directories (or absolute), in sorted order without repeats."""
    if not isinstance(p, str):
        raise HelperError(f"expected a path, got {p!r}")
    prepend = [""] if os.path.isabs(p) else [os.path.dirname(cur)] + dirs
    found, searched = [], []
    for d in prepend:
        s = os.path.abspath(os.path.join(d, p))
        found.extend(sorted(glob.glob(s)))
        searched.append(display(s))
    if not found:
        raise HelperError(f"cannot find '{p}' (looked for: {', '.join(searched)})")
    unique, seen = [], set()
    for f in found:
        r = os.path.realpath(f)
        if r not in seen:
            seen.add(r)
            unique.append(os.path.abspath(f))
    return unique


def find_path(p, cur, dirs):
    """The first existing file 'p' relative to 'cur', then the include directories."""
    if not isinstance(p, str):
        raise HelperError(f"expected a path, got {p!r}")
    prepend = [""] if os.path.isabs(p) else [os.path.dirname(cur)] + dirs
    searched = []
    for d in prepend:
        s = os.path.abspath(os.path.join(d, p))
        if os.path.exists(s):
            return s
        searched.append(display(s))
    raise HelperError(f"cannot find '{p}' (looked for: {', '.join(searched)})")


def parse_var(text):
    """NAME=VALUE from the command line; the value typed as YAML would type it."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise HelperError(f"a template variable is NAME=VALUE, got '{text}'")
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return name, v[1:-1]
    if v.lower() in ("true", "false"):
        return name, v.lower() == "true"
    for cast in (int, float):
        try:
            return name, cast(v)
        except ValueError:
            pass
    return name, value


ENVIRONMENTS = {}


def environment(jinja2, directory):
    """The Jinja2 environment of a directory, kept (with its compiled templates,
    reloaded when a file changes) for later requests."""
    env = ENVIRONMENTS.get(directory)
    if env is None:
        env = jinja2.Environment(loader=jinja2.FileSystemLoader(directory),
                                 undefined=jinja2.StrictUndefined)
        ENVIRONMENTS[directory] = env
    return env


class Renderer:
    """One request: the template, the text it includes, and the includes it asks for."""

    def __init__(self, jinja2, data):
        self.jinja2 = jinja2
        self.data = data
        self.files = []
        self.file_ids = {}
        self.includes = []
        self.templates = set()

    def file_id(self, path, name=None):
        key = os.path.abspath(path)
        if key not in self.file_ids:
            self.file_ids[key] = len(self.files)
            self.files.append(name if name is not None else display(path))
        return self.file_ids[key]

    def include(self, p, indices, single, cur, dirs):
        paths = find_paths(p, cur, dirs)
        if single and len(paths) > 1:
            raise HelperError(f"include('{p}') matches {len(paths)} files "
                              f"(include_all() takes several)")
        if not isinstance(indices, str):
            raise HelperError(f"the key path of include('{p}') must be a string")
        ident = len(self.includes)
        self.includes.append((ident, single, indices.lstrip("."), paths, list(dirs)))
        return f"{INCLUDE_TAG} {ident}"

    def render_file(self, path, dirs, name=None):
        """Render one template; its text and, per line, (file id, source line)."""
        jinja2 = self.jinja2
        path = os.path.abspath(path)
        dirs = list(dirs)
        segments = []

        def include_text(p):
            texts, maps = [], []
            for f in find_paths(p, path, dirs):
                t, m = self.render_file(f, dirs)
                texts.append(t)
                maps.extend(m)
            text = "\n".join(texts)
            segments.append((text, maps))
            return text

        def add_to_path(p):
            dirs.extend(d for d in find_paths(p, path, dirs) if d not in dirs)
            return ""

        def path_exists(p):
            try:
                find_path(p, path, dirs)
                return True
            except HelperError:
                return False

        helpers = dict(
            cwd=lambda: os.path.dirname(path),
            include=lambda p, indices="": self.include(p, indices, True, path, dirs),
            include_all=lambda p, indices="": self.include(p, indices, False, path, dirs),
            include_text=include_text,
            find_path=lambda p: find_path(p, path, dirs),
            find_paths=lambda p: find_paths(p, path, dirs),
            path_exists=path_exists,
            add_to_path=add_to_path,
        )
        fid = self.file_id(path, name)
        with open(path, encoding="utf-8") as f:
            source = f.read()
        self.templates.add(path)
        template = environment(jinja2, os.path.dirname(path)).get_template(os.path.basename(path))
        self.templates.add(template.filename)
        # The helpers go in the context (the variables may not shadow them), so
        # that one compiled template serves every render.
        text = template.render({**self.data, **helpers})
        return text, line_map(text, source, fid, segments)


def line_map(text, source, fid, segments):
    """Where each line of 'text' came from: the lines of included text map to
    their own files; the others are aligned with the template's source."""
    lines = text.split("\n")
    where = [None] * len(lines)
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    cursor = 0
    for seg, seg_map in segments:
        pos = text.find(seg, cursor) if seg else -1
        if pos < 0:
            continue
        first = bisect.bisect_right(starts, pos) - 1
        for k, origin in enumerate(seg_map):
            if k == 0 and starts[first] != pos:
                continue   # the line also holds template text
            if first + k < len(where):
                where[first + k] = origin
        cursor = pos + len(seg)
    masked = [line if where[i] is None else "\0" for i, line in enumerate(lines)]
    src = source.split("\n")
    # Blank lines (what {% ... %} lines render to) must not anchor the alignment.
    sm = difflib.SequenceMatcher(lambda line: not line.strip(), src, masked, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for j in range(j1, j2):
            if where[j] is not None:
                continue
            if tag == "equal":
                s = i1 + (j - j1)
            elif tag == "replace":
                s = i1 + min(j - j1, i2 - i1 - 1)
            else:   # inserted: the line before
                s = max(i1 - 1, 0)
            where[j] = (fid, min(s, len(src) - 1) + 1)
    return where


def error_location(renderer, exc):
    """The innermost template line in the traceback of 'exc'."""
    loc = None
    tb = exc.__traceback__
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if fn in renderer.templates:
            loc = (fn, tb.tb_lineno)
        tb = tb.tb_next
    return loc


def read_message(stream):
    fields = []
    while True:
        header = stream.readline()
        if not header:
            return None
        key, _, length = header.decode("utf-8").rstrip("\n").partition(" ")
        n = int(length)
        data = stream.read(n)
        stream.read(1)
        if key == "end":
            return fields
        fields.append((key, data.decode("utf-8")))


def write_message(stream, fields):
    out = bytearray()
    for key, value in fields + [("end", "")]:
        data = str(value).encode("utf-8")
        out += f"{key} {len(data)}\n".encode("utf-8") + data + b"\n"
    stream.write(bytes(out))
    stream.flush()


def handle(jinja2, fields):
    path = name = None
    data, dirs, bad = {}, [], None
    for key, value in fields:
        if key == "render":
            path = value
        elif key == "name":
            name = value
        elif key == "var":
            try:
                k, v = parse_var(value)
                data[k] = v
            except HelperError as e:
                bad = str(e)
        elif key == "dir":
            dirs.append(value)
    if bad:
        return [("error", bad), ("kind", "runtime"), ("efile", name or path), ("eline", 0)]
    r = Renderer(jinja2, data)
    try:
        text, where = r.render_file(path, dirs, name if name is not None else path)
    except jinja2.TemplateSyntaxError as e:
        fn = e.filename or path
        return [("error", e.message or str(e)), ("kind", "syntax"),
                ("efile", r.files[r.file_id(fn)] if fn else name), ("eline", e.lineno or 0)]
    except Exception as e:   # noqa: BLE001 -- every failure goes back as a message
        loc = error_location(r, e)
        if isinstance(e, jinja2.TemplateNotFound):
            msg = f"template '{e.name}' not found"
        elif isinstance(e, (HelperError, jinja2.TemplateError)):
            msg = str(e)
        elif isinstance(e, OSError):
            msg = f"{e.strerror}: '{display(e.filename)}'" if e.filename else str(e)
        else:
            msg = f"{type(e).__name__}: {e}"
        fn, line = loc if loc else (os.path.abspath(path), 0)
        return [("error", msg), ("kind", "runtime"), ("efile", r.files[r.file_id(fn)]),
                ("eline", line)]
    runs = []
    for j, (fid, line) in enumerate(where):
        if runs and runs[-1][2] == fid and runs[-1][3] + runs[-1][1] == line and \
                runs[-1][0] + runs[-1][1] == j + 1:
            runs[-1][1] += 1
        else:
            runs.append([j + 1, 1, fid, line])
    out = [("text", text)] + [("src", f) for f in r.files]
    out.append(("map", "".join(f"{a} {b} {c} {d}\n" for a, b, c, d in runs)))
    for ident, single, indices, paths, idirs in r.includes:
        out.append(("inc", f"{ident} {1 if single else 0} {indices}"))
        for p in paths:
            out += [("ipath", p), ("idisp", display(p))]
        out += [("idir", d) for d in idirs]
    return out


def main():
    stdout = sys.stdout.buffer
    try:
        import jinja2
    except Exception as e:   # noqa: BLE001 -- any import failure means "no Jinja2"
        stdout.write(f"nojinja {e}\n".encode("utf-8"))
        stdout.flush()
        return 0
    stdout.write(f"fiberloop-jinja {PROTOCOL} {jinja2.__version__}\n".encode("utf-8"))
    stdout.flush()
    while True:
        fields = read_message(sys.stdin.buffer)
        if fields is None:
            return 0
        write_message(stdout, handle(jinja2, fields))


if __name__ == "__main__":
    sys.exit(main())
