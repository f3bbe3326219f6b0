/*
 * server_reply.c — tool results and the text of replies: the results tools
 * build (kd_mcp_tool_result, kd_mcp_tool_error), a result encoded once and
 * shared by reference (kd_mcp_encoded, which a cache hands to many readers
 * of one answer), and the reply envelope written around either.
 *
 * A reply is {"jsonrpc":"2.0","id":…,"result":…} with the result its last
 * member, so the envelope is encoded with a null result and the result's
 * text put in place of that null: an encoded result is never parsed or
 * encoded again, whatever the number of replies that carry it.
 */
#include "mcp/server/server_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct kd_mcp_encoded {
    atomic_uint refs;
    size_t len;
    char text[]; /* len bytes and a NUL */
};

static json_t *text_content(const char *text)
{
    return json_pack("[{s:s,s:s}]", "type", "text", "text", text != NULL ? text : "");
}

json_t *kd_mcp_tool_result(json_t *structured, const char *text)
{
    json_t *r = json_object(), *content = NULL;

    if (r == NULL)
        goto fail;
    /* Without a text, the text is the structured content's JSON: left null
     * here and written when the result is encoded (result_dumps), which
     * encodes the tree once for both. */
    content =
        text == NULL && structured != NULL ? json_pack("[{s:s,s:n}]", "type", "text", "text") : text_content(text);
    if (content == NULL || json_object_set_new(r, "content", content) != 0)
        goto fail;
    if (structured != NULL) {
        json_t *st = structured;

        structured = NULL;
        if (json_object_set_new(r, "structuredContent", st) != 0)
            goto fail;
    }
    return r;
fail:
    json_decref(structured);
    json_decref(r);
    return NULL;
}

json_t *kd_mcp_tool_error(const char *text)
{
    return json_pack("{s:o,s:b}", "content", text_content(text), "isError", 1);
}

/*
 * The text of a result object (malloc'ed; NULL when out of memory). A tool
 * result whose text is its structured content's JSON (left null by
 * kd_mcp_tool_result) gets that JSON, encoded once, as both: the text is
 * filled in, structuredContent taken out, the rest encoded, and the same
 * JSON appended as its last member. `result` is left as it was, but for
 * the text filled in.
 */
static char *result_dumps(json_t *result)
{
    json_t *item = json_array_get(json_object_get(result, "content"), 0);
    json_t *structured = json_object_get(result, "structuredContent");
    static const char member[] = ",\"structuredContent\":";
    char *json, *head = NULL, *out = NULL;
    size_t head_len, json_len;

    if (structured == NULL || item == NULL || !json_is_null(json_object_get(item, "text")))
        return json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY);
    json = json_dumps(structured, JSON_COMPACT | JSON_ENCODE_ANY);
    if (json == NULL || json_object_set_new(item, "text", json_string(json)) != 0)
        goto done;
    json_incref(structured);
    json_object_del(result, "structuredContent");
    head = json_dumps(result, JSON_COMPACT | JSON_ENCODE_ANY); /* {"content":[…]…} */
    head_len = head != NULL ? strlen(head) : 0;
    json_len = strlen(json);
    if (head_len >= 2 && head[head_len - 1] == '}' &&
        (out = malloc(head_len - 1 + sizeof member - 1 + json_len + 2)) != NULL) {
        memcpy(out, head, head_len - 1);
        memcpy(out + head_len - 1, member, sizeof member - 1);
        memcpy(out + head_len - 1 + sizeof member - 1, json, json_len);
        memcpy(out + head_len - 1 + sizeof member - 1 + json_len, "}", 2);
    }
    json_object_set_new(result, "structuredContent", structured);
done:
    free(head);
    free(json);
    return out;
}

/* The envelope `reply` (whose "result", its last member, is JSON null)
 * with `text` in place of that null; malloc'ed, NULL when out of memory. */
static char *splice(const json_t *reply, const char *text, size_t len)
{
    static const char tail[] = "null}";
    char *head = kd_jsonrpc_dumps(reply), *out = NULL;
    size_t head_len = head != NULL ? strlen(head) : 0;

    if (head_len >= sizeof tail - 1 && strcmp(head + head_len - (sizeof tail - 1), tail) == 0 &&
        (out = malloc(head_len - (sizeof tail - 1) + len + 2)) != NULL) {
        memcpy(out, head, head_len - (sizeof tail - 1));
        memcpy(out + head_len - (sizeof tail - 1), text, len);
        memcpy(out + head_len - (sizeof tail - 1) + len, "}", 2);
    }
    free(head);
    return out;
}

char *kd_mcp_reply_dumps(json_t *reply)
{
    json_t *result = json_object_get(reply, "result");
    json_t *item = json_array_get(json_object_get(result, "content"), 0);
    char *text, *out;

    if (json_object_get(result, "structuredContent") == NULL || item == NULL ||
        !json_is_null(json_object_get(item, "text")))
        return kd_jsonrpc_dumps(reply);
    if ((text = result_dumps(result)) == NULL)
        return NULL;
    json_incref(result);
    out = json_object_set(reply, "result", json_null()) == 0 ? splice(reply, text, strlen(text)) : NULL;
    json_object_set_new(reply, "result", result); /* in place: it stays the last member */
    free(text);
    return out;
}

char *kd_mcp_reply_encoded(json_t *reply, const kd_mcp_encoded *e) { return splice(reply, e->text, e->len); }

kd_mcp_encoded *kd_mcp_encoded_alloc(json_t *result)
{
    char *text = result != NULL ? result_dumps(result) : NULL;
    size_t len = text != NULL ? strlen(text) : 0;
    kd_mcp_encoded *e = text != NULL ? malloc(sizeof *e + len + 1) : NULL;

    json_decref(result);
    if (e != NULL) {
        atomic_init(&e->refs, 1);
        e->len = len;
        memcpy(e->text, text, len + 1);
    }
    free(text);
    return e;
}

kd_mcp_encoded *kd_mcp_encoded_ref(kd_mcp_encoded *e)
{
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
    return e;
}

void kd_mcp_encoded_free(kd_mcp_encoded *e)
{
    /* release, then acquire before the free: every holder's reads of the
     * text happen before it */
    if (e != NULL && atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1)
        free(e);
}

const char *kd_mcp_encoded_text(const kd_mcp_encoded *e, size_t *len)
{
    if (len != NULL)
        *len = e->len;
    return e->text;
}
