# make mutants [LAB=ex01,ex03]: mutation testing of the graders (see
# common/mutants/run.sh).  It rewrites the rows of the labs it grades in
# data/mutation_score.csv and keeps the other labs' rows.
.PHONY: mutants
mutants: graders
	@bash common/mutants/run.sh -c data/mutation_score.csv \
		$(call ids,$(SELECTED))
