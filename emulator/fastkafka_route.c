/* emulator.fastkafka's Router (fastkafka.h): the Kafka output's per-record route checks in C, so the
 * dispatcher's line gates call C directly (`Engine.line_producer` gives the router's bound `produce_line`).
 *
 * Why: with the producer in C (fastkafka.c) the Python around it — `FastPath.produce_line`'s frame, the route
 * lookup, the failure check, the `written` count and the poll every 1,024 records — was ~1,900 of the ~7,955
 * main-thread instructions a record (callgrind, docs/kafka-producer.md "Session 20"/"Session 21").
 *
 * Contract: exactly what kafka_fast.py's Python route did. The routes are the output's own `_routes` dict
 * (topic -> (the record headers list, its producer form)), which `KafkaOutput._write` fills at a topic's first
 * record and `reset()` clears: the router reads that same dict, so there is nothing to keep in step. A record
 * is produced here only when its topic has a route with the very same headers list (identity), no failure is
 * pending (`failed`, set by the output's `failure` property) and a producer is bound; anything else — and any
 * refusal by the producer (BufferError, KafkaException) — is handed to the output's Python fallback with the
 * same arguments (and the exception), which builds the record and takes the general path, as before.
 * `written` (the output's count of records produced, its batches' bounds) lives here, so it survives reset()
 * (the dispatcher keeps the bound method it was given) and the output reads and sets it through a property. */

#include "fastkafka.h"
#include <structmember.h>

static int
Router_traverse(Router *self, visitproc visit, void *arg)
{
    Py_VISIT(self->routes);
    Py_VISIT(self->producer);
    Py_VISIT(self->fallback_line);
    Py_VISIT(self->fallback_kv);
    Py_VISIT(self->poll);
    return 0;
}

static int
Router_clear(Router *self)
{
    Py_CLEAR(self->routes);
    Py_CLEAR(self->producer);
    Py_CLEAR(self->fallback_line);
    Py_CLEAR(self->fallback_kv);
    Py_CLEAR(self->poll);
    return 0;
}

static void
Router_dealloc(Router *self)
{
    PyObject_GC_UnTrack(self);
    Router_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Router(routes, fallback_line, fallback_kv, poll): fallback_line(topic, line, klen, vstart, vtail, headers,
 * exc) and fallback_kv(topic, key, value, headers, exc) take a record the router does not produce (exc: what
 * the producer raised, else None); poll() serves the delivery reports every 1,024 records */
static PyObject *
Router_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *routes, *fl, *fkv, *poll;
    if (!PyArg_ParseTuple(args, "O!OOO:Router", &PyDict_Type, &routes, &fl, &fkv, &poll))
        return NULL;
    Router *self = (Router *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->routes = Py_NewRef(routes);
    self->fallback_line = Py_NewRef(fl);
    self->fallback_kv = Py_NewRef(fkv);
    self->poll = Py_NewRef(poll);
    return (PyObject *)self;
}

/* the producer form of `topic`'s headers when the route applies (borrowed), else NULL without an error */
static PyObject *
route_of(Router *self, PyObject *topic, PyObject *headers)
{
    if (self->failed || self->producer == NULL || !PyUnicode_CheckExact(topic))
        return NULL;
    PyObject *r = PyDict_GetItemWithError(self->routes, topic);
    if (r == NULL || !PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2 || PyTuple_GET_ITEM(r, 0) != headers) {
        PyErr_Clear();
        return NULL;
    }
    return PyTuple_GET_ITEM(r, 1);
}

/* one record produced: counted, and every 1,024th the reports served (KafkaOutput._poll_if_free) */
static PyObject *
produced(Router *self, PyObject *res)
{
    Py_DECREF(res);
    if ((++self->written & 0x3FF) == 0) {
        PyObject *r = PyObject_CallNoArgs(self->poll);
        if (r == NULL)
            return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

/* hand the record to the Python fallback with the pending exception (or None) as its last argument */
static PyObject *
fallback(PyObject *fn, PyObject *const *argv, Py_ssize_t argc, int with_exc)
{
    PyObject *args[7];
    PyObject *exc = NULL;
    if (with_exc) { /* (PyErr_GetRaisedException is 3.12's) */
        PyObject *t, *tb;
        PyErr_Fetch(&t, &exc, &tb);
        PyErr_NormalizeException(&t, &exc, &tb);
        if (exc != NULL && tb != NULL)
            PyException_SetTraceback(exc, tb);
        Py_XDECREF(t);
        Py_XDECREF(tb);
    }
    for (Py_ssize_t i = 0; i < argc; i++)
        args[i] = argv[i];
    args[argc] = exc != NULL ? exc : Py_None;
    PyObject *r = PyObject_Vectorcall(fn, args, (size_t)argc + 1, NULL);
    Py_XDECREF(exc);
    return r;
}

/* produce_line(topic, line, klen, vstart, vtail, headers): KafkaOutput.produce_line's contract */
static PyObject *
Router_produce_line(Router *self, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 6) {
        PyErr_SetString(PyExc_TypeError, "produce_line(topic, line, klen, vstart, vtail, headers)");
        return NULL;
    }
    PyObject *hs = route_of(self, argv[0], argv[5]);
    if (hs == NULL || !PyBytes_CheckExact(argv[1]))
        return fallback(self->fallback_line, argv, 6, 0);
    Py_ssize_t n = PyBytes_GET_SIZE(argv[1]);
    const char *line = PyBytes_AS_STRING(argv[1]);
    Py_ssize_t klen = PyLong_AsSsize_t(argv[2]);
    Py_ssize_t vstart = PyLong_AsSsize_t(argv[3]);
    Py_ssize_t vtail = PyLong_AsSsize_t(argv[4]);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t vend = n - vtail;
    if (vstart < (klen ? 16 : 0) || vstart > vend || vend > n) { /* as Producer.produce_line */
        PyErr_SetString(PyExc_ValueError, "produce_line: offsets outside the line");
        return NULL;
    }
    PyObject *res = fk_produce(self->producer, argv[0], line + vstart, vend - vstart, klen ? line + 7 : NULL,
                               klen ? vstart - 16 : 0, -1, hs);
    if (res == NULL)
        return fallback(self->fallback_line, argv, 6, 1);
    return produced(self, res);
}

/* produce_kv(topic, key, value, headers): KafkaOutput.produce_kv's contract (a tombstone: value None) */
static PyObject *
Router_produce_kv(Router *self, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 4) {
        PyErr_SetString(PyExc_TypeError, "produce_kv(topic, key, value, headers)");
        return NULL;
    }
    PyObject *hs = route_of(self, argv[0], argv[3]);
    PyObject *k = argv[1], *v = argv[2];
    if (hs == NULL || (k != Py_None && !PyBytes_CheckExact(k)) || (v != Py_None && !PyBytes_CheckExact(v)))
        return fallback(self->fallback_kv, argv, 4, 0);
    PyObject *res = fk_produce(self->producer, argv[0], v == Py_None ? NULL : PyBytes_AS_STRING(v),
                               v == Py_None ? 0 : PyBytes_GET_SIZE(v), k == Py_None ? NULL : PyBytes_AS_STRING(k),
                               k == Py_None ? 0 : PyBytes_GET_SIZE(k), -1, hs);
    if (res == NULL)
        return fallback(self->fallback_kv, argv, 4, 1);
    return produced(self, res);
}

static PyObject *
Router_get_producer(Router *self, void *unused)
{
    return Py_NewRef(self->producer != NULL ? (PyObject *)self->producer : Py_None);
}

/* the producer records are produced to (the output's current one; None: none, every record to the fallback) */
static int
Router_set_producer(Router *self, PyObject *value, void *unused)
{
    if (value != NULL && value != Py_None && !PyObject_TypeCheck(value, &ProducerType)) {
        PyErr_SetString(PyExc_TypeError, "producer must be a fastkafka.Producer or None");
        return -1;
    }
    Py_XSETREF(self->producer, value != NULL && value != Py_None ? (Producer *)Py_NewRef(value) : NULL);
    return 0;
}

static PyObject *
Router_get_routes(Router *self, void *unused)
{
    return Py_NewRef(self->routes);
}

/* the output's `_routes` dict (bound once KafkaOutput.__init__ made it) */
static int
Router_set_routes(Router *self, PyObject *value, void *unused)
{
    if (value == NULL || !PyDict_CheckExact(value)) {
        PyErr_SetString(PyExc_TypeError, "routes must be a dict");
        return -1;
    }
    Py_SETREF(self->routes, Py_NewRef(value));
    return 0;
}

static PyGetSetDef Router_getset[] = {
    {"producer", (getter)Router_get_producer, (setter)Router_set_producer, NULL, NULL},
    {"routes", (getter)Router_get_routes, (setter)Router_set_routes, NULL, NULL},
    {NULL},
};

static PyMemberDef Router_members[] = {
    {"written", T_LONGLONG, offsetof(Router, written), 0, NULL},
    {"failed", T_BOOL, offsetof(Router, failed), 0, NULL},
    {NULL},
};

static PyMethodDef Router_methods[] = {
    {"produce_line", (PyCFunction)(void (*)(void))Router_produce_line, METH_FASTCALL, NULL},
    {"produce_kv", (PyCFunction)(void (*)(void))Router_produce_kv, METH_FASTCALL, NULL},
    {NULL},
};

PyTypeObject FkRouterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "emulator.fastkafka.Router",
    .tp_basicsize = sizeof(Router),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = Router_new,
    .tp_dealloc = (destructor)Router_dealloc,
    .tp_traverse = (traverseproc)Router_traverse,
    .tp_clear = (inquiry)Router_clear,
    .tp_methods = Router_methods,
    .tp_members = Router_members,
    .tp_getset = Router_getset,
};
