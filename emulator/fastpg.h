/* fastpg.c's line formats cut into pieces (fastpg_cut.c): a format holding only `%b`, `%d` and `%%`, cut once and
 * filled many times from spans of bytes. */
#ifndef FASTPG_H
#define FASTPG_H

#include "fastline.h"
#include "fastrow.h" /* Buf: the output buffer fastcols.c gives the row plans */

typedef struct {
    const char *p;
    Py_ssize_t n;
} Span;

/* a format cut into pieces: each a literal (at `off`, `n` bytes: `%%` already one `%`) and whether a conversion
 * (`%b` / `%d`: the next span) follows it */
typedef struct {
    Py_ssize_t off, n;
    int conv;
} Piece;

typedef struct {
    PyObject *fmt; /* the format these pieces are of (a strong reference), NULL: none yet */
    Piece *pc;
    int npc, nconv;
    Py_ssize_t lit; /* the literals' total size */
} Cut;

void cut_clear(Cut *c);
/* c := fmt's pieces; 0, -2: a conversion other than %b %d %% (the caller answers None), -1: error */
int cut_format(Cut *c, PyObject *fmt);
/* the size of c filled from sp (c->nconv spans) */
Py_ssize_t cut_size(const Cut *c, const Span *sp);
/* c filled from sp at o (cut_size bytes) */
void cut_fill(const Cut *c, const Span *sp, char *o);

enum { P_SKIP, P_INT, P_TEXT, P_BOOL, P_JSON, P_CONV, P_NUM, P_TSTZ, P_COUNT };

typedef struct {
    int kind, a, fb, ex; /* ex: 0 any, 1 must hold a value, 2 must be NULL (a DELETE's old key: else None) */
    PyObject *obj, *vnull, *knull; /* obj NULL when None; the field's NULL JSON in the value and in the key */
} PCol;

/* a table's plan (fastpg.c's pgplan): per column its kind, the value and key fields' columns, the key's format */
typedef struct {
    int n, nv, nk; /* nk < 0: no key */
    PCol *cols;
    int *vcol, *kcol;
    PyObject *kfmt;
    Cut kcut, lcut; /* the key's format and the last line format used (one per transaction), cut */
} PPlan;

/* one used column's text value s[:n] as its JSON into b (fastpg.c) */
int pp_value(const PCol *c, const unsigned char *s, Py_ssize_t n, Buf *b);

/* one tuple's used columns' JSON: in vals, at[i] < 0 NULL (or unused), else vals->d[at[i]:end[i]] */
typedef struct {
    Buf *vals;
    Py_ssize_t *at, *end;
} PRow;

/* the line of `nrows` rows (1; 2: an UPDATE's old and new, whose keys must print the same, else Py_None): the key
 * through the plan's key format, then fmt filled from (key, each row's values..., the `ntail` spans of tail);
 * *keylen the key's length (0: none). NULL with an error set, Py_None (a new reference) where fmt does not fit
 * (fastpg.c) */
PyObject *pp_line(PPlan *pl, const PRow *rows, int nrows, PyObject *fmt, const Span *tail, int ntail,
                  Py_ssize_t *keylen);

/* one pgoutput TupleData at d[p:len] into its record's line (pgline's work, fastpg.c): (line, key length), or
 * Py_None where the generated reader answers None; NULL with an error set. fmt a bytes object, lsn >= 0, ns the
 * record's time in ns (>= 1e6), tx[:txn] the transaction block's JSON. `old`: d[p:] is a REPLICA IDENTITY FULL
 * UPDATE's old tuple, then 'N' and the new one; the line's values are both rows' (Py_None also where their keys
 * differ: a key change) */
PyObject *pp_tuple(PPlan *pl, const unsigned char *d, Py_ssize_t len, Py_ssize_t p, PyObject *fmt, long long lsn,
                   const char *tx, Py_ssize_t txn, long long ns, int old);

#endif
