/*
 * player_llm.c — the llm:URL player: asks an OpenAI-compatible
 * chat-completions endpoint (LM Studio, Ollama, llama.cpp server, a hosted
 * API) for each move.
 *
 * One turn is one short conversation:
 *
 *   system     how to answer (one JSON object, nothing else)
 *   user       the gateway's kdapp_turn prompt (the type's prompt: the
 *              rules in force, the position, the legal moves and the exact
 *              answer format)
 *   assistant  the model's reply
 *   user       only after a refused reply: why it was refused (unparsable,
 *              or the gateway's error for an illegal move) and the legal
 *              moves; the model answers again
 *
 * The coordinator allows KD_PLAYER_RETRY_LIMIT refused replies per turn and
 * then plays a random legal move, counted as a fallback. The request is
 * POST {base}/chat/completions with {model?, messages, temperature 0, seed};
 * the key, when set, goes as "Authorization: Bearer" (kdapp play reads it
 * from KDAPP_LLM_API_KEY). A transport failure or an HTTP error status ends
 * the game with the endpoint's answer: retrying a wrong URL or a missing
 * model would only hide the problem. KDAPP_SHOW_PROMPTS=1 (show_prompts)
 * prints every message sent and every reply.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "engine/bytes.h"
#include "tools/play/players.h"

#define LLM_TIMEOUT_MS 120000u
#define LLM_MAX_REPLY ((size_t)4 << 20)

#define SYSTEM_TEXT                                                                                          \
    "You play a game through the kdapp gateway. Each turn you get the rules in force, the position and the " \
    "exact answer format. Think, then answer with exactly one JSON object, the command of your move, and "   \
    "nothing else."

#define ANSWER_TEXT "Answer with exactly one JSON object, the command of your move, and nothing else."

typedef struct {
    char *endpoint, *model, *api_key;
    uint32_t timeout_ms;
    uint64_t seed;
    int show;
    FILE *log;
    CURL *curl;
    json_t *messages; /* this turn's conversation */
    char *last_reply; /* the model's last answer, for the follow-up */
    unsigned attempt;
} llm;

/* ------------------------------------------------------------- parsing */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return p;
}

/* "the members row, col (and optionally type, player)" from the type's
 * command schema: what a refusal tells the model to send. */
static void describe_command(const kd_episode_type *type, char *out, size_t len)
{
    json_t *schema = json_loads(type->command_schema, 0, NULL);
    json_t *props = json_object_get(schema, "properties"), *req = json_object_get(schema, "required");
    size_t n = (size_t)snprintf(out, len, "answer with exactly one JSON object, a %s command", type->ops->type_name);
    const char *key;
    json_t *v;
    int first = 1, optional = 0;
    for (size_t i = 0; i < json_array_size(req) && n < len; i++, first = 0)
        n += (size_t)snprintf(out + n, len - n, "%s%s", first ? " with the members " : ", ",
                              json_string_value(json_array_get(req, i)));
    json_object_foreach(props, key, v)
    {
        int required = 0;
        for (size_t i = 0; i < json_array_size(req); i++)
            required |= json_string_value(json_array_get(req, i)) &&
                        strcmp(json_string_value(json_array_get(req, i)), key) == 0;
        if (required || n >= len)
            continue;
        n += (size_t)snprintf(out + n, len - n, "%s%s",
                              optional ? ", "
                              : first  ? " with the optional members "
                                       : " (and optionally ",
                              key);
        optional = 1;
    }
    if (optional && !first && n < len)
        n += (size_t)snprintf(out + n, len - n, ")");
    if (n < len)
        snprintf(out + n, len - n, ", and nothing else");
    json_decref(schema);
}

/* 1 when every member of `obj` is a property of the command schema (or the
 * schema lists none). */
static int members_known(const kd_episode_type *type, const json_t *obj, const char **unknown)
{
    json_t *schema = json_loads(type->command_schema, 0, NULL);
    json_t *props = json_object_get(schema, "properties");
    const char *key;
    json_t *v;
    int ok = 1;
    json_object_foreach((json_t *)obj, key, v)
    {
        if (json_is_object(props) && !json_object_get(props, key)) {
            ok = 0;
            *unknown = key;
            break;
        }
    }
    json_decref(schema);
    return ok;
}

kd_err kd_llm_parse_command(const char *content, const kd_episode_type *type, int seat, kd_buf *out, char *why,
                            size_t why_len)
{
    char want[300];
    describe_command(type, want, sizeof want);
    if (!content) {
        kd_reject_write(why, why_len, "the reply was empty; %s", want);
        return KD_ERR_PARSE;
    }
    const char *p = skip_ws(content);
    if (strncmp(p, "<think>", 7) == 0) { /* one leading reasoning block */
        const char *end = strstr(p, "</think>");
        if (!end) {
            kd_reject_write(why, why_len, "the reply has an unfinished <think> block; %s", want);
            return KD_ERR_PARSE;
        }
        p = skip_ws(end + 8);
    }
    const char *start = p, *stop = p + strlen(p);
    while (stop > start && (stop[-1] == ' ' || stop[-1] == '\t' || stop[-1] == '\r' || stop[-1] == '\n'))
        stop--;
    if (strncmp(start, "```", 3) == 0) { /* one code fence around the object */
        const char *nl = memchr(start, '\n', (size_t)(stop - start));
        if (!nl || stop - nl < 4 || strncmp(stop - 3, "```", 3) != 0) {
            kd_reject_write(why, why_len, "the reply opens a code fence that does not close around the object; %s",
                            want);
            return KD_ERR_PARSE;
        }
        for (const char *q = start + 3; q < nl; q++) /* the info string: a word such as json */
            if (!(*q >= 'a' && *q <= 'z') && !(*q >= 'A' && *q <= 'Z') && *q != '\r') {
                kd_reject_write(why, why_len, "the reply's code fence carries more than a language name; %s", want);
                return KD_ERR_PARSE;
            }
        start = nl + 1;
        stop -= 3;
    }
    if (start >= stop || *start != '{') {
        kd_reject_write(why, why_len, "the reply does not start with a JSON object; %s", want);
        return KD_ERR_PARSE;
    }
    json_error_t e;
    json_t *j = json_loadb(start, (size_t)(stop - start), JSON_REJECT_DUPLICATES, &e);
    if (!j) {
        kd_reject_write(why, why_len, "the reply is not one JSON object (%s); %s", e.text, want);
        return KD_ERR_PARSE;
    }
    kd_err err = KD_OK;
    const char *unknown = NULL;
    char detail[KD_REJECT_DETAIL_MAX] = "";
    size_t before = out->len;
    if (!json_is_object(j)) {
        kd_reject_write(why, why_len, "the reply is not a JSON object; %s", want);
        err = KD_ERR_PARSE;
    } else if (!members_known(type, j, &unknown)) {
        kd_reject_write(why, why_len, "the object has a member \"%.40s\" a command does not have; %s", unknown, want);
        err = KD_ERR_PARSE;
    } else if ((err = type->command_from_json(j, seat, out, detail, sizeof detail)) != KD_OK) {
        out->len = before;
        if (err != KD_ERR_NOMEM) {
            kd_reject_write(why, why_len, "%s; %s", detail[0] ? detail : "the object is not a command", want);
            err = KD_ERR_PARSE;
        }
    }
    json_decref(j);
    return err;
}

/* ----------------------------------------------------------------- http */

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    kd_buf *b = ctx;
    if (b->len + size * n > LLM_MAX_REPLY || kd_buf_append(b, data, size * n))
        return 0;
    return size * n;
}

/* Sends the conversation; *content is the reply text (malloc'd). */
static kd_err complete(llm *l, char **content, char *why, size_t why_len)
{
    *content = NULL;
    json_t *req = json_pack("{s:O, s:i, s:I}", "messages", l->messages, "temperature", 0, "seed",
                            (json_int_t)(l->seed & 0x7fffffff));
    if (req && l->model)
        json_object_set_new(req, "model", json_string(l->model));
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!body)
        return KD_ERR_NOMEM;
    kd_err err = KD_OK;
    kd_buf reply;
    kd_buf_init(&reply);
    json_t *res = NULL;
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json"), *t;
    char auth[600];
    if (h && l->api_key) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", l->api_key);
        if ((t = curl_slist_append(h, auth)))
            h = t;
        else {
            err = KD_ERR_NOMEM;
            goto done;
        }
    }
    if (!h) {
        err = KD_ERR_NOMEM;
        goto done;
    }
    curl_easy_reset(l->curl);
    curl_easy_setopt(l->curl, CURLOPT_URL, l->endpoint);
    curl_easy_setopt(l->curl, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(l->curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(l->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(l->curl, CURLOPT_TIMEOUT_MS, (long)l->timeout_ms);
    curl_easy_setopt(l->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(l->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(l->curl, CURLOPT_WRITEDATA, &reply);
    CURLcode cc = curl_easy_perform(l->curl);
    if (cc != CURLE_OK) {
        kd_reject_write(why, why_len, "the llm endpoint %s could not be reached: %s", l->endpoint,
                        curl_easy_strerror(cc));
        err = cc == CURLE_OPERATION_TIMEDOUT ? KD_ERR_TIMEOUT : KD_ERR_NET;
        goto done;
    }
    long status = 0;
    curl_easy_getinfo(l->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        kd_reject_write(why, why_len, "the llm endpoint %s answered HTTP %ld: %.*s", l->endpoint, status,
                        (int)(reply.len > 300 ? 300 : reply.len), reply.data ? (const char *)reply.data : "");
        err = KD_ERR_NET;
        goto done;
    }
    json_error_t e;
    res = json_loadb(reply.data ? (const char *)reply.data : "", reply.len, 0, &e);
    const json_t *msg = json_object_get(json_array_get(json_object_get(res, "choices"), 0), "message");
    const json_t *text = json_object_get(msg, "content");
    if (!msg || !(json_is_string(text) || json_is_null(text))) {
        kd_reject_write(why, why_len, "the llm endpoint %s answered something that is not a chat completion: %.*s",
                        l->endpoint, (int)(reply.len > 300 ? 300 : reply.len),
                        reply.data ? (const char *)reply.data : "");
        err = KD_ERR_NET;
        goto done;
    }
    if (!(*content = strdup(json_is_string(text) ? json_string_value(text) : "")))
        err = KD_ERR_NOMEM;
done:
    curl_slist_free_all(h);
    json_decref(res);
    kd_buf_fini(&reply);
    free(body);
    return err;
}

/* --------------------------------------------------------------- player */

static kd_err add_message(json_t *messages, const char *role, const char *content)
{
    json_t *m = json_pack("{s:s, s:s}", "role", role, "content", content);
    return m && json_array_append_new(messages, m) == 0 ? KD_OK : KD_ERR_NOMEM;
}

static kd_err llm_choose(void *impl, const kd_play_turn *turn, const char *feedback, kd_legal_move *move, char *why,
                         size_t why_len)
{
    llm *l = impl;
    kd_err err = KD_OK;
    if (!feedback || !l->messages) { /* a new turn: a new conversation */
        char *prompt = NULL;
        if (!turn->get_prompt) {
            kd_reject_write(why, why_len, "no turn prompt available for the llm player");
            return KD_ERR_INVALID_ARG;
        }
        if ((err = turn->get_prompt(turn->prompt_ctx, &prompt, why, why_len)))
            return err;
        json_decref(l->messages);
        free(l->last_reply);
        l->last_reply = NULL;
        l->attempt = 0;
        l->messages = json_array();
        err = l->messages ? add_message(l->messages, "system", SYSTEM_TEXT) : KD_ERR_NOMEM;
        if (!err)
            err = add_message(l->messages, "user", prompt);
        if (!err && l->show)
            fprintf(l->log, "--- prompt to %s for %s (episode %u) ---\n%s\n", l->endpoint, turn->seat_name,
                    turn->episode_id, prompt);
        free(prompt);
    } else {
        size_t n = strlen(feedback) + sizeof ANSWER_TEXT + 1;
        char *text = malloc(n);
        if (!text)
            return KD_ERR_NOMEM;
        snprintf(text, n, "%s\n%s", feedback, ANSWER_TEXT);
        err = add_message(l->messages, "assistant", l->last_reply ? l->last_reply : "");
        if (!err)
            err = add_message(l->messages, "user", text);
        if (!err && l->show)
            fprintf(l->log, "--- follow-up to %s for %s (attempt %u) ---\n%s\n", l->endpoint, turn->seat_name,
                    l->attempt + 1, text);
        free(text);
    }
    if (err)
        return err;
    l->attempt++;
    l->seed = l->seed * 6364136223846793005ull + 1442695040888963407ull;
    char *content = NULL;
    if ((err = complete(l, &content, why, why_len)))
        return err;
    if (l->show) {
        fprintf(l->log, "--- reply ---\n%s\n", content);
        fflush(l->log);
    }
    free(l->last_reply);
    l->last_reply = content;
    kd_buf cmd;
    kd_buf_init(&cmd);
    err = kd_llm_parse_command(content, turn->type, turn->seat, &cmd, why, why_len);
    if (!err && (err = kd_play_move_of(turn, cmd.data, cmd.len, move)) == KD_ERR_TOO_LARGE) {
        kd_reject_write(why, why_len, "the command is longer than %d bytes", KD_COMMAND_MAX);
        err = KD_ERR_PARSE;
    }
    kd_buf_fini(&cmd);
    return err;
}

static void llm_free(void *impl)
{
    llm *l = impl;
    if (!l)
        return;
    if (l->curl)
        curl_easy_cleanup(l->curl);
    json_decref(l->messages);
    free(l->last_reply);
    free(l->endpoint);
    free(l->model);
    free(l->api_key);
    free(l);
}

const kd_player_ops kd_player_llm_ops = {
    .kind = "llm", .choose = llm_choose, .free = llm_free, .retry_limit = KD_PLAYER_RETRY_LIMIT};

kd_err kd_player_llm_open(const char *url, const kd_player_options *o, void **impl, char *why, size_t why_len)
{
    *impl = NULL;
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
        kd_reject_write(why, why_len,
                        "llm:%s: the URL must start with http:// or https:// (e.g. llm:http://127.0.0.1:1234/v1)", url);
        return KD_ERR_INVALID_ARG;
    }
    llm *l = calloc(1, sizeof *l);
    if (!l)
        return KD_ERR_NOMEM;
    size_t n = strlen(url);
    while (n > 8 && url[n - 1] == '/')
        n--;
    static const char tail[] = "/chat/completions";
    int full = n >= sizeof tail - 1 && strncmp(url + n - (sizeof tail - 1), tail, sizeof tail - 1) == 0;
    if ((l->endpoint = malloc(n + sizeof tail)))
        snprintf(l->endpoint, n + sizeof tail, "%.*s%s", (int)n, url, full ? "" : tail);
    l->model = o->model && *o->model ? strdup(o->model) : NULL;
    l->api_key = o->api_key && *o->api_key ? strdup(o->api_key) : NULL;
    l->timeout_ms = o->llm_timeout_ms ? o->llm_timeout_ms : LLM_TIMEOUT_MS;
    l->seed = o->seed;
    l->show = o->show_prompts;
    l->log = o->log ? o->log : stderr;
    l->curl = curl_easy_init();
    if (!l->endpoint || !l->curl || (o->model && *o->model && !l->model) ||
        (o->api_key && *o->api_key && !l->api_key)) {
        llm_free(l);
        return KD_ERR_NOMEM;
    }
    *impl = l;
    return KD_OK;
}
