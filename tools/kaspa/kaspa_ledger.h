/*
 * kaspa_ledger.h — what the writer's wallets paid, and the funding
 * wallet's budgets (kaspa_writer.h "Who pays").
 *
 * The ledger counts, for each wallet that paid a transaction (a key of
 * the key directory, the funding wallet), the sompi of fees it paid and
 * its transactions; for the funding wallet also per grant (the grant a
 * gateway session or duty named, "(owner)" for `kdapp submit`) and per
 * wall-clock minute of the last hour; and the payments it refused, by
 * reason. The funding wallet pays only within three budgets
 * (`--funding-budget GRANT,HOUR,TOTAL`, sompi):
 *
 *   per grant   what one grant may have it pay, in all
 *   per hour    what it pays in any 60 minutes, every grant together
 *   in total    what it pays in all
 *
 * A fee is charged when the node took the transaction (a transaction the
 * node refused cost nothing; one it took and later dropped stays charged:
 * the budget errs on the side of the wallet).
 *
 * `kdapp up --rpc` keeps it in DATA/spend.json (KD_KLEDGER_FILE), saved
 * after each payment (written whole under a temporary name, then renamed;
 * owner-only), so the budgets hold across restarts and `kdapp stats` and
 * the gateway's /metrics read it without talking to the writer. Deleting
 * the file (with `kdapp up` stopped) starts every count from zero.
 *
 * Plain data, no locking: the writer holds it under its own mutex.
 */
#ifndef KD_TOOLS_KASPA_LEDGER_H
#define KD_TOOLS_KASPA_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include "engine/bytes.h"
#include "engine/err.h"
#include "tools/chain/spend.h"
#include "tools/kaspa/kaspa_addr.h"

#define KD_KLEDGER_FILE "spend.json"

/* The funding wallet's budgets, sompi; KD_KBUDGET_NONE: no limit. */
typedef struct {
    uint64_t per_grant, per_hour, total;
} kd_kbudget;

#define KD_KBUDGET_NONE UINT64_MAX
#define KD_KBUDGET_GRANT_DEFAULT 100000000ull  /* 1 KAS */
#define KD_KBUDGET_HOUR_DEFAULT 200000000ull   /* 2 KAS */
#define KD_KBUDGET_TOTAL_DEFAULT 1000000000ull /* 10 KAS */

/* The defaults above. */
void kd_kbudget_default(kd_kbudget *b);
/* Parses "GRANT[,HOUR[,TOTAL]]": each a count of sompi or "none"; a part
 * left out keeps its value in *b. Returns 0, or -1 when the text is not
 * that (nothing changed). */
int kd_kbudget_parse(const char *text, kd_kbudget *b);

/* Why a payment was refused (stable names: kd_krefuse_name). */
typedef enum {
    KD_KREFUSE_NO_GRANT = 0, /* a session without a grant asked for coins */
    KD_KREFUSE_NO_PAYER,     /* no key of the request pays and there is no funding wallet */
    KD_KREFUSE_BUDGET_GRANT, /* the funding wallet's budget per grant */
    KD_KREFUSE_BUDGET_HOUR,  /* its budget per hour */
    KD_KREFUSE_BUDGET_TOTAL, /* its budget in total */
    KD_KREFUSE_COUNT_
} kd_krefuse;

const char *kd_krefuse_name(kd_krefuse r);

#define KD_KLEDGER_WALLETS 32
#define KD_KLEDGER_GRANTS 64
#define KD_KLEDGER_MINUTES 60
#define KD_KLEDGER_NAME_MAX 96

typedef struct {
    char name[KD_KLEDGER_NAME_MAX];  /* the key's name or reference: "agent1", "test:funder" */
    char address[KD_KADDR_TEXT_MAX]; /* its Kaspa address */
    int funding;                     /* the funding wallet */
    uint64_t sompi, txs;
} kd_kledger_wallet;

typedef struct {
    char grant[KD_SPEND_GRANT_MAX];
    uint64_t sompi, txs;
} kd_kledger_grant;

typedef struct {
    kd_kledger_wallet wallets[KD_KLEDGER_WALLETS]; /* past the last: counted in the last */
    size_t n_wallets;
    kd_kledger_grant grants[KD_KLEDGER_GRANTS]; /* the funding wallet's, by grant; past the last: in the last */
    size_t n_grants;
    uint64_t funding_sompi;                 /* the funding wallet, every grant */
    uint64_t minute[KD_KLEDGER_MINUTES];    /* its sompi in wall-clock minute minute_of[i] */
    uint64_t minute_of[KD_KLEDGER_MINUTES]; /* (ms / 60000); a slot is minute_of % 60 */
    uint64_t client_txs;                    /* transactions clients built and paid for themselves */
    uint64_t refused[KD_KREFUSE_COUNT_];
} kd_kledger;

/* The funding wallet's sompi of the 60 minutes up to `now_ms` (wall clock). */
uint64_t kd_kledger_hour(const kd_kledger *l, uint64_t now_ms);
/* What the funding wallet paid for `grant`. */
uint64_t kd_kledger_grant_spent(const kd_kledger *l, const char *grant);

/* Whether the funding wallet may pay `fee` more for `grant` at `now_ms`:
 * KD_OK, or KD_ERR_DENIED with *reason and a sentence in `why` naming the
 * budget (per grant, per hour, in total), what was paid and the fee. */
kd_err kd_kledger_check(const kd_kledger *l, const kd_kbudget *b, const char *grant, uint64_t fee, uint64_t now_ms,
                        kd_krefuse *reason, char *why, size_t why_len) KD_WARN_UNUSED;
/* Counts a payment of `fee` by the wallet `name` at `address`; when it is
 * the funding wallet, also under `grant` and in the minute of `now_ms`. */
void kd_kledger_charge(kd_kledger *l, const char *name, const char *address, int funding, const char *grant,
                       uint64_t fee, uint64_t now_ms);

/* Reads `path`. Errors, with a sentence: KD_ERR_NOT_FOUND (no file),
 * KD_ERR_IO, KD_ERR_PARSE (not a ledger: names the file and what is
 * wrong), KD_ERR_NOMEM. */
kd_err kd_kledger_load(const char *path, kd_kledger *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Reads DATA/spend.json of the data directory `data_dir`, as
 * kd_kledger_load. */
kd_err kd_kledger_load_dir(const char *data_dir, kd_kledger *out, char *why, size_t why_len) KD_WARN_UNUSED;
/* Writes `path` whole (temporary file, then rename; mode 0600). Errors:
 * KD_ERR_IO, KD_ERR_NOMEM, with a sentence. */
kd_err kd_kledger_save(const char *path, const kd_kledger *l, char *why, size_t why_len) KD_WARN_UNUSED;

/* The lines of `kdapp stats` (appended, NUL-terminated, the NUL counted in
 * out->len as kd_metrics_prometheus counts it; a NUL `out` ends with is
 * dropped first, so the two append to each other): each wallet's
 * spending, the funding wallet's per grant and last hour, the refusals.
 * Errors: KD_ERR_NOMEM. */
kd_err kd_kledger_text(const kd_kledger *l, uint64_t now_ms, kd_buf *out) KD_WARN_UNUSED;
/* The same as Prometheus text (appended, NUL-terminated):
 * kdapp_wallet_spent_sompi_total{wallet,address,funding},
 * kdapp_wallet_transactions_total{...}, kdapp_funding_grant_spent_sompi_total{grant},
 * kdapp_funding_hour_spent_sompi, kdapp_wallet_refusals_total{reason},
 * kdapp_client_paid_transactions_total. Errors: KD_ERR_NOMEM. */
kd_err kd_kledger_prometheus(const kd_kledger *l, uint64_t now_ms, kd_buf *out) KD_WARN_UNUSED;

#endif
