/* type_support.c — the type tests' shared checks (type_support.h). */
#include "type_support.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

json_t *type_test_parse(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);
    cr_assert_not_null(j, "test JSON does not parse: %s: %s", text, jerr.text);
    return j;
}

void type_test_expect_json(const json_t *got, const char *want)
{
    cr_assert_not_null(got);
    json_t *w = type_test_parse(want);
    char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
    cr_expect(json_equal(got, w), "JSON differs:\n got  %s\n want %s", g, want);
    free(g);
    json_decref(w);
}

void type_test_view(const kd_episode_type *type, const void *state, int seat, kd_buf *out)
{
    out->len = 0;
    cr_assert_eq(type->view_encode(state, seat, out), KD_OK);
}

int type_test_is_rule_code(const kd_episode_type *type, const char *code)
{
    for (size_t i = 0; type->rule_codes[i].code; i++)
        if (strcmp(type->rule_codes[i].code, code) == 0)
            return 1;
    return 0;
}
