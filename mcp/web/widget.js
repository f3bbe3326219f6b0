/* widget.js: the MCP App widget (SEP-1865, MCP Apps 2026-01-26): display
 * only. It draws the board of the tool result the host hands it and never
 * sends a move, so what it shows is always the server's answer, never a
 * guess (games-mcp's canonical-truth rule).
 *
 * MCP Apps: JSON-RPC over postMessage with the host (window.parent): the
 * widget asks ui/initialize, says ui/notifications/initialized, then draws
 * each ui/notifications/tool-result (a CallToolResult) and reports its size
 * (ui/notifications/size-changed). The OpenAI Apps SDK form: the host sets
 * window.openai.toolOutput (the structuredContent) and fires
 * "openai:set_globals" when it changes. The view is structuredContent.view
 * (kdapp_start_episode, kdapp_execute_command) or structuredContent itself
 * (kdapp_get_episode_state). */
"use strict";
(() => {
  const PROTOCOL = "2026-01-26";
  const pending = new Map();
  let nextId = 1;
  let last = null;

  function post(msg) {
    window.parent.postMessage(msg, "*");
  }

  function request(method, params) {
    const id = nextId++;
    post({ jsonrpc: "2.0", id, method, params });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }

  function notify(method, params) {
    post({ jsonrpc: "2.0", method, params: params || {} });
  }

  function viewOf(sc) {
    if (!sc || typeof sc !== "object") return null;
    if (sc.view && typeof sc.view === "object" && sc.view.type) return sc.view;
    return sc.type && Array.isArray(sc.seats) ? sc : null;
  }

  function textOf(result) {
    return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  }

  function showError(text) {
    const e = document.getElementById("error");
    e.textContent = text || "";
    e.hidden = !text;
  }

  function fact(dl, name, value) {
    dl.appendChild(kdapp.el("dt", null, name));
    dl.appendChild(kdapp.el("dd", null, value));
  }

  /* Draws one CallToolResult. */
  function draw(result) {
    if (!result || typeof result !== "object") return;
    const sc = result.structuredContent;
    const v = viewOf(sc);
    if (!v) {
      showError(result.isError ? textOf(result) : "");
      return;
    }
    document.getElementById("title").textContent = "episode " + v.episode_id + " (" + v.type + "): " + kdapp.turn(v);
    showError(sc.legal === false ? "refused: " + (sc.error || sc.error_code || "illegal") : "");
    document.getElementById("board").replaceChildren(kdapp.board(v, last, textOf(result)));
    const rule = document.getElementById("rule");
    rule.textContent = kdapp.rule(v);
    rule.hidden = !rule.textContent;
    const legend = kdapp.legend(v);
    document.getElementById("legend").replaceChildren(...(legend ? [legend] : []));
    const dl = document.getElementById("facts");
    dl.replaceChildren();
    fact(dl, "status", kdapp.turn(v));
    const moves = kdapp.lastMoves(v);
    if (moves.length) fact(dl, moves.length > 1 ? "last moves" : "last move", moves.join(" "));
    if (v.move_count !== undefined) fact(dl, "moves", v.move_count);
    fact(dl, "position", kdapp.position(v));
    fact(dl, "digest there", String(v.digest || "").slice(0, 16) + "…");
    last = v;
  }

  function applyHostContext(ctx) {
    if (ctx && ctx.theme) document.body.classList.toggle("dark", ctx.theme === "dark");
  }

  function onMessage(e) {
    if (e.source !== window.parent) return;
    const m = e.data;
    if (!m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined) {
      const p = pending.get(m.id);
      if (p) {
        pending.delete(m.id);
        if (m.error) p.reject(new Error(m.error.message));
        else p.resolve(m.result);
      }
    } else if (m.method === "ui/notifications/tool-result") {
      draw(m.params);
    } else if (m.method === "ui/notifications/host-context-changed") {
      applyHostContext(m.params);
    } else if (m.id !== undefined) {
      if (m.method === "ui/resource-teardown" || m.method === "ping") post({ jsonrpc: "2.0", id: m.id, result: {} });
      else post({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
    }
  }

  function reportSize() {
    const d = document.documentElement;
    notify("ui/notifications/size-changed", { width: Math.ceil(d.scrollWidth), height: Math.ceil(d.scrollHeight) });
  }

  if (window.openai) {
    draw({ structuredContent: window.openai.toolOutput });
    window.addEventListener("openai:set_globals", (e) => {
      const g = e.detail && e.detail.globals;
      if (g && "toolOutput" in g) draw({ structuredContent: g.toolOutput });
    });
    return;
  }
  window.addEventListener("message", onMessage);
  request("ui/initialize", {
    appInfo: { name: "kdapp-board", version: "1" },
    appCapabilities: {},
    protocolVersion: PROTOCOL,
  })
    .then((r) => {
      applyHostContext(r && r.hostContext);
      notify("ui/notifications/initialized");
      new ResizeObserver(reportSize).observe(document.body);
    })
    .catch((err) => showError("the host refused the widget: " + err.message));
})();
