# yieldlab — cooperative scheduling labs on libevent 2.1.  `make help` lists
# the targets.  Each lab adds itself through labs/*/lab.mk; common/common.mk
# lists the shared modules.  Everything built goes under build/.

.DEFAULT_GOAL := all
# Keep objects that pattern rules made on the way (no rebuild next time)
.SECONDARY:
# Every rule is written here: without make's built-in ones, the ~900
# dependency files a build tree holds are read in 0.03 s instead of 0.3 s
# (make searched its built-in rules to remake each one), and make check
# runs make hundreds of times.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
SHELL := /bin/bash
# What is built under the build tree has POSIX recipes, run by /bin/sh:
# make runs a simple command (a compile, a link) itself only when SHELL is
# /bin/sh, where with bash it started a bash for each (~4,000 a make
# check).  private: a target's prerequisites elsewhere keep bash.
$(BUILD)/%: private SHELL := /bin/sh

# ---- knobs (documented in `make help` and README.md) -----------------------
CC ?= cc
WERROR ?= 1
STUDENT_WERROR ?= 0
SAN ?=
V ?= 0
LAB ?=
T ?=
TEST ?=
SOL ?= 0
BUILD ?= build

# The "  CC     file" lines are make's own output ($(info)), and a folder
# is made only when it is missing: a printf and a mkdir for each of the
# ~600 objects and ~630 links of make check were two processes apiece.
empty :=
space := $(empty) $(empty)
# the tag padded to six columns, as printf's %-6s did
msg_pad = $(or $(msg_pad.$(1)),$(space))
msg_pad.CC := $(space)$(space)$(space)$(space)
msg_pad.LD := $(msg_pad.CC)
msg_pad.AR := $(msg_pad.CC)
msg_pad.API := $(space)$(space)$(space)
msg_pad.PATCH := $(space)
ifeq ($(V),1)
Q :=
msg =
else ifneq ($(filter grade,$(MAKECMDGOALS)),)
# make grade prints only the grades (its output may go into `| head`);
# compiler errors still reach the terminal on stderr.
Q := @
msg =
else
Q := @
msg = $(info $(space) $(1)$(call msg_pad,$(1)) $(2))
endif
# A recipe's first line: makes the target's folder if it is missing.
mkdir_target = $(if $(wildcard $(@D)/.),,@mkdir -p $(@D))

# Sanitizer builds live beside the plain one so switching never mixes objects.
ifeq ($(SAN),)
O := $(BUILD)
SANFLAGS :=
else ifeq ($(SAN),address)
O := $(BUILD)/san-address
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
else ifeq ($(SAN),thread)
O := $(BUILD)/san-thread
SANFLAGS := -fsanitize=thread
else
$(error SAN must be empty, 'address' or 'thread', not '$(SAN)')
endif

PKGS := libevent libevent_pthreads libcrypto cmocka libseccomp
# Asked of pkg-config once, at first use: late, so that the dependency
# check has installed the packages by then, and once, not in every recipe
# (a recursive variable would run pkg-config for each of ~600 objects).
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null))$(PKG_LIBS)

BASE_WARNINGS := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	-Wwrite-strings -fno-common
WARNINGS := $(BASE_WARNINGS) $(if $(filter 1,$(WERROR)),-Werror)
# A student's file (labs/<lab>/<student file>): warnings are shown and cost
# nothing, unless STUDENT_WERROR=1.  The suite's own code keeps WERROR.
STUDENT_WARNINGS := $(BASE_WARNINGS) $(if $(filter 1,$(STUDENT_WERROR)),-Werror)

ALL_CPPFLAGS = -D_GNU_SOURCE -Icommon/lib -Icommon/grade -MMD -MP $(PKG_CFLAGS) $(LAB_CPPFLAGS) \
	$(MODULE_CPPFLAGS) $(CPPFLAGS)
ALL_CFLAGS = -std=c11 -O2 -g $(WARNINGS) $(SANFLAGS) $(CFLAGS)
# gold, where binutils has it: a grader's link takes 20 ms of CPU against
# 52 with the default (bfd), and every make grade links its graders afresh
# (make check links about 630 times).  LINKER=bfd, or lld, picks another.
LINKER ?= $(if $(wildcard /usr/bin/ld.gold),gold)
ifneq ($(filter-out bfd gold lld mold,$(LINKER)),)
$(error LINKER must be bfd, gold, lld or mold, not '$(LINKER)' (see make help))
endif
ALL_LDFLAGS = $(SANFLAGS) $(if $(LINKER),-fuse-ld=$(LINKER)) $(LDFLAGS)
ALL_LDLIBS = $(PKG_LIBS) -lpthread -lm $(LDLIBS)

DEPS_OK := $(BUILD)/.deps-ok

# ---- one pattern rule for every object -------------------------------------
$(O)/obj/%.o: %.c | $(DEPS_OK)
	$(call msg,CC,$<)
	$(mkdir_target)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# The archives are one group: the grader kit's fixtures call the library.
link = $(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) \
	-Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(ALL_LDLIBS)

$(DEPS_OK): common/deps.sh common/packages.txt
	@bash common/deps.sh
	@mkdir -p $(@D) && touch $@

# ---- shared code, the grading harness, and the labs ------------------------
LABS :=
include common/common.mk
include $(sort $(wildcard labs/*/lab.mk))

lab_id = $(firstword $(subst _, ,$(1)))
# LAB=ex01 (or the full directory name) narrows grading to one lab.
# LAB may be a comma list: LAB=ex02,ex03.
comma := ,
LAB_LIST := $(subst $(comma), ,$(LAB))
SELECTED := $(if $(LAB),$(filter $(LAB_LIST) $(addsuffix _%,$(LAB_LIST)),$(LABS)),$(LABS))
ifneq ($(LAB),)
ifeq ($(SELECTED),)
$(error LAB=$(LAB) matches no lab; labs are: $(foreach l,$(LABS),$(call lab_id,$(l))))
endif
endif

# patched_rules(LAB, KIND, PATCH_DIR): KIND/<name> graders built from
# PATCH_DIR/<name>.patch applied to the lab's reference.
define patched_rules
$(O)/src/$(2)/$(1)/%.c: $(3)/%.patch solutions/$(1)/$$($(1)_STUDENT)
	$$(call msg,PATCH,$$@)
	$$(mkdir_target)
	$(Q)patch --quiet --force --fuzz=0 --reject-file=- \
		-o $$@ solutions/$(1)/$$($(1)_STUDENT) <$$< >/dev/null || \
		{ echo "$$<: does not apply to solutions/$(1)/$$($(1)_STUDENT)" >&2; \
		  rm -f $$@; exit 1; }
$(O)/obj/$(2)/$(1)/%.o: $(O)/src/$(2)/$(1)/%.c | $(DEPS_OK)
	$$(call msg,CC,$$<)
	$$(mkdir_target)
	$(Q)$(CC) $$(ALL_CPPFLAGS) -Ilabs/$(1) $$(ALL_CFLAGS) -c $$< -o $$@
$(O)/grader/$(2)/$(1)/%: $(O)/obj/labs/$(1)/grade.o \
		$(O)/obj/$(2)/$(1)/%.o $$($(1)_OBJS) $(GRADE_OBJS) \
		| $$($(1)_NEEDS) $(GRADE_RUN)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$$(link)
endef

# lab_rules(LAB_DIR_NAME): graders and programs for the student file (labs/),
# the reference (solutions/) and every wrong solution (solutions/wrong/).
define lab_rules
$(1)_ID := $(call lab_id,$(1))
$(1)_OBJS := $$(patsubst %.c,$(O)/obj/labs/$(1)/%.o,$$($(1)_PROVIDED)) \
	$(COMMON_LIB)
$(O)/obj/solutions/$(1)/%.o: LAB_CPPFLAGS := -Ilabs/$(1)
$(O)/obj/labs/$(1)/$$($(1)_STUDENT:.c=.o): WARNINGS := $(STUDENT_WARNINGS)
$(O)/obj/solutions/alt/$(1)/%.o: LAB_CPPFLAGS := -Ilabs/$(1)

# The seal's list of the functions the lab header declares (gcc -aux-info;
# never through ccache, which does not write the -aux-info file).
$(O)/seal/$(1).api: $(wildcard labs/$(1)/*.h) | $(DEPS_OK)
	$$(call msg,API,$$@)
	$$(mkdir_target)
	$(Q)for h in $$^; do \
		CCACHE_DISABLE=1 $(CC) -D_GNU_SOURCE -Icommon/lib -Ilabs/$(1) $$(PKG_CFLAGS) -fsyntax-only \
			-aux-info $$@.aux -x c $$$$h || exit 1; \
		grep -F "/* $$$$h:" $$@.aux | sed 's|^/\*[^*]*\*/ *||; s/ *(.*//; s/.*[ *]//'; \
	done | sort -u >$$@.tmp && rm -f $$@.aux && mv $$@.tmp $$@
# The test list, from the grader's code without the student's (the runner
# trusts no list a student object could have changed).  Linked by bfd,
# whatever LINKER is: bfd sets the student's missing functions to 0, gold
# leaves them to the loader, which refuses to start the program.
$(O)/grader/list/$$($(1)_ID): $(O)/obj/labs/$(1)/grade.o $$($(1)_OBJS) $(GRADE_OBJS)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$(CC) $$(ALL_LDFLAGS) -fuse-ld=bfd -no-pie -Wl,--unresolved-symbols=ignore-all -o $$@ \
		$$(filter %.o,$$^) -Wl,--start-group $$(filter %.a,$$^) -Wl,--end-group \
		$$(ALL_LDLIBS)
$(O)/grader/$$($(1)_ID): $(O)/obj/labs/$(1)/grade.o \
		$(O)/obj/labs/$(1)/$$($(1)_STUDENT:.c=.o) $$($(1)_OBJS) $(GRADE_OBJS) \
		| $$($(1)_NEEDS) $(GRADE_RUN)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$$(link)
$(O)/grader/$$($(1)_ID)-sol: $(O)/obj/labs/$(1)/grade.o \
		$(O)/obj/solutions/$(1)/$$($(1)_STUDENT:.c=.o) $$($(1)_OBJS) $(GRADE_OBJS) \
		| $$($(1)_NEEDS) $(GRADE_RUN)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$$(link)
# Wrong solutions (solutions/wrong/) and mutants (made by make mutants) are
# patches to the reference: the mistake is the diff.
$(call patched_rules,$(1),wrong,solutions/wrong/$(1))
$(call patched_rules,$(1),mutant,$(O)/mutants/$(1))
$(O)/grader/alt/$(1)/%: $(O)/obj/labs/$(1)/grade.o \
		$(O)/obj/solutions/alt/$(1)/%.o $$($(1)_OBJS) $(GRADE_OBJS) \
		| $$($(1)_NEEDS) $(GRADE_RUN)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$$(link)
$(O)/bin/$$($(1)_ID): $(O)/obj/labs/$(1)/main.o \
		$(O)/obj/labs/$(1)/$$($(1)_STUDENT:.c=.o) $$($(1)_OBJS) | $$($(1)_NEEDS)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$$(link)
$(O)/bin/$$($(1)_ID)-sol: $(O)/obj/labs/$(1)/main.o \
		$(O)/obj/solutions/$(1)/$$($(1)_STUDENT:.c=.o) $$($(1)_OBJS) | $$($(1)_NEEDS)
	$$(call msg,LD,$$@)
	$$(mkdir_target)
	$(Q)$$(link)
endef
$(foreach l,$(LABS),$(eval $(call lab_rules,$(l))))

ids = $(foreach l,$(1),$($(l)_ID))
GRADERS := $(patsubst %,$(O)/grader/%,$(call ids,$(LABS)))
SOL_GRADERS := $(patsubst %,%-sol,$(GRADERS))
PROGRAMS := $(patsubst %,$(O)/bin/%,$(call ids,$(LABS)))
SOL_PROGRAMS := $(patsubst %,%-sol,$(PROGRAMS))
WRONG_PATCHES := $(foreach l,$(LABS),$(wildcard solutions/wrong/$(l)/*.patch))
WRONG_GRADERS := $(patsubst solutions/wrong/%.patch,$(O)/grader/wrong/%,$(WRONG_PATCHES))
ALT_SRCS := $(foreach l,$(LABS),$(wildcard solutions/alt/$(l)/*.c))
ALT_GRADERS := $(patsubst solutions/alt/%.c,$(O)/grader/alt/%,$(ALT_SRCS))

SUFFIX := $(if $(filter 1,$(SOL)),-sol)
SEL_GRADERS := $(patsubst %,$(O)/grader/%$(SUFFIX),$(call ids,$(SELECTED)))
RERUN := make grade$(if $(filter 1,$(SOL)), SOL=1)$(if $(SAN), SAN=$(SAN))

.PHONY: all graders programs grade check clean help tools wrong-graders alt-graders
all: programs graders tools
# A student handout has no solutions/: build the references only where they are.
HAVE_SOLUTIONS := $(wildcard solutions)
ifeq ($(SOL)$(HAVE_SOLUTIONS),1)
$(error SOL=1 grades solutions/, and this copy has none (a student handout))
endif
programs: $(PROGRAMS) $(if $(HAVE_SOLUTIONS),$(SOL_PROGRAMS))
graders: $(GRADERS) $(if $(HAVE_SOLUTIONS),$(SOL_GRADERS))
wrong-graders: $(WRONG_GRADERS)

# make wrong-show W=ex01/base_once_yield (or W=ex01_round_robin/...): the
# wrong solution as a drop-in student file, to show a class.
W_PARTS := $(subst /, ,$(W))
W_LAB := $(or $(filter $(word 1,$(W_PARTS))_%,$(LABS)),$(word 1,$(W_PARTS)))
W_PATH := $(W_LAB)/$(word 2,$(W_PARTS))
.PHONY: wrong-show
wrong-show: $(if $(wildcard solutions/wrong/$(W_PATH).patch),$(O)/src/wrong/$(W_PATH).c)
	@test -n '$(W)' || { echo 'usage: make wrong-show W=<lab>/<mistake> (see solutions/wrong/)' >&2; exit 2; }
	@test -f 'solutions/wrong/$(W_PATH).patch' || { echo 'make wrong-show: no solutions/wrong/$(W_PATH).patch (see solutions/wrong/README.md)' >&2; \
		echo 'usage: make wrong-show W=<lab>/<mistake>' >&2; exit 2; }
	@echo '$(O)/src/wrong/$(W_PATH).c: copy it over the lab'"'"'s student file to try it'
alt-graders: $(ALT_GRADERS)

# grade: the runner (grade-run) grades each selected lab: it checks the
# student object (the seal), runs each test in its own contained exec of
# the grader, then prints the total.  Exit status with SOL=1 or STRICT=1: 0
# every graded test passed, 1 some did not.  For students (neither set)
# failing tests are the normal state of a lab in progress, so the exit
# status is 0 once grading ran.  Always: 2 bad arguments, 3 the harness
# itself failed, 4 graded but the output was cut (`| head`), 130 interrupted.
# make -jN grade grades N labs at once (the runner's --jobs): each lab's
# report still prints whole and in lab order, and the results are the same.
# Plain `make grade` stays one lab at a time (labs/README.md says why).
STRICT ?= $(SOL)
GRADE_DIR := $(O)/grade
SEL_PROGRAMS := $(patsubst %,$(O)/bin/%$(SUFFIX),$(call ids,$(SELECTED)))
SEL_LISTERS := $(patsubst %,$(O)/grader/list/%,$(call ids,$(SELECTED)))
SEL_APIS := $(patsubst %,$(O)/seal/%.api,$(SELECTED))
# The seal reads the plain build's object (a sanitizer adds constructors
# and calls of its own), built by a sub-make under SAN=.
student_obj = $(BUILD)/obj/$(if $(filter 1,$(SOL)),solutions,labs)/$(1)/$($(1)_STUDENT:.c=.o)
# Tests marked GRADE_TEST_TSAN also run from a ThreadSanitizer build.
# (One grep for every lab: make starts hundreds of times in make check.)
LABS_WITH_TSAN := $(patsubst labs/%/grade.c,%,$(shell grep -l GRADE_TEST_TSAN /dev/null \
	$(SELECTED:%=labs/%/grade.c) 2>/dev/null))
TSAN_LABS := $(if $(SAN),,$(LABS_WITH_TSAN))
tsan_grader = $(BUILD)/san-thread/grader/$($(1)_ID)$(SUFFIX)
lab_args = --lab $(1) --grader $(O)/grader/$($(1)_ID)$(SUFFIX) \
	--lister $(O)/grader/list/$($(1)_ID) --object $(call student_obj,$(1)) \
	--api $(O)/seal/$(1).api $(if $(filter $(1),$(TSAN_LABS)),--tsan $(call tsan_grader,$(1)))
# A grade run links its graders afresh: a binary replaced in build/ since
# the last build changes nothing.
ifneq ($(filter grade,$(MAKECMDGOALS)),)
$(SEL_GRADERS) $(SEL_LISTERS): FORCE
endif
.PHONY: FORCE
FORCE:
grade: $(SEL_GRADERS) $(SEL_LISTERS) $(SEL_APIS) $(SEL_PROGRAMS) $(GRADE_RUN)
	@$(if $(SAN),$(MAKE) -s --no-print-directory SAN= \
		$(foreach l,$(SELECTED),$(call student_obj,$(l))) >&2 || exit 3;) \
	$(if $(TSAN_LABS),$(MAKE) -s --no-print-directory SAN=thread \
		$(foreach l,$(TSAN_LABS),$(call tsan_grader,$(l))) >&2 || exit 3;) \
	jobs=$$(. $(WORKFLOW)/lib.sh && wf_jobs); status=0; \
	$(GRADE_RUN) grade --out $(GRADE_DIR) --rerun '$(RERUN)' --jobs $$jobs \
		--seal common/grade/seal.sh $(if $(LAB),,--fresh) \
		$(if $(T),--only '$(T)') $(if $(TEST),--test '$(TEST)') \
		$(foreach l,$(SELECTED),$(call lab_args,$(l))) || status=$$?; \
	if [ $$status = 1 ] && [ '$(STRICT)' != 1 ]; then status=0; fi; \
	exit $$status

clean:
	rm -rf build dist

help:
	@echo 'yieldlab targets:'
	@echo '  make                 build every program and grader (build/bin, build/grader)'
	@echo '  make grade           grade your labs (labs/); results in build/grade/'
	@echo '  make -j2 grade       ... two labs at once (each lab'"'"'s report still whole, in order)'
	@echo '       LAB=ex01        ... only one lab'
	@echo '       T=substring     ... only the tests whose name contains substring'
	@echo '       TEST=name       ... only the test with exactly that name'
	@echo '       SOL=1           ... grade the reference solutions instead'
	@echo '       SAN=address     ... under AddressSanitizer + UBSan (SAN=thread: TSan)'
	@echo '  make data            re-measure every experiment into data/*.csv (LAB=exNN: one lab)'
	@echo '       SRC=labs        ... measure your own code into data/mine/'
	@echo '  make plots           draw plots/*.png and .svg from data/ (never measures)'
	@echo '  make bench           measure the suite: yield cost, lag vs asyncio, hash, wake-up, grading speed'
	@echo '       QUICK=1         ... a smoke test (tiny runs, no grading)'
	@echo '  make status          which labs are done, partial, not started; the next one'
	@echo '  make hint LAB=exNN [LEVEL=n]   the longer hints of a lab, one level at a time'
	@echo '  make watch LAB=exNN  regrade a lab whenever its student file is saved'
	@echo '  make handout         dist/yieldlab-handout.tar.gz: what students get'
	@echo '  make grade-submission SUB=PATH   grade one student tree or tarball'
	@echo '  make [-jN] grade-all SUBS=DIR    grade every submission; roster.csv, grades.csv'
	@echo '       SUB_TIMEOUT=s   ... seconds per submission (default: the labs'"'"' limits added up + 60)'
	@echo '       LAB_TIMEOUT=s   ... seconds per lab, or ex01:90,ex03:120 (default: its tests'"'"' timeouts + 60)'
	@echo '       KEEP=best       ... the roster keeps each lab'"'"'s best result (default: latest)'
	@echo '  make autograder      dist/ zip for Gradescope (LAB=exNN: one lab; VISIBILITY=, the knobs above)'
	@echo '  make autograders     one zip per lab: dist/yieldlab-autograder-exNN.zip'
	@echo '  make check           the project test suite (what CI runs)'
	@echo '  make check-list      its jobs; make check-<job> runs one (common/tests/README.md)'
	@echo '  make docs            rewrite the tables the guides show from the tree'
	@echo '  make mutants         mutation score of every grader (LAB=exNN: some labs)'
	@echo '  make wrong-show W=<lab>/<mistake>   a wrong solution as a drop-in file'
	@echo '  make new-lab NAME=exNN_topic        a new lab from the template'
	@echo '  make labs-info       every lab'"'"'s metadata, one line each (LAB= narrows; common/CONTRIBUTING.md)'
	@echo '  make clean           remove build/ and dist/'
	@echo 'knobs: WERROR=0 (warnings in the suite'"'"'s code are not errors), V=1 (show commands),'
	@echo '       STUDENT_WERROR=1 (warnings in your student files are errors; default: shown only),'
	@echo '       CFLAGS=... (appended last), YIELDLAB_TIMEOUT_SCALE=2 (slower machine),'
	@echo '       BUILD=dir (another build tree), STRICT=1 (make grade fails on a failing test),'
	@echo '       CHART=name (make plots draws one chart), LINKER=bfd (default: gold where installed)'
	@echo 'labs: $(foreach l,$(LABS),$(call lab_id,$(l)))'

# Parts of common/ with targets of their own; they may use the lab variables.
include $(sort $(wildcard common/*/*.mk))

-include $(shell find $(O)/obj -name '*.d' 2>/dev/null)
