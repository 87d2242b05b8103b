/* fastpg.c's line formats cut into pieces (fastpg_cut.c): a format holding only `%b`, `%d` and `%%`, cut once and
 * filled many times from spans of bytes. */
#ifndef FASTPG_H
#define FASTPG_H

#include "fastline.h"

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

#endif
