# ex08 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex08_yield_cadence
ex08_yield_cadence_STUDENT := cadence.c
ex08_yield_cadence_PROVIDED := cad_work.c
ex08_yield_cadence_NEEDS := $(O)/bin/saveserver
SAVELAB_WRAP := -Wl,--wrap=save_client_save -Wl,--wrap=hashwork_item_links
# The grader injects faults with real parts (common/grade/savelab.h): a save the
# client refuses and a hash that fails, by wrapping two calls at link time.
$(O)/grader/ex08 $(O)/grader/ex08-sol: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/wrong/ex08_yield_cadence/%: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/alt/ex08_yield_cadence/%: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/mutant/ex08_yield_cadence/%: LDFLAGS += $(SAVELAB_WRAP)
