/*
 * mock_llm.c — the mock chat-completions endpoint (see mock_llm.h).
 */
#include "play/mock_llm.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bytes.h"

struct mock_llm {
    struct MHD_Daemon *daemon;
    char url[64];
    pthread_mutex_t mu;
    json_t *requests;
    char auth[256];
    const char *const *script;
    size_t n_script, next;
};

/* The first "(r, c)" after "Legal moves (row, col):" in `prompt`. */
static size_t legal_cells(const char *prompt, int cells[9][2])
{
    const char *p = prompt ? strstr(prompt, "Legal moves (row, col):") : NULL;
    size_t n = 0;
    if (!p)
        return 0;
    p += strlen("Legal moves (row, col):");
    int r, c, used;
    while (n < 9 && sscanf(p, " (%d, %d)%n", &r, &c, &used) == 2) {
        cells[n][0] = r;
        cells[n][1] = c;
        n++;
        p += used;
    }
    return n;
}

/* Builds the reply text for one request. */
static char *reply_text(const char *kind, const json_t *body)
{
    const char *prompt =
        json_string_value(json_object_get(json_array_get(json_object_get(body, "messages"), 1), "content"));
    int cells[9][2];
    size_t n = legal_cells(prompt, cells);
    char text[256];
    if (kind[0] == '=') {
        return strdup(kind + 1);
    } else if (strcmp(kind, "prose") == 0) {
        snprintf(text, sizeof text, "I would take the centre, it is the strongest square.");
    } else if (strcmp(kind, "illegal") == 0) {
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                int legal = 0;
                for (size_t i = 0; i < n; i++)
                    legal |= cells[i][0] == r && cells[i][1] == c;
                if (!legal) {
                    snprintf(text, sizeof text, "{\"row\": %d, \"col\": %d}", r, c);
                    return strdup(text);
                }
            }
        snprintf(text, sizeof text, "{\"row\": 0, \"col\": 0}");
    } else if (strcmp(kind, "fence") == 0) {
        snprintf(text, sizeof text, "```json\n{\"row\": %d, \"col\": %d}\n```", n ? cells[0][0] : 0,
                 n ? cells[0][1] : 0);
    } else {
        snprintf(text, sizeof text, "{\"row\": %d, \"col\": %d}", n ? cells[0][0] : 0, n ? cells[0][1] : 0);
    }
    return strdup(text);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    mock_llm *m = cls;
    kd_buf *body = *con_cls;
    if (!body) {
        body = calloc(1, sizeof *body);
        kd_buf_init(body);
        *con_cls = body;
        return MHD_YES;
    }
    if (*upload_size) {
        cr_assert_eq(kd_buf_append(body, upload, *upload_size), KD_OK);
        *upload_size = 0;
        return MHD_YES;
    }
    unsigned status = 200;
    char *out = NULL;
    if (strcmp(method, "POST") != 0 || strcmp(url, "/v1/chat/completions") != 0) {
        status = 404;
        out = strdup("{\"error\":\"not found\"}");
    } else {
        json_error_t e;
        json_t *j = json_loadb(body->data ? (const char *)body->data : "", body->len, 0, &e);
        const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        pthread_mutex_lock(&m->mu);
        json_array_append_new(m->requests, j ? j : json_string("(not JSON)"));
        snprintf(m->auth, sizeof m->auth, "%s", auth ? auth : "");
        const char *kind = m->next < m->n_script ? m->script[m->next] : "legal";
        m->next++;
        pthread_mutex_unlock(&m->mu);
        if (kind[0] == '!') {
            status = (unsigned)atoi(kind + 1);
            out = strdup("{\"error\":{\"message\":\"model not loaded\"}}");
        } else {
            char *content = reply_text(kind, j);
            json_t *reply =
                json_pack("{s:s, s:[{s:i, s:{s:s, s:s}, s:s}]}", "object", "chat.completion", "choices", "index", 0,
                          "message", "role", "assistant", "content", content, "finish_reason", "stop");
            out = json_dumps(reply, JSON_COMPACT);
            json_decref(reply);
            free(content);
        }
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(out), out, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode code)
{
    (void)cls, (void)c, (void)code;
    kd_buf *body = *con_cls;
    if (body) {
        kd_buf_fini(body);
        free(body);
    }
    *con_cls = NULL;
}

mock_llm *mock_llm_start(const char *const *script, size_t n_script)
{
    mock_llm *m = calloc(1, sizeof *m);
    cr_assert(m);
    pthread_mutex_init(&m->mu, NULL);
    m->requests = json_array();
    m->script = script;
    m->n_script = n_script;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    m->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, m,
                                 MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED,
                                 on_completed, m, MHD_OPTION_END);
    cr_assert(m->daemon, "cannot start the mock llm endpoint");
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->daemon, MHD_DAEMON_INFO_BIND_PORT);
    cr_assert(info && info->port);
    snprintf(m->url, sizeof m->url, "http://127.0.0.1:%u/v1", (unsigned)info->port);
    return m;
}

void mock_llm_stop(mock_llm *m)
{
    if (!m)
        return;
    MHD_stop_daemon(m->daemon);
    json_decref(m->requests);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

const char *mock_llm_url(const mock_llm *m) { return m->url; }

json_t *mock_llm_requests(mock_llm *m)
{
    pthread_mutex_lock(&m->mu);
    json_t *copy = json_deep_copy(m->requests);
    pthread_mutex_unlock(&m->mu);
    return copy;
}

void mock_llm_last_auth(mock_llm *m, char *out, size_t len)
{
    pthread_mutex_lock(&m->mu);
    snprintf(out, len, "%s", m->auth);
    pthread_mutex_unlock(&m->mu);
}
