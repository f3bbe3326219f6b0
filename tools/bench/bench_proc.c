/*
 * bench_proc.c — child processes and line clients for `kdapp bench`
 * (bench_proc.h): posix_spawn with pipes or a log, a bounded stop, a
 * buffered line reader with a deadline, the stdio JSON-RPC client, and the
 * small readers of a gateway's log and a process's memory.
 */
#define _GNU_SOURCE /* pipe2, memrchr, sched_setaffinity */

#include "tools/bench/bench_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/crypto.h"
#include "tools/bench/bench.h"

extern char **environ;

#define READER_MAX ((size_t)64 << 20) /* a line longer than this is an error */

void kd_bench_sleep(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int kd_bench_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* ----------------------------------------------------------- line reader */

void kd_bench_reader_init(kd_bench_reader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
}

void kd_bench_reader_fini(kd_bench_reader *r)
{
    free(r->buf);
    kd_bench_reader_init(r, -1);
}

/* Moves the unread bytes to the front and makes room for 4 KiB more and a NUL. */
static int reader_room(kd_bench_reader *r)
{
    if (r->off) {
        memmove(r->buf, r->buf + r->off, r->len - r->off);
        r->len -= r->off;
        r->off = 0;
    }
    if (r->len + 4096 + 1 <= r->cap)
        return 0;
    size_t cap = r->cap ? 2 * r->cap : 65536;
    char *nb = cap <= READER_MAX ? realloc(r->buf, cap) : NULL;
    if (!nb)
        return -1;
    r->buf = nb, r->cap = cap;
    return 0;
}

int kd_bench_reader_fill(kd_bench_reader *r, double deadline)
{
    if (reader_room(r) != 0)
        return -1;
    for (;;) {
        double left = deadline - kd_bench_now();
        struct pollfd pf = {.fd = r->fd, .events = POLLIN};
        int n = left > 0 ? poll(&pf, 1, (int)(left * 1000) + 1) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len - 1);
        if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
            continue;
        if (got <= 0)
            return -1;
        r->len += (size_t)got;
        r->buf[r->len] = '\0';
        return 0;
    }
}

void kd_bench_reader_consume(kd_bench_reader *r, size_t n)
{
    r->off += n;
    if (r->off >= r->len)
        r->off = r->len = 0;
}

int kd_bench_read_line(kd_bench_reader *r, double deadline, char **line, size_t *len)
{
    for (;;) {
        char *nl = r->len > r->off ? memchr(r->buf + r->off, '\n', r->len - r->off) : NULL;
        if (nl) {
            *nl = '\0';
            *line = r->buf + r->off;
            if (len)
                *len = (size_t)(nl - *line);
            r->off = (size_t)(nl + 1 - r->buf);
            return 0;
        }
        if (kd_bench_reader_fill(r, deadline) != 0)
            return -1;
    }
}

/* ------------------------------------------------------- child processes */

void kd_bench_proc_init(kd_bench_proc *p)
{
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->to = -1;
    kd_bench_reader_init(&p->out, -1);
}

/* Our environment with `env` (may be NULL) after it, where an entry
 * without '=' removes that name from ours; NULL when out of memory. */
static char **env_with(const char *const *env)
{
    size_t n = 0, k = 0, o = 0;
    while (environ[n])
        n++;
    while (env && env[k])
        k++;
    char **envp = calloc(n + k + 1, sizeof *envp);
    for (size_t i = 0; envp && i < n; i++) {
        int drop = 0;
        for (size_t j = 0; j < k && !drop; j++)
            drop = !strchr(env[j], '=') && strncmp(environ[i], env[j], strlen(env[j])) == 0 &&
                   environ[i][strlen(env[j])] == '=';
        if (!drop)
            envp[o++] = environ[i];
    }
    for (size_t j = 0; envp && j < k; j++)
        if (strchr(env[j], '='))
            envp[o++] = (char *)env[j];
    return envp;
}

int kd_bench_proc_spawn(kd_bench_proc *p, char *const argv[], const char *const *env, const char *log, int flags)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, fa_ok = 0, rc = -1, pipes = flags & KD_BENCH_PIPES;
    char **envp = env_with(env);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;

    kd_bench_proc_init(p);
    if (!envp)
        goto done;
    if (pipes && (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0))
        goto done;
    if ((errno = posix_spawn_file_actions_init(&fa)) != 0)
        goto done;
    fa_ok = 1;
    if (!(flags & KD_BENCH_STDERR))
        posix_spawn_file_actions_addopen(&fa, 2, log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (pipes) {
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    } else {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, 2, 1);
    }
    posix_spawnattr_init(&attr);
    sigset_t dfl; /* the bench ignores SIGPIPE; a child (a --peer script) runs as from a shell */
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setflags(&attr,
                             (short)(POSIX_SPAWN_SETSIGDEF | (flags & KD_BENCH_GROUP ? POSIX_SPAWN_SETPGROUP : 0)));
    errno = posix_spawnp(&p->pid, argv[0], &fa, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    if (errno != 0) {
        p->pid = -1;
        goto done;
    }
    if (pipes) {
        p->to = in[1], p->out.fd = out[0];
        in[1] = out[0] = -1;
    }
    rc = 0;
done:;
    int saved = errno;
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
    }
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    free(envp);
    errno = saved;
    return rc;
}

int kd_bench_proc_reap(kd_bench_proc *p, double deadline)
{
    int st;
    while (p->pid > 0) {
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid) {
            p->pid = -1;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        if (r < 0 && errno != EINTR) {
            p->pid = -1; /* not our child (any more) */
            return -1;
        }
        if (kd_bench_now() >= deadline)
            return -1;
        kd_bench_sleep(0.005);
    }
    return -1;
}

int kd_bench_proc_stop(kd_bench_proc *p, int term)
{
    int st = 0;
    if (p->to >= 0)
        close(p->to);
    p->to = -1;
    if (p->pid > 0) {
        if (term)
            kill(p->pid, SIGTERM);
        if ((st = kd_bench_proc_reap(p, kd_bench_now() + 5)) < 0 && p->pid > 0) {
            kill(p->pid, SIGTERM);
            if (kd_bench_proc_reap(p, kd_bench_now() + 2) < 0 && p->pid > 0) {
                kill(p->pid, SIGKILL);
                while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
                    ;
            }
        }
    }
    if (p->out.fd >= 0)
        close(p->out.fd);
    kd_bench_reader_fini(&p->out);
    kd_bench_proc_init(p);
    return st;
}

/* ---------------------------------------------------------- stdio client */

int kd_bench_rpc(kd_bench_proc *p, const char *req, size_t req_len, long id, double timeout_s, char **ans,
                 size_t *ans_len)
{
    double deadline = kd_bench_now() + timeout_s;
    char needle[32], *line;
    size_t len;
    int n = snprintf(needle, sizeof needle, "\"id\":%ld", id);

    if (kd_bench_write_all(p->to, req, req_len) != 0)
        return -1;
    for (;;) {
        if (kd_bench_read_line(&p->out, deadline, &line, &len) != 0)
            return -1;
        const char *h = id < 0 ? line : strstr(line, needle);
        if (!h || (id >= 0 && h[n] != ',' && h[n] != '}'))
            continue;
        if (ans)
            *ans = line;
        if (ans_len)
            *ans_len = len;
        return id < 0 || (strstr(line, "\"result\":") && !strstr(line, "\"isError\":true")) ? 0 : 1;
    }
}

json_t *kd_bench_call_json(kd_bench_proc *p, long *next_id, const char *tool, json_t *args, char *why, size_t why_len)
{
    long id = (*next_id)++;
    json_t *req = json_pack("{s:s, s:I, s:s, s:{s:s, s:o}}", "jsonrpc", "2.0", "id", (json_int_t)id, "method",
                            "tools/call", "params", "name", tool, "arguments", args);
    char *line = req ? json_dumps(req, JSON_COMPACT) : NULL, *ans;
    json_t *j = NULL, *out = NULL;
    size_t len = line ? strlen(line) : 0;
    if (line && (line = realloc(line, len + 2)) != NULL)
        line[len] = '\n', line[len + 1] = '\0';
    if (line && kd_bench_rpc(p, line, len + 1, id, KD_BENCH_START_S, &ans, NULL) == 0 &&
        (j = json_loads(ans, 0, NULL)) != NULL)
        out = json_incref(json_object_get(json_object_get(j, "result"), "structuredContent"));
    if (!out)
        snprintf(why, why_len, "%s failed", tool);
    json_decref(j);
    json_decref(req);
    free(line);
    return out;
}

int kd_bench_handshake(kd_bench_proc *p)
{
    static const char init[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" KD_BENCH_PROTOCOL
        "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"kdapp-bench\",\"version\":\"0.1.0\"}}}\n";
    static const char done[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    if (kd_bench_rpc(p, init, sizeof init - 1, 1, KD_BENCH_START_S, NULL, NULL) != 0)
        return -1;
    return kd_bench_write_all(p->to, done, sizeof done - 1);
}

/* ------------------------------------------------------------------ misc */

/* The PORT of the first line of `log` with "http://ADDR:PORT/mcp"; 0 if none yet. */
static uint16_t port_in_log(const char *log)
{
    char line[1024];
    unsigned long port = 0;
    FILE *f = fopen(log, "r");
    while (f && !port && fgets(line, sizeof line, f)) {
        const char *u = strstr(line, "http://");
        const char *m = u ? strstr(u, "/mcp") : NULL;
        const char *colon = m ? memrchr(u, ':', (size_t)(m - u)) : NULL;
        if (colon && colon > u + 6)
            port = strtoul(colon + 1, NULL, 10);
    }
    if (f)
        fclose(f);
    return port < 65536 ? (uint16_t)port : 0;
}

uint16_t kd_bench_http_port(kd_bench_proc *p, const char *log, double timeout_s)
{
    for (double deadline = kd_bench_now() + timeout_s; kd_bench_now() < deadline;) {
        uint16_t port = port_in_log(log);
        if (port)
            return port;
        if (p && kd_bench_proc_reap(p, 0) >= 0)
            return 0; /* it exited without serving */
        kd_bench_sleep(0.01);
    }
    return 0;
}

unsigned long kd_bench_rss_kb(pid_t pid)
{
    char path[64], text[256];
    unsigned long kb = 0;
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(text, sizeof text, f))
        if (sscanf(text, "VmRSS: %lu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

void kd_bench_show_log(const char *path)
{
    char buf[1200];
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    fprintf(stderr, "kdapp bench: the end of %s:\n%s\n", path, buf);
}

int kd_bench_scratch(const kd_bench_ctx *b, const char *tag, const char *log_name, int agents, char *dir, char *data,
                     char *keys, char *log, char *why, size_t why_len)
{
    if (kd_bench_mkdtemp(b, tag, dir, 512) != 0) {
        snprintf(why, why_len, "cannot create a scratch directory under %s", b->work_dir);
        return -1;
    }
    snprintf(data, 600, "%s/data", dir);
    snprintf(keys, 600, "%s/keys", dir);
    snprintf(log, 600, "%s/%s", dir, log_name);
    for (int i = 1; i <= 2 && agents; i++) {
        kd_key key;
        char name[16];
        snprintf(name, sizeof name, "agent%d", i);
        kd_err err = kd_key_generate(&key);
        if (err)
            snprintf(why, why_len, "cannot generate a key: %s", kd_err_str(err));
        else
            err = kd_key_save(keys, name, &key, why, why_len);
        memset(&key, 0, sizeof key);
        if (err)
            return -1;
    }
    return 0;
}

void kd_bench_quantiles_us(double *samples, size_t n, double out[3])
{
    out[0] = kd_bench_percentile(samples, n, 0.50) * 1e6;
    out[1] = kd_bench_percentile(samples, n, 0.99) * 1e6;
    out[2] = n ? samples[n - 1] * 1e6 : 0; /* sorted by the percentile */
}

/* ------------------------------------------------------------- affinity */

/* The caller's CPUs before kd_bench_pin_with (one pin at a time). */
static cpu_set_t before_pin;

int kd_bench_pin_with(pid_t pid)
{
    int cpu = sched_getcpu();
    cpu_set_t one;
    if (cpu < 0 || sched_getaffinity(0, sizeof before_pin, &before_pin) != 0)
        return -1;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(pid, sizeof one, &one) != 0)
        return -1;
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        sched_setaffinity(pid, sizeof before_pin, &before_pin);
        return -1;
    }
    return 0;
}

void kd_bench_unpin_with(pid_t pid)
{
    /* the child was started with the caller's CPUs: both get them back */
    sched_setaffinity(pid, sizeof before_pin, &before_pin);
    sched_setaffinity(0, sizeof before_pin, &before_pin);
}
