/* emulator.fastline's `frame(read, raw, rest)`: the binlog stream's next packet (binlog.py, BinlogReader.frames).
 *
 * Why: the stream reads two packets an event of a catch-up of single-row statements (the table map, the rows
 * event), and `BinlogReader.read` ran ~55 bytecodes each (the header's unpack, the length and type checks, the
 * tuple): ~100 of the ~410 bytecodes an UPDATE event costs outside its row (session 22, opcode count).
 *
 * Contract: the packet's header and payload are read by `read(4)` and `read(n)` (the connection's buffered
 * reader, as `read` does); when the payload is whole, at least 20 bytes, below the 16 MiB continuation and of a
 * type whose byte is set in `raw` (256 bytes: binlog._RAW_MAP), the result is `read`'s: (type, payload, None).
 * Anything else goes to `rest(head, payload)`, BinlogReader._rest, which ends what `read` does from there (the
 * payload None when not read: the continued payload); a read raising OSError or TypeError goes to `rest(None,
 * the exception)` (read's ConnectionError); any other error is raised as it is. */

#include "fastline.h"

static PyObject *four;

/* rest(None, the exception raised) for OSError and TypeError, as read's `except`; NULL for any other */
static PyObject *
failed(PyObject *rest)
{
    if (!PyErr_ExceptionMatches(PyExc_OSError) && !PyErr_ExceptionMatches(PyExc_TypeError))
        return NULL;
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL && v != NULL)
        PyException_SetTraceback(v, tb);
    PyObject *res = v == NULL ? NULL : PyObject_CallFunctionObjArgs(rest, Py_None, v, NULL);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
    return res;
}

PyObject *
ff_frame(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 3 || !PyBytes_CheckExact(argv[1]) || PyBytes_GET_SIZE(argv[1]) != 256) {
        PyErr_SetString(PyExc_TypeError, "frame(read, raw: 256 bytes, rest)");
        return NULL;
    }
    PyObject *read = argv[0], *rest = argv[2];
    const char *raw = PyBytes_AS_STRING(argv[1]);
    if (four == NULL && (four = PyLong_FromLong(4)) == NULL)
        return NULL;
    PyObject *head = PyObject_CallOneArg(read, four);
    if (head == NULL)
        return failed(rest);
    if (!PyBytes_CheckExact(head) || PyBytes_GET_SIZE(head) != 4) {
        PyObject *res = PyObject_CallFunctionObjArgs(rest, head, Py_None, NULL);
        Py_DECREF(head);
        return res;
    }
    const unsigned char *h = (const unsigned char *)PyBytes_AS_STRING(head);
    Py_ssize_t n = h[0] | h[1] << 8 | h[2] << 16;
    PyObject *data = NULL, *res = NULL;
    if (n == 0xFFFFFF) /* 16 MiB or more: rest reads it and what continues it */
        goto slow;
    PyObject *nn = PyLong_FromSsize_t(n);
    if (nn == NULL)
        goto done;
    data = PyObject_CallOneArg(read, nn);
    Py_DECREF(nn);
    if (data == NULL) {
        res = failed(rest);
        goto done;
    }
    if (PyBytes_CheckExact(data) && PyBytes_GET_SIZE(data) == n && n >= 20) {
        unsigned char etype = (unsigned char)PyBytes_AS_STRING(data)[5];
        if (raw[etype]) {
            PyObject *t = PyLong_FromLong(etype);
            res = t == NULL ? NULL : PyTuple_Pack(3, t, data, Py_None);
            Py_XDECREF(t);
            goto done;
        }
    }
slow:
    res = PyObject_CallFunctionObjArgs(rest, head, data != NULL ? data : Py_None, NULL);
done:
    Py_DECREF(head);
    Py_XDECREF(data);
    return res;
}
