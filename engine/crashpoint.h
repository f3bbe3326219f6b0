/*
 * crashpoint.h — crash-point injection for recovery tests.
 *
 * KD_CRASHPOINT("name") marks an instant of the engine's write path where
 * a crash must be survivable. In a build configured with KD_CRASHPOINTS=ON
 * it checks the environment variable
 *
 *     KDAPP_CRASH_AT=name[:N]        (N >= 1, default 1)
 *
 * and calls abort() the Nth time the point `name` is reached in this
 * process, with nothing flushed or cleaned up, as a power cut or a kill -9
 * would leave it. In a normal build (the default) the macro compiles to
 * nothing and the variable is ignored.
 *
 * The points (tests/crash/run_crash.sh kills the engine at each in turn):
 *
 *   before_put     apply.c, entering accept_block/revert_block: the write
 *                  transaction is open, nothing written yet
 *   after_put      apply.c, put(): right after a put succeeded (N picks
 *                  which one), the transaction half written
 *   before_commit  apply.c, commit(): every put done, not committed
 *   after_commit   apply.c, commit(): durable, the writer's cached tip
 *                  not updated, no listener called, nothing acknowledged
 *   after_apply    apply.c, the end of a successful accept_block or
 *                  revert_block: committed, views dispatched, no reply yet
 *   before_ack     ingest_server.c: the reply to chain events is built,
 *                  not yet sent (a dry run's reply acknowledges nothing)
 *   upgraded       engine.c: a schema upgrade (engine/migrate.c) written
 *                  in the transaction that opens the store, not committed
 *
 * A reorg's reverts in one transaction (revert.c) pass before_commit and
 * after_commit once for the whole run; the tests of that and of the
 * upgrade crash a child process (tests/engine: et_crash_child).
 *
 * Threading: any thread. The hit counter is the one mutable global of
 * engine/crashpoint.c (an atomic), which only a KD_CRASHPOINTS build has.
 */
#ifndef KD_ENGINE_CRASHPOINT_H
#define KD_ENGINE_CRASHPOINT_H

#ifdef KD_CRASHPOINTS
/* Aborts when KDAPP_CRASH_AT names `name` and this is its Nth hit. A
 * malformed KDAPP_CRASH_AT aborts at the first point with a message. */
void kd_crashpoint(const char *name);
#define KD_CRASHPOINT(name) kd_crashpoint(name)
#else
#define KD_CRASHPOINT(name) ((void)0)
#endif

#endif
