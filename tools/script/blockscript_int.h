/*
 * blockscript_int.h — what blockscript.c (one line) and blockscript_file.c
 * (whole scripts) share; not part of the script interface.
 */
#ifndef KD_TOOLS_SCRIPT_BLOCKSCRIPT_INT_H
#define KD_TOOLS_SCRIPT_BLOCKSCRIPT_INT_H

#include "tools/script/blockscript.h"

/*
 * kd_script_parse_line, converting generic forms through `types` and
 * noting each new episode in `known` (appended to its episode list; may be
 * NULL) for the commands after it. Errors as kd_script_parse_line.
 */
kd_err kd_script_parse_line_in(const char *line, size_t len, unsigned line_no, uint64_t prev_daa, const char *keys_dir,
                               const kd_type_table *types, kd_script *known, kd_script_op *op, int *is_blank, char *why,
                               size_t why_len) KD_WARN_UNUSED;

#endif
