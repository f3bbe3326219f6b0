/*
 * gateway_terms_test.c — the house consents only within its terms
 * (mcp/gateway/gateway_terms.c, issue 37: "The house's terms are the
 * house's"), on a real engine with the gateway in process (gw_env.h):
 *
 *   - with the types' default limits, a public session (no token) starts
 *     a chance game against the house within them, and is refused beyond
 *     any of them (start chips, rounds, the largest bet, the time to
 *     reveal) with a sentence naming the term, the value and the limit;
 *     nothing reaches the chain;
 *   - kdapp://types states the terms and the limits in effect;
 *   - the operator's limits (--house-limit) replace the defaults, for
 *     every type with that term or for one type, as a maximum or a range;
 *   - a session granted the house's key consents for it to anything (its
 *     own consent, not the house's for all comers);
 *   - limits the gateway cannot use are refused at open with a sentence.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "gw_env.h"

/* Grant 0 holds the house's key; session 1 is public. */
/* The owner holds the house's key; a stranger only its own (agent1): the
 * house consents for it within its terms, and the stranger for itself. */
static const char *const GRANTS[] = {"house,agent1", "agent1"};
enum { OWNER = 0, STRANGER = 1 };

static void as(int session) { E.s = E.sessions[session]; }

static void defaults(void) { gw_env_open(NULL, GRANTS, 2, "house"); }

TestSuite(gateway_terms, .fini = gw_env_close, .timeout = 120);

/* A start of `type` between agent1 and the house with `params` (JSON). */
static void start_args(char *out, size_t len, const char *type, const char *params)
{
    int house_first = strcmp(type, "blackjack") == 0; /* the dealer is seat 0 */
    snprintf(out, len, "{\"type\": \"%s\", \"participants\": [\"%s\", \"%s\"], \"params\": %s}", type,
             house_first ? "house" : "agent1", house_first ? "agent1" : "house", params);
}

static void refused(const char *type, const char *params, const char *term, const char *limit, const char *value)
{
    char args[512], says[128], asks[96];
    start_args(args, sizeof args, type, params);
    snprintf(says, sizeof says, "the house consents to %s only with %s from %s", type, term, limit);
    snprintf(asks, sizeof asks, "asks for %s %s", term, value);
    size_t before = E.blocks;
    GW_REFUSED("kdapp_start_episode", args, says, asks);
    cr_expect_eq(E.blocks, before, "%s %s: nothing reaches the chain", type, params);
}

static void taken(const char *type, const char *params)
{
    char args[512];
    start_args(args, sizeof args, type, params);
    cr_expect_neq(gw_start(args), 0, "%s %s is within the house's terms", type, params);
}

Test(gateway_terms, a_stranger_gets_only_the_default_terms, .init = defaults)
{
    as(STRANGER);
    taken("roulette", "{\"start_chips\": 10000, \"max_rounds\": 1000, \"reveal_timeout\": 300}");
    refused("roulette", "{\"start_chips\": 1000000}", "start_chips", "1 to 10000", "1000000");
    refused("roulette", "{\"start_chips\": 10001}", "start_chips", "1 to 10000", "10001");
    refused("roulette", "{\"max_rounds\": 5000}", "max_rounds", "1 to 1000", "5000");
    refused("roulette", "{\"reveal_timeout\": 299}", "reveal_timeout", "300 to 864000", "299");
    refused("slots", "{\"start_credits\": 50000}", "start_credits", "1 to 10000", "50000");
    refused("dice", "{\"max_rolls\": 1001}", "max_rolls", "1 to 1000", "1001");
    refused("blackjack", "{\"stack\": 10000, \"max_bet\": 5000}", "max_bet", "1 to 1000", "5000");
    refused("blackjack", "{\"stack\": 1000000}", "stack", "1 to 10000", "1000000");
    refused("blackjack", "{\"rounds\": 500}", "rounds", "1 to 100", "500");
    refused("blackjack", "{\"timeout\": 100}", "timeout", "300 to 86400000", "100");
    taken("blackjack", "{}");
    taken("dice", "{}");

    /* kdapp://types states them */
    json_t *r = gw_request("resources/read", json_pack("{s:s}", "uri", "kdapp://types"), 0);
    json_error_t jerr;
    json_t *doc = json_loads(
        json_string_value(json_object_get(json_array_get(json_object_get(r, "contents"), 0), "text")), 0, &jerr);
    cr_assert(doc, "kdapp://types is JSON: %s", jerr.text);
    size_t i;
    json_t *t;
    int seen = 0;
    json_array_foreach(json_object_get(doc, "types"), i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));
        json_t *terms = json_object_get(t, "house_terms");
        if (strcmp(name, "roulette") == 0) {
            json_t *first = json_array_get(terms, 0);
            cr_expect_str_eq(json_string_value(json_object_get(first, "name")), "start_chips");
            cr_expect_eq(json_integer_value(json_object_get(first, "max")), 10000);
            seen++;
        } else if (strcmp(name, "tictactoe") == 0) {
            cr_expect_null(terms, "no house, no terms");
        }
    }
    cr_expect_eq(seen, 1);
    json_decref(doc);
    json_decref(r);
}

Test(gateway_terms, the_house_key_granted_consents_for_itself, .init = defaults)
{
    as(OWNER);
    taken("roulette", "{\"start_chips\": 1000000}");
}

static void operator_limits(void)
{
    static const char *const limits[] = {"start_chips=20000", "roulette.max_rounds=1..50", "reveal_timeout=600..864000",
                                         "blackjack.max_bet=5000"};
    gw_env_open_limits(NULL, GRANTS, 2, "house", limits, 4);
}

Test(gateway_terms, the_operator_sets_the_limits, .init = operator_limits)
{
    as(STRANGER);
    taken("roulette", "{\"start_chips\": 20000, \"max_rounds\": 50, \"reveal_timeout\": 600}");
    refused("roulette", "{\"start_chips\": 20001}", "start_chips", "1 to 20000", "20001");
    refused("roulette", "{\"max_rounds\": 51}", "max_rounds", "1 to 50", "51");
    refused("roulette", "{\"max_rounds\": 50, \"reveal_timeout\": 500}", "reveal_timeout", "600 to 864000", "500");
    refused("roulette", "{}", "max_rounds", "1 to 50", "100"); /* the type's default is beyond the operator's limit */
    refused("dice", "{\"reveal_timeout\": 500}", "reveal_timeout", "600 to 864000", "500");
    refused("slots", "{\"max_rounds\": 1001}", "max_rounds", "1 to 1000", "1001"); /* roulette's limit only */
    taken("blackjack", "{\"stack\": 10000, \"max_bet\": 5000}");
}

/* Opens a second gateway on E's engine with `limits`; its error and `why`. */
static kd_err open_with(const char *house, const char *const *limits, size_t n, char *why, size_t why_len)
{
    kd_mcp_server *srv;
    kd_mcp_server_options so = {.name = "kdapp-test", .version = "0"};
    cr_assert_eq(kd_mcp_server_alloc(&so, &srv), KD_OK);
    kd_gateway_options go = {
        .engine = E.engine,
        .types = &E.types,
        .views_url = "inproc://kd-gw-terms-second",
        .keys_dir = E.keys,
        .house = house,
        .house_limits = limits,
        .n_house_limits = n,
    };
    kd_gateway *gw = NULL;
    kd_err err = kd_gateway_open(&go, srv, &gw, why, why_len);
    kd_gateway_close(gw);
    kd_mcp_server_free(srv);
    return err;
}

Test(gateway_terms, limits_it_cannot_use_are_refused_with_a_sentence, .init = defaults)
{
    static const struct {
        const char *spec, *house, *says;
    } cases[] = {
        {"start_chips", "house", "is not NAME=MAX or NAME=MIN..MAX"},
        {"start_chips=", "house", "is not NAME=MAX or NAME=MIN..MAX"},
        {"start_chips=ten", "house", "is not NAME=MAX or NAME=MIN..MAX"},
        {"start_chips=-1", "house", "is not NAME=MAX or NAME=MIN..MAX"},
        {"start_chips=99999999999", "house", "is not NAME=MAX or NAME=MIN..MAX"},
        {"=5", "house", "is not NAME=MAX or NAME=MIN..MAX"},
        {"start_chips=5..1", "house", "the least value 5 is above the largest 1"},
        {"chips=5", "house", "no type's house has a term of that name (the house's terms: dice: max_rolls"},
        {"dice.start_chips=5", "house", "that type's house has no such term"},
        {"start_chips=5", NULL, "needs a house (--house)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char why[800] = "";
        const char *spec[] = {cases[i].spec};
        kd_err err = open_with(cases[i].house, spec, 1, why, sizeof why);
        cr_expect_eq(err, KD_ERR_INVALID_ARG, "%s: %s (%s)", cases[i].spec, kd_err_code(err), why);
        cr_expect(strstr(why, cases[i].says) != NULL, "%s: \"%s\" should say \"%s\"", cases[i].spec, why,
                  cases[i].says);
    }
}
