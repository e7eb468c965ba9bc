# The instructor and student workflow: make handout, grade-submission,
# grade-all, autograder (instructors); make status, hint, watch (students).
# The scripts beside this file do the work; labs/README.md (students) and
# solutions/README.md (instructors) show how each is used.  The Makefile
# reads this file after labs/*/lab.mk.

WORKFLOW := common/workflow
DIST ?= dist
LEVEL ?= 1
SUB ?=
SUBS ?=
SUB_TIMEOUT ?=
LAB_TIMEOUT ?=
KEEP ?= latest
VISIBILITY ?= visible

# grade-note (writes a missing/uncompiled/timed-out lab's tests into its
# fragment) is the runner, grade-run, under another name: common/common.mk.

.PHONY: handout grade-submission grade-all autograder autograders status hint watch \
	labs-info

# The grading settings travel to the scripts in the environment.
GRADING_ENV = YIELDLAB_LAB_TIMEOUT='$(LAB_TIMEOUT)' YIELDLAB_STUDENT_WERROR='$(STUDENT_WERROR)' \
	YIELDLAB_WERROR='$(WERROR)' YIELDLAB_KEEP='$(KEEP)'

# Paths and words typed by the user reach the scripts through the
# environment, so no quoting in a recipe can break on them.
handout: export YIELDLAB_OUT := $(DIST)/yieldlab-handout.tar.gz
handout:
	@bash $(WORKFLOW)/handout.sh "$$YIELDLAB_OUT" '$(BUILD)/handout'

grade-submission: export YIELDLAB_SUB := $(SUB)
grade-submission: export YIELDLAB_LAB := $(LAB)
grade-submission: export YIELDLAB_LIMIT := $(SUB_TIMEOUT)
grade-submission:
	@$(GRADING_ENV) bash $(WORKFLOW)/submissions.sh one '$(O)/submissions'

grade-all: export YIELDLAB_SUBS := $(SUBS)
grade-all: export YIELDLAB_LAB := $(LAB)
grade-all: export YIELDLAB_LIMIT := $(SUB_TIMEOUT)
grade-all:
	@$(GRADING_ENV) bash $(WORKFLOW)/submissions.sh all '$(O)/submissions'

AUTOGRADER_ENV = YIELDLAB_LIMIT='$(SUB_TIMEOUT)' YIELDLAB_LAB_TIMEOUT='$(LAB_TIMEOUT)' \
	YIELDLAB_STUDENT_WERROR='$(STUDENT_WERROR)' YIELDLAB_VISIBILITY='$(VISIBILITY)' YIELDLAB_WERROR='$(WERROR)'
autograder: export YIELDLAB_OUT := $(DIST)/yieldlab-autograder.zip
autograder: export YIELDLAB_LAB := $(LAB)
autograder:
	@$(AUTOGRADER_ENV) bash $(WORKFLOW)/autograder.sh '$(BUILD)/autograder' "$$YIELDLAB_OUT"

# One zip per lab (LAB= narrows the set): dist/yieldlab-autograder-exNN.zip.
autograders:
	@$(AUTOGRADER_ENV) bash $(WORKFLOW)/autograder.sh '$(BUILD)/autograder' \
		$(foreach l,$(SELECTED),'$(DIST)/yieldlab-autograder-$($(l)_ID).zip=$($(l)_ID)')

status:
	@bash $(WORKFLOW)/status.sh '$(GRADE_DIR)' '$(O)/grader' \
		$(foreach l,$(LABS),$(l):$($(l)_STUDENT))

hint: export YIELDLAB_LAB := $(LAB)
hint: export YIELDLAB_LEVEL := $(LEVEL)
hint:
	@bash $(WORKFLOW)/hint.sh $(SELECTED)

watch: export YIELDLAB_LAB := $(LAB)
watch: export YIELDLAB_MAKE := $(MAKE)
watch:
	@bash $(WORKFLOW)/watch.sh $(foreach l,$(SELECTED),$(l):$($(l)_STUDENT))

# labs-info: every selected lab's metadata, the one place scripts read it
# from (never labs/*/lab.mk).  A header line, then one line per lab, columns
# separated by one space, '-' for an empty value, lists joined with ','
# (common/CONTRIBUTING.md documents the columns).
labs_info_space := $(subst x,,x) $(subst x,,x)
labs_info_value = $(or $(subst $(labs_info_space),$(comma),$(strip $(1))),-)
labs_info_tsan = $(if $(filter $(1),$(LABS_WITH_TSAN)),1,0)
labs_info_line = '$($(1)_ID)' '$(1)' '$($(1)_STUDENT)' '$(or $($(1)_THREADS),0)' \
	'$(call labs_info_tsan,$(1))' '$(call labs_info_value,$(notdir $($(1)_NEEDS)))' \
	'$(call labs_info_value,$($(1)_PROVIDED))'
labs-info:
	@printf '%s %s %s %s %s %s %s\n' id lab student threads tsan needs provided \
		$(foreach l,$(SELECTED),$(call labs_info_line,$(l)))

