# Host unit tests and fuzz targets for lib/. Included by the top Makefile,
# which runs from the repository root:
#
#   make host-test                 lib/*.c with ASan+UBSan, run test_*.c
#   make fuzz [FUZZ_SECONDS=6]    run each fuzz_*.c under libFuzzer
#   make host-clean
#
# Sources are found with wildcards: a new lib/x.c, tests/host/test_x.c or
# tests/host/fuzz_x.c needs no change here. Each target writes
# "passed=N failed=N skipped=N" to build/results/{host,fuzz}.txt and fails
# when a test fails or a program crashes. V=1 shows the commands.

HOST_CC := gcc
HOST_CFLAGS := -DBTSLAB_HOST -I. -std=gnu11 -g -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wall -Wextra -Werror
# <cmocka.h> needs these first; clang-format sorts it to the top of a block.
HOST_TEST_CFLAGS := -include setjmp.h -include stdarg.h -include stddef.h \
	-include stdint.h
HOST_AR := ar
HOST_RESULTS := build/results
HOST_TEST_TIMEOUT ?= 120

HOST_DIR := build/host
HOST_LIB_SRCS := $(wildcard lib/*.c)
HOST_LIB_OBJS := $(HOST_LIB_SRCS:%.c=$(HOST_DIR)/%.o)
HOST_LIB := $(HOST_DIR)/libbtslab.a
HOST_TESTS := $(patsubst tests/host/%.c,$(HOST_DIR)/%, \
	$(wildcard tests/host/test_*.c))

# The gcc build above is the warnings gate; clang's differ, so no -Werror.
FUZZ_SECONDS ?= 6
HOST_FUZZ_CC := clang
HOST_FUZZ_CFLAGS := -DBTSLAB_HOST -I. -std=gnu11 -g -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wall -Wextra
HOST_FUZZ_DIR := build/fuzz
HOST_FUZZ_OBJS := $(HOST_LIB_SRCS:%.c=$(HOST_FUZZ_DIR)/obj/%.o)
HOST_FUZZ_LIB := $(HOST_FUZZ_DIR)/obj/libbtslab.a
HOST_FUZZERS := $(patsubst tests/host/%.c,$(HOST_FUZZ_DIR)/bin/%, \
	$(wildcard tests/host/fuzz_*.c))

ifeq ($(V),1)
HOST_Q :=
HOST_SAY := @true
else
HOST_Q := @
HOST_SAY := @printf '  %-7s %s\n'
endif

.PHONY: host-test fuzz host-clean host-test-start fuzz-start

# Until the runner writes the real counts, the result says "failed": a build
# error stops make before the runner, and must not leave an old "failed=0".
host-test: host-test-start $(HOST_TESTS)
	$(HOST_Q)HOST_TEST_TIMEOUT=$(HOST_TEST_TIMEOUT) sh \
		tests/host/run_tests.sh $(HOST_RESULTS)/host.txt $(HOST_TESTS)

fuzz: fuzz-start $(HOST_FUZZERS)
	$(HOST_Q)sh tests/host/run_fuzz.sh $(HOST_RESULTS)/fuzz.txt \
		$(FUZZ_SECONDS) $(HOST_FUZZERS)

host-test-start:
	@mkdir -p $(HOST_RESULTS)
	@echo "passed=0 failed=1 skipped=0" >$(HOST_RESULTS)/host.txt

fuzz-start:
	@mkdir -p $(HOST_RESULTS)
	@echo "passed=0 failed=1 skipped=0" >$(HOST_RESULTS)/fuzz.txt

host-clean:
	rm -rf $(HOST_DIR) $(HOST_FUZZ_DIR) $(HOST_RESULTS)/host.txt \
		$(HOST_RESULTS)/fuzz.txt

# Static pattern rules, so no pattern rule of the includer can take over.
$(HOST_LIB_OBJS): $(HOST_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(HOST_SAY) HOSTCC $<
	$(HOST_Q)$(HOST_CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(HOST_FUZZ_OBJS): $(HOST_FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(HOST_SAY) FUZZCC $<
	$(HOST_Q)$(HOST_FUZZ_CC) $(HOST_FUZZ_CFLAGS) -MMD -MP -c $< -o $@

# Archives, so a program links only the lib/ objects it uses. Rebuilt from
# scratch so a deleted source leaves nothing behind.
$(HOST_LIB): $(HOST_LIB_OBJS)
	$(HOST_SAY) AR $@
	$(HOST_Q)rm -f $@ && $(HOST_AR) rcs $@ $^

$(HOST_FUZZ_LIB): $(HOST_FUZZ_OBJS)
	$(HOST_SAY) AR $@
	$(HOST_Q)rm -f $@ && $(HOST_AR) rcs $@ $^

$(HOST_TESTS): $(HOST_DIR)/%: tests/host/%.c $(HOST_LIB)
	@mkdir -p $(@D)
	$(HOST_SAY) HOSTCC $<
	$(HOST_Q)$(HOST_CC) $(HOST_CFLAGS) $(HOST_TEST_CFLAGS) -MMD -MP $< \
		$(HOST_LIB) -lcmocka -o $@

$(HOST_FUZZERS): $(HOST_FUZZ_DIR)/bin/%: tests/host/%.c $(HOST_FUZZ_LIB)
	@mkdir -p $(@D)
	$(HOST_SAY) FUZZCC $<
	$(HOST_Q)$(HOST_FUZZ_CC) $(HOST_FUZZ_CFLAGS) -MMD -MP $< \
		$(HOST_FUZZ_LIB) -o $@

-include $(HOST_LIB_OBJS:.o=.d) $(HOST_FUZZ_OBJS:.o=.d) \
	$(HOST_TESTS:=.d) $(HOST_FUZZERS:=.d)
