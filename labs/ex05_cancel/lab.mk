# ex05 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex05_cancel
ex05_cancel_STUDENT := cancel.c
ex05_cancel_PROVIDED := table.c job.c
ex05_cancel_THREADS := 1
