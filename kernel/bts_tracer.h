/*
 * Per-CPU and per-thread BTS consumers on one CPU's producer.
 *
 * One BTS session (kernel/bts.h) with a drain strategy (lib/drain.h)
 * produces the CPU's stream. Its sink offers every drained batch to the
 * per-CPU consumers, and to the consumers of the thread that was running
 * when the records were made. That attribution is exact because the
 * scheduler's switch hooks drain the buffer at every switch, with tracing
 * paused, before the next thread runs: the records still in the buffer
 * (or in buffers handed to deferred work) all belong to the thread that
 * just stopped. A per-CPU consumer sees one stream across all switches.
 * While no consumer wants the running code (an untraced thread and no
 * per-CPU consumer), tracing stays paused.
 *
 * Filtering by privilege level: when every consumer wants only user or
 * only kernel branches, and the producer can filter by CPL (hardware:
 * DS_CPL; the model: always), the producer filters (BTS_OFF_OS or
 * BTS_OFF_USR) and fewer records are made; the consumers' software filter
 * still runs, to turn ring transitions into pseudo-records (lib/consumer.h).
 * When the consumers disagree, or the producer cannot filter, only the
 * software filter does.
 */
#ifndef KERNEL_BTS_TRACER_H
#define KERNEL_BTS_TRACER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/bts.h"
#include "kernel/thread.h"
#include "lib/consumer.h"
#include "lib/drain.h"
#include "lib/modes.h"

struct bts_tracer {
	struct bts_session s;
	struct drain d;
	struct consumer_set cpu;  /* per-CPU consumers */
	struct consumer_set *cur; /* the running thread's, or NULL */
	struct sched_hooks hooks; /* give these to threads_run() */
	struct mode_map map;	  /* the kernel's (bts_tracer_mode_map) */
	const char *filter_by;	  /* "producer" or "software" */
	const char *software_why; /* why not the producer, if not */
	bool running;		  /* tracing on (not paused) */
	/* Tests: called at every switch point, tracing paused and the
	 * buffer drained, with the thread that runs next (NULL: none). */
	void (*on_switch)(struct bts_tracer *tr, struct thread *next,
			  void *ctx);
	void *on_switch_ctx;
	uint64_t syncs; /* drains at switch points */
};

/* The kernel's address classification: user range and entry points. */
void bts_tracer_mode_map(struct mode_map *map);

/* A thread's consumers: set t->traced and t->trace = set. */
void bts_tracer_trace_thread(struct thread *t, struct consumer_set *set);

/*
 * Start: cpu (may be empty) and every traced thread's consumer set must
 * be complete. strategy: a drain_cfg without ds, sink and env (filled in
 * here); threads: all threads that will run, to learn their filters.
 * 0, or -1 with err.
 */
int bts_tracer_start(struct bts_tracer *tr, const struct bts_backend *be,
		     const struct bts_config *cfg, enum drain_id strategy,
		     const struct drain_cfg *dc, struct thread **threads,
		     unsigned nthreads, char *err, unsigned len);
/* Stop tracing and drain the rest (into the per-CPU consumers). */
void bts_tracer_stop(struct bts_tracer *tr);

#endif
