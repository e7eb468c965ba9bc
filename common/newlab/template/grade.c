/* @ID@ — do not edit: the grader builds with a pristine copy of this file. */
/*
 * Grader for @LAB@: one test per promise of @TOPIC@.h.
 */
#include "@TOPIC@.h"

#include "grade.h"

static void counts_up_to_n(void **state)
{
	(void)state;
	for (int n = 0; n <= 1000; n += 37)
		GRADE_EXPECT_INT(@TOPIC@_count(n), n, "@TOPIC@_count(n) == n");
	GRADE_EXPECT_INT(@TOPIC@_count(1000), 1000, "@TOPIC@_count(1000) == 1000");
}

static void a_negative_n_is_refused(void **state)
{
	(void)state;
	GRADE_EXPECT_INT(@TOPIC@_count(-1), -1, "@TOPIC@_count(-1) == -1");
	GRADE_EXPECT_INT(@TOPIC@_count(-500), -1, "@TOPIC@_count(-500) == -1");
}

static const struct grade_test tests[] = {
	GRADE_TEST(counts_up_to_n, 60, 5000,
		   "count every value from 0 up to n, and return the last"),
	GRADE_TEST(a_negative_n_is_refused, 40, 5000,
		   "check n before counting: a negative n is an error (-1)"),
};

int main(int argc, char **argv)
{
	return grade_main(argc, argv, "@LAB@", "(the lab's title)", tests,
			  sizeof(tests) / sizeof(tests[0]));
}
