/* fastrow.c's and fastcols.c's shared parts: the column kinds of a row plan, a column's plan, the output
 * buffer, and the one function that makes a column's JSON (fastcols.c; the kinds are described in fastrow.c). */
#ifndef FASTROW_H
#define FASTROW_H

#include "fastline.h"

enum {
    K_FIX,
    K_PREF,
    K_INT,
    K_UINT,
    K_YEAR,
    K_BOOL,
    K_DEC,
    K_DT2,
    K_DATE,
    K_TIME2,
    K_TEXT,
    K_ENUM,
    K_SET,
    K_BITS,
    K_BLOB,
    K_TS2,
    K_COUNT
};

typedef struct {
    int kind, nullable, a, b, div, out;
    PyObject *obj; /* see the kinds above; NULL when None */
} Col;

/* a growing output buffer, on the stack until it outgrows it */
typedef struct {
    char *d;
    Py_ssize_t n, cap;
    char small[4096];
} Buf;

void buf_init(Buf *b);
void buf_free(Buf *b);
/* room for k more bytes: 0, or -1 with MemoryError */
int buf_room(Buf *b, Py_ssize_t k);
int buf_put(Buf *b, const char *s, Py_ssize_t k);
int buf_obj(Buf *b, PyObject *bytes);
/* ValueError: a row image running past the event's bytes; -1 */
int past_end(void);
/* column `c`'s value at d[*pp] (not NULL): its JSON appended to `b` when captured (`c->out`), *pp past it */
int col_json(const Col *c, const unsigned char *d, Py_ssize_t len, Py_ssize_t *pp, Buf *b);
/* the number of bytes col_json reads for `c` at d[p:], or -1 (past_end's error) */
Py_ssize_t col_size(const Col *c, const unsigned char *d, Py_ssize_t len, Py_ssize_t p);

#endif
