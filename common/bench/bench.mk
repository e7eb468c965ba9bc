# make bench: the suite measures itself (README.md, "Performance").
# Programs: build/bin/bench-{yield,lag,hash,doorbell}; the driver
# common/bench/run.sh runs them, the stdlib-only Python harness beside them,
# and times `make grade SOL=1` in its own build tree, then writes
# data/bench_*.csv and prints one table (also data/bench_summary.txt).

BENCH_UTIL := $(O)/obj/common/bench/bench.o
BENCH_PROGS := $(O)/bin/bench-yield $(O)/bin/bench-lag $(O)/bin/bench-doorbell \
	$(O)/bin/bench-hash $(O)/bin/bench-saveload

$(O)/bin/bench-yield: $(O)/obj/common/bench/yield_cost.o
$(O)/bin/bench-lag: $(O)/obj/common/bench/heartbeat.o
$(O)/bin/bench-hash: $(O)/obj/common/bench/hash_kernel.o
$(O)/bin/bench-doorbell: $(O)/obj/common/bench/doorbell.o
$(O)/bin/bench-saveload: $(O)/obj/common/bench/saveload.o
$(BENCH_PROGS): $(BENCH_UTIL) $(COMMON_LIB)
	$(call msg,LD,$@)
	$(mkdir_target)
	$(Q)$(link)

# Built with everything else, so `make check` compiles them with -Werror.
all: bench-programs

# The grading-speed rows grade in a tree of their own, so that neither the
# student's build/grade results nor a half-built tree is touched or timed.
BENCH_GRADE_BUILD := $(BUILD)/bench-grade
QUICK ?= 0
ifneq ($(filter bench,$(MAKECMDGOALS)),)
ifneq ($(SAN),)
$(error make bench measures plain builds only: run it without SAN=$(SAN))
endif
endif

.PHONY: bench bench-programs
bench-programs: $(BENCH_PROGS)
# QUICK=1: tiny runs and no grading, into $(BUILD)/bench-quick (a smoke test).
bench: bench-programs $(O)/bin/saveserver
	@BIN=$(O)/bin GRADE_BUILD=$(BENCH_GRADE_BUILD) BENCH_QUICK=$(QUICK) \
		bash common/bench/run.sh
