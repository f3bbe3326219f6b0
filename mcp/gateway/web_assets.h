/*
 * web_assets.h — the board page's files (mcp/web/: HTML, CSS, JavaScript),
 * built into the binary: mcp/web/embed.cmake writes web_assets.c at build
 * time from the files in the repository, so nothing is copied by hand.
 */
#ifndef KD_MCP_WEB_ASSETS_H
#define KD_MCP_WEB_ASSETS_H

#include <stddef.h>

typedef struct {
    const char *path;          /* "/index.html", "/types/<type>.js", ... */
    const unsigned char *data; /* the file's bytes (no NUL added) */
    size_t len;
} kd_web_asset;

/* Every file, in name order; the last entry has a NULL path. */
extern const kd_web_asset kd_web_assets[];

/* The file at `path` ("/app.js"), or NULL (gateway_page.c). */
const kd_web_asset *kd_web_asset_find(const char *path);

#endif
