/*
 * proto_json_test.c — kd_proto_json renders any message through its
 * descriptor: nested messages, a oneof, repeated bytes and messages,
 * enums by name, u64 beyond 2^63 exactly, defaults present.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "handlers/proto_json.h"
#include "kdapp.pb-c.h"
#include "store.pb-c.h"

static json_t *render(const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len ? len : 1);
    cr_assert_not_null(buf);
    protobuf_c_message_pack(m, buf);
    json_t *j = kd_proto_json(m->descriptor, buf, len);
    free(buf);
    cr_assert_not_null(j);
    return j;
}

Test(proto_json, oneof_nested_repeated_bytes)
{
    uint8_t a[2] = {0xab, 0x01}, b[1] = {0xff};
    ProtobufCBinaryData parts[2] = {{2, a}, {1, b}};
    Kdapp__NewEpisode ne = KDAPP__NEW_EPISODE__INIT;
    ne.episode_type = "game";
    ne.n_participants = 2;
    ne.participants = parts;
    Kdapp__EpisodeMessage em = KDAPP__EPISODE_MESSAGE__INIT;
    em.episode_id = 7;
    em.body_case = KDAPP__EPISODE_MESSAGE__BODY_NEW_EPISODE;
    em.new_episode = &ne;
    json_t *j = render(&em.base);
    char *text = json_dumps(j, JSON_COMPACT);
    cr_assert_str_eq(text,
                     "{\"episode_id\":7,\"new_episode\":{\"episode_type\":\"game\",\"participants\":[\"ab01\","
                     "\"ff\"],\"params\":\"\",\"consents\":[],\"join_timeout\":0}}",
                     "%s", text);
    free(text);
    json_decref(j);
}

Test(proto_json, u64_enum_and_defaults)
{
    Kdapp__Store__Effect e0 = KDAPP__STORE__EFFECT__INIT, e1 = KDAPP__STORE__EFFECT__INIT;
    e1.kind = KDAPP__STORE__EFFECT_KIND__EFFECT_CREATE;
    e1.episode_id = 9;
    Kdapp__Store__Effect *effects[2] = {&e0, &e1};
    Kdapp__Store__BlockRecord r = KDAPP__STORE__BLOCK_RECORD__INIT;
    r.log_seq = UINT64_MAX;
    r.height = (uint64_t)INT64_MAX;
    r.n_effects = 2;
    r.effects = effects;
    json_t *j = render(&r.base);
    cr_assert_str_eq(json_string_value(json_object_get(j, "log_seq")), "18446744073709551615");
    cr_assert_eq(json_integer_value(json_object_get(j, "height")), INT64_MAX);
    cr_assert(json_is_false(json_object_get(j, "final")), "a default is printed");
    json_t *effects_json = json_object_get(j, "effects");
    cr_assert_eq(json_array_size(effects_json), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(effects_json, 0), "kind")), "EFFECT_COMMAND");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(effects_json, 1), "kind")), "EFFECT_CREATE");
    json_decref(j);
}

Test(proto_json, not_the_message)
{
    const uint8_t junk[] = {0xff, 0xff, 0xff};
    cr_assert_null(kd_proto_json(&kdapp__store__block_record__descriptor, junk, sizeof junk));
}
