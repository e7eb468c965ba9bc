# ex07 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex07_overlap
ex07_overlap_STUDENT := overlap.c
ex07_overlap_PROVIDED := ovl_work.c
ex07_overlap_NEEDS := $(O)/bin/saveserver
SAVELAB_WRAP := -Wl,--wrap=save_client_save -Wl,--wrap=hashwork_item_links
# The grader injects faults with real parts (common/grade/savelab.h): a save the
# client refuses and a hash that fails, by wrapping two calls at link time.
$(O)/grader/ex07 $(O)/grader/ex07-sol: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/wrong/ex07_overlap/%: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/alt/ex07_overlap/%: LDFLAGS += $(SAVELAB_WRAP)
$(O)/grader/mutant/ex07_overlap/%: LDFLAGS += $(SAVELAB_WRAP)
