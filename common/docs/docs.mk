# make docs: rewrite the tables the guides show from the tree (see
# common/docs/tables.py); make check fails while one is out of date.
.PHONY: docs
docs:
	@python3 common/docs/tables.py --write
