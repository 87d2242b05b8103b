/* emulator.fastline's snapshot line: a row of PostgreSQL's `COPY ... TO STDOUT` (text format, one CopyData
 * message) straight into its READ record's directory line in one call, with the plan and value writers of
 * fastpg.c (pgoutput's text values are the same type output functions' text; COPY only adds its escapes).
 *
 * Why: a forked snapshot reader spent its row on a Python decode and split (copy_text.py), the snapshot
 * converters building `after` as a dict, the key's dict, two orjson.dumps and one `%` (snapshot_records.py
 * ReadRecords.line): most of the reader's CPU, which shares the two cores with the server's COPY.
 *
 * Contract: `pgcopyline(plan, data, fmt)` returns `ReadRecords.line(copy_text.parse_row(data), mark)`'s bytes
 * for the line format `fmt` of that mark with `after`'s fields expanded (snapshot_lines.py): fmt's arguments are
 * (key,) the value's fields..., ts_ms, ts_us, ts_ns, the times from one CLOCK_REALTIME reading (time.time_ns()'s
 * clock). `data` is any bytes-like object holding the message: the row's columns separated by tabs, `\N` for
 * NULL, backslash escapes (\b \f \n \r \t \v \\, any other escaped character standing for itself) and a final
 * newline. None for what it does not read (another column count, a backslash ending a column): the caller
 * then takes the Python path for that row. A converter's exception propagates as it would there. */

#include "fastpg.h"

#include <string.h>
#include <time.h>

#define STACK_COLS 64

/* s[:n] with COPY's escapes resolved into e (emptied first); -1 error, 0 done, 1 not read here */
static int
unescape(const unsigned char *s, Py_ssize_t n, Buf *e)
{
    e->n = 0;
    if (buf_room(e, n) < 0)
        return -1;
    char *o = e->d;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        if (++i >= n)
            return 1; /* (the server never ends a column so) */
        switch (c = s[i]) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'v': *o++ = '\v'; break;
        default: *o++ = (char)c; /* backslash itself, and any other character (COPY FROM's rule) */
        }
    }
    e->n = o - e->d;
    return 0;
}

/* pgcopyline(plan, data, fmt) -> line or None: see the top of this file */
PyObject *
fp_copyline(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 3) {
        PyErr_SetString(PyExc_TypeError, "pgcopyline(plan, data, fmt)");
        return NULL;
    }
    PPlan *pl = PyCapsule_GetPointer(argv[0], "fastpg.plan");
    if (pl == NULL)
        return NULL;
    PyObject *fmt = argv[2];
    if (!PyBytes_CheckExact(fmt))
        Py_RETURN_NONE;
    Py_buffer view;
    if (PyObject_GetBuffer(argv[1], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *d = view.buf;
    Py_ssize_t len = view.len - 1; /* without the final newline */
    Py_ssize_t stack[2 * STACK_COLS], *at = stack, *end;
    Buf vals, esc;
    buf_init(&vals);
    buf_init(&esc);
    PyObject *res = NULL;
    if (pl->n > STACK_COLS && (at = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)pl->n)) == NULL) {
        PyErr_NoMemory();
        goto release;
    }
    end = at + pl->n;
    if (len < 0 || d[len] != '\n' || pl->n == 0)
        goto none;
    Py_ssize_t p = 0;
    for (int i = 0; i < pl->n; i++) {
        const PCol *c = &pl->cols[i];
        const unsigned char *tab = memchr(d + p, '\t', (size_t)(len - p));
        Py_ssize_t q = tab == NULL ? len : tab - d;
        if ((i < pl->n - 1) != (tab != NULL))
            goto none; /* fewer or more columns than the plan's */
        const unsigned char *s = d + p;
        Py_ssize_t n = q - p;
        p = q + 1;
        if (n == 2 && s[0] == '\\' && s[1] == 'N') {
            if (c->ex == 1)
                goto none;
            at[i] = -1;
            continue;
        }
        if (c->ex == 2)
            goto none;
        if (c->kind == P_SKIP) {
            at[i] = -1;
            continue;
        }
        if (memchr(s, '\\', (size_t)n) != NULL) {
            int r = unescape(s, n, &esc);
            if (r < 0)
                goto done;
            if (r > 0)
                goto none;
            s = (const unsigned char *)esc.d, n = esc.n;
        }
        at[i] = vals.n;
        if (pp_value(c, s, n, &vals) < 0)
            goto done;
        end[i] = vals.n;
    }
    /* after the values the three times: ms, µs, ns, the first digits of the ns text */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    char tbuf[24];
    Py_ssize_t tn = fl_put_int(tbuf, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec), keylen;
    Span tail[3] = {{tbuf, tn - 6}, {tbuf, tn - 3}, {tbuf, tn}};
    PRow row = {&vals, at, end};
    res = pp_line(pl, &row, 1, fmt, tail, 3, &keylen);
    goto done;
none:
    res = Py_NewRef(Py_None);
done:
    if (at != stack)
        PyMem_Free(at);
release:
    buf_free(&vals);
    buf_free(&esc);
    PyBuffer_Release(&view);
    return res;
}
