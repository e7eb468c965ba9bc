# @ID@ — do not edit: the grader builds with a pristine copy of this file.
LABS += @LAB@
@LAB@_STUDENT := @TOPIC@.c
@LAB@_PROVIDED :=
