/* emulator.fastline's row plans: a binlog row image (or both images of an UPDATE) straight into its record's
 * directory line in one call, from a per-table plan built once (row_plan.py, used by row_lines.py).
 *
 * Why: after the values' JSON moved to C (sessions 18-19) an UPDATE still ran ~370 bytecodes of generated Python
 * per row (a local, a bounds step and a call per column), spread evenly over the columns: nothing left to cut
 * column by column. Here the whole image is one loop over the plan's columns, each value's JSON written into one
 * buffer, and the line made by fill (fastline.c) from the image's JSON objects.
 *
 * Contract: the same bytes as the generated line decoders (row_lines.py) for the columns the plan takes; the
 * plan builder (row_plan.py) gives a table a plan only when every captured column is of a kind below with the
 * converter it knows (a converter's `c_kind`), every field printed as its value or its NULL's JSON (null, or
 * the column's default: replace.null.with.default; no mask); any other table keeps the generated decoders. Kinds and what they print (the converted value's JSON):
 *   K_FIX/K_PREF  a column not captured: skipped (a fixed size / a length prefix of `a` bytes)
 *   K_INT         signed little-endian integer of `a` bytes, its decimal text
 *   K_UINT        unsigned little-endian integer of `a` (<= 4) bytes (the converter's `v & mask`)
 *   K_YEAR        1900 + the byte
 *   K_BOOL        true when one of its `a` bytes is not 0 (BOOLEAN, BIT(1))
 *   K_DEC         DECIMAL(a, b), a <= DEC_MAX_PREC: values.unscaled_b64's base64 in quotes
 *   K_DT2         DATETIME2(fsp a): epoch microseconds (floor-divided by `div`), a zero date `obj` (its JSON)
 *   K_DATE        DATE: days since the epoch, a zero date `obj`
 *   K_TIME2       TIME2(fsp a): signed microseconds
 *   K_TEXT        text after an `a`-byte length, decoded by codec `obj` (None: UTF-8) with 'replace', its JSON;
 *                 `b`: the codec maps ASCII to itself (such bytes without escapes are put in quotes as they are)
 *   K_ENUM        `a`-byte index into `obj` (the members' JSON), "" outside
 *   K_SET         `a`-byte mask over `obj` (the members' JSON without quotes), joined by ','
 *   K_BITS        BIT(n > 1) of `a` bytes: base64 of its bytes reversed (Debezium's little-endian Bits)
 *   K_BLOB        bytes after an `a`-byte length, base64 (binary.handling.mode=bytes)
 *   K_TS2         TIMESTAMP2(fsp a): values.zoned_iso text with `b` fraction digits, a zero `obj`
 * A date Python's datetime.date refuses (day 31 of a 30-day month, year over 9999) raises ValueError, as the
 * generated decoders' date_days does; an image that runs past the event's bytes raises ValueError (the generated
 * code would raise IndexError or struct.error, or read a short value: no server writes such an event). */

#include "fastrow.h"

#include <stdint.h>
#include <string.h>

typedef struct {
    int ncols, nb, nv, nk; /* nk < 0: the table has no key */
    Col *cols;
    int *vcol, *kcol;
    PyObject **vhead, **khead; /* each field's `"name":` */
    PyObject **vnull, **knull; /* what each field prints for NULL: null, or its column's default */
} Plan;

static void
plan_free(PyObject *capsule)
{
    Plan *pl = PyCapsule_GetPointer(capsule, "fastrow.plan");
    if (pl == NULL)
        return;
    for (int i = 0; i < pl->ncols; i++)
        Py_XDECREF(pl->cols[i].obj);
    for (int i = 0; i < pl->nv; i++) {
        Py_XDECREF(pl->vhead[i]);
        Py_XDECREF(pl->vnull[i]);
    }
    for (int i = 0; i < pl->nk; i++) {
        Py_XDECREF(pl->khead[i]);
        Py_XDECREF(pl->knull[i]);
    }
    PyMem_Free(pl->cols);
    PyMem_Free(pl->vcol);
    PyMem_Free(pl->kcol);
    PyMem_Free(pl->vhead);
    PyMem_Free(pl->khead);
    PyMem_Free(pl->vnull);
    PyMem_Free(pl->knull);
    PyMem_Free(pl);
}

static int
plan_fields(PyObject *fields, int ncols, int *n, int **col, PyObject ***head, PyObject ***null)
{
    if (!PyTuple_Check(fields))
        return -1;
    int m = (int)PyTuple_GET_SIZE(fields);
    *col = PyMem_Calloc((size_t)m + 1, sizeof(int));
    *head = PyMem_Calloc((size_t)m + 1, sizeof(PyObject *));
    *null = PyMem_Calloc((size_t)m + 1, sizeof(PyObject *));
    if (*col == NULL || *head == NULL || *null == NULL)
        return -1;
    for (int k = 0; k < m; k++) {
        PyObject *f = PyTuple_GET_ITEM(fields, k);
        if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) != 3 || !PyBytes_CheckExact(PyTuple_GET_ITEM(f, 1))
            || !PyBytes_CheckExact(PyTuple_GET_ITEM(f, 2)))
            return -1;
        long c = PyLong_AsLong(PyTuple_GET_ITEM(f, 0));
        if (c < 0 || c >= ncols)
            return -1;
        (*col)[k] = (int)c;
        (*head)[k] = Py_NewRef(PyTuple_GET_ITEM(f, 1));
        (*null)[k] = Py_NewRef(PyTuple_GET_ITEM(f, 2));
        *n = k + 1; /* (what plan_free releases) */
    }
    *n = m;
    return 0;
}

/* plan((nb, cols, value fields, key fields or None)): cols a tuple of (kind, nullable, a, b, div, out, obj) per
 * binlog column, a field (column index, b'"name":', its NULL's JSON) */
PyObject *
fr_plan(PyObject *module, PyObject *spec)
{
    Plan *pl = PyMem_Calloc(1, sizeof(Plan));
    if (pl == NULL)
        return PyErr_NoMemory();
    PyObject *capsule = PyCapsule_New(pl, "fastrow.plan", plan_free);
    if (capsule == NULL) {
        PyMem_Free(pl);
        return NULL;
    }
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4)
        goto bad;
    PyObject *cols = PyTuple_GET_ITEM(spec, 1);
    pl->nb = (int)PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (!PyTuple_Check(cols) || pl->nb < 0)
        goto bad;
    int n = (int)PyTuple_GET_SIZE(cols);
    pl->cols = PyMem_Calloc((size_t)n + 1, sizeof(Col));
    if (pl->cols == NULL)
        goto bad;
    pl->ncols = n;
    if (pl->nb != (n + 7) / 8)
        goto bad;
    for (int i = 0; i < n; i++) {
        PyObject *c = PyTuple_GET_ITEM(cols, i);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 7)
            goto bad;
        Col *col = &pl->cols[i];
        long v[6];
        for (int k = 0; k < 6; k++)
            v[k] = PyLong_AsLong(PyTuple_GET_ITEM(c, k));
        if (PyErr_Occurred())
            goto bad;
        col->kind = (int)v[0], col->nullable = (int)v[1], col->a = (int)v[2], col->b = (int)v[3];
        col->div = (int)v[4], col->out = (int)v[5];
        PyObject *obj = PyTuple_GET_ITEM(c, 6);
        col->obj = obj == Py_None ? NULL : Py_NewRef(obj);
        if (col->kind < 0 || col->kind >= K_COUNT || col->a < 0)
            goto bad;
        if ((col->kind == K_INT && !(col->a == 1 || col->a == 2 || col->a == 3 || col->a == 4 || col->a == 8))
            || ((col->kind == K_UINT || col->kind == K_ENUM) && (col->a < 1 || col->a > 4))
            || ((col->kind == K_SET || col->kind == K_PREF || col->kind == K_TEXT || col->kind == K_BLOB)
                && (col->a < 1 || col->a > 8))
            || ((col->kind == K_DT2 || col->kind == K_TIME2 || col->kind == K_TS2) && col->a > 6)
            || (col->kind == K_DEC && (col->a < 1 || col->a > DEC_MAX_PREC || col->b < 0 || col->b > col->a))
            || (col->kind == K_DT2 && col->div != 1 && col->div != 1000)
            || ((col->kind == K_DT2 || col->kind == K_DATE || col->kind == K_TS2) && !PyBytes_Check(obj))
            || ((col->kind == K_ENUM || col->kind == K_SET) && !PyTuple_Check(obj))
            || (col->kind == K_TEXT && obj != Py_None && !PyUnicode_Check(obj)))
            goto bad;
        if (col->kind == K_ENUM || col->kind == K_SET)
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(obj); k++)
                if (!PyBytes_CheckExact(PyTuple_GET_ITEM(obj, k)))
                    goto bad;
    }
    if (plan_fields(PyTuple_GET_ITEM(spec, 2), n, &pl->nv, &pl->vcol, &pl->vhead, &pl->vnull) < 0)
        goto bad;
    if (PyTuple_GET_ITEM(spec, 3) == Py_None)
        pl->nk = -1;
    else if (plan_fields(PyTuple_GET_ITEM(spec, 3), n, &pl->nk, &pl->kcol, &pl->khead, &pl->knull) < 0)
        goto bad;
    for (int k = 0; k < pl->nv; k++)
        if (!pl->cols[pl->vcol[k]].out)
            goto bad;
    for (int k = 0; k < pl->nk; k++)
        if (!pl->cols[pl->kcol[k]].out)
            goto bad;
    return capsule;

bad:
    Py_DECREF(capsule);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "plan: not a row plan (row_plan.py)");
    return NULL;
}

/* one row image at d[*pp]: each captured column's JSON into `vals` (its start in at[i], -1 for NULL), *pp past it */
/* an UPDATE's before image, for its after image's columns with the same bytes (fr_line2): each column's bytes
 * (d[src[2i]:src[2i+1]], src[2i] < 0 when its JSON was not made from them) and its JSON in `vals` (at, end) */
typedef struct {
    const Py_ssize_t *src, *at, *end;
    const Buf *vals;
} Prev;

/* an image's values' JSON into `vals` (`at[i]`: where column i's starts, -1 for NULL); `src`: where each column's
 * bytes are (2 a column), or NULL; `prev`: the before image of an UPDATE, whose JSON a column of the same bytes
 * takes (the JSON is a function of the column's bytes and plan: an UPDATE changes a few columns of many) */
static int
image(const Plan *pl, const unsigned char *d, Py_ssize_t len, Py_ssize_t *pp, Buf *vals, Py_ssize_t *at,
      Py_ssize_t *src, const Prev *prev)
{
    Py_ssize_t p = *pp;
    if (len - p < pl->nb)
        return past_end();
    const unsigned char *bits = d + p;
    p += pl->nb;
    for (int i = 0; i < pl->ncols; i++) {
        const Col *c = &pl->cols[i];
        if (c->nullable && (bits[i >> 3] >> (i & 7) & 1)) {
            at[i] = -1;
            if (src != NULL)
                src[2 * i] = -1;
            continue;
        }
        at[i] = vals->n;
        if (prev != NULL && prev->at[i] >= 0 && prev->src[2 * i] >= 0) {
            Py_ssize_t size = col_size(c, d, len, p), ps = prev->src[2 * i];
            if (size < 0)
                return -1;
            if (prev->src[2 * i + 1] - ps == size && memcmp(d + ps, d + p, (size_t)size) == 0) {
                if (buf_put(vals, prev->vals->d + prev->at[i], prev->end[i] - prev->at[i]) < 0)
                    return -1;
                p += size;
                continue;
            }
        }
        if (src != NULL)
            src[2 * i] = p;
        if (col_json(c, d, len, &p, vals) < 0)
            return -1;
        if (src != NULL)
            src[2 * i + 1] = p;
    }
    *pp = p;
    return 0;
}

/* the JSON object of `n` fields (columns `col`, heads `head`, NULL's JSON `null`) from an image's values:
 * {"name":value,...} */
static PyObject *
object(int n, const int *col, PyObject *const *head, PyObject *const *null, const Buf *vals, const Py_ssize_t *at,
       const Py_ssize_t *end)
{
    Py_ssize_t size = 2;
    for (int k = 0; k < n; k++) {
        int i = col[k];
        size += (k > 0) + PyBytes_GET_SIZE(head[k]) + (at[i] < 0 ? PyBytes_GET_SIZE(null[k]) : end[i] - at[i]);
    }
    PyObject *res = PyBytes_FromStringAndSize(NULL, size);
    if (res == NULL)
        return NULL;
    char *o = PyBytes_AS_STRING(res);
    *o++ = '{';
    for (int k = 0; k < n; k++) {
        int i = col[k];
        if (k > 0)
            *o++ = ',';
        memcpy(o, PyBytes_AS_STRING(head[k]), (size_t)PyBytes_GET_SIZE(head[k]));
        o += PyBytes_GET_SIZE(head[k]);
        if (at[i] < 0) {
            memcpy(o, PyBytes_AS_STRING(null[k]), (size_t)PyBytes_GET_SIZE(null[k]));
            o += PyBytes_GET_SIZE(null[k]);
        }
        else {
            memcpy(o, vals->d + at[i], (size_t)(end[i] - at[i]));
            o += end[i] - at[i];
        }
    }
    *o = '}';
    return res;
}

/* where each column's JSON ends in `vals`: the next non-NULL column's start, the last's the buffer's end */
static void
ends(const Plan *pl, const Py_ssize_t *at, Py_ssize_t last, Py_ssize_t *end)
{
    for (int i = pl->ncols - 1; i >= 0; i--) {
        end[i] = last;
        if (at[i] >= 0)
            last = at[i];
    }
}

/* the arguments after the row: plan, keylen, b, p, fmt, pos, row, ns[, tot, dco] */
typedef struct {
    const Plan *pl;
    int keylen;
    PyObject *b, *fmt, *pos, *row, *ns, *tot, *dco;
    Py_ssize_t p;
} Args;

static int
parse(PyObject *const *argv, Py_ssize_t argc, Args *a)
{
    if (argc != 8 && argc != 10) {
        PyErr_SetString(PyExc_TypeError, "line(plan, keylen, b, p, fmt, pos, row, ns[, tot, dco])");
        return -1;
    }
    a->pl = PyCapsule_GetPointer(argv[0], "fastrow.plan");
    if (a->pl == NULL)
        return -1;
    a->keylen = PyObject_IsTrue(argv[1]);
    a->b = argv[2];
    a->p = PyLong_AsSsize_t(argv[3]);
    if (a->keylen < 0 || (a->p == -1 && PyErr_Occurred()))
        return -1;
    if (!PyBytes_CheckExact(a->b) || a->p < 0 || a->p > PyBytes_GET_SIZE(a->b)) {
        PyErr_SetString(PyExc_ValueError, "line: exact bytes and a position within them expected");
        return -1;
    }
    a->fmt = argv[4], a->pos = argv[5], a->row = argv[6], a->ns = argv[7];
    a->tot = argc == 10 ? argv[8] : NULL;
    a->dco = argc == 10 ? argv[9] : NULL;
    return 0;
}

/* ((fmt % (key?, images..., pos, row[, tot, dco], t, t, t), key length), p): t the ns's decimal text */
static PyObject *
finish(const Args *a, PyObject *key, PyObject *one, PyObject *two, Py_ssize_t p)
{
    PyObject *res = NULL, *t = NULL, *args = NULL, *line = NULL;
    long long ns = PyLong_AsLongLong(a->ns);
    if (ns == -1 && PyErr_Occurred())
        return NULL;
    char tmp[24];
    t = PyBytes_FromStringAndSize(tmp, fl_put_int(tmp, ns));
    Py_ssize_t n = (key != NULL) + 1 + (two != NULL) + 2 + (a->tot != NULL ? 2 : 0) + 3, k = 0;
    args = t == NULL ? NULL : PyTuple_New(n);
    if (args == NULL)
        goto done;
    if (key != NULL)
        PyTuple_SET_ITEM(args, k++, Py_NewRef(key));
    PyTuple_SET_ITEM(args, k++, Py_NewRef(one));
    if (two != NULL)
        PyTuple_SET_ITEM(args, k++, Py_NewRef(two));
    PyTuple_SET_ITEM(args, k++, Py_NewRef(a->pos));
    PyTuple_SET_ITEM(args, k++, Py_NewRef(a->row));
    if (a->tot != NULL) {
        PyTuple_SET_ITEM(args, k++, Py_NewRef(a->tot));
        PyTuple_SET_ITEM(args, k++, Py_NewRef(a->dco));
    }
    for (int j = 0; j < 3; j++)
        PyTuple_SET_ITEM(args, k++, Py_NewRef(t));
    line = fl_fill(a->fmt, args);
    if (line == NULL)
        goto done;
    Py_ssize_t klen = key != NULL && a->keylen ? PyBytes_GET_SIZE(key) : 0;
    res = Py_BuildValue("((On)n)", line, klen, p);
done:
    Py_XDECREF(t);
    Py_XDECREF(args);
    Py_XDECREF(line);
    return res;
}

/* room for a plan's per-column positions: on the stack for up to 64 columns */
#define STACK_COLS 64

/* line(plan, keylen, b, p, fmt, pos, row, ns[, tot, dco]): an INSERT's (or DELETE's) row at b[p:] as its line
 * (row_lines.LineDecoders.insert: the key first when the table has one, then the image); `keylen` false: 0 as
 * the key's length (the key in the line's format: insert_k) */
PyObject *
fr_line(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    Args a;
    if (parse(argv, argc, &a) < 0)
        return NULL;
    const Plan *pl = a.pl;
    Py_ssize_t stack[2 * STACK_COLS], *at = stack, *end;
    if (pl->ncols > STACK_COLS && (at = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)pl->ncols)) == NULL)
        return PyErr_NoMemory();
    end = at + pl->ncols;
    Buf vals;
    buf_init(&vals);
    PyObject *res = NULL, *key = NULL, *value = NULL;
    Py_ssize_t p = a.p;
    const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(a.b);
    if (image(pl, d, PyBytes_GET_SIZE(a.b), &p, &vals, at, NULL, NULL) < 0)
        goto done;
    ends(pl, at, vals.n, end);
    value = object(pl->nv, pl->vcol, pl->vhead, pl->vnull, &vals, at, end);
    if (value == NULL)
        goto done;
    if (pl->nk >= 0 && (key = object(pl->nk, pl->kcol, pl->khead, pl->knull, &vals, at, end)) == NULL)
        goto done;
    res = finish(&a, key, value, NULL, p);
done:
    Py_XDECREF(key);
    Py_XDECREF(value);
    buf_free(&vals);
    if (at != stack)
        PyMem_Free(at);
    return res;
}

/* line2(...): an UPDATE's two images at b[p:] as its line (LineDecoders.update: the key of the before image, the
 * before, the after), or (None, p) when the key's JSON differs between them (the dict path makes the DELETE and
 * CREATE) */
PyObject *
fr_line2(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    Args a;
    if (parse(argv, argc, &a) < 0)
        return NULL;
    const Plan *pl = a.pl;
    Py_ssize_t stack[6 * STACK_COLS], *at = stack;
    if (pl->ncols > STACK_COLS && (at = PyMem_Malloc(sizeof(Py_ssize_t) * 6 * (size_t)pl->ncols)) == NULL)
        return PyErr_NoMemory();
    Py_ssize_t *end = at + pl->ncols, *at2 = end + pl->ncols, *end2 = at2 + pl->ncols, *src = end2 + pl->ncols;
    Buf vals, vals2;
    buf_init(&vals);
    buf_init(&vals2);
    PyObject *res = NULL, *key = NULL, *key2 = NULL, *before = NULL, *after = NULL;
    Py_ssize_t p = a.p, len = PyBytes_GET_SIZE(a.b);
    const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(a.b);
    if (image(pl, d, len, &p, &vals, at, src, NULL) < 0)
        goto done;
    ends(pl, at, vals.n, end);
    Prev prev = {src, at, end, &vals};
    if (image(pl, d, len, &p, &vals2, at2, NULL, &prev) < 0)
        goto done;
    ends(pl, at2, vals2.n, end2);
    if (pl->nk >= 0) {
        key = object(pl->nk, pl->kcol, pl->khead, pl->knull, &vals, at, end);
        key2 = key == NULL ? NULL : object(pl->nk, pl->kcol, pl->khead, pl->knull, &vals2, at2, end2);
        if (key2 == NULL)
            goto done;
        if (PyBytes_GET_SIZE(key) != PyBytes_GET_SIZE(key2)
            || memcmp(PyBytes_AS_STRING(key), PyBytes_AS_STRING(key2), (size_t)PyBytes_GET_SIZE(key)) != 0) {
            res = Py_BuildValue("(On)", Py_None, p);
            goto done;
        }
    }
    before = object(pl->nv, pl->vcol, pl->vhead, pl->vnull, &vals, at, end);
    after = before == NULL ? NULL : object(pl->nv, pl->vcol, pl->vhead, pl->vnull, &vals2, at2, end2);
    if (after != NULL)
        res = finish(&a, key, before, after, p);
done:
    Py_XDECREF(key);
    Py_XDECREF(key2);
    Py_XDECREF(before);
    Py_XDECREF(after);
    buf_free(&vals);
    buf_free(&vals2);
    if (at != stack)
        PyMem_Free(at);
    return res;
}

/* the module's KINDS, {name: value} of fastrow.h's column kinds: row_plan.py checks its copy against it at import */
int
fr_add_kinds(PyObject *m)
{
    static const char *names[K_COUNT] = {"K_FIX",  "K_PREF", "K_INT",  "K_UINT", "K_YEAR", "K_BOOL",
                                         "K_DEC",  "K_DT2",  "K_DATE", "K_TIME2", "K_TEXT", "K_ENUM",
                                         "K_SET",  "K_BITS", "K_BLOB", "K_TS2"};
    PyObject *kinds = PyDict_New();
    if (kinds == NULL)
        return -1;
    for (int k = 0; k < K_COUNT; k++) {
        PyObject *v = PyLong_FromLong(k);
        if (v == NULL || PyDict_SetItemString(kinds, names[k], v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(kinds);
            return -1;
        }
        Py_DECREF(v);
    }
    if (PyModule_AddObject(m, "KINDS", kinds) < 0) { /* (steals the reference on success only) */
        Py_DECREF(kinds);
        return -1;
    }
    return 0;
}
