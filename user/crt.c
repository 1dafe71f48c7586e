/* Where every thread starts: run the program, exit with its result. */
#include "user/usys.h"

void user_start(user_fn fn, uint64_t arg);

void user_start(user_fn fn, uint64_t arg)
{
	usys_exit(fn(arg));
}
