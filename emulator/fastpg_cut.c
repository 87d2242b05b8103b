/* fastpg.c's line formats: cut once (the key's per plan, the line's per transaction) into literal pieces, each
 * followed or not by a conversion, then filled per row without scanning the format for `%` again. Only `%b`, `%d`
 * (both: the next span's bytes, the caller printing the int) and `%%` are taken; anything else is refused (-2) and
 * the row goes the generated Python reader's way. */

#include "fastpg.h"

#include <string.h>

void
cut_clear(Cut *c)
{
    Py_CLEAR(c->fmt);
    PyMem_Free(c->pc);
    c->pc = NULL;
    c->npc = c->nconv = 0;
}

/* c := fmt's pieces; 0, -2: a conversion other than %b %d %% (the caller answers None), -1: error */
int
cut_format(Cut *c, PyObject *fmt)
{
    const char *f0 = PyBytes_AS_STRING(fmt), *f = f0, *fend = f + PyBytes_GET_SIZE(fmt);
    Py_ssize_t cap = 8;
    int np = 0, nconv = 0;
    Py_ssize_t lit = 0;
    Piece *pc = PyMem_Malloc(sizeof(Piece) * (size_t)cap);
    if (pc == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (;;) {
        const char *pct = f < fend ? memchr(f, '%', (size_t)(fend - f)) : NULL;
        if (np + 1 >= cap) {
            cap *= 2;
            Piece *g = PyMem_Realloc(pc, sizeof(Piece) * (size_t)cap);
            if (g == NULL) {
                PyMem_Free(pc);
                PyErr_NoMemory();
                return -1;
            }
            pc = g;
        }
        if (pct == NULL) {
            pc[np].off = f - f0, pc[np].n = fend - f, pc[np++].conv = 0;
            lit += fend - f;
            break;
        }
        if (pct + 1 >= fend || (pct[1] != '%' && pct[1] != 'b' && pct[1] != 'd')) {
            PyMem_Free(pc);
            return -2;
        }
        int conv = pct[1] != '%';
        /* `%%`: the literal runs through the first `%` */
        Py_ssize_t n = pct - f + !conv;
        pc[np].off = f - f0, pc[np].n = n, pc[np++].conv = conv;
        lit += n;
        nconv += conv;
        f = pct + 2;
    }
    cut_clear(c);
    c->fmt = Py_NewRef(fmt);
    c->pc = pc, c->npc = np, c->nconv = nconv, c->lit = lit;
    return 0;
}

/* the size of c filled from sp */
Py_ssize_t
cut_size(const Cut *c, const Span *sp)
{
    Py_ssize_t size = c->lit;
    for (int k = 0; k < c->nconv; k++)
        size += sp[k].n;
    return size;
}

/* c filled from sp at o (cut_size bytes) */
void
cut_fill(const Cut *c, const Span *sp, char *o)
{
    const char *f = PyBytes_AS_STRING(c->fmt);
    int next = 0;
    for (int k = 0; k < c->npc; k++) {
        const Piece *p = &c->pc[k];
        memcpy(o, f + p->off, (size_t)p->n);
        o += p->n;
        if (p->conv) {
            memcpy(o, sp[next].p, (size_t)sp[next].n);
            o += sp[next++].n;
        }
    }
}

