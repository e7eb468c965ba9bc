# ex07 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex07_overlap
ex07_overlap_STUDENT := overlap.c
ex07_overlap_PROVIDED := ovl_work.c
ex07_overlap_NEEDS := $(O)/bin/saveserver
