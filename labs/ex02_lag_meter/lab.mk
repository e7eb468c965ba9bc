# ex02 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex02_lag_meter
ex02_lag_meter_STUDENT := lag_meter.c
ex02_lag_meter_PROVIDED :=
