/* emulator.fastkafka's batches (fastkafka.h): the records produced between two commit points, whose delivery
 * reports fastkafka.c's dr_msg_cb counts; the Python object is KafkaOutput's _Batch (acked, done, written). */

#include "fastkafka.h"
#include <structmember.h>

static void
Batch_dealloc(Batch *self)
{
    if (self->producer != NULL) {
        Producer *p = self->producer;
        if (p->current == self->c)
            p->current = NULL;
        /* every record reported: nothing refers to it any more; else it waits for the producer's end */
        if (self->written >= 0 && __atomic_load_n(&self->c->acked, __ATOMIC_ACQUIRE) >= self->written) {
            free(self->c);
        }
        else {
            self->c->next = p->parked;
            p->parked = self->c;
        }
        Py_DECREF(p);
    }
    PyObject_Free(self);
}

static PyObject *
Batch_acked(Batch *self, void *unused)
{
    return PyLong_FromLongLong(__atomic_load_n(&self->c->acked, __ATOMIC_ACQUIRE));
}

static PyObject *
Batch_done(Batch *self, void *unused)
{
    return PyBool_FromLong(self->written >= 0 &&
                           self->written <= __atomic_load_n(&self->c->acked, __ATOMIC_ACQUIRE));
}

static PyGetSetDef Batch_getset[] = {
    {"acked", (getter)Batch_acked, NULL, NULL, NULL},
    {"done", (getter)Batch_done, NULL, NULL, NULL},
    {NULL},
};

static PyMemberDef Batch_members[] = {
    {"gen", T_LONGLONG, offsetof(Batch, gen), READONLY, NULL},
    {"start", T_LONGLONG, offsetof(Batch, start), READONLY, NULL},
    {"written", T_LONGLONG, offsetof(Batch, written), 0, NULL},
    {NULL},
};

PyTypeObject FkBatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "emulator.fastkafka.Batch",
    .tp_basicsize = sizeof(Batch),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_getset = Batch_getset,
    .tp_members = Batch_members,
};
