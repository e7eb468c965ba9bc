# common/: every common/*.c is a module of libcommon.a; programs link only the
# modules they use.  Unit tests are common/tests/test_*.c, one binary each.
# Small programs of common/ (the save server, the grade report) are
# common/<name>/main.c with a <name>.mk beside them when they need more.

COMMON_SRCS := $(wildcard common/*.c)
COMMON_LIB := $(O)/libcommon.a
$(COMMON_LIB): $(patsubst %.c,$(O)/obj/%.o,$(COMMON_SRCS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

GRADE_OBJS := $(O)/obj/common/grade/grade.o $(O)/obj/common/grade/results.o \
	$(O)/obj/common/grade/evalloc.o
GRADE_REPORT := $(O)/bin/grade-report
$(GRADE_REPORT): $(O)/obj/common/grade/report.o $(O)/obj/common/grade/results.o
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(link)

UNIT_TESTS := $(patsubst common/tests/%.c,$(O)/test/%,$(wildcard common/tests/test_*.c))
$(O)/test/%: $(O)/obj/common/tests/%.o $(COMMON_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(link)

# Self-test of the harness: a fake lab whose tests hang, crash and misbehave.
SELFTEST := $(O)/grader/selftest
$(SELFTEST): $(O)/obj/common/grade/selftest.o $(GRADE_OBJS) $(COMMON_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(link)

.PHONY: unit-tests
unit-tests: $(UNIT_TESTS)
tools: $(GRADE_REPORT) $(UNIT_TESTS) $(SELFTEST)

# common/*/*.mk (save server, bench, charts, workflow) are included at the
# end of the top-level Makefile, once the lab variables exist.
