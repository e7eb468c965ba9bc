# make data / make plots.  Experiments: labs/<lab>/experiments.txt; chart
# scripts: plots/<chart>.gp; committed results: data/*.csv, plots/*.png|svg.

SRC ?= $(if $(wildcard solutions),solutions,labs)
ifeq ($(SRC),labs)
DATA_DIR := data/mine
DATA_PROGS = $(patsubst %,$(O)/bin/%,$(call ids,$(SELECTED)))
DATA_SUFFIX :=
else ifeq ($(SRC),solutions)
DATA_DIR := data
DATA_PROGS = $(patsubst %,$(O)/bin/%-sol,$(call ids,$(SELECTED)))
DATA_SUFFIX := -sol
else
$(error SRC must be 'solutions' (the reference, default) or 'labs' (your code))
endif

.PHONY: data plots
data: $(DATA_PROGS) tools
	@bash common/charts/collect.sh $(O)/bin '$(DATA_SUFFIX)' $(DATA_DIR) $(SELECTED)

# Charts of the reference data go to plots/; of your data, to plots/mine/.
PLOTS_OUT := $(if $(filter labs,$(SRC)),plots/mine,plots)
plots:
	@bash common/deps.sh --plots
	@bash common/charts/render.sh $(if $(filter labs,$(SRC)),--beside data) $(DATA_DIR) $(PLOTS_OUT) $(CHART)
