/* The readers' line scanner (sink/lines.py `split_block`): one pass over a block of directory-output lines in C.

   The numpy/pyarrow split (sink/lines.py) makes ~20 kernel passes over a 16 MB block (line ends, prefix tests,
   `find_substring` for the payload and value separators, the headers, a dictionary of the schema texts); per
   record ~5 µs of an executor's Python at load 15. Here each line is read once, left to right, with the same
   rules (`split` documents them) and the same answers: `tests/test_sink_fastscan.py` compares both on the same
   blocks, including lines the fast form rejects.

   split(data) -> None when the block is not valid UTF-8 (the caller takes the numpy path, which raises as
   before), else (n, rows, kfirst, vfirst):
     rows: n * NCOL int64 (native order), per line: start, end (its newline), flags (FAST, KEY, VAL, HDR),
       key schema [lo, hi), key payload [lo, hi), value schema [lo, hi), value payload [lo, hi), headers lo
       (the `[`; hi is end - 1), key schema group, value schema group (-1: none)
     kfirst / vfirst: per distinct schema text (a group), the row where it first occurs
   gather(data, spans) -> (offsets, values): the bytes [lo, hi) of each span (int64 pairs; lo < 0: empty) as
   an Arrow string column's int32 offsets and data (the caller adds the validity). */

#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NCOL 16
#define F_FAST 1
#define F_KEY 2
#define F_VAL 4
#define F_HDR 8
#define MAX_GROUPS 4096 /* distinct schema texts per side and block; more: the numpy path */

static const char KEY[] = "{\"key\":{\"schema\":";
static const char NOKEY[] = "{\"key\":null,\"value\":";
static const char PAY[] = ",\"payload\":";
static const char VAL[] = "},\"value\":";
static const char HDR[] = "},\"headers\":[";
static const char NULL_HDR[] = ",\"headers\":[";
static const char SCHEMA[] = "{\"schema\":";
#define LEN(s) ((Py_ssize_t)(sizeof(s) - 1))

static int utf8_ok(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (!(w & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        unsigned char c = p[i];
        if (c < 0x80) {
            i++;
        } else if (c >= 0xC2 && c <= 0xDF) {
            if (i + 1 >= n || (p[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            if (i + 2 >= n) return 0;
            unsigned char c1 = p[i + 1], c2 = p[i + 2];
            if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80) return 0;
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0; /* overlong, surrogate */
            i += 3;
        } else if (c >= 0xF0 && c <= 0xF4) {
            if (i + 3 >= n) return 0;
            unsigned char c1 = p[i + 1], c2 = p[i + 2], c3 = p[i + 3];
            if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) return 0;
            if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

/* the first position >= lo of pat wholly in [lo, hi), else -1 */
static inline Py_ssize_t find(const char *d, Py_ssize_t lo, Py_ssize_t hi, const char *pat, Py_ssize_t k) {
    if (hi - lo < k) return -1;
    const char *p = memmem(d + lo, (size_t)(hi - lo), pat, (size_t)k);
    return p ? (Py_ssize_t)(p - d) : -1;
}

static inline int has(const char *d, Py_ssize_t at, Py_ssize_t e, const char *pat, Py_ssize_t k) {
    return at + k <= e && memcmp(d + at, pat, (size_t)k) == 0;
}

typedef struct {
    Py_ssize_t lo[MAX_GROUPS], len[MAX_GROUPS];
    int64_t first[MAX_GROUPS];
    int n, last;
} Groups;

/* the group of the text [lo, hi) of row i (a new one if no earlier text equals it), -1 past MAX_GROUPS */
static int group_of(Groups *g, const char *d, Py_ssize_t lo, Py_ssize_t hi, int64_t i) {
    Py_ssize_t len = hi - lo;
    if (g->n) { /* consecutive rows mostly share their table's schema */
        int j = g->last;
        if (g->len[j] == len && memcmp(d + g->lo[j], d + lo, (size_t)len) == 0) return j;
    }
    for (int j = 0; j < g->n; j++) {
        if (g->len[j] == len && memcmp(d + g->lo[j], d + lo, (size_t)len) == 0) {
            g->last = j;
            return j;
        }
    }
    if (g->n == MAX_GROUPS) return -1;
    int j = g->n++;
    g->lo[j] = lo;
    g->len[j] = len;
    g->first[j] = i;
    g->last = j;
    return j;
}

/* The schema text at lo that ends where its row's first `,"payload":` is, when it is the text of the group used
   last (then that group, else -1): one comparison instead of a search through the text. Exact: an earlier
   occurrence in this row would lie in the same bytes in the group's first row, whose search found none. */
static int guess(Groups *g, const char *d, Py_ssize_t lo, Py_ssize_t e) {
    if (!g->n) return -1;
    int j = g->last;
    Py_ssize_t len = g->len[j];
    if (has(d, lo + len, e, PAY, LEN(PAY)) && memcmp(d + g->lo[j], d + lo, (size_t)len) == 0) return j;
    return -1;
}

static PyObject *firsts(Groups *g) {
    PyObject *out = PyList_New(g->n);
    if (!out) return NULL;
    for (int j = 0; j < g->n; j++) {
        PyObject *v = PyLong_FromLongLong(g->first[j]);
        if (!v) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, j, v);
    }
    return out;
}

/* Line i [s, e) (e: its newline) into r, by sink/lines.py's rules; its schema texts' groups. */
static void line(const char *d, Py_ssize_t s, Py_ssize_t e, int64_t i, int64_t *r, Groups *kg, Groups *vg,
                 int *overflow) {
    r[0] = s;
    r[1] = e;
    for (int c = 2; c < NCOL; c++) r[c] = -1;
    r[2] = 0;
    if (e <= s || d[e - 1] != '}') return;
    int is_k = has(d, s, e, KEY, LEN(KEY));
    int is_n = !is_k && has(d, s, e, NOKEY, LEN(NOKEY));
    Py_ssize_t at = s, p1 = -1, v = -1, ks_lo = s + LEN(KEY);
    int key_ok = 0, gk = -1, gv = -1;
    if (is_k) {
        /* key: schema [s+17, p1), payload [p1+11, v) */
        gk = guess(kg, d, ks_lo, e);
        p1 = gk >= 0 ? ks_lo + kg->len[gk] : find(d, ks_lo, e, PAY, LEN(PAY));
        if (p1 >= 0) {
            v = find(d, p1 + LEN(PAY), e, VAL, LEN(VAL));
            key_ok = v >= 0;
        }
    }
    if (key_ok)
        at = v + LEN(VAL);
    else if (is_n)
        at = s + LEN(NOKEY);
    else
        return;
    /* value at `at`: null or {"schema":VS,"payload":VP}, then `}` or `,"headers":[...]}` */
    int tail_h = d[e - 2] == ']';
    int fast = 0, has_val = 0, has_hdr = 0;
    Py_ssize_t j2 = -1, vp_lo = -1, vp_hi = -1, hdr_lo = -1;
    if (has(d, at, e, "null", 4)) {
        Py_ssize_t rest = at + 4;
        if (e == rest + 1) {
            fast = 1;
        } else if (tail_h && has(d, rest, e, NULL_HDR, LEN(NULL_HDR))) {
            fast = has_hdr = 1;
            hdr_lo = rest + LEN(NULL_HDR) - 1;
        }
    } else if (has(d, at, e, SCHEMA, LEN(SCHEMA))) {
        Py_ssize_t vs_lo = at + LEN(SCHEMA);
        gv = guess(vg, d, vs_lo, e);
        j2 = gv >= 0 ? vs_lo + vg->len[gv] : find(d, vs_lo, e, PAY, LEN(PAY));
        if (j2 >= 0) {
            vp_lo = j2 + LEN(PAY);
            if (tail_h) {
                /* the headers start at the first `},"headers":[` after the payload */
                Py_ssize_t h = find(d, vp_lo, e, HDR, LEN(HDR));
                if (h >= 0) {
                    fast = has_val = has_hdr = 1;
                    vp_hi = h;
                    hdr_lo = h + LEN(HDR) - 1;
                }
            } else if (d[e - 2] == '}') {
                fast = has_val = 1;
                vp_hi = e - 2;
            }
        }
    }
    if (!fast) return;
    r[2] = F_FAST | (key_ok ? F_KEY : 0) | (has_val ? F_VAL : 0) | (has_hdr ? F_HDR : 0);
    if (key_ok) {
        r[3] = ks_lo;
        r[4] = p1;
        r[5] = p1 + LEN(PAY);
        r[6] = v;
        if ((r[12] = gk >= 0 ? gk : group_of(kg, d, ks_lo, p1, i)) < 0) *overflow = 1;
    }
    if (has_val) {
        r[7] = at + LEN(SCHEMA);
        r[8] = j2;
        r[9] = vp_lo;
        r[10] = vp_hi;
        if ((r[13] = gv >= 0 ? gv : group_of(vg, d, r[7], j2, i)) < 0) *overflow = 1;
    }
    if (has_hdr) r[11] = hdr_lo;
}

static PyObject *split(PyObject *self, PyObject *arg) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    const char *d = b.buf;
    Py_ssize_t len = b.len;
    PyObject *res = NULL, *rows = NULL, *kf = NULL, *vf = NULL;
    Groups *kg = NULL, *vg = NULL;
    if (!utf8_ok((const unsigned char *)d, len)) {
        PyBuffer_Release(&b);
        Py_RETURN_NONE;
    }
    Py_ssize_t n = 0;
    for (const char *p = d, *end = d + len; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) n++;
    rows = PyBytes_FromStringAndSize(NULL, n * NCOL * (Py_ssize_t)sizeof(int64_t));
    kg = PyMem_Calloc(1, sizeof(Groups));
    vg = PyMem_Calloc(1, sizeof(Groups));
    if (!rows || !kg || !vg) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int64_t *r = (int64_t *)PyBytes_AS_STRING(rows);
    int overflow = 0;
    Py_BEGIN_ALLOW_THREADS;
    Py_ssize_t s = 0;
    for (Py_ssize_t i = 0; i < n; i++, r += NCOL) {
        const char *nl = memchr(d + s, '\n', (size_t)(len - s));
        Py_ssize_t e = nl - d;
        line(d, s, e, i, r, kg, vg, &overflow);
        s = e + 1;
    }
    Py_END_ALLOW_THREADS;
    if (overflow) {
        res = Py_None;
        Py_INCREF(res);
        goto done;
    }
    kf = firsts(kg);
    vf = firsts(vg);
    if (kf && vf) res = Py_BuildValue("(nOOO)", n, rows, kf, vf);
done:
    PyMem_Free(kg);
    PyMem_Free(vg);
    Py_XDECREF(rows);
    Py_XDECREF(kf);
    Py_XDECREF(vf);
    PyBuffer_Release(&b);
    return res;
}

static PyObject *gather(PyObject *self, PyObject *args) {
    Py_buffer b, sp;
    if (!PyArg_ParseTuple(args, "y*y*", &b, &sp)) return NULL;
    PyObject *offs = NULL, *vals = NULL, *res = NULL;
    const int64_t *span = sp.buf;
    Py_ssize_t n = sp.len / (Py_ssize_t)(2 * sizeof(int64_t)), total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = span[2 * i], hi = span[2 * i + 1];
        if (lo >= 0 && (hi < lo || hi > b.len)) {
            PyErr_SetString(PyExc_ValueError, "gather: a span outside the data");
            goto done;
        }
        if (lo >= 0) total += hi - lo;
    }
    if (total > INT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "gather: more than 2 GB of values");
        goto done;
    }
    offs = PyBytes_FromStringAndSize(NULL, (n + 1) * (Py_ssize_t)sizeof(int32_t));
    vals = PyBytes_FromStringAndSize(NULL, total);
    if (!offs || !vals) goto done;
    int32_t *o = (int32_t *)PyBytes_AS_STRING(offs);
    char *v = PyBytes_AS_STRING(vals);
    int32_t at = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = span[2 * i], hi = span[2 * i + 1];
        o[i] = at;
        if (lo >= 0) {
            memcpy(v + at, (const char *)b.buf + lo, (size_t)(hi - lo));
            at += (int32_t)(hi - lo);
        }
    }
    o[n] = at;
    res = PyTuple_Pack(2, offs, vals);
done:
    Py_XDECREF(offs);
    Py_XDECREF(vals);
    PyBuffer_Release(&b);
    PyBuffer_Release(&sp);
    return res;
}

/* ---- the readers' op / position / ts / `after` range (sink/reader_keys.py `columns`), one payload at a time ----
   The payloads are one Arrow string column: `b` its data buffer (top = its last byte), `o` its offsets. `gh` and
   `at` read the whole buffer clipped at its ends, as reader_keys' `_Bytes.has` / `_Bytes.at` do (a test may
   run past a payload's end into the next one's bytes: the same answer as there); `kfind` finds a pattern wholly
   inside [lo, hi). */

typedef struct {
    const unsigned char *b;
    int64_t top;
} Buf;

static inline int64_t clip(const Buf *B, int64_t p) { return p < 0 ? 0 : p > B->top ? B->top : p; }

static inline unsigned char at(const Buf *B, int64_t p) { return B->b[clip(B, p)]; }

static int gh(const Buf *B, int64_t p, const char *pat) {
    int64_t k = (int64_t)strlen(pat);
    if (p >= 0 && p + k - 1 <= B->top) return memcmp(B->b + p, pat, (size_t)k) == 0;
    int64_t c = clip(B, p);
    for (int64_t j = 0; j < k; j++) {
        int64_t q = c + j > B->top ? B->top : c + j;
        if (B->b[q] != (unsigned char)pat[j]) return 0;
    }
    return 1;
}

static inline int64_t kfind(const Buf *B, int64_t lo, int64_t hi, const char *pat) {
    return find((const char *)B->b, lo, hi, pat, (Py_ssize_t)strlen(pat));
}

/* `_Bytes.number`: `null` (0) or 1-18 digits at p; *end after them; returns ok */
static int number(const Buf *B, int64_t p, int64_t *val, int64_t *end) {
    if (gh(B, p, "null")) {
        *val = 0;
        *end = p + 4;
        return 1;
    }
    uint64_t v = 0; /* wraps past 18 digits as numpy's int64 does (then not ok) */
    int64_t n = 0, c0 = clip(B, p);
    while (n < 19) {
        unsigned char c = B->b[c0 + n > B->top ? B->top : c0 + n];
        if (c < '0' || c > '9') break;
        v = v * 10 + (uint64_t)(c - '0');
        n++;
    }
    *val = (int64_t)v;
    *end = p + n;
    return n >= 1 && n <= 18;
}

/* `field` of reader_keys.columns: a number field of the source object [lo, se): *v (0 when absent or not a
   number), returns ok (absent, or a number followed by `,` or `}`); *there: present */
static int field(const Buf *B, int64_t lo, int64_t se, const char *key, int64_t *v, int *there) {
    int64_t f = kfind(B, lo, se, key), e = 0, x = 0;
    *there = f >= 0;
    *v = 0;
    if (f < 0) return 1;
    int good = number(B, f + (int64_t)strlen(key), &x, &e);
    good = good && (gh(B, e, ",") || gh(B, e, "}"));
    if (good) *v = x;
    return good;
}

/* the MySQL file's number: `null`, or a string without `"`/`\` whose digits after its last dot (1-18, directly
   before the closing quote) are the number (else 0); then `,` or `}` (reader_keys' regex) */
static int file_number(const Buf *B, int64_t p, int64_t hi, int64_t *num) {
    *num = 0;
    if (p + 4 < hi && gh(B, p, "null")) {
        unsigned char c = B->b[p + 4];
        if (c == ',' || c == '}') return 1;
    }
    if (p >= hi || B->b[p] != '"') return 0;
    int64_t q = p + 1, dot = -1;
    while (q < hi && B->b[q] != '"' && B->b[q] != '\\') {
        if (B->b[q] == '.') dot = q;
        q++;
    }
    if (q + 1 >= hi || B->b[q] != '"' || (B->b[q + 1] != ',' && B->b[q + 1] != '}')) return 0;
    if (dot >= 0 && q - dot - 1 >= 1 && q - dot - 1 <= 18) {
        int64_t v = 0, j = dot + 1;
        for (; j < q && B->b[j] >= '0' && B->b[j] <= '9'; j++) v = v * 10 + (B->b[j] - '0');
        if (j == q) *num = v;
    }
    return 1;
}

#define K_OK 1
#define K_WINS 2
#define K_AFTER 4
#define K_ELIGIBLE 1 /* input flags: `eligible` value schema (and a payload) */
#define K_SLICE 2    /* `sliceable` value schema */
#define KCOL 10      /* flags, op, o0-o3, ts, a0, a1, width */

enum { C_NONE, C_PG, C_MY, C_MG };

static void keys_row(const Buf *B, int64_t st, int64_t en, int flags, int64_t *r) {
    memset(r, 0, KCOL * sizeof(int64_t));
    if (!(flags & K_ELIGIBLE)) return;
    int64_t s_at = kfind(B, st, en, "\"source\":{");
    if (s_at < 0) return;
    int64_t lo = s_at + 10, se = kfind(B, lo, en, "}");
    if (se < 0 || kfind(B, lo, se, "{") >= 0) return;
    /* op, directly or after a transaction block (null or a flat object) */
    int64_t op_at;
    if (gh(B, se, "},\"op\":\"")) {
        op_at = se + 1;
    } else if (gh(B, se, "},\"transaction\":")) {
        if (gh(B, se + 16, "null,\"op\":\"")) {
            op_at = se + 20;
        } else {
            int64_t r_op = kfind(B, se + 1, en, ",\"op\":\"");
            int64_t br = kfind(B, se + 1, en, "}");
            if (!(gh(B, se + 16, "{") && r_op > se + 1 && br >= 0 && r_op == br + 1)) return;
            op_at = r_op;
        }
    } else {
        return;
    }
    unsigned char op_c = at(B, op_at + 7), op_q = at(B, op_at + 8);
    if (op_q != '"' || op_c < 'a' || op_c > 'z') return;
    int64_t c_at = kfind(B, lo, se, "\"connector\":\"");
    if (c_at < 0) return;
    c_at += 13;
    int conn = gh(B, c_at, "postgresql\"")                             ? C_PG
               : gh(B, c_at, "mysql\"") || gh(B, c_at, "mariadb\"") ? C_MY
               : gh(B, c_at, "mongodb\"")                           ? C_MG
                                                                    : C_NONE;
    if (conn == C_NONE) return;
    int64_t o[4] = {0, 0, 0, 0}, width;
    int64_t phase = op_c != 'r';
    int there;
    if (conn == C_PG) {
        int64_t lsn;
        int lsn_ok = field(B, lo, se, "\"lsn\":", &lsn, &there);
        int64_t q = kfind(B, lo, se, "\"sequence\":");
        int found = q >= 0;
        q += 11;
        int has_seq = found && gh(B, q, "\"[");
        int seq_ok = found && (has_seq || gh(B, q, "null") || gh(B, q, "\"\""));
        int64_t parts[2];
        int nulls[2];
        const char *seps[2] = {",", "]\""};
        q += 2;
        for (int k = 0; k < 2; k++) {
            int quoted = gh(B, q, "\\\"");
            nulls[k] = !quoted;
            int64_t v, e;
            int good = number(B, q + (quoted ? 2 : 0), &v, &e);
            if (quoted) {
                e += 2;
                good = good && gh(B, e - 2, "\\\"") && !gh(B, q + 2, "null");
            } else {
                good = good && gh(B, q, "null");
            }
            good = good && gh(B, e, seps[k]);
            if (has_seq && !good) seq_ok = 0;
            parts[k] = v;
            q = e + (int64_t)strlen(seps[k]);
        }
        if (has_seq) {
            o[0] = nulls[0] && op_c != 'r' ? parts[1] : parts[0];
            o[1] = parts[1];
        } else {
            o[1] = lsn;
        }
        o[2] = phase;
        if (!(seq_ok && (has_seq || lsn_ok))) return;
        width = 3;
    } else if (conn == C_MY) {
        int64_t pos, row, fnum = 0;
        int pos_ok = field(B, lo, se, "\"pos\":", &pos, &there);
        int row_ok = field(B, lo, se, "\"row\":", &row, &there);
        int64_t f_at = kfind(B, lo, se, "\"file\":");
        int file_ok = f_at < 0 || file_number(B, f_at + 7, se + 1, &fnum);
        o[0] = fnum;
        o[1] = pos;
        o[2] = phase;
        o[3] = row;
        if (!(file_ok && pos_ok && row_ok)) return;
        width = 4;
    } else {
        int64_t ts_ms, ordv;
        int ts_ok = field(B, lo, se, "\"ts_ms\":", &ts_ms, &there);
        int ord_ok = field(B, lo, se, "\"ord\":", &ordv, &there);
        o[0] = ts_ms;
        o[1] = ordv;
        o[2] = phase;
        if (!(ts_ok && ord_ok)) return;
        width = 3;
    }
    int change = op_c == 'c' || op_c == 'u' || op_c == 'd' || op_c == 'r';
    /* a relational envelope prints after directly before source; MongoDB's may have updateDescription between */
    int no_after = gh(B, s_at - 13, "\"after\":null,");
    if (conn == C_MG && !no_after) no_after = kfind(B, st, en, "\"after\":null") >= 0;
    int has_after = 0;
    int64_t a_val = 0, a_end = s_at - 1;
    if (conn != C_MG && (flags & K_SLICE)) {
        /* `after`'s value: from `"after":` to the comma before `"source":{` */
        int lead = gh(B, st, "{\"before\":null,\"after\":");
        int64_t a_find = lead ? -1 : kfind(B, st, en, ",\"after\":");
        a_val = lead ? st + 23 : a_find + 9;
        if (!((lead || a_find >= 0) && gh(B, a_end, ",") && a_val < a_end)) return;
        has_after = !no_after;
    }
    int wins = change && (op_c == 'd' || !no_after);
    /* the event's ts_ms, else the source's */
    int64_t src_ts, ev_ts, e;
    field(B, lo, se, "\"ts_ms\":", &src_ts, &there);
    int64_t t_at = op_at + 9;
    int has_ts = gh(B, t_at, ",\"ts_ms\":") && number(B, t_at + 9, &ev_ts, &e) && !gh(B, t_at + 9, "null") &&
                 (gh(B, e, ",") || gh(B, e, "}"));
    r[0] = K_OK | (wins ? K_WINS : 0) | (has_after ? K_AFTER : 0);
    r[1] = op_c;
    for (int k = 0; k < 4; k++) r[2 + k] = o[k];
    r[6] = has_ts ? ev_ts : src_ts;
    r[7] = has_after ? a_val - st : 0;
    r[8] = has_after ? a_end - st : 0;
    r[9] = width;
}

/* keys(data, offsets, flags) -> n * KCOL int64: per payload (offsets: n + 1 int32) the columns above */
static PyObject *keys(PyObject *self, PyObject *args) {
    Py_buffer d, of, fl;
    if (!PyArg_ParseTuple(args, "y*y*y*", &d, &of, &fl)) return NULL;
    PyObject *out = NULL;
    Py_ssize_t n = fl.len;
    const int32_t *o = of.buf;
    if (of.len < (n + 1) * (Py_ssize_t)sizeof(int32_t) || d.len < 1) {
        PyErr_SetString(PyExc_ValueError, "keys: offsets or data too short");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (o[i] < 0 || o[i] > o[i + 1] || o[i + 1] > d.len) {
            PyErr_SetString(PyExc_ValueError, "keys: offsets outside the data");
            goto done;
        }
    out = PyBytes_FromStringAndSize(NULL, n * KCOL * (Py_ssize_t)sizeof(int64_t));
    if (!out) goto done;
    Buf B = {d.buf, d.len - 1};
    int64_t *r = (int64_t *)PyBytes_AS_STRING(out);
    const unsigned char *f = fl.buf;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < n; i++) keys_row(&B, o[i], o[i + 1], f[i], r + i * KCOL);
    Py_END_ALLOW_THREADS;
done:
    PyBuffer_Release(&d);
    PyBuffer_Release(&of);
    PyBuffer_Release(&fl);
    return out;
}

static PyMethodDef methods[] = {
    {"split", split, METH_O, "The block's lines' parts (sink/lines.py split_block's rules)."},
    {"gather", gather, METH_VARARGS, "Spans of a buffer as an Arrow string column's offsets and data."},
    {"keys", keys, METH_VARARGS, "The payloads' op, position, ts and after range (sink/reader_keys.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "sink.fastscan", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fastscan(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && (PyModule_AddIntConstant(m, "NCOL", NCOL) < 0 || PyModule_AddIntConstant(m, "KCOL", KCOL) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
