/*
 * test_pass_util.c - what the pass files share (src/passes/util.c):
 *  - the op types the passes match by name (FL_PASS_OPS) are exactly the
 *    ones the registry does not know: each is absent from ops.def, so that
 *    one added to the registry fails here until its matches move to its
 *    FL_OP_ kind; names distinct; fl__is_pass_op / fl__pass_op_in compare
 *    the op type exactly;
 *  - fl__is_add is Grappler's IsAdd: AddV2 of any T, Add of any T but
 *    string, nothing else;
 *  - fl__is_const: a live Const only (not a removed one, not NULL);
 *  - fl__same_device: an unplaced node ("" or no string) matches only an
 *    unplaced one, device strings compare verbatim;
 *  - fl__shape_same: false on an unknown rank or an unknown dim on either
 *    side, true for equal known and symbolic dims;
 *  - fl__value_all_equal holds for an empty value (constant folding's
 *    IsOnes/IsZeros), fl__kind_in and the attr readers' defaults;
 *  - fl__has_tpu_attr is strstr(name, "_tpu_") over the attr names: every
 *    string of up to 7 characters over {'_', 't', 'p', 'u', 'x'}, alone and
 *    after another name, and names from TensorFlow's TPU rewrite;
 *  - a ledger note's detail is the text printf writes for its format, cut
 *    to 511 bytes, whether the format has only %s conversions (joined
 *    without printf) or others, and so is a note given as parts;
 *  - the kind table answers, without asking a test, for a node named as
 *    the registry names its kind and for one of a "DOMAIN::TYPE" kind named
 *    TYPE (as the ONNX importer names its nodes), each with the tests such
 *    a node passes; any other name is asked of the tests one by one.
 */
#include "passes/pipeline.h"
#include "passes/util.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pass_ops[] = {
#define NAME(e, name) name,
    FL_PASS_OPS(NAME)
#undef NAME
};
#define N_PASS_OPS (sizeof pass_ops / sizeof pass_ops[0])

static void pass_ops_are_unregistered(void **state) {
    (void)state;
    assert_int_equal(N_PASS_OPS, FL_POP_COUNT);
    for (size_t i = 0; i < N_PASS_OPS; i++) {
        if (fl__op_lookup(pass_ops[i]) != FL_OP_UNKNOWN) {
            fail_msg("%s is registered now: match it on its FL_OP_ kind", pass_ops[i]);
        }
        assert_string_equal(fl__pass_op_name((int)i), pass_ops[i]);
        for (size_t j = 0; j < i; j++) {
            assert_true(strcmp(pass_ops[i], pass_ops[j]) != 0);
        }
    }
    assert_string_equal(fl__pass_op_name(FL_POP_COUNT), "?");
    assert_string_equal(fl__pass_op_name(-1), "?");
}

static void pass_op_matches_exactly(void **state) {
    (void)state;
    fl_node n = {0};
    n.op = "Bitcast";
    assert_true(fl__is_pass_op(&n, FL_POP_BITCAST));
    assert_false(fl__is_pass_op(&n, FL_POP_UNIQUE));
    n.op = "BitcastX";
    assert_false(fl__is_pass_op(&n, FL_POP_BITCAST));
    n.op = "bitcast";
    assert_false(fl__is_pass_op(&n, FL_POP_BITCAST));
    n.op = "UniqueV2";
    const fl_pass_op uniq[] = {FL_POP_UNIQUE, FL_POP_UNIQUE_V2};
    assert_true(fl__pass_op_in(&n, uniq, 2));
    assert_false(fl__pass_op_in(&n, uniq, 1));
    const fl_op_kind kinds[] = {FL_OP_MUL, FL_OP_ADD_V2};
    assert_true(fl__kind_in(FL_OP_ADD_V2, kinds, 2));
    assert_false(fl__kind_in(FL_OP_ADD, kinds, 2));
    assert_false(fl__kind_in(FL_OP_UNKNOWN, kinds, 2));
}

/* A node of `kind` whose T attr is `t` (none when t < 0). */
static fl_node typed_node(int kind, fl_attr *attr, int t) {
    fl_node n = {0};
    n.kind = kind;
    n.op = fl__op_name(kind);
    if (t >= 0) {
        memset(attr, 0, sizeof *attr);
        attr->name = "T";
        attr->kind = FL_ATTR_TYPE;
        attr->v.type = t;
        n.attrs = attr;
        n.n_attrs = 1;
    }
    return n;
}

static void is_add_is_grapplers(void **state) {
    (void)state;
    fl_attr a;
    fl_node n = typed_node(FL_OP_ADD_V2, &a, FL_DT_FLOAT);
    assert_true(fl__is_add(&n));
    n = typed_node(FL_OP_ADD, &a, FL_DT_FLOAT);
    assert_true(fl__is_add(&n));
    n = typed_node(FL_OP_ADD, &a, FL_DT_INT32);
    assert_true(fl__is_add(&n));
    n = typed_node(FL_OP_ADD, &a, -1); /* no T: not known to be a string */
    assert_true(fl__is_add(&n));
    n = typed_node(FL_OP_ADD, &a, FL_DT_STRING);
    assert_false(fl__is_add(&n));
    n = typed_node(FL_OP_ADD_N, &a, FL_DT_FLOAT);
    assert_false(fl__is_add(&n));
    n = typed_node(FL_OP_MUL, &a, FL_DT_FLOAT);
    assert_false(fl__is_add(&n));
    assert_int_equal(fl__attr_type(&n, "T"), FL_DT_FLOAT);
    assert_int_equal(fl__attr_type(&n, "U"), FL_DT_INVALID);
    assert_int_equal(fl__attr_int(&n, "T", 7), 7); /* wrong kind: the default */
    assert_true(fl__attr_bool(&n, "T", true));
    assert_string_equal(fl__attr_str(&n, "data_format", "NHWC"), "NHWC");
}

static void is_const_live_only(void **state) {
    (void)state;
    fl_attr a;
    fl_node n = typed_node(FL_OP_CONST, &a, -1);
    assert_true(fl__is_const(&n));
    n.flags |= FL_NODE_REMOVED;
    assert_false(fl__is_const(&n));
    assert_false(fl__is_const(NULL));
    n = typed_node(FL_OP_IDENTITY, &a, -1);
    assert_false(fl__is_const(&n));
}

static void same_device_verbatim(void **state) {
    (void)state;
    fl_node a = {0}, b = {0};
    assert_true(fl__same_device(&a, &b));
    b.device = "";
    assert_true(fl__same_device(&a, &b));
    assert_string_equal(fl__dev_of(&a), "");
    b.device = "/device:CPU:0";
    assert_false(fl__same_device(&a, &b));
    a.device = "/device:CPU:0";
    assert_true(fl__same_device(&a, &b));
    a.device = "/cpu:0";
    assert_false(fl__same_device(&a, &b));
}

static void shape_same_needs_known_dims(void **state) {
    (void)state;
    fl_sym d1[2] = {fl_sym_const(2), fl_sym_const(3)};
    fl_sym d2[2] = {fl_sym_const(2), fl_sym_const(3)};
    fl_sym du[2] = {fl_sym_const(2), fl_sym_unknown()};
    fl_shape a = {2, d1}, b = {2, d2}, u = {2, du}, r = {-1, NULL}, s1 = {1, d1};
    assert_true(fl__shape_same(&a, &b));
    assert_false(fl__shape_same(&a, &u));
    assert_false(fl__shape_same(&u, &a));
    assert_false(fl__shape_same(&u, &u));
    assert_false(fl__shape_same(&r, &r));
    assert_false(fl__shape_same(&a, &s1));
}

static void value_all_equal_vacuous_on_empty(void **state) {
    (void)state;
    fl_arena ar;
    fl__arena_init(&ar, 1 << 20);
    int64_t zero = 0, three = 3;
    fl_value *e = fl__value_new(&ar, FL_DT_FLOAT, 1, &zero);
    fl_value *v = fl__value_new(&ar, FL_DT_FLOAT, 1, &three);
    assert_non_null(e);
    assert_non_null(v);
    assert_true(fl__value_all_equal(e, 1.0));
    for (int64_t i = 0; i < 3; i++) {
        fl__value_set_f64(v, i, 1.0);
    }
    assert_true(fl__value_all_equal(v, 1.0));
    assert_false(fl__value_all_equal(v, 0.0));
    fl__value_set_f64(v, 2, 0.5);
    assert_false(fl__value_all_equal(v, 1.0));
    fl__arena_free(&ar);
}

/* Every name of up to 7 characters over an alphabet that spells "_tpu_"
 * and near misses ("_tp_", "_tpux", "__tpu", a name cut short), alone and
 * after a name without it: the helper agrees with strstr on each. */
static void tpu_attr_is_strstr(void **state) {
    (void)state;
    static const char alpha[] = "_tpux";
    fl_attr attrs[2] = {{0}};
    attrs[0].name = "data_format";
    fl_node n = {0};
    n.attrs = attrs;
    char name[8];
    size_t tried = 0, found = 0;
    for (int len = 0; len <= 7; len++) {
        long total = 1;
        for (int i = 0; i < len; i++) {
            total *= 5;
        }
        for (long code = 0; code < total; code++) {
            long c = code;
            for (int i = 0; i < len; i++, c /= 5) {
                name[i] = alpha[c % 5];
            }
            name[len] = '\0';
            bool want = strstr(name, "_tpu_") != NULL;
            attrs[1].name = name;
            n.attrs = &attrs[1];
            n.n_attrs = 1;
            assert_int_equal(fl__has_tpu_attr(&n), want);
            n.attrs = attrs;
            n.n_attrs = 2;
            assert_int_equal(fl__has_tpu_attr(&n), want);
            tried++;
            found += want;
        }
    }
    assert_true(tried > 90000 && found > 0);
    static const char *const names[] = {"_tpu_replicate", "x_tpu_",          "_tpu", "tpu_",
                                        "_TPU_",          "_xla_compile_id", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        attrs[1].name = names[i];
        assert_int_equal(fl__has_tpu_attr(&n), i < 2);
    }
    n.n_attrs = 0;
    assert_false(fl__has_tpu_attr(&n));
}

/* The ledger's detail against snprintf's text for the same format. */
static void ledger_notes_as_snprintf(void **state) {
    (void)state;
    fl_arena ar;
    fl__arena_init(&ar, 0);
    fl_ledger led;
    fl__ledger_init(&led, &ar);
    fl_pass_ctx pc = {NULL, NULL, &led, "pass", 0, 0, 0};
    char name[700], want[512];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    fl__ledger_note(&pc, "r", NULL, "%s not needed by any output: removed", "Relu");
    fl__ledger_note(&pc, "r", NULL, "control input '%s' dropped", name); /* cut */
    fl__ledger_note(&pc, "r", NULL, "%s%s|%s", "", "ab", "c");
    fl__ledger_note(&pc, "r", NULL, "no conversion");
    fl__ledger_note(&pc, "r", NULL, "%s -> %d Consts", "Split", 3);
    fl__ledger_note(&pc, "r", NULL, "100%% of '%s'", "x");
    fl__ledger_note(&pc, "r", NULL, "%s", name + 200);               /* 499 bytes: whole */
    fl__ledger_note(&pc, "r", NULL, "%s%s", name + 300, name + 300); /* 798: cut */
    assert_int_equal(led.n_entries, 8);
    snprintf(want, sizeof want, "%s not needed by any output: removed", "Relu");
    assert_string_equal(fl__ledger_entry(&led, 0)->detail, want);
    assert_string_equal(fl__ledger_entry(&led, 0)->detail,
                        "Relu not needed by any output: removed");
    /* what snprintf keeps of the 712 bytes: the first 511 */
    memcpy(want, "control input '", 15);
    memset(want + 15, 'n', 511 - 15);
    want[511] = '\0';
    assert_string_equal(fl__ledger_entry(&led, 1)->detail, want);
    assert_string_equal(fl__ledger_entry(&led, 2)->detail, "ab|c");
    assert_string_equal(fl__ledger_entry(&led, 3)->detail, "no conversion");
    assert_string_equal(fl__ledger_entry(&led, 4)->detail, "Split -> 3 Consts");
    assert_string_equal(fl__ledger_entry(&led, 5)->detail, "100% of 'x'");
    assert_string_equal(fl__ledger_entry(&led, 6)->detail, name + 200);
    memset(want, 'n', 511);
    assert_string_equal(fl__ledger_entry(&led, 7)->detail, want);
    /* Parts joined as "%s" x 10 would print them (NULL as "(null)"); then
     * 1 + 399 + 6 bytes and the second 399-byte name cut to the 105 left
     * of 511, the last part dropped. */
    const char *parts[10] = {"a", NULL, "b", "c", "d", "e", "f", "g", "h", "i"};
    fl__ledger_note_parts(&pc, "r", NULL, parts, 10);
    const char *cut[10] = {"x", name + 300, "y", "z", "w", "v", "u", "t", name + 300, "s"};
    fl__ledger_note_parts(&pc, "r", NULL, cut, 10);
    assert_int_equal(led.n_entries, 10);
    assert_string_equal(fl__ledger_entry(&led, 8)->detail, "a(null)bcdefghi");
    want[0] = 'x';
    memset(want + 1, 'n', 399);
    memcpy(want + 400, "yzwvut", 6);
    memset(want + 406, 'n', 105);
    want[511] = '\0';
    assert_string_equal(fl__ledger_entry(&led, 9)->detail, want);
    fl__arena_free(&ar);
}

/* Kind tests for the table: each counts how often it is asked. */
static int asked;

static bool t_onnx_add(const fl_node *n) {
    asked++;
    return n->kind == FL_OP_ONNX_ADD;
}

static bool t_named_add(const fl_node *n) {
    asked++;
    return strcmp(n->op, "Add") == 0;
}

static bool t_named_onnx_add(const fl_node *n) {
    asked++;
    return strcmp(n->op, "onnx::Add") == 0;
}

static bool t_add_v2(const fl_node *n) {
    asked++;
    return n->kind == FL_OP_ADD_V2;
}

static void kind_table_by_type_name(void **state) {
    (void)state;
    static fl_kind_table t;
    const fl_kinds_fn tests[] = {t_onnx_add, t_named_add, t_named_onnx_add, t_add_v2};
    fl__kind_table_build(&t, tests, 4);
    /* names in arrays of their own: equal text, never the registry's pointer */
    char add[] = "Add", onnx_add[] = "onnx::Add", plus[] = "Plus", add_v2[] = "AddV2";
    fl_node n = {0};
    n.kind = FL_OP_ONNX_ADD;
    n.op = add; /* as the ONNX importer names it */
    asked = 0;
    assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), 0x3);
    assert_int_equal(asked, 8); /* the kind's entry, filled at its first lookup: both names */
    asked = 0;
    assert_int_equal(fl__kind_table_rules(&t, &n, 1, 3), 0x2);
    assert_int_equal(asked, 0);
    n.op = onnx_add; /* as the registry names it */
    assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), 0x5);
    assert_int_equal(asked, 0);
    n.op = plus; /* neither: every test asked */
    assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), 0x1);
    assert_int_equal(asked, 4);
    n.kind = FL_OP_ADD_V2;
    n.op = add_v2;
    asked = 0;
    assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), 0x8);
    assert_int_equal(asked, 4); /* filled: one name */
    asked = 0;
    n.op = add; /* a TensorFlow kind has no type name */
    assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), 0xa);
    assert_int_equal(asked, 4);
    /* every kind, named as its domain's importer names it: what the tests say */
    for (int k = FL_OP_UNKNOWN + 1; k < FL_OP_COUNT; k++) {
        const char *sep = strstr(fl__op_name(k), "::");
        if (!sep) {
            continue;
        }
        char type[128];
        snprintf(type, sizeof type, "%s", sep + 2);
        n.kind = k;
        n.op = type;
        uint32_t want = fl__kind_tests_ask(&t, &n, 0, 4);
        assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), want); /* filled here */
        asked = 0;
        assert_int_equal(fl__kind_table_rules(&t, &n, 0, 4), want);
        assert_int_equal(asked, 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pass_ops_are_unregistered),
        cmocka_unit_test(pass_op_matches_exactly),
        cmocka_unit_test(is_add_is_grapplers),
        cmocka_unit_test(is_const_live_only),
        cmocka_unit_test(same_device_verbatim),
        cmocka_unit_test(shape_same_needs_known_dims),
        cmocka_unit_test(value_all_equal_vacuous_on_empty),
        cmocka_unit_test(tpu_attr_is_strstr),
        cmocka_unit_test(ledger_notes_as_snprintf),
        cmocka_unit_test(kind_table_by_type_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
