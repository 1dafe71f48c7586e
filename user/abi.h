/* The system-call numbers, shared by the kernel and the user programs. */
#ifndef USER_ABI_H
#define USER_ABI_H

enum {
	SYS_EXIT = 0,  /* (code): the thread ends */
	SYS_YIELD = 1, /* (): run another thread */
	SYS_GETTID = 2,
	SYS_WORK = 3, /* (n): n rounds of a branchy loop in the kernel */
	SYS_NCALLS
};

#define SYS_ENOSYS (-38)

#endif
