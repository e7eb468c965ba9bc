# make check: the suite's own tests, as make targets (common/tests/README.md).
#
#   make check            every job, CHECK_JOBS at a time, then each job's
#                         lines in a fixed order and "N passed, N failed"
#   make check-<job>      one job (and the build it needs), with its count
#   make check-list       the jobs' names
#
# A job is `bash common/tests/job.sh <job>`; its lines go to
# $(CHECK_LOGS)/<job>.log.  A script common/tests/checks/<name>.sh is the
# job <name>, or the jobs <name>-<part> when it declares "# Parts: ..."
# (parts are independent and run side by side).

# Two jobs a core: with the scratch on a tmpfs and no sweep waiting on
# zombies, the run is CPU-bound at 4 on two cores (1.7% idle, 105-121 s)
# and left ~30 s of idle CPU at 3 (119-122 s), since some jobs mostly wait
# (ex04's deadlocked wrong solutions, the save server's slow peers).
CHECK_JOBS ?= $(or $(JOBS),$(shell echo $$((2 * $$(nproc 2>/dev/null || echo 1)))))
CHECK_DIR := $(BUILD)/check
CHECK_LOGS := $(CHECK_DIR)/logs
# Scratch of a run: common/tests/check.sh gives one under /tmp; a lone
# `make check-<job>` uses the build tree.
CHECK_TMP ?= $(abspath $(CHECK_DIR)/tmp)

# "script:part,part" for each script that has parts, read by one awk: make
# runs this file's shell commands each time it starts, hundreds of times in
# make check.
CHECK_PARTS := $(shell awk '/^# Parts: / { n = FILENAME; sub(/.*\//, "", n); \
	sub(/\.sh$$/, "", n); sub(/^# Parts: */, ""); gsub(/ +/, ","); print n ":" $$0 }' \
	common/tests/checks/*.sh)
check_comma := ,
check_parts = $(or $(addprefix $(1)-,$(subst $(check_comma), ,$(patsubst $(1):%,%,$(filter $(1):%,$(CHECK_PARTS))))),$(1))
CHECK_SCRIPTS := $(sort $(basename $(notdir $(wildcard common/tests/checks/*.sh))))
CHECK_SCRIPT_JOBS := $(foreach s,$(CHECK_SCRIPTS),$(call check_parts,$(s)))
CHECK_LAB_JOBS := $(foreach l,$(SELECTED),lab-$(call lab_id,$(l)))
# The slowest first, so that the run ends together (seconds on 2 cores
# are printed after each job's lines; unit-save is long in wall time, not
# in CPU), and the lab jobs before the quick ones, so that seal (which
# waits for all of them) is not left alone at the end.  The sanitizer jobs lead: they fill ccache with the ASan and TSan
# objects that the workflow parts build again in their copies (a make
# grade of the handout builds TSan graders, SAN=address an ASan one).
CHECK_SLOW := san-thread san-address workflow-student workflow-submissions lab-ex04 \
	unit-save hostile-runtime workflow-tools hostile-attacks1 hostile-attacks2 hostile-attacks3 \
	workflow-hostile workflow-gradescope workflow-handout hostile-grade-all clang saveserver
CHECK_ALL := $(CHECK_SCRIPT_JOBS) $(CHECK_LAB_JOBS) san-address san-thread unit-save unit harness seal
CHECK_FIRST := $(CHECK_SLOW) $(filter-out $(CHECK_SLOW),$(CHECK_LAB_JOBS))
CHECK_ALL := $(foreach j,$(CHECK_FIRST),$(filter $(j),$(CHECK_ALL))) \
	$(filter-out $(CHECK_FIRST),$(CHECK_ALL))

# ccache, where installed: the check builds the same files in many trees
# (the handout, a course copy, a Gradescope image, ...).  Its cache lives in
# the build tree; NOHASHDIR lets a copy of the suite elsewhere share it.
CCACHE_BIN := $(wildcard /usr/lib/ccache/cc)
# Depend mode: ccache hashes the headers the compiler's -MMD list names
# instead of running the preprocessor first, a third of the cost of a miss
# (126 -> 94 ms of CPU for a wrong solution's file), and make check misses
# about 480 times on a fresh clone.  -MMD leaves the system headers out, so
# the Debian versions of the compiler and the -dev packages go into the
# hash as a file of their own (remade when dpkg's database changes).
# Uncompressed: the cache holds ~10 MB, and zstd cost 4 ms of CPU a miss.
DPKG_STATUS := $(wildcard /var/lib/dpkg/status)
CCACHE_KEY := $(if $(DPKG_STATUS),$(abspath $(CHECK_DIR)/ccache-key.txt))
# Debian's python3, the one the dependency check installs, ahead of any
# other on PATH: a pyenv shim there starts a dozen processes a call (100 ms
# of CPU, against 12) and has no Debian module (aiohttp), and the jobs call
# python3 about 170 times.
SYSTEM_PYTHON := $(wildcard /usr/bin/python3)
CHECK_PYTHON := $(if $(SYSTEM_PYTHON),$(abspath $(CHECK_DIR)/python)/python3)
check_path = $(if $(CHECK_PYTHON),$(dir $(CHECK_PYTHON)):)$(if $(CCACHE_BIN),/usr/lib/ccache:)$$PATH
check_env = BUILD=$(BUILD) LAB=$(LAB) TMP=$(CHECK_TMP) JOBS=2 PATH=$(check_path) \
	$(if $(CCACHE_BIN),CCACHE_DIR=$(abspath $(CHECK_DIR)/ccache) \
		CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=1G CCACHE_DEPEND=true CCACHE_NOCOMPRESS=true \
		$(if $(CCACHE_KEY),CCACHE_EXTRAFILES=$(CCACHE_KEY)))
$(CHECK_PYTHON):
	@mkdir -p $(@D) && ln -sf $(SYSTEM_PYTHON) $@
$(CCACHE_KEY): $(DPKG_STATUS)
	@mkdir -p $(@D) && dpkg-query -W -f '$${Package} $${Version}\n' gcc clang libc6-dev \
		$$(bash common/packages.sh build) 2>/dev/null >$@ || true

.PHONY: check check-all check-list check-build
check: $(DEPS_OK)
	@CHECK_JOBS=$(CHECK_JOBS) BUILD=$(BUILD) LAB=$(LAB) bash common/tests/check.sh

# The whole run (common/tests/check.sh calls it after its preflight).
check-all: $(addprefix check-job-,$(CHECK_ALL))
	@bash common/tests/report.sh $(CHECK_LOGS) build $(CHECK_ALL)

check-list:
	@printf '%s\n' build $(CHECK_ALL)

check-build: | $(DEPS_OK) $(CHECK_PYTHON) $(CCACHE_KEY)
	@mkdir -p $(CHECK_LOGS) $(CHECK_TMP)
	@$(check_env) bash common/tests/job.sh build >$(CHECK_LOGS)/build.log 2>&1 || \
		{ cat $(CHECK_LOGS)/build.log; exit 1; }

# A line as each job ends (the whole report comes at the end).
# (common/tests/check.sh builds first and says CHECK_BUILT=1: the build's
# own report is then the one that did the work.)
check-job-%: $(if $(CHECK_BUILT),,check-build) | $(CHECK_PYTHON) $(CCACHE_KEY)
	@$(check_env) bash common/tests/job.sh $* >$(CHECK_LOGS)/$*.log 2>&1 </dev/null; \
	printf '  %-22s %3d passed, %d failed  (%s)\n' $* \
		"$$(grep -c '^PASS ' $(CHECK_LOGS)/$*.log)" "$$(grep -c '^FAIL ' $(CHECK_LOGS)/$*.log)" \
		"$$(sed -n 's/^-- //p' $(CHECK_LOGS)/$*.log | tail -1)"

# The seal job seals every wrong solution's object: each lab's job builds
# them.  (A job whose prerequisite is still running when make reaches it in
# the list is started only after the whole list: no other job waits for
# one, but seal, which comes last.)
check-job-seal: $(addprefix check-job-,$(CHECK_LAB_JOBS))

# The guides' commands must each have been run by another workflow part.
check-job-workflow-guides: $(addprefix check-job-,$(filter-out workflow-guides,$(filter workflow-%,$(CHECK_ALL))))

check-%: check-job-%
	@bash common/tests/report.sh $(CHECK_LOGS) $*
