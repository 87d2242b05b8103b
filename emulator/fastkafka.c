/* emulator.fastkafka: a Kafka producer on the librdkafka that confluent-kafka already loaded, for the Kafka
 * output's hot path (emulator/outputs/kafka_fast.py).
 *
 * Why: per streamed record confluent-kafka's `produce` converts the headers list tuple by tuple
 * (`py_headers_to_c`) and every delivery report builds a `Message` (topic string, copies of key and value) and
 * calls a Python callback, ~3 us of the Kafka output's ~7 (docs/kafka-producer.md, sessions 10-16). Here the
 * key and value are cut from the line without Python copies, the headers are added in C, and a delivery
 * report only counts in its batch (no Python at all); a failed report is queued and handed to Python by the
 * poll/flush that served it, before its batch may count it.
 *
 * Contract: the same records as confluent-kafka's `Producer.produce` with the same settings (its
 * `rd_kafka_producev` call: RD_KAFKA_MSG_F_COPY, the configured partitioner for partition -1, the headers as
 * an application-owned list, timestamp 0 = now). Nothing of confluent-kafka is touched but the library file:
 * librdkafka's stable C ABI is declared by hand below (no rdkafka.h needed to build), the functions are looked
 * up with dlsym in the library `load(path, make_error)` opens (the one confluent-kafka's cimpl is linked to, so
 * the same code and version), and the producer owns its own rd_kafka_t. Optional: setup.py builds it with
 * optional=True; without it (or with DBZ_EMULATOR_PURE_PYTHON=1) the output uses confluent-kafka. */

#define PY_SSIZE_T_CLEAN
/* raised with every change of what this module does; kafka_fast.py expects the same number */
#define FASTKAFKA_VERSION 2

#include <Python.h>
#include <structmember.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "fastkafka.h"

static struct {
    int (*version)(void);
    const char *(*version_str)(void);
    rd_kafka_conf_t *(*conf_new)(void);
    int (*conf_set)(rd_kafka_conf_t *, const char *, const char *, char *, size_t);
    void (*conf_destroy)(rd_kafka_conf_t *);
    void (*conf_set_dr_msg_cb)(rd_kafka_conf_t *, dr_msg_cb_t);
    void (*conf_set_opaque)(rd_kafka_conf_t *, void *);
    rd_kafka_t *(*new_)(int, rd_kafka_conf_t *, char *, size_t);
    void (*destroy)(rd_kafka_t *);
    rd_kafka_topic_t *(*topic_new)(rd_kafka_t *, const char *, void *);
    void (*topic_destroy)(rd_kafka_topic_t *);
    const char *(*topic_name)(const rd_kafka_topic_t *);
    rd_kafka_error_t *(*produceva)(rd_kafka_t *, const rd_kafka_vu_t *, size_t);
    rd_kafka_resp_err_t (*error_code)(const rd_kafka_error_t *);
    void (*error_destroy)(rd_kafka_error_t *);
    rd_kafka_headers_t *(*headers_new)(size_t);
    void (*headers_destroy)(rd_kafka_headers_t *);
    rd_kafka_resp_err_t (*header_add)(rd_kafka_headers_t *, const char *, ssize_t, const void *, ssize_t);
    int (*poll)(rd_kafka_t *, int);
    rd_kafka_resp_err_t (*flush)(rd_kafka_t *, int);
    rd_kafka_resp_err_t (*purge)(rd_kafka_t *, int);
    int (*outq_len)(rd_kafka_t *);
    const char *(*err2str)(rd_kafka_resp_err_t);
} rk;

static int loaded = 0;
static PyObject *make_error = NULL; /* code -> the exception confluent-kafka's produce raises (KafkaException) */

static void
dr_msg_cb(rd_kafka_t *r, const rd_kafka_message_t *m, void *opaque)
{
    Producer *self = (Producer *)opaque;
    cbatch *b = (cbatch *)m->_private;
    (void)r;
    if (m->err == 0) {
        if (b != NULL)
            __atomic_add_fetch(&b->acked, 1, __ATOMIC_RELEASE);
        return;
    }
    pthread_mutex_lock(&self->lock);
    if (self->nfail == self->capfail) {
        Py_ssize_t cap = self->capfail ? self->capfail * 2 : 16;
        failure *f = realloc(self->failures, (size_t)cap * sizeof(failure));
        if (f == NULL) { /* out of memory: count it, reported without its topic */
            pthread_mutex_unlock(&self->lock);
            abort();
        }
        self->failures = f;
        self->capfail = cap;
    }
    const char *t = m->rkt != NULL ? rk.topic_name(m->rkt) : "";
    failure *f = &self->failures[self->nfail++];
    f->batch = b;
    f->err = m->err;
    f->topic = strdup(t != NULL ? t : "");
    pthread_mutex_unlock(&self->lock);
}

/* Hand the queued failed reports to Python (GIL held), then count them in their batches. The queue is taken
 * whole (a purge or a broker away past message.timeout.ms fails thousands at once: no per-item shifting); if
 * on_failure raises, the rest are still counted, without calling it again, and the error is returned. */
static int
serve_failures(Producer *self)
{
    int rc = 0;
    for (;;) {
        pthread_mutex_lock(&self->lock);
        failure *fs = self->failures;
        Py_ssize_t n = self->nfail;
        self->failures = NULL;
        self->nfail = self->capfail = 0;
        pthread_mutex_unlock(&self->lock);
        if (n == 0) {
            free(fs);
            return rc;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            if (rc == 0) {
                PyObject *r = PyObject_CallFunction(self->on_failure, "ss", fs[i].topic ? fs[i].topic : "",
                                                    rk.err2str(fs[i].err));
                if (r == NULL)
                    rc = -1;
                Py_XDECREF(r);
            }
            free(fs[i].topic);
            if (fs[i].batch != NULL)
                __atomic_add_fetch(&fs[i].batch->acked, 1, __ATOMIC_RELEASE);
        }
        free(fs);
    }
}

/* ---------------------------------------------------------------- module functions */

static PyObject *
load(PyObject *module, PyObject *args)
{
    const char *path;
    PyObject *mk;
    if (!PyArg_ParseTuple(args, "sO:load", &path, &mk))
        return NULL;
    if (!loaded) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            PyErr_Format(PyExc_ImportError, "cannot open %s: %s", path, dlerror());
            return NULL;
        }
#define SYM(field, name)                                                            \
    if ((*(void **)&rk.field = dlsym(h, name)) == NULL) {                           \
        PyErr_Format(PyExc_ImportError, "%s has no %s", path, name);                \
        return NULL;                                                                \
    }
        SYM(version, "rd_kafka_version");
        SYM(version_str, "rd_kafka_version_str");
        SYM(conf_new, "rd_kafka_conf_new");
        SYM(conf_set, "rd_kafka_conf_set");
        SYM(conf_destroy, "rd_kafka_conf_destroy");
        SYM(conf_set_dr_msg_cb, "rd_kafka_conf_set_dr_msg_cb");
        SYM(conf_set_opaque, "rd_kafka_conf_set_opaque");
        SYM(new_, "rd_kafka_new");
        SYM(destroy, "rd_kafka_destroy");
        SYM(topic_new, "rd_kafka_topic_new");
        SYM(topic_destroy, "rd_kafka_topic_destroy");
        SYM(topic_name, "rd_kafka_topic_name");
        SYM(produceva, "rd_kafka_produceva");
        SYM(error_code, "rd_kafka_error_code");
        SYM(error_destroy, "rd_kafka_error_destroy");
        SYM(headers_new, "rd_kafka_headers_new");
        SYM(headers_destroy, "rd_kafka_headers_destroy");
        SYM(header_add, "rd_kafka_header_add");
        SYM(poll, "rd_kafka_poll");
        SYM(flush, "rd_kafka_flush");
        SYM(purge, "rd_kafka_purge");
        SYM(outq_len, "rd_kafka_outq_len");
        SYM(err2str, "rd_kafka_err2str");
#undef SYM
        if (rk.version() < 0x010600ff) { /* rd_kafka_produceva: 1.6.0 */
            PyErr_Format(PyExc_ImportError, "librdkafka %s is older than 1.6.0", rk.version_str());
            return NULL;
        }
        loaded = 1;
    }
    Py_INCREF(mk);
    Py_XSETREF(make_error, mk);
    return PyUnicode_FromString(rk.version_str());
}

/* ---------------------------------------------------------------- Producer */

static PyObject *
Producer_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *conf, *on_failure;
    char errstr[512];
    static char *kws[] = {"conf", "on_failure", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O:Producer", kws, &PyDict_Type, &conf, &on_failure))
        return NULL;
    if (!loaded) {
        PyErr_SetString(PyExc_RuntimeError, "fastkafka.load() was not called");
        return NULL;
    }
    Producer *self = (Producer *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    pthread_mutex_init(&self->lock, NULL);
    self->topics = PyDict_New();
    if (self->topics == NULL)
        goto fail;
    Py_INCREF(on_failure);
    self->on_failure = on_failure;
    rd_kafka_conf_t *c = rk.conf_new();
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(conf, &pos, &k, &v)) {
        const char *ks = PyUnicode_AsUTF8(k), *vs = PyUnicode_AsUTF8(v);
        if (ks == NULL || vs == NULL) {
            rk.conf_destroy(c);
            goto fail;
        }
        if (rk.conf_set(c, ks, vs, errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
            rk.conf_destroy(c);
            PyErr_SetString(PyExc_ValueError, errstr);
            goto fail;
        }
    }
    rk.conf_set_dr_msg_cb(c, dr_msg_cb);
    rk.conf_set_opaque(c, self);
    self->rk = rk.new_(RD_KAFKA_PRODUCER, c, errstr, sizeof(errstr));
    if (self->rk == NULL) { /* on failure the conf is still the caller's */
        rk.conf_destroy(c);
        PyErr_SetString(PyExc_ValueError, errstr);
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static void
Producer_dealloc(Producer *self)
{
    if (self->topics != NULL) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(self->topics, &pos, &k, &v))
            rk.topic_destroy((rd_kafka_topic_t *)PyLong_AsVoidPtr(v));
    }
    if (self->rk != NULL) {
        Py_BEGIN_ALLOW_THREADS rk.destroy(self->rk);
        Py_END_ALLOW_THREADS
    }
    /* no report can come any more: every batch's memory may go */
    while (self->parked != NULL) {
        cbatch *n = self->parked->next;
        free(self->parked);
        self->parked = n;
    }
    for (Py_ssize_t i = 0; i < self->nfail; i++)
        free(self->failures[i].topic);
    free(self->failures);
    pthread_mutex_destroy(&self->lock);
    Py_XDECREF(self->topics);
    Py_XDECREF(self->on_failure);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* the raise of confluent-kafka's produce for `err` (BufferError for a full queue, else KafkaException) */
static PyObject *
produce_error(rd_kafka_resp_err_t err)
{
    if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        PyErr_SetString(PyExc_BufferError, rk.err2str(err));
        return NULL;
    }
    PyObject *e = PyObject_CallFunction(make_error, "i", (int)err);
    if (e != NULL) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
    }
    return NULL;
}

static rd_kafka_topic_t *
topic_of(Producer *self, PyObject *topic)
{
    PyObject *h = PyDict_GetItemWithError(self->topics, topic);
    if (h != NULL)
        return (rd_kafka_topic_t *)PyLong_AsVoidPtr(h);
    if (PyErr_Occurred())
        return NULL;
    const char *name = PyUnicode_AsUTF8(topic);
    if (name == NULL)
        return NULL;
    rd_kafka_topic_t *t = rk.topic_new(self->rk, name, NULL); /* the default topic conf: the partitioner */
    if (t == NULL) {
        PyErr_Format(PyExc_ValueError, "cannot make topic %s", name);
        return NULL;
    }
    h = PyLong_FromVoidPtr(t);
    if (h == NULL || PyDict_SetItem(self->topics, topic, h) < 0) {
        Py_XDECREF(h);
        rk.topic_destroy(t);
        return NULL;
    }
    Py_DECREF(h);
    return t;
}

/* produce one record; key/value NULL = null; headers None or a list of (str, bytes | str | None) */
PyObject *
fk_produce(Producer *self, PyObject *topic, const char *value, Py_ssize_t vlen, const char *key, Py_ssize_t klen,
         int partition, PyObject *headers)
{
    if (!PyUnicode_Check(topic)) {
        PyErr_SetString(PyExc_TypeError, "topic must be a str");
        return NULL;
    }
    rd_kafka_topic_t *t = topic_of(self, topic);
    if (t == NULL)
        return NULL;
    rd_kafka_headers_t *hs = NULL;
    if (headers != Py_None) {
        if (!PyList_Check(headers)) {
            PyErr_SetString(PyExc_TypeError, "headers must be a list or None");
            return NULL;
        }
        Py_ssize_t n = PyList_GET_SIZE(headers);
        hs = rk.headers_new((size_t)n);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *h = PyList_GET_ITEM(headers, i);
            if (!PyTuple_Check(h) || PyTuple_GET_SIZE(h) != 2) {
                rk.headers_destroy(hs);
                PyErr_SetString(PyExc_TypeError, "a header must be a (name, value) tuple");
                return NULL;
            }
            PyObject *hv = PyTuple_GET_ITEM(h, 1);
            const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(h, 0));
            const char *val = NULL;
            Py_ssize_t vsize = 0;
            if (name == NULL) {
                rk.headers_destroy(hs);
                return NULL;
            }
            if (PyBytes_Check(hv)) {
                val = PyBytes_AS_STRING(hv);
                vsize = PyBytes_GET_SIZE(hv);
            }
            else if (PyUnicode_Check(hv)) {
                val = PyUnicode_AsUTF8AndSize(hv, &vsize);
                if (val == NULL) {
                    rk.headers_destroy(hs);
                    return NULL;
                }
            }
            else if (hv != Py_None) {
                rk.headers_destroy(hs);
                PyErr_SetString(PyExc_TypeError, "a header value must be bytes, str or None");
                return NULL;
            }
            rk.header_add(hs, name, -1, val, vsize);
        }
    }
    rd_kafka_vu_t vu[7];
    vu[0].vtype = VTYPE_RKT;
    vu[0].u.rkt = t;
    vu[1].vtype = VTYPE_PARTITION;
    vu[1].u.i32 = partition;
    vu[2].vtype = VTYPE_VALUE;
    vu[2].u.mem.ptr = (void *)value;
    vu[2].u.mem.size = (size_t)vlen;
    vu[3].vtype = VTYPE_KEY;
    vu[3].u.mem.ptr = (void *)key;
    vu[3].u.mem.size = (size_t)klen;
    vu[4].vtype = VTYPE_MSGFLAGS;
    vu[4].u.i = RD_KAFKA_MSG_F_COPY;
    vu[5].vtype = VTYPE_OPAQUE;
    vu[5].u.ptr = self->current;
    vu[6].vtype = VTYPE_HEADERS;
    vu[6].u.headers = hs;
    rd_kafka_error_t *e = rk.produceva(self->rk, vu, 7);
    if (e != NULL) {
        rd_kafka_resp_err_t err = rk.error_code(e);
        rk.error_destroy(e);
        if (hs != NULL) /* the application's on failure */
            rk.headers_destroy(hs);
        return produce_error(err);
    }
    Py_RETURN_NONE;
}

static int
bytes_or_none(PyObject *o, const char **p, Py_ssize_t *n, const char *what)
{
    if (o == Py_None) {
        *p = NULL;
        *n = 0;
        return 0;
    }
    if (!PyBytes_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be bytes or None", what);
        return -1;
    }
    *p = PyBytes_AS_STRING(o);
    *n = PyBytes_GET_SIZE(o);
    return 0;
}

/* produce(topic, value, key, partition, headers): confluent-kafka's produce(topic, value, key, partition,
 * headers=headers) counted in the current batch */
static PyObject *
Producer_produce(Producer *self, PyObject *const *argv, Py_ssize_t argc)
{
    const char *v, *k;
    Py_ssize_t vl, kl;
    if (argc != 5) {
        PyErr_SetString(PyExc_TypeError, "produce(topic, value, key, partition, headers)");
        return NULL;
    }
    if (bytes_or_none(argv[1], &v, &vl, "value") < 0 || bytes_or_none(argv[2], &k, &kl, "key") < 0)
        return NULL;
    int partition = PyLong_AsLong(argv[3]);
    if (partition == -1 && PyErr_Occurred())
        return NULL;
    return fk_produce(self, argv[0], v, vl, k, kl, partition, argv[4]);
}

/* produce_line(topic, line, klen, vstart, vtail, headers): the record of a directory-output line (LineRecord):
 * value line[vstart:len(line)-vtail], key line[7:vstart-9] when klen else null; the partitioner's partition */
static PyObject *
Producer_produce_line(Producer *self, PyObject *const *argv, Py_ssize_t argc)
{
    if (argc != 6 || !PyBytes_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "produce_line(topic, line: bytes, klen, vstart, vtail, headers)");
        return NULL;
    }
    Py_ssize_t n = PyBytes_GET_SIZE(argv[1]);
    const char *line = PyBytes_AS_STRING(argv[1]);
    Py_ssize_t klen = PyLong_AsSsize_t(argv[2]);
    Py_ssize_t vstart = PyLong_AsSsize_t(argv[3]);
    Py_ssize_t vtail = PyLong_AsSsize_t(argv[4]);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t vend = n - vtail;
    /* the slices' bounds as Python's would clamp them never occur on a well-formed line: refuse instead */
    if (vstart < (klen ? 16 : 0) || vstart > vend || vend > n) {
        PyErr_SetString(PyExc_ValueError, "produce_line: offsets outside the line");
        return NULL;
    }
    return fk_produce(self, argv[0], line + vstart, vend - vstart, klen ? line + 7 : NULL,
                    klen ? vstart - 16 : 0, -1, argv[5]);
}

static int
timeout_ms(PyObject *o, int *ms)
{
    double s = PyFloat_AsDouble(o);
    if (s == -1.0 && PyErr_Occurred())
        return -1;
    *ms = s < 0 ? -1 : (int)(s * 1000.0 + 0.5);
    return 0;
}

/* poll(timeout_s) -> events served; failed reports handed to on_failure before it returns. Waits in chunks of
 * at most 200 ms with the GIL released, checking for signals between them (as confluent-kafka does). */
static PyObject *
Producer_poll(Producer *self, PyObject *arg)
{
    int ms, r = 0;
    if (timeout_ms(arg, &ms) < 0)
        return NULL;
    if (ms == 0) {
        r = rk.poll(self->rk, 0);
    }
    else {
        for (;;) {
            int chunk = ms < 0 || ms > 200 ? 200 : ms;
            Py_BEGIN_ALLOW_THREADS r = rk.poll(self->rk, chunk);
            Py_END_ALLOW_THREADS
            if (ms > 0)
                ms -= chunk;
            if (r != 0 || ms == 0)
                break;
            if (PyErr_CheckSignals() < 0) /* (the failures served stay queued for the next poll) */
                return NULL;
        }
    }
    if (serve_failures(self) < 0)
        return NULL;
    return PyLong_FromLong(r);
}

/* flush(timeout_s) -> records still queued or in flight (0: all reported) */
static PyObject *
Producer_flush(Producer *self, PyObject *arg)
{
    int ms;
    rd_kafka_resp_err_t err;
    if (timeout_ms(arg, &ms) < 0)
        return NULL;
    for (;;) {
        int chunk = ms < 0 || ms > 200 ? 200 : ms;
        Py_BEGIN_ALLOW_THREADS err = rk.flush(self->rk, chunk);
        Py_END_ALLOW_THREADS
        if (ms > 0)
            ms -= chunk;
        if (err != RD_KAFKA_RESP_ERR__TIMED_OUT || ms == 0)
            break;
        if (PyErr_CheckSignals() < 0)
            return NULL;
    }
    if (serve_failures(self) < 0)
        return NULL;
    return PyLong_FromLong(err ? rk.outq_len(self->rk) : 0);
}

/* purge(): drop the queued and in-flight records (their reports come with an error at the next poll/flush) */
static PyObject *
Producer_purge(Producer *self, PyObject *unused)
{
    rd_kafka_resp_err_t err;
    Py_BEGIN_ALLOW_THREADS err = rk.purge(self->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    Py_END_ALLOW_THREADS
    if (err)
        return produce_error(err);
    Py_RETURN_NONE;
}

/* new_batch(gen, start) -> Batch: the records produced from now on count their reports in it */
static PyObject *
Producer_new_batch(Producer *self, PyObject *args)
{
    long long gen, start;
    if (!PyArg_ParseTuple(args, "LL:new_batch", &gen, &start))
        return NULL;
    Batch *b = PyObject_New(Batch, &FkBatchType);
    if (b == NULL)
        return NULL;
    b->c = calloc(1, sizeof(cbatch));
    if (b->c == NULL) {
        b->producer = NULL;
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    Py_INCREF(self);
    b->producer = self;
    b->gen = gen;
    b->start = start;
    b->written = -1;
    self->current = b->c;
    return (PyObject *)b;
}

static Py_ssize_t
Producer_len(Producer *self)
{
    return rk.outq_len(self->rk);
}

static PyMethodDef Producer_methods[] = {
    {"produce", (PyCFunction)(void (*)(void))Producer_produce, METH_FASTCALL, NULL},
    {"produce_line", (PyCFunction)(void (*)(void))Producer_produce_line, METH_FASTCALL, NULL},
    {"poll", (PyCFunction)Producer_poll, METH_O, NULL},
    {"flush", (PyCFunction)Producer_flush, METH_O, NULL},
    {"purge", (PyCFunction)Producer_purge, METH_NOARGS, NULL},
    {"new_batch", (PyCFunction)Producer_new_batch, METH_VARARGS, NULL},
    {NULL},
};

static PySequenceMethods Producer_seq = {.sq_length = (lenfunc)Producer_len};

PyTypeObject ProducerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "emulator.fastkafka.Producer",
    .tp_basicsize = sizeof(Producer),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Producer_new,
    .tp_dealloc = (destructor)Producer_dealloc,
    .tp_methods = Producer_methods,
    .tp_as_sequence = &Producer_seq,
};

/* ---------------------------------------------------------------- module */

static PyMethodDef methods[] = {
    {"load", load, METH_VARARGS, NULL},
    {NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fastkafka", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_fastkafka(void)
{
    if (PyType_Ready(&ProducerType) < 0 || PyType_Ready(&FkBatchType) < 0 || PyType_Ready(&FkRouterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "VERSION", FASTKAFKA_VERSION) < 0 ||
        PyModule_AddObjectRef(m, "Producer", (PyObject *)&ProducerType) < 0 ||
        PyModule_AddObjectRef(m, "Router", (PyObject *)&FkRouterType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
