/*
 * keyfile_test.c — key files (engine/crypto.h kd_key_save, kd_key_load)
 * written by several threads at once, as two gateways starting together on
 * an empty key directory do: exactly one writer of a name wins, every other
 * is told the name exists, a reader sees a key whole or not at all, and no
 * temporary file is left behind.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <string.h>

#include "engine/crypto.h"
#include "engine/support.h"

enum { WRITERS = 8, ROUNDS = 40 };

typedef struct {
    const char *dir;
    char name[32];
    kd_key key;
    kd_err err;
    pthread_barrier_t *start;
} save_job;

static void *save_one(void *arg)
{
    save_job *j = arg;
    char why[256];
    pthread_barrier_wait(j->start);
    j->err = kd_key_save(j->dir, j->name, &j->key, why, sizeof why);
    return NULL;
}

typedef struct {
    const char *dir;
    const char *name;
    volatile int *stop;
    int partial; /* loads that failed other than with "no such key" */
    char why[320];
} load_job;

static void *load_loop(void *arg)
{
    load_job *j = arg;
    while (!*j->stop) {
        kd_key key;
        char why[256];
        kd_err err = kd_key_load(j->dir, j->name, &key, why, sizeof why);
        if (err != KD_OK && err != KD_ERR_NOT_FOUND && !j->partial++)
            snprintf(j->why, sizeof j->why, "%s (%s)", why, kd_err_str(err));
    }
    return NULL;
}

static size_t entries_in(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    cr_assert(d);
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
    closedir(d);
    return n;
}

Test(keyfile, one_writer_of_a_name_wins_and_readers_never_see_half_a_key)
{
    char dir[512];
    et_tmpdir(dir, sizeof dir);
    for (int round = 0; round < ROUNDS; round++) {
        char name[32];
        snprintf(name, sizeof name, "agent%d", round + 1);
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, WRITERS);
        save_job jobs[WRITERS];
        pthread_t th[WRITERS], reader;
        volatile int stop = 0;
        load_job lj = {.dir = dir, .name = name, .stop = &stop};
        cr_assert_eq(pthread_create(&reader, NULL, load_loop, &lj), 0);
        for (int i = 0; i < WRITERS; i++) {
            jobs[i] = (save_job){.dir = dir, .start = &start};
            snprintf(jobs[i].name, sizeof jobs[i].name, "%s", name);
            cr_assert_eq(kd_key_generate(&jobs[i].key), KD_OK);
            cr_assert_eq(pthread_create(&th[i], NULL, save_one, &jobs[i]), 0);
        }
        int won = -1;
        for (int i = 0; i < WRITERS; i++) {
            pthread_join(th[i], NULL);
            if (jobs[i].err == KD_OK) {
                cr_assert_eq(won, -1, "round %d: writers %d and %d both created %s", round, won, i, name);
                won = i;
            } else {
                cr_assert_eq(jobs[i].err, KD_ERR_EXISTS, "round %d: writer %d: %s", round, i, kd_err_str(jobs[i].err));
            }
        }
        stop = 1;
        pthread_join(reader, NULL);
        pthread_barrier_destroy(&start);
        cr_assert_neq(won, -1, "round %d: nobody created %s", round, name);
        cr_assert_eq(lj.partial, 0, "round %d: a reader saw %s half written %d times: %s", round, name, lj.partial,
                     lj.why);
        kd_key loaded;
        char why[256];
        cr_assert_eq(kd_key_load(dir, name, &loaded, why, sizeof why), KD_OK, "%s", why);
        cr_assert_arr_eq(loaded.secret, jobs[won].key.secret, 32, "the file holds the winner's key");
    }
    cr_assert_eq(entries_in(dir), ROUNDS, "one file per name, no temporary file left");
    et_rmtree(dir);
}
