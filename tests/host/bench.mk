# Host benchmark of the drain path (tests/host/bench_drain.c). Included by
# the top Makefile, which runs from the repository root:
#
#   make host-bench    build with -O2, no sanitizers, and print, for every
#                      strategy x ring x format and the per-record baseline:
#                      ns/record, MB/s and the ratio to a memcpy of the
#                      same bytes; then, when valgrind is installed,
#                      instructions per record from callgrind (the stable
#                      figure on a noisy machine). About a minute in all.
#
# Figures only: it never fails because of a figure.

BENCH_CC := gcc
BENCH_CFLAGS := -DBTSLAB_HOST -I. -std=gnu11 -O2 -g -Wall -Wextra -Werror
BENCH_DIR := build/bench
BENCH_LIB_SRCS := lib/bts_account.c lib/rec_format.c lib/consumer.c lib/modes.c \
	lib/string.c \
	$(wildcard lib/ring*.c lib/drain*.c)
BENCH_LIB_OBJS := $(BENCH_LIB_SRCS:%.c=$(BENCH_DIR)/obj/%.o)
BENCH_BIN := $(BENCH_DIR)/bench_drain
BENCH_VALGRIND := $(shell command -v valgrind 2>/dev/null)

.PHONY: host-bench

host-bench: $(BENCH_BIN)
	$(BENCH_BIN)
ifneq ($(BENCH_VALGRIND),)
	@rm -f $(BENCH_DIR)/callgrind.out*
	$(BENCH_VALGRIND) --tool=callgrind --collect-atstart=no \
		--callgrind-out-file=$(BENCH_DIR)/callgrind.out \
		$(BENCH_BIN) --callgrind $(BENCH_DIR)/callgrind.out \
		2>$(BENCH_DIR)/callgrind.log
else
	@echo "valgrind not installed: no instruction counts"
endif

$(BENCH_LIB_OBJS): $(BENCH_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -MMD -MP -c $< -o $@

$(BENCH_BIN): tests/host/bench_drain.c $(BENCH_LIB_OBJS)
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -MMD -MP $^ -o $@

-include $(BENCH_LIB_OBJS:.o=.d) $(BENCH_BIN).d
