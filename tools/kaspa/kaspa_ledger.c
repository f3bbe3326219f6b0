/*
 * kaspa_ledger.c — the writer's ledger of payments and the funding
 * wallet's budgets (kaspa_ledger.h): the counts, the budget check, the
 * file that keeps them across restarts, and their text for `kdapp stats`
 * and /metrics.
 */
#include "tools/kaspa/kaspa_ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/kaspa/kaspa_tx.h"

static const char *const REFUSE_NAMES[KD_KREFUSE_COUNT_] = {"no_grant", "no_payer", "budget_grant", "budget_hour",
                                                            "budget_total"};

const char *kd_krefuse_name(kd_krefuse r) { return r < KD_KREFUSE_COUNT_ ? REFUSE_NAMES[r] : "unknown"; }

void kd_kbudget_default(kd_kbudget *b)
{
    *b = (kd_kbudget){KD_KBUDGET_GRANT_DEFAULT, KD_KBUDGET_HOUR_DEFAULT, KD_KBUDGET_TOTAL_DEFAULT};
}

/* One part of a budget: a count of sompi or "none". */
static int parse_part(const char *s, size_t n, uint64_t *out)
{
    if (n == 4 && !strncmp(s, "none", 4)) {
        *out = KD_KBUDGET_NONE;
        return 0;
    }
    if (n == 0 || n > 19)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

int kd_kbudget_parse(const char *text, kd_kbudget *b)
{
    uint64_t v[3] = {b->per_grant, b->per_hour, b->total};
    const char *s = text;
    for (int i = 0; i < 3; i++) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        if (parse_part(s, n, &v[i]))
            return -1;
        if (!comma)
            break;
        if (i == 2)
            return -1; /* a fourth part */
        s = comma + 1;
    }
    *b = (kd_kbudget){v[0], v[1], v[2]};
    return 0;
}

/* ------------------------------------------------------------ counts */

uint64_t kd_kledger_hour(const kd_kledger *l, uint64_t now_ms)
{
    uint64_t now = now_ms / 60000, sum = 0;
    for (size_t i = 0; i < KD_KLEDGER_MINUTES; i++)
        if (l->minute_of[i] + KD_KLEDGER_MINUTES > now && l->minute_of[i] <= now)
            sum += l->minute[i];
    return sum;
}

static kd_kledger_grant *grant_of(kd_kledger *l, const char *grant, int add)
{
    for (size_t i = 0; i < l->n_grants; i++)
        if (!strcmp(l->grants[i].grant, grant))
            return &l->grants[i];
    if (!add)
        return NULL;
    if (l->n_grants == KD_KLEDGER_GRANTS)
        return &l->grants[KD_KLEDGER_GRANTS - 1];
    kd_kledger_grant *g = &l->grants[l->n_grants++];
    snprintf(g->grant, sizeof g->grant, "%s", grant);
    return g;
}

uint64_t kd_kledger_grant_spent(const kd_kledger *l, const char *grant)
{
    const kd_kledger_grant *g = grant_of((kd_kledger *)l, grant, 0);
    return g ? g->sompi : 0;
}

kd_err kd_kledger_check(const kd_kledger *l, const kd_kbudget *b, const char *grant, uint64_t fee, uint64_t now_ms,
                        kd_krefuse *reason, char *why, size_t why_len)
{
    struct {
        uint64_t limit, spent;
        kd_krefuse reason;
        const char *what;
    } const limits[] = {
        {b->per_grant, kd_kledger_grant_spent(l, grant), KD_KREFUSE_BUDGET_GRANT, "for one grant"},
        {b->per_hour, kd_kledger_hour(l, now_ms), KD_KREFUSE_BUDGET_HOUR, "in any hour"},
        {b->total, l->funding_sompi, KD_KREFUSE_BUDGET_TOTAL, "in total"},
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        if (limits[i].limit == KD_KBUDGET_NONE ||
            (limits[i].spent <= limits[i].limit && fee <= limits[i].limit - limits[i].spent))
            continue;
        *reason = limits[i].reason;
        char whose[KD_SPEND_GRANT_MAX + 40] = "";
        if (limits[i].reason == KD_KREFUSE_BUDGET_GRANT)
            snprintf(whose, sizeof whose, " (grant %s has had it pay %" PRIu64 ")", grant, limits[i].spent);
        else
            snprintf(whose, sizeof whose, " (it has paid %" PRIu64 ")", limits[i].spent);
        return kd_kaspa_why(KD_ERR_DENIED, why, why_len,
                            "its budget of %" PRIu64 " sompi %s (--funding-budget) does not cover this "
                            "transaction's fee of %" PRIu64 " sompi%s",
                            limits[i].limit, limits[i].what, fee, whose);
    }
    return KD_OK;
}

static kd_kledger_wallet *wallet_of(kd_kledger *l, const char *name, const char *address)
{
    for (size_t i = 0; i < l->n_wallets; i++)
        if (!strcmp(l->wallets[i].address, address))
            return &l->wallets[i];
    if (l->n_wallets == KD_KLEDGER_WALLETS)
        return &l->wallets[KD_KLEDGER_WALLETS - 1];
    kd_kledger_wallet *w = &l->wallets[l->n_wallets++];
    snprintf(w->name, sizeof w->name, "%s", name);
    snprintf(w->address, sizeof w->address, "%s", address);
    return w;
}

void kd_kledger_charge(kd_kledger *l, const char *name, const char *address, int funding, const char *grant,
                       uint64_t fee, uint64_t now_ms)
{
    kd_kledger_wallet *w = wallet_of(l, name, address);
    w->funding |= funding;
    w->sompi += fee;
    w->txs++;
    if (!funding)
        return;
    kd_kledger_grant *g = grant_of(l, grant, 1);
    g->sompi += fee;
    g->txs++;
    l->funding_sompi += fee;
    uint64_t minute = now_ms / 60000;
    size_t slot = (size_t)(minute % KD_KLEDGER_MINUTES);
    if (l->minute_of[slot] != minute) {
        l->minute_of[slot] = minute;
        l->minute[slot] = 0;
    }
    l->minute[slot] += fee;
}

/* ------------------------------------------------------------ the file */

static int get_u64(json_t *o, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_str(json_t *o, const char *key, char *out, size_t len)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || strlen(s) >= len)
        return -1;
    snprintf(out, len, "%s", s);
    return 0;
}

/* Fills `l` from the JSON of the file; the member that is wrong in `bad`. */
static int from_json(json_t *root, kd_kledger *l, const char **bad)
{
    json_t *a, *item, *refused = json_object_get(root, "refused");
    size_t i;
    *bad = "version";
    uint64_t version;
    if (get_u64(root, "version", &version) || version != 1)
        return -1;
    *bad = "funding_sompi or client_txs";
    if (get_u64(root, "funding_sompi", &l->funding_sompi) || get_u64(root, "client_txs", &l->client_txs))
        return -1;
    *bad = "wallets";
    if (!json_is_array(a = json_object_get(root, "wallets")) || json_array_size(a) > KD_KLEDGER_WALLETS)
        return -1;
    json_array_foreach(a, i, item)
    {
        kd_kledger_wallet *w = &l->wallets[i];
        if (get_str(item, "name", w->name, sizeof w->name) || get_str(item, "address", w->address, sizeof w->address) ||
            get_u64(item, "sompi", &w->sompi) || get_u64(item, "txs", &w->txs))
            return -1;
        w->funding = json_is_true(json_object_get(item, "funding"));
        l->n_wallets = i + 1;
    }
    *bad = "grants";
    if (!json_is_array(a = json_object_get(root, "grants")) || json_array_size(a) > KD_KLEDGER_GRANTS)
        return -1;
    json_array_foreach(a, i, item)
    {
        kd_kledger_grant *g = &l->grants[i];
        if (get_str(item, "grant", g->grant, sizeof g->grant) || get_u64(item, "sompi", &g->sompi) ||
            get_u64(item, "txs", &g->txs))
            return -1;
        l->n_grants = i + 1;
    }
    *bad = "minutes";
    if (!json_is_array(a = json_object_get(root, "minutes")))
        return -1;
    json_array_foreach(a, i, item)
    {
        uint64_t minute, sompi;
        if (get_u64(item, "minute", &minute) || get_u64(item, "sompi", &sompi))
            return -1;
        l->minute_of[minute % KD_KLEDGER_MINUTES] = minute;
        l->minute[minute % KD_KLEDGER_MINUTES] = sompi;
    }
    *bad = "refused";
    if (!json_is_object(refused))
        return -1;
    for (int r = 0; r < KD_KREFUSE_COUNT_; r++)
        if (json_object_get(refused, REFUSE_NAMES[r]) && get_u64(refused, REFUSE_NAMES[r], &l->refused[r]))
            return -1;
    return 0;
}

kd_err kd_kledger_load(const char *path, kd_kledger *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return kd_kaspa_why(KD_ERR_NOT_FOUND, why, why_len, "%s does not exist", path);
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len, "%s is not the writer's ledger: %s (line %d)", path, jerr.text,
                            jerr.line);
    const char *bad = "";
    int rc = json_is_object(root) ? from_json(root, out, &bad) : (bad = "the top level", -1);
    json_decref(root);
    if (rc) {
        memset(out, 0, sizeof *out);
        return kd_kaspa_why(KD_ERR_PARSE, why, why_len,
                            "%s is not the writer's ledger: %s is missing or wrong (stop kdapp up and remove the "
                            "file to start the counts and budgets from zero)",
                            path, bad);
    }
    return KD_OK;
}

kd_err kd_kledger_load_dir(const char *data_dir, kd_kledger *out, char *why, size_t why_len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", data_dir, KD_KLEDGER_FILE);
    return kd_kledger_load(path, out, why, why_len);
}

static json_t *to_json(const kd_kledger *l)
{
    json_t *wallets = json_array(), *grants = json_array(), *minutes = json_array(), *refused = json_object();
    for (size_t i = 0; i < l->n_wallets; i++) {
        const kd_kledger_wallet *w = &l->wallets[i];
        json_array_append_new(wallets,
                              json_pack("{s:s, s:s, s:b, s:I, s:I}", "name", w->name, "address", w->address, "funding",
                                        w->funding, "sompi", (json_int_t)w->sompi, "txs", (json_int_t)w->txs));
    }
    for (size_t i = 0; i < l->n_grants; i++)
        json_array_append_new(grants, json_pack("{s:s, s:I, s:I}", "grant", l->grants[i].grant, "sompi",
                                                (json_int_t)l->grants[i].sompi, "txs", (json_int_t)l->grants[i].txs));
    for (size_t i = 0; i < KD_KLEDGER_MINUTES; i++)
        if (l->minute[i])
            json_array_append_new(minutes, json_pack("{s:I, s:I}", "minute", (json_int_t)l->minute_of[i], "sompi",
                                                     (json_int_t)l->minute[i]));
    for (int r = 0; r < KD_KREFUSE_COUNT_; r++)
        json_object_set_new(refused, REFUSE_NAMES[r], json_integer((json_int_t)l->refused[r]));
    return json_pack("{s:i, s:I, s:I, s:o, s:o, s:o, s:o}", "version", 1, "funding_sompi", (json_int_t)l->funding_sompi,
                     "client_txs", (json_int_t)l->client_txs, "wallets", wallets, "grants", grants, "minutes", minutes,
                     "refused", refused);
}

kd_err kd_kledger_save(const char *path, const kd_kledger *l, char *why, size_t why_len)
{
    json_t *root = to_json(l);
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
    json_decref(root);
    if (!text)
        return kd_kaspa_why(KD_ERR_NOMEM, why, why_len, "out of memory writing %s", path);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp); /* mode 0600 */
    kd_err err = KD_OK;
    if (fd < 0) {
        err = kd_kaspa_why(KD_ERR_IO, why, why_len, "cannot write %s: %s", tmp, strerror(errno));
    } else {
        size_t len = strlen(text);
        ssize_t w = write(fd, text, len);
        int saved = errno;
        if (close(fd) != 0 && w == (ssize_t)len)
            saved = errno, w = -1;
        if (w != (ssize_t)len || rename(tmp, path) != 0) {
            err = kd_kaspa_why(KD_ERR_IO, why, why_len, "cannot write %s: %s", path,
                               strerror(w != (ssize_t)len ? saved : errno));
            unlink(tmp);
        }
    }
    free(text);
    return err;
}

/* ------------------------------------------------------------ text */

/* Drops the NUL a text that ends in one counts (kd_metrics_prometheus's),
 * so what follows is appended to the text. */
static void unterminate(kd_buf *out)
{
    if (out->len && out->data[out->len - 1] == '\0')
        out->len--;
}

kd_err kd_kledger_text(const kd_kledger *l, uint64_t now_ms, kd_buf *out)
{
    unterminate(out);
    kd_err err = KD_OK;
    for (size_t i = 0; !err && i < l->n_wallets; i++) {
        const kd_kledger_wallet *w = &l->wallets[i];
        err = kd_buf_appendf(out, "  wallet %-12s %" PRIu64 " sompi in %" PRIu64 " txs%s (%s)\n", w->name, w->sompi,
                             w->txs, w->funding ? ", the funding wallet" : "", w->address);
    }
    for (size_t i = 0; !err && i < l->n_grants; i++)
        err = kd_buf_appendf(out, "  funding for %-10s %" PRIu64 " sompi in %" PRIu64 " txs\n", l->grants[i].grant,
                             l->grants[i].sompi, l->grants[i].txs);
    if (!err && (l->funding_sompi || l->n_wallets))
        err = kd_buf_appendf(out, "  funding last hour     %" PRIu64 " sompi; in all %" PRIu64 " sompi\n",
                             kd_kledger_hour(l, now_ms), l->funding_sompi);
    if (!err && l->client_txs)
        err = kd_buf_appendf(out, "  client-paid txs       %" PRIu64 "\n", l->client_txs);
    int any = 0;
    for (int r = 0; !err && r < KD_KREFUSE_COUNT_; r++)
        if (l->refused[r]) {
            err = kd_buf_appendf(out, "%s%s=%" PRIu64, any ? " " : "  payments refused      ", REFUSE_NAMES[r],
                                 l->refused[r]);
            any = 1;
        }
    if (!err && any)
        err = kd_buf_appendf(out, "\n");
    return err ? err : kd_buf_append(out, "", 1);
}

/* A label value with `"`, `\` and newlines escaped (Prometheus text). */
static kd_err label(kd_buf *out, const char *s)
{
    kd_err err = KD_OK;
    for (; !err && *s; s++)
        err = *s == '"' || *s == '\\' ? kd_buf_appendf(out, "\\%c", *s)
              : *s == '\n'            ? kd_buf_appendf(out, "\\n")
                                      : kd_buf_appendf(out, "%c", *s);
    return err;
}

kd_err kd_kledger_prometheus(const kd_kledger *l, uint64_t now_ms, kd_buf *out)
{
    static const char *const metric[2] = {"kdapp_wallet_spent_sompi_total", "kdapp_wallet_transactions_total"};
    static const char *const help[2] = {"Fees a wallet of the writer paid, sompi.",
                                        "Transactions a wallet of the writer paid for."};
    unterminate(out);
    kd_err err = KD_OK;
    for (int m = 0; m < 2 && !err; m++) {
        err = kd_buf_appendf(out, "# HELP %s %s\n# TYPE %s counter\n", metric[m], help[m], metric[m]);
        for (size_t i = 0; !err && i < l->n_wallets; i++) {
            const kd_kledger_wallet *w = &l->wallets[i];
            if (!(err = kd_buf_appendf(out, "%s{wallet=\"", metric[m])) && !(err = label(out, w->name)))
                err = kd_buf_appendf(out, "\",address=\"%s\",funding=\"%s\"} %" PRIu64 "\n", w->address,
                                     w->funding ? "true" : "false", m ? w->txs : w->sompi);
        }
    }
    if (!err)
        err = kd_buf_appendf(out, "# HELP kdapp_funding_grant_spent_sompi_total Fees the funding wallet paid for a "
                                  "grant, sompi.\n# TYPE kdapp_funding_grant_spent_sompi_total counter\n");
    for (size_t i = 0; !err && i < l->n_grants; i++)
        if (!(err = kd_buf_appendf(out, "kdapp_funding_grant_spent_sompi_total{grant=\"")) &&
            !(err = label(out, l->grants[i].grant)))
            err = kd_buf_appendf(out, "\"} %" PRIu64 "\n", l->grants[i].sompi);
    if (!err)
        err = kd_buf_appendf(out,
                             "# HELP kdapp_funding_hour_spent_sompi Fees the funding wallet paid in the last 60 "
                             "minutes, sompi.\n# TYPE kdapp_funding_hour_spent_sompi gauge\n"
                             "kdapp_funding_hour_spent_sompi %" PRIu64 "\n"
                             "# HELP kdapp_client_paid_transactions_total Transactions clients built and paid for "
                             "themselves.\n# TYPE kdapp_client_paid_transactions_total counter\n"
                             "kdapp_client_paid_transactions_total %" PRIu64 "\n"
                             "# HELP kdapp_wallet_refusals_total Payments the writer refused, by reason.\n"
                             "# TYPE kdapp_wallet_refusals_total counter\n",
                             kd_kledger_hour(l, now_ms), l->client_txs);
    for (int r = 0; !err && r < KD_KREFUSE_COUNT_; r++)
        err = kd_buf_appendf(out, "kdapp_wallet_refusals_total{reason=\"%s\"} %" PRIu64 "\n", REFUSE_NAMES[r],
                             l->refused[r]);
    return err ? err : kd_buf_append(out, "", 1);
}
