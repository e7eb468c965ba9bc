# The save server: a program of its own (not part of libcommon.a), built
# from every common/saveserver/*.c and linked with libcommon.a.
SAVESERVER := $(O)/bin/saveserver
SAVESERVER_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(wildcard common/saveserver/*.c))

$(SAVESERVER): $(SAVESERVER_OBJS) $(COMMON_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(@D)
	$(Q)$(link)

tools: $(SAVESERVER)

# The client tests start the server: build it first.
$(patsubst %,$(O)/test/%,test_save test_save_faults test_save_hostile test_save_load): | $(SAVESERVER)
