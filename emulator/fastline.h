/* emulator.fastline's parts shared by its two sources: fastline.c (the line's `%` and a value's JSON) and
 * fastrow.c (a whole row image's JSON from a per-table plan), one extension module (setup.py). */
#ifndef FASTLINE_H
#define FASTLINE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* the largest DECIMAL precision fl_dec_b64 takes (exact in 128-bit arithmetic), and its text's largest size */
#define DEC_MAX_PREC 30
#define FL_DEC_B64_MAX 24

/* decimal text of v at out (at most 20 bytes), its length */
Py_ssize_t fl_put_int(char *out, long long v);
/* fmt % args: the same bytes (or CPython's own result or error for what it does not do itself) */
PyObject *fl_fill(PyObject *fmt, PyObject *args);
/* orjson.dumps(obj)'s bytes */
PyObject *fl_dumps(PyObject *obj);
/* whether the n bytes at s are ASCII JSON does not escape */
int fl_plain(const unsigned char *s, Py_ssize_t n);
/* orjson.dumps(s[:n].decode('utf-8', 'replace')) */
PyObject *fl_jtext(const unsigned char *s, Py_ssize_t n);
/* the bytes of a binary DECIMAL(prec, scale) */
Py_ssize_t fl_dec_size(int prec, int scale);
/* values.unscaled_b64's text of the binary DECIMAL at src (prec <= DEC_MAX_PREC) into out, its length */
Py_ssize_t fl_dec_b64(const unsigned char *src, int prec, int scale, char *out);
/* base64 of n bytes into out ((n + 2) / 3 * 4 bytes), its length */
Py_ssize_t fl_b64(const unsigned char *raw, Py_ssize_t n, char *out);

/* enable.time.adjuster (fastcols.c's date_days): DATE/DATETIME years 1-99 moved to 2000-2069 / 1970-1999 as
 * values.date_days does; set by set_year_adjust (binlog_values.hold_time_adjuster) */
extern int fl_year_adjust;

/* fastrow.c's functions, in fastline.c's method table */
PyObject *fr_set_year_adjust(PyObject *module, PyObject *flag);
PyObject *fr_plan(PyObject *module, PyObject *spec);
PyObject *fr_line(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
PyObject *fr_line2(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
/* adds KINDS, fastrow.h's column kinds by name, to the module (row_plan.py checks its copy at import) */
int fr_add_kinds(PyObject *m);
#define FASTROW_METHODS                                                                                        \
    {"plan", fr_plan, METH_O, "plan(spec) -> a row plan for line/line2 (see fastrow.c)"},                      \
        {"set_year_adjust", fr_set_year_adjust, METH_O, "set_year_adjust(on): enable.time.adjuster"},          \
        {"line", (PyCFunction)(void (*)(void))fr_line, METH_FASTCALL,                                          \
         "line(plan, keylen, b, p, fmt, pos, row, ns[, tot, dco]) -> ((line, key length), p): one row image"},  \
        {"line2", (PyCFunction)(void (*)(void))fr_line2, METH_FASTCALL,                                        \
         "line2(plan, keylen, b, p, fmt, pos, row, ns[, tot, dco]) -> ((line, key length) or None, p): UPDATE"},

/* fastframe.c's: the binlog stream's next packet (binlog.py, BinlogReader.frames) */
PyObject *ff_frame(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
#define FASTFRAME_METHODS                                                                                      \
    {"frame", (PyCFunction)(void (*)(void))ff_frame, METH_FASTCALL,                                            \
     "frame(read, raw, rest) -> (type, packet, None), or rest(head, packet)'s result (see fastframe.c)"},

/* fastpg.c's functions (a pgoutput tuple straight into its record's line), in fastline.c's method table */
PyObject *fp_plan(PyObject *module, PyObject *spec);
PyObject *fp_line(PyObject *module, PyObject *const *argv, Py_ssize_t argc);
PyObject *fp_copyline(PyObject *module, PyObject *const *argv, Py_ssize_t argc); /* fastpg_copy.c */
PyObject *fp_msg(PyObject *module, PyObject *const *argv, Py_ssize_t argc);      /* fastpg_msg.c */
#define FASTPG_METHODS                                                                                         \
    {"pgplan", fp_plan, METH_O, "pgplan(spec) -> a pgoutput line plan for pgline (see fastpg.c)"},             \
        {"pgline", (PyCFunction)(void (*)(void))fp_line, METH_FASTCALL,                                        \
         "pgline(plan, buf, start, fmt, lsn, tx, ns) -> (line, key length) or None: one pgoutput tuple"},       \
        {"pgcopyline", (PyCFunction)(void (*)(void))fp_copyline, METH_FASTCALL,                                \
         "pgcopyline(plan, data, fmt) -> line or None: one COPY text row's snapshot line (fastpg_copy.c)"},   \
        {"pgmsg", (PyCFunction)(void (*)(void))fp_msg, METH_FASTCALL,                                          \
         "pgmsg(rels, conn, data) -> True where a CopyData row change was written whole (fastpg_msg.c)"},

#endif
