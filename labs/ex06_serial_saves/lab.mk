# ex06 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex06_serial_saves
ex06_serial_saves_STUDENT := serial_saves.c
ex06_serial_saves_PROVIDED := ss_work.c
ex06_serial_saves_NEEDS := $(O)/bin/saveserver
SAVELAB_WRAP := -Wl,--wrap=save_client_save -Wl,--wrap=hashwork_item_links
# The grader injects faults with real parts (common/grade/savelab.h): a save the
# client refuses and a hash that fails, by wrapping two calls at link time.
$(O)/grader/ex06 $(O)/grader/ex06-sol: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/wrong/ex06_serial_saves/%: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/alt/ex06_serial_saves/%: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/mutant/ex06_serial_saves/%: LDFLAGS += $(SAVELAB_WRAP)
