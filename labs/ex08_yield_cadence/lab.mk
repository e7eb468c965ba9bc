# ex08 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex08_yield_cadence
ex08_yield_cadence_STUDENT := cadence.c
ex08_yield_cadence_PROVIDED := cad_work.c
ex08_yield_cadence_NEEDS := $(O)/bin/saveserver
