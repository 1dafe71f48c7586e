/*
 * Branch Trace Store: one interface, two producers (kernel/bts.c).
 *
 * A backend produces 24-byte records into the buffer that a DS save area
 * (lib/ds_layout.h) describes, exactly as the SDM specifies: "hw" is the
 * real thing (drivers/bts_hw.c), "model" a software producer with the same
 * contract that runs anywhere (drivers/bts_model.c). A session owns the DS
 * area and buffer of one CPU and the overflow interrupt (PMI) path: pause
 * tracing, check that the PMI is ours, drain, reset the index, unmask the
 * LVTPC entry, resume tracing, EOI when it was a fixed vector.
 */
#ifndef KERNEL_BTS_H
#define KERNEL_BTS_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/lapic.h"
#include "lib/ds_layout.h"

struct bts_config {
	uint32_t records;   /* buffer size, in records */
	uint32_t threshold; /* PMI when the index reaches this record */
	bool interrupt;	    /* BTINT; false: circular, threshold > max */
	bool off_os;	    /* BTS_OFF_OS: no CPL 0 branches */
	bool off_usr;	    /* BTS_OFF_USR: no CPL > 0 branches */
	enum lvtpc_delivery delivery;
	/* Conformance only: keep the threshold inside the buffer even in
	 * circular mode, to see whether clearing BTINT alone stops PMIs. */
	bool keep_threshold;
};

/* IA32_PERF_GLOBAL_STATUS as the hw backend read it in the last PMI. */
extern uint64_t bts_hw_pmi_status;

struct bts_backend {
	const char *name;
	/* NULL when usable, else the exact reason it is not. */
	const char *(*why_unavailable)(void);
	/* Program DS area and tracing; 0 or -1 with a message in err. */
	int (*start)(struct ds_area *ds, const struct bts_config *cfg,
		     char *err, unsigned errlen);
	void (*stop)(void);
	void (*pause)(void);  /* tracing off: first thing in the PMI */
	void (*resume)(void); /* tracing back on */
	/* The overflow status bit (GLOBAL_STATUS.OvfBuf), if known. */
	bool (*ovf_pending)(void);
	void (*ovf_clear)(void);
	/* Records that could not be stored because the buffer was full;
	 * UINT64_MAX when the backend cannot know (hardware). */
	uint64_t (*lost_at_max)(void);
};

extern const struct bts_backend bts_hw, bts_model;

/* Where the PMI path puts what it drains (the drain path's hook). */
struct bts_session;
struct drain;
typedef void (*bts_drain_fn)(struct bts_session *s,
			     const struct bts_record *recs, uint64_t n);

struct bts_session {
	const struct bts_backend *be;
	struct bts_config cfg;
	struct ds_area *ds;
	struct bts_record *buf;
	bts_drain_fn drain;
	void *drain_ctx;
	struct drain *strategy; /* lib/drain.h; NULL: the plain copy above */
	volatile bool active;
	volatile bool hold; /* tests: the PMI path leaves the buffer alone */
	volatile bool busy; /* a drain is running on this CPU */
	volatile uint64_t early; /* PMIs after another NMI drained first */
	/* Experiments: past this TSC the PMI path stops the producer itself
	 * (a livelocked CPU never returns to the code that would stop it). */
	volatile uint64_t stop_tsc;
	volatile bool stopped_by_guard;
	volatile uint64_t handler_cycles; /* time spent in the PMI path */

	/* The PMI path's own counts. */
	volatile uint64_t pmis;		   /* PMIs taken and drained */
	volatile uint64_t not_ours;	   /* NMIs/PMIs that were not BTS */
	volatile uint64_t drained;	   /* records handed to drain */
	volatile uint64_t masked_on_entry; /* LVTPC mask set at entry */
	volatile uint64_t entry_index;	   /* index at the last PMI entry */
	volatile uint64_t skid_max;	   /* records past the threshold */
	volatile uint64_t entry_tsc;
};

/* Settings from the command line (bts.records=, bts.threshold=, dump=). */
struct bts_settings {
	uint64_t records, threshold, dump;
	bool threshold_given;
};
extern struct bts_settings bts_settings;

void bts_init(void);
/* The default configuration from the command line. */
void bts_default_config(struct bts_config *cfg);
/* Check a configuration; 0 or -1 with the reason in err. */
int bts_config_check(const struct bts_config *cfg, char *err, unsigned len);

/*
 * Start a session on this CPU: buffers from kernel/pmm.c (kept for the
 * run and reused), LVTPC as cfg says, tracing on. drain may be NULL (the
 * records are then only counted). Returns 0 or -1 with err filled in.
 */
int bts_start(struct bts_session *s, const struct bts_backend *be,
	      const struct bts_config *cfg, bts_drain_fn drain, char *err,
	      unsigned errlen);
/* Tracing off, then drain what is left in the buffer. */
void bts_stop(struct bts_session *s);

/*
 * Start with a drain strategy (lib/drain.h) in charge of the DS buffers:
 * the PMI path calls drain_pmi(), stop calls drain_flush(). The strategy
 * must be initialized (drain_init) on this CPU's DS area (bts_ds_area).
 */
int bts_start_strategy(struct bts_session *s, const struct bts_backend *be,
		       const struct bts_config *cfg, struct drain *d, char *err,
		       unsigned errlen);
/* This CPU's DS save area (allocated on first use), or NULL. */
struct ds_area *bts_ds_area(void);
/* Drain what is in the buffer now (outside the PMI), e.g. at the end. */
void bts_flush(struct bts_session *s);
/* The same, leaving tracing paused unless resume; bts_resume() later. */
void bts_sync(struct bts_session *s, bool resume);
void bts_resume(struct bts_session *s);
/* Records in the buffer now. */
uint64_t bts_pending(const struct bts_session *s);

#endif
