# ex06 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex06_serial_saves
ex06_serial_saves_STUDENT := serial_saves.c
ex06_serial_saves_PROVIDED := ss_work.c
ex06_serial_saves_NEEDS := $(O)/bin/saveserver
