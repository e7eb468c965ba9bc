# ex04 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex04_offload
ex04_offload_STUDENT := offload.c
ex04_offload_PROVIDED := hashjob.c
ex04_offload_THREADS := 1
