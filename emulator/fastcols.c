/* emulator.fastline's column values for the row plans (fastrow.c): one binlog column's bytes into its JSON, by
 * its kind (the kinds and what each prints: fastrow.c's head comment), and the output buffer they are written to.
 * Each kind's arithmetic is its Python decoder's (binlog_values.py) and converter's (types.py, values.py). */

#include "fastrow.h"

#include <stdint.h>
#include <string.h>

void
buf_init(Buf *b)
{
    b->d = b->small;
    b->n = 0;
    b->cap = sizeof(b->small);
}

void
buf_free(Buf *b)
{
    if (b->d != b->small)
        PyMem_Free(b->d);
}

int
buf_room(Buf *b, Py_ssize_t k)
{
    if (b->n + k <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap * 2 > b->n + k ? b->cap * 2 : b->n + k;
    char *d = b->d == b->small ? PyMem_Malloc((size_t)cap) : PyMem_Realloc(b->d, (size_t)cap);
    if (d == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (b->d == b->small)
        memcpy(d, b->small, (size_t)b->n);
    b->d = d;
    b->cap = cap;
    return 0;
}

int
buf_put(Buf *b, const char *s, Py_ssize_t k)
{
    if (buf_room(b, k) < 0)
        return -1;
    memcpy(b->d + b->n, s, (size_t)k);
    b->n += k;
    return 0;
}

int
buf_obj(Buf *b, PyObject *bytes)
{
    return buf_put(b, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
}

/* the JSON of a str made from bytes (a decoded text), appended; the str is released */
static int
buf_json_of(Buf *b, PyObject *str)
{
    if (str == NULL)
        return -1;
    PyObject *j = fl_dumps(str);
    Py_DECREF(str);
    if (j == NULL)
        return -1;
    int r = PyBytes_Check(j) ? buf_obj(b, j) : -1;
    Py_DECREF(j);
    return r;
}

int
past_end(void)
{
    PyErr_SetString(PyExc_ValueError, "row image runs past the event's bytes");
    return -1;
}

static inline unsigned long long
le(const unsigned char *s, int k)
{
    unsigned long long v = 0;
    for (int j = k - 1; j >= 0; j--)
        v = v << 8 | s[j];
    return v;
}

static inline unsigned long long
be(const unsigned char *s, int k)
{
    unsigned long long v = 0;
    for (int j = 0; j < k; j++)
        v = v << 8 | s[j];
    return v;
}

static inline long long
floordiv(long long a, long long b)
{
    long long q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static inline long long
floormod(long long a, long long b)
{
    long long m = a % b;
    return (m != 0 && (m < 0) != (b < 0)) ? m + b : m;
}

static const int DIM[13] = {0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

/* days since 1970-01-01 of y-m-d (all three non-zero; years 1-99 adjusted), as values.date_days; -1 with ValueError where
 * datetime.date refuses the date */
int fl_year_adjust = 1;

PyObject *
fr_set_year_adjust(PyObject *module, PyObject *flag)
{
    int on = PyObject_IsTrue(flag);
    if (on < 0)
        return NULL;
    fl_year_adjust = on;
    Py_RETURN_NONE;
}

static int
date_days(long long y, long long m, long long d, long long *days)
{
    if (y < 100 && fl_year_adjust) /* BinlogValueConverters.adjustTemporal (enable.time.adjuster) */
        y += y < 70 ? 2000 : 1900;
    if (y < 1 || y > 9999) {
        PyErr_Format(PyExc_ValueError, "year %lld is out of range", y);
        return -1;
    }
    if (m < 1 || m > 12) {
        PyErr_SetString(PyExc_ValueError, "month must be in 1..12");
        return -1;
    }
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d < 1 || d > DIM[m] + (m == 2 && leap)) {
        PyErr_SetString(PyExc_ValueError, "day is out of range for month");
        return -1;
    }
    /* H. Hinnant's days_from_civil */
    y -= m <= 2;
    long long era = y / 400; /* y >= 0 here */
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    *days = era * 146097 + doe - 719468;
    return 0;
}

/* the civil date of `days` since the epoch (days >= 0) */
static void
civil(long long days, int *y, int *m, int *d)
{
    long long z = days + 719468;
    long long era = z / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/* binlog_values._frac: the fraction of a temporal of `fsp` digits at s, in microseconds */
static inline long long
frac_us(const unsigned char *s, int fsp)
{
    if (fsp == 0)
        return 0;
    if (fsp <= 2)
        return (long long)s[0] * 10000;
    if (fsp <= 4)
        return (long long)be(s, 2) * 100;
    return (long long)be(s, 3);
}

static int
put_ll(Buf *b, long long v)
{
    if (buf_room(b, 24) < 0)
        return -1;
    b->n += fl_put_int(b->d + b->n, v);
    return 0;
}

static int
put_quoted_b64(Buf *b, const unsigned char *raw, Py_ssize_t n)
{
    if (buf_room(b, (n + 2) / 3 * 4 + 2) < 0)
        return -1;
    b->d[b->n++] = '"';
    b->n += fl_b64(raw, n, b->d + b->n);
    b->d[b->n++] = '"';
    return 0;
}

static inline char *
two(char *o, int v)
{
    *o++ = (char)('0' + v / 10 % 10);
    *o++ = (char)('0' + v % 10);
    return o;
}

/* (fastrow.h) the size col_json reads for column `c` at d[p:] (the sizes of its cases), -1 with past_end's error.
 * fastrow.c's image() takes the before image's JSON for an after column only when this size equals the before
 * column's bytes as col_json read them and the bytes are equal: a size wrong here loses that reuse, not bytes. */
Py_ssize_t
col_size(const Col *c, const unsigned char *d, Py_ssize_t len, Py_ssize_t p)
{
    Py_ssize_t avail = len - p, size;
    switch (c->kind) {
    case K_PREF:
    case K_TEXT:
    case K_BLOB: {
        if (avail < c->a)
            return past_end();
        unsigned long long n = le(d + p, c->a);
        if (n > (unsigned long long)(avail - c->a))
            return past_end();
        return c->a + (Py_ssize_t)n;
    }
    case K_YEAR:
        size = 1;
        break;
    case K_DEC:
        size = fl_dec_size(c->a, c->b);
        break;
    case K_DT2:
        size = 5 + (c->a + 1) / 2;
        break;
    case K_DATE:
        size = 3;
        break;
    case K_TIME2:
        size = 3 + (c->a + 1) / 2;
        break;
    case K_TS2:
        size = 4 + (c->a + 1) / 2;
        break;
    default: /* K_FIX, K_INT, K_UINT, K_BOOL, K_ENUM, K_SET, K_BITS: `a` bytes */
        size = c->a;
    }
    return size > avail ? past_end() : size;
}

/* (fastrow.h) */
int
col_json(const Col *c, const unsigned char *d, Py_ssize_t len, Py_ssize_t *pp, Buf *b)
{
    Py_ssize_t p = *pp;
    const unsigned char *s = d + p;
    Py_ssize_t avail = len - p, size;
    switch (c->kind) {
    case K_FIX:
        size = c->a;
        break;
    case K_PREF:
    case K_TEXT:
    case K_BLOB: {
        if (avail < c->a)
            return past_end();
        unsigned long long n = le(s, c->a);
        if (n > (unsigned long long)(avail - c->a))
            return past_end();
        size = c->a + (Py_ssize_t)n;
        if (c->kind == K_PREF)
            break;
        const unsigned char *t = s + c->a;
        if (c->kind == K_BLOB) {
            if (put_quoted_b64(b, t, (Py_ssize_t)n) < 0)
                return -1;
            break;
        }
        if ((c->obj == NULL || c->b) && fl_plain(t, (Py_ssize_t)n)) {
            if (buf_room(b, (Py_ssize_t)n + 2) < 0)
                return -1;
            b->d[b->n++] = '"';
            memcpy(b->d + b->n, t, (size_t)n);
            b->n += (Py_ssize_t)n;
            b->d[b->n++] = '"';
            break;
        }
        PyObject *str = c->obj == NULL ? PyUnicode_DecodeUTF8((const char *)t, (Py_ssize_t)n, "replace")
                                       : PyUnicode_Decode((const char *)t, (Py_ssize_t)n,
                                                          PyUnicode_AsUTF8(c->obj), "replace");
        if (buf_json_of(b, str) < 0)
            return -1;
        break;
    }
    case K_INT:
        size = c->a;
        if (avail < size)
            return past_end();
        if (c->out) {
            unsigned long long u = le(s, c->a);
            int bits = c->a * 8;
            long long v = bits == 64 ? (long long)u
                                     : (u >> (bits - 1) ? (long long)u - (1LL << bits) : (long long)u);
            if (put_ll(b, v) < 0)
                return -1;
        }
        break;
    case K_UINT:
        size = c->a;
        if (avail < size)
            return past_end();
        if (c->out && put_ll(b, (long long)le(s, c->a)) < 0)
            return -1;
        break;
    case K_YEAR:
        size = 1;
        if (avail < size)
            return past_end();
        if (c->out && put_ll(b, 1900 + s[0]) < 0)
            return -1;
        break;
    case K_BOOL: {
        size = c->a;
        if (avail < size)
            return past_end();
        int any = 0;
        for (int k = 0; k < c->a; k++)
            any |= s[k];
        if (c->out && (any ? buf_put(b, "true", 4) : buf_put(b, "false", 5)) < 0)
            return -1;
        break;
    }
    case K_DEC:
        size = fl_dec_size(c->a, c->b);
        if (avail < size)
            return past_end();
        if (c->out) {
            if (buf_room(b, FL_DEC_B64_MAX + 2) < 0)
                return -1;
            b->d[b->n++] = '"';
            b->n += fl_dec_b64(s, c->a, c->b, b->d + b->n);
            b->d[b->n++] = '"';
        }
        break;
    case K_DT2: {
        int fb = (c->a + 1) / 2;
        size = 5 + fb;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        /* binlog_values.datetime2_base with Python's floor arithmetic (a packed value below the sign bit) */
        long long ip = (long long)be(s, 5) - 0x8000000000LL;
        long long ymd = floordiv(ip, 1LL << 17), ym = floordiv(ymd, 32);
        long long y = floordiv(ym, 13), mo = floormod(ym, 13), dd = ymd & 31, hms = ip & 0x1FFFF;
        if (y == 0 || mo == 0 || dd == 0) {
            if (buf_obj(b, c->obj) < 0)
                return -1;
            break;
        }
        long long days;
        if (date_days(y, mo, dd, &days) < 0)
            return -1;
        long long us = (days * 86400 + (hms >> 12) * 3600 + ((hms >> 6) & 63) * 60 + (hms & 63)) * 1000000
                       + frac_us(s + 5, c->a);
        if (put_ll(b, c->div == 1 ? us : floordiv(us, c->div)) < 0)
            return -1;
        break;
    }
    case K_DATE: {
        size = 3;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        long long v = (long long)le(s, 3), dd = v & 31, mo = (v >> 5) & 15, y = v >> 9, days;
        if (y == 0 || mo == 0 || dd == 0) {
            if (buf_obj(b, c->obj) < 0)
                return -1;
            break;
        }
        if (date_days(y, mo, dd, &days) < 0 || put_ll(b, days) < 0)
            return -1;
        break;
    }
    case K_TIME2: {
        int fb = (c->a + 1) / 2;
        size = 3 + fb;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        /* binlog_values.decode_time2 (its shifts of negative values as multiplications) */
        long long packed;
        if (c->a == 0)
            packed = ((long long)be(s, 3) - 0x800000) * (1LL << 24);
        else if (c->a <= 2 || c->a <= 4) {
            long long ip = (long long)be(s, 3) - 0x800000;
            long long fr = c->a <= 2 ? s[3] : (long long)be(s + 3, 2);
            if (ip < 0 && fr) {
                ip += 1;
                fr -= c->a <= 2 ? 0x100 : 0x10000;
            }
            packed = ip * (1LL << 24) + fr * (c->a <= 2 ? 10000 : 100);
        }
        else
            packed = (long long)be(s, 6) - 0x800000000000LL;
        int neg = packed < 0;
        if (neg)
            packed = -packed;
        long long h = packed >> 24, fr = packed & 0xFFFFFF;
        long long us = (((h >> 12) & 0x3FF) * 3600 + ((h >> 6) & 0x3F) * 60 + (h & 0x3F)) * 1000000 + fr;
        if (put_ll(b, neg ? -us : us) < 0)
            return -1;
        break;
    }
    case K_ENUM: {
        size = c->a;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        unsigned long long i = le(s, c->a);
        Py_ssize_t m = PyTuple_GET_SIZE(c->obj);
        if (i >= 1 && i <= (unsigned long long)m) {
            if (buf_obj(b, PyTuple_GET_ITEM(c->obj, (Py_ssize_t)i - 1)) < 0)
                return -1;
        }
        else if (buf_put(b, "\"\"", 2) < 0)
            return -1;
        break;
    }
    case K_SET: {
        size = c->a;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        unsigned long long mask = le(s, c->a);
        Py_ssize_t m = PyTuple_GET_SIZE(c->obj);
        int first = 1;
        if (buf_put(b, "\"", 1) < 0)
            return -1;
        for (Py_ssize_t i = 0; i < m && i < 64; i++)
            if (mask >> i & 1) {
                if ((!first && buf_put(b, ",", 1) < 0) || buf_obj(b, PyTuple_GET_ITEM(c->obj, i)) < 0)
                    return -1;
                first = 0;
            }
        if (buf_put(b, "\"", 1) < 0)
            return -1;
        break;
    }
    case K_BITS: {
        size = c->a;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        unsigned char r[256];
        if (size > (Py_ssize_t)sizeof(r))
            return past_end();
        for (Py_ssize_t k = 0; k < size; k++)
            r[k] = s[size - 1 - k];
        if (put_quoted_b64(b, r, size) < 0)
            return -1;
        break;
    }
    case K_TS2: {
        int fb = (c->a + 1) / 2;
        size = 4 + fb;
        if (avail < size)
            return past_end();
        if (!c->out)
            break;
        long long sec = (long long)be(s, 4), fr = frac_us(s + 4, c->a);
        if (sec == 0 && fr == 0) {
            if (buf_obj(b, c->obj) < 0)
                return -1;
            break;
        }
        /* values.zoned_iso(us, fsp) in quotes: a year below 10000 (at most 2106 here) */
        long long us = sec * 1000000 + fr, secs = us / 1000000, f = us % 1000000;
        int y, mo, dd;
        civil(secs / 86400, &y, &mo, &dd);
        long long rem = secs % 86400;
        if (buf_room(b, 40) < 0)
            return -1;
        char *o = b->d + b->n;
        *o++ = '"';
        o = two(o, y / 100);
        o = two(o, y % 100);
        *o++ = '-';
        o = two(o, mo);
        *o++ = '-';
        o = two(o, dd);
        *o++ = 'T';
        o = two(o, (int)(rem / 3600));
        *o++ = ':';
        o = two(o, (int)(rem % 3600 / 60));
        *o++ = ':';
        o = two(o, (int)(rem % 60));
        if (c->b > 0) {
            char digits[6];
            for (int k = 5; k >= 0; k--, f /= 10)
                digits[k] = (char)('0' + f % 10);
            *o++ = '.';
            memcpy(o, digits, (size_t)(c->b < 6 ? c->b : 6));
            o += c->b < 6 ? c->b : 6;
        }
        *o++ = 'Z';
        *o++ = '"';
        b->n = o - b->d;
        break;
    }
    default:
        PyErr_SetString(PyExc_SystemError, "fastrow: unknown column kind");
        return -1;
    }
    if (size > avail)
        return past_end();
    *pp = p + size;
    return 0;
}
