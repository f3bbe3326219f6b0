/*
 * bench_scale_proc.c — the child processes of `kdapp bench --scale`: an
 * engine daemon (`kdapp engine`) holding a store, a stdio gateway (`kdapp
 * mcp --stdio`) attached to it read-only, the calls made to it, and their
 * memory from /proc (bench_scale_proc.h).
 */
#include "tools/bench/bench_episode.h"
#include "tools/bench/bench_scale_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/chain/ingest_client.h"
#include "tools/common/endpoints.h"

kd_scale_mem kd_scale_mem_of(pid_t pid)
{
    kd_scale_mem m = {0};
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return m;
    unsigned long v;
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "RssAnon: %lu", &v) == 1)
            m.anon_kb = v;
        else if (sscanf(line, "VmRSS: %lu", &v) == 1)
            m.rss_kb = v;
        else if (sscanf(line, "VmHWM: %lu", &v) == 1)
            m.hwm_kb = v;
    }
    fclose(fp);
    return m;
}

int kd_scale_daemon_spawn(const kd_bench_ctx *b, const char *data, uint64_t finality, const char *log, kd_bench_proc *p)
{
    char fin[24];
    snprintf(fin, sizeof fin, "%llu", (unsigned long long)finality);
    char *args[] = {(char *)b->kdapp_path, "engine", "--data", (char *)data, "--finality", fin, "--chain",
                    KD_BENCH_CHAIN,        NULL};
    return kd_bench_proc_spawn(p, args, NULL, log, 0);
}

void kd_scale_daemon_stop(kd_bench_proc *p)
{
    if (p->pid > 0) { /* a daemon closing a large store: 30 s before the bounded stop */
        kill(p->pid, SIGTERM);
        kd_bench_proc_reap(p, kd_bench_now() + 30);
    }
    kd_bench_proc_stop(p, 1);
}

kd_err kd_scale_daemon_feed(const char *data, const kd_buf *msgs, size_t n, char *why, size_t why_len)
{
    kd_endpoints ep;
    kd_ingest_client *c = NULL;
    kd_err err = kd_endpoints_default(data, &ep, why, why_len);
    if (!err)
        err = kd_ingest_client_open(ep.ingest, 60000, &c, why, why_len);
    for (size_t i = 0; i < n && !err; i++) {
        kd_ingest_reply rep;
        if (!(err = kd_ingest_client_send(c, &msgs[i], 1, &rep)))
            kd_ingest_reply_fini(&rep);
    }
    kd_ingest_client_close(c);
    if (err && !*why)
        snprintf(why, why_len, "feeding the engine daemon: %s", kd_err_str(err));
    return err;
}

int kd_scale_call(kd_bench_proc *p, long id, const char *tool, const char *args, char **ans)
{
    char req[1024];
    size_t len = kd_bench_call_line(req, sizeof req, id, tool, args);
    return len ? kd_bench_rpc(p, req, len, id, KD_BENCH_CALL_S, ans, NULL) : -1;
}
