/* app.js: what every page of the board app shares besides drawing (render.js,
 * loaded first): the data, the events and errors. The bearer token (needed
 * beyond loopback) arrives in the address's fragment (#token=...), which the
 * browser never sends to a server or in a Referer; it is kept in this tab's
 * sessionStorage, removed from the address bar, and sent only in the
 * Authorization header of the app's own fetches. */
"use strict";
Object.assign(kdapp, (() => {
  const KEY = "kdapp-token";
  if (location.hash.startsWith("#token=")) {
    sessionStorage.setItem(KEY, decodeURIComponent(location.hash.slice(7)));
    history.replaceState(null, "", location.pathname + location.search);
  }

  function headers(extra) {
    const h = Object.assign({}, extra || {});
    const t = sessionStorage.getItem(KEY);
    if (t) h.Authorization = "Bearer " + t;
    return h;
  }

  function showError(text) {
    const e = document.getElementById("error");
    e.textContent = text || "";
    e.hidden = !text;
  }

  async function getJSON(path) {
    const r = await fetch(path, { headers: headers({ Accept: "application/json" }), cache: "no-store" });
    if (r.status === 401) throw new Error("a bearer token is required: open this page as …/#token=YOUR_TOKEN");
    if (!r.ok) throw new Error(path + ": HTTP " + r.status);
    return r.json();
  }

  function setLive(on) {
    const l = document.getElementById("live");
    l.textContent = on ? "live" : "reconnecting…";
    l.classList.toggle("off", !on);
  }

  /* Follows /api/events (server-sent events, read through fetch so that the
   * token travels in a header). onEvent(name, data) per event; after a
   * lost connection it reconnects and calls onEvent("resync", {}). */
  async function follow(onEvent) {
    for (;;) {
      try {
        const r = await fetch("/api/events", { headers: headers({ Accept: "text/event-stream" }), cache: "no-store" });
        if (!r.ok) throw new Error("events: HTTP " + r.status);
        setLive(true);
        const reader = r.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let name = "message", data = "";
            for (const line of block.split("\n")) {
              if (line.startsWith("event: ")) name = line.slice(7);
              else if (line.startsWith("data: ")) data += line.slice(6);
            }
            if (data) onEvent(name, JSON.parse(data));
          }
        }
      } catch (e) {
        /* fall through: reconnect */
      }
      setLive(false);
      await new Promise((res) => setTimeout(res, 1000));
      onEvent("resync", {});
    }
  }

  return { headers, getJSON, follow, showError };
})());
