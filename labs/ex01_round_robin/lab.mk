# ex01 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex01_round_robin
ex01_round_robin_STUDENT := round_robin.c
ex01_round_robin_PROVIDED :=
