/*
 * http_peers.c — connections per client address for the HTTP transport.
 *
 * The total connection limit protects the process; this protects the other
 * clients: one address (a misbehaving agent, or a host that opens
 * connections and sends nothing) may hold at most per_address connections,
 * so it cannot take every slot. Loopback clients are exempt by default:
 * on a gateway bound to 127.0.0.1 every client shares one address, and
 * they are the machine's own programs (set limit_loopback to count them
 * too). An IPv4 client seen through an IPv6 socket counts as its IPv4
 * address.
 *
 * libmicrohttpd asks kd_http_peer_admit (its accept policy) before it
 * takes a connection, and tells kd_http_peer_notify when one starts and
 * closes; the count moves only there, so it never drifts from what the
 * daemon holds. Two polling threads may admit the same address at once
 * before either counts its connection, so an address can briefly exceed
 * the limit by the number of polling threads, never more.
 *
 * The table is a list: it holds only addresses with open connections (at
 * most the connection limit), and is read once per accepted connection.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/server/http_int.h"

struct kd_http_peer {
    struct kd_http_peer *next;
    int family; /* AF_INET or AF_INET6 */
    unsigned char addr[16];
    unsigned n; /* open connections */
};

int kd_http_addr_key(const struct sockaddr *sa, int *family, unsigned char addr[16])
{
    static const unsigned char V4_MAPPED[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    memset(addr, 0, 16);
    *family = 0;
    if (sa == NULL)
        return -1;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;

        *family = AF_INET;
        memcpy(addr, &v4->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;

        if (memcmp(&v6->sin6_addr, V4_MAPPED, sizeof V4_MAPPED) == 0) {
            *family = AF_INET;
            memcpy(addr, (const unsigned char *)&v6->sin6_addr + 12, 4);
        } else {
            *family = AF_INET6;
            memcpy(addr, &v6->sin6_addr, 16);
        }
    } else {
        return -1;
    }
    return 0;
}

/* The key of `sa`; 0, or -1 when it is not an IP address or is exempt. */
static int peer_key(const kd_mcp_http *h, const struct sockaddr *sa, int *family, unsigned char addr[16])
{
    int loopback;

    if (kd_http_addr_key(sa, family, addr) != 0)
        return -1;
    loopback = *family == AF_INET ? addr[0] == 127 : IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)addr);
    return loopback && !h->limit_loopback ? -1 : 0;
}

/* The entry of an address (under peers_lock), or NULL. */
static kd_http_peer *find_locked(kd_mcp_http *h, int family, const unsigned char addr[16])
{
    kd_http_peer *p;

    for (p = h->peers; p != NULL; p = p->next)
        if (p->family == family && memcmp(p->addr, addr, 16) == 0)
            return p;
    return NULL;
}

enum MHD_Result kd_http_peer_admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
    kd_mcp_http *h = cls;
    unsigned char key[16];
    char text[INET6_ADDRSTRLEN];
    kd_http_peer *p;
    unsigned n;
    int family;

    (void)len;
    if (peer_key(h, addr, &family, key) != 0)
        return MHD_YES;
    pthread_mutex_lock(&h->peers_lock);
    p = find_locked(h, family, key);
    n = p != NULL ? p->n : 0;
    pthread_mutex_unlock(&h->peers_lock);
    if (n < h->per_address)
        return MHD_YES;
    if (inet_ntop(family, key, text, sizeof text) == NULL)
        strcpy(text, "?");
    KD_LOG_LIMITED(&h->log_refused, KD_LOG_WARN, "mcp",
                   "http: refused a connection from %s: it holds %u connections, the per-address limit", text, n);
    return MHD_NO;
}

void kd_http_peer_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                         enum MHD_ConnectionNotificationCode code)
{
    kd_mcp_http *h = cls;
    const union MHD_ConnectionInfo *info;
    kd_http_peer *p, **pp;
    unsigned char key[16];
    int family;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        *socket_context = NULL;
        info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (info == NULL || peer_key(h, info->client_addr, &family, key) != 0)
            return;
        pthread_mutex_lock(&h->peers_lock);
        if ((p = find_locked(h, family, key)) == NULL && (p = calloc(1, sizeof *p)) != NULL) {
            p->family = family;
            memcpy(p->addr, key, 16);
            p->next = h->peers;
            h->peers = p;
        }
        if (p != NULL) /* out of memory: this connection goes uncounted */
            p->n++;
        pthread_mutex_unlock(&h->peers_lock);
        *socket_context = p;
        return;
    }
    if ((p = *socket_context) == NULL)
        return;
    *socket_context = NULL;
    pthread_mutex_lock(&h->peers_lock);
    if (--p->n == 0) {
        for (pp = &h->peers; *pp != p; pp = &(*pp)->next)
            ;
        *pp = p->next;
        free(p);
    }
    pthread_mutex_unlock(&h->peers_lock);
}

void kd_http_peers_fini(kd_mcp_http *h)
{
    kd_http_peer *p, *next;

    for (p = h->peers; p != NULL; p = next) {
        next = p->next;
        free(p);
    }
    h->peers = NULL;
}
