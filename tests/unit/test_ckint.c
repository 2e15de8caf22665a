/*
 * test_ckint.c - int64 arithmetic that remembers overflow (util/ckint.h):
 * each operation at and one past the int64 limits, and an overflow in one
 * step carried through the later ones, including steps that would bring the
 * value back into range.
 */
#include "testutil.h"
#include "util/ckint.h"

#include <stddef.h>
#include <stdint.h>

static void assert_ck(fl_ck x, int64_t v) {
    assert_false(x.ovf);
    assert_int_equal(x.v, v);
}

static void test_limits(void **state) {
    (void)state;
    fl_ck max = fl_ck_of(INT64_MAX), min = fl_ck_of(INT64_MIN), one = fl_ck_of(1);
    assert_ck(fl_ck_add(fl_ck_of(INT64_MAX - 1), one), INT64_MAX);
    assert_true(fl_ck_add(max, one).ovf);
    assert_ck(fl_ck_sub(fl_ck_of(INT64_MIN + 1), one), INT64_MIN);
    assert_true(fl_ck_sub(min, one).ovf);
    assert_true(fl_ck_sub(fl_ck_of(0), min).ovf); /* -INT64_MIN */
    assert_ck(fl_ck_sub(fl_ck_of(-1), min), INT64_MAX);
    assert_ck(fl_ck_mul(fl_ck_of(INT64_MAX / 2), fl_ck_of(2)), INT64_MAX - 1);
    assert_true(fl_ck_mul(fl_ck_of(INT64_MAX / 2 + 1), fl_ck_of(2)).ovf);
    assert_true(fl_ck_mul(min, fl_ck_of(-1)).ovf);
    assert_ck(fl_ck_mul(min, one), INT64_MIN);
    assert_ck(fl_ck_mul(fl_ck_of((int64_t)1 << 31), fl_ck_of((int64_t)1 << 31)), (int64_t)1 << 62);
    assert_true(fl_ck_mul(fl_ck_of((int64_t)1 << 32), fl_ck_of((int64_t)1 << 31)).ovf);
}

/* An overflow is sticky: (INT64_MAX + 1) - 1 is not INT64_MAX, and no later
 * step (not even * 0) clears it. */
static void test_sticky(void **state) {
    (void)state;
    fl_ck over = fl_ck_add(fl_ck_of(INT64_MAX), fl_ck_of(1));
    assert_true(fl_ck_sub(over, fl_ck_of(1)).ovf);
    assert_true(fl_ck_add(fl_ck_of(1), fl_ck_sub(over, fl_ck_of(1))).ovf);
    assert_true(fl_ck_mul(over, fl_ck_of(0)).ovf);
    assert_true(fl_ck_mul(fl_ck_of(0), over).ovf);
    assert_ck(fl_ck_mul(fl_ck_of(0), fl_ck_of(INT64_MIN)), 0);
}

static void test_sum(void **state) {
    (void)state;
    assert_ck(fl_ck_sum(NULL, 0), 0);
    assert_ck(fl_ck_sum((int64_t[]){5, -7, 9}, 3), 7);
    /* the running sum passes INT64_MAX, though the total would not */
    assert_true(fl_ck_sum((int64_t[]){INT64_MAX, 1, -1}, 3).ovf);
    assert_ck(fl_ck_sum((int64_t[]){INT64_MAX, -1, 1}, 3), INT64_MAX);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_sticky),
        cmocka_unit_test(test_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
