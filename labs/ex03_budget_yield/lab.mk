# ex03 — do not edit: the grader builds with a pristine copy of this file.
LABS += ex03_budget_yield
ex03_budget_yield_STUDENT := budget_map.c
ex03_budget_yield_PROVIDED := bmap_yield.c
