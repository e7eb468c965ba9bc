# The save server: a program of its own (not part of libcommon.a), built
# from every common/saveserver/*.c and linked with libcommon.a.
SAVESERVER := $(O)/bin/saveserver
SAVESERVER_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(wildcard common/saveserver/*.c))

$(SAVESERVER): $(SAVESERVER_OBJS) $(COMMON_LIB)
	$(call msg,LD,$@)
	$(mkdir_target)
	$(Q)$(link)

tools: $(SAVESERVER)

# saveproc starts the server this build makes, and the grade runner names
# it to the sandbox: its path comes from here (absolute, so a grader, a
# test or a program finds it from any folder), into one small file
# (saveserver_path.c says why).  $YIELDLAB_SAVESERVER overrides it.
$(O)/obj/common/lib/saveserver_path.o: MODULE_CPPFLAGS := \
	-DSAVEPROC_SERVER_PATH='"$(abspath $(SAVESERVER))"'

# The client tests start the server: build it first.
$(patsubst %,$(O)/test/%,test_save test_save_faults test_save_hostile test_save_load \
	test_saveinspect): | $(SAVESERVER)
