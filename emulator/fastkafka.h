/* emulator.fastkafka's declarations shared by its two sources: fastkafka.c (the module, the producer) and
 * fastkafka_batch.c (a batch's delivery count, KafkaOutput's _Batch in C). See fastkafka.c for why and how. */
#ifndef FASTKAFKA_H
#define FASTKAFKA_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

/* ---------------------------------------------------------------- librdkafka's ABI (rdkafka.h, >= 1.6) */

typedef struct rd_kafka_s rd_kafka_t;
typedef struct rd_kafka_conf_s rd_kafka_conf_t;
typedef struct rd_kafka_topic_s rd_kafka_topic_t;
typedef struct rd_kafka_error_s rd_kafka_error_t;
typedef struct rd_kafka_headers_s rd_kafka_headers_t;
typedef int rd_kafka_resp_err_t;

typedef struct {
    rd_kafka_resp_err_t err;
    rd_kafka_topic_t *rkt;
    int32_t partition;
    void *payload;
    size_t len;
    void *key;
    size_t key_len;
    int64_t offset;
    void *_private; /* the per-message opaque (RD_KAFKA_VTYPE_OPAQUE) */
} rd_kafka_message_t;

enum {
    VTYPE_END,
    VTYPE_TOPIC,
    VTYPE_RKT,
    VTYPE_PARTITION,
    VTYPE_VALUE,
    VTYPE_KEY,
    VTYPE_OPAQUE,
    VTYPE_MSGFLAGS,
    VTYPE_TIMESTAMP,
    VTYPE_HEADER,
    VTYPE_HEADERS,
};

typedef struct {
    int vtype;
    union {
        const char *cstr;
        rd_kafka_topic_t *rkt;
        int i;
        int32_t i32;
        int64_t i64;
        struct {
            void *ptr;
            size_t size;
        } mem;
        struct {
            const char *name;
            const void *val;
            ssize_t size;
        } header;
        rd_kafka_headers_t *headers;
        void *ptr;
        char _pad[64];
    } u;
} rd_kafka_vu_t;

#define RD_KAFKA_PRODUCER 0
#define RD_KAFKA_CONF_OK 0
#define RD_KAFKA_MSG_F_COPY 0x2
#define RD_KAFKA_PURGE_F_QUEUE 0x1
#define RD_KAFKA_PURGE_F_INFLIGHT 0x2
#define RD_KAFKA_RESP_ERR__QUEUE_FULL (-184)
#define RD_KAFKA_RESP_ERR__TIMED_OUT (-185)

typedef void (*dr_msg_cb_t)(rd_kafka_t *, const rd_kafka_message_t *, void *);

/* ---------------------------------------------------------------- batches */

/* The records produced between two commit points count their delivery reports here (the message's opaque).
 * `acked` is written by the thread serving reports (with the GIL released in a waiting poll) and read by the
 * others: atomics. A record whose report has an error is counted only once Python has been told (`serve`), so
 * a batch is never `done` before its failure is known. */
typedef struct cbatch {
    int64_t acked;
    struct cbatch *next; /* the producer's list of batches whose memory waits for its end */
} cbatch;

typedef struct failure {
    cbatch *batch;
    rd_kafka_resp_err_t err;
    char *topic;
} failure;

typedef struct {
    PyObject_HEAD
    rd_kafka_t *rk;
    PyObject *topics;    /* topic str -> int (rd_kafka_topic_t *) */
    PyObject *on_failure; /* on_failure(topic, text): a failed delivery report */
    cbatch *current;     /* the batch new records count in */
    cbatch *parked;      /* batches still referenced by records in flight when their Python object went */
    pthread_mutex_t lock; /* the failure list (filled by whichever thread serves reports) */
    failure *failures;
    Py_ssize_t nfail, capfail;
} Producer;

typedef struct {
    PyObject_HEAD
    Producer *producer;
    cbatch *c;
    long long gen, start, written;
} Batch;

/* The Kafka output's route checks in C (fastkafka_route.c): see there. */
typedef struct {
    PyObject_HEAD
    PyObject *routes;        /* the output's _routes: topic -> (headers list, its producer form) */
    Producer *producer;      /* the output's current producer, or NULL */
    PyObject *fallback_line; /* the output's Python path for what the router does not produce */
    PyObject *fallback_kv;
    PyObject *poll;          /* KafkaOutput._poll_if_free, every 1,024 records */
    long long written;       /* the output's `written` */
    char failed;             /* the output's `failure` is set: every record to the fallback */
} Router;

/* fastkafka_batch.c's type: a batch of records between two commit points */
extern PyTypeObject FkBatchType;
/* fastkafka.c's producer, and its produce (key/value NULL = null; headers None or a list of tuples) */
extern PyTypeObject ProducerType;
PyObject *fk_produce(Producer *self, PyObject *topic, const char *value, Py_ssize_t vlen, const char *key,
                     Py_ssize_t klen, int partition, PyObject *headers);
/* fastkafka_route.c's type */
extern PyTypeObject FkRouterType;

#endif
