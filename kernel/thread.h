/*
 * Threads: a few kernel-scheduled threads, each running a user program in
 * ring 3 on a user stack of its own, on the CPU that runs them.
 *
 * threads_run() is the scheduler: called from a test, it runs the given
 * threads round robin until every one has ended (exit, or a fault in user
 * code, which ends that thread only) or the time limit passes. A thread
 * gives up the CPU by the yield system call, and, when the configuration
 * asks for a time slice, by the APIC timer when it interrupts user mode.
 * Every switch goes through the scheduler, with interrupts off, and calls
 * the switch hooks there: after the outgoing thread has stopped and before
 * the next one runs, which is where per-thread tracing drains or switches
 * the trace buffer.
 */
#ifndef KERNEL_THREAD_H
#define KERNEL_THREAD_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

#define THREAD_MAX	   8
#define THREAD_KSTACK_SIZE (16 * 1024)

enum thread_state {
	TH_NEW,
	TH_READY,
	TH_RUNNING,
	TH_EXITED,  /* SYS_EXIT */
	TH_FAULTED, /* an exception in user code */
	TH_KILLED,  /* still running at the time limit */
};

struct thread_fault {
	unsigned vector;
	uint64_t rip, cr2, error_code, rsp, cs;
};

struct thread {
	unsigned id;   /* 1.., the user sees it (SYS_GETTID) */
	unsigned slot; /* user stack and kernel stack slot */
	enum thread_state state;
	uint64_t entry; /* user address of the program */
	uint64_t arg;
	int64_t exit_code;
	struct thread_fault fault;
	bool traced;
	void *trace;  /* the tracer's per-thread data */
	uint64_t ksp; /* saved kernel stack pointer while switched out */
	uint8_t *kstack;
	/* Counts. */
	uint64_t runs;	      /* times switched in */
	uint64_t yields;      /* SYS_YIELD */
	uint64_t preemptions; /* by the timer, in user mode */
	uint64_t syscalls;
};

/* Called by the scheduler with interrupts off, between two threads. */
struct sched_hooks {
	void (*switch_in)(struct thread *t, void *ctx);
	void (*switch_out)(struct thread *t, void *ctx);
	void *ctx;
};

struct sched_cfg {
	uint64_t slice_us;   /* preemption by the APIC timer; 0: none */
	uint64_t timeout_ms; /* then the threads still running are killed */
	const struct sched_hooks *hooks; /* may be NULL */
};

struct sched_stats {
	uint64_t switches;   /* threads switched in */
	uint64_t ticks;	     /* timer interrupts */
	uint64_t idle_ticks; /* of those, none interrupted user mode */
};

/*
 * Set t up to run the user program fn (a function of user/, by its
 * kernel symbol) with arg; slot picks the stacks (one per thread that
 * runs at the same time, below THREAD_MAX). 0, or -1 with err.
 */
int thread_init(struct thread *t, unsigned slot, const void *fn, uint64_t arg,
		char *err, unsigned len);

/* Run threads until all have ended or the time limit. 0, or -1 + err. */
int threads_run(struct thread **ts, unsigned n, const struct sched_cfg *cfg,
		struct sched_stats *stats, char *err, unsigned len);

const char *thread_state_name(enum thread_state s);

/* At boot: run a probe thread; on failure user mode is unavailable. */
void threads_probe(void);

/* For the system calls and trap dispatch (the running thread). */
void thread_exit_current(int64_t code);
void thread_yield_current(void);
uint64_t thread_current_id(void);
void thread_count_syscall(uint64_t nr);
/* An exception in user code: the thread ends; false if no thread runs. */
bool thread_fault_current(const struct trap_frame *f);

/* kernel/uentry.asm: save callee-saved registers and rsp, switch. */
void thread_switch(uint64_t *save_rsp, uint64_t new_rsp);

#endif
