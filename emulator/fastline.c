/* emulator.fastline: `fill(fmt, args)` is `fmt % args` for the bytes formats the MySQL/MariaDB line path
 * builds (row_lines.py): one pass over the format into one allocation (shrunk to fit).
 *
 * Why: a streamed UPDATE's directory line is one `%` of a ~5 KB format with ~28 conversions; CPython's
 * bytes `%` formats each `%d` through a str object (~700 instructions each), which was ~16k of an UPDATE's
 * ~71k instructions (callgrind, session 17). Here an int is written straight into the output.
 *
 * Contract: the result is byte for byte `fmt % args`. Only what the line formats use is done here:
 * `%%`, `%d` of an exact int that fits a long long, `%b` of exact bytes, `%.Nb` (the first N bytes). Anything
 * else (another conversion, a flag or width, a subclass, a huge int, a non-tuple `args`, too few or too many
 * arguments) is handed to CPython's own `fmt % args`, which gives its result or raises its error. Optional:
 * the project builds without it (setup.py, optional=True) and row_lines.py then uses `%` itself.
 *
 * The same module holds the row plans (fastrow.c, fastcols.c: a whole row image's JSON in one call, VERSION 5; 6: the years 1-99 adjuster;
 * 7: fastpg.c, a pgoutput tuple's line; 8: fastframe.c, the binlog stream's packets;
 * 9: fastpg_copy.c, a COPY text row's snapshot line; 10: fastpg_msg.c, a streamed CopyData row change whole;
 * 11: pgmsg takes a REPLICA IDENTITY FULL UPDATE and does the directory output's line gate itself);
 * fastline.h declares what the sources share. */

#define PY_SSIZE_T_CLEAN
/* raised with every change of what this module does; linefill.py expects the same number */
#define FASTLINE_VERSION 11

#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "fastline.h"

static const char DIGITS2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* decimal text of v at out, returns its length (at most 20) */
Py_ssize_t
fl_put_int(char *out, long long v)
{
    char tmp[24];
    char *end = tmp + sizeof(tmp), *p = end;
    /* the magnitude as unsigned: -LLONG_MIN does not fit a long long */
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    while (u >= 100) {
        unsigned idx = (unsigned)(u % 100) * 2;
        u /= 100;
        *--p = DIGITS2[idx + 1];
        *--p = DIGITS2[idx];
    }
    if (u >= 10) {
        *--p = DIGITS2[u * 2 + 1];
        *--p = DIGITS2[u * 2];
    }
    else {
        *--p = (char)('0' + u);
    }
    if (v < 0)
        *--p = '-';
    memcpy(out, p, (size_t)(end - p));
    return end - p;
}

/* fmt % args (see fill) */
PyObject *
fl_fill(PyObject *fmt, PyObject *args)
{
    if (!PyBytes_CheckExact(fmt) || !PyTuple_CheckExact(args))
        return PyNumber_Remainder(fmt, args);

    /* an upper bound of the result: the format (conversions only shrink) plus every argument's text */
    Py_ssize_t nargs = PyTuple_GET_SIZE(args), bound = PyBytes_GET_SIZE(fmt);
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if (PyBytes_CheckExact(a))
            bound += PyBytes_GET_SIZE(a);
        else if (PyLong_CheckExact(a))
            bound += 20;
        else
            return PyNumber_Remainder(fmt, args);
    }
    PyObject *res = PyBytes_FromStringAndSize(NULL, bound);
    if (res == NULL)
        return NULL;
    char *out = PyBytes_AS_STRING(res), *o = out;
    const char *f = PyBytes_AS_STRING(fmt), *fend = f + PyBytes_GET_SIZE(fmt);
    Py_ssize_t next = 0;
    while (f < fend) {
        const char *pct = memchr(f, '%', (size_t)(fend - f));
        if (pct == NULL) {
            memcpy(o, f, (size_t)(fend - f));
            o += fend - f;
            break;
        }
        memcpy(o, f, (size_t)(pct - f));
        o += pct - f;
        f = pct + 1;
        if (f >= fend)
            goto fallback;
        if (*f == '%') {
            *o++ = '%';
            f++;
            continue;
        }
        Py_ssize_t prec = -1;
        if (*f == '.') {
            prec = 0;
            f++;
            while (f < fend && *f >= '0' && *f <= '9' && prec < 100000)
                prec = prec * 10 + (*f++ - '0');
            if (f >= fend || *f != 'b')
                goto fallback;
        }
        if (next >= nargs)
            goto fallback;
        PyObject *a = PyTuple_GET_ITEM(args, next++);
        if (*f == 'b' && PyBytes_CheckExact(a)) {
            Py_ssize_t n = PyBytes_GET_SIZE(a);
            if (prec >= 0 && prec < n)
                n = prec;
            memcpy(o, PyBytes_AS_STRING(a), (size_t)n);
            o += n;
        }
        else if (*f == 'd' && PyLong_CheckExact(a)) {
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(a, &overflow);
            if (overflow)
                goto fallback;
            o += fl_put_int(o, v);
        }
        else {
            goto fallback;
        }
        f++;
    }
    if (next != nargs)
        goto fallback;
    if (_PyBytes_Resize(&res, o - out) < 0)
        return NULL;
    return res;

fallback:
    Py_DECREF(res);
    return PyNumber_Remainder(fmt, args);
}

static PyObject *
fill(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 2) {
        PyErr_SetString(PyExc_TypeError, "fill(fmt, args) takes two arguments");
        return NULL;
    }
    return fl_fill(argv[0], argv[1]);
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* whether one of 8 ASCII bytes is one JSON escapes: below 0x20, '"' or '\\' (a byte x is below k when x - k
 * borrows into its high bit; x equals k when x ^ k is below 1; exact for "any" as the bytes are below 0x80) */
static inline int
escaped8(uint64_t v)
{
    uint64_t q = v ^ (ONES * '"'), b = v ^ (ONES * '\\');
    return (((v - ONES * 0x20) | (q - ONES) | (b - ONES)) & ~v & HIGHS) != 0;
}

/* the n bytes at s in quotes: the JSON of a text with nothing to escape */
static PyObject *
quoted(const unsigned char *s, Py_ssize_t n)
{
    PyObject *res = PyBytes_FromStringAndSize(NULL, n + 2);
    if (res == NULL)
        return NULL;
    char *o = PyBytes_AS_STRING(res);
    o[0] = '"';
    memcpy(o + 1, s, (size_t)n);
    o[n + 1] = '"';
    return res;
}

/* orjson.dumps, for what `dumps` below does not print itself */
static PyObject *orjson_dumps = NULL;

/* dumps(obj): orjson.dumps(obj)'s bytes. An ASCII str with nothing JSON escapes (no quote, backslash or control
 * character) is its text in quotes, made here: most text columns' values, and orjson's call costs ~4x this
 * function's (its argument parsing, its writer's setup). An exact int within a long long is its decimal text.
 * Anything else is orjson's. */
PyObject *
fl_dumps(PyObject *obj)
{
    if (PyLong_CheckExact(obj)) { /* a nullable integer column's value: its decimal text (orjson's for a long long) */
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (!overflow && !(v == -1 && PyErr_Occurred())) {
            char tmp[24];
            return PyBytes_FromStringAndSize(tmp, fl_put_int(tmp, v));
        }
        PyErr_Clear();
    }
    if (PyUnicode_CheckExact(obj) && PyUnicode_IS_ASCII(obj)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(obj);
        const unsigned char *s = PyUnicode_1BYTE_DATA(obj);
        Py_ssize_t i = 0;
        for (; i + 8 <= n; i += 8) { /* 8 bytes a step: text columns are often tens of bytes */
            uint64_t v;
            memcpy(&v, s + i, 8);
            if (escaped8(v))
                break;
        }
        while (i < n && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\')
            i++;
        if (i == n)
            return quoted(s, n);
    }
    return PyObject_CallOneArg(orjson_dumps, obj);
}

static PyObject *
dumps(PyObject *module, PyObject *obj)
{
    return fl_dumps(obj);
}

/* b[start:end] as Python slices it (start and end at least 0): clamped to the bytes */
static int
text_span(PyObject *b, Py_ssize_t *start, Py_ssize_t *end)
{
    if (!PyBytes_CheckExact(b))
        return -1;
    Py_ssize_t n = PyBytes_GET_SIZE(b);
    if (*start < 0 || *end < 0)
        return -1;
    if (*end > n)
        *end = n;
    if (*start > *end)
        *start = *end;
    return 0;
}

/* orjson.dumps(b[start:end].decode('utf-8', 'replace'))'s bytes, without the slice or the str when the bytes are
 * ASCII JSON does not escape (most text columns' values): what a UTF-8 text column's value prints (row_decoders.py,
 * its converter `r.decode('utf-8', 'replace')`); anything else through that str and `dumps` above. */
/* whether the n bytes at s are ASCII JSON does not escape (its text in quotes is their JSON) */
int
fl_plain(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        if ((v & HIGHS) || escaped8(v))
            return 0;
    }
    while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
        i++;
    return i == n;
}

/* orjson.dumps(s[:n].decode('utf-8', 'replace'))'s bytes, without the str when the bytes are ASCII JSON does not
 * escape (most text columns' values): what a UTF-8 text column's value prints (row_decoders.py, its converter
 * `r.decode('utf-8', 'replace')`); anything else through that str and `dumps` above. */
PyObject *
fl_jtext(const unsigned char *s, Py_ssize_t n)
{
    if (fl_plain(s, n))
        return quoted(s, n);
    PyObject *str = PyUnicode_DecodeUTF8((const char *)s, n, "replace");
    if (str == NULL)
        return NULL;
    PyObject *res = fl_dumps(str);
    Py_DECREF(str);
    return res;
}

static PyObject *
jtext_of(PyObject *module, PyObject *b, Py_ssize_t start, Py_ssize_t end)
{
    return fl_jtext((const unsigned char *)PyBytes_AS_STRING(b) + start, end - start);
}

static int
span_args(PyObject *const *argv, Py_ssize_t *start, Py_ssize_t *end)
{
    *start = PyLong_AsSsize_t(argv[1]);
    if (*start == -1 && PyErr_Occurred())
        return -1;
    *end = PyLong_AsSsize_t(argv[2]);
    if (*end == -1 && PyErr_Occurred())
        return -1;
    if (text_span(argv[0], start, end) < 0) {
        PyErr_SetString(PyExc_ValueError, "jtext: exact bytes and positions at least 0 expected");
        return -1;
    }
    return 0;
}

/* jtext(b, start, end): orjson.dumps(b[start:end].decode('utf-8', 'replace')) */
static PyObject *
jtext(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    Py_ssize_t start, end;
    if (argc != 3) {
        PyErr_SetString(PyExc_TypeError, "jtext(b, start, end) takes three arguments");
        return NULL;
    }
    if (span_args(argv, &start, &end) < 0)
        return NULL;
    return jtext_of(module, argv[0], start, end);
}

/* jtext_same(b, start, end, pstart, pend, prev): `prev` itself when b[start:end] == b[pstart:pend] (an UPDATE's
 * after value whose bytes are the before's: its JSON made once), else jtext(b, start, end). pend < pstart: no
 * before value (it was NULL). */
static PyObject *
jtext_same(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    Py_ssize_t start, end;
    if (argc != 6) {
        PyErr_SetString(PyExc_TypeError, "jtext_same(b, start, end, pstart, pend, prev) takes six arguments");
        return NULL;
    }
    if (span_args(argv, &start, &end) < 0)
        return NULL;
    Py_ssize_t pstart = PyLong_AsSsize_t(argv[3]), pend;
    if (pstart == -1 && PyErr_Occurred())
        return NULL;
    pend = PyLong_AsSsize_t(argv[4]);
    if (pend == -1 && PyErr_Occurred())
        return NULL;
    if (pstart >= 0 && pend >= pstart && argv[5] != Py_None) {
        Py_ssize_t size = PyBytes_GET_SIZE(argv[0]);
        if (pend > size)
            pend = size;
        if (pstart > pend)
            pstart = pend;
        const char *d = PyBytes_AS_STRING(argv[0]);
        if (pend - pstart == end - start && memcmp(d + pstart, d + start, (size_t)(end - start)) == 0)
            return Py_NewRef(argv[5]);
    }
    return jtext_of(module, argv[0], start, end);
}

/* the bytes of a binary DECIMAL(prec, scale) (prec <= DEC_MAX_PREC): 9-digit groups of 4 bytes, the integer part's
 * and the fraction's leftover digits in fewer (DIG2BYTES), big-endian, the sign in the first byte's top bit and a
 * negative value's bytes inverted (binlog_values.decode_decimal) */
static const int DIG2BYTES[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

Py_ssize_t
fl_dec_size(int prec, int scale)
{
    int intg = prec - scale;
    return (intg / 9) * 4 + DIG2BYTES[intg % 9] + (scale / 9) * 4 + DIG2BYTES[scale % 9];
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* base64 (standard alphabet, padded, no newline) of the n bytes at raw into out; returns its length */
Py_ssize_t
fl_b64(const unsigned char *raw, Py_ssize_t n, char *out)
{
    char *o = out;
    Py_ssize_t k = 0;
    for (; k + 3 <= n; k += 3) {
        unsigned t = (unsigned)raw[k] << 16 | (unsigned)raw[k + 1] << 8 | raw[k + 2];
        *o++ = B64[t >> 18];
        *o++ = B64[(t >> 12) & 63];
        *o++ = B64[(t >> 6) & 63];
        *o++ = B64[t & 63];
    }
    if (n - k == 1) {
        unsigned t = (unsigned)raw[k] << 16;
        *o++ = B64[t >> 18];
        *o++ = B64[(t >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    }
    else if (n - k == 2) {
        unsigned t = (unsigned)raw[k] << 16 | (unsigned)raw[k + 1] << 8;
        *o++ = B64[t >> 18];
        *o++ = B64[(t >> 12) & 63];
        *o++ = B64[(t >> 6) & 63];
        *o++ = '=';
    }
    return o - out;
}

/* base64 of the unscaled value's Java BigInteger.toByteArray (minimal two's complement, big-endian), no newline,
 * into out (at most FL_DEC_B64_MAX bytes): values.unscaled_b64's json_quoted_inline (the bytes of
 * `(u + (u < 0)).bit_length() // 8 + 1`); returns its length. With at most 30 digits a group's every bit pattern
 * sums below 2^127: any bytes give Python's integer. */
Py_ssize_t
fl_dec_b64(const unsigned char *src, int prec, int scale, char *out)
{
    unsigned char d[16];
    int intg = prec - scale, size = (int)fl_dec_size(prec, scale);
    memcpy(d, src, (size_t)size);
    if (!(d[0] & 0x80))
        for (int k = 0; k < size; k++)
            d[k] ^= 0xFF;
    int negative = !(src[0] & 0x80);
    d[0] &= 0x7F;
    /* the groups in order, each's digits: the integer part's leftover first, the fraction's last */
    unsigned __int128 m = 0;
    int at = 0;
    int lens[8], n = 0;
    if (intg % 9)
        lens[n++] = intg % 9;
    for (int k = 0; k < intg / 9 + scale / 9; k++)
        lens[n++] = 9;
    if (scale % 9)
        lens[n++] = scale % 9;
    for (int k = 0; k < n; k++) {
        int bytes = DIG2BYTES[lens[k]];
        unsigned long long g = 0;
        for (int j = 0; j < bytes; j++)
            g = g << 8 | d[at + j];
        at += bytes;
        unsigned long long pow10 = 1;
        for (int j = 0; j < lens[k]; j++)
            pow10 *= 10;
        m = m * pow10 + g;
    }
    __int128 v = negative ? -(__int128)m : (__int128)m;
    unsigned __int128 w = v >= 0 ? (unsigned __int128)v : (unsigned __int128)(-(v + 1));
    int bits = 0;
    while (w) {
        bits++;
        w >>= 1;
    }
    int nbytes = bits / 8 + 1;
    unsigned char raw[17];
    unsigned __int128 u = (unsigned __int128)v;
    for (int k = nbytes - 1; k >= 0; k--) {
        raw[k] = (unsigned char)(u & 0xFF);
        u >>= 8;
    }
    return fl_b64(raw, nbytes, out);
}

static PyObject *
dec_b64(const unsigned char *src, int prec, int scale)
{
    char out[FL_DEC_B64_MAX];
    return PyBytes_FromStringAndSize(out, fl_dec_b64(src, prec, scale, out));
}

/* the arguments b, p, prec, scale: 0, or -1 with an error set (not bytes, out of range, prec over DEC_MAX_PREC) */
static int
dec_args(PyObject *const *argv, Py_ssize_t *p, int *prec, int *scale)
{
    if (!PyBytes_CheckExact(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "jdec: exact bytes expected");
        return -1;
    }
    *p = PyLong_AsSsize_t(argv[1]);
    long pr = PyLong_AsLong(argv[2]), sc = PyLong_AsLong(argv[3]);
    if (PyErr_Occurred())
        return -1;
    if (pr < 1 || pr > DEC_MAX_PREC || sc < 0 || sc > pr || *p < 0
        || *p + fl_dec_size((int)pr, (int)sc) > PyBytes_GET_SIZE(argv[0])) {
        PyErr_SetString(PyExc_ValueError, "jdec: a DECIMAL of at most 30 digits within the bytes expected");
        return -1;
    }
    *prec = (int)pr;
    *scale = (int)sc;
    return 0;
}

/* jdec(b, p, prec, scale): the base64 text (no quotes) of the DECIMAL(prec, scale) at b[p:] (values.unscaled_b64) */
static PyObject *
jdec(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    Py_ssize_t p;
    int prec, scale;
    if (argc != 4) {
        PyErr_SetString(PyExc_TypeError, "jdec(b, p, prec, scale) takes four arguments");
        return NULL;
    }
    if (dec_args(argv, &p, &prec, &scale) < 0)
        return NULL;
    return dec_b64((const unsigned char *)PyBytes_AS_STRING(argv[0]) + p, prec, scale);
}

/* jdec_same(b, p, prec, scale, ps, prev): `prev` when the DECIMAL at b[p:] has the bytes of the one at b[ps:]
 * (an UPDATE's unchanged value; ps < 0: the before was NULL), else jdec(b, p, prec, scale) */
static PyObject *
jdec_same(PyObject *module, PyObject *const *argv, Py_ssize_t argc)
{
    Py_ssize_t p, ps;
    int prec, scale;
    if (argc != 6) {
        PyErr_SetString(PyExc_TypeError, "jdec_same(b, p, prec, scale, ps, prev) takes six arguments");
        return NULL;
    }
    if (dec_args(argv, &p, &prec, &scale) < 0)
        return NULL;
    ps = PyLong_AsSsize_t(argv[4]);
    if (ps == -1 && PyErr_Occurred())
        return NULL;
    const char *d = PyBytes_AS_STRING(argv[0]);
    Py_ssize_t size = fl_dec_size(prec, scale);
    if (ps >= 0 && argv[5] != Py_None && ps + size <= PyBytes_GET_SIZE(argv[0])
        && memcmp(d + ps, d + p, (size_t)size) == 0)
        return Py_NewRef(argv[5]);
    return dec_b64((const unsigned char *)d + p, prec, scale);
}

static PyMethodDef methods[] = {
    FASTROW_METHODS
    FASTPG_METHODS
    FASTFRAME_METHODS
    {"jdec", (PyCFunction)(void (*)(void))jdec, METH_FASTCALL,
     "jdec(b, p, prec, scale) -> bytes: values.unscaled_b64's text of the binary DECIMAL at b[p:]"},
    {"jdec_same", (PyCFunction)(void (*)(void))jdec_same, METH_FASTCALL,
     "jdec_same(b, p, prec, scale, ps, prev) -> prev if the DECIMALs at p and ps have the same bytes, else jdec"},
    {"jtext", (PyCFunction)(void (*)(void))jtext, METH_FASTCALL,
     "jtext(b, start, end) -> bytes: orjson.dumps(b[start:end].decode('utf-8', 'replace'))"},
    {"jtext_same", (PyCFunction)(void (*)(void))jtext_same, METH_FASTCALL,
     "jtext_same(b, start, end, pstart, pend, prev) -> prev if the two spans' bytes are equal, else jtext"},
    {"fill", (PyCFunction)(void (*)(void))fill, METH_FASTCALL,
     "fill(fmt: bytes, args: tuple) -> bytes: fmt % args (see the module's source)"},
    {"dumps", dumps, METH_O, "dumps(obj) -> bytes: orjson.dumps(obj) (see the module's source)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fastline", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_fastline(void)
{
    PyObject *orjson = PyImport_ImportModule("orjson");
    if (orjson == NULL)
        return NULL;
    orjson_dumps = PyObject_GetAttrString(orjson, "dumps");
    Py_DECREF(orjson);
    if (orjson_dumps == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    /* linefill.py uses a build of this very source only (an editable install keeps an older build) */
    if (m != NULL && (PyModule_AddIntConstant(m, "VERSION", FASTLINE_VERSION) < 0 || fr_add_kinds(m) < 0))
        Py_CLEAR(m);
    return m;
}
