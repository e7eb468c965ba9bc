# common/lib/: the library.  Every common/lib/*.c is a module of
# libcommon.a; programs link only the modules they use.  The library needs
# nothing else of the suite (no grader kit, no tool).  Unit tests are
# common/tests/unit/test_*.c, one binary each.  The tools of common/ (the save
# server, the grade runner, the bench) are common/<name>/ with a <name>.mk
# beside them when they need more.

COMMON_SRCS := $(wildcard common/lib/*.c)
COMMON_LIB := $(O)/libcommon.a
$(COMMON_LIB): $(patsubst %.c,$(O)/obj/%.o,$(COMMON_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The grader kit's fixtures (common/grade/savelab.c, the world of the save
# labs' graders): they fail tests through grade.h, so they are not library
# modules.  An archive, so that a grader links only the fixtures it uses
# (the archives of a link are one group: see `link` in the Makefile).
GRADE_KIT := $(O)/libgradekit.a
$(GRADE_KIT): $(O)/obj/common/grade/savelab.o
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The grading harness has two halves.  GRADE_OBJS are linked into every
# grader, beside the student's code (untrusted: they run one test per exec).
# grade-run is the trusted runner: no student code, the only writer and
# reader of results (common/grade/runner.h); grade-report and grade-note are
# the same program under the names the scripts know.
GRADE_OBJS := $(O)/obj/common/grade/grade.o $(O)/obj/common/grade/evalloc.o \
	$(O)/obj/common/grade/libcfault.o $(GRADE_KIT)
RUNNER_OBJS := $(patsubst %,$(O)/obj/common/grade/%.o,runner contain store results) \
	$(O)/obj/common/lib/saveserver_path.o
GRADE_RUN := $(O)/bin/grade-run
GRADE_REPORT := $(O)/bin/grade-report
GRADE_NOTE := $(O)/bin/grade-note
$(GRADE_RUN): $(RUNNER_OBJS)
	$(call msg,LD,$@)
	$(mkdir_target)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $$(pkg-config --libs libseccomp libcrypto) -lm
$(GRADE_REPORT) $(GRADE_NOTE): $(GRADE_RUN)
	$(Q)ln -f $< $@

UNIT_TESTS := $(patsubst common/tests/unit/%.c,$(O)/test/%,$(wildcard common/tests/unit/test_*.c))
$(O)/test/%: $(O)/obj/common/tests/unit/%.o $(COMMON_LIB)
	$(call msg,LD,$@)
	$(mkdir_target)
	$(Q)$(link)
# The grader kit's allocation counter and C library faults, tested on
# their own.
# The save client's tests share a fixture (not a test of its own).
$(O)/test/test_save $(O)/test/test_save_faults: $(O)/obj/common/tests/unit/savetest.o
$(O)/test/test_evalloc: $(O)/obj/common/grade/evalloc.o
$(O)/test/test_libcfault: $(O)/obj/common/grade/libcfault.o
# saveinspect's private base must leave no libevent block behind.
$(O)/test/test_saveinspect: $(O)/obj/common/grade/evalloc.o

# Self-test of the harness: a fake lab whose tests hang, crash and misbehave.
SELFTEST := $(O)/grader/selftest
$(SELFTEST): $(O)/obj/common/tests/selftest.o $(GRADE_OBJS) $(COMMON_LIB) | $(GRADE_RUN)
	$(call msg,LD,$@)
	$(mkdir_target)
	$(Q)$(link)

.PHONY: unit-tests
unit-tests: $(UNIT_TESTS)
tools: $(GRADE_RUN) $(GRADE_REPORT) $(GRADE_NOTE) $(UNIT_TESTS) $(SELFTEST)

# common/*/*.mk (save server, bench, charts, workflow) are included at the
# end of the top-level Makefile, once the lab variables exist.
