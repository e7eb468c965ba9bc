# make new-lab NAME=exNN_topic: a lab from common/newlab/template/.
.PHONY: new-lab
new-lab:
	@bash common/newlab/new_lab.sh $(NAME)
