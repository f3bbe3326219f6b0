/* report.h — one-line human reports of ingest results (feed, devnet, sim). */
#ifndef KD_TOOLS_REPORT_H
#define KD_TOOLS_REPORT_H

#include <stdio.h>

#include "engine/engine.h"
#include "tools/chain/devnet.h"

/* Prints "line N: accept 3f2a…: applied 2/3 txs, height 4, digest …" and
 * one indented line per rejected tx. `line` 0 omits the prefix. */
void kd_report_result(FILE *out, unsigned line, const kd_msg_result *res, const kd_tip *tip);

/* Prints one devnet event: "block … height N: …" or "reorg: reverted …".
 * Usable as a kd_devnet_options.on_event callback (ctx = the FILE *). */
void kd_report_devnet_event(void *out, const kd_devnet_event *ev);

#endif
