/* emulator.fastline's pgoutput line: a streamed INSERT's (or key-keeping UPDATE's) TupleData straight into its
 * record's line in one call, from a per-table plan built once per Relation message (pg_line_plan.py).
 *
 * Why: the generated Python reader (pgoutput.row_json_parser's `parse_line`) ran a kind test, a length unpack, a
 * slice and a conversion per column, then two `%` (the key, the line): about half of a PostgreSQL INSERT's
 * instructions (callgrind, session 21). Here one loop over the tuple writes each captured value's JSON into one
 * buffer and the line is assembled from the format in one pass.
 *
 * Contract: `pgline(plan, buf, start, fmt, lsn, tx, ns)` returns what the generated `parse_line(buf, start, fmt,
 * lsn, tx, ns)` returns: `(fmt % (key?, values..., lsn, lsn, tx, t[:-6], t[:-3], t), len(key) or 0)` with t the
 * decimal text of ns, or None (nothing consumed) for a tuple of another column count or with a value neither
 * text nor NULL (an unchanged TOAST 'u', binary 'b'); a converter's exception propagates as it would there.
 * Column kinds (what the generated reader prints for the column's text value):
 *   P_SKIP  a column not used: stepped over
 *   P_INT   the text as it is (PostgreSQL's integers are their JSON)
 *   P_TEXT  orjson.dumps(text.decode()) (strict UTF-8: an invalid byte raises UnicodeDecodeError, as there)
 *   P_BOOL  true for exactly "t", else false
 *   P_JSON  obj(bytes) -> bytes (a converter's `json`)
 *   P_CONV  orjson.dumps(obj(text.decode()))
 *   P_NUM   numeric(p, a) in decimal.handling.mode=precise: the unscaled value's BigInteger bytes in base64,
 *           quoted, for a text "-?digits.digits" with `a` decimals and at most 18 digits; else P_JSON of obj
 *   P_TSTZ  timestamptz as ZonedTimestamp for a UTC text ("YYYY-MM-DD hh:mm:ss[.f]+00"): `a` fraction digits
 *           (0: the fraction's own digits without trailing zeros); any other text by fallback kind `fb`
 * A value of a kind other than P_INT/P_TEXT/P_BOOL printing `null` prints the field's NULL JSON instead (as the
 * generated reader does: a converter's null for NaN). The format holds `%%`, `%b` and `%d` only (else None). */

#include "fastpg.h"

#include <stdint.h>
#include <string.h>

static void
pplan_free(PyObject *capsule)
{
    PPlan *pl = PyCapsule_GetPointer(capsule, "fastpg.plan");
    if (pl == NULL)
        return;
    for (int i = 0; i < pl->n; i++) {
        Py_XDECREF(pl->cols[i].obj);
        Py_XDECREF(pl->cols[i].vnull);
        Py_XDECREF(pl->cols[i].knull);
    }
    Py_XDECREF(pl->kfmt);
    cut_clear(&pl->kcut);
    cut_clear(&pl->lcut);
    PyMem_Free(pl->cols);
    PyMem_Free(pl->vcol);
    PyMem_Free(pl->kcol);
    PyMem_Free(pl);
}

static int
pplan_idx(PyObject *t, int n, int *m, int **out)
{
    if (!PyTuple_Check(t))
        return -1;
    *m = (int)PyTuple_GET_SIZE(t);
    *out = PyMem_Calloc((size_t)*m + 1, sizeof(int));
    if (*out == NULL)
        return -1;
    for (int k = 0; k < *m; k++) {
        long c = PyLong_AsLong(PyTuple_GET_ITEM(t, k));
        if (c < 0 || c >= n)
            return -1;
        (*out)[k] = (int)c;
    }
    return 0;
}

/* pgplan((n, cols, value columns, key columns or None, key format or None)): cols a tuple of (kind, a, fb, obj,
 * value NULL JSON, key NULL JSON[, ex]) per pgoutput column; the value's and key's `%b` in order as column indexes */
PyObject *
fp_plan(PyObject *module, PyObject *spec)
{
    PPlan *pl = PyMem_Calloc(1, sizeof(PPlan));
    if (pl == NULL)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(pl, "fastpg.plan", pplan_free);
    if (capsule == NULL) {
        PyMem_Free(pl);
        return NULL;
    }
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 5)
        goto bad;
    PyObject *cols = PyTuple_GET_ITEM(spec, 1);
    long n = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (!PyTuple_Check(cols) || n < 0 || n > 32767 || PyTuple_GET_SIZE(cols) != n)
        goto bad;
    pl->cols = PyMem_Calloc((size_t)n + 1, sizeof(PCol));
    if (pl->cols == NULL)
        goto bad;
    for (int i = 0; i < n; i++) {
        PyObject *c = PyTuple_GET_ITEM(cols, i);
        if (!PyTuple_Check(c) || (PyTuple_GET_SIZE(c) != 6 && PyTuple_GET_SIZE(c) != 7))
            goto bad;
        PCol *col = &pl->cols[i];
        pl->n = i + 1; /* (what pplan_free releases) */
        col->kind = (int)PyLong_AsLong(PyTuple_GET_ITEM(c, 0));
        col->a = (int)PyLong_AsLong(PyTuple_GET_ITEM(c, 1));
        col->fb = (int)PyLong_AsLong(PyTuple_GET_ITEM(c, 2));
        col->ex = PyTuple_GET_SIZE(c) == 7 ? (int)PyLong_AsLong(PyTuple_GET_ITEM(c, 6)) : 0;
        if (PyErr_Occurred())
            goto bad;
        PyObject *obj = PyTuple_GET_ITEM(c, 3), *vn = PyTuple_GET_ITEM(c, 4), *kn = PyTuple_GET_ITEM(c, 5);
        col->obj = obj == Py_None ? NULL : Py_NewRef(obj);
        col->vnull = Py_NewRef(vn);
        col->knull = Py_NewRef(kn);
        if (col->kind < 0 || col->kind >= P_COUNT || col->ex < 0 || col->ex > 2 || !PyBytes_CheckExact(vn) || !PyBytes_CheckExact(kn))
            goto bad;
        if ((col->kind >= P_JSON && (col->obj == NULL || !PyCallable_Check(col->obj)))
            || (col->kind == P_NUM && (col->a < 0 || col->a > 17))
            || (col->kind == P_TSTZ && (col->a < 0 || col->a > 9 || (col->fb != P_JSON && col->fb != P_CONV))))
            goto bad;
    }
    pl->n = (int)n;
    if (pplan_idx(PyTuple_GET_ITEM(spec, 2), pl->n, &pl->nv, &pl->vcol) < 0)
        goto bad;
    if (PyTuple_GET_ITEM(spec, 3) == Py_None)
        pl->nk = -1;
    else if (pplan_idx(PyTuple_GET_ITEM(spec, 3), pl->n, &pl->nk, &pl->kcol) < 0
             || !PyBytes_CheckExact(PyTuple_GET_ITEM(spec, 4)))
        goto bad;
    else
        pl->kfmt = Py_NewRef(PyTuple_GET_ITEM(spec, 4));
    for (int k = 0; k < pl->nv; k++)
        if (pl->cols[pl->vcol[k]].kind == P_SKIP)
            goto bad;
    for (int k = 0; k < pl->nk; k++)
        if (pl->cols[pl->kcol[k]].kind == P_SKIP)
            goto bad;
    if (pl->nk >= 0 && (cut_format(&pl->kcut, pl->kfmt) != 0 || pl->kcut.nconv != pl->nk))
        goto bad;
    return capsule;

bad:
    Py_DECREF(capsule);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "pgplan: not a pgoutput line plan (pg_line_plan.py)");
    return NULL;
}

/* a new reference's bytes appended (NULL: the error stands), the reference released */
static int
pb_take(Buf *b, PyObject *o)
{
    if (o == NULL)
        return -1;
    int r;
    if (!PyBytes_CheckExact(o)) {
        PyErr_SetString(PyExc_TypeError, "pgline: a converter's JSON is not bytes");
        r = -1;
    }
    else
        r = buf_put(b, PyBytes_AS_STRING(o), PyBytes_GET_SIZE(o));
    Py_DECREF(o);
    return r;
}

/* P_JSON / P_CONV of s[:n] */
static int
by_obj(int kind, PyObject *obj, const char *s, Py_ssize_t n, Buf *b)
{
    if (kind == P_JSON) {
        PyObject *raw = PyBytes_FromStringAndSize(s, n);
        if (raw == NULL)
            return -1;
        PyObject *r = PyObject_CallOneArg(obj, raw);
        Py_DECREF(raw);
        return pb_take(b, r);
    }
    PyObject *str = PyUnicode_DecodeUTF8(s, n, NULL);
    if (str == NULL)
        return -1;
    PyObject *v = PyObject_CallOneArg(obj, str);
    Py_DECREF(str);
    if (v == NULL)
        return -1;
    PyObject *j = fl_dumps(v);
    Py_DECREF(v);
    return pb_take(b, j);
}

/* P_NUM: 1 written, 0 not of the simple shape (the caller converts it otherwise), -1 error */
static int
num_json(const unsigned char *s, Py_ssize_t n, int scale, Buf *b)
{
    Py_ssize_t i = 0;
    int neg = 0, digits = 0, after = -1;
    uint64_t u = 0;
    if (n > 0 && s[0] == '-')
        neg = 1, i = 1;
    if (i >= n)
        return 0;
    for (; i < n; i++) {
        unsigned char c = s[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 18)
                return 0;
            u = u * 10 + (c - '0');
            if (after >= 0)
                after++;
        }
        else if (c == '.' && after < 0 && digits > 0)
            after = 0;
        else
            return 0;
    }
    if (digits == 0 || (after < 0 ? 0 : after) != scale || after == 0)
        return 0;
    int64_t v = neg ? -(int64_t)u : (int64_t)u;
    /* Java BigInteger.toByteArray: (bit length of v, or of ~v when negative) / 8 + 1 bytes, big-endian */
    uint64_t m = v < 0 ? ~(uint64_t)v : (uint64_t)v;
    int bits = 0;
    while (m) {
        bits++;
        m >>= 1;
    }
    int nb = bits / 8 + 1;
    unsigned char raw[9];
    for (int k = 0; k < nb; k++)
        raw[nb - 1 - k] = k < 8 ? (unsigned char)((uint64_t)v >> (8 * k)) : (v < 0 ? 0xff : 0);
    if (buf_room(b, 2 + 16) < 0)
        return -1;
    char *o = b->d + b->n;
    *o++ = '"';
    o += fl_b64(raw, nb, o);
    *o++ = '"';
    b->n = o - b->d;
    return 1;
}

/* P_TSTZ: 1 written, 0 not a UTC text of the simple shape, -1 error */
static int
tstz_json(const unsigned char *s, Py_ssize_t n, int w, Buf *b)
{
    if (n < 22 || n > 29 || s[n - 3] != '+' || s[n - 2] != '0' || s[n - 1] != '0' || s[4] != '-' || s[10] != ' ')
        return 0;
    for (Py_ssize_t i = 0; i < n - 3; i++) /* digits and the separators only: nothing JSON escapes, one space */
        if (i != 10 && !((s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == ':' || s[i] == '.'))
            return 0;
    if (n > 22 && s[19] != '.')
        return 0;
    Py_ssize_t k = n > 22 ? n - 23 : 0; /* fraction digits */
    if (n > 22 && k < 1)
        return 0;
    if (buf_room(b, 40) < 0)
        return -1;
    char *o = b->d + b->n;
    *o++ = '"';
    memcpy(o, s, 10);
    o[10] = 'T';
    memcpy(o + 11, s + 11, 8);
    o += 19;
    if (w == 0) { /* the fraction without its trailing zeros */
        while (k > 0 && s[19 + k] == '0')
            k--;
        if (k > 0) {
            memcpy(o, s + 19, (size_t)k + 1);
            o += k + 1;
        }
    }
    else {
        *o++ = '.';
        Py_ssize_t take = k < w ? k : w;
        memcpy(o, s + 20, (size_t)take);
        o += take;
        for (Py_ssize_t z = take; z < w; z++)
            *o++ = '0';
    }
    *o++ = 'Z';
    *o++ = '"';
    b->n = o - b->d;
    return 1;
}

static const char TRUE_[] = "true", FALSE_[] = "false";

/* one used column's text value s[:n] as its JSON into b */
int
pp_value(const PCol *c, const unsigned char *s, Py_ssize_t n, Buf *b)
{
    int r;
    switch (c->kind) {
    case P_INT:
        return buf_put(b, (const char *)s, n);
    case P_BOOL:
        return n == 1 && s[0] == 't' ? buf_put(b, TRUE_, 4) : buf_put(b, FALSE_, 5);
    case P_TEXT:
        if (fl_plain(s, n)) {
            if (buf_room(b, n + 2) < 0)
                return -1;
            b->d[b->n] = '"';
            memcpy(b->d + b->n + 1, s, (size_t)n);
            b->d[b->n + n + 1] = '"';
            b->n += n + 2;
            return 0;
        }
        else {
            PyObject *str = PyUnicode_DecodeUTF8((const char *)s, n, NULL);
            if (str == NULL)
                return -1;
            PyObject *j = fl_dumps(str);
            Py_DECREF(str);
            return pb_take(b, j);
        }
    case P_NUM:
        r = num_json(s, n, c->a, b);
        return r != 0 ? (r < 0 ? -1 : 0) : by_obj(P_JSON, c->obj, (const char *)s, n, b);
    case P_TSTZ:
        r = tstz_json(s, n, c->a, b);
        return r != 0 ? (r < 0 ? -1 : 0) : by_obj(c->fb, c->obj, (const char *)s, n, b);
    default: /* P_JSON, P_CONV */
        return by_obj(c->kind, c->obj, (const char *)s, n, b);
    }
}

#define STACK_COLS 64

/* the key's spans of one row into sp[:nk] (a NULL, or a converter's null, as the key's NULL JSON) */
static void
key_spans(const PPlan *pl, const PRow *r, Span *sp)
{
    for (int k = 0; k < pl->nk; k++) {
        int i = pl->kcol[k];
        const PCol *c = &pl->cols[i];
        if (r->at[i] < 0
            || (c->kind > P_BOOL && r->end[i] - r->at[i] == 4 && memcmp(r->vals->d + r->at[i], "null", 4) == 0))
            sp[k].p = PyBytes_AS_STRING(c->knull), sp[k].n = PyBytes_GET_SIZE(c->knull);
        else
            sp[k].p = r->vals->d + r->at[i], sp[k].n = r->end[i] - r->at[i];
    }
}

/* see fastpg.h */
PyObject *
pp_line(PPlan *pl, const PRow *rows, int nrows, PyObject *fmt, const Span *tail, int ntail, Py_ssize_t *keylen)
{
    Span ssmall[STACK_COLS + 8], *sp = ssmall;
    PyObject *res = NULL;
    char kbuf[512], *key = kbuf, kbuf2[512], *key2 = kbuf2;
    int nsp = (pl->nk >= 0) + nrows * pl->nv + ntail;
    if (nsp < pl->nk)
        nsp = pl->nk;
    if (nsp > STACK_COLS + 8 && (sp = PyMem_Malloc(sizeof(Span) * (size_t)nsp)) == NULL)
        return PyErr_NoMemory();
    /* the key: its fields' JSON through its format; with two rows (an UPDATE's old and new) both keys, which
     * must be the same bytes (else None: the caller's Python reads a key change) */
    *keylen = 0;
    int m = 0;
    if (pl->nk >= 0) {
        Py_ssize_t len2 = 0;
        if (nrows == 2) {
            key_spans(pl, &rows[1], sp);
            len2 = cut_size(&pl->kcut, sp);
            if (len2 > (Py_ssize_t)sizeof(kbuf2) && (key2 = PyMem_Malloc((size_t)len2)) == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            cut_fill(&pl->kcut, sp, key2);
        }
        key_spans(pl, &rows[0], sp);
        *keylen = cut_size(&pl->kcut, sp);
        if (nrows == 2 && len2 != *keylen)
            goto none;
        if (*keylen > (Py_ssize_t)sizeof(kbuf) && (key = PyMem_Malloc((size_t)*keylen)) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        cut_fill(&pl->kcut, sp, key);
        if (nrows == 2 && memcmp(key, key2, (size_t)*keylen) != 0)
            goto none;
        sp[0].p = key, sp[0].n = *keylen;
        m = 1;
    }
    /* the line's spans: the key's text, each row's values, the caller's tail */
    for (int r = 0; r < nrows; r++) {
        const PRow *row = &rows[r];
        for (int k = 0; k < pl->nv; k++) {
            int i = pl->vcol[k];
            const PCol *c = &pl->cols[i];
            if (row->at[i] < 0
                || (c->kind > P_BOOL && row->end[i] - row->at[i] == 4
                    && memcmp(row->vals->d + row->at[i], "null", 4) == 0))
                sp[m].p = PyBytes_AS_STRING(c->vnull), sp[m].n = PyBytes_GET_SIZE(c->vnull);
            else
                sp[m].p = row->vals->d + row->at[i], sp[m].n = row->end[i] - row->at[i];
            m++;
        }
    }
    for (int k = 0; k < ntail; k++)
        sp[m++] = tail[k];
    /* the line's format, cut once per format (a transaction's, a snapshot marker's) */
    if (pl->lcut.fmt != fmt) {
        int r = cut_format(&pl->lcut, fmt);
        if (r == -2)
            goto none;
        if (r < 0)
            goto done;
    }
    if (pl->lcut.nconv != m)
        goto none;
    res = PyBytes_FromStringAndSize(NULL, cut_size(&pl->lcut, sp));
    if (res != NULL)
        cut_fill(&pl->lcut, sp, PyBytes_AS_STRING(res));
    goto done;
none:
    res = Py_NewRef(Py_None);
done:
    if (key != kbuf)
        PyMem_Free(key);
    if (key2 != kbuf2)
        PyMem_Free(key2);
    if (sp != ssmall)
        PyMem_Free(sp);
    return res;
}

/* one TupleData at d[p:len] read into r (its vals appended to, at/end per column): 1 read (*pend: where it
 * ends), 0 where the generated reader answers None, -1 error */
static int
pp_read(PPlan *pl, const unsigned char *d, Py_ssize_t len, Py_ssize_t p, PRow *r, Py_ssize_t *pend)
{
    if (p + 2 > len || ((d[p] << 8) | d[p + 1]) != pl->n)
        return 0;
    p += 2;
    Buf *vals = r->vals;
    Py_ssize_t *at = r->at, *end = r->end;
    for (int i = 0; i < pl->n; i++) {
        const PCol *c = &pl->cols[i];
        if (p >= len)
            return 0;
        unsigned char k = d[p];
        if (k == 'n') {
            if (c->ex == 1)
                return 0;
            at[i] = -1;
            p++;
            continue;
        }
        if (k != 't' || p + 5 > len || c->ex == 2)
            return 0;
        uint32_t ln = (uint32_t)d[p + 1] << 24 | (uint32_t)d[p + 2] << 16 | (uint32_t)d[p + 3] << 8 | d[p + 4];
        Py_ssize_t s = p + 5;
        if ((Py_ssize_t)ln > len - s)
            return 0;
        p = s + (Py_ssize_t)ln;
        if (c->kind == P_SKIP) {
            at[i] = -1;
            continue;
        }
        at[i] = vals->n;
        if (pp_value(c, d + s, (Py_ssize_t)ln, vals) < 0)
            return -1;
        end[i] = vals->n;
    }
    *pend = p;
    return 1;
}

/* see fastpg.h */
PyObject *
pp_tuple(PPlan *pl, const unsigned char *d, Py_ssize_t len, Py_ssize_t p, PyObject *fmt, long long lsn,
         const char *tx, Py_ssize_t txn, long long nsv, int old)
{
    int nrows = old ? 2 : 1;
    Py_ssize_t stack[4 * STACK_COLS], *at = stack;
    if (pl->n > STACK_COLS && (at = PyMem_Malloc(sizeof(Py_ssize_t) * 4 * (size_t)pl->n)) == NULL)
        return PyErr_NoMemory();
    Buf vals; /* both rows' values in one buffer (a row's spans are read after both are in: no pointer moves) */
    buf_init(&vals);
    PRow rows[2] = {{&vals, at, at + pl->n}, {&vals, at + 2 * pl->n, at + 3 * pl->n}};
    PyObject *res = NULL;
    Py_ssize_t pend;
    int r = pp_read(pl, d, len, p, &rows[0], &pend);
    if (r > 0 && old) { /* the new tuple after the old one's end: 'N' */
        r = pend < len && d[pend] == 'N' ? pp_read(pl, d, len, pend + 1, &rows[1], &pend) : 0;
    }
    if (r < 0)
        goto done;
    if (r == 0)
        goto none;
    /* after the values: the LSN twice, the block, the three times (ms, µs, ns: the first digits of ns's text) */
    char tbuf[24], lbuf[24];
    Py_ssize_t tn = fl_put_int(tbuf, nsv), ln = fl_put_int(lbuf, lsn), keylen;
    Span tail[6] = {{lbuf, ln}, {lbuf, ln}, {tx, txn}, {tbuf, tn - 6}, {tbuf, tn - 3}, {tbuf, tn}};
    PyObject *lo = pp_line(pl, rows, nrows, fmt, tail, 6, &keylen);
    if (lo == NULL || lo == Py_None)
        res = lo;
    else { /* (line, key length), without Py_BuildValue's format parsing (~200 instructions an event) */
        PyObject *kl = PyLong_FromSsize_t(keylen);
        res = kl == NULL ? NULL : PyTuple_New(2);
        if (res == NULL) {
            Py_XDECREF(kl);
            Py_DECREF(lo);
            goto done;
        }
        PyTuple_SET_ITEM(res, 0, lo);
        PyTuple_SET_ITEM(res, 1, kl);
    }
    goto done;
none:
    res = Py_NewRef(Py_None);
done:
    buf_free(&vals);
    if (at != stack)
        PyMem_Free(at);
    return res;
}

/* pgline(plan, buf, start, fmt, lsn, tx, ns) -> (line, key length) or None: see the top of this file */
PyObject *
fp_line(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 7) {
        PyErr_SetString(PyExc_TypeError, "pgline(plan, buf, start, fmt, lsn, tx, ns)");
        return NULL;
    }
    PPlan *pl = PyCapsule_GetPointer(argv[0], "fastpg.plan");
    if (pl == NULL)
        return NULL;
    PyObject *bo = argv[1], *fmt = argv[3], *tx = argv[5];
    Py_ssize_t p = PyLong_AsSsize_t(argv[2]);
    long long lsn = PyLong_AsLongLong(argv[4]), nsv = PyLong_AsLongLong(argv[6]);
    if (PyErr_Occurred()) { /* not ints that fit: the generated reader's own rules */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!PyBytes_CheckExact(bo) || !PyBytes_CheckExact(fmt) || !PyBytes_CheckExact(tx) || p < 0
        || lsn < 0 || nsv < 1000000)
        Py_RETURN_NONE; /* (the generated reader's own rules then) */
    return pp_tuple(pl, (const unsigned char *)PyBytes_AS_STRING(bo), PyBytes_GET_SIZE(bo), p, fmt, lsn,
                    PyBytes_AS_STRING(tx), PyBytes_GET_SIZE(tx), nsv, 0);
}
