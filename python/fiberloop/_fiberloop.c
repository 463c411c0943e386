/*
 * fiberloop._fiberloop: the Python package's C extension over libfiberloop
 * (fiberloop.h alone). A Spec owns a fiberloop_spec and a lock; run()
 * evaluates it with the GIL released (threads on different specs run in
 * parallel) and returns the result as plain Python values, named by the
 * metric vocabulary. Failures raise SpecError (located: file, line,
 * column, message, as the command line prints them), InfeasibleError or
 * FiberloopError; Ctrl-C during a search or a sweep stops it and raises
 * KeyboardInterrupt.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include <fiberloop.h>

static PyObject *FiberloopError, *SpecError, *InfeasibleError;

/* ------------------------------------------------------------------ errors */

/* Raise the exception of 'e' (and free it); NULL. */
static PyObject *raise_error(fiberloop_error *e)
{
	PyObject *cls, *exc, *diags;
	size_t i, first = 0;
	enum fiberloop_status st = fiberloop_error_status(e);

	if (st == FIBERLOOP_INTERRUPTED) {
		fiberloop_error_free(e);
		PyErr_SetNone(PyExc_KeyboardInterrupt);
		return NULL;
	}
	cls = st == FIBERLOOP_BAD_INPUT ? SpecError
	      : st == FIBERLOOP_INFEASIBLE ? InfeasibleError : FiberloopError;
	/* the first error is the one the command line prints first */
	for (i = 0; i < fiberloop_error_count(e); i++)
		if (strcmp(fiberloop_error_severity(e, i), "error") == 0) {
			first = i;
			break;
		}
	exc = PyObject_CallFunction(cls, "s", fiberloop_error_text(e));
	diags = PyList_New(0);
	if (exc && diags) {
		for (i = 0; i < fiberloop_error_count(e); i++) {
			PyObject *t = Py_BuildValue("(szIIs)", fiberloop_error_severity(e, i),
						    fiberloop_error_file(e, i),
						    fiberloop_error_line(e, i),
						    fiberloop_error_column(e, i),
						    fiberloop_error_message(e, i));
			if (!t || PyList_Append(diags, t) < 0) {
				Py_XDECREF(t);
				goto out;
			}
			Py_DECREF(t);
		}
		PyObject *file = fiberloop_error_file(e, first)
				 ? PyUnicode_FromString(fiberloop_error_file(e, first))
				 : (Py_INCREF(Py_None), Py_None);
		PyObject_SetAttrString(exc, "file", file);
		Py_XDECREF(file);
		PyObject *v = PyLong_FromUnsignedLong(fiberloop_error_line(e, first));
		PyObject_SetAttrString(exc, "line", v);
		Py_XDECREF(v);
		v = PyLong_FromUnsignedLong(fiberloop_error_column(e, first));
		PyObject_SetAttrString(exc, "column", v);
		Py_XDECREF(v);
		v = PyUnicode_FromString(fiberloop_error_message(e, first));
		PyObject_SetAttrString(exc, "message", v);
		Py_XDECREF(v);
		v = PyUnicode_FromString(fiberloop_error_text(e));
		PyObject_SetAttrString(exc, "text", v);
		Py_XDECREF(v);
		PyObject_SetAttrString(exc, "diagnostics", diags);
		PyErr_SetObject(cls, exc);
	}
out:
	Py_XDECREF(diags);
	Py_XDECREF(exc);
	fiberloop_error_free(e);
	return NULL;
}

/* ------------------------------------------------------------------ Ctrl-C */

/*
 * While a search or a sweep runs with the GIL released, SIGINT raises the
 * run's stop flag (the handler is installed only around runs from the main
 * thread whose SIGINT handler is Python's default).
 */
static fiberloop_options *volatile sigint_target;
static volatile sig_atomic_t sigint_seen;

static void on_sigint(int sig)
{
	(void)sig;
	sigint_seen = 1;
	if (sigint_target)
		fiberloop_options_stop(sigint_target);
}

struct sigint_guard {
	int active;
	struct sigaction old;
};

static unsigned long main_thread;

static void sigint_begin(struct sigint_guard *g, fiberloop_options *o)
{
	struct sigaction sa;

	g->active = 0;
	if (PyThread_get_thread_ident() != main_thread)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigint_seen = 0;
	sigint_target = o;
	if (sigaction(SIGINT, &sa, &g->old) == 0)
		g->active = 1;
}

/* Restore the handler; true when Ctrl-C came. */
static int sigint_end(struct sigint_guard *g)
{
	if (!g->active)
		return 0;
	sigaction(SIGINT, &g->old, NULL);
	sigint_target = NULL;
	return sigint_seen;
}

/* ------------------------------------------------------------------ Spec */

typedef struct {
	PyObject_HEAD
	fiberloop_spec *spec;
	PyThread_type_lock lock;
} SpecObject;

static int spec_init(SpecObject *self, PyObject *args, PyObject *kw)
{
	if (!self->spec)
		self->spec = fiberloop_spec_new();
	if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

static void spec_dealloc(SpecObject *self)
{
	fiberloop_spec_free(self->spec);
	if (self->lock)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Take the spec's lock with the GIL released (another thread may be running it). */
static void spec_lock(SpecObject *self)
{
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
}

static PyObject *spec_add_file(SpecObject *self, PyObject *arg)
{
	const char *path = PyUnicode_AsUTF8(arg);
	fiberloop_error *err = NULL;
	int rc;

	if (!path)
		return NULL;
	spec_lock(self);
	Py_BEGIN_ALLOW_THREADS
	rc = fiberloop_spec_add_file(self->spec, path, &err);
	Py_END_ALLOW_THREADS
	PyThread_release_lock(self->lock);
	if (rc < 0)
		return raise_error(err);
	Py_RETURN_NONE;
}

static PyObject *spec_add_text(SpecObject *self, PyObject *args)
{
	const char *name, *text;
	Py_ssize_t len;
	fiberloop_error *err = NULL;
	int rc;

	if (!PyArg_ParseTuple(args, "ss#", &name, &text, &len))
		return NULL;
	spec_lock(self);
	rc = fiberloop_spec_add_text(self->spec, name, text, (size_t)len, &err);
	PyThread_release_lock(self->lock);
	if (rc < 0)
		return raise_error(err);
	Py_RETURN_NONE;
}

/* One of the string setters (var, set, tensor). */
static PyObject *spec_str_call(SpecObject *self, PyObject *arg,
			       int (*fn)(fiberloop_spec *, const char *, fiberloop_error **))
{
	const char *s = PyUnicode_AsUTF8(arg);
	fiberloop_error *err = NULL;
	int rc;

	if (!s)
		return NULL;
	spec_lock(self);
	rc = fn(self->spec, s, &err);
	PyThread_release_lock(self->lock);
	if (rc < 0)
		return raise_error(err);
	Py_RETURN_NONE;
}

static PyObject *spec_add_var(SpecObject *self, PyObject *arg)
{
	return spec_str_call(self, arg, fiberloop_spec_add_var);
}

static PyObject *spec_set(SpecObject *self, PyObject *arg)
{
	return spec_str_call(self, arg, fiberloop_spec_set);
}

static PyObject *spec_add_tensor(SpecObject *self, PyObject *arg)
{
	return spec_str_call(self, arg, fiberloop_spec_add_tensor);
}

static PyObject *spec_clear(SpecObject *self, PyObject *unused)
{
	spec_lock(self);
	fiberloop_spec_clear_overrides(self->spec);
	PyThread_release_lock(self->lock);
	Py_RETURN_NONE;
}

static PyObject *spec_kind(SpecObject *self, PyObject *unused)
{
	return PyUnicode_FromString(fiberloop_spec_kind(self->spec));
}

static PyMethodDef spec_methods[] = {
	{ "add_file", (PyCFunction)spec_add_file, METH_O, "add_file(path): parse a YAML file" },
	{ "add_text", (PyCFunction)spec_add_text, METH_VARARGS,
	  "add_text(name, text): parse YAML or JSON text located as file 'name'" },
	{ "add_var", (PyCFunction)spec_add_var, METH_O, "add_var('NAME=VALUE'): a Jinja2 variable" },
	{ "set", (PyCFunction)spec_set, METH_O, "set('PATH=VALUE'): an override (--set)" },
	{ "add_tensor", (PyCFunction)spec_add_tensor, METH_O,
	  "add_tensor('NAME=FILE'): actual data (--tensor)" },
	{ "clear_overrides", (PyCFunction)spec_clear, METH_NOARGS, "forget every override" },
	{ "kind", (PyCFunction)spec_kind, METH_NOARGS, "the design's kind" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject SpecType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fiberloop._fiberloop.Spec",
	.tp_basicsize = sizeof(SpecObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "a design (libfiberloop's fiberloop_spec)",
	.tp_new = PyType_GenericNew,
	.tp_init = (initproc)spec_init,
	.tp_dealloc = (destructor)spec_dealloc,
	.tp_methods = spec_methods,
};

/* ------------------------------------------------------------------ runs */

/* Options from a command and a sequence of (name, value) string pairs; NULL with an error. */
static fiberloop_options *make_options(const char *command, PyObject *pairs)
{
	fiberloop_error *err = NULL;
	fiberloop_options *o = fiberloop_options_new(command, &err);
	PyObject *seq;
	Py_ssize_t i, n;

	if (!o) {
		raise_error(err);
		return NULL;
	}
	if (!(seq = PySequence_Fast(pairs, "options: a sequence of (name, value) pairs")))
		goto fail;
	n = PySequence_Fast_GET_SIZE(seq);
	for (i = 0; i < n; i++) {
		const char *name, *value;
		if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ss", &name, &value))
			goto fail_seq;
		if (fiberloop_options_set(o, name, value, &err) < 0) {
			raise_error(err);
			goto fail_seq;
		}
	}
	Py_DECREF(seq);
	return o;
fail_seq:
	Py_DECREF(seq);
fail:
	fiberloop_options_free(o);
	return NULL;
}

/* The value of metric m of r as a Python object. */
static PyObject *metric_value(const fiberloop_result *r, size_t m)
{
	const char *type = fiberloop_metric_type(m);

	if (type[0] == 't')
		return PyUnicode_FromString(fiberloop_result_text(r, m));
	if (type[0] == 'c')
		return PyLong_FromUnsignedLongLong(fiberloop_result_count(r, m));
	return PyFloat_FromDouble(fiberloop_result_real(r, m));
}

/*
 * A run's result: it keeps the fiberloop_result and makes Python values
 * only of what is read (a metric as an attribute: r.energy_pj; None for a
 * metric of the vocabulary the design's kind does not give). The package's
 * Result derives from it.
 */
typedef struct {
	PyObject_HEAD
	PyObject *dict;                /* a subclass's attributes */
	fiberloop_result *r;
} ResultObject;

static PyObject *metric_index;      /* {name: index} of the metrics that are not per level */
static PyTypeObject ResultType;
static PyTypeObject *result_type = &ResultType;   /* _set_result_type() */

static void result_dealloc(ResultObject *self)
{
	PyObject_GC_UnTrack(self);
	Py_CLEAR(self->dict);
	fiberloop_result_free(self->r);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int result_traverse(ResultObject *self, visitproc visit, void *arg)
{
	Py_VISIT(self->dict);
	return 0;
}

static int result_clear(ResultObject *self)
{
	Py_CLEAR(self->dict);
	return 0;
}

static PyObject *result_getattro(PyObject *self, PyObject *name)
{
	PyObject *v = PyObject_GenericGetAttr(self, name), *m;
	const fiberloop_result *r = ((ResultObject *)self)->r;
	size_t i;

	if (v || !PyErr_ExceptionMatches(PyExc_AttributeError) ||
	    !(m = PyDict_GetItemWithError(metric_index, name)))
		return v;
	PyErr_Clear();
	i = PyLong_AsSize_t(m);
	if (!r || !fiberloop_result_has(r, i))
		Py_RETURN_NONE;       /* a metric this kind of design does not give */
	return metric_value(r, i);
}

/* {name: value} of every metric the result has (not per level). */
static PyObject *result_metrics(ResultObject *self, PyObject *unused)
{
	PyObject *d = PyDict_New();
	size_t m;

	for (m = 0; d && self->r && m < fiberloop_metric_count(); m++) {
		PyObject *v;
		if (fiberloop_metric_per_level(m) || !fiberloop_result_has(self->r, m))
			continue;
		if (!(v = metric_value(self->r, m)) ||
		    PyDict_SetItemString(d, fiberloop_metric_name(m), v) < 0)
			Py_CLEAR(d);
		Py_XDECREF(v);
	}
	return d;
}

/* [(level, energy_pj)], innermost first. */
static PyObject *result_levels(ResultObject *self, PyObject *unused)
{
	PyObject *levels = PyList_New(0);
	size_t l;

	for (l = 0; levels && self->r && l < fiberloop_result_levels(self->r); l++) {
		PyObject *t = Py_BuildValue("(sd)", fiberloop_result_level_name(self->r, l),
					    fiberloop_result_level_energy_pj(self->r, l));
		if (!t || PyList_Append(levels, t) < 0)
			Py_CLEAR(levels);
		Py_XDECREF(t);
	}
	return levels;
}

/* The document's text ("" when the run was made without one). */
static PyObject *result_document_text(ResultObject *self, PyObject *unused)
{
	size_t len = 0;
	const char *doc = self->r ? fiberloop_result_document(self->r, &len) : NULL;

	return PyUnicode_FromStringAndSize(doc ? doc : "", doc ? (Py_ssize_t)len : 0);
}

static PyObject *str_or_empty(const char *s)
{
	return PyUnicode_FromString(s ? s : "");
}

static PyObject *result_get_kind(ResultObject *self, void *unused)
{
	return str_or_empty(self->r ? fiberloop_result_kind(self->r) : NULL);
}

static PyObject *result_get_command(ResultObject *self, void *unused)
{
	return str_or_empty(self->r ? fiberloop_result_command(self->r) : NULL);
}

static PyObject *result_get_status(ResultObject *self, void *unused)
{
	return PyUnicode_FromString(self->r && fiberloop_result_status(self->r) != FIBERLOOP_OK
				    ? "mismatch" : "ok");
}

static PyObject *result_get_mapping(ResultObject *self, void *unused)
{
	return str_or_empty(self->r ? fiberloop_result_mapping(self->r) : NULL);
}

static PyObject *result_get_warnings(ResultObject *self, void *unused)
{
	return str_or_empty(self->r ? fiberloop_result_warnings(self->r) : NULL);
}

static PyGetSetDef result_getset[] = {
	{ "kind", (getter)result_get_kind, NULL, "the design's kind: timeloop, ipu, stpu", NULL },
	{ "command", (getter)result_get_command, NULL, "the command run", NULL },
	{ "status", (getter)result_get_status, NULL, "ok, or mismatch (validate)", NULL },
	{ "mapping", (getter)result_get_mapping, NULL, "the mapping, outermost level first", NULL },
	{ "warnings", (getter)result_get_warnings, NULL, "the run's warnings, as text", NULL },
	{ "__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef result_methods[] = {
	{ "_metrics", (PyCFunction)result_metrics, METH_NOARGS, "{metric: value}" },
	{ "_levels", (PyCFunction)result_levels, METH_NOARGS, "[(level, energy_pj)]" },
	{ "_document", (PyCFunction)result_document_text, METH_NOARGS, "the document's text" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject ResultType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fiberloop._fiberloop.Result",
	.tp_basicsize = sizeof(ResultObject),
	.tp_dictoffset = offsetof(ResultObject, dict),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "a run's result (libfiberloop's fiberloop_result)",
	.tp_dealloc = (destructor)result_dealloc,
	.tp_traverse = (traverseproc)result_traverse,
	.tp_clear = (inquiry)result_clear,
	.tp_getattro = result_getattro,
	.tp_getset = result_getset,
	.tp_methods = result_methods,
};

/* _set_result_type(cls): run() returns instances of cls (a subclass of Result). */
static PyObject *py_set_result_type(PyObject *mod, PyObject *cls)
{
	if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &ResultType)) {
		PyErr_SetString(PyExc_TypeError, "a subclass of _fiberloop.Result");
		return NULL;
	}
	Py_INCREF(cls);
	if (result_type != &ResultType)
		Py_DECREF(result_type);
	result_type = (PyTypeObject *)cls;
	Py_RETURN_NONE;
}

/*
 * The thread's options for 'command' and 'pairs': made once per thread and
 * (command, pairs) (no parsing per evaluation), kept in a dict of the
 * thread-state dict (freed with the thread), at most THREAD_OPTIONS of them.
 * They are the thread's, not the spec's, for they keep the model's memory
 * between runs (fiberloop_run()): a few per thread, not one per spec. NULL
 * with an error.
 */
#define THREAD_OPTIONS 8

static void options_capsule_free(PyObject *cap)
{
	fiberloop_options_free(PyCapsule_GetPointer(cap, "fiberloop.options"));
}

static fiberloop_options *thread_options(PyObject *command, PyObject *pairs_in)
{
	PyObject *td = PyThreadState_GetDict(), *cache, *key, *cap, *pairs;
	fiberloop_options *o;

	if (!td) {
		PyErr_SetString(PyExc_RuntimeError, "no thread state");
		return NULL;
	}
	if (!(cache = PyDict_GetItemString(td, "fiberloop._fiberloop.options"))) {   /* borrowed */
		if (!(cache = PyDict_New()))
			return NULL;
		if (PyDict_SetItemString(td, "fiberloop._fiberloop.options", cache) < 0) {
			Py_DECREF(cache);
			return NULL;
		}
		Py_DECREF(cache);               /* the thread's dict holds it */
	}
	pairs = PyTuple_Check(pairs_in) ? (Py_INCREF(pairs_in), pairs_in)
					: PySequence_Tuple(pairs_in);   /* a key: immutable */
	if (!pairs)
		return NULL;
	key = PyTuple_Pack(2, command, pairs);
	Py_DECREF(pairs);
	if (!key)
		return NULL;
	if ((cap = PyDict_GetItemWithError(cache, key))) {
		Py_DECREF(key);
		return PyCapsule_GetPointer(cap, "fiberloop.options");
	}
	if (PyErr_Occurred() || !(o = make_options(PyUnicode_AsUTF8(command), pairs_in))) {
		Py_DECREF(key);                 /* an unhashable value, a bad option */
		return NULL;
	}
	if (!(cap = PyCapsule_New(o, "fiberloop.options", options_capsule_free))) {
		fiberloop_options_free(o);
		Py_DECREF(key);
		return NULL;
	}
	if (PyDict_Size(cache) >= THREAD_OPTIONS)
		PyDict_Clear(cache);
	if (PyDict_SetItem(cache, key, cap) < 0)
		o = NULL;
	Py_DECREF(cap);                         /* the cache's (o lives as long) */
	Py_DECREF(key);
	return o;
}

/* run(spec, command, options) -> Result */
static PyObject *py_run(PyObject *mod, PyObject *args)
{
	SpecObject *spec;
	PyObject *command, *pairs;
	ResultObject *res;
	fiberloop_options *o;
	fiberloop_result *r;
	fiberloop_error *err = NULL;
	struct sigint_guard g = { 0 };
	int interrupted = 0, quick;

	if (!PyArg_ParseTuple(args, "O!UO", &SpecType, &spec, &command, &pairs))
		return NULL;
	if (!(o = thread_options(command, pairs)))
		return NULL;
	spec_lock(spec);
	/* an evaluation is over in microseconds: Ctrl-C then raises when it returns */
	quick = PyUnicode_CompareWithASCIIString(command, "model") == 0;
	if (!quick)
		sigint_begin(&g, o);
	Py_BEGIN_ALLOW_THREADS
	r = fiberloop_run(spec->spec, o, &err);
	Py_END_ALLOW_THREADS
	if (!quick)
		interrupted = sigint_end(&g);
	PyThread_release_lock(spec->lock);
	if (interrupted) {
		fiberloop_result_free(r);
		fiberloop_error_free(err);
		PyErr_SetNone(PyExc_KeyboardInterrupt);
		return NULL;
	}
	if (!r)
		return raise_error(err);
	if (!(res = (ResultObject *)result_type->tp_alloc(result_type, 0))) {
		fiberloop_result_free(r);
		return NULL;
	}
	res->r = r;
	return (PyObject *)res;
}

/* A list of str from a sequence; NULL with an error. 'out' gets n pointers into the list. */
static PyObject *str_list(PyObject *seq_in, const char ***out, Py_ssize_t *n)
{
	PyObject *seq = PySequence_Fast(seq_in, "expected a sequence of str");
	Py_ssize_t i;

	if (!seq)
		return NULL;
	*n = PySequence_Fast_GET_SIZE(seq);
	*out = PyMem_Calloc((size_t)(*n ? *n : 1), sizeof(**out));
	if (!*out) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < *n; i++)
		if (!((*out)[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i)))) {
			PyMem_Free(*out);
			Py_DECREF(seq);
			return NULL;
		}
	return seq;
}

/* sweep(spec, axes, zip, command, options, db, workers) -> number of points */
static PyObject *py_sweep(PyObject *mod, PyObject *args)
{
	SpecObject *spec;
	PyObject *axes_in, *pairs, *seq;
	const char **axes, *command, *db;
	Py_ssize_t n_axes;
	int zip, interrupted;
	unsigned workers;
	fiberloop_options *o;
	fiberloop_error *err = NULL;
	struct sigint_guard g;
	int64_t n;

	if (!PyArg_ParseTuple(args, "O!OpsOsI", &SpecType, &spec, &axes_in, &zip, &command, &pairs,
			      &db, &workers))
		return NULL;
	if (!(seq = str_list(axes_in, &axes, &n_axes)))
		return NULL;
	if (!(o = make_options(command, pairs))) {
		PyMem_Free(axes);
		Py_DECREF(seq);
		return NULL;
	}
	spec_lock(spec);
	sigint_begin(&g, o);
	Py_BEGIN_ALLOW_THREADS
	n = fiberloop_sweep(spec->spec, axes, (size_t)n_axes, zip, o, db, workers, &err);
	Py_END_ALLOW_THREADS
	interrupted = sigint_end(&g);
	PyThread_release_lock(spec->lock);
	fiberloop_options_free(o);
	PyMem_Free(axes);
	Py_DECREF(seq);
	if (interrupted) {
		fiberloop_error_free(err);
		PyErr_SetNone(PyExc_KeyboardInterrupt);
		return NULL;
	}
	if (n < 0)
		return raise_error(err);
	return PyLong_FromLongLong(n);
}

/* A cell of a results table as a Python value (int, float, str, None). */
static PyObject *cell_value(const fiberloop_table *t, size_t r, size_t c)
{
	const char *s = fiberloop_table_cell(t, r, c);

	switch (fiberloop_table_type(t, r, c)) {
	case 'i':
		return PyLong_FromString(s, NULL, 10);
	case 'r':
		return PyFloat_FromDouble(PyOS_string_to_double(s, NULL, NULL));
	case 't':
		return PyUnicode_FromString(s);
	default:
		Py_RETURN_NONE;
	}
}

/*
 * The rows of a results database as libfiberloop read them (a
 * fiberloop_table); Python values are made of what is asked: a column
 * (column-wise, one list) or every row (tuples). The package's Table reads
 * the database through it.
 */
typedef struct {
	PyObject_HEAD
	fiberloop_table *t;
} TableObject;

static void table_dealloc(TableObject *self)
{
	fiberloop_table_free(self->t);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t table_length(TableObject *self)
{
	return (Py_ssize_t)fiberloop_table_rows(self->t);
}

/* The column names, in order. */
static PyObject *table_names(TableObject *self, PyObject *unused)
{
	size_t c, n = fiberloop_table_columns(self->t);
	PyObject *l = PyList_New((Py_ssize_t)n);

	for (c = 0; l && c < n; c++) {
		PyObject *s = PyUnicode_FromString(fiberloop_table_column(self->t, c));
		if (!s)
			Py_CLEAR(l);
		else
			PyList_SET_ITEM(l, (Py_ssize_t)c, s);
	}
	return l;
}

/* column(i) -> [value of each row] */
static PyObject *table_column(TableObject *self, PyObject *arg)
{
	Py_ssize_t c = PyLong_AsSsize_t(arg);
	size_t r, n = fiberloop_table_rows(self->t);
	PyObject *l;

	if (c == -1 && PyErr_Occurred())
		return NULL;
	if (c < 0 || (size_t)c >= fiberloop_table_columns(self->t)) {
		PyErr_SetString(PyExc_IndexError, "no such column");
		return NULL;
	}
	if (!(l = PyList_New((Py_ssize_t)n)))
		return NULL;
	for (r = 0; r < n; r++) {
		PyObject *v = cell_value(self->t, r, (size_t)c);
		if (!v) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)r, v);
	}
	return l;
}

/* rows() -> [(value of each column)] */
static PyObject *table_rows(TableObject *self, PyObject *unused)
{
	size_t r, c, n = fiberloop_table_rows(self->t), m = fiberloop_table_columns(self->t);
	PyObject *rows = PyList_New((Py_ssize_t)n);

	for (r = 0; rows && r < n; r++) {
		PyObject *row = PyTuple_New((Py_ssize_t)m);
		if (!row) {
			Py_CLEAR(rows);
			break;
		}
		PyList_SET_ITEM(rows, (Py_ssize_t)r, row);
		for (c = 0; c < m; c++) {
			PyObject *v = cell_value(self->t, r, c);
			if (!v) {
				Py_CLEAR(rows);
				break;
			}
			PyTuple_SET_ITEM(row, (Py_ssize_t)c, v);
		}
	}
	return rows;
}

static PySequenceMethods table_as_sequence = {
	.sq_length = (lenfunc)table_length,
};

static PyMethodDef table_methods[] = {
	{ "names", (PyCFunction)table_names, METH_NOARGS, "the column names" },
	{ "column", (PyCFunction)table_column, METH_O, "column(i) -> [value of each row]" },
	{ "rows", (PyCFunction)table_rows, METH_NOARGS, "[(value of each column)]" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject TableType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "fiberloop._fiberloop.Table",
	.tp_basicsize = sizeof(TableObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "the rows of a results database (libfiberloop's fiberloop_table)",
	.tp_dealloc = (destructor)table_dealloc,
	.tp_as_sequence = &table_as_sequence,
	.tp_methods = table_methods,
};

/* results(db, wheres) -> Table */
static PyObject *py_results(PyObject *mod, PyObject *args)
{
	const char *db, **wheres;
	PyObject *wheres_in, *seq;
	Py_ssize_t n;
	TableObject *res;
	fiberloop_table *t;
	fiberloop_error *err = NULL;

	if (!PyArg_ParseTuple(args, "sO", &db, &wheres_in))
		return NULL;
	if (!(seq = str_list(wheres_in, &wheres, &n)))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	t = fiberloop_results(db, wheres, (size_t)n, &err);
	Py_END_ALLOW_THREADS
	PyMem_Free(wheres);
	Py_DECREF(seq);
	if (!t)
		return raise_error(err);
	if (!(res = PyObject_New(TableObject, &TableType))) {
		fiberloop_table_free(t);
		return NULL;
	}
	res->t = t;
	return (PyObject *)res;
}

/* metrics() -> [(name, unit, type, better, per_level, description)] */
static PyObject *py_metrics(PyObject *mod, PyObject *unused)
{
	PyObject *l = PyList_New(0);
	size_t m;

	for (m = 0; l && m < fiberloop_metric_count(); m++) {
		PyObject *t = Py_BuildValue("(ssssNs)", fiberloop_metric_name(m),
					    fiberloop_metric_unit(m), fiberloop_metric_type(m),
					    fiberloop_metric_better(m),
					    PyBool_FromLong(fiberloop_metric_per_level(m)),
					    fiberloop_metric_description(m));
		if (!t || PyList_Append(l, t) < 0) {
			Py_XDECREF(t);
			Py_CLEAR(l);
		}
		Py_XDECREF(t);
	}
	return l;
}

static PyObject *py_commands(PyObject *mod, PyObject *unused)
{
	const char *const *c = fiberloop_command_names();
	PyObject *l = PyList_New(0);

	for (; l && *c; c++) {
		PyObject *s = PyUnicode_FromString(*c);
		if (!s || PyList_Append(l, s) < 0)
			Py_CLEAR(l);
		Py_XDECREF(s);
	}
	return l;
}

static PyMethodDef module_methods[] = {
	{ "run", py_run, METH_VARARGS, "run(spec, command, options) -> Result" },
	{ "_set_result_type", py_set_result_type, METH_O,
	  "_set_result_type(cls): run() returns instances of cls" },
	{ "sweep", py_sweep, METH_VARARGS,
	  "sweep(spec, axes, zip, command, options, db, workers) -> points" },
	{ "results", py_results, METH_VARARGS, "results(db, wheres) -> Table" },
	{ "metrics", py_metrics, METH_NOARGS, "the metric vocabulary" },
	{ "commands", py_commands, METH_NOARGS, "the command names" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_fiberloop", "libfiberloop for Python (use the package 'fiberloop')",
	-1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fiberloop(void);
PyMODINIT_FUNC PyInit__fiberloop(void)
{
	PyObject *m;

	size_t i;

	if (PyType_Ready(&SpecType) < 0 || PyType_Ready(&ResultType) < 0 ||
	    PyType_Ready(&TableType) < 0 || !(m = PyModule_Create(&module)))
		return NULL;
	if (!(metric_index = PyDict_New()))
		return NULL;
	for (i = 0; i < fiberloop_metric_count(); i++) {
		PyObject *v;
		if (fiberloop_metric_per_level(i))
			continue;
		if (!(v = PyLong_FromSize_t(i)) ||
		    PyDict_SetItemString(metric_index, fiberloop_metric_name(i), v) < 0) {
			Py_XDECREF(v);
			return NULL;
		}
		Py_DECREF(v);
	}
	main_thread = PyThread_get_thread_ident();
	FiberloopError = PyErr_NewExceptionWithDoc("fiberloop.FiberloopError",
						   "a fiberloop run failed", NULL, NULL);
	SpecError = PyErr_NewExceptionWithDoc(
		"fiberloop.SpecError",
		"a bad design or option: file, line, column and message of its first error "
		"(as the command line prints it), text (every diagnostic), diagnostics",
		Py_BuildValue("(OO)", FiberloopError, PyExc_ValueError), NULL);
	InfeasibleError = PyErr_NewExceptionWithDoc(
		"fiberloop.InfeasibleError", "the mapping does not fit, or no mapping was found",
		FiberloopError, NULL);
	Py_INCREF(&SpecType);
	Py_INCREF(&ResultType);
	if (PyModule_AddObject(m, "Result", (PyObject *)&ResultType) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(&TableType);
	if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	if (!FiberloopError || !SpecError || !InfeasibleError ||
	    PyModule_AddObject(m, "Spec", (PyObject *)&SpecType) < 0 ||
	    PyModule_AddObject(m, "FiberloopError", FiberloopError) < 0 ||
	    PyModule_AddObject(m, "SpecError", SpecError) < 0 ||
	    PyModule_AddObject(m, "InfeasibleError", InfeasibleError) < 0 ||
	    PyModule_AddStringConstant(m, "version", fiberloop_version()) < 0) {
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(FiberloopError);
	Py_INCREF(SpecError);
	Py_INCREF(InfeasibleError);
	return m;
}
