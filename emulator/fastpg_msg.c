/* emulator.fastline's pgmsg: one CopyData message of the replication stream, as psycopg's get_copy_data gives it
 * (an XLogData 'w': start LSN, end LSN, send time, then the pgoutput message), written whole when it is a row change
 * the connector's Python handler would write through its C line (fastpg.c) anyway.
 *
 * Why: with the tuple's line in C (session 21) what was left of a streamed INSERT was per-message Python: the loop's
 * slice and copy of the message, the header's unpack, the handler dispatch, the handler's bookkeeping and checks
 * (callgrind, session 23: about 10k of 27k instructions an event). Here it is one call.
 *
 * Contract: `pgmsg(rels, conn, data) -> bool`. `rels` is the stream's dict {relation id: [INSERT, UPDATE, DELETE]}
 * of entries the handlers put there after writing such a change of that relation through the C line themselves
 * (fast_rows.py says when they may), each None or (plan, line format, line gate, tuple kind byte, op). For a
 * change with an entry (and the tuple kind the entry names: 'N' for INSERT/UPDATE without old tuple, 'O' for an
 * UPDATE with the old row (REPLICA IDENTITY FULL: both tuples read, the line's format holds both rows' fields, and
 * keys that print differently are a key change left to the handler), 'K' or 'O' for a DELETE's old one) it does
 * what the handler does on that path: conn.lsn_events / lsn_proc / proc_op as the
 * handler keeps them, the line (pp_tuple, the block `null`: entries exist only without transaction metadata, the
 * record's time from the same clock as time.time_ns), then gate(op, (line, key length)) — or, for the directory
 * output's own line gate, its work done here (`direct`, fast_rows._direct); True. Anything else —
 * another message, no entry, a tuple pp_tuple leaves to Python (None), a gate that does not take the line (an
 * incremental snapshot window opened) — returns False with nothing changed (the three attributes put back), and a
 * row change without an entry drops its relation's entries: the handler that serves it may change what they rest
 * on (an UPDATE's `toast_first`) and puts them back. An exception (a converter's) propagates after the
 * bookkeeping, as from the handler. The caller (stream.py) clears `rels` at every other message. */

#include "fastpg.h"

#include <stdint.h>
#include <time.h>

static PyObject *S_proc, *S_events, *S_op, *ONE; /* the connector's attribute names, interned once; 1 */
static PyObject *S_window, *S_records;           /* the line gate's (direct) */

static uint32_t
be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* conn's instance dict (a new reference) where none of the three names is a data descriptor of its type, so that
 * they live there; else NULL, no error (the generic attribute calls then). The generic calls cost ~1.8k
 * instructions an event for the five accesses (callgrind), the dict's ~0.3k. */
static PyObject *
plain_dict(PyObject *conn)
{
    PyObject *names[3] = {S_proc, S_events, S_op};
    for (int i = 0; i < 3; i++) {
        PyObject *a = _PyType_Lookup(Py_TYPE(conn), names[i]);
        if (a != NULL && Py_TYPE(a)->tp_descr_set != NULL)
            return NULL;
    }
    PyObject *dict = PyObject_GenericGetDict(conn, NULL);
    if (dict == NULL || !PyDict_CheckExact(dict)) {
        PyErr_Clear();
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

/* conn.name (a new reference): from its dict when it is there */
static PyObject *
get(PyObject *conn, PyObject *dict, PyObject *name)
{
    PyObject *v = dict == NULL ? NULL : PyDict_GetItemWithError(dict, name);
    if (v != NULL)
        return Py_NewRef(v);
    return PyErr_Occurred() ? NULL : PyObject_GetAttr(conn, name);
}

static int
set(PyObject *conn, PyObject *dict, PyObject *name, PyObject *v)
{
    return dict != NULL ? PyDict_SetItem(dict, name, v) : PyObject_SetAttr(conn, name, v);
}

/* o.name += 1 */
static int
bump(PyObject *o, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL)
        return -1;
    PyObject *n = PyNumber_InPlaceAdd(v, ONE);
    Py_DECREF(v);
    if (n == NULL)
        return -1;
    int r = PyObject_SetAttr(o, name, n);
    Py_DECREF(n);
    return r;
}

/* the directory output's line gate (dispatcher.py's _LINE_GATE "line", through DirectoryOutput.write_line) done
 * here, without a Python frame for it and for write_line: g is fast_rows._direct's (incremental snapshot or None,
 * metrics, the counter's name, engine, the topic file's write, the output's unflushed set, the file). 1 written,
 * 0 refused (an incremental snapshot window is open: nothing done, as the gate's False), -1 error */
static int
direct(PyObject *g, PyObject *line)
{
    PyObject *inc = PyTuple_GET_ITEM(g, 0);
    if (inc != Py_None) {
        PyObject *w = PyObject_GetAttr(inc, S_window);
        if (w == NULL)
            return -1;
        int open = PyObject_IsTrue(w);
        Py_DECREF(w);
        if (open != 0)
            return open < 0 ? -1 : 0;
    }
    if (bump(PyTuple_GET_ITEM(g, 1), PyTuple_GET_ITEM(g, 2)) < 0)
        return -1;
    PyObject *text = PyTuple_GET_ITEM(line, 0); /* (pp_tuple's (line, key length)) */
    PyObject *r = PyObject_Vectorcall(PyTuple_GET_ITEM(g, 4), &text, 1, NULL);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    if (PySet_Add(PyTuple_GET_ITEM(g, 5), PyTuple_GET_ITEM(g, 6)) < 0)
        return -1;
    return bump(PyTuple_GET_ITEM(g, 3), S_records) < 0 ? -1 : 1;
}

/* conn's three attributes put back (after a change this function leaves to the handler) */
static int
restore(PyObject *conn, PyObject *dict, PyObject *proc, PyObject *events, PyObject *op)
{
    if (set(conn, dict, S_proc, proc) < 0 || set(conn, dict, S_events, events) < 0 || set(conn, dict, S_op, op) < 0)
        return -1;
    return 0;
}

PyObject *
fp_msg(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 3 || !PyDict_CheckExact(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "pgmsg(rels: dict, conn, data)");
        return NULL;
    }
    PyObject *rels = argv[0], *conn = argv[1];
    if (PyDict_GET_SIZE(rels) == 0)
        Py_RETURN_FALSE;
    if (S_proc == NULL) {
        S_proc = PyUnicode_InternFromString("lsn_proc");
        S_events = PyUnicode_InternFromString("lsn_events");
        S_op = PyUnicode_InternFromString("proc_op");
        ONE = PyLong_FromLong(1);
        S_window = PyUnicode_InternFromString("window_open");
        S_records = PyUnicode_InternFromString("records");
        if (S_proc == NULL || S_events == NULL || S_op == NULL || ONE == NULL || S_window == NULL || S_records == NULL)
            return NULL;
    }
    Py_buffer v;
    if (PyObject_GetBuffer(argv[2], &v, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *d = v.buf;
    Py_ssize_t len = v.len;
    PyObject *res = NULL, *key = NULL, *proc = NULL, *events = NULL, *op = NULL, *lsno = NULL, *line = NULL;
    PyObject *e = NULL;    /* the entry, held: the gate's call may change `rels` */
    PyObject *dict = NULL; /* conn's instance dict (plain_dict) */
    int slot = -1;
    if (len >= 25 + 7 && d[0] == 'w')
        slot = d[25] == 'I' ? 0 : d[25] == 'U' ? 1 : d[25] == 'D' ? 2 : -1;
    if (slot < 0)
        goto no;
    key = PyLong_FromUnsignedLong(be32(d + 26));
    if (key == NULL)
        goto done;
    PyObject *ents = PyDict_GetItemWithError(rels, key); /* borrowed */
    if (ents == NULL) {
        if (PyErr_Occurred())
            goto done;
        goto no;
    }
    e = PyList_CheckExact(ents) && PyList_GET_SIZE(ents) == 3 ? Py_NewRef(PyList_GET_ITEM(ents, slot)) : NULL;
    if (e == NULL || !PyTuple_CheckExact(e) || PyTuple_GET_SIZE(e) != 5
        || PyLong_AsLong(PyTuple_GET_ITEM(e, 3)) != d[30])
        goto drop;
    PPlan *pl = PyCapsule_GetPointer(PyTuple_GET_ITEM(e, 0), "fastpg.plan");
    PyObject *fmt = PyTuple_GET_ITEM(e, 1), *gate = PyTuple_GET_ITEM(e, 2), *opname = PyTuple_GET_ITEM(e, 4);
    if (pl == NULL || !PyBytes_CheckExact(fmt))
        goto done;
    uint64_t lsn = (uint64_t)be32(d + 1) << 32 | be32(d + 5);
    if (lsn >> 63)
        goto drop;
    /* the handler's bookkeeping: lsn_events counts the changes at one LSN (a multi-insert's) */
    dict = plain_dict(conn);
    proc = get(conn, dict, S_proc);
    events = proc == NULL ? NULL : get(conn, dict, S_events);
    op = events == NULL ? NULL : get(conn, dict, S_op);
    lsno = op == NULL ? NULL : PyLong_FromUnsignedLongLong(lsn);
    if (lsno == NULL)
        goto done;
    int same = PyLong_CheckExact(proc) ? PyObject_RichCompareBool(proc, lsno, Py_EQ) : 0;
    if (same < 0)
        goto done;
    PyObject *n = same ? PyNumber_Add(events, ONE) : Py_NewRef(ONE);
    if (n == NULL)
        goto done;
    int r = set(conn, dict, S_events, n);
    Py_DECREF(n);
    if (r < 0 || set(conn, dict, S_proc, lsno) < 0 || set(conn, dict, S_op, opname) < 0)
        goto done;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    /* an UPDATE's entry for 'O' (REPLICA IDENTITY FULL): the old tuple, then the new; the line holds both rows */
    line = pp_tuple(pl, d + 25, len - 25, 6, fmt, (long long)lsn, "null", 4, ns, slot == 1 && d[30] == 'O');
    if (line == NULL)
        goto done;
    if (line != Py_None) {
        int t;
        if (PyTuple_CheckExact(gate) && PyTuple_GET_SIZE(gate) == 7 && PyTuple_CheckExact(line))
            t = direct(gate, line);
        else {
            PyObject *args[2] = {opname, line};
            PyObject *took = PyObject_Vectorcall(gate, args, 2, NULL);
            if (took == NULL)
                goto done;
            t = PyObject_IsTrue(took);
            Py_DECREF(took);
        }
        if (t < 0)
            goto done;
        if (t) {
            res = Py_NewRef(Py_True);
            goto done;
        }
    }
    if (restore(conn, dict, proc, events, op) < 0)
        goto done;
drop:
    if (PyErr_Occurred())
        goto done;
    if (PyDict_DelItem(rels, key) < 0) { /* (already gone: nothing to drop) */
        if (!PyErr_ExceptionMatches(PyExc_KeyError))
            goto done;
        PyErr_Clear();
    }
no:
    res = Py_NewRef(Py_False);
done:
    PyBuffer_Release(&v);
    Py_XDECREF(key);
    Py_XDECREF(proc);
    Py_XDECREF(events);
    Py_XDECREF(op);
    Py_XDECREF(lsno);
    Py_XDECREF(line);
    Py_XDECREF(e);
    Py_XDECREF(dict);
    return res;
}
