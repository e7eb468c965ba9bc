# make mutants [LAB=ex01,ex03]: mutation testing of the graders (see
# common/mutants/run.sh).  A run of every lab rewrites data/mutation_score.csv;
# a run of some labs writes $(BUILD)/mutants/score.csv.
.PHONY: mutants
mutants: graders
	@bash common/mutants/run.sh -c $(if $(LAB),$(O)/mutants/score.csv,data/mutation_score.csv) \
		$(call ids,$(SELECTED))
